package store

import (
	"bytes"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A write that finds the database full (SQLite's max_page_count stands in
// for a full disk, wherever mounting a small disk is not allowed) fails
// with the DiskFull Trouble and Explain's sentence naming the file;
// nothing is kept, and reads go on.
func TestWriteOnAFullDatabase(t *testing.T) {
	f := newFixture(t)
	f.add(t, f.alice.ID, "kept")
	db := f.s.DB()
	var pages int
	if err := db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	// The pragma holds for one connection: set it on every one the pool
	// keeps, the one the Store keeps (hotConn) too, and let it open no
	// others.
	db.SetMaxIdleConns(4)
	db.SetMaxOpenConns(4)
	h := f.s.takeHot(f.ctx)
	if h == nil {
		t.Fatal("no kept connection")
	}
	if _, err := h.conn.ExecContext(f.ctx, `PRAGMA max_page_count = `+itoa(int64(pages))); err != nil {
		t.Fatal(err)
	}
	f.s.putHot()
	var conns []*sql.Conn
	for range 3 {
		c, err := db.Conn(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(f.ctx, `PRAGMA max_page_count = `+itoa(int64(pages))); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Close()
	}
	_, err := f.s.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
		_, err := tx.Insert("notes", Row{"title": "big", "data": bytes.Repeat([]byte{1}, 1<<20)})
		return err
	})
	if TroubleOf(err) != DiskFull {
		t.Fatalf("err = %v, want the DiskFull trouble", err)
	}
	if want := "The disk holding the database “" + f.s.Path() + "” is full (or failing), so nothing was changed; free some space"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("sentence %q, want it to start %q", err, want)
	}
	if strings.Contains(err.Error(), "(13)") || strings.Contains(err.Error(), "database or disk is full") {
		t.Errorf("the sentence shows SQLite's words: %q", err)
	}
	var n int
	if err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
		return tx.queryRow(`SELECT count(*) FROM notes WHERE owner_id = ?`, f.alice.ID).Scan(&n)
	}); err != nil || n != 1 {
		t.Errorf("after the failed write: %d notes, err %v; want the one kept", n, err)
	}
}

// A store opened with Options.ReadOnly reads, and refuses a write with the
// ReadOnly Trouble and a sentence naming --db-read-only.
func TestReadOnlyOption(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		f.add(t, f.alice.ID, "kept")
		ro, err := Open(f.ctx, f.path, &Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if _, err := ro.PersonByName(f.ctx, "alice"); err != nil {
			t.Errorf("reading: %v", err)
		}
		_, err = ro.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
			_, err := tx.Insert("notes", Row{"title": "no"})
			return err
		})
		if TroubleOf(err) != ReadOnly || !strings.Contains(err.Error(), "was opened with --db-read-only") {
			t.Errorf("write on a read-only store: %v", err)
		}
		if _, err := ro.AddPerson(f.ctx, "carol", "UTC"); TroubleOf(err) != ReadOnly {
			t.Errorf("AddPerson on a read-only store: %v", err)
		}
		if TroubleOf(errors.New("other")) != NoTrouble || Explain(errors.New("other"), "x") != "" {
			t.Errorf("an error of another kind is told as trouble")
		}
	})
}
