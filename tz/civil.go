// Package tz is the time model of assistant: civil days ([Date]) and civil
// date-times at minute precision ([DateTime]), either of them as a
// [Moment], IANA zones ([Zone], loaded by [LoadZone] or, for what a person
// typed, [LoadZoneLoose]), and the RFC 5545 rules for turning a civil time
// in a zone into an instant ([Zone.Instant]: a time in a DST gap moves
// forward by the gap, a time the clocks show twice is the earlier), as
// docs/design.md ("Time") describes.
//
// Nothing here reads the process's TZ, and no result depends on the wall
// clock: zones and "now" always come from the caller. (Only the index of
// time zone abbreviations, for [AbbreviationHint], is built from the
// abbreviations in use within a year of the day the process starts.)
package tz

import (
	"fmt"
	"time"
)

// Date is a civil day with no zone (an all-day date, RFC 5545 VALUE=DATE).
// The zero Date is not a valid day; IsZero reports it.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateTime is a civil date and wall-clock time at minute precision, with no
// zone attached. It is the form in which events and timed dues are written
// and stored ("2026-10-05T09:00").
type DateTime struct {
	Date
	Hour   int // 0–23
	Minute int // 0–59
	// Fold picks the later of the two instants when a zone's clock reads
	// this time twice (the repeated hour of a fall-back change), as
	// Python's fold attribute does (PEP 495). Zone.In sets it for an
	// instant in the repeated hour and Zone.Instant honours it; elsewhere
	// it is false, so a civil time written without an offset is the
	// earlier instant (RFC 5545 §3.3.5). It is not part of the text forms
	// (String, Basic): keep the instant beside the text and restore it
	// with Zone.Reading.
	Fold bool
}

// Moment is either an all-day Date (HasTime false) or a civil DateTime
// (HasTime true). Its canonical text is "2026-10-05" or "2026-10-05T09:00".
type Moment struct {
	DateTime
	HasTime bool
}

// DateOf returns the civil day of t as read in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// DateTimeOf returns the civil date-time of t in t's own location, with
// seconds and below cut (not rounded).
func DateTimeOf(t time.Time) DateTime {
	return DateTime{Date: DateOf(t), Hour: t.Hour(), Minute: t.Minute()}
}

// NewDate returns the Date y-m-d and whether that day exists (2026-02-30
// does not; it is never rolled into the next month).
func NewDate(y int, m time.Month, d int) (Date, bool) {
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) || y < 1 || y > 9999 {
		return Date{}, false
	}
	return Date{y, m, d}, true
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d.Year == 0 && d.Month == 0 && d.Day == 0 }

// String gives the canonical ISO 8601 extended form, "2026-10-05".
func (d Date) String() string {
	var b [len("2026-10-05T09:00")]byte
	if n, ok := d.appendTo(b[:0]); ok {
		return string(n)
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// appendTo appends String's form of d to b without fmt (a list page
// writes a hundred of these), for the years 0–9999 and a month and day of
// two digits at most; ok is false for any other d, which String writes
// with fmt as before.
func (d Date) appendTo(b []byte) ([]byte, bool) {
	if d.Year < 0 || d.Year > 9999 || d.Month < 0 || d.Month > 99 || d.Day < 0 || d.Day > 99 {
		return b, false
	}
	y := d.Year
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	return append(b, byte('0'+d.Month/10), byte('0'+d.Month%10), '-', byte('0'+d.Day/10), byte('0'+d.Day%10)), true
}

// Basic gives the RFC 5545 DATE form, "20261005".
func (d Date) Basic() string { return fmt.Sprintf("%04d%02d%02d", d.Year, int(d.Month), d.Day) }

// utc is d at 00:00 UTC, for calendar arithmetic only.
func (d Date) utc() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// AddDays returns d moved by n calendar days (n may be negative).
func (d Date) AddDays(n int) Date { return DateOf(d.utc().AddDate(0, 0, n)) }

// DaysUntil returns the number of calendar days from d to e (negative when
// e is before d).
//
// Computed on Unix seconds, not time.Duration, which saturates past 292
// years and would make 0001-01-01 → 9999-12-31 wrong.
func (d Date) DaysUntil(e Date) int { return int((e.utc().Unix() - d.utc().Unix()) / 86400) }

// Weekday returns the day of the week of d.
func (d Date) Weekday() time.Weekday { return d.utc().Weekday() }

// Compare returns -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int { return d.utc().Compare(e.utc()) }

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.Compare(e) > 0 }

// At returns the civil date-time of d at hh:mm.
func (d Date) At(hour, minute int) DateTime { return DateTime{Date: d, Hour: hour, Minute: minute} }

// String gives the canonical form "2026-10-05T09:00".
func (dt DateTime) String() string {
	var b [len("2026-10-05T09:00")]byte
	if n, ok := dt.Date.appendTo(b[:0]); ok && dt.Hour >= 0 && dt.Hour <= 99 && dt.Minute >= 0 && dt.Minute <= 99 {
		return string(append(n, 'T', byte('0'+dt.Hour/10), byte('0'+dt.Hour%10), ':', byte('0'+dt.Minute/10), byte('0'+dt.Minute%10)))
	}
	return fmt.Sprintf("%sT%02d:%02d", dt.Date.String(), dt.Hour, dt.Minute)
}

// Basic gives the RFC 5545 local DATE-TIME form, "20261005T090000".
func (dt DateTime) Basic() string {
	return fmt.Sprintf("%sT%02d%02d00", dt.Date.Basic(), dt.Hour, dt.Minute)
}

// asUTC is dt read as if it were UTC: a total order on civil times and the
// base of civil arithmetic. It is not an instant.
func (dt DateTime) asUTC() time.Time {
	return time.Date(dt.Year, dt.Month, dt.Day, dt.Hour, dt.Minute, 0, 0, time.UTC)
}

// AsUTC returns dt as if it were a UTC time. It is not an instant; use it
// to hand civil times to code that expands wall-clock times (recurrence).
func (dt DateTime) AsUTC() time.Time { return dt.asUTC() }

// FromUTCClock is the inverse of AsUTC: the civil date-time that the UTC
// clock of t reads.
func FromUTCClock(t time.Time) DateTime { return DateTimeOf(t.UTC()) }

// AddMinutes returns dt moved by n minutes of wall-clock time.
func (dt DateTime) AddMinutes(n int) DateTime {
	return FromUTCClock(dt.asUTC().Add(time.Duration(n) * time.Minute))
}

// Clock returns dt without Fold: the wall-clock reading alone, for
// comparing readings.
func (dt DateTime) Clock() DateTime {
	dt.Fold = false
	return dt
}

// Compare returns -1, 0 or +1 as dt is before, equal to or after e on the
// civil timeline (Fold aside).
func (dt DateTime) Compare(e DateTime) int { return dt.asUTC().Compare(e.asUTC()) }

// String gives "2026-10-05" for an all-day moment, "2026-10-05T09:00"
// otherwise.
func (m Moment) String() string {
	if !m.HasTime {
		return m.Date.String()
	}
	return m.DateTime.String()
}

// DayMoment returns the all-day Moment of d.
func DayMoment(d Date) Moment { return Moment{DateTime: DateTime{Date: d}} }

// TimeMoment returns the timed Moment of dt.
func TimeMoment(dt DateTime) Moment { return Moment{DateTime: dt, HasTime: true} }
