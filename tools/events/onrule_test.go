package events

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A start the rule does not give is kept as the first occurrence (RFC 5545)
// and the answer says so, naming the rule's own first day.
func TestStartOffTheRuleIsNoted(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		cases := []struct {
			tool, raw, want string
		}{
			{"add_event", `{"title":"Standup","start":"2026-12-01T09:30","rrule":"FREQ=WEEKLY;BYDAY=MO,WE,FR"}`,
				"Note: Tue 2026-12-01 is not one of the rule's days, so it is an extra first occurrence (RFC 5545 keeps DTSTART); the rule's own days start Wed 2026-12-02."},
			{"add_event", `{"title":"Rent","start":"2026-10-30","rrule":"FREQ=MONTHLY;BYMONTHDAY=-1"}`, "the rule's own days start Sat 2026-10-31"},
			{"add_event", `{"title":"Standup 2","start":"2026-11-30T09:30","rrule":"FREQ=WEEKLY;BYDAY=MO,WE,FR"}`, ""},
			{"add_event", `{"title":"Once","start":"2026-12-01T09:30"}`, ""},
			// A move alone takes the rule's days along (finding 1); a rule
			// given with it is kept as written, and may miss the start.
			{"update_event", `{"id":"e3","start":"2026-12-01T09:30","rrule":"FREQ=WEEKLY;BYDAY=MO,WE,FR"}`, "Note: Tue 2026-12-01 is not one of the rule's days"},
			{"update_event", `{"id":"e3","rrule":"FREQ=WEEKLY;BYDAY=TU"}`, ""},
			{"update_event", `{"id":"e2","title":"Rent due"}`, ""},
		}
		for _, c := range cases {
			out := e.ok(e.alice, c.tool, c.raw).Out
			if c.want == "" && strings.Contains(out, "extra first occurrence") || c.want != "" && !strings.Contains(out, c.want) {
				t.Errorf("%s %s:\n%s\nwant note %q", c.tool, c.raw, out, c.want)
			}
		}
	})
}
