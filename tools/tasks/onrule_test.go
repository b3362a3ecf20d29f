package tasks

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A due the rule does not give is kept as the first time (RFC 5545) and
// the answer says so, naming the rule's own first day.
func TestDueOffTheRuleIsNoted(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC))
		p := h.paris
		cases := []struct {
			tool, raw, want string
		}{
			{"add_task", `{"title":"Pay rent","due":"2026-10-30","rrule":"FREQ=MONTHLY;BYMONTHDAY=-1"}`,
				"Note: Fri 2026-10-30 is not one of the rule's days, so it is an extra first occurrence (RFC 5545 keeps DTSTART); the rule's own days start Sat 2026-10-31. Set “due” to that"},
			{"add_task", `{"title":"Gym","due":"2026-10-05T18:00","rrule":"FREQ=WEEKLY;BYDAY=MO,TH"}`, ""},
			{"add_task", `{"title":"Plain","due":"2026-10-06"}`, ""},
			{"update_task", `{"id":"t2","due":"2026-10-06T18:00"}`, "Tue 2026-10-06 is not one of the rule's days"},
			{"update_task", `{"id":"t2","title":"Gym!"}`, ""},
			{"update_task", `{"id":"t2","rrule":"FREQ=WEEKLY;BYDAY=TU"}`, ""},
		}
		for _, c := range cases {
			out := h.ok(t, p, c.tool, c.raw)
			if c.want == "" && strings.Contains(out, "extra first occurrence") || c.want != "" && !strings.Contains(out, c.want) {
				t.Errorf("%s %s:\n%s\nwant note %q", c.tool, c.raw, out, c.want)
			}
		}
	})
}
