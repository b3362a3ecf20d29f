package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestAddedRowsKeepNoImage runs random scenarios on each engine: a change
// adds notes (one by one and in batches, its journal flushed now and then,
// an older note changed too), later changes alter, delete and undo some of
// them (one outside the journal), then the change is undone, redone and
// undone again. Its change_rows must keep only a digest of the notes it
// added (keptAfter), and every answer and every row must be what they are
// when the images are kept (keepAdded, the oracle): undo works out the row
// as the change left it from the later journal (addedImages) exactly.
func TestAddedRowsKeepNoImage(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for seed := uint64(1); seed <= 10; seed++ {
			got, kept := addedScenario(t, seed)
			if kept != 0 {
				t.Fatalf("seed %d: the change kept the after image of %d notes it added", seed, kept)
			}
			keepAdded = true
			want, _ := addedScenario(t, seed)
			keepAdded = false
			if got != want {
				t.Fatalf("seed %d: without the images of added rows:\n%s\n--- with them:\n%s", seed, got, want)
			}
		}
	})
}

// addedScenario plays scenario seed on a fresh fixture and gives what came
// of it (each undo's answer, then the notes) and how many of the change's
// added rows have a whole after image in change_rows.
func addedScenario(t *testing.T, seed uint64) (string, int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 28))
	f := newFixture(t)
	var b strings.Builder
	old, _ := f.add(t, f.alice.ID, "old")
	other, _ := f.add(t, f.alice.ID, "other")
	var added []int64
	f.clock = f.clock.Add(time.Minute)
	n := 2 + rng.IntN(700)
	big, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
		for len(added) < n {
			if rng.IntN(2) == 0 {
				id, err := tx.Insert("notes", Row{"title": fmt.Sprintf("one %d", len(added)), "due": rng.Int64N(1 << 40)})
				if err != nil {
					return err
				}
				added = append(added, id)
			} else {
				rows := make([]Row, 1+rng.IntN(80))
				for i := range rows {
					rows[i] = Row{"title": fmt.Sprintf("many %d.%d", len(added), i)}
				}
				ids, err := tx.InsertMany("notes", rows)
				if err != nil {
					return err
				}
				added = append(added, ids...)
			}
			switch rng.IntN(12) {
			case 0:
				if err := tx.Update("notes", old, Row{"title": fmt.Sprintf("old %d", len(added))}); err != nil {
					return err
				}
			case 1:
				if err := tx.FlushJournal(); err != nil {
					return err
				}
			case 2: // a row added and changed in the same change
				if err := tx.Update("notes", added[rng.IntN(len(added))], Row{"due": int64(len(added))}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var later []string
	for range rng.IntN(5) {
		f.clock = f.clock.Add(time.Minute)
		id := added[rng.IntN(len(added))]
		var c string
		switch rng.IntN(7) {
		case 6: // outside the journal
			_, err = f.s.DB().Exec(`UPDATE notes SET due = 7 WHERE id = $1`, id)
		case 4, 5: // a row the change did not touch
			c, err = f.s.Write(f.ctx, f.alice.ID, "update_note", func(tx *Tx) error {
				return tx.Update("notes", other, Row{"title": fmt.Sprintf("later %d", rng.IntN(100))})
			})
		case 0, 1:
			c, err = f.s.Write(f.ctx, f.alice.ID, "update_note", func(tx *Tx) error {
				return tx.Update("notes", id, Row{"title": fmt.Sprintf("later %d", rng.IntN(100))})
			})
		case 2:
			c, err = f.s.Write(f.ctx, f.alice.ID, "delete_note", func(tx *Tx) error { return tx.Delete("notes", id) })
		case 3:
			if len(later) == 0 {
				continue
			}
			c, err = f.s.Undo(f.ctx, f.alice.ID, later[len(later)-1])
			later = later[:len(later)-1]
		}
		fmt.Fprintf(&b, "later %q: %v\n", c, err)
		if err == nil && c != "" {
			later = append(later, c)
		}
	}
	step := func(what, change string) string {
		f.clock = f.clock.Add(time.Minute)
		c, err := f.s.Undo(f.ctx, f.alice.ID, change)
		fmt.Fprintf(&b, "%s of %s: %q", what, change, c)
		if err != nil {
			fmt.Fprintf(&b, " refused (%v): %s", errors.Is(err, ErrConflict), err)
		}
		b.WriteString("\n")
		return c
	}
	if undo := step("undo", big); undo != "" {
		if redo := step("redo", undo); redo != "" {
			step("undo", big)
		}
	}
	b.WriteString(dumpRows(t, f.s, `SELECT * FROM notes ORDER BY id`))
	var kept int
	if err := f.s.DB().QueryRow(`SELECT count(*) FROM change_rows WHERE change_id = $1 AND before IS NULL AND after NOT LIKE '{"$sha256":"%'`,
		strings.TrimPrefix(big, "c")).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	return b.String(), kept
}
