package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
)

// searchIDs is the ids of the owner's live tasks a text search finds, in
// list order, through TaskPage (the trigram index and the pending tasks
// on SQLite).
func (f *fixture) searchIDs(t *testing.T, owner int64, q string) []int64 {
	t.Helper()
	var page TaskPage
	f.read(t, owner, func(tx *Tx) (err error) {
		page, err = tx.TaskPage(TaskQuery{Query: q, Limit: 1000, Cap: 1000})
		return err
	})
	ids := make([]int64, len(page.Tasks))
	for i, tk := range page.Tasks {
		ids[i] = tk.ID
	}
	slices.Sort(ids)
	return ids
}

// scanIDs is the ids of the owner's live tasks whose folded text holds
// the folded q, read from every task (no index).
func (f *fixture) scanIDs(t *testing.T, owner int64, fq string) []int64 {
	t.Helper()
	q := `SELECT id FROM tasks WHERE owner_id = ? AND deleted_at IS NULL AND instr(search_fold, ?) > 0 ORDER BY id`
	if f.s.Engine() == Postgres {
		q = `SELECT id FROM tasks WHERE owner_id = ? AND deleted_at IS NULL AND strpos(search_fold, ?) > 0 ORDER BY id`
	}
	rows, err := f.s.DB().Query(rebindFor(f.s, q), owner, fq)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// checkTextIndex checks, on SQLite, that fewer than 64 tasks are pending,
// each with a search_fold, and that the index holds every task's text
// once (TextIndexHolds). It returns how many tasks were pending.
func (f *fixture) checkTextIndex(t *testing.T) int {
	t.Helper()
	if f.s.Engine() != SQLite {
		return 0
	}
	var pending int
	if err := f.s.DB().QueryRow(`SELECT count(*) FROM tasks_fts_pending`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending >= 64 {
		t.Errorf("%d tasks pending, want fewer than 64", pending)
	}
	var bare int
	if err := f.s.DB().QueryRow(`SELECT count(*) FROM tasks_fts_pending p JOIN tasks t ON t.id = p.id WHERE t.search_fold IS NULL`).Scan(&bare); err != nil {
		t.Fatal(err)
	}
	if bare > 0 {
		t.Errorf("%d pending tasks have no search_fold (or are gone)", bare)
	}
	TextIndexHolds(t, f.s)
	return pending
}

// TextIndexHolds fails t unless, on SQLite, s's trigram index (tasks_fts)
// and its pending tasks (migration 00035) together hold every task's
// search_fold exactly once: with the pending tasks written to the index,
// in a transaction rolled back, FTS5's integrity-check against the
// content table passes. On PostgreSQL it checks nothing.
func TextIndexHolds(t testing.TB, s *Store) {
	t.Helper()
	if s.Engine() != SQLite {
		return
	}
	tx, err := s.DB().Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []string{
		`INSERT INTO tasks_fts (rowid, search_fold) SELECT t.id, t.search_fold FROM tasks_fts_pending p JOIN tasks t ON t.id = p.id`,
		`INSERT INTO tasks_fts (tasks_fts, rank) VALUES ('integrity-check', 1)`,
	} {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("the text index of %s does not match its tasks: %v", s.Path(), err)
		}
	}
}

// A text search finds what a scan of every task finds, whether the tasks
// are in the trigram index or still pending (SQLite takes new text in
// batches, migration 00035), through adds, edits of the text, deletes
// (soft, hard and by undo) and adds past the batch size; on SQLite the
// index and the pending marks hold each task's text exactly once after
// each step.
func TestTextSearchPendingTasks(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		sqlite := f.s.Engine() == SQLite
		words := []string{"garden", "garage", "invoice", "voice", "kitchen", "chen", "paint", "saint"}
		queries := []string{"gar", "garden", "voice", "invoice", "chen", "aint", "saint", "zzz", "ga"}
		check := func(step string) {
			t.Helper()
			f.checkTextIndex(t)
			for _, q := range queries {
				got, want := f.searchIDs(t, f.alice.ID, q), f.scanIDs(t, f.alice.ID, q)
				if !slices.Equal(got, want) {
					t.Fatalf("after %s: %q found %v, a scan %v", step, q, got, want)
				}
			}
		}
		add := func(owner int64, title string) (int64, string) {
			t.Helper()
			var id int64
			c, err := f.s.Write(f.ctx, owner, "add_task", func(tx *Tx) (err error) {
				id, err = tx.InsertTask(task.Task{Title: title, Priority: 4, Status: task.Open, CreatedAt: t0})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return id, c
		}
		edit := func(id int64, title string) {
			t.Helper()
			f.write(t, f.alice.ID, func(tx *Tx) error {
				before, err := tx.Task(id)
				if err != nil {
					return err
				}
				after := before
				after.Title = title
				_, err = tx.SaveTask(before, after)
				return err
			})
		}

		// Right after an add, the new task is pending and found.
		first, _ := add(f.alice.ID, "Weed the garden")
		check("the first add")
		if sqlite && f.checkTextIndex(t) != 1 {
			t.Fatalf("the new task is not pending")
		}
		// An edit of a pending task: old words gone, new ones found.
		edit(first, "Pay the invoice")
		check("an edit of a pending task")
		if got := f.searchIDs(t, f.alice.ID, "garden"); len(got) != 0 {
			t.Fatalf("the old title is still found: %v", got)
		}
		if got := f.searchIDs(t, f.alice.ID, "invoice"); !slices.Equal(got, []int64{first}) {
			t.Fatalf("the new title is found in %v", got)
		}
		// Past the batch: the first tasks are in the index, the last
		// pending; bob's tasks never show in alice's search.
		var ids []int64
		for i := range 150 {
			owner := f.alice.ID
			if i%5 == 4 {
				owner = f.bob.ID
			}
			id, _ := add(owner, fmt.Sprintf("%s %s %d", words[i%len(words)], words[(i*3+1)%len(words)], i))
			if owner == f.alice.ID {
				ids = append(ids, id)
			}
		}
		if sqlite && f.checkTextIndex(t) == 0 {
			t.Fatalf("no task pending after 151 adds")
		}
		check("150 adds")
		// An edit of an indexed task (the first, folded long ago) and of
		// the last, still pending.
		edit(first, "Repaint the kitchen")
		edit(ids[len(ids)-1], "Saint garden")
		check("edits of an indexed and a pending task")
		if got := f.searchIDs(t, f.alice.ID, "invoice"); slices.Contains(got, first) {
			t.Fatalf("the indexed task's old title is still found")
		}

		// A random run of adds, edits, soft and hard deletes and undos.
		rng := rand.New(rand.NewPCG(36, 1))
		var changes []string
		for step := range 300 {
			live := f.scanIDs(t, f.alice.ID, "")
			switch r := rng.IntN(10); {
			case r < 4 || len(live) == 0:
				id, c := add(f.alice.ID, words[rng.IntN(len(words))]+" "+words[rng.IntN(len(words))])
				ids = append(ids, id)
				changes = append(changes, c)
			case r < 6:
				edit(live[rng.IntN(len(live))], words[rng.IntN(len(words))]+" "+words[rng.IntN(len(words))])
			case r < 7:
				id := live[rng.IntN(len(live))]
				f.write(t, f.alice.ID, func(tx *Tx) error { return tx.DeleteTask(id) })
			case r < 8:
				if _, err := f.s.DB().Exec(rebindFor(f.s, `DELETE FROM tasks WHERE id = ?`), live[rng.IntN(len(live))]); err != nil {
					t.Fatal(err)
				}
			case r < 9:
				// Undo of a recent add takes the task out again (or
				// finds it changed since, and refuses).
				if len(changes) > 0 {
					c := changes[len(changes)-1]
					changes = changes[:len(changes)-1]
					f.s.Undo(f.ctx, f.alice.ID, c)
				}
			default:
				// A text set to the value it has, and one cleared (as
				// before the start-up pass works it out).
				id := live[rng.IntN(len(live))]
				q := `UPDATE tasks SET search_fold = search_fold WHERE id = ?`
				if rng.IntN(2) == 0 {
					q = `UPDATE tasks SET search_fold = NULL WHERE id = ?`
				}
				if _, err := f.s.DB().Exec(rebindFor(f.s, q), id); err != nil {
					t.Fatal(err)
				}
				if err := f.s.deriveOld(f.ctx); err != nil {
					t.Fatal(err)
				}
			}
			if step%10 == 9 {
				check(fmt.Sprintf("step %d", step))
			}
		}
		check("the random run")
		// Many tasks in one statement (as an import adds them), and
		// every task of a person deleted at once.
		many := make([]task.Task, 200)
		for i := range many {
			many[i] = task.Task{Title: words[i%len(words)] + " batch", Priority: 4, Status: task.Open, CreatedAt: t0}
		}
		f.write(t, f.alice.ID, func(tx *Tx) error { _, err := tx.InsertTasks(many); return err })
		check("a batch of 200")
		if _, err := f.s.DB().Exec(rebindFor(f.s, `DELETE FROM people WHERE id = ?`), f.bob.ID); err != nil {
			t.Fatal(err)
		}
		check("deleting a person")
	})
}

// Migrating down writes the pending tasks to the index, migrating up
// again starts with none pending: the index holds each task once through
// both.
func TestTextIndexPendingMigration(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		if storetest.Engine(t) != storetest.SQLite {
			t.Skip("PostgreSQL's text index has no pending tasks")
		}
		f := newFixture(t)
		for i := range 70 {
			f.write(t, f.alice.ID, func(tx *Tx) error {
				_, err := tx.InsertTask(task.Task{Title: fmt.Sprintf("garden %d", i), Priority: 4, Status: task.Open, CreatedAt: t0})
				return err
			})
		}
		if n := f.checkTextIndex(t); n != 70-64 {
			t.Fatalf("%d pending after 70 adds, want 6", n)
		}
		p, err := f.s.provider()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.DownTo(f.ctx, 34); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.DB().Exec(`INSERT INTO tasks_fts (tasks_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Fatalf("after migrating down: %v", err)
		}
		if got := automerge(t, f); got != 4 {
			t.Fatalf("after migrating down FTS5 merges at %d segments a level, want the default 4", got)
		}
		if _, err := p.Up(f.ctx); err != nil {
			t.Fatal(err)
		}
		if got := automerge(t, f); got != 2 {
			t.Fatalf("FTS5 merges at %d segments a level, want 2 (migration 00035)", got)
		}
		if n := f.checkTextIndex(t); n != 0 {
			t.Fatalf("%d pending after migrating up", n)
		}
		if got := f.searchIDs(t, f.alice.ID, "garden"); len(got) != 70 {
			t.Fatalf("found %d of 70", len(got))
		}
	})
}

// automerge is the FTS5 'automerge' of tasks_fts: how many segments at
// one level it merges (4 when never set).
func automerge(t *testing.T, f *fixture) int {
	t.Helper()
	var n int
	err := f.s.DB().QueryRow(`SELECT coalesce((SELECT v FROM tasks_fts_config WHERE k = 'automerge'), 4)`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
