package tasks

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A due written with an offset or Z in the repeated hour of a fall-back
// change keeps its instant (the second 02:30 of Paris's 2026-10-25 is
// 01:30Z), through add, get, an unrelated edit and list; a due without an
// offset takes the first of the two (RFC 5545 §3.3.5).
func TestDueInTheRepeatedHourIsKept(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC))
		for _, c := range []struct{ due, at string }{
			{"2026-10-25T01:30Z", "2026-10-25T02:30:00+01:00"},
			{"2026-10-25T02:30+01:00", "2026-10-25T02:30:00+01:00"},
			{"2026-10-25T02:30", "2026-10-25T02:30:00+02:00"},
		} {
			id := h.add(t, h.paris, `{"title":"Night `+c.due+`","due":"`+c.due+`"}`)
			if got := h.task(t, h.paris, id).DueAt; got != c.at {
				t.Errorf("due=%s: get_task gives due_at %s, want %s", c.due, got, c.at)
			}
			h.ok(t, h.paris, "update_task", `{"id":"`+id+`","title":"Renamed `+c.due+`"}`)
			if got := h.task(t, h.paris, id).DueAt; got != c.at {
				t.Errorf("due=%s: after a rename due_at is %s, want %s", c.due, got, c.at)
			}
		}
		out := h.ok(t, h.ny, "add_task", `{"title":"NY","due":"2026-11-01T06:30Z"}`)
		if !strings.Contains(out, "01:30 (-05:00)") {
			t.Errorf("New York due=2026-11-01T06:30Z: want 01:30 (-05:00) in:\n%s", out)
		}
	})
}
