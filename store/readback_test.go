package store

import (
	"errors"
	"reflect"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// A task without a due, added by a Write that was not told the owner's
// zone, gets the same list columns as one whose zone was read first (the
// INSERT reads list_zone itself), and the write makes no statement of its
// own to read the zone; an unknown owner is still ErrNotFound.
func TestInsertTaskReadsZoneInItsInsert(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		open := task.New("Call the plumber", t0)
		open.Tags = []string{"Home"}
		done := task.New("Paid the rent", t0)
		done.Status, done.CompletedAt = task.Done, t0
		for _, who := range []Person{f.alice, f.bob} {
			for _, tk := range []task.Task{open, done} {
				var id int64
				if _, err := f.s.Write(f.ctx, who.ID, "add_task", func(tx *Tx) error {
					var err error
					id, err = tx.InsertTask(tk)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				tk.ID = id
				want := DerivedTaskColumns(tk, tz.MustZone(who.Zone))
				day, at, zone, search, tags := f.listCols(t, id)
				if day != want["list_day"] || at != want["list_at"] || zone != want["list_zone"] ||
					search != want["search_fold"] || tags != want["tags_fold"] {
					t.Fatalf("%s's %q: columns %d %d %q %q %q, want %v", who.Name, tk.Title, day, at, zone, search, tags, want)
				}
			}
		}
		if f.s.Engine() == SQLite {
			if _, ok := f.s.stmts.Load(`SELECT zone FROM people WHERE id = ?`); ok {
				t.Fatal("adding a task without a due read the owner's zone in a statement of its own")
			}
		}
		_, err := f.s.Write(f.ctx, 987654, "add_task", func(tx *Tx) error {
			_, err := tx.InsertTask(open)
			return err
		})
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("an unknown owner: %v, want ErrNotFound", err)
		}
	})
}

// A task read back in the Write that wrote it comes from the image its
// INSERT or UPDATE returned (no statement), and is the task a later read
// of the database gives.
func TestTaskReadBackInItsWrite(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		tk := task.New("Renew the passport", t0)
		tk.Notes = "photos first"
		tk.Tags = []string{"admin"}
		tk.Priority = 2
		tk.Due, tk.HasDue = task.Timed(tz.Date{Year: 2026, Month: 11, Day: 3}.At(9, 30), tz.MustZone("Europe/Paris")), true
		var id int64
		var added, changed task.Task
		if _, err := f.s.Write(f.ctx, f.alice.ID, "add_task", func(tx *Tx) error {
			var err error
			if id, err = tx.InsertTask(tk); err != nil {
				return err
			}
			if added, _, err = tx.TaskEvenDeleted(id); err != nil {
				return err
			}
			after := added
			after.Title, after.Priority = "Renew both passports", 1
			if _, err := tx.SaveTask(added, after); err != nil {
				return err
			}
			changed, _, err = tx.TaskEvenDeleted(id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if f.s.Engine() == SQLite {
			if _, ok := f.s.stmts.Load(taskSelect + ` WHERE owner_id = ? AND id = ?`); ok {
				t.Fatal("the task was read back from the database, not from its image")
			}
		}
		var stored task.Task
		if err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			var err error
			stored, _, err = tx.TaskEvenDeleted(id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(changed, stored) {
			t.Fatalf("read back in the write:\n%+v\nstored:\n%+v", changed, stored)
		}
		if added.Title != tk.Title || added.Priority != 2 || changed.Title != "Renew both passports" {
			t.Fatalf("read back: added %q %d, changed %q", added.Title, added.Priority, changed.Title)
		}
	})
}
