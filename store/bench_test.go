package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// BenchmarkInsert compares one journaled insert through Write with a bare
// prepared INSERT on the same file and pragmas. -count repeats each
// sub-benchmark back to back, so run the pair in turn from the shell to
// interleave them under the same disk and machine load:
//
//	for i in $(seq 10); do go test -run '^$' -bench Insert ./store/; done | benchstat -col /kind -
//
// It runs on each engine (BenchmarkInsert/sqlite/…, …/postgres/…; the
// latter needs ASSISTANT_TEST_POSTGRES). On PostgreSQL the journaled
// insert is 2 round trips (BEGIN, lock and INSERT in one batch; the
// journal with COMMIT), the bare one 1.
func BenchmarkInsert(b *testing.B) {
	b.Run(storetest.SQLite, benchInsert)
	b.Run(storetest.Postgres, func(b *testing.B) {
		storetest.SkipUnlessPostgres(b)
		benchInsert(b)
	})
}

func benchInsert(b *testing.B) {
	f := newFixture(b)
	b.Run("kind=journaled", func(b *testing.B) {
		for b.Loop() {
			_, err := f.s.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
				_, err := tx.Insert("notes", Row{"title": "Buy milk", "due": t0.Unix()})
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kind=bare", func(b *testing.B) {
		st, err := f.s.DB().Prepare(`INSERT INTO notes (owner_id, title, due, updated_at) VALUES (?, ?, ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		for b.Loop() {
			if _, err := st.Exec(f.alice.ID, "Buy milk", t0.Unix(), stamp(t0)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

const bigRows = 1_000_000

var big struct {
	once  sync.Once
	f     *fixture
	dir   string
	err   error
	owner int64
}

// bigFixture is a store with 1,000,000 notes of one person, seeded once per
// process in one bulk transaction; dues are one minute apart, inserted in
// shuffled order so the due index is not in id order.
func bigFixture(b *testing.B) *fixture {
	big.once.Do(func() {
		big.dir, big.err = os.MkdirTemp("", "store-bench-")
		if big.err != nil {
			return
		}
		ctx := context.Background()
		s, err := Open(ctx, filepath.Join(big.dir, "big.db"), nil)
		if err != nil {
			big.err = err
			return
		}
		f := &fixture{s: s, ctx: ctx, path: s.Path(), clock: t0}
		if _, err := s.DB().Exec(notesDDL); err != nil {
			big.err = err
			return
		}
		if f.alice, big.err = s.AddPerson(ctx, "alice", "Europe/Paris"); big.err != nil {
			return
		}
		if f.bob, big.err = s.AddPerson(ctx, "bob", "UTC"); big.err != nil {
			return
		}
		start := time.Now()
		tx, err := s.DB().Begin()
		if err != nil {
			big.err = err
			return
		}
		st, err := tx.Prepare(`INSERT INTO notes (owner_id, title, due, updated_at) VALUES (?, ?, ?, ?)`)
		if err != nil {
			big.err = err
			return
		}
		perm := rand.New(rand.NewPCG(1, 2)).Perm(bigRows)
		for i, p := range perm {
			owner := f.alice.ID
			if i%10 == 9 { // a tenth belongs to someone else, as in a shared file
				owner = f.bob.ID
			}
			if _, err := st.Exec(owner, fmt.Sprintf("task %d", p), t0.Unix()+int64(p)*60, stamp(t0)); err != nil {
				big.err = err
				return
			}
		}
		st.Close()
		if big.err = tx.Commit(); big.err != nil {
			return
		}
		fmt.Fprintf(os.Stderr, "seeded %d rows in %v\n", bigRows, time.Since(start).Round(time.Millisecond))
		big.f = f
	})
	if big.err != nil {
		b.Fatal(big.err)
	}
	return big.f
}

func BenchmarkGetByID(b *testing.B) {
	f := bigFixture(b)
	rng := rand.New(rand.NewPCG(3, 4))
	var ids []int64
	rows, err := f.s.DB().Query(`SELECT id FROM notes WHERE owner_id = ? LIMIT 10000`, f.alice.ID)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	b.ResetTimer()
	for b.Loop() {
		err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			_, err := tx.Get("notes", ids[rng.IntN(len(ids))])
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRangeByDue(b *testing.B) {
	f := bigFixture(b)
	rng := rand.New(rand.NewPCG(5, 6))
	b.ResetTimer()
	for b.Loop() {
		from := t0.Unix() + int64(rng.IntN(bigRows-2000))*60
		n := 0
		err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			rows, err := tx.query(`SELECT id, title, due FROM notes
				WHERE owner_id = ? AND due >= ? AND deleted_at IS NULL ORDER BY due LIMIT 100`, tx.Owner(), from)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var id, due int64
				var title string
				if err := rows.Scan(&id, &title, &due); err != nil {
					return err
				}
				n++
			}
			return rows.Err()
		})
		if err != nil || n != 100 {
			b.Fatalf("%d rows, %v", n, err)
		}
	}
}
