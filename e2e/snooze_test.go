package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestRemindSnooze, through the binary: a reminder delivered by
// `remind --once` is put off with `remind snooze ID 10m`; a pass 5
// minutes on sends nothing, one 11 minutes on sends it under its id with
// "-s1" (saying which it snoozed), and a pass after that sends nothing
// again. Snoozing it again makes "-s2"; what cannot be snoozed exits with
// the code docs/cli.md gives (1 a bad form, 4 none of yours, 5 not sent).
func TestRemindSnooze(t *testing.T) { storetest.Engines(t, testRemindSnooze) }

func testRemindSnooze(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_NOW"] = "2026-10-05T08:00:00+02:00"
	h.must("call", "add_task", "--args", `{"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15]}`)
	h.must("remind", "--once")

	type message struct {
		DeliveryID string `json:"delivery_id"`
		SnoozeOf   string `json:"snooze_of"`
		Trigger    string `json:"trigger"`
		FireAt     string `json:"fire_at"`
		Text       string `json:"text"`
	}
	sent := func(now string) []message {
		t.Helper()
		h.env["ASSISTANT_NOW"] = now
		r := h.must("remind", "--once")
		var out []message
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			if line == "" {
				continue
			}
			var m message
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("not a JSON line: %q", line)
			}
			out = append(out, m)
		}
		return out
	}
	first := sent("2026-10-05T09:45:00+02:00")
	if len(first) != 1 || !strings.HasPrefix(first[0].DeliveryID, "rd_") {
		t.Fatalf("first pass: %+v", first)
	}
	id := first[0].DeliveryID

	r := h.must("remind", "snooze", id, "10m")
	want := "Snoozed " + id + " (t1): it goes off again Mon 2026-10-05 09:55 (+02:00) as " + id + "-s1. Change c2;"
	if !strings.HasPrefix(r.stdout, want) {
		t.Fatalf("snooze said %q, want it to start %q", r.stdout, want)
	}
	h.env["ASSISTANT_NOW"] = "2026-10-05T09:50:00+02:00"
	if r := h.must("remind", "--status"); !strings.Contains(r.stdout,
		"  upcoming: 1\n    Mon 2026-10-05 09:55 (+02:00)  t1 “Call the bank” snoozed (20261005T080000Z)\n") {
		t.Errorf("status lacks the waiting snooze:\n%s", r.stdout)
	}
	if got := sent("2026-10-05T09:50:00+02:00"); len(got) != 0 {
		t.Fatalf("5 minutes on: %+v", got)
	}
	got := sent("2026-10-05T09:56:00+02:00")
	if len(got) != 1 || got[0].DeliveryID != id+"-s1" || got[0].SnoozeOf != id || got[0].Trigger != "before:15" ||
		got[0].FireAt != "2026-10-05T09:55:00+02:00" || !strings.HasSuffix(got[0].Text, "(snoozed)") {
		t.Fatalf("11 minutes on: %+v", got)
	}
	if got := sent("2026-10-05T09:57:00+02:00"); len(got) != 0 {
		t.Fatalf("after the snoozed send: %+v", got)
	}

	// Again, by the task's id and the default length.
	r = h.must("remind", "snooze", "t1")
	if !strings.Contains(r.stdout, "goes off again Mon 2026-10-05 10:07 (+02:00) as "+id+"-s2.") {
		t.Fatalf("second snooze: %q", r.stdout)
	}
	if got := sent("2026-10-05T10:07:00+02:00"); len(got) != 1 || got[0].DeliveryID != id+"-s2" || got[0].SnoozeOf != id+"-s1" {
		t.Fatalf("second snooze's send: %+v", got)
	}

	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"remind", "snooze", "milk"}, 1, "“milk” is no reminder to snooze"},
		{[]string{"remind", "snooze", id, "soon"}, 1, "the length must be minutes or a length such as 10m, 1h or 1h30m"},
		{[]string{"remind", "snooze", "rd_000000000000000000000000"}, 4, "no reminder of yours has the delivery_id rd_000000000000000000000000"},
		{[]string{"remind", "snooze", "e9"}, 4, "e9 has no reminder that was sent yet"},
		{[]string{"remind", "snooze"}, 2, ""},
	} {
		r := h.run(c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.says) || r.stdout != "" {
			t.Errorf("%v: want exit %d saying %q, got %s", c.args, c.code, c.says, r)
		}
	}
	h.must("call", "delete_task", "--args", `{"id":"t1"}`)
	if r := h.run("remind", "snooze", id); r.code != 5 || !strings.Contains(r.stderr, "t1 was deleted, so its reminder is not snoozed") {
		t.Errorf("a deleted task's reminder: %s", r)
	}
}

// A second snooze of a reminder whose first snooze is still waiting says
// that it replaces that one, naming it; the reminder then goes off once,
// at the second time.
func TestRemindSnoozeAgainSaysItReplaces(t *testing.T) {
	storetest.Engines(t, testRemindSnoozeAgainSaysItReplaces)
}

func testRemindSnoozeAgainSaysItReplaces(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_NOW"] = "2026-10-05T08:00:00+02:00"
	h.must("call", "add_task", "--args", `{"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15]}`)
	h.must("remind", "--once")
	h.env["ASSISTANT_NOW"] = "2026-10-05T09:45:00+02:00"
	var m struct {
		DeliveryID string `json:"delivery_id"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(h.must("remind", "--once").stdout)), &m); err != nil || m.DeliveryID == "" {
		t.Fatalf("the first pass sent no reminder (%v)", err)
	}
	h.must("remind", "snooze", m.DeliveryID, "10m")
	h.env["ASSISTANT_NOW"] = "2026-10-05T09:47:00+02:00"
	r := h.must("remind", "snooze", "t1", "30m")
	if !strings.Contains(r.stdout, "as "+m.DeliveryID+"-s2.") ||
		!strings.Contains(r.stdout, "It replaces the snooze "+m.DeliveryID+"-s1, which was still waiting.") {
		t.Errorf("the second snooze does not say it replaces the first: %q", r.stdout)
	}
	h.env["ASSISTANT_NOW"] = "2026-10-05T09:56:00+02:00"
	if r := h.must("remind", "--once"); strings.TrimSpace(r.stdout) != "" {
		t.Errorf("the replaced snooze went off: %s", r.stdout)
	}
}
