package ics

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// A rule that can never occur (an ordinal BYDAY past any month, which once
// panicked inside the recurrence library) is refused by recur.ParseRule:
// the item is imported without repeating and the skip says why.
func TestDecodeRefusedRule(t *testing.T) {
	cases := []struct{ component, rule, want string }{
		{"VEVENT", "FREQ=YEARLY;BYDAY=20SA;BYMONTH=10", "BYDAY=20SA with BYMONTH"},
		{"VTODO", "FREQ=YEARLY;BYMONTH=1;BYDAY=-6MO", "BYDAY=-6MO with BYMONTH"},
	}
	for _, c := range cases {
		when := "DTSTART:20261003T090000Z"
		if c.component == "VTODO" {
			when = "DUE:20261003T090000Z"
		}
		data := "BEGIN:VCALENDAR\r\nBEGIN:" + c.component + "\r\nUID:x\r\n" + when + "\r\nRRULE:" + c.rule + "\r\nEND:" + c.component + "\r\nEND:VCALENDAR\r\n"
		cal := DecodeBytes([]byte(data), DecodeOptions{Zone: tz.MustZone("Europe/Paris")})
		if n := len(cal.Events) + len(cal.Tasks); n != 1 {
			t.Fatalf("%s: kept %d items, want 1", c.rule, n)
		}
		if len(cal.Events) == 1 && cal.Events[0].Rule != nil || len(cal.Tasks) == 1 && cal.Tasks[0].Rule != nil {
			t.Errorf("%s: the item kept its rule", c.rule)
		}
		if len(cal.Skipped) != 1 || !strings.Contains(cal.Skipped[0].Reason, c.want) || !strings.Contains(cal.Skipped[0].Reason, "without repeating") {
			t.Errorf("%s: skipped %+v, want one entry naming %q", c.rule, cal.Skipped, c.want)
		}
	}
}

// An event reaching past 9999-12-31T23:59:59 (its DTEND would need a
// five-digit year) is left out with a line in the import report.
func TestDecodePastTheCalendarEnd(t *testing.T) {
	for _, when := range []string{"DTSTART:99991231T233000Z\r\nDURATION:PT1H", "DTSTART;VALUE=DATE:99991231", "DTSTART;TZID=America/New_York:99991231T200000"} {
		data := "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\n" + when + "\r\nSUMMARY:late\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
		cal := DecodeBytes([]byte(data), DecodeOptions{Zone: tz.MustZone("Europe/Paris")})
		if len(cal.Events) != 0 || len(cal.Skipped) != 1 || !strings.Contains(cal.Skipped[0].Reason, "9999-12-31T23:59:59") {
			t.Errorf("%q: kept %d events, skipped %+v", when, len(cal.Events), cal.Skipped)
		}
	}
}

// A task due past 9999-12-31T23:59:59 in UTC is left out with a line in
// the import report.
func TestDecodeDuePastTheCalendarEnd(t *testing.T) {
	data := "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:x\r\nDUE;TZID=America/New_York:99991231T200000\r\nSUMMARY:late\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
	cal := DecodeBytes([]byte(data), DecodeOptions{Zone: tz.MustZone("Europe/Paris")})
	if len(cal.Tasks) != 0 || len(cal.Skipped) != 1 || !strings.Contains(cal.Skipped[0].Reason, "0001 to 9999") {
		t.Errorf("kept %d tasks, skipped %+v", len(cal.Tasks), cal.Skipped)
	}
}
