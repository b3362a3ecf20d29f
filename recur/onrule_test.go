package recur

import (
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// TestLastRuleStart checks the last occurrence of a rule with COUNT
// against the whole expansion's (All), on and off the rule, across
// changes of offset, for all-day, timed and sub-daily series.
func TestLastRuleStart(t *testing.T) {
	cases := []struct {
		zone, start, rule string
	}{
		{"Europe/Paris", "2026-10-20T09:00", "FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=5"},
		{"Europe/Paris", "2026-10-19T09:00", "FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=5"},
		{"America/New_York", "2026-10-30T18:00", "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=4"},
		{"Europe/London", "2026-06-10", "FREQ=WEEKLY;BYDAY=SA,SU;COUNT=4"},
		{"Europe/Berlin", "2026-03-29T01:30", "FREQ=HOURLY;COUNT=3"},
		{"Europe/Berlin", "2026-03-28T02:30", "FREQ=DAILY;COUNT=3"},
		{"Australia/Lord_Howe", "2026-09-03T12:00", "FREQ=MONTHLY;BYDAY=1MO,-1FR;COUNT=30"},
		{"UTC", "2026-01-31", "FREQ=MONTHLY;COUNT=7"},
		{"Asia/Kolkata", "2026-03-02T09:00", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=2"},
	}
	for _, c := range cases {
		start, err := tz.ParseMoment(c.start)
		if err != nil {
			t.Fatal(err)
		}
		s := Series{Start: start, Zone: tz.MustZone(c.zone), Rule: MustRule(c.rule)}
		all := s.All(s.Rule.Count() + 1)
		got, ok := s.LastRuleStart()
		if !ok || len(all) == 0 || !got.Start.Equal(all[len(all)-1].Start) || got.Original != all[len(all)-1].Original {
			t.Errorf("%s %s %s: LastRuleStart %v %v, the expansion's last %v", c.zone, c.start, c.rule, got, ok, all[len(all)-1])
		}
	}
	if _, ok := (Series{Start: tz.DayMoment(tz.Date{Year: 2026, Month: 1, Day: 1}), Rule: MustRule("FREQ=DAILY")}).LastRuleStart(); ok {
		t.Error("a rule without COUNT has a last start")
	}
}

// TestCountUntil: the UNTIL written for a COUNT lies strictly between
// the last occurrence COUNT gives and the one after it (so a reader that
// reads either an hour off still gets the same set), and gives the same
// occurrences as COUNT.
func TestCountUntil(t *testing.T) {
	cases := []struct{ zone, start, rule string }{
		{"Europe/Berlin", "2027-01-05T09:00", "FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=40"},
		{"America/New_York", "2026-10-20T01:30", "FREQ=WEEKLY;BYDAY=SU;COUNT=3"},
		{"Europe/Paris", "2026-12-12T08:10", "FREQ=HOURLY;INTERVAL=3;BYMINUTE=0,30;COUNT=5"},
	}
	for _, c := range cases {
		start, _ := tz.ParseMoment(c.start)
		s := Series{Start: start, Zone: tz.MustZone(c.zone), Rule: MustRule(c.rule)}
		all := s.All(s.Rule.Count() + 1)
		last := all[len(all)-1]
		u, ok := s.CountUntil()
		open := Series{Start: start, Zone: s.Zone, Rule: MustRule(withoutEnd(c.rule))}
		next, _ := open.After(last.Start)
		if !ok || !u.Start.After(last.Start) || !u.Start.Before(next.Start) {
			t.Errorf("%s %s: UNTIL %v, not between the last %v and the next %v", c.start, c.rule, u.Start, last.Start, next.Start)
			continue
		}
		text := withoutEnd(c.rule) + ";UNTIL=" + u.Start.UTC().Format("20060102T150405Z")
		if got := (Series{Start: start, Zone: s.Zone, Rule: MustRule(text)}).All(1000); len(got) != len(all) {
			t.Errorf("%s: %d occurrences, COUNT gives %d", text, len(got), len(all))
		}
	}
	if _, ok := (Series{Start: tz.DayMoment(tz.Date{Year: 2026, Month: 1, Day: 1}), Rule: MustRule("FREQ=DAILY")}).CountUntil(); ok {
		t.Error("a rule without COUNT has a last start")
	}
}

// TestStartOnRuleUnknown: what StartOnRule cannot tell is not called off
// the rule.
func TestStartOnRuleUnknown(t *testing.T) {
	for _, s := range []Series{
		{Start: tz.DayMoment(tz.Date{Year: 2026, Month: 12, Day: 1})},
		{Start: tz.DayMoment(tz.Date{Year: 1, Month: 1, Day: 2}), Rule: MustRule("FREQ=WEEKLY;BYDAY=MO")},
	} {
		if on, known := s.StartOnRule(); known {
			t.Errorf("%v: known, on %v", s.Start, on)
		}
	}
}
