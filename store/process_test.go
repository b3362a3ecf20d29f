package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// The concurrency and crash tests re-run this test binary as a second
// process; the environment says which part it plays.
const (
	envRole  = "STORE_TEST_CHILD"
	envDB    = "STORE_TEST_DB"
	envOwner = "STORE_TEST_OWNER"
	envFor   = "STORE_TEST_FOR"
)

func TestMain(m *testing.M) {
	switch os.Getenv(envRole) {
	case "writer":
		os.Exit(childWriter())
	case "crash":
		os.Exit(childCrash())
	}
	code := m.Run()
	if big.dir != "" {
		os.RemoveAll(big.dir)
	}
	os.Exit(code)
}

func childStore() (*Store, int64, error) {
	owner, err := strconv.ParseInt(os.Getenv(envOwner), 10, 64)
	if err != nil {
		return nil, 0, err
	}
	s, err := Open(context.Background(), os.Getenv(envDB), nil)
	return s, owner, err
}

// childWriter inserts notes for the owner until the time is up and prints
// how many writes succeeded; any error ends it with status 1.
func childWriter() int {
	s, owner, err := childStore()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	d, _ := time.ParseDuration(os.Getenv(envFor))
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); n++ {
		_, err := s.Write(context.Background(), owner, "child", func(tx *Tx) error {
			_, err := tx.Insert("notes", Row{"title": "child"})
			return err
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "write:", err)
			return 1
		}
	}
	fmt.Println(n)
	return 0
}

// childCrash writes three notes per change, forever, and acknowledges each
// committed change on stdout; the parent kills it at a random point.
func childCrash() int {
	s, owner, err := childStore()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 0; ; i++ {
		var ids [3]int64
		_, err := s.Write(context.Background(), owner, "crash", func(tx *Tx) error {
			for k := range ids {
				id, err := tx.Insert("notes", Row{"title": "crash " + strconv.Itoa(i), "due": int64(i)})
				if err != nil {
					return err
				}
				ids[k] = id
			}
			return tx.Update("notes", ids[0], Row{"title": "crash " + strconv.Itoa(i) + " updated"})
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "write:", err)
			return 1
		}
		fmt.Printf("ack %d %d %d end\n", ids[0], ids[1], ids[2])
	}
}

func child(t *testing.T, role, db string, owner int64, d time.Duration) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"="+role, envDB+"="+db,
		envOwner+"="+strconv.FormatInt(owner, 10), envFor+"="+d.String())
	cmd.Stderr = &strings.Builder{}
	return cmd
}

// TestConcurrentWriters runs three groups of goroutines and a second
// process against one file: no caller sees "database is locked", and every
// successful write is there at the end (a read-modify-write counter
// catches lost updates).
func TestConcurrentWriters(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs for seconds; skipped with -short")
		}
		f := newFixture(t)
		const d = 3 * time.Second
		counter, _ := f.add(t, f.alice.ID, "counter")
		conv, err := f.s.NewConversation(f.ctx, f.alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		cmd := child(t, "writer", f.path, f.bob.ID, d)
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}

		var inserts, messages, increments atomic.Int64
		var errMu sync.Mutex
		var errs []error
		fail := func(err error) {
			errMu.Lock()
			errs = append(errs, err)
			errMu.Unlock()
		}
		groups := []func() error{
			func() error {
				_, err := f.s.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
					_, err := tx.Insert("notes", Row{"title": "a"})
					return err
				})
				if err == nil {
					inserts.Add(1)
				}
				return err
			},
			func() error {
				err := f.s.AppendMessages(f.ctx, f.alice.ID, conv, []json.RawMessage{json.RawMessage(`{"role":"user"}`)})
				if err == nil {
					messages.Add(1)
				}
				return err
			},
			func() error {
				_, err := f.s.Write(f.ctx, f.alice.ID, "bump", func(tx *Tx) error {
					r, err := tx.Get("notes", counter)
					if err != nil {
						return err
					}
					n, _ := r["due"].(int64)
					return tx.Update("notes", counter, Row{"due": n + 1})
				})
				if err == nil {
					increments.Add(1)
				}
				return err
			},
		}
		var wg sync.WaitGroup
		end := time.Now().Add(d)
		for _, g := range groups {
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for time.Now().Before(end) {
						if err := g(); err != nil {
							fail(err)
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("second process: %v: %s", err, cmd.Stderr)
		}
		for _, err := range errs {
			t.Errorf("a writer saw: %v", err)
		}
		childN, err := strconv.Atoi(strings.TrimSpace(out.String()))
		if err != nil {
			t.Fatalf("second process printed %q", out.String())
		}
		var alice, bob, msgs int64
		f.s.DB().QueryRow(`SELECT count(*) FROM notes WHERE owner_id = ? AND title = 'a'`, f.alice.ID).Scan(&alice)
		f.s.DB().QueryRow(`SELECT count(*) FROM notes WHERE owner_id = ?`, f.bob.ID).Scan(&bob)
		f.s.DB().QueryRow(`SELECT count(*) FROM messages WHERE conversation_id = ?`, conv).Scan(&msgs)
		due := f.get(t, f.alice.ID, counter)["due"].(int64) - t0.Unix()
		t.Logf("inserts %d, messages %d, increments %d, second process %d", inserts.Load(), messages.Load(), increments.Load(), childN)
		for _, c := range []struct {
			what      string
			got, want int64
		}{
			{"alice's notes", alice, inserts.Load()},
			{"messages", msgs, messages.Load()},
			{"counter", due, increments.Load()},
			{"bob's notes (second process)", bob, int64(childN)},
		} {
			if c.got != c.want || c.want == 0 {
				t.Errorf("%s: %d in the database, %d acknowledged", c.what, c.got, c.want)
			}
		}
	})
}

var ackLine = regexp.MustCompile(`^ack (\d+) (\d+) (\d+) end$`)

// TestCrashKeepsAcknowledgedWrites kills a writing process with SIGKILL,
// reopens the file, and checks that it is intact and holds every change
// the process saw committed, and no half of one.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		for round := range 3 {
			cmd := child(t, "crash", f.path, f.alice.ID, 0)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var acked [][3]int64
			sc := bufio.NewScanner(stdout)
			stop := 50 + 70*round // a different point each round
			for sc.Scan() {
				if m := ackLine.FindStringSubmatch(sc.Text()); m != nil {
					var ids [3]int64
					for k := range ids {
						ids[k], _ = strconv.ParseInt(m[k+1], 10, 64)
					}
					acked = append(acked, ids)
				}
				if len(acked) == stop {
					cmd.Process.Kill()
				}
			}
			cmd.Wait()
			if len(acked) < stop {
				t.Fatalf("round %d: the writer stopped after %d changes: %s", round, len(acked), cmd.Stderr)
			}

			s, err := Open(f.ctx, f.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			// SQLite checks its file; PostgreSQL has no such check to run.
			if s.Engine() == SQLite {
				var check string
				if err := s.DB().QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
					t.Fatalf("round %d: integrity_check = %q, %v", round, check, err)
				}
			}
			for _, ids := range acked {
				for _, id := range ids {
					var n int
					if err := s.DB().QueryRow(`SELECT count(*) FROM notes WHERE id = ? AND owner_id = ?`, id, f.alice.ID).Scan(&n); err != nil || n != 1 {
						t.Fatalf("round %d: acknowledged note %d missing after the crash (%v)", round, id, err)
					}
				}
			}
			// Whole changes only: every journaled change has its three rows,
			// and every note belongs to a change.
			var halves int
			s.DB().QueryRow(`SELECT count(*) FROM changes c WHERE c.tool = 'crash'
			AND (SELECT count(*) FROM change_rows r WHERE r.change_id = c.id) != 3`).Scan(&halves)
			var orphans int
			s.DB().QueryRow(`SELECT count(*) FROM notes n WHERE n.owner_id = ? AND NOT EXISTS
			(SELECT 1 FROM change_rows r WHERE r.tbl = 'notes' AND r.row_id = n.id)`, f.alice.ID).Scan(&orphans)
			if halves != 0 || orphans != 0 {
				t.Fatalf("round %d: %d partial changes, %d notes without a change", round, halves, orphans)
			}
			s.Close()
			t.Logf("round %d: %d acknowledged changes intact", round, len(acked))
		}
	})
}
