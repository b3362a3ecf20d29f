package events

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

// A rule that ends before its start, or can never occur, is refused by
// add_event and update_event with one sentence naming “rrule” and what to
// write instead, and nothing is stored; UNTIL keeps its seconds.
func TestRulesThatNeverRepeatAreRefused(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		rows := func() int {
			var n int
			if err := e.Store.DB().QueryRow(`SELECT count(*) FROM events`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		for _, c := range []struct{ raw, want string }{
			{`{"title":"Sync","start":"2026-09-24T14:09","rrule":"FREQ=WEEKLY;UNTIL=20260924T115359Z"}`, "before its start"},
			{`{"title":"Sync","start":"2026-09-24T14:09","rrule":"FREQ=WEEKLY;UNTIL=20260930"}`, "before its second occurrence"},
			{`{"title":"Feb","start":"2026-09-24T14:09","rrule":"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30"}`, "BYMONTHDAY=-1"},
			{`{"title":"Leap","start":"2026-10-06T09:00","rrule":"FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2"}`, "leave BYMONTH out"},
			{`{"title":"Far","start":"2026-10-06T09:00","rrule":"FREQ=YEARLY;INTERVAL=1000;COUNT=20"}`, "write COUNT=8 or less"},
		} {
			res, _ := e.call(e.alice, "add_event", c.raw)
			if res.Code != tools.CodeInvalid || !strings.HasPrefix(res.Err, "“rrule”") || !strings.Contains(res.Err, c.want) || !strings.Contains(res.Err, "write") {
				t.Errorf("add_event %s: want a refusal naming “rrule” with %q, got code %d: %s", c.raw, c.want, res.Code, res.TextOut())
			}
		}
		if n := rows(); n != 0 {
			t.Fatalf("refused add_event calls stored %d events", n)
		}
		out := e.ok(e.alice, "add_event", `{"title":"Sync","start":"2026-09-24T14:09","rrule":"FREQ=WEEKLY;UNTIL=20261024T115359Z"}`).Out
		if !strings.Contains(out, "RRULE:FREQ=WEEKLY;UNTIL=20261024T115359Z") {
			t.Errorf("UNTIL lost its seconds:\n%s", out)
		}
		before := e.ok(e.alice, "get_event", `{"id":"e1"}`).Out
		e.fail(e.alice, "update_event", `{"id":"e1","rrule":"FREQ=WEEKLY;UNTIL=20260924T115359Z"}`, tools.CodeInvalid, "before its start")
		// A new start alone takes UNTIL along; with the rule given as it is,
		// the start lands past its UNTIL.
		e.fail(e.alice, "update_event", `{"id":"e1","start":"2026-10-25T14:09","rrule":"FREQ=WEEKLY;UNTIL=20261024T115359Z"}`, tools.CodeInvalid, "before its start")
		if after := e.ok(e.alice, "get_event", `{"id":"e1"}`).Out; after != before {
			t.Errorf("a refused update_event changed e1:\n%s\nwas:\n%s", after, before)
		}
	})
}
