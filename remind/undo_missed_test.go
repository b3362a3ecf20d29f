package remind

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/changes"
)

// An undo that brings back a task whose reminder time passed while the
// change it undid was in place (a delete, a completion) does not lose
// that reminder: the answer says so, and the reminders job treats it as
// one it missed while it was down — sent late within --max-late, recorded
// as skipped past it. Passes run between the change and the undo, so the
// index had dropped the item.
func TestUndoBringsBackMissedReminder(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for _, c := range []struct {
			name, undoAt  string
			sent, tooLate int
		}{
			{"within max-late", "2026-10-05T10:00", 1, 0},
			{"past max-late", "2026-10-05T16:30", 0, 1},
		} {
			for _, change := range []string{"delete_task", "complete_task"} {
				t.Run(c.name+"/"+change, func(t *testing.T) {
					e := newEnv(t, civilAt(t, paris, "2026-10-05T08:00"))
					changes.Register(e.reg)
					id := e.call(e.ada, "add_task", `{"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15]}`)
					eng := e.engine(Options{})
					e.pass(eng)
					e.at(paris, "2026-10-05T09:00")
					e.call(e.ada, change, `{"id":"`+id+`"}`)
					e.at(paris, "2026-10-05T09:30")
					e.pass(eng)
					e.at(paris, "2026-10-05T09:50")
					if r := e.pass(eng); r.Sent != 0 {
						t.Fatalf("a reminder went out while the task was gone: %+v", r)
					}
					e.at(paris, c.undoAt)
					out := e.out(e.ada, "undo", `{}`)
					if !strings.Contains(out, "The reminder time Mon 2026-10-05 09:45 (+02:00) passed meanwhile; it goes out now, late") {
						t.Errorf("the undo does not say the reminder passed meanwhile:\n%s", out)
					}
					r := e.pass(eng)
					if r.Sent != c.sent || r.TooLate != c.tooLate {
						t.Errorf("the pass after the undo: %+v, want %d sent and %d skipped as too late", r, c.sent, c.tooLate)
					}
					if got := e.rec.take(); len(got) != c.sent || c.sent == 1 && got[0].Title != "Call the bank" {
						t.Errorf("sent %+v", got)
					}
					if r := e.pass(eng); r.Sent != 0 || r.Skipped != 0 {
						t.Errorf("a later pass did more: %+v", r)
					}
				})
			}
		}
	})
}

// An undo that brings nothing back (the undo of an add, after the
// reminder time), and one right after the change it undoes, say nothing of
// reminders and record nothing.
func TestUndoWithoutMissedReminderSaysNothing(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, paris, "2026-10-05T08:00"))
		changes.Register(e.reg)
		id := e.call(e.ada, "add_task", `{"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15]}`)
		e.call(e.ada, "delete_task", `{"id":"`+id+`"}`)
		if out := e.out(e.ada, "undo", `{}`); strings.Contains(out, "reminder") {
			t.Errorf("an undo with no time passed speaks of reminders:\n%s", out)
		}
		e.at(paris, "2026-10-05T11:00")
		if out := e.out(e.ada, "undo", `{}`); strings.Contains(out, "reminder") {
			t.Errorf("the undo of the delete's undo, which deletes, speaks of reminders:\n%s", out)
		}
		if rows := e.rows(); len(rows) != 0 {
			t.Errorf("deliveries recorded: %+v", rows)
		}
	})
}
