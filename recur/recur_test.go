package recur

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

func dt(s string) tz.DateTime {
	t, err := time.Parse("2006-01-02T15:04", s)
	if err != nil {
		panic(err)
	}
	return tz.FromUTCClock(t)
}

func dateOf(s string) tz.Date { return dt(s + "T00:00").Date }

func timed(zone, start, rule string) Series {
	s := Series{Start: tz.TimeMoment(dt(start)), Zone: tz.MustZone(zone)}
	if rule != "" {
		s.Rule = MustRule(rule)
	}
	return s
}

// local formats occurrences in zone, with offset, for readable asserts.
func local(occ []Occurrence, zone string) []string {
	loc := tz.MustZone(zone).Location()
	var out []string
	for _, o := range occ {
		out = append(out, o.Start.In(loc).Format("2006-01-02T15:04-07:00"))
	}
	return out
}

func wantList(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// rrule-go rejects CRLF, a trailing ";", lowercase keys and a prefix
// written in lowercase; we accept them and print one canonical form.
func TestParseRuleTolerant(t *testing.T) {
	cases := []struct{ in, want string }{
		{"FREQ=WEEKLY;BYDAY=MO", "FREQ=WEEKLY;BYDAY=MO"},
		{"RRULE:FREQ=WEEKLY;BYDAY=MO\r\n", "FREQ=WEEKLY;BYDAY=MO"},
		{"rrule:freq=weekly;byday=we,mo;", "FREQ=WEEKLY;BYDAY=MO,WE"},
		{" FREQ=DAILY ; INTERVAL = 2 ;\n", "FREQ=DAILY;INTERVAL=2"},
		{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1\r\n", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"},
		{"FREQ=YEARLY;INTERVAL=1;WKST=MO;BYMONTH=6,6,1", "FREQ=YEARLY;BYMONTH=1,6"},
		{"FREQ=WEEKLY;WKST=su;until=20261231", "FREQ=WEEKLY;UNTIL=20261231;WKST=SU"},
		{"FREQ=DAILY;UNTIL=19971224T000000Z", "FREQ=DAILY;UNTIL=19971224T000000Z"},
		{"FREQ=DAILY;UNTIL=20261231T235959", "FREQ=DAILY;UNTIL=20261231T235959"}, // UNTIL keeps its seconds,
		{"FREQ=MONTHLY;BYDAY=+1FR,-1su", "FREQ=MONTHLY;BYDAY=-1SU,1FR"},
		{"FREQ=WEEKLY;BYDAY=MO\r\n ;COUNT=3", "FREQ=WEEKLY;COUNT=3;BYDAY=MO"},
		{"FREQ=MINUTELY;BYSECOND=0", "FREQ=MINUTELY"},
	}
	for _, c := range cases {
		r, err := ParseRule(c.in)
		if err != nil {
			t.Errorf("ParseRule(%q): %v", c.in, err)
			continue
		}
		if r.String() != c.want {
			t.Errorf("ParseRule(%q).String() = %q, want %q", c.in, r.String(), c.want)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	cases := []struct{ in, mention string }{
		{"", "empty"},
		{"BYDAY=MO", "needs FREQ"},
		{"FREQ=FORTNIGHTLY", "FORTNIGHTLY"},
		{"FREQ=SECONDLY", "SECONDLY"},
		{"FREQ=WEEKLY;BYDAY=XX", "“XX”"},
		{"FREQ=WEEKLY;BYDAY=0MO", "“0MO”"},
		{"FREQ=WEEKLY;BYDAY=1MO", "BYDAY=1MO"},
		{"FREQ=WEEKLY;BYDAY=2WE", "FREQ=MONTHLY;BYDAY=2WE for the 2nd Wednesday of each month, or BYDAY=WE for every Wednesday"},
		{"FREQ=DAILY;BYDAY=-1FR", "FREQ=MONTHLY;BYDAY=-1FR for the last Friday of each month"},
		{"FREQ=WEEKLY;BYDAY=9MO", "write BYDAY=MO for every Monday"},
		{"FREQ=WEEKLY;COUNT=0", "COUNT=0"},
		{"FREQ=WEEKLY;COUNT=10;UNTIL=20261231", "both COUNT and UNTIL"},
		{"FREQ=WEEKLY;FREQ=DAILY", "FREQ twice"},
		{"FREQ=DAILY;BYMONTHDAY=32", "BYMONTHDAY=32"},
		{"FREQ=DAILY;BYMONTHDAY=0", "BYMONTHDAY=0"},
		{"FREQ=MONTHLY;BYWEEKNO=3", "BYWEEKNO"},
		{"FREQ=WEEKLY;BYMONTHDAY=3", "BYMONTHDAY"},
		{"FREQ=MONTHLY;BYYEARDAY=3", "BYYEARDAY"},
		{"FREQ=MONTHLY;BYSETPOS=1", "BYSETPOS without"},
		{"FREQ=HOURLY;BYHOUR=9;BYSETPOS=1", "BYSETPOS"},
		{"FREQ=DAILY;UNTIL=2026-12-31", "UNTIL=2026-12-31"},
		{"FREQ=DAILY;UNTIL=20260230", "UNTIL=20260230"},
		{"FREQ=DAILY;BYSECOND=30", "BYSECOND=30"},
		{"FREQ=DAILY;X-NAME=1", "“X-NAME”"},
		{"FREQ=DAILY;INTERVAL", "“INTERVAL”"},
		{"FREQ=DAILY;INTERVAL=", "empty INTERVAL"},
		{"FREQ=DAILY;INTERVAL=-2", "INTERVAL=-2"},
		{"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30,31", "never occur"},
		{"FREQ=MONTHLY;BYDAY=6MO", "at most 5"},
		{"RRULE:FREQ=YEARLY;BYDAY=20SA;BYMONTH=10", "BYDAY=20SA with BYMONTH"},
		{"FREQ=YEARLY;BYMONTH=1;BYDAY=-6MO", "BYDAY=-6MO with BYMONTH"},
		{"FREQ=YEARLY;BYMONTH=3,10;BYDAY=1SU,-53SU", "-1SU to -5SU"},
		{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=72", "at most 25 times"},
		{"FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6,-6", "at most 5 times"},
		{"FREQ=YEARLY;BYMONTH=2;BYDAY=1MO,-1MO;BYSETPOS=3", "at most 2 times"},
		{"FREQ=DAILY;BYHOUR=9,17;BYSETPOS=3", "each day gives at most 2"},
	}
	for _, c := range cases {
		_, err := ParseRule(c.in)
		if err == nil {
			t.Errorf("ParseRule(%q) accepted a bad rule", c.in)
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Name != "rrule" {
			t.Errorf("ParseRule(%q) error %#v: want an *Error named rrule", c.in, err)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "“rrule” ") || !strings.Contains(msg, c.mention) || !strings.HasSuffix(msg, ".") || strings.Count(msg, ". ") > 0 {
			t.Errorf("ParseRule(%q) error %q: want one sentence naming “rrule” and %q", c.in, msg, c.mention)
		}
	}
}

// rrule-go cannot read DTSTART;VALUE=DATE; an all-day series expands on
// dates and its occurrences start at 00:00 in the series' zone.
func TestParseSeriesAllDay(t *testing.T) {
	s, err := ParseSeries("dtstart;value=date:20261030\r\nRRULE:freq=daily;count=3;\r\n", tz.MustZone("Europe/Paris"))
	if err != nil {
		t.Fatal(err)
	}
	occ := s.All(10)
	wantList(t, local(occ, "Europe/Paris"), "2026-10-30T00:00+01:00", "2026-10-31T00:00+01:00", "2026-11-01T00:00+01:00")
	if !occ[0].AllDay || occ[0].Key() != "20261030" {
		t.Errorf("all-day occurrence key = %q (all-day %v), want 20261030", occ[0].Key(), occ[0].AllDay)
	}
	// The fall-back on 25 October makes that day 25 hours long.
	s, _ = ParseSeries("DTSTART;VALUE=DATE:20261025", tz.MustZone("Europe/Paris"))
	o := s.All(1)[0]
	if o.End.Sub(o.Start) != 25*time.Hour {
		t.Errorf("all-day 2026-10-25 in Paris lasts %v, want 25h", o.End.Sub(o.Start))
	}
}

func TestParseSeriesErrors(t *testing.T) {
	cases := []struct{ in, mention string }{
		{"RRULE:FREQ=DAILY", "“DTSTART” is missing"},
		{"DTSTART;TZID=Mars/Olympus:20261005T090000", "TZID=Mars/Olympus"},
		{"DTSTART:2026100", "“2026100”"},
		{"DTSTART;VALUE=DATE:20261005T090000", "VALUE=DATE"},
		{"DTSTART:20261005T090000\nRRULE:FREQ=DAILY\nRRULE:FREQ=WEEKLY", "“RRULE” is given twice"},
		{"DTSTART:20261005T090000\nSUMMARY:x", "“SUMMARY”"},
		{"DTSTART;VALUE=DATE:20261005\nRRULE:FREQ=HOURLY", "“rrule”"},
		{"DTSTART;VALUE=DATE:20261005\nRDATE:20261007T090000", "“rdates”"},
		{"DTSTART:20261005T090000\nRDATE;VALUE=PERIOD:20261007T090000/PT1H", "PERIOD"},
	}
	for _, c := range cases {
		_, err := ParseSeries(c.in, tz.UTC)
		if err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("ParseSeries(%q) = %v, want an error mentioning %q", c.in, err, c.mention)
		}
	}
}

func TestLinesRoundTrip(t *testing.T) {
	s := timed("America/New_York", "2026-03-02T09:00", "FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20261231T235900Z")
	s.ExDates = []tz.Moment{tz.TimeMoment(dt("2026-03-04T09:00")), tz.DayMoment(dateOf("2026-03-09"))}
	s.RDates = []tz.Moment{tz.TimeMoment(dt("2026-03-07T10:00"))}
	lines := s.Lines()
	want := []string{
		"DTSTART;TZID=America/New_York:20260302T090000",
		"RRULE:FREQ=WEEKLY;UNTIL=20261231T235900Z;BYDAY=MO,WE",
		"EXDATE;TZID=America/New_York:20260304T090000",
		"EXDATE;VALUE=DATE:20260309",
		"RDATE;TZID=America/New_York:20260307T100000",
	}
	wantList(t, lines, want...)
	back, err := ParseSeries(strings.Join(lines, "\r\n"), tz.UTC)
	if err != nil {
		t.Fatal(err)
	}
	wantList(t, back.Lines(), want...)
}

// rrule-go applies a date-only EXDATE to nothing in a timed series; it
// must remove that day's occurrence.
func TestDateExdateOnTimedSeries(t *testing.T) {
	s := timed("Europe/Paris", "2026-10-05T09:00", "FREQ=DAILY;COUNT=4")
	s.ExDates = []tz.Moment{tz.DayMoment(dateOf("2026-10-06")), tz.TimeMoment(dt("2026-10-07T09:00"))}
	wantList(t, local(s.All(10), "Europe/Paris"), "2026-10-05T09:00+02:00", "2026-10-08T09:00+02:00")
}

func TestDST(t *testing.T) {
	cases := []struct {
		name, zone, start, rule string
		want                    []string
		moved                   []bool
	}{
		{
			// rrule-go gives the later 02:30 (CET) east of UTC.
			name: "fall-back 02:30 occurs once at the earlier instant", zone: "Europe/Paris",
			start: "2026-10-24T02:30", rule: "FREQ=DAILY;COUNT=3",
			want:  []string{"2026-10-24T02:30+02:00", "2026-10-25T02:30+02:00", "2026-10-26T02:30+01:00"},
			moved: []bool{false, false, false},
		},
		{
			// rrule-go gives 01:30 west of UTC.
			name: "nonexistent 02:30 moves forward to 03:30", zone: "America/New_York",
			start: "2026-03-07T02:30", rule: "FREQ=DAILY;COUNT=3",
			want:  []string{"2026-03-07T02:30-05:00", "2026-03-08T03:30-04:00", "2026-03-09T02:30-04:00"},
			moved: []bool{false, true, false},
		},
		{
			// DST began at midnight; rrule-go puts that day's occurrence on the day before.
			name: "Sao Paulo midnight gap lands on the right day", zone: "America/Sao_Paulo",
			start: "2018-11-03T00:00", rule: "FREQ=DAILY;COUNT=3",
			want:  []string{"2018-11-03T00:00-03:00", "2018-11-04T01:00-02:00", "2018-11-05T00:00-02:00"},
			moved: []bool{false, true, false},
		},
		{
			// rrule-go keeps the shifted 03:30 for every later occurrence.
			name: "DTSTART in a gap keeps the written time later", zone: "America/New_York",
			start: "2026-03-08T02:30", rule: "FREQ=DAILY;COUNT=3",
			want:  []string{"2026-03-08T03:30-04:00", "2026-03-09T02:30-04:00", "2026-03-10T02:30-04:00"},
			moved: []bool{true, false, false},
		},
		{
			name: "hourly across spring-forward loses nothing", zone: "America/New_York",
			start: "2026-03-08T00:00", rule: "FREQ=HOURLY;COUNT=5",
			want: []string{"2026-03-08T00:00-05:00", "2026-03-08T01:00-05:00", "2026-03-08T03:00-04:00", "2026-03-08T04:00-04:00", "2026-03-08T05:00-04:00"},
		},
		{
			name: "hourly across fall-back doubles nothing and skips nothing", zone: "America/New_York",
			start: "2026-11-01T00:00", rule: "FREQ=HOURLY;COUNT=4",
			want: []string{"2026-11-01T00:00-04:00", "2026-11-01T01:00-04:00", "2026-11-01T01:00-05:00", "2026-11-01T02:00-05:00"},
		},
		{
			name: "hourly without COUNT, Paris spring-forward", zone: "Europe/Paris",
			start: "2026-03-29T00:30", rule: "FREQ=HOURLY;UNTIL=20260329T030000Z",
			want: []string{"2026-03-29T00:30+01:00", "2026-03-29T01:30+01:00", "2026-03-29T03:30+02:00", "2026-03-29T04:30+02:00"},
		},
		{
			name: "HOURLY with BYMINUTE expands in the local hour (half-hour zone)", zone: "Asia/Kolkata",
			start: "2026-01-01T09:00", rule: "FREQ=HOURLY;BYMINUTE=0,30;COUNT=4",
			want: []string{"2026-01-01T09:00+05:30", "2026-01-01T09:30+05:30", "2026-01-01T10:00+05:30", "2026-01-01T10:30+05:30"},
		},
		{
			name: "UNTIL in local form is compared as wall-clock time", zone: "Europe/Paris",
			start: "2026-10-23T09:00", rule: "FREQ=DAILY;UNTIL=20261026T090000",
			want: []string{"2026-10-23T09:00+02:00", "2026-10-24T09:00+02:00", "2026-10-25T09:00+01:00", "2026-10-26T09:00+01:00"},
		},
		{
			name: "UNTIL in UTC form is compared as an instant", zone: "Europe/Paris",
			start: "2026-10-23T09:00", rule: "FREQ=DAILY;UNTIL=20261026T075900Z",
			want: []string{"2026-10-23T09:00+02:00", "2026-10-24T09:00+02:00", "2026-10-25T09:00+01:00"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := timed(c.zone, c.start, c.rule)
			occ := s.All(20)
			wantList(t, local(occ, c.zone), c.want...)
			for i, m := range c.moved {
				if i < len(occ) && occ[i].Moved != m {
					t.Errorf("occurrence %d moved = %v, want %v", i, occ[i].Moved, m)
				}
			}
			for i := 1; i < len(occ); i++ {
				if !occ[i].Start.After(occ[i-1].Start) {
					t.Errorf("occurrences %d and %d are not in order", i-1, i)
				}
			}
			// The window path (no COUNT cache) must agree with All.
			first, _, _ := s.Bounds()
			if got := s.StartsBetween(first, first.Add(5*24*time.Hour)); len(got) < len(occ) && len(occ) > 0 {
				t.Errorf("StartsBetween found %d, All %d", len(got), len(occ))
			}
		})
	}
}

// A daily 02:30 series gives 03:30 on the spring-forward day only.
func TestDailyGapDayOnly(t *testing.T) {
	s := timed("Europe/Paris", "2026-03-27T02:30", "FREQ=DAILY")
	occ := s.Between(time.Date(2026, 3, 27, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC))
	wantList(t, local(occ, "Europe/Paris"), "2026-03-27T02:30+01:00", "2026-03-28T02:30+01:00", "2026-03-29T03:30+02:00", "2026-03-30T02:30+02:00")
	if occ[2].Original.String() != "2026-03-29T02:30" || !occ[2].Moved {
		t.Errorf("the gap-day occurrence keeps its written start as RECURRENCE-ID: got %s moved=%v", occ[2].Original, occ[2].Moved)
	}
}

// A weekly 09:00 Europe/Paris series stays 09:00 local across both changes.
func TestWeeklyParisStaysLocal(t *testing.T) {
	s := timed("Europe/Paris", "2026-01-05T09:00", "FREQ=WEEKLY")
	occ := s.Between(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
	if len(occ) != 52 {
		t.Fatalf("got %d Mondays in 2026, want 52", len(occ))
	}
	offsets := map[string]int{}
	for _, o := range occ {
		l := o.Start.In(tz.MustZone("Europe/Paris").Location())
		if l.Hour() != 9 || l.Minute() != 0 || l.Weekday() != time.Monday {
			t.Errorf("occurrence at %v, want Monday 09:00 local", l)
		}
		offsets[l.Format("-07:00")]++
	}
	if offsets["+01:00"] == 0 || offsets["+02:00"] == 0 {
		t.Errorf("want both winter and summer offsets, got %v", offsets)
	}
}

// A New York 09:00 series seen from Paris is 15:00, and 14:00 in the weeks
// when only one of the two zones has changed.
func TestNewYorkSeenFromParis(t *testing.T) {
	s := timed("America/New_York", "2026-03-02T09:00", "FREQ=WEEKLY")
	occ := s.Between(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 7, 0, 0, 0, 0, time.UTC))
	wantList(t, local(occ, "Europe/Paris"),
		"2026-03-02T15:00+01:00", "2026-03-09T14:00+01:00", "2026-03-16T14:00+01:00", "2026-03-23T14:00+01:00",
		"2026-03-30T15:00+02:00", "2026-04-06T15:00+02:00")
	occ = s.Between(time.Date(2026, 10, 19, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC))
	wantList(t, local(occ, "Europe/Paris"), "2026-10-19T15:00+02:00", "2026-10-26T14:00+01:00", "2026-11-02T15:00+01:00", "2026-11-09T15:00+01:00")
}

func TestMonthEnds(t *testing.T) {
	cases := []struct {
		name, start, rule string
		want              []string
	}{
		{"BYMONTHDAY=31 skips short months", "2026-01-31T10:00", "FREQ=MONTHLY;BYMONTHDAY=31;COUNT=4",
			[]string{"2026-01-31", "2026-03-31", "2026-05-31", "2026-07-31"}},
		{"monthly from the 31st skips short months too", "2026-01-31T10:00", "FREQ=MONTHLY;COUNT=3",
			[]string{"2026-01-31", "2026-03-31", "2026-05-31"}},
		{"BYMONTHDAY=-1 is the last day", "2026-01-31T10:00", "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=4",
			[]string{"2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30"}},
		{"Feb 29 yearly only in leap years", "2024-02-29T10:00", "FREQ=YEARLY;COUNT=3",
			[]string{"2024-02-29", "2028-02-29", "2032-02-29"}},
		{"last weekday of the month", "2026-01-30T10:00", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3",
			[]string{"2026-01-30", "2026-02-27", "2026-03-31"}},
		{"unsynchronised DTSTART counts as the first", "2026-03-03T10:00", "FREQ=WEEKLY;BYDAY=MO;COUNT=3",
			[]string{"2026-03-03", "2026-03-09", "2026-03-16"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, o := range timed("Europe/Paris", c.start, c.rule).All(10) {
				got = append(got, o.Original.Date.String())
			}
			wantList(t, got, c.want...)
		})
	}
}

func TestRDatesAndBounds(t *testing.T) {
	s := timed("Europe/Paris", "2026-10-05T09:00", "FREQ=WEEKLY;COUNT=2")
	s.Duration = time.Hour
	s.RDates = []tz.Moment{tz.TimeMoment(dt("2026-10-07T18:00")), tz.DayMoment(dateOf("2026-10-30")), tz.TimeMoment(dt("2026-10-12T09:00"))}
	wantList(t, local(s.All(10), "Europe/Paris"), "2026-10-05T09:00+02:00", "2026-10-07T18:00+02:00", "2026-10-12T09:00+02:00", "2026-10-30T09:00+01:00")
	first, last, bounded := s.Bounds()
	if !bounded || !first.Equal(time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)) || !last.Equal(time.Date(2026, 10, 30, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("Bounds = %v, %v, %v", first, last, bounded)
	}
	if _, _, b := timed("UTC", "2026-01-01T00:00", "FREQ=DAILY").Bounds(); b {
		t.Error("a never-ending series must not be bounded")
	}
	u := timed("Europe/Paris", "2026-01-01T09:00", "FREQ=DAILY;UNTIL=20260110T080000Z")
	if _, last, b := u.Bounds(); !b || last.Before(time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("UNTIL series bounds last = %v, %v", last, b)
	}
	if o, ok := u.After(time.Date(2026, 1, 10, 8, 0, 0, 0, time.UTC)); ok {
		t.Errorf("After the last occurrence gave %v", o.Start)
	}
	if o, ok := u.After(time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)); !ok || !o.Start.Equal(time.Date(2026, 1, 6, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("After = %v, %v", o.Start, ok)
	}
}

// Between overlaps: an occurrence that began before the window and is
// still running is included; one that ended at from is not.
func TestBetweenOverlap(t *testing.T) {
	s := timed("UTC", "2026-10-05T09:00", "FREQ=DAILY")
	s.Duration = 2 * time.Hour
	from := time.Date(2026, 10, 6, 10, 0, 0, 0, time.UTC)
	wantList(t, local(s.Between(from, from.Add(24*time.Hour)), "UTC"), "2026-10-06T09:00+00:00", "2026-10-07T09:00+00:00")
	from = time.Date(2026, 10, 6, 11, 0, 0, 0, time.UTC)
	wantList(t, local(s.Between(from, from.Add(24*time.Hour)), "UTC"), "2026-10-07T09:00+00:00")
}

func TestCheck(t *testing.T) {
	cases := []struct {
		s       Series
		mention string
	}{
		{Series{}, "“start”"},
		{Series{Start: tz.TimeMoment(dt("2026-01-01T09:00")), Duration: -time.Minute}, "“duration”"},
		{Series{Start: tz.DayMoment(dateOf("2026-01-01")), Rule: MustRule("FREQ=MINUTELY")}, "“rrule”"},
	}
	for _, c := range cases {
		if err := c.s.Check(); err == nil || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("Check(%+v) = %v, want an error naming %s", c.s, err, c.mention)
		}
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct{ rule, want string }{
		{"FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10", "every week on Monday and Wednesday, 10 times"},
		{"FREQ=DAILY;INTERVAL=2", "every 2 days"},
		{"FREQ=MONTHLY;BYDAY=1FR;UNTIL=20261224", "every month on the 1st Friday, until 2026-12-24"},
		{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "every month on Monday, Tuesday, Wednesday, Thursday or Friday, taking the last in each month"},
		{"FREQ=MONTHLY;BYMONTHDAY=-1", "every month on the last day"},
		{"FREQ=MONTHLY;INTERVAL=2;BYDAY=1SU,-1SU;COUNT=1", "every 2 months on the last Sunday and the 1st Sunday, once"},
		{"FREQ=YEARLY;BYMONTH=1,6", "every year in January and June"},
		{"FREQ=DAILY;BYHOUR=9;BYMINUTE=0,30;UNTIL=20261224T230000Z", "every day at 09:00 and 09:30, until 2026-12-24T23:00 UTC"},
		{"FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10", "every 20 minutes in hour 9 and 10"},
		{"FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", "every month on the 13th when it is Friday"},
	}
	for _, c := range cases {
		if got := MustRule(c.rule).Describe(); got != c.want {
			t.Errorf("Describe(%s) = %q, want %q", c.rule, got, c.want)
		}
	}
}

// Starting expansion near the window must give exactly what expanding from
// DTSTART gives, for every kind of rule; random series, fixed seed.
func TestJumpMatchesFullExpansion(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 45))
	rules := []string{
		"FREQ=DAILY", "FREQ=DAILY;INTERVAL=3", "FREQ=DAILY;BYDAY=MO,FR;BYHOUR=8,17",
		"FREQ=WEEKLY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU", "FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,SA",
		"FREQ=MONTHLY", "FREQ=MONTHLY;INTERVAL=5", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2",
		"FREQ=MONTHLY;BYMONTHDAY=31", "FREQ=MONTHLY;INTERVAL=2;BYDAY=-1FR", "FREQ=YEARLY", "FREQ=YEARLY;INTERVAL=2;BYMONTH=2;BYMONTHDAY=29",
		"FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO", "FREQ=YEARLY;BYWEEKNO=53", "FREQ=YEARLY;BYYEARDAY=-1,100", "FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
		"FREQ=HOURLY;INTERVAL=7", "FREQ=MINUTELY;INTERVAL=97;BYHOUR=1,2,3", "FREQ=DAILY;UNTIL=20300101T000000Z",
	}
	zones := []string{"Europe/Paris", "America/New_York", "Australia/Lord_Howe", "America/Sao_Paulo", "Asia/Kolkata"}
	for i := 0; i < 400; i++ {
		rule := rules[i%len(rules)]
		start := time.Date(2015+rng.IntN(10), time.Month(1+rng.IntN(12)), 1+rng.IntN(31), rng.IntN(24), 15*rng.IntN(4), 0, 0, time.UTC)
		s := Series{Start: tz.TimeMoment(tz.FromUTCClock(start)), Zone: tz.MustZone(zones[rng.IntN(len(zones))]), Rule: MustRule(rule)}
		if rng.IntN(4) == 0 {
			s.Start.HasTime = false
			s.Start.DateTime = s.Start.Date.At(0, 0)
			if s.Rule.freq > Daily {
				continue
			}
		}
		from := time.Date(2026+rng.IntN(4), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), 0, 0, 0, time.UTC)
		to := from.Add(time.Duration(1+rng.IntN(40*24)) * time.Hour)
		first, _, _ := s.Bounds()
		full := s.StartsBetween(first, to) // from DTSTART: no jump
		full = slices.DeleteFunc(full, func(o Occurrence) bool { return o.Start.Before(from) })
		near := s.StartsBetween(from, to)
		if !slices.EqualFunc(full, near, func(a, b Occurrence) bool { return a == b }) {
			t.Fatalf("%s from %s in %s, window %s–%s:\nfull %v\nnear %v", rule, s.Start, s.Zone, from, to, local(full, "UTC"), local(near, "UTC"))
		}
	}
}

func TestFixedClock(t *testing.T) {
	cases := []struct {
		rule string
		want bool
	}{
		{"FREQ=WEEKLY;BYDAY=MO,WE", true},
		{"FREQ=DAILY;COUNT=3", true},
		{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", true},
		{"FREQ=YEARLY;BYSECOND=0", true},
		{"FREQ=DAILY;BYHOUR=9", false},
		{"FREQ=WEEKLY;BYMINUTE=30", false},
		{"FREQ=HOURLY", false},
		{"FREQ=MINUTELY;INTERVAL=30", false},
	}
	for _, c := range cases {
		if got := MustRule(c.rule).FixedClock(); got != c.want {
			t.Errorf("%s: FixedClock() = %v, want %v", c.rule, got, c.want)
		}
	}
}

// A COUNT may reach past the 292 years a time.Duration holds and past
// where rrule-go stops without UNTIL; the last bound must still reach the
// real last occurrence.
func TestCountPast292Years(t *testing.T) {
	monthly := timed("Australia/Adelaide", "2015-08-23T09:00", "FREQ=MONTHLY;INTERVAL=3;COUNT=1453;BYMINUTE=0")
	_, last, _ := monthly.Bounds()
	if want, _ := monthly.Zone.Instant(dt("2378-08-23T09:00")); !last.Equal(want) {
		t.Errorf("quarterly COUNT=1453: last %v, want %v", last, want)
	}
	// BYMONTH listing every month matches every step, but takes the
	// stepping path that filters.
	hourly := timed("UTC", "2026-10-05T09:00", "FREQ=HOURLY;INTERVAL=1000;COUNT=3000;BYMONTH=1,2,3,4,5,6,7,8,9,10,11,12")
	_, last, _ = hourly.Bounds()
	// 2999 steps of 1000 h are 124958 days and 8 hours.
	if want := time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC).AddDate(0, 0, 124958).Add(8 * time.Hour); !last.Equal(want) {
		t.Errorf("hourly COUNT=3000: last %v, want %v", last, want)
	}
}
