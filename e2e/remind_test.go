package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/catalog"
)

// TestRemindRefusesFlagsOfAnotherMode: a flag that means nothing in the
// mode chosen is a usage error (exit 2, one sentence naming both), not
// silently ignored (finding 11); each mode alone still runs.
func TestRemindRefusesFlagsOfAnotherMode(t *testing.T) {
	storetest.Engines(t, testRemindRefusesFlagsOfAnotherMode)
}

func testRemindRefusesFlagsOfAnotherMode(t *testing.T) {
	h := newHome(t)
	cases := []struct {
		args  []string
		names []string
	}{
		{[]string{"--once", "--every", "5m"}, []string{"“--every”", "“--once”"}},
		{[]string{"--every", "30s", "--status"}, []string{"“--every”", "“--status”"}},
		{[]string{"--once", "--status"}, []string{"“--once”", "“--status”"}},
		{[]string{"--status", "--exec", "cat"}, []string{"“--status”", "“--exec”"}},
		{[]string{"--status", "--webhook", "https://example.org/hook"}, []string{"“--status”", "“--webhook”"}},
	}
	for _, c := range cases {
		r := h.run(append([]string{"remind"}, c.args...)...)
		if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" {
			t.Errorf("%v: want exit 2 with one line on stderr, got %s", c.args, r)
		}
		for _, n := range append(c.names, "(see “assistant remind --help”)") {
			if !strings.Contains(r.stderr, n) {
				t.Errorf("%v: the sentence does not name %s: %q", c.args, n, r.stderr)
			}
		}
	}
	for _, args := range [][]string{{"--once"}, {"--once", "--max-late", "1h"}, {"--status"}, {"--status", "--max-late", "1h"}} {
		h.must(append([]string{"remind"}, args...)...)
	}
}

// TestRemindStatusByTheClock: with the built binary, a database whose
// reminders nobody delivered for three weeks shows the old fires as
// “will be skipped”, the recent one as “due now”, and only future fires as
// upcoming; the next --once does just that (finding 5).
func TestRemindStatusByTheClock(t *testing.T) { storetest.Engines(t, testRemindStatusByTheClock) }

func testRemindStatusByTheClock(t *testing.T) {
	if _, ok := catalog.New().Get("add_event"); !ok {
		t.Skip("the event tools are not registered in this build")
	}
	h := newHome(t)
	h.env["ASSISTANT_NOW"] = "2026-03-23T12:00:00+01:00"
	h.must("call", "add_event", "--args", `{"title":"Paris Mon 9","start":"2026-03-30T09:00","duration":60,"rrule":"FREQ=WEEKLY","remind_before":[15]}`)
	h.must("call", "add_task", "--args", `{"title":"Call the bank","due":"2026-04-19T10:00","remind_before":[90]}`)
	h.must("remind", "--status")
	h.env["ASSISTANT_NOW"] = "2026-04-19T09:00:00+02:00"
	r := h.must("remind", "--status")
	for _, want := range []string{
		"  due now: 1\n    Sun 2026-04-19 08:30 (+02:00)  t1 “Call the bank” 1 h 30 min before (20260419T080000Z)  30 min ago  rd_",
		"  will be skipped: 3\n    Mon 2026-04-13 08:45 (+02:00)  e1 “Paris Mon 9” 15 min before (20260413T070000Z)  missed by 6 days, more than the 6 h allowed (--max-late)\n",
		"  upcoming: 1\n    Mon 2026-04-20 08:45 (+02:00)  e1 “Paris Mon 9” 15 min before (20260420T070000Z)\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	// The three missed by weeks are given up, so the pass exits 9 (cron
	// mails it) after sending the one due.
	r = h.run("remind", "--once")
	if r.code != 9 {
		t.Errorf("--once skipping reminders past --max-late: want exit 9, got %s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var m struct {
		Title, Late string
	}
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &m) != nil || m.Title != "Call the bank" || m.Late != "30 min" {
		t.Errorf("--once: want the one due reminder, 30 min late, got:\n%s", r.stdout)
	}
	r = h.must("remind", "--status")
	if !strings.Contains(r.stdout, "  due now: 0\n  will be skipped: 0\n  upcoming: 1\n") || !strings.Contains(r.stdout, "  skipped: 3\n") {
		t.Errorf("after the pass:\n%s", r.stdout)
	}
}

// A reminder set under --tz fires at the instant it named, and status and
// the payload say so: status shows that instant in the person's zone (or
// in --tz's, with --tz), and the trigger names the zone it was set in.
func TestRemindSetUnderTZ(t *testing.T) { storetest.Engines(t, testRemindSetUnderTZ) }

func testRemindSetUnderTZ(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_NOW"] = "2026-10-05T09:00:00Z"
	h.must("person", "set-zone", "UTC")
	h.must("--tz", "Europe/Paris", "call", "add_task", "title=G", "remind_at=2026-10-05T12:30")
	r := h.must("remind", "--status")
	if want := "Mon 2026-10-05 10:30 (+00:00)  t1 “G” at Mon 2026-10-05 10:30 (+00:00)"; !strings.Contains(r.stdout, want) {
		t.Errorf("status lacks %q:\n%s", want, r.stdout)
	}
	r = h.must("--tz", "Europe/Paris", "remind", "--status")
	for _, want := range []string{"(Europe/Paris)\n", "Mon 2026-10-05 12:30 (+02:00)  t1 “G” at Mon 2026-10-05 12:30 (+02:00)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status under --tz lacks %q:\n%s", want, r.stdout)
		}
	}
	h.env["ASSISTANT_NOW"] = "2026-10-05T10:31:00Z"
	r = h.must("remind", "--once")
	var m struct{ Trigger string }
	if json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &m) != nil || m.Trigger != "at:2026-10-05T12:30[Europe/Paris]" {
		t.Errorf("--once: want the trigger naming its zone, got:\n%s", r.stdout)
	}
}
