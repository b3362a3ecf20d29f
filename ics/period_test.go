package ics

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// An RDATE of periods keeps each start, and the periods' own ends, which
// the store cannot keep (every occurrence lasts as long as the event), are
// listed under “Read in spite of a fault” in an import; they were dropped
// without a word. CalDAV stores such an object without them, as
// docs/caldav.md says (rare in what clients send), not refusing it.
func TestRDatePeriodsListed(t *testing.T) {
	body := strings.Join([]string{
		"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN",
		"BEGIN:VEVENT", "UID:per@t", "DTSTART;TZID=Europe/Paris:20260105T100000", "DTEND;TZID=Europe/Paris:20260105T110000",
		"RRULE:FREQ=WEEKLY;COUNT=2", "RDATE;VALUE=PERIOD:20260107T140000Z/20260107T170000Z,20260108T090000Z/PT15M",
		"RDATE;TZID=Europe/Paris:20260109T100000", "SUMMARY:period", "END:VEVENT",
		"END:VCALENDAR", ""}, "\r\n")
	cal := DecodeBytes([]byte(body), DecodeOptions{Zone: tz.MustZone("Europe/Paris")})
	if len(cal.Events) != 1 || len(cal.Events[0].RDates) != 3 {
		t.Fatalf("events %+v, want one with three RDATEs", cal.Events)
	}
	if len(cal.Repaired) != 1 || cal.Repaired[0].Line != 9 || !strings.HasPrefix(cal.Repaired[0].Reason, "RDATE holds periods (start/end), whose own ends are not kept") {
		t.Fatalf("repaired %+v, want the line of the periods alone", cal.Repaired)
	}
	obj, err := ParseObject([]byte(body), tz.MustZone("Europe/Paris"), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if lost := obj.Lost(); len(lost) != 0 {
		t.Errorf("CalDAV would refuse it: lost %+v", lost)
	}
}
