package recur

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// CheckOccurs accepts a rule exactly when the bounded search for the next
// occurrence (Series.After, as the tools and reminders use it) finds one
// after DTSTART, and its sentence names the cause it can tell.
func TestCheckOccursAgreesWithTheSearch(t *testing.T) {
	start := tz.TimeMoment(tz.Date{Year: 2026, Month: 10, Day: 20}.At(3, 0))
	for _, c := range []struct {
		rule  string
		next  string // the next occurrence (its Original), or "" when refused
		cause string // a word of the sentence when refused
	}{
		{"FREQ=MINUTELY;BYMONTH=12;BYMONTHDAY=25;BYDAY=SU;BYHOUR=3;BYMINUTE=0", "2033-12-25T03:00", ""},
		{"FREQ=MINUTELY;BYMONTH=12;BYMONTHDAY=13;BYDAY=FR", "2030-12-13T00:00", ""},
		{"FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", "2044-02-29T00:00", ""},
		{"FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", "", ""}, // refused by ParseRule or CheckOccurs
		{"FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;BYHOUR=5", "2044-02-29T05:00", ""},
		{"FREQ=HOURLY;INTERVAL=7;BYMONTH=12;BYMONTHDAY=25", "2026-12-25T01:00", ""},
		{"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", "2044-02-29T03:00", ""},
		{"FREQ=DAILY;COUNT=5;BYMONTH=2;BYMONTHDAY=29;INTERVAL=365", "", "INTERVAL=365 skips"},
		{"FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29", "", "INTERVAL=4 skips"},
		{"FREQ=YEARLY;INTERVAL=2;BYMONTH=2;BYMONTHDAY=29", "2028-02-29T03:00", ""},
		{"FREQ=WEEKLY;BYDAY=MO;COUNT=3", "2026-10-26T03:00", ""},
		{"FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=4,6", "", "BY parts"},
	} {
		r, err := ParseRule(c.rule)
		if err != nil {
			if c.next != "" {
				t.Errorf("%s: ParseRule: %v", c.rule, err)
			}
			continue
		}
		s := Series{Start: start, Zone: tz.UTC, Rule: r, Duration: time.Hour}
		first := s.place(civilOf(s.Start))
		next, found := s.After(first.Start)
		err = s.CheckOccurs()
		if (err == nil) != found {
			t.Errorf("%s: CheckOccurs %v, but the search found %v (%v)", c.rule, err, found, next.Original)
		}
		switch {
		case c.next != "" && (!found || next.Original.String() != c.next):
			t.Errorf("%s: next %v (%v), want %s", c.rule, next.Original, found, c.next)
		case c.next == "" && err == nil:
			t.Errorf("%s: accepted, want refused", c.rule)
		case c.next == "" && !strings.Contains(err.Error(), c.cause):
			t.Errorf("%s: %v, want it to name %q", c.rule, err, c.cause)
		}
	}
}
