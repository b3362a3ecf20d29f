package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
)

// TestKeptConnectionRuns: one person's writes and reads, one after the
// other, run on the kept connection (hotConn), and a transaction that
// finds it held runs on the pool instead: a Write while a Read holds it
// is kept, and the connection is free again at the end.
func TestKeptConnectionRuns(t *testing.T) {
	f := newFixture(t)
	f.add(t, f.alice.ID, "first")
	h := f.s.hot
	if h == nil {
		t.Fatal("a write left no kept connection")
	}
	var onKept bool
	if err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
		_, onKept = tx.tx.(*connTx)
		// The kept connection is this Read's: the Write goes to the pool.
		_, err := f.s.Write(f.ctx, f.alice.ID, "add_note", func(w *Tx) error {
			if _, kept := w.tx.(*connTx); kept {
				t.Error("a Write ran on the kept connection a Read held")
			}
			_, err := w.Insert("notes", Row{"title": "beside a read", "due": t0.Unix()})
			return err
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !onKept {
		t.Error("a Read with the kept connection free did not run on it")
	}
	if f.s.hot != h {
		t.Error("the kept connection was replaced though nothing failed")
	}
	if n := f.count(t, `SELECT count(*) FROM notes WHERE deleted_at IS NULL`); n != 2 {
		t.Errorf("%d notes, want 2", n)
	}
	if len(f.s.hotBusy) != 0 {
		t.Error("the kept connection is still held")
	}
}

// TestKeptConnectionRecovers: a kept connection left inside a transaction
// (so its BEGIN fails) is closed, the write goes to the pool and is kept,
// and the next write opens a new kept connection.
func TestKeptConnectionRecovers(t *testing.T) {
	f := newFixture(t)
	f.add(t, f.alice.ID, "first")
	h := f.s.takeHot(f.ctx)
	if h == nil {
		t.Fatal("no kept connection")
	}
	if _, err := h.conn.ExecContext(f.ctx, `BEGIN`); err != nil {
		t.Fatal(err)
	}
	f.s.putHot()
	f.add(t, f.alice.ID, "second")
	if f.s.hot == h {
		t.Error("the kept connection whose BEGIN failed was kept")
	}
	f.add(t, f.alice.ID, "third")
	if f.s.hot == nil || f.s.hot == h {
		t.Error("no new kept connection after the failed one")
	}
	var n int
	if err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
		return tx.queryRow(`SELECT count(*) FROM notes WHERE owner_id = ? AND deleted_at IS NULL`, f.alice.ID).Scan(&n)
	}); err != nil || n != 3 {
		t.Errorf("%d notes, err %v; want 3", n, err)
	}
}

// TestKeptConnectionCancelled: a Write whose context ends halfway keeps
// nothing and leaves the kept connection outside any transaction, in
// use for the next write.
func TestKeptConnectionCancelled(t *testing.T) {
	f := newFixture(t)
	f.add(t, f.alice.ID, "first")
	h := f.s.hot
	for _, when := range []string{"before a statement", "before COMMIT"} {
		ctx, cancel := context.WithCancel(f.ctx)
		_, err := f.s.Write(ctx, f.alice.ID, "add_note", func(tx *Tx) error {
			if _, err := tx.Insert("notes", Row{"title": "lost", "due": t0.Unix()}); err != nil {
				return err
			}
			cancel()
			if when == "before a statement" {
				_, err := tx.Insert("notes", Row{"title": "lost too", "due": t0.Unix()})
				return err
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err %v, want the context's", when, err)
		}
		if n := f.count(t, `SELECT count(*) FROM notes WHERE title LIKE 'lost%'`); n != 0 {
			t.Errorf("%s: %d notes of the cancelled write kept", when, n)
		}
		if f.s.hot != h {
			t.Errorf("%s: the kept connection was replaced", when)
		}
		f.add(t, f.alice.ID, "after "+when)
	}
	if n := f.count(t, `SELECT count(*) FROM notes WHERE deleted_at IS NULL`); n != 3 {
		t.Errorf("%d notes, want 3", n)
	}
}

// TestKeptConnectionShared: writes and reads of several goroutines at
// once, each taking the kept connection or the pool, lose nothing, and
// the connection ends free.
func TestKeptConnectionShared(t *testing.T) {
	f := newFixture(t)
	const workers, each = 6, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := f.alice.ID
			if w%2 == 1 {
				owner = f.bob.ID
			}
			for i := range each {
				if _, err := f.s.Write(f.ctx, owner, "add_note", func(tx *Tx) error {
					_, err := tx.Insert("notes", Row{"title": "n", "due": t0.Unix() + int64(i)})
					return err
				}); err != nil {
					errs <- err
					return
				}
				if err := f.s.Read(f.ctx, owner, func(tx *Tx) error {
					var n int
					return tx.queryRow(`SELECT count(*) FROM notes WHERE owner_id = ?`, owner).Scan(&n)
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := f.count(t, `SELECT count(*) FROM notes`); n != workers*each {
		t.Errorf("%d notes, want %d", n, workers*each)
	}
	if n := f.count(t, `SELECT count(*) FROM changes`); n != workers*each {
		t.Errorf("%d changes, want %d", n, workers*each)
	}
	if len(f.s.hotBusy) != 0 {
		t.Error("the kept connection is still held")
	}
}

// TestKeptConnectionOpenedReadOnly: a kept connection SQLite opened for
// reading only (the file could not be written then) is closed at the next
// write, which goes to the pool and is kept, and the write after it opens
// a new kept connection that writes.
func TestKeptConnectionOpenedReadOnly(t *testing.T) {
	f := newFixture(t)
	f.add(t, f.alice.ID, "first")
	ro, err := sql.Open("sqlite", "file:"+f.s.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	conn, err := ro.Conn(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f.s.takeHot(f.ctx) == nil {
		t.Fatal("no kept connection")
	}
	f.s.dropHot()
	f.s.hot = &hotConn{conn: conn, stmts: map[string]*sql.Stmt{}}
	if !f.s.hot.readOnly() {
		t.Fatal("the connection opened with mode=ro is not read-only")
	}
	f.s.putHot()
	f.add(t, f.alice.ID, "second")
	if f.s.hot != nil && f.s.hot.conn == conn {
		t.Error("the read-only kept connection was kept")
	}
	f.add(t, f.alice.ID, "third")
	if f.s.hot == nil || f.s.hot.readOnly() {
		t.Error("no writable kept connection after the read-only one")
	}
	if n := f.count(t, `SELECT count(*) FROM notes WHERE deleted_at IS NULL`); n != 3 {
		t.Errorf("%d notes, want 3", n)
	}
}
