package tz

import (
	"fmt"
	"strings"
	"time"
)

// Layouts of the two audiences. The model reads the weekday so it need not
// compute one, and the offset so it can tell 09:00 in Paris from 09:00 in
// New York; data gets RFC 3339, which every parser takes.
const (
	modelLayout     = "Mon 2006-01-02 15:04 (-07:00)"
	modelDateLayout = "Mon 2006-01-02"
	dataLayout      = "2006-01-02T15:04:05-07:00"
)

// FormatModel renders instant t as read in z for a model turn:
// "Tue 2026-10-06 09:00 (+02:00)" — English weekday, civil date, 24-hour
// time to the minute (seconds cut), and the UTC offset in force in z at t.
// The zone name is not included; add it where it differs from the
// person's, as every answer does (docs/design.md, "Time").
func FormatModel(t time.Time, z Zone) string { return t.In(z.Location()).Format(modelLayout) }

// FormatDateModel renders an all-day date for a model turn: "Tue 2026-10-06".
func FormatDateModel(d Date) string { return d.utc().Format(modelDateLayout) }

// RFC3339 renders instant t as read in z for data (JSON, stored text):
// "2026-10-06T09:00:00+02:00" (RFC 3339 §5.6), to the second, fraction
// cut. The offset is always numeric, "+00:00" for UTC rather than "Z", so
// every value has one shape; pair it with z.Name() to keep the zone, since
// an offset alone does not say what the clock will read after the next DST
// change. Offsets of historical local mean time that are not whole minutes
// lose their seconds, as RFC 3339 has no way to write them.
func RFC3339(t time.Time, z Zone) string { return t.In(z.Location()).Format(dataLayout) }

// FormatOffset returns the UTC offset in force in z at t as "+02:00",
// "-04:00", "+10:30", "+05:45" or "+00:00" (seconds of historical offsets
// cut).
func FormatOffset(t time.Time, z Zone) string { return t.In(z.Location()).Format("-07:00") }

// ParseDate reads the canonical stored form of a date, "2026-10-05"
// (ISO 8601 extended, years 0001–9999), and nothing else: no other
// separators, no time, no spaces. The day must exist. It is for text this
// program wrote; what a person or model types goes through package args.
func ParseDate(s string) (Date, error) {
	if d, ok := parseDate(s); ok {
		return d, nil
	}
	return Date{}, fmt.Errorf("stored date %q is not a real day written like 2026-10-05", s)
}

// ParseDateTime reads the canonical stored form of a civil date-time,
// "2026-10-05T09:00" (minute precision, no seconds, no offset, no zone),
// and nothing else. Hours run 00–23.
func ParseDateTime(s string) (DateTime, error) {
	if dt, ok := parseDateTime(s); ok {
		return dt, nil
	}
	return DateTime{}, fmt.Errorf("stored date-time %q is not a real civil time written like 2026-10-05T09:00", s)
}

// ParseMoment reads either canonical stored form: "2026-10-05" gives an
// all-day Moment, "2026-10-05T09:00" a timed one. It is the inverse of
// Moment.String.
func ParseMoment(s string) (Moment, error) {
	if d, ok := parseDate(s); ok {
		return DayMoment(d), nil
	}
	if dt, ok := parseDateTime(s); ok {
		return TimeMoment(dt), nil
	}
	if m, ok := parseYear10000(s); ok {
		return m, nil
	}
	return Moment{}, fmt.Errorf("stored moment %q is neither a date like 2026-10-05 nor a date-time like 2026-10-05T09:00", s)
}

// parseYear10000 reads a stored moment of the first days of the year 10000
// ("10000-01-01", "10000-01-01T00:30"): the end of an item kept before
// ends past [LastInstant] were refused. It is read so that such an item
// can still be shown, changed and deleted; [Date.String] writes it back
// the same way.
func parseYear10000(s string) (Moment, bool) {
	rest, ok := strings.CutPrefix(s, "10000-01-")
	if !ok {
		return Moment{}, false
	}
	m, err := ParseMoment("9999-01-" + rest)
	if err != nil {
		return Moment{}, false
	}
	m.Year = 10000
	return m, true
}

// ParseBasic reads the RFC 5545 §3.3.4 DATE and §3.3.5 DATE-TIME forms:
// "20261005" (all-day), "20261005T090000" (local or TZID time) and
// "20261005T090000Z" (UTC, reported by utc). Seconds are cut to keep minute
// precision; second 60 (a leap second, which RFC 5545 allows) is accepted
// and cut likewise. Lower-case "t" and "z" are refused, as RFC 5545 writes
// them in upper case.
func ParseBasic(s string) (m Moment, utc bool, err error) {
	if len(s) < 8 {
		return Moment{}, false, badBasic(s)
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[4:6])
	d, ok3 := digits(s[6:8])
	date, ok := NewDate(y, time.Month(mo), d)
	if !ok1 || !ok2 || !ok3 || !ok {
		return Moment{}, false, badBasic(s)
	}
	switch {
	case len(s) == 8:
		return DayMoment(date), false, nil
	case len(s) == 16 && s[15] == 'Z':
		utc = true
	case len(s) == 15:
	default:
		return Moment{}, false, badBasic(s)
	}
	h, ok1 := digits(s[9:11])
	mi, ok2 := digits(s[11:13])
	sec, ok3 := digits(s[13:15])
	if s[8] != 'T' || !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 60 {
		return Moment{}, false, badBasic(s)
	}
	return TimeMoment(date.At(h, mi)), utc, nil
}

// badBasic is ParseBasic's error for s, made only when s fails: a value
// that parses costs no sentence.
func badBasic(s string) error {
	return fmt.Errorf("RFC 5545 value %q is neither a DATE like 20261005 nor a DATE-TIME like 20261005T090000 or 20261005T090000Z", s)
}

func parseDate(s string) (Date, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, false
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return Date{}, false
	}
	return NewDate(y, time.Month(m), d)
}

func parseDateTime(s string) (DateTime, bool) {
	if len(s) != 16 || s[10] != 'T' || s[13] != ':' {
		return DateTime{}, false
	}
	d, ok := parseDate(s[:10])
	h, ok1 := digits(s[11:13])
	m, ok2 := digits(s[14:16])
	if !ok || !ok1 || !ok2 || h > 23 || m > 59 {
		return DateTime{}, false
	}
	return d.At(h, m), true
}

// digits reads s as a non-negative decimal of ASCII digits only (no sign,
// no spaces), unlike strconv.Atoi, which takes "+1".
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(s) > 0
}
