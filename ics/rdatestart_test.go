package ics

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// TestRDateOfStartDropped: an RDATE that names DTSTART's own occurrence
// (as the export writes one for a DTSTART off its rule) is not kept, in
// any of the forms it can be written in; another RDATE is.
func TestRDateOfStartDropped(t *testing.T) {
	cases := []struct {
		start, rdate string
		kept         int
	}{
		{"DTSTART;TZID=Europe/Paris:20261020T090000", "RDATE;TZID=Europe/Paris:20261020T090000", 0},
		{"DTSTART;TZID=Europe/Paris:20261020T090000", "RDATE:20261020T070000Z", 0},
		{"DTSTART;TZID=Europe/Paris:20261020T090000", "RDATE;VALUE=DATE:20261020", 0},
		{"DTSTART;TZID=Europe/Paris:20261020T090000", "RDATE;TZID=Europe/Paris:20261020T090000,20261024T090000", 1},
		{"DTSTART;TZID=Europe/Paris:20261020T090000", "RDATE:20261020T090000Z", 1},
		{"DTSTART;VALUE=DATE:20261020", "RDATE;VALUE=DATE:20261020", 0},
		{"DTSTART;VALUE=DATE:20261020", "RDATE;VALUE=DATE:20261022", 1},
		{"DTSTART:20261020T090000", "RDATE:20261020T090000", 0},
	}
	for _, c := range cases {
		file := strings.Join([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN", "BEGIN:VEVENT", "UID:u1", "DTSTAMP:20260101T000000Z",
			c.start, c.rdate, "RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=3", "SUMMARY:S", "END:VEVENT", "END:VCALENDAR", ""}, "\r\n")
		cal := DecodeBytes([]byte(file), DecodeOptions{Zone: tz.MustZone("Europe/Berlin")})
		if len(cal.Events) != 1 {
			t.Fatalf("%s %s: %d events, skipped %+v", c.start, c.rdate, len(cal.Events), cal.Skipped)
		}
		if got := cal.Events[0].RDates; len(got) != c.kept {
			t.Errorf("%s %s: RDATEs kept %v, want %d", c.start, c.rdate, got, c.kept)
		}
		ins := cal.Instances("u1", cal.Events[0].Start.Date.At(0, 0).AsUTC().AddDate(0, 0, -1), cal.Events[0].Start.Date.At(0, 0).AsUTC().AddDate(0, 1, 0))
		if want := 3 + c.kept; len(ins) != want {
			t.Errorf("%s %s: %d occurrences, want %d", c.start, c.rdate, len(ins), want)
			for _, in := range ins {
				t.Logf("%v %v", in.Original, in.Start)
			}
		}
	}
}

// TestReimportOffRuleUnchanged: the export of series whose DTSTART is off
// their rule (COUNT written as UNTIL, DTSTART as an RDATE) imported back
// for the same person changes nothing, and the stored rules keep COUNT.
func TestReimportOffRuleUnchanged(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		st, p := openStore(t)
		file := strings.Join([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN",
			"BEGIN:VEVENT", "UID:w1", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Europe/Paris:20261020T090000", "DTEND;TZID=Europe/Paris:20261020T093000",
			"RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=5", "SUMMARY:W", "END:VEVENT",
			"BEGIN:VEVENT", "UID:d1", "DTSTAMP:20260101T000000Z", "DTSTART;VALUE=DATE:20261212",
			"RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;COUNT=4", "SUMMARY:D", "END:VEVENT",
			"END:VCALENDAR", ""}, "\r\n")
		if _, err := Import(ctx, st, p, strings.NewReader(file), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := Export(ctx, st, p, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "UNTIL=") || strings.Contains(out.String(), "COUNT=") {
			t.Fatalf("the export does not write COUNT as UNTIL:\n%s", out.String())
		}
		rep, err := Import(ctx, st, p, bytes.NewReader(out.Bytes()), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events != (Counts{Unchanged: 2}) || rep.Change != "" {
			t.Errorf("re-import of the export: %+v, change %q; want both unchanged", rep.Events, rep.Change)
		}
		var n int
		if err := st.DB().QueryRow(`SELECT COUNT(*) FROM events WHERE owner_id = ? AND rrule LIKE '%COUNT=%'`, p.ID).Scan(&n); err != nil || n != 2 {
			t.Errorf("%d stored rules keep COUNT (%v), want 2", n, err)
		}
	})
}

// TestReimportMadeTasksUnchanged: tasks the tools made (no UID of their
// own, exported as "t<ID>@assistant"), one done at a time with seconds,
// imported back from the person's own export are the same tasks, and
// nothing changes; they were added again before.
func TestReimportMadeTasksUnchanged(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		st, p := openStore(t)
		done := time.Date(2026, 12, 7, 14, 24, 14, 0, time.UTC)
		if _, err := st.Write(ctx, p.ID, "add_task", func(tx *store.Tx) error {
			for _, tk := range []task.Task{
				{Title: "plain", Priority: 4, Status: task.Open, CreatedAt: done},
				{Title: "done", Priority: 2, Status: task.Done, CompletedAt: done, CreatedAt: done},
			} {
				if _, err := tx.InsertTask(tk); err != nil {
					return err
				}
			}
			tx.Summarize("added two")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := Export(ctx, st, p, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "UID:t1@assistant") || !strings.Contains(out.String(), "COMPLETED:20261207T142414Z") {
			t.Fatalf("the export:\n%s", out.String())
		}
		rep, err := Import(ctx, st, p, bytes.NewReader(out.Bytes()), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Tasks != (Counts{Unchanged: 2}) || rep.Change != "" {
			t.Errorf("re-import of the export: %+v, change %q; want both unchanged", rep.Tasks, rep.Change)
		}
		if n := countRows(t, st, p.ID, "tasks"); n != 2 {
			t.Errorf("%d tasks after the re-import, want 2", n)
		}
	})
}

// TestImportOtherDatabaseMadeTasks: the export of tasks made by the tools
// in one database ("t1@assistant") imported into another, whose own t1 is
// another task, adds them and leaves that t1 as it was; only a task of the
// same number and title is taken for the same one.
func TestImportOtherDatabaseMadeTasks(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		add := func(st *store.Store, p store.Person, title string) { addMadeTask(t, st, p, title) }
		src, ann := openStore(t)
		add(src, ann, "one from elsewhere")
		var out bytes.Buffer
		if err := Export(ctx, src, ann, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "UID:t1@assistant") {
			t.Fatalf("the task is not exported as t1@assistant:\n%s", out.String())
		}
		dst, bob := openStore(t)
		add(dst, bob, "local first")
		rep, err := Import(ctx, dst, bob, bytes.NewReader(out.Bytes()), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Tasks != (Counts{Created: 1}) {
			t.Errorf("import of another database's export: %+v, want 1 created", rep.Tasks)
		}
		if titles := taskTitles(t, dst, bob); strings.Join(titles, "|") != "local first|one from elsewhere" {
			t.Errorf("bob's tasks: %q, want the local one kept and the other added", titles)
		}
	})
}
