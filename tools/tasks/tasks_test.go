package tasks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

func TestOwnership(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		id := h.add(t, h.paris, `{"title":"Secret plan","due":"2026-12-01","tags":["private"]}`)
		missing := "t999"
		before := h.counts(t)
		for _, tool := range []string{"get_task", "complete_task", "reopen_task", "delete_task"} {
			for _, who := range []string{id, missing} {
				res, _ := h.Call(h.ny, tool, fmt.Sprintf(`{"id":%q}`, who))
				if res.Code != tools.CodeNotFound || res.Err != "There is no task "+who+"." {
					t.Errorf("%s %s as bob: %d %q", tool, who, res.Code, res.TextOut())
				}
			}
		}
		res, _ := h.Call(h.ny, "update_task", fmt.Sprintf(`{"id":%q,"title":"mine now"}`, id))
		if res.Code != tools.CodeNotFound || res.Err != "There is no task "+id+"." {
			t.Errorf("update as bob: %d %q", res.Code, res.TextOut())
		}
		for _, raw := range []string{`{}`, `{"status":"all","query":"secret"}`, `{"tag":"private"}`} {
			out := h.ok(t, h.ny, "list_tasks", raw)
			if strings.Contains(out, "Secret") || !strings.HasPrefix(out, "No ") {
				t.Errorf("bob's list %s shows: %s", raw, out)
			}
		}
		if after := h.counts(t); after != before {
			t.Fatalf("bob's calls changed the database:\n%s\n%s", before, after)
		}
		// The same title and due for bob is no duplicate of ada's task.
		var d written
		d, _ = h.write(t, h.ny, "add_task", `{"title":"Secret plan","due":"2026-12-01"}`)
		if d.Existing || d.Task.ID == id {
			t.Fatalf("bob got ada's task back: %+v", d)
		}
		if got := h.task(t, h.paris, id); got.Title != "Secret plan" || got.Status != "open" {
			t.Fatalf("ada's task changed: %+v", got)
		}
	})
}

// At 21:30 in New York it is already the next day in UTC; a task due that
// New York day is still due today, not overdue.
func TestTodayIsThePersonsDay(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Time{})
		h.At("America/New_York", "2026-03-20T09:00")
		today := h.add(t, h.ny, `{"title":"File taxes","due":"2026-03-20"}`)
		yesterday := h.add(t, h.ny, `{"title":"Old","due":"2026-03-19"}`)
		tomorrow := h.add(t, h.ny, `{"title":"Next","due":"2026-03-21"}`)
		h.At("America/New_York", "2026-03-20T21:30")
		if h.Now.UTC().Day() != 21 {
			t.Fatal("the test needs UTC to be on the next day")
		}
		want := map[string]string{today: "today", yesterday: "overdue 1 day (Thu 2026-03-19)", tomorrow: "tomorrow"}
		for id, standing := range want {
			if got := h.task(t, h.ny, id); got.Standing != standing || got.Overdue != strings.HasPrefix(standing, "overdue") {
				t.Errorf("%s: %q overdue=%v, want %q", id, got.Standing, got.Overdue, standing)
			}
		}
		out := h.ok(t, h.ny, "list_tasks", `{"from":"2026-03-20","to":"2026-03-20"}`)
		if !strings.Contains(out, today+" · today · File taxes") || strings.Contains(out, "Old") || strings.Contains(out, "Next") {
			t.Fatalf("today's window in New York:\n%s", out)
		}
	})
}

func TestIdempotencyKey(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		raw := `{"title":"Book flights","due":"2026-12-05","key":"k-1"}`
		var first, again written
		h.data(t, p, "add_task", raw, &first)
		h.Now = h.Now.Add(30 * time.Minute) // past the duplicate window: only the key matches
		before := h.counts(t)
		out := h.data(t, p, "add_task", `{"title":" Book flights ","due":"20261205","key":"k-1"}`, &again)
		if !again.Existing || again.Task.ID != first.Task.ID || !strings.Contains(out, "“key”") {
			t.Fatalf("the same key and arguments did not return the first task: %s", out)
		}
		if h.counts(t) != before {
			t.Fatal("a replay wrote")
		}
		res, _ := h.Call(p, "add_task", `{"title":"Book hotel","due":"2026-12-05","key":"k-1"}`)
		if res.Code != tools.CodeConflict || !strings.Contains(res.Err, "“key” “k-1” was already used for "+first.Task.ID) {
			t.Fatalf("a reused key with other arguments: %d %s", res.Code, res.TextOut())
		}
		if h.counts(t) != before {
			t.Fatal("a conflict wrote")
		}
		// The key of another person is another key.
		var bob written
		h.data(t, h.ny, "add_task", raw, &bob)
		if bob.Existing {
			t.Fatal("bob's call matched ada's key")
		}
	})
}

func TestDuplicateWindow(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		var first, d written
		h.data(t, p, "add_task", `{"title":"Buy milk","due":"2026-12-01"}`, &first)
		h.Now = h.Now.Add(4 * time.Minute)
		d, out := h.write(t, p, "add_task", `{"title":"buy   MILK!","due":"2026-12-01"}`)
		if !d.Existing || d.Task.ID != first.Task.ID || !strings.Contains(out, "4 minutes ago") || !strings.Contains(out, "allow_duplicate") {
			t.Fatalf("no duplicate found: %s", out)
		}
		for _, raw := range []string{
			`{"title":"Buy milk","due":"2026-12-02"}`,                        // another due
			`{"title":"Buy milk","due":"2026-12-01T09:00"}`,                  // a time is another due
			`{"title":"Buy milk","due":"2026-12-01","allow_duplicate":true}`, // asked for
		} {
			d, _ = h.write(t, p, "add_task", raw)
			if d.Existing {
				t.Errorf("%s returned the existing task", raw)
			}
		}
		h.Now = h.Now.Add(7 * time.Minute) // 11 minutes after the first
		d, _ = h.write(t, p, "add_task", `{"title":"Buy milk","due":"2026-12-02T10:00"}`)
		h.Now = h.Now.Add(11 * time.Minute)
		d, _ = h.write(t, p, "add_task", `{"title":"Buy milk","due":"2026-12-02T10:00"}`)
		if d.Existing {
			t.Fatal("the window is 10 minutes")
		}
	})
}

func TestUndo(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		id := h.add(t, p, `{"title":"Water plants","due":"2026-11-30T09:00","rrule":"FREQ=DAILY"}`)
		added := h.task(t, p, id)

		// undo of complete puts the due back and takes the completion away
		h.Now = h.Now.Add(2 * time.Hour)
		res, call := h.Call(p, "complete_task", fmt.Sprintf(`{"id":%q}`, id))
		ch, ok := tools.Result[tools.Changed](call)
		if !res.OK() || !ok || ch.Change == "" || ch.Items[0] != id {
			t.Fatalf("complete did not report its change: %+v %v", res, ok)
		}
		if got := h.task(t, p, id); got.Due != "2026-12-01T09:00" || got.Done != 1 {
			t.Fatalf("after complete: %+v", got)
		}
		h.ok(t, p, "undo", `{}`)
		if got := h.task(t, p, id); got.Due != added.Due || got.Done != 0 || got.Status != "open" {
			t.Fatalf("undo of complete: %+v", got)
		}

		// undo of update
		h.ok(t, p, "update_task", fmt.Sprintf(`{"id":%q,"title":"Water the ferns","priority":1,"clear":["rrule"],"due":"2026-12-24"}`, id))
		h.ok(t, p, "undo", `{}`)
		if got := h.task(t, p, id); got.Title != added.Title || got.Priority != 4 || got.RRule != added.RRule || got.Due != added.Due {
			t.Fatalf("undo of update: %+v", got)
		}

		// undo of add
		res0, _ := h.Call(p, "undo", `{}`)
		if !res0.OK() {
			t.Fatal(res0.TextOut())
		}
		res, _ = h.Call(p, "get_task", fmt.Sprintf(`{"id":%q}`, id))
		if res.Code != tools.CodeNotFound {
			t.Fatalf("undo of add left the task: %s", res.TextOut())
		}
		// undoing the undo brings it back
		var undid struct{ Change string }
		if err := json.Unmarshal(res0.Data, &undid); err != nil || undid.Change == "" {
			t.Fatalf("undo Data %s", res0.Data)
		}
		h.ok(t, p, "undo", fmt.Sprintf(`{"change":%q}`, undid.Change))
		if got := h.task(t, p, id); got.Title != added.Title {
			t.Fatalf("redo of add: %+v", got)
		}
	})
}

func TestUpdateFields(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		id := h.add(t, p, `{"title":"Plan trip","notes":"Lisbon?","due":"2026-12-10","tags":["travel","Fun"],"priority":2,"remind_before":[60]}`)
		var d written
		d, _ = h.write(t, p, "update_task", fmt.Sprintf(`{"id":%q,"add_tags":["#fun","budget"],"remove_tags":["TRAVEL"],"notes":"","title":null}`, id))
		if got := strings.Join(d.Task.Tags, ","); got != "Fun,budget" || d.Task.Notes != "Lisbon?" || d.Task.Title != "Plan trip" {
			t.Fatalf("tags and absent fields: %+v", d.Task)
		}
		d, _ = h.write(t, p, "update_task", fmt.Sprintf(`{"id":%q,"clear":["notes","tags","priority","remind_before","due"]}`, id))
		if d.Task.Notes != "" || len(d.Task.Tags) != 0 || d.Task.Priority != 4 || len(d.Task.RemindBefore) != 0 || d.Task.Due != "" {
			t.Fatalf("clear: %+v", d.Task)
		}
		d, out := h.write(t, p, "update_task", fmt.Sprintf(`{"id":%q,"due":"2026-12-11T08:30[America/New_York]","rrule":"RRULE:FREQ=MONTHLY;BYMONTHDAY=-1","remind_at":["2026-12-11T07:00"]}`, id))
		if d.Task.DueZone != "America/New_York" || d.Task.DueAt != "2026-12-11T08:30:00-05:00" || d.Task.RRule != "FREQ=MONTHLY;BYMONTHDAY=-1" ||
			d.Task.RepeatFrom != "schedule" || d.Task.RemindAt[0] != "2026-12-11T07:00" {
			t.Fatalf("pinned due and rule: %+v", d.Task)
		}
		if !strings.Contains(out, "14:30 (+01:00) = 08:30 America/New_York") {
			t.Fatalf("the answer does not show both clocks: %s", out)
		}
		// the same values again change nothing and journal nothing
		before := h.counts(t)
		out = h.ok(t, p, "update_task", fmt.Sprintf(`{"id":%q,"title":"Plan trip"}`, id))
		if !strings.Contains(out, "Nothing changed") || h.counts(t) != before {
			t.Fatalf("a no-op update wrote: %s", out)
		}
	})
}

// Reopening a repeating task that a completion moved on changes nothing
// (it is open) and says how to take that completion back, not merely
// that it is open.
func TestReopenRepeatingSaysUndo(t *testing.T) {
	h := newHarness(t, time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC))
	p := h.paris
	id := h.add(t, p, `{"title":"Water","due":"2026-12-05T18:00","rrule":"FREQ=DAILY;INTERVAL=3","repeat_from":"completion"}`)
	if out := h.ok(t, p, "reopen_task", fmt.Sprintf(`{"id":%q}`, id)); !strings.Contains(out, "already open; nothing changed") {
		t.Errorf("reopen before any completion: %s", out)
	}
	h.ok(t, p, "complete_task", fmt.Sprintf(`{"id":%q}`, id))
	before := h.counts(t)
	out := h.ok(t, p, "reopen_task", fmt.Sprintf(`{"id":%q}`, id))
	if !strings.Contains(out, "it repeats") || !strings.Contains(out, "undo its change") || h.counts(t) != before || h.task(t, p, id).Done != 1 {
		t.Errorf("reopen after a completion: %s", out)
	}
}

func TestCompleteReopenDelete(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		id := h.add(t, p, `{"title":"Send card","due":"2026-12-01"}`)
		var d written
		d, out := h.write(t, p, "complete_task", fmt.Sprintf(`{"id":%q}`, id))
		if d.Task.Status != "done" || d.Task.CompletedAt != "2026-11-30T09:00:00+01:00" || !strings.HasPrefix(out, "Done: "+id) {
			t.Fatalf("complete: %s %+v", out, d.Task)
		}
		before := h.counts(t)
		out = h.ok(t, p, "complete_task", fmt.Sprintf(`{"id":%q}`, id))
		if !strings.Contains(out, "already done") || h.counts(t) != before {
			t.Fatalf("completing twice: %s", out)
		}
		if got := h.ok(t, p, "list_tasks", `{"status":"done"}`); !strings.Contains(got, id+" · done Mon 2026-11-30 · Send card") {
			t.Fatalf("done list: %s", got)
		}
		d, _ = h.write(t, p, "reopen_task", fmt.Sprintf(`{"id":%q}`, id))
		if d.Task.Status != "open" || d.Task.CompletedAt != "" || h.task(t, p, id).Done != 0 {
			t.Fatalf("reopen: %+v", d.Task)
		}
		if out := h.ok(t, p, "reopen_task", fmt.Sprintf(`{"id":%q}`, id)); !strings.Contains(out, "already open") {
			t.Fatal(out)
		}
		h.ok(t, p, "delete_task", fmt.Sprintf(`{"id":%q}`, id))
		res, _ := h.Call(p, "delete_task", fmt.Sprintf(`{"id":%q}`, id))
		if res.Code != tools.CodeNotFound || res.Err != "There is no task "+id+"." {
			t.Fatalf("deleting twice: %s", res.TextOut())
		}
		if out := h.ok(t, p, "list_tasks", `{"status":"all"}`); out != "No tasks." {
			t.Fatalf("a deleted task is listed: %s", out)
		}
	})
}

func TestListOrderFiltersAndPages(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Time{})
		p := h.paris
		h.At("Europe/Paris", "2026-11-30T10:00") // Mon
		for _, raw := range []string{
			`{"title":"No due, urgent","priority":1}`,                             // t1
			`{"title":"Friday","due":"2026-12-04"}`,                               // t2
			`{"title":"Today evening","due":"2026-11-30T17:00"}`,                  // t3
			`{"title":"Today morning","due":"2026-11-30T08:00"}`,                  // t4: passed
			`{"title":"Overdue","due":"2026-11-28","tags":["Home"]}`,              // t5
			`{"title":"Tomorrow p1","due":"2026-12-01","priority":1}`,             // t6
			`{"title":"Tomorrow p3","due":"2026-12-01","priority":3}`,             // t7
			`{"title":"Café","notes":"ask about the MILK order","tags":["home"]}`, // t8
		} {
			h.add(t, p, raw)
		}
		out := h.ok(t, p, "list_tasks", `{}`)
		golden(t, "list.golden", out+"\n")
		order := func(out string) string {
			var ids []string
			for _, l := range strings.Split(out, "\n")[1:] {
				if id, _, ok := strings.Cut(l, " · "); ok {
					ids = append(ids, id)
				}
			}
			return strings.Join(ids, ",")
		}
		if got := order(out); got != "t5,t4,t3,t6,t7,t2,t1,t8" {
			t.Fatalf("order %s:\n%s", got, out)
		}
		for _, c := range []struct{ raw, want string }{
			{`{"tag":"#HOME"}`, "t5,t8"},
			{`{"query":"milk"}`, "t8"},
			{`{"query":"CAFÉ"}`, "t8"},
			{`{"from":"2026-12-01"}`, "t6,t7,t2"},
			{`{"to":"2026-11-30"}`, "t5,t4,t3"},
			{`{"from":"2026-11-30T12:00","to":"2026-12-01"}`, "t3,t6,t7"},
			{`{"limit":3}`, "t5,t4,t3"},
		} {
			if got := order(h.ok(t, p, "list_tasks", c.raw)); got != c.want {
				t.Errorf("list %s = %s, want %s", c.raw, got, c.want)
			}
		}
		var page struct {
			Tasks      []taskData
			Total      int
			Exact      bool `json:"total_exact"`
			Offset     int
			NextCursor string `json:"next_cursor"`
		}
		// The pages through the cursors: 1–3, 4–6, 7–8.
		var got []string
		cursor := ""
		for i, want := range []string{"8 open tasks; 1–3 shown:", "8 open tasks; 4–6 shown:", "8 open tasks; 7–8 shown:"} {
			raw := `{"limit":3}`
			if cursor != "" {
				raw = fmt.Sprintf(`{"limit":3,"cursor":%q}`, cursor)
			}
			out = h.data(t, p, "list_tasks", raw, &page)
			if page.Total != 8 || !page.Exact || page.Offset != 3*i || !strings.HasPrefix(out, want) ||
				(i < 2) != (page.NextCursor != "") || page.NextCursor != "" && !strings.Contains(out, "cursor “"+page.NextCursor+"”") {
				t.Fatalf("page %d: %+v\n%s", i, page, out)
			}
			got = append(got, order(out))
			cursor = page.NextCursor
		}
		if strings.Join(got, ",") != "t5,t4,t3,t6,t7,t2,t1,t8" {
			t.Errorf("the pages list %s", got)
		}
	})
}

// The worst page: the most rows, each with the longest title of 4-byte
// characters and the most and longest tags. It must fit a model turn, and
// the rows left out must come on the next pages.
func TestListWorstCaseNeverSpills(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		tags := make([]string, MaxTags)
		for i := range tags {
			tags[i] = fmt.Sprintf("%02d", i) + strings.Repeat("𝄞", MaxTag-2)
		}
		tj, _ := json.Marshal(tags)
		n := MaxLimit + 5
		for i := range n {
			title := fmt.Sprintf("%03d", i) + strings.Repeat("𝄞", MaxTitle-3)
			h.add(t, p, fmt.Sprintf(`{"title":%q,"due":"2026-11-%02dT23:59[Pacific/Kiritimati]","priority":1,"tags":%s,"rrule":"FREQ=MONTHLY;BYDAY=1MO,2TU,3WE,-1TH,-2FR;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,-1,-2,-3;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12","repeat_from":"schedule","allow_duplicate":true}`,
				title, 1+i%28, tj))
		}
		seen := 0
		cursor := ""
		for pages := 0; seen < n; pages++ {
			raw := fmt.Sprintf(`{"limit":%d,"tag":%q,"query":%q}`, MaxLimit, tags[0], strings.Repeat("𝄞", 20))
			if cursor != "" {
				raw = fmt.Sprintf(`{"limit":%d,"cursor":%q,"tag":%q,"query":%q}`, MaxLimit, cursor, tags[0], strings.Repeat("𝄞", 20))
			}
			res, _ := h.Call(p, "list_tasks", raw)
			if !res.OK() || len(res.Out) > tools.ModelLimit || res.Spill(tools.ModelLimit).DidSpill {
				t.Fatalf("page %d: %d bytes, code %d", pages, len(res.Out), res.Code)
			}
			var d struct {
				Tasks      []taskData
				NextCursor string `json:"next_cursor"`
			}
			if err := json.Unmarshal(res.Data, &d); err != nil {
				t.Fatal(err)
			}
			if len(d.Tasks) == 0 || pages > n {
				t.Fatalf("page %d is empty", pages)
			}
			seen += len(d.Tasks)
			t.Logf("page %d: %d rows, %d bytes", pages, len(d.Tasks), len(res.Out))
			cursor = d.NextCursor
			if cursor == "" {
				break
			}
		}
		if seen != n {
			t.Fatalf("pages held %d tasks of %d", seen, n)
		}
		// A page of ordinary tasks is a full page of the default size.
		h2 := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		for i := range DefaultLimit + 1 {
			h2.add(t, h2.paris, fmt.Sprintf(`{"title":"Task %d","due":"2026-12-01"}`, i))
		}
		var d struct{ Tasks []taskData }
		h2.data(t, h2.paris, "list_tasks", `{}`, &d)
		if len(d.Tasks) != DefaultLimit {
			t.Fatalf("default page holds %d", len(d.Tasks))
		}
	})
}

// Past [TotalCap] the count says "more than"; the last page knows where the
// listing ends, so it gives the whole count, exact.
func TestListPastTheCountCap(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		n := TotalCap + 30
		for i := range n {
			h.add(t, p, fmt.Sprintf(`{"title":"task %d"}`, i))
		}
		var page struct {
			Total      int
			Exact      bool `json:"total_exact"`
			Offset     int
			Tasks      []taskData
			NextCursor string `json:"next_cursor"`
		}
		raw, seen := fmt.Sprintf(`{"limit":%d}`, MaxLimit), 0
		for {
			out := h.data(t, p, "list_tasks", raw, &page)
			seen += len(page.Tasks)
			if page.NextCursor == "" {
				want := fmt.Sprintf("%d open tasks; %d–%d shown:", n, page.Offset+1, n)
				if page.Total != n || !page.Exact || seen != n || !strings.HasPrefix(out, want) {
					t.Fatalf("last page: total %d exact %v, %d seen:\n%.200s\nwant %q", page.Total, page.Exact, seen, out, want)
				}
				break
			}
			want := fmt.Sprintf("more than %d open tasks; %d–%d shown:", TotalCap, page.Offset+1, page.Offset+len(page.Tasks))
			if page.Total != TotalCap || page.Exact || !strings.HasPrefix(out, want) {
				t.Fatalf("page at %d: total %d exact %v:\n%.200s\nwant %q", page.Offset, page.Total, page.Exact, out, want)
			}
			raw = fmt.Sprintf(`{"limit":%d,"cursor":%q}`, MaxLimit, page.NextCursor)
		}
	})
}
