package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A write that waits for another writer of the same person (a longer
// call of this process on SQLite, the person's advisory lock on
// PostgreSQL) until its context ends fails with the Busy Trouble: the
// sentence says it waited for another writer and that nothing was kept,
// and the waiting write stored nothing once the other finished.
func TestWriteWaitsForAnotherWriter(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		holding, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			_, err := f.s.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
				if _, err := tx.Insert("notes", Row{"title": "first", "due": t0.Unix()}); err != nil {
					return err
				}
				close(holding)
				<-release
				return nil
			})
			done <- err
		}()
		<-holding
		ctx, cancel := context.WithTimeout(f.ctx, time.Second)
		_, err := f.s.Write(ctx, f.alice.ID, "add_note", func(tx *Tx) error {
			_, err := tx.Insert("notes", Row{"title": "second", "due": t0.Unix()})
			return err
		})
		cancel()
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("the first write: %v", err)
		}
		if TroubleOf(err) != Busy || !TroubleOf(err).Retry() {
			t.Fatalf("a write that waited past its deadline: %v (Trouble %d), want Busy", err, TroubleOf(err))
		}
		if s := f.s.Explain(err); !strings.Contains(s, "waited for another writer") || !strings.Contains(s, "nothing of this call was kept") {
			t.Errorf("its sentence: %q", s)
		}
		if got := f.titles(t, f.alice.ID); strings.Join(got, ",") != "first" {
			t.Errorf("notes after the wait: %v, want only the first", got)
		}
	})
}

// Another program holding SQLite's write lock: a write that waits past its
// context's end is Busy as above, and one that waits past busy_timeout
// (lowered here from 10 s) is Busy with the sentence of another program
// writing; neither closes the kept connection, and the next write, once
// the lock is free, is kept on it.
func TestWriteWaitsForAnotherProgram(t *testing.T) {
	f := newFixture(t)
	f.add(t, f.alice.ID, "before")
	other, err := sql.Open("sqlite", "file:"+f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(f.ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	h := f.s.takeHot(f.ctx)
	if h == nil {
		t.Fatal("no kept connection")
	}
	f.s.putHot()

	ctx, cancel := context.WithTimeout(f.ctx, time.Second)
	_, err = f.s.Write(ctx, f.alice.ID, "add_note", func(tx *Tx) error {
		_, err := tx.Insert("notes", Row{"title": "cancelled", "due": t0.Unix()})
		return err
	})
	cancel()
	if TroubleOf(err) != Busy || !strings.Contains(f.s.Explain(err), "waited for another writer of the database “"+f.path+"”") {
		t.Errorf("a write whose context ended in the wait: %v, sentence %q", err, f.s.Explain(err))
	}

	if got := f.s.takeHot(f.ctx); got != h {
		if got != nil {
			f.s.putHot()
		}
		t.Fatal("the wait closed the kept connection")
	}
	if _, err := h.conn.ExecContext(f.ctx, "PRAGMA busy_timeout = 50"); err != nil {
		t.Fatal(err)
	}
	f.s.putHot()
	_, err = f.s.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
		_, err := tx.Insert("notes", Row{"title": "busy", "due": t0.Unix()})
		return err
	})
	if TroubleOf(err) != Busy || !strings.HasPrefix(f.s.Explain(err), "Another program was writing to the database “"+f.path+"”") {
		t.Errorf("a write past busy_timeout: %v, sentence %q", err, f.s.Explain(err))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a write past busy_timeout reads as a deadline: %v", err)
	}

	if _, err := conn.ExecContext(f.ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	var kept bool
	if _, err := f.s.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
		_, kept = tx.tx.(*connTx)
		_, err := tx.Insert("notes", Row{"title": "after", "due": t0.Unix()})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !kept || f.s.hot != h {
		t.Error("the write after the lock was freed did not run on the same kept connection")
	}
	if got := f.titles(t, f.alice.ID); strings.Join(got, ",") != "before,after" {
		t.Errorf("notes: %v, want before,after", got)
	}
}

// titles are the titles of owner's live notes, in the order added.
func (f *fixture) titles(t testing.TB, owner int64) []string {
	t.Helper()
	var got []string
	err := f.s.Read(f.ctx, owner, func(tx *Tx) error {
		rows, err := tx.query(`SELECT title FROM notes WHERE owner_id = ? AND deleted_at IS NULL ORDER BY id`, owner)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			got = append(got, s)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
