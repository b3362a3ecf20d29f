package tasks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

// TestRelativeDue: words for a due are read at the call's now in the
// person's zone, stored as the moment they name, and the answer echoes
// the reading once, after the tool's own text; the data stays JSON.
func TestRelativeDue(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Time{})
		h.At("Europe/Paris", "2026-12-01T10:00") // Tue

		var d written
		out := h.data(t, h.paris, "add_task", `{"title":"Call Ana","due":"tomorrow 9am"}`, &d)
		echo := "Read “tomorrow 9am” (due) as Wed 2026-12-02 09:00 (+01:00)."
		if !strings.HasSuffix(out, "\n"+echo) || strings.Count(out, "Read “") != 1 {
			t.Errorf("the answer does not end with the one echo %q:\n%s", echo, out)
		}
		if d.Task.Due != "2026-12-02T09:00" || d.Task.DueAllDay {
			t.Errorf("due = %q (all day %v), want 2026-12-02T09:00", d.Task.Due, d.Task.DueAllDay)
		}
		// the same call and answer are shown in docs/time.md
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "time.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "$ assistant call add_task title=\"Call Ana\" due=\"tomorrow 9am\"\n"+out+"\n```") {
			t.Errorf("docs/time.md does not show the answer as the tools print it now:\n%s", out)
		}

		// lengths for reminders
		h.data(t, h.paris, "add_task", `{"title":"Pay","due":"friday","remind_before":["1h","PT15M",1440]}`, &d)
		if got := d.Task.RemindBefore; len(got) != 3 || got[0] != 60 || got[1] != 15 || got[2] != 1440 {
			t.Errorf("remind_before = %v, want [60 15 1440]", got)
		}

		// a day word gives a day; a weekday is never today
		h.data(t, h.paris, "add_task", `{"title":"Water","due":"Tuesday"}`, &d)
		if d.Task.Due != "2026-12-08" || !d.Task.DueAllDay {
			t.Errorf("due tuesday = %q (all day %v), want the day 2026-12-08", d.Task.Due, d.Task.DueAllDay)
		}

		// elapsed time for hours
		out = h.data(t, h.ny, "add_task", `{"title":"Check","due":"in 2 hours"}`, &d)
		if !strings.Contains(out, "Read “in 2 hours” (due) as Tue 2026-12-01 06:00 (-05:00).") {
			t.Errorf("in 2 hours for New York (04:00 there):\n%s", out)
		}

		// a list of the tasks due from today to next week
		out = h.ok(t, h.paris, "list_tasks", `{"from":"today","to":"next week"}`)
		for _, want := range []string{"Read “today” (from) as Tue 2026-12-01.", "Read “next week” (to) as Mon 2026-12-07; next week is its Monday."} {
			if !strings.Contains(out, want) {
				t.Errorf("list_tasks does not echo %q:\n%s", want, out)
			}
		}

		// a time alone already past is refused, nothing is written
		before := h.counts(t)
		res, _ := h.Call(h.paris, "add_task", `{"title":"Late","due":"9am"}`)
		if res.Code != tools.CodeInvalid || !strings.Contains(res.Err, "“due” “9am” is already past today") ||
			!strings.Contains(res.Err, "write tomorrow 9am") {
			t.Errorf("due 9am at 10:00: code %d: %s", res.Code, res.TextOut())
		}
		if after := h.counts(t); after != before {
			t.Errorf("a refused call changed the store:\n%s\n%s", before, after)
		}

		// the echo is text only: Data is the task, valid JSON, with no echo in it
		res, _ = h.Call(h.paris, "add_task", `{"title":"Tonight","due":"tonight"}`)
		if !res.OK() || !json.Valid(res.Data) || strings.Contains(string(res.Data), "Read “") {
			t.Errorf("tonight: code %d, data %s", res.Code, res.Data)
		}
		if !strings.Contains(res.TextOut(), "Read “tonight” (due) as Tue 2026-12-01 20:00 (+01:00); tonight is 20:00.") {
			t.Errorf("tonight does not say its hour:\n%s", res.TextOut())
		}
	})
}

// TestNoEchoForAbsoluteMoments: a call written with dates only answers as
// before, without a line about reading words.
func TestNoEchoForAbsoluteMoments(t *testing.T) {
	h := newHarness(t, time.Time{})
	h.At("Europe/Paris", "2026-12-01T10:00")
	out := h.ok(t, h.paris, "add_task", `{"title":"Call Ana","due":"2026-12-02T09:00"}`)
	if strings.Contains(out, "Read “") {
		t.Errorf("an absolute due was echoed:\n%s", out)
	}
}
