package store

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

func mustRule(t testing.TB, s string) *recur.Rule {
	t.Helper()
	r, err := recur.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sampleTask has every field the codec keeps set.
func sampleTask(t testing.TB) task.Task {
	t.Helper()
	dt, _ := tz.ParseDateTime("2026-10-25T02:30") // the repeated hour in Paris
	paris := tz.MustZone("Europe/Paris")
	dt.Fold = true
	tk := task.New("Water the plants", t0)
	tk.UID = "abc@example.com"
	tk.Notes = "two lines\nof notes"
	tk.Due, tk.HasDue = task.Timed(dt, paris), true
	tk.Priority = 2
	tk.Tags = []string{"home", "garden"}
	tk.Rule, tk.RepeatFrom = mustRule(t, "FREQ=WEEKLY;COUNT=4"), task.Schedule
	tk.Reminders = item.Reminders{Before: []int{10, 60}, At: []tz.Moment{tz.TimeMoment(dt.Clock())}}
	tk.RemindOnce = []time.Time{t0.Add(time.Hour)}
	return tk
}

func TestTaskRoundTrip(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		in := sampleTask(t)
		var id int64
		change, err := f.s.Write(f.ctx, f.alice.ID, "add_task", func(tx *Tx) error {
			var err error
			id, err = tx.InsertTask(in)
			return err
		})
		if err != nil || change == "" {
			t.Fatalf("insert: %q %v", change, err)
		}
		var out task.Task
		if err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			var err error
			out, err = tx.Task(id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		in.ID, in.UpdatedAt = id, t0
		if !out.Due.Fold || !out.Due.At.Equal(in.Due.At) {
			t.Errorf("due %v at %s, want the later reading at %s", out.Due.DateTime, out.Due.At, in.Due.At)
		}
		if got := TaskChanges(in, out); len(got) != 0 {
			t.Errorf("read back differs in %v:\n%+v\n%+v", got, in, out)
		}
		if out.ID != id || out.UID != in.UID || out.Title != in.Title || !slices.Equal(out.Tags, in.Tags) ||
			out.Rule.String() != "FREQ=WEEKLY;COUNT=4" || !out.CreatedAt.Equal(t0) || !out.UpdatedAt.Equal(t0) ||
			len(out.RemindOnce) != 1 || out.Status != task.Open {
			t.Errorf("read back %+v", out)
		}
		// Someone else's task reads as none.
		err = f.s.Read(f.ctx, f.bob.ID, func(tx *Tx) error { _, err := tx.Task(id); return err })
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("bob reads alice's task: %v", err)
		}
	})
}

func TestSaveTaskWritesOnlyWhatChanged(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var id int64
		if _, err := f.s.Write(f.ctx, f.alice.ID, "add_task", func(tx *Tx) error {
			var err error
			id, err = tx.InsertTask(sampleTask(t))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var fields []string
		change, err := f.s.Write(f.ctx, f.alice.ID, "update_task", func(tx *Tx) error {
			before, err := tx.Task(id)
			if err != nil {
				return err
			}
			after := before
			after.Title = "Water the roses"
			after.Due = task.Day(before.Due.Date.AddDays(1))
			fields, err = tx.SaveTask(before, after)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"due", "title"}; !slices.Equal(fields, want) {
			t.Errorf("changed %v, want %v", fields, want)
		}
		same, err := f.s.Write(f.ctx, f.alice.ID, "update_task", func(tx *Tx) error {
			before, err := tx.Task(id)
			if err != nil {
				return err
			}
			fields, err = tx.SaveTask(before, before)
			return err
		})
		if err != nil || same != "" || fields != nil {
			t.Errorf("saving a task unchanged: change %q, fields %v, %v", same, fields, err)
		}
		// Undo takes the change back whole.
		if _, err := f.s.Undo(f.ctx, f.alice.ID, change); err != nil {
			t.Fatal(err)
		}
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			back, err := tx.Task(id)
			if err != nil || back.Title != "Water the plants" || !back.Due.HasTime {
				t.Errorf("after undo: %+v %v", back, err)
			}
			return nil
		})
	})
}

func TestTasksFilter(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		paris := tz.MustZone("Europe/Paris")
		day := func(s string) tz.Date { d, _ := tz.ParseDate(s); return d }
		at := func(s string) task.Due { dt, _ := tz.ParseDateTime(s); return task.Timed(dt, paris) }
		mk := func(title string, d task.Due, has bool, status string) task.Task {
			tk := task.New(title, t0)
			tk.Due, tk.HasDue, tk.Status = d, has, status
			if status == task.Done {
				tk.CompletedAt = t0
			}
			return tk
		}
		in := []task.Task{
			mk("none", task.Due{}, false, task.Open),
			mk("day 5", task.Day(day("2026-10-05")), true, task.Open),
			mk("at 6 09:00", at("2026-10-06T09:00"), true, task.Open),
			mk("day 8 done", task.Day(day("2026-10-08")), true, task.Done),
			mk("at 9 00:00", at("2026-10-09T00:00"), true, task.Open),
		}
		in[2].Reminders.Before = []int{15}
		if _, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
			_, err := tx.InsertTasks(in)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		from := paris.StartOfDay(day("2026-10-06"))
		to := paris.StartOfDay(day("2026-10-09"))
		for _, c := range []struct {
			name string
			f    TaskFilter
			want []string
		}{
			{"all", TaskFilter{}, []string{"none", "day 5", "at 6 09:00", "day 8 done", "at 9 00:00"}},
			{"open", TaskFilter{Status: task.Open}, []string{"none", "day 5", "at 6 09:00", "at 9 00:00"}},
			{"done", TaskFilter{Status: task.Done}, []string{"day 8 done"}},
			{"window", TaskFilter{Window: true, From: from, To: to, FromDay: day("2026-10-06"), ToDay: day("2026-10-08")},
				[]string{"at 6 09:00", "day 8 done"}},
			{"window with no due", TaskFilter{Window: true, WithoutDue: true, From: from, To: to, FromDay: day("2026-10-06"), ToDay: day("2026-10-08")},
				[]string{"none", "at 6 09:00", "day 8 done"}},
			{"up to", TaskFilter{Status: task.Open, Window: true, To: to, ToDay: day("2026-10-08")},
				[]string{"day 5", "at 6 09:00"}},
			{"from, to rounded up", TaskFilter{Window: true, From: from.Add(time.Nanosecond), FromDay: day("2026-10-07")},
				[]string{"at 6 09:00", "day 8 done", "at 9 00:00"}},
		} {
			var got []string
			f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
				ts, err := tx.Tasks(c.f)
				if err != nil {
					t.Fatal(err)
				}
				for _, tk := range ts {
					got = append(got, tk.Title)
				}
				return nil
			})
			if !slices.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
			}
		}
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			rem, err := tx.OpenTasksWithReminders()
			if err != nil || len(rem) != 1 || rem[0].Title != "at 6 09:00" {
				t.Errorf("with reminders: %v %v", rem, err)
			}
			like, err := tx.TasksLike(mk("DAY  5", task.Day(day("2026-10-05")), true, task.Open), t0)
			if err != nil || len(like) != 1 || like[0].Title != "day 5" {
				t.Errorf("like: %v %v", like, err)
			}
			if like, _ := tx.TasksLike(mk("day 5", task.Day(day("2026-10-05")), true, task.Open), t0.Add(time.Second)); len(like) != 0 {
				t.Errorf("like, added before since: %v", like)
			}
			return nil
		})
		f.s.Read(f.ctx, f.bob.ID, func(tx *Tx) error {
			if ts, _ := tx.Tasks(TaskFilter{}); len(ts) != 0 {
				t.Errorf("bob lists alice's tasks: %v", ts)
			}
			return nil
		})
	})
}

func TestTaskDeletedAndCompletions(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		paris := tz.MustZone("Europe/Paris")
		var id int64
		dt, _ := tz.ParseDateTime("2026-10-05T09:00")
		if _, err := f.s.Write(f.ctx, f.alice.ID, "add_task", func(tx *Tx) error {
			tk := task.New("Run", t0)
			tk.Due, tk.HasDue = task.Timed(dt, paris), true
			var err error
			if id, err = tx.InsertTask(tk); err != nil {
				return err
			}
			for i := range 3 {
				c := task.Completion{TaskID: id, Due: tk.Due, HasDue: i != 1, At: t0.Add(time.Duration(i) * time.Hour)}
				if _, err := tx.InsertCompletion(c); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Write(f.ctx, f.alice.ID, "reopen_task", func(tx *Tx) error {
			last, total, err := tx.Completions(id, 1)
			if err != nil || total != 3 || len(last) != 1 || !last[0].At.Equal(t0.Add(2*time.Hour)) {
				t.Errorf("latest: %+v of %d, %v", last, total, err)
			}
			return tx.DeleteCompletion(last[0].ID)
		}); err != nil {
			t.Fatal(err)
		}
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			all, total, err := tx.Completions(id, 0)
			if err != nil || total != 2 || len(all) != 2 || all[0].HasDue || !all[1].HasDue || all[1].Due.At != task.Timed(dt, paris).At {
				t.Errorf("after deleting one: %+v of %d, %v", all, total, err)
			}
			return nil
		})
		if _, err := f.s.Write(f.ctx, f.alice.ID, "delete_task", func(tx *Tx) error { return tx.DeleteTask(id) }); err != nil {
			t.Fatal(err)
		}
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			if _, err := tx.Task(id); !errors.Is(err, ErrNotFound) {
				t.Errorf("deleted task reads: %v", err)
			}
			tk, deleted, err := tx.TaskEvenDeleted(id)
			if err != nil || !deleted || tk.Title != "Run" {
				t.Errorf("even deleted: %+v %v %v", tk, deleted, err)
			}
			if _, _, err := tx.TaskEvenDeleted(id + 1); !errors.Is(err, ErrNotFound) {
				t.Errorf("no such task: %v", err)
			}
			return nil
		})
		f.s.Read(f.ctx, f.bob.ID, func(tx *Tx) error {
			if _, _, err := tx.TaskEvenDeleted(id); !errors.Is(err, ErrNotFound) {
				t.Errorf("bob reads alice's deleted task: %v", err)
			}
			if _, n, _ := tx.Completions(id, 0); n != 0 {
				t.Errorf("bob counts alice's completions: %d", n)
			}
			return nil
		})
	})
}

func TestDecodeTaskRefusesBrokenRows(t *testing.T) {
	for _, r := range []Row{
		{"id": int64(1), "due_date": "2026-13-40"},
		{"id": int64(1), "due_date": "2026-10-05", "due_time": "2026-10-05T09:00", "due_zone": "Mars/Olympus"},
		{"id": int64(1), "tags": "[1,"},
		{"id": int64(1), "due_date": "2026-10-05", "rrule": "FREQ=SOMETIMES"},
		{"id": int64(1), "remind_before": "x"},
	} {
		if _, err := decodeTask(r); err == nil {
			t.Errorf("%v decoded", r)
		} else if !strings.Contains(err.Error(), "task t1") {
			t.Errorf("%v: %v does not name the task", r, err)
		}
	}
}
