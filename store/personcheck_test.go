package store

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestPersonCheck makes a PersonCheck in the first transaction begun with
// its context, Write's and Read's, on both engines: a check of the stored
// name and zone passes once and is not made again; one of another zone,
// another name or a person deleted since fails that transaction with
// ErrPersonChanged before its function runs, and nothing is written.
func TestPersonCheck(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		notes := func() int {
			var n int
			if err := f.s.DB().QueryRowContext(f.ctx, `SELECT count(*) FROM notes`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		ctx, c := WithPersonCheck(f.ctx, f.alice.ID, "alice", "Europe/Paris")
		ran := 0
		if _, err := f.s.Write(ctx, f.alice.ID, "add_note", func(tx *Tx) error {
			ran++
			_, err := tx.Insert("notes", Row{"title": "x", "due": t0.Unix()})
			return err
		}); err != nil || ran != 1 || !c.Made() || c.Changed() {
			t.Fatalf("Write with the stored name and zone: err %v, ran %d, made %v, changed %v", err, ran, c.Made(), c.Changed())
		}
		// Made once: a second transaction of the call does not check again
		// (it would pass here; the person changes below).
		if _, _, err := f.s.SetZone(f.ctx, f.alice.ID, "Asia/Tokyo", "person set-zone"); err != nil {
			t.Fatal(err)
		}
		if err := f.s.Read(ctx, f.alice.ID, func(tx *Tx) error { ran++; return nil }); err != nil || ran != 2 || c.Changed() {
			t.Fatalf("a second transaction of the same check: err %v, ran %d, changed %v", err, ran, c.Changed())
		}

		for _, tc := range []struct {
			what, name, zone string
			read             bool
		}{
			{"Write, another zone", "alice", "Europe/Paris", false},
			{"Write, another name", "alicia", "Asia/Tokyo", false},
			{"Read, another zone", "alice", "Europe/Paris", true},
		} {
			ctx, c := WithPersonCheck(f.ctx, f.alice.ID, tc.name, tc.zone)
			before, ran := notes(), false
			var err error
			if tc.read {
				err = f.s.Read(ctx, f.alice.ID, func(tx *Tx) error {
					ran = true
					_, err := tx.Get("notes", 1)
					return err
				})
			} else {
				_, err = f.s.Write(ctx, f.alice.ID, "add_note", func(tx *Tx) error {
					ran = true
					_, err := tx.Insert("notes", Row{"title": "y", "due": t0.Unix()})
					return err
				})
			}
			// On PostgreSQL the check rides with the first statement, so
			// the function has run up to it; what it did is rolled back.
			if !errors.Is(err, ErrPersonChanged) || !c.Changed() || (ran && f.s.Engine() == SQLite) {
				t.Fatalf("%s: err %v, changed %v, ran %v; want ErrPersonChanged and nothing run", tc.what, err, c.Changed(), ran)
			}
			if n := notes(); n != before {
				t.Fatalf("%s: %d notes after the failed check, %d before", tc.what, n, before)
			}
		}

		// Another person's transaction leaves the check alone.
		ctx, c = WithPersonCheck(f.ctx, f.alice.ID, "alice", "Europe/Paris")
		if err := f.s.Read(ctx, f.bob.ID, func(tx *Tx) error { return nil }); err != nil || c.Made() {
			t.Fatalf("bob's Read with alice's check: err %v, made %v", err, c.Made())
		}

		if err := f.s.DeletePerson(f.ctx, f.alice.ID); err != nil {
			t.Fatal(err)
		}
		ctx, c = WithPersonCheck(f.ctx, f.alice.ID, "alice", "Asia/Tokyo")
		err := f.s.Read(ctx, f.alice.ID, func(tx *Tx) error {
			_, err := tx.Get("notes", 1)
			return err
		})
		if !errors.Is(err, ErrPersonChanged) || !c.Changed() {
			t.Fatalf("Read after the person was deleted: err %v, changed %v; want ErrPersonChanged", err, c.Changed())
		}
	})
}

// TestPersonCheckRidesWithBegin counts the round trips of a journaled add
// on PostgreSQL: two (BEGIN, the advisory lock and the INSERT; the journal
// and COMMIT) whether or not a PersonCheck is made, which rides in the
// first; a failed check ends with the rollback's.
func TestPersonCheckRidesWithBegin(t *testing.T) {
	t.Run(storetest.Postgres, func(t *testing.T) {
		storetest.SkipUnlessPostgres(t)
		f := newFixture(t)
		add := func(ctx context.Context) (int64, error) {
			var n atomic.Int64
			_, err := f.s.Write(context.WithValue(ctx, roundTripsKey{}, &n), f.alice.ID, "add_note", func(tx *Tx) error {
				_, err := tx.Insert("notes", Row{"title": "x", "due": t0.Unix()})
				return err
			})
			return n.Load(), err
		}
		if _, err := add(f.ctx); err != nil { // reads the columns of notes once
			t.Fatal(err)
		}
		if n, err := add(f.ctx); err != nil || n != 2 {
			t.Fatalf("an add without a check: %d round trips, %v; want 2", n, err)
		}
		ctx, c := WithPersonCheck(f.ctx, f.alice.ID, "alice", "Europe/Paris")
		if n, err := add(ctx); err != nil || n != 2 || !c.Made() {
			t.Fatalf("an add with a check: %d round trips, %v, made %v; want 2, made", n, err, c.Made())
		}
		ctx, c = WithPersonCheck(f.ctx, f.alice.ID, "alice", "Asia/Tokyo")
		if n, err := add(ctx); !errors.Is(err, ErrPersonChanged) || n != 2 || !c.Changed() {
			t.Fatalf("an add with a failed check: %d round trips, %v; want 2 and ErrPersonChanged", n, err)
		}
	})
}

// TestOwnModeFirstInTransaction is a read and a write whose first
// statement asks for its own pgx.QueryExecMode (Tx.customPlan): pgx's
// batch, which carries a deferred BEGIN, cannot take one, and the
// statement failed with "mismatched param and argument count". It now
// runs alone after the BEGIN, a person check included.
func TestOwnModeFirstInTransaction(t *testing.T) {
	t.Run(storetest.Postgres, func(t *testing.T) {
		storetest.SkipUnlessPostgres(t)
		f := newFixture(t)
		if _, err := f.s.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
			_, err := tx.Insert("notes", Row{"title": "x", "due": t0.Unix()})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		count := func(tx *Tx) (int, error) {
			var n int
			err := tx.queryRow(`SELECT count(*) FROM notes WHERE owner_id = ? AND title = ?`,
				pgx.QueryExecModeCacheDescribe, tx.owner, "x").Scan(&n)
			return n, err
		}
		for _, check := range []string{"", "Europe/Paris", "Asia/Tokyo"} {
			ctx := f.ctx
			var c *PersonCheck
			if check != "" {
				ctx, c = WithPersonCheck(f.ctx, f.alice.ID, "alice", check)
			}
			var n int
			err := f.s.Read(ctx, f.alice.ID, func(tx *Tx) error {
				var err error
				n, err = count(tx)
				return err
			})
			if check == "Asia/Tokyo" {
				if !errors.Is(err, ErrPersonChanged) || !c.Changed() {
					t.Fatalf("a read with a failed check: %v; want ErrPersonChanged", err)
				}
				continue
			}
			if err != nil || n != 1 {
				t.Fatalf("a read (check %q) led by its own mode: %d, %v; want 1", check, n, err)
			}
			if _, err := f.s.Write(ctx, f.alice.ID, "add_note", func(tx *Tx) error {
				n, err = count(tx)
				return err
			}); err != nil || n != 1 {
				t.Fatalf("a write (check %q) led by its own mode: %d, %v; want 1", check, n, err)
			}
		}
	})
}
