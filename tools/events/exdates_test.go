package events

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/tools"
)

// An EXDATE an add_event or update_event call writes must leave out an
// occurrence (RFC 5545 §3.8.5.1: a time the occurrence starting then, a
// day every occurrence starting that day): one off the rule's days or
// times is refused naming the first occurrence from its day on, and
// nothing is stored; one the event already had is passed over, so an
// event's own list can be sent back with one more.
func TestExDatesMustLeaveSomethingOut(t *testing.T) {
	e := newEnv(t)
	const weekly = `"title":"Standup","start":"2026-10-05T09:00","duration":15,"rrule":"FREQ=WEEKLY;BYDAY=MO"`
	for _, c := range []struct{ exdates, want string }{
		{`["2026-10-06T09:00"]`, "“exdates” 2026-10-06T09:00 is not the start of any occurrence of this event (read in Europe/Paris), so it would leave nothing out; its next occurrence starts 2026-10-12T09:00"},
		{`["2026-10-12T10:00"]`, "“exdates” 2026-10-12T10:00 is not the start of any occurrence of this event (read in Europe/Paris), so it would leave nothing out; its nearest occurrence that day starts 2026-10-12T09:00"},
		{`["2026-10-19","2026-10-07"]`, "“exdates” 2026-10-07 is a day on which no occurrence of this event starts"},
		{`["2026-10-04T09:00"]`, "its next occurrence starts 2026-10-05T09:00"},
	} {
		e.fail(e.alice, "add_event", `{`+weekly+`,"exdates":`+c.exdates+`}`, tools.CodeInvalid, c.want)
	}
	e.fail(e.alice, "add_event", `{"title":"Course","start":"2026-10-05T09:00","rrule":"FREQ=WEEKLY;COUNT=2","exdates":["2026-10-19T09:00"]}`,
		tools.CodeInvalid, "it has no occurrence from that day on")
	if ids, _ := occurrences(t, e.ok(e.alice, "list_events", `{"from":"2026-10-01","to":"2026-12-01"}`)); len(ids) != 0 {
		t.Fatalf("refused calls stored occurrences: %v", ids)
	}

	// A time, a day, and a time after the clocks went back (25 October):
	// the series keeps 09:00 in Paris.
	e.ok(e.alice, "add_event", `{`+weekly+`,"exdates":["2026-10-12T09:00","2026-10-19","2026-11-02T09:00"]}`)
	_, starts := occurrences(t, e.ok(e.alice, "list_events", `{"from":"2026-10-01","to":"2026-11-10"}`))
	if got := strings.Join(starts, " "); strings.Contains(got, "2026-10-12") || strings.Contains(got, "2026-10-19") ||
		strings.Contains(got, "2026-11-02") || !strings.Contains(got, "2026-10-26") {
		t.Errorf("starts after the EXDATEs: %s", got)
	}

	// The rule moves to Tuesdays: the Monday EXDATE it keeps leaves out
	// nothing now, and may be sent back with a new one; a new one off the
	// rule is refused.
	e.ok(e.alice, "update_event", `{"id":"e1","rrule":"FREQ=WEEKLY;BYDAY=TU"}`)
	var kept []string
	for _, x := range e.seriesOf("e1")["exdates"].([]any) {
		kept = append(kept, `"`+x.(string)+`"`)
	}
	if !strings.Contains(strings.Join(kept, ","), `"2026-10-12T09:00"`) {
		t.Fatalf("the update dropped the Monday EXDATE (%v): nothing left to send back", kept)
	}
	list := func(more string) string {
		return `{"id":"e1","exdates":[` + strings.Join(append(kept, `"`+more+`"`), ",") + `]}`
	}
	e.fail(e.alice, "update_event", list("2026-10-21T09:00"), tools.CodeInvalid,
		"“exdates” 2026-10-21T09:00 is not the start of any occurrence of this event (read in Europe/Paris), so it would leave nothing out; its next occurrence starts 2026-10-27T09:00")
	e.ok(e.alice, "update_event", list("2026-10-20T09:00"))
	if got := e.seriesOf("e1")["exdates"].([]any); len(got) != len(kept)+1 {
		t.Errorf("exdates after the update: %v, want %d", got, len(kept)+1)
	}

	// A move of the start reads every EXDATE sent anew: the old time of
	// one the event had leaves nothing out at the new time.
	e.ok(e.alice, "add_event", `{"title":"Mover","start":"2026-12-14T09:00","rrule":"FREQ=WEEKLY;BYDAY=MO","exdates":["2026-12-21T09:00"]}`)
	e.fail(e.alice, "update_event", `{"id":"e2","start":"2026-12-14T10:00","exdates":["2026-12-21T09:00"]}`, tools.CodeInvalid,
		"“exdates” 2026-12-21T09:00 is not the start of any occurrence of this event (read in Europe/Paris), so it would leave nothing out; its nearest occurrence that day starts 2026-12-21T10:00")
	e.ok(e.alice, "update_event", `{"id":"e2","start":"2026-12-14T10:00","exdates":["2026-12-21T10:00"]}`)

	// Every minute: a time is tried on minutes around it, the nearest
	// occurrence named.
	e.ok(e.alice, "add_event", `{"title":"Tick","start":"2026-12-14T09:00","duration":1,"rrule":"FREQ=MINUTELY;INTERVAL=7","exdates":["2026-12-14T09:07","2026-12-15"]}`)
	e.fail(e.alice, "add_event", `{"title":"Tick","start":"2026-12-14T09:00","duration":1,"rrule":"FREQ=MINUTELY;INTERVAL=7","exdates":["2026-12-14T09:10"]}`,
		tools.CodeInvalid, "its nearest occurrence that day starts 2026-12-14T09:07")
}
