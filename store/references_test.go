package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/assistant-dev/assistant/store/storetest"
)

// insertEventSQL adds an event row of the owner given as its one argument,
// by SQL typed around the store.
const insertEventSQL = `INSERT INTO events (owner_id, uid, title, start_local, end_local, tzid, start_at, end_at, first_at, created_at)
	VALUES (?, 'ref-' || ?, 'by hand', '2026-03-01T09:00', '2026-03-01T10:00', 'UTC', 1772355600, 1772359200, 1772355600, 0)`

// count is the number of rows q finds.
func (f *fixture) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := f.s.DB().QueryRowContext(f.ctx, q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestReferencesHeld: events.owner_id and change_rows.change_id keep their
// references on both engines, foreign keys on SQLite and per-statement
// triggers on PostgreSQL (migration 00037): a row naming no person or no
// change is refused, a multi-row statement with one such row adds none, a
// reference may change only to a row that exists, a referenced id cannot
// change, and deleting a person or a change deletes what named it.
func TestReferencesHeld(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		db := f.s.DB()
		const nobody = 987654
		events := func() int { return f.count(t, `SELECT count(*) FROM events`) }

		if _, err := db.ExecContext(f.ctx, insertEventSQL, nobody, "1"); err == nil {
			t.Error("an event of no person was added")
		}
		if _, err := db.ExecContext(f.ctx, `INSERT INTO events (owner_id, uid, title, start_local, end_local, tzid, start_at, end_at, first_at, created_at)
			SELECT o, 'ref-many-' || o, 'by hand', 'a', 'b', 'UTC', 0, 0, 0, 0 FROM (SELECT ? AS o UNION ALL SELECT ?) AS x`,
			f.alice.ID, nobody); err == nil {
			t.Error("two events, one of no person, were added")
		}
		if n := events(); n != 0 {
			t.Fatalf("%d events after two refused inserts", n)
		}

		if _, err := db.ExecContext(f.ctx, insertEventSQL, f.alice.ID, "2"); err != nil {
			t.Fatalf("an event of alice: %v", err)
		}
		if _, err := db.ExecContext(f.ctx, `UPDATE events SET owner_id = ? WHERE uid = 'ref-2'`, nobody); err == nil {
			t.Error("an event was moved to no person")
		}
		if _, err := db.ExecContext(f.ctx, `UPDATE events SET owner_id = ? WHERE uid = 'ref-2'`, f.bob.ID); err != nil {
			t.Errorf("an event moved to bob: %v", err)
		}

		// A person with nothing but an event keeps their id.
		var carol int64
		if err := db.QueryRowContext(f.ctx, `INSERT INTO people (name, zone, created) VALUES ('carol', 'UTC', 0) RETURNING id`).Scan(&carol); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(f.ctx, insertEventSQL, carol, "3"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(f.ctx, `UPDATE people SET id = ? WHERE id = ?`, nobody, carol); err == nil {
			t.Error("the id of a person with an event changed")
		}

		// A change of two rows keeps them in change_rows.
		f.add(t, f.alice.ID, "one")
		change, err := f.s.Write(f.ctx, f.alice.ID, "add_notes", func(tx *Tx) error {
			for _, title := range []string{"two", "three"} {
				if _, err := tx.Insert("notes", Row{"title": title, "due": t0.Unix()}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		no, err := parseChange(change)
		if err != nil {
			t.Fatal(err)
		}
		rowsOf := func(c int64) int { return f.count(t, `SELECT count(*) FROM change_rows WHERE change_id = ?`, c) }
		if n := rowsOf(no); n != 2 {
			t.Fatalf("change %s has %d rows in change_rows, want 2", change, n)
		}
		if _, err := db.ExecContext(f.ctx, `INSERT INTO change_rows (change_id, seq, tbl, row_id) VALUES (?, 0, 'notes', 1)`, nobody); err == nil {
			t.Error("a journal row of no change was added")
		}
		if _, err := db.ExecContext(f.ctx, `UPDATE change_rows SET change_id = ? WHERE change_id = ?`, nobody, no); err == nil {
			t.Error("journal rows were moved to no change")
		}
		if _, err := db.ExecContext(f.ctx, `UPDATE changes SET id = ? WHERE id = ?`, nobody, no); err == nil {
			t.Error("the id of a change with journal rows changed")
		}
		if n := f.count(t, `SELECT count(*) FROM change_rows WHERE change_id = ?`, nobody); n != 0 {
			t.Errorf("%d journal rows of no change", n)
		}

		if _, err := db.ExecContext(f.ctx, `DELETE FROM changes WHERE id = ?`, no); err != nil {
			t.Fatal(err)
		}
		if n := rowsOf(no); n != 0 {
			t.Errorf("%d journal rows outlive their change", n)
		}

		if err := f.s.DeletePerson(f.ctx, carol); err != nil {
			t.Fatal(err)
		}
		if err := f.s.DeletePerson(f.ctx, f.bob.ID); err != nil {
			t.Fatal(err)
		}
		if n := events(); n != 0 {
			t.Errorf("%d events outlive their people", n)
		}
	})
}

// TestReferencesConcurrentDelete: on PostgreSQL a person deleted while
// another transaction adds an event of theirs waits for it and then
// deletes the event too; an event added while the person's deletion is
// under way waits for it and is then refused. Either way no event is left
// without its person, as with a foreign key.
func TestReferencesConcurrentDelete(t *testing.T) {
	storetest.SkipUnlessPostgres(t)
	t.Run(storetest.Postgres, func(t *testing.T) {
		f := newFixture(t)
		// begin opens a connection of its own, for t, and begins a
		// transaction on it; it gives the backend's pid.
		begin := func(t *testing.T) (*sql.Tx, int) {
			c, err := f.s.DB().Conn(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			var pid int
			if err := c.QueryRowContext(f.ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
				t.Fatal(err)
			}
			tx, err := c.BeginTx(f.ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tx.Rollback() })
			return tx, pid
		}
		// waiting returns once the backend pid waits for a lock.
		waiting := func(t *testing.T, pid int) {
			t.Helper()
			ctx, cancel := context.WithTimeout(f.ctx, 2*time.Minute)
			defer cancel()
			for {
				var n int
				if err := f.s.DB().QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND wait_event_type = 'Lock'`, pid).Scan(&n); err != nil {
					t.Fatalf("the backend %d never waited for a lock: %v", pid, err)
				}
				if n == 1 {
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		person := func(name string) int64 {
			var id int64
			if err := f.s.DB().QueryRowContext(f.ctx, `INSERT INTO people (name, zone, created) VALUES (?, 'UTC', 0) RETURNING id`, name).Scan(&id); err != nil {
				t.Fatal(err)
			}
			return id
		}

		t.Run("insert first", func(t *testing.T) {
			carol := person("carol")
			adding, _ := begin(t)
			if _, err := adding.ExecContext(f.ctx, insertEventSQL, carol, "c"); err != nil {
				t.Fatal(err)
			}
			deleting, pid := begin(t)
			done := make(chan error, 1)
			go func() { _, err := deleting.ExecContext(f.ctx, `DELETE FROM people WHERE id = ?`, carol); done <- err }()
			waiting(t, pid)
			if err := adding.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("the deletion: %v", err)
			}
			if err := deleting.Commit(); err != nil {
				t.Fatal(err)
			}
			if n := f.count(t, `SELECT count(*) FROM events WHERE owner_id = ?`, carol); n != 0 {
				t.Errorf("%d events outlive carol", n)
			}
		})

		t.Run("delete first", func(t *testing.T) {
			dave := person("dave")
			deleting, _ := begin(t)
			if _, err := deleting.ExecContext(f.ctx, `DELETE FROM people WHERE id = ?`, dave); err != nil {
				t.Fatal(err)
			}
			adding, pid := begin(t)
			done := make(chan error, 1)
			go func() { _, err := adding.ExecContext(f.ctx, insertEventSQL, dave, "d"); done <- err }()
			waiting(t, pid)
			if err := deleting.Commit(); err != nil {
				t.Fatal(err)
			}
			err := <-done
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "23503" {
				t.Fatalf("an event of a person deleted meanwhile: %v, want SQLSTATE 23503", err)
			}
			if n := f.count(t, `SELECT count(*) FROM events WHERE owner_id = ?`, dave); n != 0 {
				t.Errorf("%d events of dave", n)
			}
		})
	})
}

// TestWriteOfNothingChecksPerson: a write that changes nothing still
// refuses an owner who is no person (ErrNotFound) and passes for one who
// is, on both engines (on PostgreSQL asked inside the write's own
// transaction).
func TestWriteOfNothingChecksPerson(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		nothing := func(*Tx) error { return nil }
		if _, err := f.s.Write(f.ctx, 987654, "noop", nothing); !errors.Is(err, ErrNotFound) {
			t.Errorf("a write of nothing for no person: %v, want ErrNotFound", err)
		}
		if c, err := f.s.Write(f.ctx, f.alice.ID, "noop", nothing); err != nil || c != "" {
			t.Errorf("a write of nothing for alice: %q, %v; want no change and no error", c, err)
		}
	})
}
