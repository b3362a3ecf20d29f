package store

import (
	"errors"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestFlushJournalKeepsOneChange writes a change's journal in three
// parts (FlushJournal twice, the rest at the end), with rows touched
// again after their part was written: it is still one change of each row
// once, whose undo brings every row back as it was.
func TestFlushJournalKeepsOneChange(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		old, _ := f.add(t, f.alice.ID, "milk")
		var a, b, c int64
		change, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
			var err error
			if a, err = tx.Insert("notes", Row{"title": "a"}); err != nil {
				return err
			}
			if err := tx.Update("notes", old, Row{"title": "oat milk"}); err != nil {
				return err
			}
			if err := tx.FlushJournal(); err != nil {
				return err
			}
			if b, err = tx.Insert("notes", Row{"title": "b"}); err != nil {
				return err
			}
			if err := tx.Update("notes", a, Row{"title": "a!"}); err != nil { // its part is written
				return err
			}
			if err := tx.FlushJournal(); err != nil {
				return err
			}
			if err := tx.FlushJournal(); err != nil { // nothing new
				return err
			}
			if c, err = tx.Insert("notes", Row{"title": "c"}); err != nil {
				return err
			}
			if err := tx.Update("notes", old, Row{"title": "soy milk"}); err != nil {
				return err
			}
			tx.Summarize("three notes")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := f.s.Changes(f.ctx, f.alice.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ch) != 2 || ch[0].ID != change || ch[0].Summary != "three notes" || len(ch[0].Rows) != 4 {
			t.Fatalf("changes = %+v, want %s “three notes” of four rows over the add of milk", ch, change)
		}
		if got := f.get(t, f.alice.ID, a)["title"]; got != "a!" {
			t.Fatalf("a's title = %v", got)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, change); err != nil {
			t.Fatalf("undo of %s: %v", change, err)
		}
		for _, id := range []int64{a, b, c} {
			if r := f.get(t, f.alice.ID, id); r != nil {
				t.Errorf("note %d still live after the undo: %v", id, r)
			}
		}
		if got := f.get(t, f.alice.ID, old)["title"]; got != "milk" {
			t.Errorf("after the undo the old note's title = %v, want milk", got)
		}
	})
}

// TestFlushJournalRollsBack fails a Write after FlushJournal: neither its
// rows nor its journal are kept.
func TestFlushJournalRollsBack(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		boom := errors.New("boom")
		c, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
			if _, err := tx.Insert("notes", Row{"title": "x"}); err != nil {
				return err
			}
			if err := tx.FlushJournal(); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) || c != "" {
			t.Fatalf("Write = %q, %v; want \"\", boom", c, err)
		}
		var n int
		f.s.DB().QueryRow(`SELECT (SELECT count(*) FROM notes) + (SELECT count(*) FROM changes) + (SELECT count(*) FROM change_rows)`).Scan(&n)
		if n != 0 {
			t.Fatalf("%d rows left after a rolled-back Write", n)
		}
	})
}

// TestUndoAddedInBatches undoes a change that added many rows, taken back
// in batches: refused, naming the later change, while one of them was
// changed since; whole once that change is undone.
func TestUndoAddedInBatches(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var ids []int64
		added, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
			rows := make([]Row, 1200)
			for i := range rows {
				rows[i] = Row{"title": "note"}
			}
			var err error
			ids, err = tx.InsertMany("notes", rows)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		later := f.update(t, f.alice.ID, ids[700], Row{"title": "changed"})
		if _, err := f.s.Undo(f.ctx, f.alice.ID, added); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), later) {
			t.Fatalf("undo of %s with n%d changed since by %s = %v; want a conflict naming %s", added, ids[700], later, err, later)
		}
		if got := f.get(t, f.alice.ID, ids[0]); got == nil {
			t.Fatal("a refused undo took rows back")
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, later); err != nil {
			t.Fatal(err)
		}
		u, err := f.s.Undo(f.ctx, f.alice.ID, added)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if r := f.get(t, f.alice.ID, id); r != nil {
				t.Fatalf("n%d still live after the undo of %s", id, added)
			}
		}
		// Redo: the undo undone brings every row back.
		if _, err := f.s.Undo(f.ctx, f.alice.ID, u); err != nil {
			t.Fatal(err)
		}
		if r := f.get(t, f.alice.ID, ids[1199]); r == nil {
			t.Fatal("the redo did not bring the rows back")
		}
	})
}

// TestUndoLargeChangeInBatches undoes (and redoes) a change of more rows
// than one batch of Undo, added and updated rows interleaved so runs
// cross the batches: every row comes back as it was, the undo is one
// change of every row, and the undo never holds more than a batch of
// rows not yet journaled.
func TestUndoLargeChangeInBatches(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		const n = 3*undoBatch + 100
		var olds []int64
		for i := 0; i < n/4; i++ {
			id, _ := f.add(t, f.alice.ID, "old")
			olds = append(olds, id)
		}
		var added []int64
		change, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
			for i := 0; len(added)+len(olds) < n || i < len(olds); i++ {
				if i < len(olds) {
					if err := tx.Update("notes", olds[i], Row{"title": "new"}); err != nil {
						return err
					}
				}
				for k := 0; k < 3 && len(added)+len(olds) < n; k++ {
					id, err := tx.Insert("notes", Row{"title": "added"})
					if err != nil {
						return err
					}
					added = append(added, id)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		batches := 0
		undoBatchHook = func(tx *Tx) {
			batches++
			if held := len(tx.touched) - tx.flushed; held > undoBatch {
				t.Errorf("the undo holds %d rows not journaled, more than a batch (%d)", held, undoBatch)
			}
		}
		defer func() { undoBatchHook = nil }()
		undo, err := f.s.Undo(f.ctx, f.alice.ID, change)
		if err != nil {
			t.Fatal(err)
		}
		if batches < 3 {
			t.Errorf("the undo of %d rows went in %d full batches, want 3", n, batches)
		}
		for _, id := range added {
			if r := f.get(t, f.alice.ID, id); r != nil {
				t.Fatalf("n%d still live after the undo", id)
			}
		}
		for _, id := range olds {
			if got := f.get(t, f.alice.ID, id)["title"]; got != "old" {
				t.Fatalf("n%d's title = %v after the undo, want old", id, got)
			}
		}
		c, err := f.s.ChangeByID(f.ctx, f.alice.ID, undo)
		if err != nil {
			t.Fatal(err)
		}
		if c.RowsTotal != n || len(c.Rows) != min(n, ChangeRowsRead) || c.Undoes != change {
			t.Fatalf("the undo %s is of %d rows (%d read) undoing %q, want %d rows undoing %s", undo, c.RowsTotal, len(c.Rows), c.Undoes, n, change)
		}
		var journaled int
		if err := f.s.DB().QueryRow(rebindFor(f.s, `SELECT count(*) FROM journal_rows WHERE change_id = ?`), mustChange(t, undo)).Scan(&journaled); err != nil || journaled != n {
			t.Fatalf("the undo journaled %d rows (%v), want %d", journaled, err, n)
		}
		h, err := f.s.ChangeHead(f.ctx, f.alice.ID, undo)
		if err != nil || h.ID != undo || h.Tool != "undo" || h.Undoes != change || h.Summary != c.Summary || h.Rows != nil {
			t.Fatalf("ChangeHead(%s) = %+v, %v; want %s of undo, undoing %s, without rows", undo, h, err, undo, change)
		}
		if _, err := f.s.ChangeHead(f.ctx, f.bob.ID, undo); !errors.Is(err, ErrNotFound) {
			t.Fatalf("ChangeHead of alice's %s for bob = %v, want ErrNotFound", undo, err)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, undo); err != nil {
			t.Fatalf("redo: %v", err)
		}
		for _, id := range added {
			if got := f.get(t, f.alice.ID, id)["title"]; got != "added" {
				t.Fatalf("n%d's title = %v after the redo, want added", id, got)
			}
		}
		for _, id := range olds {
			if got := f.get(t, f.alice.ID, id)["title"]; got != "new" {
				t.Fatalf("n%d's title = %v after the redo, want new", id, got)
			}
		}
	})
}

func mustChange(t *testing.T, c string) int64 {
	t.Helper()
	n, err := parseChange(c)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
