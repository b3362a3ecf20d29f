package events

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

// An event, RDATE or due whose instant falls outside the years 0001–9999
// (in UTC or in its zone) is refused with one sentence; a repeating event
// stops at the calendar's end, so no occurrence id has a five-digit year.
func TestCalendarEnds(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		for _, c := range []struct{ raw, arg string }{
			{`{"title":"d","start":"9999-12-31T23:59","duration":1,"time_zone":"UTC"}`, "“start”"},
			{`{"title":"d","start":"9999-12-31","time_zone":"UTC"}`, "“start”"},
			{`{"title":"d","start":"9999-12-31T20:00"}`, "“start”"}, // bob: 10000-01-01T01:00Z
			{`{"title":"d","start":"9999-12-31T23:30[Asia/Tokyo]","duration":60}`, "“start”"},
			{`{"title":"d","start":"0001-01-01T00:05","time_zone":"Europe/Paris"}`, "“start”"},
			{`{"title":"d","start":"9999-12-20T10:00","rdates":["9999-12-31T23:30"],"time_zone":"UTC"}`, "“rdates”"},
		} {
			res, _ := e.call(e.bob, "add_event", c.raw)
			if res.Code != tools.CodeInvalid || !strings.HasPrefix(res.Err, c.arg) || strings.Contains(res.Err, "went wrong") {
				t.Errorf("add_event %s: code %d: %s", c.raw, res.Code, res.TextOut())
			}
		}
		e.ok(e.bob, "add_event", `{"title":"late","start":"9999-12-29T22:30","rrule":"FREQ=DAILY"}`)
		res := e.ok(e.bob, "list_events", `{"from":"9999-12-28","to":"9999-12-31"}`)
		ids, _ := occurrences(t, res)
		if len(ids) != 2 { // 12-29 and 12-30; 12-31 22:30 New York is 10000-01-01 in UTC
			t.Errorf("list_events gave %v, want the occurrences of 12-29 and 12-30 only", ids)
		}
		for _, id := range ids {
			if !strings.Contains(id, "@9999") {
				t.Errorf("occurrence id %s has no four-digit year", id)
			}
		}
		// Moving one occurrence past the end is refused too.
		res, _ = e.call(e.bob, "update_event", `{"id":"`+ids[0]+`","start":"9999-12-31T23:30"}`)
		if res.Code != tools.CodeInvalid || !strings.HasPrefix(res.Err, "“start”") {
			t.Errorf("moving %s to 9999-12-31T23:30: code %d: %s", ids[0], res.Code, res.TextOut())
		}
	})
}

// An event kept before such ends were refused (its end in the year 10000)
// can still be read, listed, changed and deleted.
func TestCalendarEndStoredRow(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"last","start":"9999-12-31T22:00","time_zone":"UTC","duration":60}`)
		end := time.Date(10000, 1, 1, 0, 30, 0, 0, time.UTC).Unix()
		if _, err := e.Store.DB().Exec(`UPDATE events SET end_local = '10000-01-01T00:30', end_at = ?`, end); err != nil {
			t.Fatal(err)
		}
		for _, c := range [][2]string{
			{"get_event", `{"id":"e1"}`},
			{"list_events", `{"from":"9999-12-30","to":"9999-12-31"}`},
			{"update_event", `{"id":"e1","start":"9999-12-31T20:00"}`},
		} {
			res, _ := e.call(e.alice, c[0], c[1])
			if res.Code != tools.CodeOK {
				t.Errorf("%s %s: code %d: %s", c[0], c[1], res.Code, res.TextOut())
			}
		}
		e.ok(e.alice, "delete_event", `{"id":"e1"}`)
	})
}

// A window that would reach past 9999-12-31, such as the default week
// from the calendar's last day, stops there: no day, slot or heading of
// the year 10000 is shown.
func TestWindowStopsAtCalendarEnd(t *testing.T) {
	e := newEnv(t)
	for _, c := range [][2]string{
		{"list_events", `{"from":"9999-12-31"}`},
		{"list_events", `{"from":"9999-12-27","to":"9999-12-31"}`},
		{"find_free_time", `{"from":"9999-12-31"}`},
		{"find_free_time", `{"from":"9999-12-28"}`},
	} {
		for _, who := range []tools.Person{e.alice, e.bob} {
			res := e.ok(who, c[0], c[1])
			if out := res.TextOut() + string(res.Data); strings.Contains(out, "10000") {
				t.Errorf("%s %s for %s reaches the year 10000:\n%s", c[0], c[1], who.Zone.Name(), out)
			}
		}
	}
}

// A repeating event that starts more than a hundred years ahead still
// names its next occurrences, as a nearer one does.
func TestFarSeriesNamesItsNext(t *testing.T) {
	e := newEnv(t)
	for _, start := range []string{"2127-12-01T10:00", "2400-02-29"} {
		out := e.ok(e.bob, "add_event", `{"title":"Far","start":"`+start+`","rrule":"FREQ=WEEKLY","allow_duplicate":true}`).TextOut()
		if !strings.Contains(out, "Next: ") || strings.Contains(out, "no occurrences after now") {
			t.Errorf("add_event from %s:\n%s", start, out)
		}
	}
}

// A move of more than calendar.MaxShiftDays (a series, a single event,
// the following occurrences) is refused with one sentence, and nothing is
// changed: such a shift was cut short at about 292 years and stored a
// start the call never asked for.
func TestMoveTooFar(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"b","start":"2026-12-08T09:00","rrule":"FREQ=DAILY"}`)
		e.ok(e.alice, "add_event", `{"title":"s","start":"2026-12-08T09:00"}`)
		before := e.ok(e.alice, "list_changes", `{}`).TextOut()
		for _, raw := range []string{
			`{"id":"e1","start":"9999-12-31T09:00"}`,
			`{"id":"e2","start":"2400-01-01T09:00"}`,
			`{"id":"e2","start":"1700-01-01T09:00"}`,
			`{"id":"e1@20261210T080000Z","scope":"following","start":"9000-01-01T09:00"}`,
		} {
			res, _ := e.call(e.alice, "update_event", raw)
			if res.Code != tools.CodeInvalid || !strings.HasPrefix(res.Err, "“start”") || !strings.Contains(res.Err, "add_event") {
				t.Errorf("update_event %s: code %d: %s", raw, res.Code, res.TextOut())
			}
		}
		if after := e.ok(e.alice, "list_changes", `{}`).TextOut(); after != before {
			t.Errorf("a refused move changed something:\n%s\nwas\n%s", after, before)
		}
		// Within the bound a far move keeps the start asked for.
		res := e.ok(e.alice, "update_event", `{"id":"e2","start":"2290-01-01T09:00"}`)
		if !strings.Contains(res.TextOut(), "2290-01-01 09:00") {
			t.Errorf("moved to 2290: %s", res.TextOut())
		}
	})
}
