package ics

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
)

var uidLine = regexp.MustCompile(`(?m)^UID:(.*)\r$`)

// exportUIDs exports p's calendar from st and returns it with its UIDs,
// failing the test when two items share one.
func exportUIDs(t *testing.T, st *store.Store, p store.Person) ([]byte, []string) {
	t.Helper()
	var out bytes.Buffer
	if err := Export(context.Background(), st, p, &out, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	var uids []string
	seen := map[string]bool{}
	for _, m := range uidLine.FindAllStringSubmatch(out.String(), -1) {
		if seen[m[1]] {
			t.Errorf("the export holds UID %s twice:\n%s", m[1], out.String())
		}
		seen[m[1]] = true
		uids = append(uids, m[1])
	}
	return out.Bytes(), uids
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
		add := func(st *store.Store, p store.Person, title string) {
			t.Helper()
			if _, err := st.Write(ctx, p.ID, "add_task", func(tx *store.Tx) error {
				_, err := tx.InsertTask(task.Task{Title: title, Priority: 4, Status: task.Open, CreatedAt: time.Now()})
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
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
// task (the first, as for VEVENTs), not a failed import; two without UID
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
			"END:VCALENDAR\r\n"
		for round, want := range []Counts{{Created: 3}, {Unchanged: 3}} {
			rep, err := Import(ctx, st, ann, strings.NewReader(file), ImportOptions{})
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if rep.Tasks != want {
				t.Errorf("round %d: %+v, want %+v", round, rep.Tasks, want)
			}
			var second bool
			for _, s := range rep.Skipped {
				second = second || (s.Line == 8 && s.UID == "same@x" && s.Reason == secondTask)
			}
			if !second {
				t.Errorf("round %d: the report does not say line 8 was left out: %+v", round, rep.Skipped)
			}
		}
		_, uids := exportUIDs(t, st, ann)
		if len(uids) != 3 {
			t.Errorf("the export: %v, want 3 UIDs", uids)
		}
		var titles []string
		rows, err := st.DB().QueryContext(ctx, `SELECT title FROM tasks WHERE owner_id = ? ORDER BY id`, ann.ID)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			titles = append(titles, s)
		}
		rows.Close()
		if strings.Join(titles, "|") != "first|Buy milk|Buy milk" {
			t.Errorf("tasks: %q", titles)
		}
	})
}
