package tz

import (
	"strings"
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	cases := []struct {
		instant, zone       string
		model, data, offset string
	}{
		{"2026-10-06T07:00:00Z", "Europe/Paris", "Tue 2026-10-06 09:00 (+02:00)", "2026-10-06T09:00:00+02:00", "+02:00"},
		{"2026-12-06T08:00:00Z", "Europe/Paris", "Sun 2026-12-06 09:00 (+01:00)", "2026-12-06T09:00:00+01:00", "+01:00"},
		{"2026-10-06T13:00:00Z", "America/New_York", "Tue 2026-10-06 09:00 (-04:00)", "2026-10-06T09:00:00-04:00", "-04:00"},
		{"2026-10-06T13:00:00Z", "UTC", "Tue 2026-10-06 13:00 (+00:00)", "2026-10-06T13:00:00+00:00", "+00:00"},
		{"2026-06-06T13:00:00Z", "Australia/Lord_Howe", "Sat 2026-06-06 23:30 (+10:30)", "2026-06-06T23:30:00+10:30", "+10:30"},
		{"2026-06-06T13:00:00Z", "Asia/Kathmandu", "Sat 2026-06-06 18:45 (+05:45)", "2026-06-06T18:45:00+05:45", "+05:45"},
		{"2026-06-06T13:00:00Z", "Pacific/Marquesas", "Sat 2026-06-06 03:30 (-09:30)", "2026-06-06T03:30:00-09:30", "-09:30"},
		// Seconds and fractions: cut in the model form, seconds kept in data.
		{"2026-10-06T07:00:59.999Z", "Europe/Paris", "Tue 2026-10-06 09:00 (+02:00)", "2026-10-06T09:00:59+02:00", "+02:00"},
		// The fold: the same wall time, told apart by the offset.
		{"2026-10-25T00:30:00Z", "Europe/Paris", "Sun 2026-10-25 02:30 (+02:00)", "2026-10-25T02:30:00+02:00", "+02:00"},
		{"2026-10-25T01:30:00Z", "Europe/Paris", "Sun 2026-10-25 02:30 (+01:00)", "2026-10-25T02:30:00+01:00", "+01:00"},
	}
	for _, c := range cases {
		tm, z := mustTime(t, c.instant), MustZone(c.zone)
		if got := FormatModel(tm, z); got != c.model {
			t.Errorf("FormatModel(%s, %s) = %q, want %q", c.instant, c.zone, got, c.model)
		}
		if got := RFC3339(tm, z); got != c.data {
			t.Errorf("RFC3339(%s, %s) = %q, want %q", c.instant, c.zone, got, c.data)
		}
		if got := FormatOffset(tm, z); got != c.offset {
			t.Errorf("FormatOffset(%s, %s) = %q, want %q", c.instant, c.zone, got, c.offset)
		}
		// Data must read back as the same instant, to the second.
		back, err := time.Parse(time.RFC3339, RFC3339(tm, z))
		if err != nil || !back.Equal(tm.Truncate(time.Second)) {
			t.Errorf("RFC3339(%s, %s) reads back as %v, %v", c.instant, c.zone, back, err)
		}
	}
}

func TestFormatDateModel(t *testing.T) {
	cases := []struct {
		d    Date
		want string
	}{
		{Date{2026, 10, 6}, "Tue 2026-10-06"},
		{Date{2028, 2, 29}, "Tue 2028-02-29"},
		{Date{1, 1, 1}, "Mon 0001-01-01"},
	}
	for _, c := range cases {
		if got := FormatDateModel(c.d); got != c.want {
			t.Errorf("FormatDateModel(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestParseCanonical(t *testing.T) {
	good := []struct {
		in   string
		want Moment
	}{
		{"2026-10-05", DayMoment(Date{2026, 10, 5})},
		{"2028-02-29", DayMoment(Date{2028, 2, 29})},
		{"0001-01-01", DayMoment(Date{1, 1, 1})},
		{"9999-12-31", DayMoment(Date{9999, 12, 31})},
		{"2026-10-05T09:00", TimeMoment(dt(2026, 10, 5, 9, 0))},
		{"2026-10-05T00:00", TimeMoment(dt(2026, 10, 5, 0, 0))},
		{"2026-10-05T23:59", TimeMoment(dt(2026, 10, 5, 23, 59))},
	}
	for _, c := range good {
		m, err := ParseMoment(c.in)
		if err != nil || m != c.want || m.String() != c.in {
			t.Errorf("ParseMoment(%q) = %v, %v; want %v", c.in, m, err, c.want)
		}
		if c.want.HasTime {
			dtv, err := ParseDateTime(c.in)
			if err != nil || dtv != c.want.DateTime {
				t.Errorf("ParseDateTime(%q) = %v, %v", c.in, dtv, err)
			}
			if _, err := ParseDate(c.in); err == nil {
				t.Errorf("ParseDate(%q) accepted a date-time", c.in)
			}
		} else {
			d, err := ParseDate(c.in)
			if err != nil || d != c.want.Date {
				t.Errorf("ParseDate(%q) = %v, %v", c.in, d, err)
			}
			if _, err := ParseDateTime(c.in); err == nil {
				t.Errorf("ParseDateTime(%q) accepted a date", c.in)
			}
		}
	}
	bad := []string{
		"", "2026-10-5", "2026-1-05", "26-10-05", "2026/10/05", "20261005", "2026-10-05 ",
		" 2026-10-05", "2026-02-29", "2026-13-01", "2026-00-10", "2026-10-00", "0000-01-01",
		"+026-10-05", "2026-10-05T09", "2026-10-05T09:00:00", "2026-10-05 09:00", "2026-10-05t09:00",
		"2026-10-05T24:00", "2026-10-05T09:60", "2026-10-05T9:00", "2026-10-05T09:00Z",
		"2026-10-05T09:00+02:00", "２０２６-10-05", "2026-10-05T-9:00",
	}
	for _, in := range bad {
		if m, err := ParseMoment(in); err == nil {
			t.Errorf("ParseMoment(%q) = %v; want an error", in, m)
		}
		if d, err := ParseDate(in); err == nil {
			t.Errorf("ParseDate(%q) = %v; want an error", in, d)
		}
		if d, err := ParseDateTime(in); err == nil {
			t.Errorf("ParseDateTime(%q) = %v; want an error", in, d)
		}
	}
	sentences := map[string]string{
		"ParseDate":     `stored date "2026-02-30" is not a real day written like 2026-10-05`,
		"ParseDateTime": `stored date-time "2026-02-30" is not a real civil time written like 2026-10-05T09:00`,
		"ParseMoment":   `stored moment "2026-02-30" is neither a date like 2026-10-05 nor a date-time like 2026-10-05T09:00`,
	}
	_, e1 := ParseDate("2026-02-30")
	_, e2 := ParseDateTime("2026-02-30")
	_, e3 := ParseMoment("2026-02-30")
	for name, err := range map[string]error{"ParseDate": e1, "ParseDateTime": e2, "ParseMoment": e3} {
		if err == nil || err.Error() != sentences[name] {
			t.Errorf("%s error = %v; want %s", name, err, sentences[name])
		}
	}
}

func TestParseBasic(t *testing.T) {
	good := []struct {
		in   string
		want Moment
		utc  bool
	}{
		{"20261005", DayMoment(Date{2026, 10, 5}), false},
		{"20261005T090000", TimeMoment(dt(2026, 10, 5, 9, 0)), false},
		{"20261005T090000Z", TimeMoment(dt(2026, 10, 5, 9, 0)), true},
		{"20261005T235959", TimeMoment(dt(2026, 10, 5, 23, 59)), false},
		{"20161231T235960Z", TimeMoment(dt(2016, 12, 31, 23, 59)), true}, // leap second, cut
		{"20280229", DayMoment(Date{2028, 2, 29}), false},
	}
	for _, c := range good {
		m, utc, err := ParseBasic(c.in)
		if err != nil || m != c.want || utc != c.utc {
			t.Errorf("ParseBasic(%q) = %v, %v, %v; want %v, %v", c.in, m, utc, err, c.want, c.utc)
		}
	}
	bad := []string{
		"", "2026100", "202610051", "20261305", "20260230", "20261005T", "20261005T0900",
		"20261005T09000", "20261005 090000", "20261005t090000", "20261005T090000z",
		"20261005T240000", "20261005T096000", "20261005T090061", "20261005T090000+0200",
		"2026-10-05", "20261005T090000ZZ", "2026100５",
	}
	for _, in := range bad {
		if m, utc, err := ParseBasic(in); err == nil {
			t.Errorf("ParseBasic(%q) = %v, %v; want an error", in, m, utc)
		} else if !strings.HasPrefix(err.Error(), "RFC 5545 value ") {
			t.Errorf("ParseBasic(%q) error %q does not name the value", in, err)
		}
	}
}

func TestDateArithmetic(t *testing.T) {
	cases := []struct {
		a, b Date
		days int
	}{
		{Date{2026, 10, 5}, Date{2026, 10, 6}, 1},
		{Date{2026, 10, 6}, Date{2026, 10, 5}, -1},
		{Date{2026, 3, 28}, Date{2026, 3, 30}, 2},
		{Date{2028, 2, 28}, Date{2028, 3, 1}, 2},
		// Past time.Duration's 292-year range.
		{Date{1, 1, 1}, Date{9999, 12, 31}, 3652058},
		{Date{9999, 12, 31}, Date{1, 1, 1}, -3652058},
	}
	for _, c := range cases {
		if got := c.a.DaysUntil(c.b); got != c.days {
			t.Errorf("%s.DaysUntil(%s) = %d, want %d", c.a, c.b, got, c.days)
		}
		if got := c.a.AddDays(c.days); got != c.b {
			t.Errorf("%s.AddDays(%d) = %s, want %s", c.a, c.days, got, c.b)
		}
	}
}
