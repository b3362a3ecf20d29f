package ics

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
)

var uidLine = regexp.MustCompile(`(?m)^UID:(.*)\r$`)

// exportUIDs exports p's calendar from st and returns it with its UIDs
// (those of changed occurrences, which share their series', left out),
// failing the test when two items share one.
func exportUIDs(t *testing.T, st *store.Store, p store.Person) ([]byte, []string) {
	t.Helper()
	var out bytes.Buffer
	if err := Export(context.Background(), st, p, &out, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	var uids []string
	seen := map[string]bool{}
	var items []string // the VEVENTs and VTODOs but changed occurrences
	for _, c := range strings.Split(out.String(), "\r\nBEGIN:")[1:] {
		if (strings.HasPrefix(c, "VEVENT") || strings.HasPrefix(c, "VTODO")) && !strings.Contains(c, "\r\nRECURRENCE-ID") {
			items = append(items, c)
		}
	}
	for _, m := range uidLine.FindAllStringSubmatch(strings.Join(items, "\r\n"), -1) {
		if seen[m[1]] {
			t.Errorf("the export holds UID %s twice:\n%s", m[1], out.String())
		}
		seen[m[1]] = true
		uids = append(uids, m[1])
	}
	return out.Bytes(), uids
}

// addMadeTask adds a task of title for p as tasks were made before they
// had UIDs of their own (exported as "t<ID>@assistant").
func addMadeTask(t *testing.T, st *store.Store, p store.Person, title string) {
	t.Helper()
	if _, err := st.Write(context.Background(), p.ID, "add_task", func(tx *store.Tx) error {
		_, err := tx.InsertTask(task.Task{Title: title, Priority: 4, Status: task.Open, CreatedAt: time.Now()})
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// taskTitles lists the titles of p's tasks in st, deleted ones too, by id.
func taskTitles(t *testing.T, st *store.Store, p store.Person) []string {
	t.Helper()
	rows, err := st.DB().QueryContext(context.Background(), `SELECT title FROM tasks WHERE owner_id = ? ORDER BY id`, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var titles []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		titles = append(titles, s)
	}
	return titles
}

// TestMadeUIDsStayUnique: a task the tools made is exported as
// "t<ID>@assistant"; another database's export names its own tasks so.
// Imported, such a task is kept under "t<ID>.<hash of its title>.imported@assistant"
// (said in the report), so it never shares a UID with this database's task of
// that number, made before or after; the same file again changes
// nothing, and a file of the result imports anywhere.
func TestMadeUIDsStayUnique(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		add := func(st *store.Store, p store.Person, title string) { addMadeTask(t, st, p, title) }
		src, ann := openStore(t)
		for _, title := range []string{"alpha", "beta", "gamma", "delta"} {
			add(src, ann, title)
		}
		file, uids := exportUIDs(t, src, ann)
		if strings.Join(uids, " ") != "t1@assistant t2@assistant t3@assistant t4@assistant" {
			t.Fatalf("the source's UIDs: %v", uids)
		}

		dst, bob := openStore(t)
		add(dst, bob, "local one")
		rep, err := Import(ctx, dst, bob, bytes.NewReader(file), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Tasks != (Counts{Created: 4}) {
			t.Errorf("first import: %+v, want 4 created", rep.Tasks)
		}
		said := 0
		for _, r := range rep.Repaired {
			if r.Component == "VTODO" && strings.Contains(r.Reason, ".imported@assistant") {
				said++
			}
		}
		if said != 4 {
			t.Errorf("the report says %d of 4 UIDs kept otherwise: %+v", said, rep.Repaired)
		}
		// Tasks bob makes afterwards take the numbers the file named.
		for _, title := range []string{"later 1", "later 2", "later 3", "later 4", "later 5"} {
			add(dst, bob, title)
		}
		again, err := Import(ctx, dst, bob, bytes.NewReader(file), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if again.Tasks != (Counts{Unchanged: 4}) {
			t.Errorf("the same file again: %+v, want 4 unchanged", again.Tasks)
		}
		mixed, uids := exportUIDs(t, dst, bob)
		if len(uids) != 10 {
			t.Errorf("bob's export holds %d UIDs, want 10: %v", len(uids), uids)
		}
		// Bob's own export back into his database is his own tasks.
		own, err := Import(ctx, dst, bob, bytes.NewReader(mixed), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if own.Tasks != (Counts{Unchanged: 10}) {
			t.Errorf("bob's own export back: %+v, want 10 unchanged", own.Tasks)
		}
		// Into a third database: every task, no error.
		third, carl := openStore(t)
		rep3, err := Import(ctx, third, carl, bytes.NewReader(mixed), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep3.Tasks != (Counts{Created: 10}) {
			t.Errorf("into a third database: %+v, want 10 created", rep3.Tasks)
		}
		exportUIDs(t, third, carl)

		// Nothing stores a UID of the form itself.
		_, err = dst.Write(ctx, bob.ID, "add_task", func(tx *store.Tx) error {
			_, err := tx.InsertTask(task.Task{Title: "squat", Priority: 4, Status: task.Open, UID: "t77@assistant", CreatedAt: time.Now()})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "t<number>@assistant") {
			t.Errorf("a task inserted with UID t77@assistant: %v, want a refusal", err)
		}
	})
}

// TestImportTasksOfOneUID: two VTODOs of a file with one UID are one
// task (the first, as for VEVENTs), not a failed import, also when the
// UID is another database's "t7@assistant" (kept otherwise by title); two without UID
// that say the same are two tasks, each with a UID of its own that is the
// same on the next import.
func TestImportTasksOfOneUID(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		st, ann := openStore(t)
		file := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\n" +
			"BEGIN:VTODO\r\nUID:same@x\r\nSUMMARY:first\r\nEND:VTODO\r\n" +
			"BEGIN:VTODO\r\nUID:same@x\r\nSUMMARY:second\r\nEND:VTODO\r\n" +
			"BEGIN:VTODO\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\n" +
			"BEGIN:VTODO\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\n" +
			"BEGIN:VTODO\r\nUID:t7@assistant\r\nSUMMARY:Seven\r\nEND:VTODO\r\n" +
			"BEGIN:VTODO\r\nUID:t7@assistant\r\nSUMMARY:Seven other\r\nEND:VTODO\r\n" +
			"END:VCALENDAR\r\n"
		for round, want := range []Counts{{Created: 4}, {Unchanged: 4}} {
			rep, err := Import(ctx, st, ann, strings.NewReader(file), ImportOptions{})
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if rep.Tasks != want {
				t.Errorf("round %d: %+v, want %+v", round, rep.Tasks, want)
			}
			var second, seventh bool
			for _, s := range rep.Skipped {
				second = second || (s.Line == 8 && s.UID == "same@x" && s.Reason == secondTask)
				seventh = seventh || (s.Line == 22 && s.UID == "t7@assistant" && s.Reason == secondTask)
			}
			if !second || !seventh {
				t.Errorf("round %d: the report does not say lines 8 and 22 were left out: %+v", round, rep.Skipped)
			}
		}
		_, uids := exportUIDs(t, st, ann)
		if len(uids) != 4 {
			t.Errorf("the export: %v, want 4 UIDs", uids)
		}
		if titles := taskTitles(t, st, ann); strings.Join(titles, "|") != "first|Buy milk|Buy milk|Seven" {
			t.Errorf("tasks: %q", titles)
		}
	})
}

// TestMadeUIDEvents: a VEVENT with the UID form of a made task
// ("t1@assistant") is kept as "t1.imported@assistant", its changed
// occurrences with it, said in the report, so the export never shares the
// UID with task t1; the same file again changes nothing.
func TestMadeUIDEvents(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		st, ann := openStore(t)
		addMadeTask(t, st, ann, "made here")
		file := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\n" +
			"BEGIN:VEVENT\r\nUID:t1@assistant\r\nDTSTART:20261207T090000Z\r\nRRULE:FREQ=DAILY;COUNT=3\r\nSUMMARY:Standup\r\nEND:VEVENT\r\n" +
			"BEGIN:VEVENT\r\nUID:t1@assistant\r\nRECURRENCE-ID:20261208T090000Z\r\nDTSTART:20261208T100000Z\r\nSUMMARY:Standup late\r\nEND:VEVENT\r\n" +
			"END:VCALENDAR\r\n"
		for round, want := range []Counts{{Created: 1}, {Unchanged: 1}} {
			rep, err := Import(ctx, st, ann, strings.NewReader(file), ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Events != want || rep.Overrides.Created+rep.Overrides.Unchanged != 1 {
				t.Errorf("round %d: events %+v, changed occurrences %+v; want %+v and one", round, rep.Events, rep.Overrides, want)
			}
			said := false
			for _, r := range rep.Repaired {
				said = said || (r.Component == "VEVENT" && strings.Contains(r.Reason, "kept as t1.imported@assistant"))
			}
			if !said {
				t.Errorf("round %d: the report does not say the UID was kept otherwise: %+v", round, rep.Repaired)
			}
		}
		out, uids := exportUIDs(t, st, ann)
		if !slices.Contains(uids, "t1@assistant") || !slices.Contains(uids, "t1.imported@assistant") {
			t.Errorf("export UIDs %v, want t1@assistant (the task) and t1.imported@assistant (the event)", uids)
		}
		if !strings.Contains(string(out), "SUMMARY:Standup late") {
			t.Errorf("the changed occurrence did not come along:\n%s", out)
		}
	})
}
