package ics

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// What a PUT decides against the stored state: a series moved without
// its RECURRENCE-IDs, a repeating to-do completed, and the completion
// state of a to-do's extra.

// seriesBody is a weekly series at start (Berlin wall clock) with the
// VEVENTs given after it.
func seriesBody(start, end string, overrides ...string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
		"BEGIN:VEVENT\r\nUID:move-1@example.com\r\nDTSTAMP:20260101T000000Z\r\n" +
		"DTSTART;TZID=Europe/Berlin:" + start + "\r\nDTEND;TZID=Europe/Berlin:" + end + "\r\n" +
		"RRULE:FREQ=WEEKLY;COUNT=4\r\nSUMMARY:Review\r\nEND:VEVENT\r\n" +
		strings.Join(overrides, "") + "END:VCALENDAR\r\n"
}

func overrideVEvent(rid, start, end, summary, extra string) string {
	return "BEGIN:VEVENT\r\nUID:move-1@example.com\r\nDTSTAMP:20260101T000000Z\r\n" +
		"RECURRENCE-ID;TZID=Europe/Berlin:" + rid + "\r\n" +
		"DTSTART;TZID=Europe/Berlin:" + start + "\r\nDTEND;TZID=Europe/Berlin:" + end + "\r\n" +
		"SUMMARY:" + summary + "\r\n" + extra + "END:VEVENT\r\n"
}

func storedKeys(t *testing.T, st *store.Store, p store.Person, uid string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := st.Read(context.Background(), p.ID, func(tx *store.Tx) error {
		e, err := tx.EventByUID(uid)
		if err != nil {
			return err
		}
		ovs, err := tx.Overrides(e.ID)
		for k, o := range ovs {
			title := ""
			if o.Title != nil {
				title = *o.Title
			}
			if o.HasTime {
				title += " at " + o.Start.String()
			}
			out[k] = title
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// A series moved from 09:30 to 10:00 whose body keeps a changed
// occurrence's RECURRENCE-ID at the old 09:30 keeps that occurrence,
// re-keyed to 10:00 with its own time and extra; one that was no
// occurrence before either stays skipped; one already at the new time
// stays as it is; the GET afterwards PUT back changes nothing.
func TestObjectSeriesMoveKeepsOverrides(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		p.Zone = "Europe/Berlin"
		moved := overrideVEvent("20261012T093000", "20261012T113000", "20261012T123000", "Review (moved)", "X-CLIENT-NOTE:keep me\r\n")
		putBody(t, st, p, seriesBody("20261005T093000", "20261005T103000", moved))
		if got := storedKeys(t, st, p, "move-1@example.com"); got["20261012T073000Z"] != "Review (moved) at 2026-10-12T11:30" || len(got) != 1 {
			t.Fatalf("before the move: %v", got)
		}
		// The series moves to 10:00; the client leaves the override's
		// RECURRENCE-ID at 09:30, adds one that is no occurrence of either
		// (a Tuesday) and one already keyed in the moved series.
		stray := overrideVEvent("20261013T093000", "20261013T093000", "20261013T103000", "Stray", "")
		fresh := overrideVEvent("20261019T100000", "20261019T100000", "20261019T110000", "Review (new title)", "")
		obj, _, created, changed, change := putBody(t, st, p, seriesBody("20261005T100000", "20261005T110000", moved, stray, fresh))
		if created || !changed || change == "" {
			t.Fatalf("the move: created %t changed %t change %q", created, changed, change)
		}
		got := storedKeys(t, st, p, "move-1@example.com")
		want := map[string]string{"20261012T080000Z": "Review (moved) at 2026-10-12T11:30", "20261019T080000Z": "Review (new title)"}
		if len(got) != len(want) || got["20261012T080000Z"] != want["20261012T080000Z"] || got["20261019T080000Z"] != want["20261019T080000Z"] {
			t.Errorf("overrides after the move: %v, want %v", got, want)
		}
		var strays, olds int
		for _, s := range obj.Skipped {
			if strings.Contains(s.Reason, "2026-10-13T09:30") {
				strays++
			}
			if strings.Contains(s.Reason, "2026-10-12T09:30") {
				olds++
			}
		}
		if strays != 1 || olds != 0 {
			t.Errorf("Skipped names the stray %d times and the re-keyed one %d times: %+v", strays, olds, obj.Skipped)
		}
		if len(obj.Repaired) == 0 || !strings.Contains(obj.Repaired[len(obj.Repaired)-1].Reason, "20261012T080000Z") {
			t.Errorf("Repaired does not say where the override went: %+v", obj.Repaired)
		}
		body := unfold(getBody(t, st, p, "VEVENT", obj.UID, obj.Extra))
		ov := ""
		for _, c := range strings.Split(body, "BEGIN:VEVENT") {
			if strings.Contains(c, "RECURRENCE-ID;TZID=Europe/Berlin:20261012T100000") {
				ov = c
			}
		}
		if ov == "" || strings.Contains(body, "20261012T093000") {
			t.Fatalf("the served object lacks the re-keyed override:\n%s", body)
		}
		for _, w := range []string{"SUMMARY:Review (moved)", "DTSTART;TZID=Europe/Berlin:20261012T113000", "X-CLIENT-NOTE:keep me"} {
			if !strings.Contains(ov, w) {
				t.Errorf("the re-keyed override lacks %s:\n%s", w, ov)
			}
		}
		back, _, created, changed, change := putBody(t, st, p, body)
		if created || changed || change != "" || back.Extra != obj.Extra {
			t.Errorf("PUT of the GET after the move: created %t changed %t change %q; extra\n%s\n--- want\n%s", created, changed, change, back.Extra, obj.Extra)
		}
		if again := storedKeys(t, st, p, "move-1@example.com"); len(again) != len(got) || again["20261012T080000Z"] != got["20261012T080000Z"] {
			t.Errorf("overrides after the PUT of the GET: %v, want %v", again, got)
		}
	})
}

// A move whose body leaves a changed occurrence at its old time, with
// nothing else changed, makes it the series' occurrence again; a new
// series (nothing stored) keeps skipping an override that matches none.
func TestObjectSeriesMoveOrdinaryAgain(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		p.Zone = "Europe/Berlin"
		// At 10:00 on its own: after the series moves to 10:00 it is the
		// series' own time.
		at10 := "BEGIN:VEVENT\r\nUID:move-1@example.com\r\nRECURRENCE-ID;TZID=Europe/Berlin:20261012T093000\r\n" +
			"DTSTART;TZID=Europe/Berlin:20261012T100000\r\nDTEND;TZID=Europe/Berlin:20261012T110000\r\nSUMMARY:Review\r\nEND:VEVENT\r\n"
		obj, _, _, _, _ := putBody(t, st, p, seriesBody("20261005T093000", "20261005T103000", at10))
		if len(obj.Overrides) != 1 {
			t.Fatalf("first PUT kept %d overrides", len(obj.Overrides))
		}
		obj, _, _, changed, _ := putBody(t, st, p, seriesBody("20261005T100000", "20261005T110000", at10))
		if got := storedKeys(t, st, p, "move-1@example.com"); len(got) != 0 || !changed {
			t.Errorf("after the move: overrides %v changed %t", got, changed)
		}
		for _, s := range obj.Skipped {
			if strings.Contains(s.Reason, "matches no occurrence") {
				t.Errorf("still skipped: %+v", s)
			}
		}
		// A new UID: nothing stored to have moved from.
		newBody := strings.ReplaceAll(seriesBody("20261005T100000", "20261005T110000", at10), "move-1@", "move-2@")
		obj, _, created, _, _ := putBody(t, st, p, newBody)
		if !created || len(obj.Overrides) != 0 || len(obj.Skipped) != 1 || !strings.Contains(obj.Skipped[0].Reason, "matches no occurrence") {
			t.Errorf("new series: created %t overrides %d skipped %+v", created, len(obj.Overrides), obj.Skipped)
		}
	})
}

// repeatingTodo is a weekly to-do due 09:00 Berlin on Oct 5, 2026, with
// the lines given.
func repeatingTodo(lines string, after ...string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
		"BEGIN:VTODO\r\nUID:rep-1@example.com\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Water the plants\r\n" +
		"DUE;TZID=Europe/Berlin:20261005T090000\r\nRRULE:FREQ=WEEKLY;COUNT=5\r\n" + lines +
		"END:VTODO\r\n" + strings.Join(after, "") + "END:VCALENDAR\r\n"
}

func storedTask(t *testing.T, st *store.Store, p store.Person, uid string) (task.Task, []task.Completion) {
	t.Helper()
	var tk task.Task
	var cs []task.Completion
	if err := st.Read(context.Background(), p.ID, func(tx *store.Tx) error {
		var err error
		if tk, err = tx.TaskByUID(uid); err != nil {
			return err
		}
		cs, _, err = tx.Completions(tk.ID, 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return tk, cs
}

// checkAdvanced checks that the weekly to-do is open at Oct 12 with three
// occurrences left after Oct 5, and that Oct 5's completion is recorded
// once.
func checkAdvanced(t *testing.T, st *store.Store, p store.Person) {
	t.Helper()
	tk, cs := storedTask(t, st, p, "rep-1@example.com")
	if tk.Status != task.Open || tk.Due.String() != "2026-10-12T09:00" || tk.Rule == nil || tk.Rule.Count() != 4 {
		t.Errorf("after completing: status %s due %s rule %v", tk.Status, tk.Due, tk.Rule)
	}
	if len(cs) != 1 || cs[0].Due.String() != "2026-10-05T09:00" {
		t.Errorf("completions %+v, want the one due 2026-10-05T09:00", cs)
	}
}

// A client that sets STATUS:COMPLETED on a repeating to-do completes its
// current occurrence, as complete_task does: the task stays open at its
// next due, the completion is recorded, the GET says NEEDS-ACTION without
// PERCENT-COMPLETE:100, and the same body sent again records nothing.
func TestObjectCompleteRepeatingTask(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		if _, _, created, _, _ := putBody(t, st, p, repeatingTodo("STATUS:NEEDS-ACTION\r\n")); !created {
			t.Fatal("the to-do was not created")
		}
		done := repeatingTodo("STATUS:COMPLETED\r\nCOMPLETED:20261005T100000Z\r\nPERCENT-COMPLETE:100\r\n")
		obj, _, created, changed, change := putBody(t, st, p, done)
		if created || !changed || change == "" {
			t.Fatalf("completing: created %t changed %t change %q", created, changed, change)
		}
		checkAdvanced(t, st, p)
		body := unfold(getBody(t, st, p, "VTODO", obj.UID, obj.Extra))
		for _, w := range []string{"STATUS:NEEDS-ACTION", "DUE;TZID=Europe/Berlin:20261012T090000", "RRULE:FREQ=WEEKLY;COUNT=4"} {
			if !strings.Contains(body, w) {
				t.Errorf("the served to-do lacks %s:\n%s", w, body)
			}
		}
		if strings.Contains(body, "PERCENT-COMPLETE") || strings.Contains(body, "COMPLETED") {
			t.Errorf("the open to-do is served as complete:\n%s", body)
		}
		if _, _, created, changed, change := putBody(t, st, p, body); created || changed || change != "" {
			t.Errorf("PUT of the GET: created %t changed %t change %q", created, changed, change)
		}
		// The completing body again (a client retrying): the occurrence is
		// done already.
		if _, _, _, changed, change := putBody(t, st, p, done); changed || change != "" {
			t.Errorf("the completion sent twice: changed %t change %q", changed, change)
		}
		checkAdvanced(t, st, p)
	})
}

// Thunderbird completes one occurrence as a changed occurrence at the
// current due with STATUS:COMPLETED: accepted as completing it; another
// changed occurrence is skipped, not refused.
func TestObjectCompleteOccurrenceOfTask(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		putBody(t, st, p, repeatingTodo("STATUS:NEEDS-ACTION\r\n"))
		occ := "BEGIN:VTODO\r\nUID:rep-1@example.com\r\nDTSTAMP:20260101T000000Z\r\nRECURRENCE-ID;TZID=Europe/Berlin:20261005T090000\r\n" +
			"SUMMARY:Water the plants\r\nDUE;TZID=Europe/Berlin:20261005T090000\r\nSTATUS:COMPLETED\r\nCOMPLETED:20261005T100000Z\r\n" +
			"PERCENT-COMPLETE:100\r\nX-MOZ-NOTE:occurrence\r\nEND:VTODO\r\n"
		other := "BEGIN:VTODO\r\nUID:rep-1@example.com\r\nDTSTAMP:20260101T000000Z\r\nRECURRENCE-ID;TZID=Europe/Berlin:20261019T090000\r\n" +
			"SUMMARY:Water the plants twice\r\nDUE;TZID=Europe/Berlin:20261019T090000\r\nEND:VTODO\r\n"
		body := repeatingTodo("STATUS:NEEDS-ACTION\r\nX-MOZ-GENERATION:2\r\n", occ, other)
		obj, _, created, changed, _ := putBody(t, st, p, body)
		if created || !changed {
			t.Fatalf("completing the occurrence: created %t changed %t", created, changed)
		}
		checkAdvanced(t, st, p)
		otherLine := strings.Count(body[:strings.Index(body, other)], "\r\n") + 1
		if len(obj.Skipped) != 1 || obj.Skipped[0].Line != otherLine || !strings.Contains(obj.Skipped[0].Reason, "RECURRENCE-ID") {
			t.Errorf("Skipped %+v, want the other occurrence at line %d", obj.Skipped, otherLine)
		}
		if !strings.Contains(obj.Extra, "X-MOZ-GENERATION:2") || strings.Contains(obj.Extra, "X-MOZ-NOTE") || strings.Contains(obj.Extra, "RECURRENCE-ID") {
			t.Errorf("extra holds the occurrences' properties:\n%s", obj.Extra)
		}
		// A completed occurrence that is not the current one completes
		// nothing.
		stale := repeatingTodo("STATUS:NEEDS-ACTION\r\n", strings.ReplaceAll(occ, "20261005T090000", "20261026T090000"))
		stale = strings.Replace(stale, "DUE;TZID=Europe/Berlin:20261005T090000\r\nRRULE:FREQ=WEEKLY;COUNT=5", "DUE;TZID=Europe/Berlin:20261012T090000\r\nRRULE:FREQ=WEEKLY;COUNT=4", 1)
		if _, _, _, changed, _ := putBody(t, st, p, stale); changed {
			t.Errorf("a completed occurrence other than the current one changed the task")
		}
		checkAdvanced(t, st, p)
	})
}

// An open task is never served PERCENT-COMPLETE:100 nor an extra
// STATUS:COMPLETED; a lower percentage stays; a done one is served 100
// in place of what the client sent, without its extra IN-PROCESS.
func TestObjectTaskCompletionState(t *testing.T) {
	person := tz.MustZone("Europe/Berlin")
	tk := task.New("Write the report", objNow)
	tk.ID = 7
	write := func(tk task.Task, extra string) string {
		var b strings.Builder
		if err := WriteTaskObject(&b, tk, extra, person); err != nil {
			t.Fatal(err)
		}
		return unfold([]byte(b.String()))
	}
	extra := func(lines string) string {
		return "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\n" + lines + "END:VTODO\r\nEND:VCALENDAR\r\n"
	}
	done := tk
	done.Status, done.CompletedAt = task.Done, objNow.Add(time.Hour)
	for _, c := range []struct {
		name     string
		t        task.Task
		extra    string
		want     []string
		wantNot  []string
		statuses int
	}{
		{"open at 100", tk, extra("PERCENT-COMPLETE:100\r\nX-A:1\r\n"), []string{"STATUS:NEEDS-ACTION", "X-A:1"}, []string{"PERCENT-COMPLETE"}, 1},
		{"open at 40", tk, extra("PERCENT-COMPLETE:40\r\nSTATUS:IN-PROCESS\r\n"), []string{"PERCENT-COMPLETE:40", "STATUS:IN-PROCESS"}, []string{"NEEDS-ACTION"}, 1},
		{"open with an extra COMPLETED", tk, extra("STATUS:COMPLETED\r\n"), []string{"STATUS:NEEDS-ACTION"}, []string{"STATUS:COMPLETED"}, 1},
		{"done at 40", done, extra("PERCENT-COMPLETE:40\r\nSTATUS:IN-PROCESS\r\n"), []string{"PERCENT-COMPLETE:100", "STATUS:COMPLETED"}, []string{"PERCENT-COMPLETE:40", "IN-PROCESS"}, 1},
		{"done without one", done, extra("X-A:1\r\n"), []string{"STATUS:COMPLETED", "X-A:1"}, []string{"PERCENT-COMPLETE"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := write(c.t, c.extra)
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("lacks %s:\n%s", w, body)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(body, w) {
					t.Errorf("holds %s:\n%s", w, body)
				}
			}
			if n := strings.Count(body, "\r\nSTATUS:"); n != c.statuses {
				t.Errorf("%d STATUS lines:\n%s", n, body)
			}
		})
	}
	// Through the store: a body open at PERCENT-COMPLETE:100 keeps no
	// 100 in its extra, a done one sent at 40 keeps 100.
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		open := strings.Replace(todoBody, "PERCENT-COMPLETE:40", "PERCENT-COMPLETE:100", 1)
		obj, _, _, _, _ := putBody(t, st, p, open)
		if strings.Contains(obj.Extra, "PERCENT-COMPLETE") || !strings.Contains(obj.Extra, "STATUS:IN-PROCESS") {
			t.Errorf("open to-do's extra:\n%s", obj.Extra)
		}
		closed := strings.Replace(todoBody, "STATUS:IN-PROCESS", "STATUS:COMPLETED", 1)
		obj, _, _, _, _ = putBody(t, st, p, closed)
		if !strings.Contains(obj.Extra, "PERCENT-COMPLETE:100") || strings.Contains(obj.Extra, "PERCENT-COMPLETE:40") {
			t.Errorf("done to-do's extra:\n%s", obj.Extra)
		}
		if body := unfold(getBody(t, st, p, "VTODO", obj.UID, obj.Extra)); !strings.Contains(body, "STATUS:COMPLETED") || !strings.Contains(body, "PERCENT-COMPLETE:100") {
			t.Errorf("the done to-do served:\n%s", body)
		}
	})
}
