package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// notes is a journaled table of the tasks' shape that only the tests
// create, so the store is tested without depending on the tasks package.
const notesDDL = `CREATE TABLE IF NOT EXISTS notes (
	id         INTEGER PRIMARY KEY,
	owner_id   INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
	title      TEXT    NOT NULL,
	due        INTEGER,
	data       BLOB,
	score      REAL,
	deleted_at TEXT,
	updated_at TEXT
);
CREATE INDEX IF NOT EXISTS notes_due ON notes(owner_id, due)`

func init() { RegisterTable("notes") }

var t0 = time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)

// fixture is a store on a fresh file with the notes table and two people.
type fixture struct {
	s          *Store
	ctx        context.Context
	path       string
	alice, bob Person
	clock      time.Time
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{ctx: context.Background(), path: filepath.Join(t.TempDir(), "data", "assistant.db"), clock: t0}
	s, err := Open(f.ctx, f.path, &Options{Now: func() time.Time { return f.clock }})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.DB().Exec(notesDDL); err != nil {
		t.Fatal(err)
	}
	f.s = s
	if f.alice, err = s.AddPerson(f.ctx, "alice", "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	if f.bob, err = s.AddPerson(f.ctx, "bob", "America/New_York"); err != nil {
		t.Fatal(err)
	}
	return f
}

// add inserts one note for owner and returns its id and change.
func (f *fixture) add(t testing.TB, owner int64, title string) (int64, string) {
	t.Helper()
	var id int64
	c, err := f.s.Write(f.ctx, owner, "add_note", func(tx *Tx) error {
		var err error
		id, err = tx.Insert("notes", Row{"title": title, "due": t0.Unix()})
		return err
	})
	if err != nil {
		t.Fatalf("add %q: %v", title, err)
	}
	return id, c
}

func (f *fixture) update(t testing.TB, owner, id int64, set Row) string {
	t.Helper()
	c, err := f.s.Write(f.ctx, owner, "update_note", func(tx *Tx) error { return tx.Update("notes", id, set) })
	if err != nil {
		t.Fatalf("update n%d: %v", id, err)
	}
	return c
}

// get reads a live note of owner (nil when not found).
func (f *fixture) get(t testing.TB, owner, id int64) Row {
	t.Helper()
	var r Row
	err := f.s.Read(f.ctx, owner, func(tx *Tx) error {
		var err error
		r, err = tx.Get("notes", id)
		return err
	})
	if err != nil {
		return nil
	}
	return r
}
