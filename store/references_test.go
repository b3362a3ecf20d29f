package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
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

// TestReferencesPostgresGuards: what stands in for the foreign keys on
// PostgreSQL holds whatever the caller's search_path, refuses a cascade
// outside READ COMMITTED (where its snapshot could miss an event added
// meanwhile) while DeletePerson still works under a database default of
// REPEATABLE READ, and refuses a TRUNCATE that would leave rows behind.
func TestReferencesPostgresGuards(t *testing.T) {
	storetest.SkipUnlessPostgres(t)
	t.Run(storetest.Postgres, func(t *testing.T) {
		f := newFixture(t)
		db := f.s.DB()
		var schema, dbName string
		if err := db.QueryRowContext(f.ctx, `SELECT current_schema(), current_database()`).Scan(&schema, &dbName); err != nil {
			t.Fatal(err)
		}
		person := func(name string) int64 {
			var id int64
			if err := db.QueryRowContext(f.ctx, `INSERT INTO people (name, zone, created) VALUES (?, 'UTC', 0) RETURNING id`, name).Scan(&id); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(f.ctx, insertEventSQL, id, name); err != nil {
				t.Fatal(err)
			}
			return id
		}
		events := func(owner int64) int { return f.count(t, `SELECT count(*) FROM events WHERE owner_id = ?`, owner) }

		t.Run("search_path", func(t *testing.T) {
			carol := person("carol")
			c, err := db.Conn(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			q := func(sql string, args ...any) error { _, err := c.ExecContext(f.ctx, sql, args...); return err }
			if err := q(`CREATE SCHEMA IF NOT EXISTS elsewhere`); err != nil {
				t.Fatal(err)
			}
			if err := q(`SET search_path = elsewhere`); err != nil {
				t.Fatal(err)
			}
			defer q(`RESET search_path`)
			ins := strings.Replace(insertEventSQL, "INSERT INTO events", "INSERT INTO "+schema+".events", 1)
			if err := q(ins, carol, "sp"); err != nil {
				t.Errorf("an event added with another search_path: %v", err)
			}
			if err := q(ins, 987654, "sp-nobody"); err == nil {
				t.Error("an event of no person was added with another search_path")
			}
			if err := q(`DELETE FROM `+schema+`.people WHERE id = ?`, carol); err != nil {
				t.Fatalf("a person deleted with another search_path: %v", err)
			}
			if n := events(carol); n != 0 {
				t.Errorf("%d events outlive carol", n)
			}
		})

		t.Run("isolation", func(t *testing.T) {
			dave := person("dave")
			// dave's changes go first, so only the cascade of events is left.
			if _, err := db.ExecContext(f.ctx, `DELETE FROM changes WHERE owner_id = ?`, dave); err != nil {
				t.Fatal(err)
			}
			tx, err := db.BeginTx(f.ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
			if err != nil {
				t.Fatal(err)
			}
			_, err = tx.ExecContext(f.ctx, `DELETE FROM people WHERE id = ?`, dave)
			tx.Rollback()
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "40001" || !strings.Contains(pe.Message, `"events"`) {
				t.Errorf("a person deleted at REPEATABLE READ: %v, want SQLSTATE 40001 naming events", err)
			}
			// A store whose connections default to REPEATABLE READ.
			if _, err := db.ExecContext(f.ctx, `ALTER DATABASE "`+dbName+`" SET default_transaction_isolation = 'repeatable read'`); err != nil {
				t.Fatal(err)
			}
			defer db.ExecContext(f.ctx, `ALTER DATABASE "`+dbName+`" RESET default_transaction_isolation`)
			s, err := Open(f.ctx, f.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var level string
			if err := s.DB().QueryRowContext(f.ctx, `SHOW default_transaction_isolation`).Scan(&level); err != nil || level != "repeatable read" {
				t.Fatalf("the second store's default isolation: %q, %v", level, err)
			}
			if err := s.DeletePerson(f.ctx, dave); err != nil {
				t.Errorf("DeletePerson under a default of REPEATABLE READ: %v", err)
			}
			if n := events(dave); n != 0 {
				t.Errorf("%d events outlive dave", n)
			}
		})

		t.Run("truncate", func(t *testing.T) {
			person("erin")
			// A change of two rows, which change_rows holds.
			if _, err := f.s.Write(f.ctx, f.alice.ID, "add_notes", func(tx *Tx) error {
				for _, title := range []string{"one", "two"} {
					if _, err := tx.Insert("notes", Row{"title": title, "due": t0.Unix()}); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for _, table := range []string{"people", "changes"} {
				tx, err := db.BeginTx(f.ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				_, err = tx.ExecContext(f.ctx, `TRUNCATE `+table+` CASCADE`)
				tx.Rollback()
				if err == nil {
					t.Errorf("TRUNCATE %s was let through while rows name its rows", table)
				}
			}
		})
	})
}
