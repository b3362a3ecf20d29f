package reminders_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/remind"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/reminders"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const paris = "Europe/Paris"

// world is a store with the task, event, snooze and journal tools, ada in
// Paris with a task due at 10:00 reminded 15 minutes before, and the
// reminders job writing JSON lines to out.
type world struct {
	*tooltest.Env
	t   *testing.T
	ada tools.Person
	eng *remind.Engine
	out bytes.Buffer
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, Env: tooltest.Open(t, time.Time{}, tasks.Register, events.Register, reminders.Register, changes.Register)}
	w.At(paris, "2026-10-05T08:00")
	w.ada = w.Person("ada", paris)
	w.ok("add_task", `{"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15]}`)
	var err error
	w.eng, err = remind.New(remind.Options{Store: w.Store, Notifiers: []remind.Notifier{&remind.Lines{W: &w.out}},
		Now: func() time.Time { return w.Now }})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// ok calls a tool as ada and fails the test unless it succeeded.
func (w *world) ok(tool, raw string) tools.ExecResult {
	w.t.Helper()
	res, _ := w.Call(w.ada, tool, raw)
	if !res.OK() {
		w.t.Fatalf("%s %s: %s", tool, raw, res.Err)
	}
	return res
}

// sent passes at the Paris civil time and returns the delivery ids sent.
func (w *world) sent(civil string) []string {
	w.t.Helper()
	w.At(paris, civil)
	if _, err := w.eng.Pass(w.Ctx); err != nil {
		w.t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(w.out.String()), "\n") {
		var m remind.Message
		if line != "" && json.Unmarshal([]byte(line), &m) == nil {
			ids = append(ids, m.DeliveryID)
		}
	}
	w.out.Reset()
	return ids
}

// snooze puts off the reminder that went out by the delivery id, by the
// task's id, with a length, and until a relative moment; the answer says
// when in the person's zone and the change, and undo takes it back.
func TestSnooze(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		w := newWorld(t)
		first := w.sent("2026-10-05T09:45")
		if len(first) != 1 {
			t.Fatalf("first send: %v", first)
		}
		root := first[0]
		w.At(paris, "2026-10-05T09:46")
		res := w.ok("snooze", `{"id":"`+root+`"}`)
		var d reminders.Data
		b, _ := json.Marshal(res.Data)
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		if d.ID != root+"-s1" || d.Snoozed != root || d.Item != "t1" || d.FireAt != "2026-10-05T09:56:00+02:00" || d.Change == "" {
			t.Fatalf("data: %+v", d)
		}
		want := fmt.Sprintf("Snoozed the reminder of t1 “Call the bank”: it goes off again Mon 2026-10-05 09:56 (+02:00), as %s-s1. Change %s; undo it to take the snooze back.", root, d.Change)
		if res.Out != want {
			t.Fatalf("answer:\n got %s\nwant %s", res.Out, want)
		}
		if got := w.sent("2026-10-05T09:55"); len(got) != 0 {
			t.Fatalf("early: %v", got)
		}
		if got := w.sent("2026-10-05T09:56"); len(got) != 1 || got[0] != root+"-s1" {
			t.Fatalf("at the new time: %v", got)
		}

		// By the task's id, with a length: its last reminder is -s1.
		res = w.ok("snooze", `{"id":"t1","minutes":"1h"}`)
		if !strings.Contains(res.Out, "goes off again Mon 2026-10-05 10:56 (+02:00), as "+root+"-s2.") {
			t.Fatalf("1h: %s", res.Out)
		}
		// Until a relative moment, replacing the one still waiting.
		res = w.ok("snooze", `{"id":"t1","until":"tomorrow 9am"}`)
		if !strings.Contains(res.Out, "goes off again Tue 2026-10-06 09:00 (+02:00), as "+root+"-s3.") ||
			!strings.Contains(res.Out, "It replaces the snooze "+root+"-s2, which was still waiting.") {
			t.Fatalf("tomorrow 9am: %s", res.Out)
		}
		// Undo takes -s3 back and brings -s2 back.
		w.ok("undo", `{}`)
		if got := w.sent("2026-10-05T10:56"); len(got) != 1 || got[0] != root+"-s2" {
			t.Fatalf("after undo: %v", got)
		}
		if got := w.sent("2026-10-06T09:00"); len(got) != 0 {
			t.Fatalf("the undone snooze fired: %v", got)
		}
	})
}

// TestBadArguments gives every argument of snooze a wrong value, and
// asks for what cannot be snoozed, and keeps each refusal's sentence in
// testdata/sentences.golden, so a change of wording is a reviewed diff.
func TestBadArguments(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		w := newWorld(t)
		w.sent("2026-10-05T09:45")
		w.At(paris, "2026-10-05T09:46")
		cases := []struct {
			raw  string
			code int
			want string
		}{
			{`{"id":"buy milk"}`, tools.CodeInvalid, "“id” must be the delivery_id the reminder came with"},
			{`{"id":12}`, tools.CodeInvalid, "“id” must be one line of text"},
			{`{}`, tools.CodeInvalid, "“id”"},
			{`{"id":"t1","minutes":0}`, tools.CodeInvalid, "“minutes” must be a number of minutes from 1 to 527040"},
			{`{"id":"t1","minutes":"soon"}`, tools.CodeInvalid, "“minutes” must be a number of minutes"},
			{`{"id":"t1","until":"2026-10-05T09:00"}`, tools.CodeInvalid, "“until” Mon 2026-10-05 09:00 (+02:00) has already passed"},
			{`{"id":"t1","until":"tomorrow"}`, tools.CodeInvalid, "“until” needs a time of day"},
			{`{"id":"t1","until":"2028-01-01T09:00"}`, tools.CodeInvalid, "more than a year away"},
			{`{"id":"t1","until":"someday"}`, tools.CodeInvalid, "“until”"},
			{`{"id":"t1","minutes":5,"until":"tomorrow 9am"}`, tools.CodeInvalid, "Give “minutes” or “until”, not both."},
			{`{"id":"t1","for":10}`, tools.CodeInvalid, "“for” is not one of this tool's arguments"},
			{`{"id":"rd_000000000000000000000000"}`, tools.CodeNotFound, "No reminder of yours has the delivery_id rd_000000000000000000000000"},
			{`{"id":"t2"}`, tools.CodeNotFound, "t2 has no reminder that was sent yet"},
		}
		var sentences strings.Builder
		for _, c := range cases {
			res, _ := w.Call(w.ada, "snooze", c.raw)
			if res.Code != c.code || !strings.Contains(res.Err, c.want) {
				t.Errorf("snooze %s: code %v %q, want %d with %q", c.raw, res.Code, res.Err, c.code, c.want)
			}
			fmt.Fprintf(&sentences, "snooze %s\n  %s\n", c.raw, res.Err)
		}
		w.ok("delete_task", `{"id":"t1"}`)
		res, _ := w.Call(w.ada, "snooze", `{"id":"t1"}`)
		if res.Code != tools.CodeConflict || res.Err != "t1 was deleted, so its reminder is not snoozed." {
			t.Errorf("deleted: %d %q", res.Code, res.Err)
		}
		fmt.Fprintf(&sentences, "snooze %s\n  %s\n", `{"id":"t1"} (deleted)`, res.Err)
		if t.Failed() {
			return
		}
		tooltest.Golden(t, "sentences.golden", sentences.String(), *update)
	})
}
