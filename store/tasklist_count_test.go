package store

import (
	"fmt"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
)

// TestTaskPageCountAtTheCap: a page's Total and Exact for a count just
// under, at and past the query's Cap, read by every plan (the tasks in
// list order, from a tag's rows, from the text index's hits), on both
// engines; another person's tasks and a done one are never counted.
func TestTaskPageCountAtTheCap(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		const capN = 4
		for i := range capN + 2 {
			tk := task.New(fmt.Sprintf("Water the plants %d", i), t0)
			tk.Tags = []string{"garden"}
			if _, err := f.s.Write(f.ctx, f.alice.ID, "add_task", func(tx *Tx) error {
				_, err := tx.InsertTask(tk)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		other := task.New("Water the plants too", t0)
		other.Tags = []string{"garden"}
		if _, err := f.s.Write(f.ctx, f.bob.ID, "add_task", func(tx *Tx) error {
			_, err := tx.InsertTask(other)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			open       int // the open tasks of alice
			total      int
			exact      bool
			tag, query string
		}{
			{capN + 2, capN, false, "", ""},
			{capN + 1, capN, false, "", ""},
			{capN, capN, true, "", ""},
			{capN - 1, capN - 1, true, "", ""},
			{capN + 1, capN, false, "garden", ""},
			{capN, capN, true, "garden", ""},
			{capN + 1, capN, false, "", "plants"},
			{capN, capN, true, "", "plants"},
			{capN - 1, capN - 1, true, "garden", "plants"},
		} {
			// Alice's first tasks past c.open are done.
			if _, err := f.s.DB().Exec(rebindFor(f.s, `UPDATE tasks SET status = CASE WHEN id - (SELECT min(id) FROM tasks WHERE owner_id = ?) < ? THEN 'open' ELSE 'done' END WHERE owner_id = ?`),
				f.alice.ID, c.open, f.alice.ID); err != nil {
				t.Fatal(err)
			}
			var page TaskPage
			if err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) (err error) {
				page, err = tx.TaskPage(TaskQuery{Status: task.Open, Tag: c.tag, Query: c.query, Limit: 2, Cap: capN})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if page.Total != c.total || page.Exact != c.exact || len(page.Tasks) != 2 {
				t.Errorf("%d open, tag %q, query %q: total %d exact %v with %d tasks, want %d %v with 2",
					c.open, c.tag, c.query, page.Total, page.Exact, len(page.Tasks), c.total, c.exact)
			}
		}
	})
}
