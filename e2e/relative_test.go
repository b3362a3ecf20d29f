package e2e

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Words for a moment and a length are read by every front at the call's
// now (ASSISTANT_NOW here, Mon 2026-10-05 09:00 in Paris), and the answer
// echoes the reading on the command line, in --json's "out" (with "data"
// still the task) and in MCP's text content (with structuredContent still
// the task).
func TestRelativeDatesEveryFront(t *testing.T) { storetest.Engines(t, testRelativeDatesEveryFront) }

func testRelativeDatesEveryFront(t *testing.T) {
	h := newHome(t)
	r := h.must("call", "add_event", "title=Standup", "start=tomorrow 9:30am", "duration=1h 30min", "remind_before=15m")
	for _, want := range []string{"When: Tue 2026-10-06 09:30–11:00 (+02:00)", "Reminders: 15 min before",
		"Read “tomorrow 9:30am” (start) as Tue 2026-10-06 09:30 (+02:00)."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("add_event: want %q in\n%s", want, r.stdout)
		}
	}
	r = h.must("call", "--json", "add_task", "title=Call Ana", "due=friday 14:00")
	var res struct {
		Out  string `json:"out"`
		Data struct {
			Task struct {
				Due string `json:"due"`
			} `json:"task"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("--json is not JSON: %v\n%s", err, r.stdout)
	}
	if res.Data.Task.Due != "2026-10-09T14:00" || !strings.HasSuffix(res.Out, "\nRead “friday 14:00” (due) as Fri 2026-10-09 14:00 (+02:00).") {
		t.Errorf("--json: due %q, out %q", res.Data.Task.Due, res.Out)
	}
	if r := h.run("call", "add_task", "title=Late", "due=8am"); r.code != exitInvalid ||
		!strings.Contains(r.stderr, "already past today") || r.stdout != "" {
		t.Errorf("due=8am at 09:00: %s", r)
	}

	m := newMCPHome(t)
	cs := m.stdioClient(t, io.Discard)
	out := call(t, cs, "add_task", `{"title":"Call Bo","due":"next week"}`)
	if out.IsError || !strings.Contains(text(t, out), "Read “next week” (due) as Mon 2026-10-12; next week is its Monday.") {
		t.Errorf("MCP add_task: %q", text(t, out))
	}
	sc, err := json.Marshal(out.StructuredContent)
	if err != nil || !strings.Contains(string(sc), `"due":"2026-10-12"`) || strings.Contains(string(sc), "Read “") {
		t.Errorf("MCP structuredContent %s (%v)", sc, err)
	}
}
