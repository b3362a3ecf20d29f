package store

import (
	"errors"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

func TestWriteJournalsOneChange(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var a, b int64
		c, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
			var err error
			if a, err = tx.Insert("notes", Row{"title": "one"}); err != nil {
				return err
			}
			if b, err = tx.Insert("notes", Row{"title": "two", "data": []byte{0, 1, 2}, "score": 1.5}); err != nil {
				return err
			}
			if err := tx.Update("notes", a, Row{"title": "one!"}); err != nil {
				return err
			}
			return tx.Delete("notes", b)
		})
		if err != nil {
			t.Fatal(err)
		}
		if c != "c1" {
			t.Fatalf("change = %q, want c1", c)
		}
		ch, err := f.s.Changes(f.ctx, f.alice.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ch) != 1 || len(ch[0].Rows) != 2 {
			t.Fatalf("changes = %+v, want one change of two rows", ch)
		}
		// Net effect per row: a added (then changed), b added (then deleted).
		if got := ch[0].Rows[0].Action + " " + ch[0].Rows[0].Label; got != "added n1" {
			t.Errorf("row 0 = %q", got)
		}
		if r := f.get(t, f.alice.ID, b); r != nil {
			t.Errorf("deleted note still readable: %v", r)
		}
		if r := f.get(t, f.alice.ID, a); r["title"] != "one!" {
			t.Errorf("title = %v", r["title"])
		}
	})
}

func TestWriteRollsBackOnError(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		boom := errors.New("boom")
		c, err := f.s.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
			if _, err := tx.Insert("notes", Row{"title": "x"}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) || c != "" {
			t.Fatalf("Write = %q, %v; want \"\", boom", c, err)
		}
		var n int
		f.s.DB().QueryRow(`SELECT (SELECT count(*) FROM notes) + (SELECT count(*) FROM changes)`).Scan(&n)
		if n != 0 {
			t.Fatalf("%d rows left after a rolled-back Write", n)
		}
	})
}

func TestUndoRedo(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.add(t, f.alice.ID, "milk")
		c2 := f.update(t, f.alice.ID, id, Row{"title": "oat milk"})
		u, err := f.s.Undo(f.ctx, f.alice.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := f.get(t, f.alice.ID, id)["title"]; got != "milk" {
			t.Fatalf("after undo of %s title = %v", c2, got)
		}
		// Redo: undo the undo.
		if _, err := f.s.Undo(f.ctx, f.alice.ID, u); err != nil {
			t.Fatal(err)
		}
		if got := f.get(t, f.alice.ID, id)["title"]; got != "oat milk" {
			t.Fatalf("after redo title = %v", got)
		}
		// The redone change is the default target again.
		if _, err := f.s.Undo(f.ctx, f.alice.ID, ""); err != nil {
			t.Fatal(err)
		}
		if got := f.get(t, f.alice.ID, id)["title"]; got != "milk" {
			t.Fatalf("after second undo title = %v", got)
		}
		// Next default undo removes the add (soft).
		if _, err := f.s.Undo(f.ctx, f.alice.ID, ""); err != nil {
			t.Fatal(err)
		}
		if r := f.get(t, f.alice.ID, id); r != nil {
			t.Fatalf("undone add still live: %v", r)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, ""); !errors.Is(err, ErrNotFound) {
			t.Fatalf("undo with nothing left = %v, want ErrNotFound", err)
		}
	})
}

func TestUndoRefusesOverLaterChange(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		id, c1 := f.add(t, f.alice.ID, "milk")
		c2 := f.update(t, f.alice.ID, id, Row{"title": "oat milk"})
		_, err := f.s.Undo(f.ctx, f.alice.ID, c1)
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("err = %v, want ErrConflict", err)
		}
		want := "n1 was changed since by " + c2 + " (update_note); undo " + c2 + " first"
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %q, want it to say %q", err, want)
		}
	})
}
