package tz_test

import (
	"fmt"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// A zone is loaded by its IANA name, and a misspelt one is refused with the
// closest real name; [LoadZoneLoose] reads what a person typed, in any case.
func ExampleLoadZone() {
	paris, err := tz.LoadZone("Europe/Paris")
	fmt.Println(paris.Name(), err)

	_, err = tz.LoadZone("Europe/Pari")
	fmt.Println(err)
	loose, _ := tz.LoadZoneLoose(" europe/paris ") // what a person typed
	fmt.Println(loose.Name())
	// Output:
	// Europe/Paris <nil>
	// "Europe/Pari" is not an IANA time zone; write Europe/Paris, the closest real name
	// Europe/Paris
}

// A civil time becomes an instant in a zone, and an instant is shown as a
// person reads it: weekday, civil date, time and the offset in force.
func ExampleZone_Instant() {
	paris := tz.MustZone("Europe/Paris")
	dt, _ := tz.ParseDateTime("2026-10-06T09:00")
	t, moved := paris.Instant(dt)
	fmt.Println(t.UTC().Format(time.RFC3339), moved)
	fmt.Println(tz.FormatModel(t, paris))
	fmt.Println(tz.FormatModel(t, tz.MustZone("America/New_York")))
	// Output:
	// 2026-10-06T07:00:00Z false
	// Tue 2026-10-06 09:00 (+02:00)
	// Tue 2026-10-06 03:00 (-04:00)
}

// A time in a DST gap does not exist: it moves forward by the gap (RFC 5545
// §3.3.5), and moved says so. A time the clocks show twice is the earlier.
func ExampleZone_Instant_gap() {
	paris := tz.MustZone("Europe/Paris")
	gap, _ := tz.ParseDateTime("2026-03-29T02:30") // clocks jump from 02:00 to 03:00
	t, moved := paris.Instant(gap)
	fmt.Println(tz.FormatModel(t, paris), moved)

	twice, _ := tz.ParseDateTime("2026-10-25T02:30") // clocks go back from 03:00 to 02:00
	t, moved = paris.Instant(twice)
	fmt.Println(tz.FormatModel(t, paris), moved, t.UTC().Format(time.RFC3339))
	// Output:
	// Sun 2026-03-29 03:30 (+02:00) true
	// Sun 2026-10-25 02:30 (+02:00) false 2026-10-25T00:30:00Z
}

// A moment is a day (all-day, no zone) or a civil time; a day's instants in
// a zone are [Zone.DayBounds], 23 hours long on a spring-forward day.
func ExampleParseMoment() {
	day, _ := tz.ParseMoment("2026-03-29")
	at, _ := tz.ParseMoment("2026-03-29T09:00")
	fmt.Println(day, day.HasTime, at, at.HasTime)

	start, end := tz.MustZone("Europe/Paris").DayBounds(day.Date)
	fmt.Println(end.Sub(start))
	// Output:
	// 2026-03-29 false 2026-03-29T09:00 true
	// 23h0m0s
}
