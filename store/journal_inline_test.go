package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
)

// TestOneRowChangeInline journals changes of one row in the change's own
// row (no change_rows row: one B-tree page fewer per write) and changes of
// several rows in change_rows, and every reader of the journal sees both
// alike: list_changes' rows, the sync points of ChangedRows (read whole
// and page by page with every limit from 1 to 4), ItemsChangedSince, and
// undo of either kind.
func TestOneRowChangeInline(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		rng := rand.New(rand.NewPCG(21, 16))
		type want struct {
			change, seq, id int64
		}
		var all []want
		var lastOne, lastMany string
		for i := range 12 {
			n := 1 + rng.IntN(3)
			var ids []int64
			c, err := f.s.Write(f.ctx, f.alice.ID, "add_task", func(tx *Tx) error {
				for j := range n {
					id, err := tx.InsertTask(task.Task{Title: fmt.Sprintf("task %d.%d", i, j), Priority: 4, Status: task.Open, CreatedAt: t0})
					if err != nil {
						return err
					}
					ids = append(ids, id)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			num, _ := parseChange(c)
			var inRows int
			if err := f.s.DB().QueryRow(`SELECT count(*) FROM change_rows WHERE change_id = ?`, num).Scan(&inRows); err != nil {
				t.Fatal(err)
			}
			if wantRows := map[bool]int{true: 0, false: n}[n == 1]; inRows != wantRows {
				t.Fatalf("%s of %d rows has %d change_rows rows, want %d", c, n, inRows, wantRows)
			}
			for j, id := range ids {
				all = append(all, want{num, int64(j), id})
			}
			if n == 1 {
				lastOne = c
			} else {
				lastMany = c
			}
			// bob's changes are never alice's
			f.add(t, f.bob.ID, fmt.Sprintf("bob %d", i))
		}
		if lastOne == "" || lastMany == "" {
			t.Fatal("the seed made no change of one row or none of several; pick another")
		}
		read := func(change, seq int64, limit int) []want {
			t.Helper()
			var got []want
			err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
				rows, err := tx.ChangedRows(change, seq, limit)
				for _, r := range rows {
					got = append(got, want{r.Change, r.Seq, r.ID})
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if got := read(0, -1, 1000); !slices.Equal(got, all) {
			t.Fatalf("ChangedRows from the start =\n%v\nwant\n%v", got, all)
		}
		for limit := 1; limit <= 4; limit++ {
			var got []want
			change, seq := int64(0), int64(-1)
			for {
				page := read(change, seq, limit)
				if len(page) == 0 {
					break
				}
				if len(page) > limit {
					t.Fatalf("a page of limit %d has %d rows", limit, len(page))
				}
				got = append(got, page...)
				change, seq = page[len(page)-1].change, page[len(page)-1].seq
			}
			if !slices.Equal(got, all) {
				t.Fatalf("ChangedRows page by page with limit %d =\n%v\nwant\n%v", limit, got, all)
			}
		}
		// from the middle of a change of several rows, and after one of one
		for _, at := range all {
			var after []want
			for _, w := range all {
				if w.change > at.change || (w.change == at.change && w.seq > at.seq) {
					after = append(after, w)
				}
			}
			if got := read(at.change, at.seq, 1000); !slices.Equal(got, after) {
				t.Fatalf("ChangedRows after (%d, %d) = %v, want %v", at.change, at.seq, got, after)
			}
		}

		changes, err := f.s.Changes(f.ctx, f.alice.ID, 200)
		if err != nil {
			t.Fatal(err)
		}
		var listed []want
		for i := len(changes) - 1; i >= 0; i-- {
			num, _ := parseChange(changes[i].ID)
			for j, r := range changes[i].Rows {
				if r.Action != "added" || r.Table != "tasks" {
					t.Fatalf("%s row %d is %+v, want an added task", changes[i].ID, j, r)
				}
				listed = append(listed, want{num, int64(j), r.ID})
			}
		}
		if !slices.Equal(listed, all) {
			t.Fatalf("list_changes' rows =\n%v\nwant\n%v", listed, all)
		}

		err = f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			items, err := tx.ItemsChangedSince(0)
			if err != nil {
				return err
			}
			for _, w := range all {
				if _, ok := items[fmt.Sprintf("t%d", w.id)]; !ok {
					t.Errorf("ItemsChangedSince(0) lacks t%d (%v)", w.id, w)
				}
			}
			if len(items) != len(all) {
				t.Errorf("ItemsChangedSince(0) has %d items, want %d", len(items), len(all))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}

		for _, c := range []string{lastOne, lastMany} {
			if _, err := f.s.Undo(f.ctx, f.alice.ID, c); err != nil {
				t.Fatalf("undo %s: %v", c, err)
			}
			num, _ := parseChange(c)
			for _, w := range all {
				if w.change != num {
					continue
				}
				err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
					_, deleted, err := tx.TaskEvenDeleted(w.id)
					if err == nil && !deleted {
						t.Errorf("t%d of %s is live after its undo", w.id, c)
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
