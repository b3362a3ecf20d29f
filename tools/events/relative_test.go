package events

import (
	"strings"
	"testing"
)

// TestRelativeEvent: an event's start in words and its duration as a
// length are read at the call's now, in the event's zone when the call
// names one, and the answer echoes each reading.
func TestRelativeEvent(t *testing.T) {
	e := newEnv(t) // Mon 2026-10-05 09:00 in Paris
	res := e.ok(e.alice, "add_event", `{"title":"Standup","start":"tomorrow 9:30am","duration":"1h 30min"}`)
	if !strings.HasSuffix(res.TextOut(), "\nRead “tomorrow 9:30am” (start) as Tue 2026-10-06 09:30 (+02:00).") {
		t.Errorf("no echo of the start:\n%s", res.TextOut())
	}
	ev := data(t, res)["event"].(map[string]any)
	if ev["start"] != "2026-10-06T09:30:00+02:00" || ev["end"] != "2026-10-06T11:00:00+02:00" {
		t.Errorf("start %v end %v, want 2026-10-06T09:30 to 11:00", ev["start"], ev["end"])
	}

	// in the event's own zone: Friday 14:00 in New York, said so
	res = e.ok(e.alice, "add_event", `{"title":"NY call","start":"friday 14:00","duration":"PT45M","time_zone":"America/New_York"}`)
	if !strings.Contains(res.TextOut(), "Read “friday 14:00” (start) as Fri 2026-10-09 14:00 (-04:00) America/New_York.") {
		t.Errorf("no echo in the event's zone:\n%s", res.TextOut())
	}

	// a length out of bounds is refused with the bounds
	e.fail(e.alice, "add_event", `{"title":"Long","start":"tomorrow 9am","duration":"32 days"}`, 1,
		"“duration” must be a number of minutes from 1 to 44640 (90) or a length such as 1h30m, 90 min or PT1H30M, not “32 days” (46080 minutes).")

	// find_free_time takes a length and a window in words
	res = e.ok(e.alice, "find_free_time", `{"duration":"2h","from":"tomorrow","to":"tomorrow"}`)
	if !strings.Contains(res.TextOut(), "Read “tomorrow” (from) as Tue 2026-10-06.") {
		t.Errorf("find_free_time does not echo its window:\n%s", res.TextOut())
	}
}

// TestRelativeEventDST: "tomorrow 2:30am" the day before Paris springs
// forward is moved by the gap, as a written 02:30 is, and the echo shows
// the time it became.
func TestRelativeEventDST(t *testing.T) {
	e := newEnv(t)
	e.At("Europe/Paris", "2026-03-28T09:00")
	res := e.ok(e.alice, "add_event", `{"title":"Night job","start":"tomorrow 2:30am","duration":30}`)
	out := res.TextOut()
	if !strings.Contains(out, "Read “tomorrow 2:30am” (start) as Sun 2026-03-29 03:30 (+02:00).") || !strings.Contains(out, "03:30") {
		t.Errorf("the moved time is not shown:\n%s", out)
	}
	// elapsed hours across the gap
	res = e.ok(e.alice, "add_event", `{"title":"Later","start":"in 24 hours"}`)
	if !strings.Contains(res.TextOut(), "Read “in 24 hours” (start) as Sun 2026-03-29 10:00 (+02:00).") {
		t.Errorf("in 24 hours across the gap:\n%s", res.TextOut())
	}
}

// TestWindowTakesAPastClock: the bound of a window may be a time already
// gone today ("what is on since 8am" at 09:00), while a start must still
// be ahead.
func TestWindowTakesAPastClock(t *testing.T) {
	e := newEnv(t) // Mon 2026-10-05 09:00 in Paris
	e.ok(e.alice, "add_event", `{"title":"Early","start":"2026-10-05T08:15","duration":30}`)
	res := e.ok(e.alice, "list_events", `{"from":"8am","to":"noon"}`)
	if !strings.Contains(res.TextOut(), "Early") || !strings.Contains(res.TextOut(), "Read “8am” (from) as Mon 2026-10-05 08:00 (+02:00).") {
		t.Errorf("list_events from 8am at 09:00:\n%s", res.TextOut())
	}
	e.ok(e.alice, "find_free_time", `{"duration":30,"from":"8am","to":"eod"}`)
	e.fail(e.alice, "add_event", `{"title":"Late","start":"8am"}`, 1, "“start” “8am” is already past today")
}
