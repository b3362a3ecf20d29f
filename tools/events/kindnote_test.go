package events

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestKindChangeSaid: a start that turns an all-day event timed (or a
// timed one all-day) without “duration” or “end” gives the length a
// calendar app gives, an hour or a day, and says so; with either, it says
// nothing.
func TestKindChangeSaid(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Trip","start":"2026-10-07","end":"2026-10-09"}`)
		res := e.ok(e.alice, "update_event", `{"id":"e1","start":"2026-10-07T10:00"}`)
		if !strings.Contains(res.Out, "was all-day; it now lasts 60 minutes") || !strings.Contains(res.Out, "10:00–11:00") {
			t.Errorf("all-day to timed: %s", res.Out)
		}
		res = e.ok(e.alice, "update_event", `{"id":"e1","start":"2026-10-08"}`)
		if !strings.Contains(res.Out, "was timed; it is now all-day, one day") {
			t.Errorf("timed to all-day: %s", res.Out)
		}
		for _, raw := range []string{`{"id":"e1","start":"2026-10-08T09:00","duration":30}`, `{"id":"e1","start":"2026-10-09","end":"2026-10-10"}`,
			`{"id":"e1","start":"2026-10-09T09:00","end":"2026-10-09T12:00"}`} {
			if res := e.ok(e.alice, "update_event", raw); strings.Contains(res.Out, "Note:") {
				t.Errorf("%s: %s, want no note", raw, res.Out)
			}
		}
	})
}
