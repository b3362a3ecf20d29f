package store

import (
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// listCols reads the derived list columns of task id.
func (f *fixture) listCols(t *testing.T, id int64) (day, at int64, zone, search, tags string) {
	t.Helper()
	var s any
	if err := f.s.DB().QueryRow(rebindFor(f.s, `SELECT list_day, list_at, list_zone, search_fold, tags_fold FROM tasks WHERE id = ?`), id).
		Scan(&day, &at, &zone, &s, &tags); err != nil {
		t.Fatal(err)
	}
	return day, at, zone, text(s), tags
}

func rebindFor(s *Store, q string) string {
	if s.Engine() == Postgres {
		return rebind(q)
	}
	return q
}

// The list columns follow the task and the owner's zone: written with the
// task, worked out again for every open task when the zone changes and
// when that change is undone, left out of the journal (so undoing an
// earlier change of the task still works after a zone change), and
// filled at start-up for rows written before migration 00012.
func TestTaskListColumns(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		tk := task.New("Crème Brûlée", t0)
		tk.Notes = "For the ÉCOLE party"
		tk.Tags = []string{"Home", "ſun"}
		tk.Due, tk.HasDue = task.Timed(tz.Date{Year: 2026, Month: 10, Day: 5}.At(23, 30), tz.MustZone("Europe/Paris")), true
		var id int64
		add, err := f.s.Write(f.ctx, f.alice.ID, "add_task", func(tx *Tx) error {
			var err error
			id, err = tx.InsertTask(tk)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		day, _, zone, search, tags := f.listCols(t, id)
		if day != 20261005 || zone != "Europe/Paris" || search != "creme brulee\x1ffor the ecole party" || tags != `["HOME","SUN"]` {
			t.Fatalf("columns %d %q %q %q", day, zone, search, tags)
		}
		// Tokyo reads 23:30 Paris as the next morning.
		zc, _, err := f.s.SetZone(f.ctx, f.alice.ID, "Asia/Tokyo", "test")
		if err != nil {
			t.Fatal(err)
		}
		if day, _, zone, _, _ := f.listCols(t, id); day != 20261006 || zone != "Asia/Tokyo" {
			t.Fatalf("after the zone change: %d %q", day, zone)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, zc); err != nil {
			t.Fatal(err)
		}
		if day, _, zone, _, _ := f.listCols(t, id); day != 20261005 || zone != "Europe/Paris" {
			t.Fatalf("after undoing the zone change: %d %q", day, zone)
		}
		if _, _, err := f.s.SetZone(f.ctx, f.alice.ID, "Asia/Tokyo", "test"); err != nil {
			t.Fatal(err)
		}
		// The add, undone after the zone change: no conflict with the
		// columns the zone change wrote outside the journal.
		if _, err := f.s.Undo(f.ctx, f.alice.ID, add); err != nil {
			t.Fatalf("undoing the add after a zone change: %v", err)
		}
		// A row from before 00012: its columns are filled at start-up.
		if _, err := f.s.DB().Exec(rebindFor(f.s, `UPDATE tasks SET search_fold = NULL, list_zone = '', tags_fold = '[]' WHERE id = ?`), id); err != nil {
			t.Fatal(err)
		}
		if err := f.s.deriveOld(f.ctx); err != nil {
			t.Fatal(err)
		}
		if day, _, zone, search, tags := f.listCols(t, id); day != 20261006 || zone != "Asia/Tokyo" || search == "" || tags != `["HOME","SUN"]` {
			t.Fatalf("the start-up pass left %d %q %q %q", day, zone, search, tags)
		}
		var n int
		if err := f.s.DB().QueryRow(rebindFor(f.s, `SELECT count(*) FROM task_tags WHERE task_id = ? AND tag IN ('HOME', 'SUN')`), id).Scan(&n); err != nil || n != 2 {
			t.Fatalf("task_tags holds %d of the two tags (%v)", n, err)
		}
	})
}

// Migration 00022 clears the search text of rows folded the older way (no
// full case folding, no compatibility forms), up and down, and the
// start-up pass works it out again; an ASCII text is left alone.
func TestSearchFoldMigration(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var street, plain int64
		f.write(t, f.alice.ID, func(tx *Tx) (err error) {
			if street, err = tx.InsertTask(task.Task{Title: "Straße", Notes: "ﬁle", Priority: 4, Status: task.Open, CreatedAt: t0}); err != nil {
				return err
			}
			plain, err = tx.InsertTask(task.Task{Title: "Plain", Priority: 4, Status: task.Open, CreatedAt: t0})
			return err
		})
		if _, _, _, s, _ := f.listCols(t, street); s != "strasse"+searchSep+"file" {
			t.Fatalf("search_fold %q", s)
		}
		p, err := f.s.provider()
		if err != nil {
			t.Fatal(err)
		}
		older := func() {
			t.Helper()
			if _, err := f.s.DB().Exec(rebindFor(f.s, `UPDATE tasks SET search_fold = ? WHERE id = ?`), "straße"+searchSep+"ﬁle", street); err != nil {
				t.Fatal(err)
			}
		}
		cleared := func(when string) {
			t.Helper()
			if _, _, _, s, _ := f.listCols(t, street); s != "" {
				t.Errorf("%s: the older fold %q stays", when, s)
			}
			if _, _, _, s, _ := f.listCols(t, plain); s != "plain"+searchSep {
				t.Errorf("%s: an ASCII row's search_fold became %q", when, s)
			}
		}
		older()
		if _, err := p.DownTo(f.ctx, 21); err != nil {
			t.Fatal(err)
		}
		cleared("down")
		older()
		if _, err := p.Up(f.ctx); err != nil {
			t.Fatal(err)
		}
		cleared("up")
		if err := f.s.deriveOld(f.ctx); err != nil {
			t.Fatal(err)
		}
		if _, _, _, s, _ := f.listCols(t, street); s != "strasse"+searchSep+"file" {
			t.Fatalf("after the start-up pass search_fold is %q", s)
		}
	})
}

// Migration 00027 clears the search text of rows folded before the
// letters Unicode does not decompose were read as typed ("æ" as "ae", "ø"
// as "o", dotless "ı" as "i"), up and down; the start-up pass works it out
// again, and a page searched with the typed letters finds the task
// (through the trigram index on SQLite).
func TestSearchFoldLettersMigration(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var saga int64
		f.write(t, f.alice.ID, func(tx *Tx) (err error) {
			saga, err = tx.InsertTask(task.Task{Title: "Æsir saga", Notes: "Øresund, Diyarbakır", Priority: 4, Status: task.Open, CreatedAt: t0})
			return err
		})
		want := "aesir saga" + searchSep + "oresund, diyarbakir"
		if _, _, _, s, _ := f.listCols(t, saga); s != want {
			t.Fatalf("search_fold %q, want %q", s, want)
		}
		p, err := f.s.provider()
		if err != nil {
			t.Fatal(err)
		}
		older := func() {
			t.Helper()
			if _, err := f.s.DB().Exec(rebindFor(f.s, `UPDATE tasks SET search_fold = ? WHERE id = ?`),
				"æsir saga"+searchSep+"øresund, diyarbakır", saga); err != nil {
				t.Fatal(err)
			}
		}
		cleared := func(when string) {
			t.Helper()
			if _, _, _, s, _ := f.listCols(t, saga); s != "" {
				t.Errorf("%s: the older fold %q stays", when, s)
			}
		}
		older()
		if _, err := p.DownTo(f.ctx, 26); err != nil {
			t.Fatal(err)
		}
		cleared("down")
		older()
		if _, err := p.Up(f.ctx); err != nil {
			t.Fatal(err)
		}
		cleared("up")
		if err := f.s.deriveOld(f.ctx); err != nil {
			t.Fatal(err)
		}
		if _, _, _, s, _ := f.listCols(t, saga); s != want {
			t.Fatalf("after the start-up pass search_fold is %q", s)
		}
		for _, q := range []string{"aesir", "AESIR SAGA", "oresund", "diyarbakir", "DİYARBAKIR", "Æsir"} {
			var page TaskPage
			if _, err := f.s.Write(f.ctx, f.alice.ID, "test", func(tx *Tx) (err error) {
				page, err = tx.TaskPage(TaskQuery{Status: task.Open, Query: q, Limit: 10, Cap: 10})
				return err
			}); err != nil {
				t.Fatalf("query %q: %v", q, err)
			}
			if len(page.Tasks) != 1 || page.Tasks[0].ID != saga {
				t.Errorf("query %q found %d tasks, want the saga", q, len(page.Tasks))
			}
		}
	})
}
