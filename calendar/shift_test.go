package calendar

import (
	"errors"
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// Shift moves every occurrence by the same wall-clock shift: DTSTART, the
// rule's weekdays and UNTIL, EXDATEs and RDATEs along; COUNT is kept.
func TestShift(t *testing.T) {
	for _, c := range []struct {
		name           string
		start, zone    string
		rule           string
		ex, rd         []string
		from, to, into string // into: the new zone, "" for the same
		rrule, want    string
	}{
		{name: "later keeps the last occurrence (UTC UNTIL)", start: "2026-10-05T10:00", zone: "Europe/Paris",
			rule: "FREQ=WEEKLY;BYDAY=MO;UNTIL=20261019T080000Z", from: "2026-10-05T10:00", to: "2026-10-05T12:00",
			rrule: "FREQ=WEEKLY;UNTIL=20261019T100000Z;BYDAY=MO",
			want:  "2026-10-05T12:00:00+02:00 2026-10-12T12:00:00+02:00 2026-10-19T12:00:00+02:00"},
		{name: "earlier brings nothing back", start: "2026-10-05T10:00", zone: "UTC",
			rule: "FREQ=WEEKLY;UNTIL=20261026T095900Z", from: "2026-10-05T10:00", to: "2026-10-05T08:00",
			rrule: "FREQ=WEEKLY;UNTIL=20261026T075900Z",
			want:  "2026-10-05T08:00:00+00:00 2026-10-12T08:00:00+00:00 2026-10-19T08:00:00+00:00"},
		{name: "UNTIL across the fall-back change keeps its wall time", start: "2026-10-19T10:00", zone: "Europe/Paris",
			rule: "FREQ=WEEKLY;UNTIL=20261102T090000Z", from: "2026-10-19T10:00", to: "2026-10-19T11:00",
			rrule: "FREQ=WEEKLY;UNTIL=20261102T100000Z",
			want:  "2026-10-19T11:00:00+02:00 2026-10-26T11:00:00+01:00 2026-11-02T11:00:00+01:00"},
		{name: "local UNTIL keeps its form", start: "2026-10-05T10:00", zone: "Europe/Paris",
			rule: "FREQ=DAILY;UNTIL=20261007T100000", from: "2026-10-05T10:00", to: "2026-10-05T09:15",
			rrule: "FREQ=DAILY;UNTIL=20261007T091500",
			want:  "2026-10-05T09:15:00+02:00 2026-10-06T09:15:00+02:00 2026-10-07T09:15:00+02:00"},
		{name: "UNTIL keeps its seconds", start: "2026-09-24T14:09", zone: "Europe/Paris",
			rule: "FREQ=WEEKLY;UNTIL=20261001T115359Z", from: "2026-09-24T14:09", to: "2026-09-24T15:09",
			rrule: "FREQ=WEEKLY;UNTIL=20261001T125359Z", want: "2026-09-24T15:09:00+02:00"},
		{name: "COUNT moves by itself", start: "2026-10-05T10:00", zone: "UTC",
			rule: "FREQ=WEEKLY;COUNT=2", from: "2026-10-12T10:00", to: "2026-10-12T14:00",
			rrule: "FREQ=WEEKLY;COUNT=2", want: "2026-10-05T14:00:00+00:00 2026-10-12T14:00:00+00:00"},
		{name: "a day move takes BYDAY and UNTIL along", start: "2026-10-05T10:00", zone: "UTC",
			rule: "FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20261014T100000Z", from: "2026-10-07T10:00", to: "2026-10-08T10:00",
			rrule: "FREQ=WEEKLY;UNTIL=20261015T100000Z;BYDAY=TU,TH",
			want:  "2026-10-06T10:00:00+00:00 2026-10-08T10:00:00+00:00 2026-10-13T10:00:00+00:00 2026-10-15T10:00:00+00:00"},
		{name: "EXDATE and RDATE along", start: "2026-10-05T10:00", zone: "UTC",
			rule: "FREQ=DAILY;COUNT=3", ex: []string{"2026-10-06T10:00"}, rd: []string{"2026-10-09T10:00"},
			from: "2026-10-05T10:00", to: "2026-10-05T11:00",
			rrule: "FREQ=DAILY;COUNT=3", want: "2026-10-05T11:00:00+00:00 2026-10-07T11:00:00+00:00 2026-10-09T11:00:00+00:00"},
		{name: "a day-only EXDATE that removes nothing removes nothing after a move", start: "2026-11-02T23:00", zone: "America/Sao_Paulo",
			rule: "FREQ=DAILY;INTERVAL=3;COUNT=3", ex: []string{"2026-11-04"}, rd: []string{"2026-11-05T02:00"},
			from: "2026-11-02T23:00", to: "2026-11-04T00:00", rrule: "FREQ=DAILY;INTERVAL=3;COUNT=3",
			want: "2026-11-04T00:00:00-03:00 2026-11-06T03:00:00-03:00 2026-11-07T00:00:00-03:00 2026-11-10T00:00:00-03:00"},
		{name: "a day-only EXDATE moves as the occurrences it removes", start: "2026-11-02T23:00", zone: "America/Sao_Paulo",
			rule: "FREQ=DAILY;INTERVAL=3;COUNT=3", ex: []string{"2026-11-05"}, rd: []string{"2026-11-05T02:00"},
			from: "2026-11-02T23:00", to: "2026-11-04T00:00", rrule: "FREQ=DAILY;INTERVAL=3;COUNT=3",
			want: "2026-11-04T00:00:00-03:00 2026-11-10T00:00:00-03:00"},
		{name: "DTSTART in a DST gap keeps its wall-clock rule", start: "2027-03-21T01:00", zone: "Europe/London",
			rule: "FREQ=WEEKLY;COUNT=3", from: "2027-03-21T01:00", to: "2027-03-21T09:00",
			rrule: "FREQ=WEEKLY;COUNT=3", want: "2027-03-21T09:00:00+00:00 2027-03-28T09:00:00+01:00 2027-04-04T09:00:00+01:00"},
		{name: "all-day: a date UNTIL moves by days", start: "2026-10-05", zone: "UTC",
			rule: "FREQ=WEEKLY;UNTIL=20261019", ex: []string{"2026-10-12"}, from: "2026-10-05", to: "2026-10-07",
			rrule: "FREQ=WEEKLY;UNTIL=20261021", want: "2026-10-07 2026-10-21"},
		{name: "zone change keeps the wall time (UNTIL too)", start: "2026-10-05T10:00", zone: "Europe/Paris",
			rule: "FREQ=WEEKLY;UNTIL=20261019T080000Z", from: "2026-10-05T10:00", to: "2026-10-05T10:00", into: "America/New_York",
			rrule: "FREQ=WEEKLY;UNTIL=20261019T140000Z",
			want:  "2026-10-05T10:00:00-04:00 2026-10-12T10:00:00-04:00 2026-10-19T10:00:00-04:00"},
		{name: "no rule", start: "2026-10-05T10:00", zone: "UTC", rd: []string{"2026-10-08T10:00"},
			from: "2026-10-05T10:00", to: "2026-10-06T09:00", want: "2026-10-06T09:00:00+00:00 2026-10-09T09:00:00+00:00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := series(t, c.start, c.zone, c.rule, c.ex, c.rd)
			zone := s.Zone
			if c.into != "" {
				zone = tz.MustZone(c.into)
			}
			n, _, err := Shift(s, moment(t, c.from), moment(t, c.to), zone)
			if err != nil {
				t.Fatal(err)
			}
			if got := ruleText(n.Rule); got != c.rrule {
				t.Errorf("rule %s, want %s", got, c.rrule)
			}
			if got := starts(n); got != c.want {
				t.Errorf("occurrences\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// A day move the rule's days cannot follow is a DaysError with a rule to
// write instead; a plain BYDAY list moves.
func TestShiftRefusesDaysThatCannotMove(t *testing.T) {
	for _, c := range []struct{ rule, example string }{
		{"FREQ=MONTHLY;BYMONTHDAY=5", "FREQ=MONTHLY;BYMONTHDAY=6"},
		{"FREQ=MONTHLY;BYDAY=1MO", "FREQ=MONTHLY;BYDAY=1TU"},
		{"FREQ=YEARLY;BYYEARDAY=278", "FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=6"},
		{"FREQ=YEARLY;BYWEEKNO=41;BYDAY=MO", "FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=6"},
	} {
		s := series(t, "2026-10-05T10:00", "UTC", c.rule, nil, nil)
		_, _, err := Shift(s, s.Start, moment(t, "2026-10-06T10:00"), s.Zone)
		var de *DaysError
		if !errors.As(err, &de) || de.Days != 1 || de.Example != c.example {
			t.Errorf("%s moved a day: err %v, want a DaysError suggesting %s", c.rule, err, c.example)
		}
	}
}

// A MONTHLY or YEARLY rule that takes its day from DTSTART moves only
// where every month (every year) moves its occurrence by the same days;
// elsewhere the refusal says the day comes from the start.
func TestShiftOfADayFromTheStart(t *testing.T) {
	for _, c := range []struct {
		rule, start, to string
		ok              bool
	}{
		{"FREQ=MONTHLY", "2026-10-05T10:00", "2026-10-12T10:00", true},
		{"FREQ=MONTHLY", "2026-10-22T10:00", "2026-10-29T10:00", false}, // no 29th in February
		{"FREQ=MONTHLY", "2026-10-28T10:00", "2026-11-04T10:00", false}, // across a month end
		{"FREQ=MONTHLY", "2026-10-31T10:00", "2026-10-30T10:00", false}, // from the 31st
		{"FREQ=MONTHLY;COUNT=4", "2026-10-28", "2026-10-27", true},
		{"FREQ=MONTHLY;UNTIL=20270402", "2026-09-28", "2026-09-30", false},
		{"FREQ=YEARLY", "2026-10-28T10:00", "2026-11-04T10:00", true},
		{"FREQ=YEARLY", "2026-02-27T10:00", "2026-03-02T10:00", false}, // leap years differ
		{"FREQ=YEARLY", "2027-02-28", "2027-02-27", true},
		{"FREQ=MONTHLY;BYDAY=MO", "2026-10-26T10:00", "2026-11-03T10:00", true}, // every Monday: plain weekdays
	} {
		s := series(t, c.start, "UTC", c.rule, nil, nil)
		n, _, err := Shift(s, s.Start, moment(t, c.to), s.Zone)
		var de *DaysError
		switch {
		case c.ok && err != nil:
			t.Errorf("%s from %s to %s refused: %v", c.rule, c.start, c.to, err)
		case !c.ok && (!errors.As(err, &de) || !de.FromStart):
			t.Errorf("%s from %s to %s: err %v, want a DaysError with FromStart (occurrences %s)", c.rule, c.start, c.to, err, starts(n))
		}
	}
}
