package recur

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// UNTIL is given back with the seconds it was written with.
func TestUntilKeepsItsSeconds(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"FREQ=WEEKLY;UNTIL=20260924T115359Z", "FREQ=WEEKLY;UNTIL=20260924T115359Z"},
		{"FREQ=WEEKLY;UNTIL=20260924T115359", "FREQ=WEEKLY;UNTIL=20260924T115359"},
		{"FREQ=WEEKLY;UNTIL=20260924T115300Z", "FREQ=WEEKLY;UNTIL=20260924T115300Z"},
		{"FREQ=WEEKLY;UNTIL=20261231T235960Z", "FREQ=WEEKLY;UNTIL=20261231T235959Z"},
	} {
		r, err := ParseRule(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if r.String() != c.want {
			t.Errorf("%s gives %s, want %s", c.in, r.String(), c.want)
		}
	}
	// The seconds decide nothing: occurrences start on whole minutes, and
	// one at 11:53 is still within UNTIL=…T115359Z.
	s := Series{Start: tz.TimeMoment(tz.Date{Year: 2026, Month: 9, Day: 3}.At(11, 53)), Zone: tz.UTC,
		Rule: MustRule("FREQ=WEEKLY;UNTIL=20260924T115359Z")}
	if n := len(s.All(10)); n != 4 {
		t.Errorf("weekly from 2026-09-03 11:53 until 2026-09-24 11:53:59 gives %d occurrences, want 4", n)
	}
}

// A rule that gives nothing after DTSTART is refused when written, naming
// “rrule” and saying what to write instead.
func TestCheckOccursRefusesRulesThatNeverRepeat(t *testing.T) {
	at := func(y int, m time.Month, d, h, mi int) tz.Moment {
		return tz.TimeMoment(tz.Date{Year: y, Month: m, Day: d}.At(h, mi))
	}
	paris := tz.MustZone("Europe/Paris")
	cases := []struct {
		start tz.Moment
		rule  string
		want  string // "" when accepted
	}{
		{at(2026, 9, 24, 14, 9), "FREQ=WEEKLY;UNTIL=20260924T115359Z", "ends (UNTIL=20260924T115359Z) before its start"},
		{at(2026, 9, 24, 14, 9), "FREQ=WEEKLY;UNTIL=20260923", "before its start"},
		{at(2026, 9, 24, 14, 9), "FREQ=WEEKLY;UNTIL=20260930T000000", "before its second occurrence (2026-10-01T14:09)"},
		{at(2026, 9, 24, 14, 9), "FREQ=WEEKLY;UNTIL=20261001T120900Z", ""},
		{at(2026, 10, 6, 9, 0), "FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2", "leave BYMONTH out"},
		{at(2026, 10, 6, 9, 0), "FREQ=YEARLY;BYYEARDAY=60;BYMONTH=2,3", ""},
		{at(2026, 10, 6, 9, 0), "FREQ=YEARLY;INTERVAL=1000;COUNT=20", "only 8 occurrences fall before the year 10000; write COUNT=8 or less"},
		{at(2026, 10, 6, 9, 0), "FREQ=YEARLY;INTERVAL=1000;COUNT=8", ""},
		{at(2026, 10, 6, 9, 0), "FREQ=YEARLY;INTERVAL=1000", ""},
		{at(2026, 10, 6, 9, 0), "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", ""},
		{at(2026, 10, 6, 9, 0), "FREQ=YEARLY;BYWEEKNO=1;BYMONTH=6", "no day meets all of its BY parts"},
		{tz.DayMoment(tz.Date{Year: 2026, Month: 9, Day: 24}), "FREQ=DAILY;UNTIL=20260924", "before its second occurrence"},
		// Near the calendar's end the search runs out of calendar, not of
		// BY parts (it said to write fewer of them, to a rule with none).
		{at(9999, 12, 31, 23, 59), "FREQ=YEARLY", "gives no occurrence after its first, 9999-12-31T23:59, before the calendar ends on 9999-12-31; write an earlier first occurrence"},
		{at(9999, 12, 30, 9, 0), "FREQ=WEEKLY;BYDAY=MO", "before the calendar ends on 9999-12-31"},
		{at(9990, 1, 1, 10, 0), "FREQ=YEARLY;INTERVAL=20", "before the calendar ends on 9999-12-31"},
	}
	for _, c := range cases {
		r, err := ParseRule(c.rule)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		err = Series{Start: c.start, Zone: paris, Rule: r}.CheckOccurs()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s from %s refused: %v", c.rule, c.start, err)
		case c.want != "" && err == nil:
			t.Errorf("%s from %s accepted, want %q", c.rule, c.start, c.want)
		case c.want != "":
			e, ok := err.(*Error)
			if !ok || e.Name != "rrule" || !strings.Contains(e.Sentence, c.want) || !strings.Contains(e.Sentence, "write") {
				t.Errorf("%s from %s: %v, want “rrule” … %q … write …", c.rule, c.start, err, c.want)
			}
		}
	}
}

// A rule stored before it was refused ends every search for the next
// occurrence within MaxSearchWork iterations, with "none".
func TestAfterEndsOnARuleThatNeverOccurs(t *testing.T) {
	for _, rule := range []string{
		"FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2",
		"FREQ=HOURLY;BYYEARDAY=366;BYMONTH=2",
		"FREQ=YEARLY;INTERVAL=1000;COUNT=20",
		"FREQ=YEARLY;BYWEEKNO=1;BYMONTH=6",
	} {
		w := &work{limit: MaxSearchWork}
		s := Series{Start: tz.TimeMoment(tz.Date{Year: 2026, Month: 10, Day: 6}.At(9, 0)), Zone: tz.UTC, Rule: MustRule(rule), work: w}
		after := time.Date(2026, 10, 6, 9, 0, 0, 0, time.UTC)
		if strings.Contains(rule, "COUNT") {
			after = time.Date(9026, 10, 6, 9, 0, 0, 0, time.UTC)
		}
		if o, ok := s.After(after); ok {
			t.Errorf("%s: After found %s", rule, o.Start)
		}
		if w.n > MaxSearchWork+2*maxSteps {
			t.Errorf("%s: After spent %d iterations, more than %d", rule, w.n, MaxSearchWork+2*maxSteps)
		}
	}
}

// CheckOccurs judges the rule, not the EXDATEs: a COUNT=2 rule whose
// second occurrence is deleted still repeats (an export of such a series
// re-imports as it was, not as its DTSTART alone).
func TestCheckOccursIgnoresExDates(t *testing.T) {
	start := tz.TimeMoment(tz.Date{Year: 2027, Month: 10, Day: 10}.At(0, 30))
	for _, rule := range []string{"FREQ=MONTHLY;COUNT=2", "FREQ=DAILY;COUNT=3", "FREQ=WEEKLY;UNTIL=20271018T000000Z"} {
		s := Series{Start: start, Zone: tz.MustZone("Pacific/Chatham"), Rule: MustRule(rule)}
		for _, o := range s.All(5)[1:] {
			s.ExDates = append(s.ExDates, o.Original)
		}
		if len(s.ExDates) == 0 {
			t.Fatalf("%s: no occurrence after the first to delete", rule)
		}
		if err := s.CheckOccurs(); err != nil {
			t.Errorf("%s with every later occurrence deleted (EXDATE) is refused: %v", rule, err)
		}
	}
}
