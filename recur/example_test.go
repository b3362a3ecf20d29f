package recur_test

import (
	"fmt"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// A rule is read as models and calendar files write it (an RRULE: prefix,
// lowercase, a trailing ";") and described in words; what RFC 5545 forbids
// is refused with a sentence saying what to write.
func ExampleParseRule() {
	r, err := recur.ParseRule("rrule:freq=weekly;byday=mo,th;")
	fmt.Println(r, err)
	fmt.Println(r.Describe())

	_, err = recur.ParseRule("FREQ=MONTHLY;COUNT=3;UNTIL=20261231")
	fmt.Println(err)
	// Output:
	// FREQ=WEEKLY;BYDAY=MO,TH <nil>
	// every week on Monday and Thursday
	// “rrule” has both COUNT and UNTIL; keep one of them.
}

// A series repeats in its own zone: a weekly 09:00 in Paris stays 09:00
// on the wall clock across the change to winter time, so its instant in
// UTC moves by an hour.
func ExampleSeries_Between() {
	paris := tz.MustZone("Europe/Paris")
	start, _ := tz.ParseMoment("2026-10-19T09:00")
	s := recur.Series{Start: start, Zone: paris, Rule: recur.MustRule("FREQ=WEEKLY;BYDAY=MO"), Duration: 30 * time.Minute}
	from := time.Date(2026, 10, 19, 0, 0, 0, 0, time.UTC)
	for _, o := range s.Between(from, from.AddDate(0, 0, 14)) {
		fmt.Println(o.Key(), tz.FormatModel(o.Start, paris), o.Start.UTC().Format("15:04Z"))
	}
	// Output:
	// 20261019T070000Z Mon 2026-10-19 09:00 (+02:00) 07:00Z
	// 20261026T080000Z Mon 2026-10-26 09:00 (+01:00) 08:00Z
}

// An occurrence whose time falls in a DST gap starts later by the gap, and
// is marked Moved; its key keeps the time the rule gave.
func ExampleSeries_All() {
	ny := tz.MustZone("America/New_York")
	start, _ := tz.ParseMoment("2027-03-13T02:30")
	s := recur.Series{Start: start, Zone: ny, Rule: recur.MustRule("FREQ=DAILY;COUNT=3")}
	for _, o := range s.All(10) {
		fmt.Println(o.Original, tz.FormatModel(o.Start, ny), o.Moved)
	}
	// Output:
	// 2027-03-13T02:30 Sat 2027-03-13 02:30 (-05:00) false
	// 2027-03-14T02:30 Sun 2027-03-14 03:30 (-04:00) true
	// 2027-03-15T02:30 Mon 2027-03-15 02:30 (-04:00) false
}

// Parts that never meet are refused when the rule is read; a rule that
// gives nothing after its start is refused by [Series.CheckOccurs] before
// the series is kept.
func ExampleSeries_CheckOccurs() {
	_, err := recur.ParseRule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30")
	fmt.Println(err)

	start, _ := tz.ParseMoment("2026-02-01")
	s := recur.Series{Start: start, Rule: recur.MustRule("FREQ=DAILY;UNTIL=20260115")}
	fmt.Println(s.CheckOccurs())
	// Output:
	// “rrule” can never occur: no month in BYMONTH has the days in BYMONTHDAY; for the last day of a month write BYMONTHDAY=-1, or pick days every listed month has (1 to 28).
	// “rrule” ends (UNTIL=20260115) before its start 2026-02-01, so it never repeats; write an UNTIL on or after the start, such as UNTIL=20270201, or leave “rrule” out for a single item.
}
