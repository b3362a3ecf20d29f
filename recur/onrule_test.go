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
