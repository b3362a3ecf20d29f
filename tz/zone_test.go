package tz

import (
	"testing"
	"time"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("bad test instant %q: %v", s, err)
	}
	return v
}

func dt(y int, m time.Month, d, hh, mm int) DateTime {
	return DateTime{Date: Date{y, m, d}, Hour: hh, Minute: mm}
}

// Facts (IANA tzdata, 2026), from which every expectation below follows:
//   - Europe/Paris springs 02:00 CET (+01:00) → 03:00 CEST (+02:00) on
//     2026-03-29 and falls 03:00 CEST → 02:00 CET on 2026-10-25, both at
//     01:00 UTC.
//   - America/New_York springs 02:00 EST (-05:00) → 03:00 EDT (-04:00) on
//     2026-03-08 (07:00 UTC) and falls 02:00 EDT → 01:00 EST on 2026-11-01
//     (06:00 UTC).
//   - America/Santiago springs 00:00 (-04:00) → 01:00 (-03:00) on
//     2026-09-06 (04:00 UTC), so that day has no midnight, and falls
//     24:00 (-03:00) → 23:00 (-04:00) at the end of 2026-04-04 (03:00 UTC).
//   - Australia/Lord_Howe shifts by half an hour: 02:00 (+10:30) → 02:30
//     (+11:00) on 2026-10-04 (15:30 UTC the day before) and 02:00 (+11:00)
//     → 01:30 (+10:30) on 2026-04-05 (15:00 UTC the day before).
//   - America/Toronto sprang from 23:30 EST (-05:00) on 1919-03-30 to
//     00:30 EDT (-04:00) on 1919-03-31 (04:30 UTC).
//   - Pacific/Apia skipped 2011-12-30 entirely, going from 23:59:59 on
//     2011-12-29 (-10:00) to 00:00 on 2011-12-31 (+14:00).
func TestInstantGapsAndFolds(t *testing.T) {
	cases := []struct {
		zone  string
		civil DateTime
		want  string // RFC 3339 instant with the offset in force
		moved bool
	}{
		// Paris spring gap: [02:00, 03:00) does not exist.
		{"Europe/Paris", dt(2026, 3, 29, 1, 59), "2026-03-29T01:59:00+01:00", false},
		{"Europe/Paris", dt(2026, 3, 29, 2, 0), "2026-03-29T03:00:00+02:00", true},
		{"Europe/Paris", dt(2026, 3, 29, 2, 30), "2026-03-29T03:30:00+02:00", true},
		{"Europe/Paris", dt(2026, 3, 29, 2, 59), "2026-03-29T03:59:00+02:00", true},
		{"Europe/Paris", dt(2026, 3, 29, 3, 0), "2026-03-29T03:00:00+02:00", false},
		// Paris autumn fold: [02:00, 03:00) happens at +02:00, then at +01:00.
		{"Europe/Paris", dt(2026, 10, 25, 1, 59), "2026-10-25T01:59:00+02:00", false},
		{"Europe/Paris", dt(2026, 10, 25, 2, 0), "2026-10-25T02:00:00+02:00", false},
		{"Europe/Paris", dt(2026, 10, 25, 2, 30), "2026-10-25T02:30:00+02:00", false},
		{"Europe/Paris", dt(2026, 10, 25, 2, 59), "2026-10-25T02:59:00+02:00", false},
		{"Europe/Paris", dt(2026, 10, 25, 3, 0), "2026-10-25T03:00:00+01:00", false},
		// New York.
		{"America/New_York", dt(2026, 3, 8, 1, 59), "2026-03-08T01:59:00-05:00", false},
		{"America/New_York", dt(2026, 3, 8, 2, 30), "2026-03-08T03:30:00-04:00", true},
		{"America/New_York", dt(2026, 3, 8, 3, 0), "2026-03-08T03:00:00-04:00", false},
		{"America/New_York", dt(2026, 11, 1, 0, 59), "2026-11-01T00:59:00-04:00", false},
		{"America/New_York", dt(2026, 11, 1, 1, 0), "2026-11-01T01:00:00-04:00", false},
		{"America/New_York", dt(2026, 11, 1, 1, 30), "2026-11-01T01:30:00-04:00", false},
		{"America/New_York", dt(2026, 11, 1, 2, 0), "2026-11-01T02:00:00-05:00", false},
		// Santiago: the gap is at midnight, the fold just before it.
		{"America/Santiago", dt(2026, 9, 5, 23, 59), "2026-09-05T23:59:00-04:00", false},
		{"America/Santiago", dt(2026, 9, 6, 0, 0), "2026-09-06T01:00:00-03:00", true},
		{"America/Santiago", dt(2026, 9, 6, 0, 30), "2026-09-06T01:30:00-03:00", true},
		{"America/Santiago", dt(2026, 9, 6, 1, 0), "2026-09-06T01:00:00-03:00", false},
		{"America/Santiago", dt(2026, 4, 4, 22, 59), "2026-04-04T22:59:00-03:00", false},
		{"America/Santiago", dt(2026, 4, 4, 23, 0), "2026-04-04T23:00:00-03:00", false},
		{"America/Santiago", dt(2026, 4, 4, 23, 30), "2026-04-04T23:30:00-03:00", false},
		{"America/Santiago", dt(2026, 4, 5, 0, 0), "2026-04-05T00:00:00-04:00", false},
		// Lord Howe: half-hour gap and fold.
		{"Australia/Lord_Howe", dt(2026, 10, 4, 1, 59), "2026-10-04T01:59:00+10:30", false},
		{"Australia/Lord_Howe", dt(2026, 10, 4, 2, 0), "2026-10-04T02:30:00+11:00", true},
		{"Australia/Lord_Howe", dt(2026, 10, 4, 2, 15), "2026-10-04T02:45:00+11:00", true},
		{"Australia/Lord_Howe", dt(2026, 10, 4, 2, 29), "2026-10-04T02:59:00+11:00", true},
		{"Australia/Lord_Howe", dt(2026, 10, 4, 2, 30), "2026-10-04T02:30:00+11:00", false},
		{"Australia/Lord_Howe", dt(2026, 4, 5, 1, 29), "2026-04-05T01:29:00+11:00", false},
		{"Australia/Lord_Howe", dt(2026, 4, 5, 1, 30), "2026-04-05T01:30:00+11:00", false},
		{"Australia/Lord_Howe", dt(2026, 4, 5, 1, 45), "2026-04-05T01:45:00+11:00", false},
		{"Australia/Lord_Howe", dt(2026, 4, 5, 2, 0), "2026-04-05T02:00:00+10:30", false},
		// Apia: a whole day missing, moved forward by 24 hours.
		{"Pacific/Apia", dt(2011, 12, 29, 23, 59), "2011-12-29T23:59:00-10:00", false},
		{"Pacific/Apia", dt(2011, 12, 30, 12, 0), "2011-12-31T12:00:00+14:00", true},
		{"Pacific/Apia", dt(2011, 12, 31, 0, 0), "2011-12-31T00:00:00+14:00", false},
		// No transitions at all.
		{"UTC", dt(2026, 3, 29, 2, 30), "2026-03-29T02:30:00Z", false},
		{"Asia/Kathmandu", dt(2026, 3, 29, 2, 30), "2026-03-29T02:30:00+05:45", false},
	}
	for _, c := range cases {
		t.Run(c.zone+"/"+c.civil.String(), func(t *testing.T) {
			z := MustZone(c.zone)
			got, moved := z.Instant(c.civil)
			want := mustTime(t, c.want)
			if !got.Equal(want) || moved != c.moved {
				t.Errorf("Instant(%s) = %s moved=%v; want %s moved=%v",
					c.civil, got.Format(time.RFC3339), moved, want.Format(time.RFC3339), c.moved)
			}
			if got.Location() != z.Location() {
				t.Errorf("Instant returned location %v, want %v", got.Location(), z.Location())
			}
			if _, off := got.Zone(); off != offsetOf(want) {
				t.Errorf("Instant(%s) offset %d s, want %d s", c.civil, off, offsetOf(want))
			}
		})
	}
}

func offsetOf(t time.Time) int { _, off := t.Zone(); return off }

// TestGoTimeDateDisagrees documents why Instant exists: for these days Go's
// time.Date (which the time package says does not guarantee a choice) picks
// the other answer from RFC 5545's.
func TestGoTimeDateDisagrees(t *testing.T) {
	cases := []struct {
		zone  string
		civil DateTime
		goes  string // what time.Date returns with Go 1.26
	}{
		// Gap: Go reads 02:30 with the offset after the transition, giving
		// 01:30 EST, an hour before the gap instead of after it.
		{"America/New_York", dt(2026, 3, 8, 2, 30), "2026-03-08T01:30:00-05:00"},
		// Fold: Go takes the later of the two 02:30s.
		{"Europe/Paris", dt(2026, 10, 25, 2, 30), "2026-10-25T02:30:00+01:00"},
	}
	disagreed := 0
	for _, c := range cases {
		z := MustZone(c.zone)
		ours, _ := z.Instant(c.civil)
		goes := time.Date(c.civil.Year, c.civil.Month, c.civil.Day, c.civil.Hour, c.civil.Minute, 0, 0, z.Location())
		if !goes.Equal(ours) {
			disagreed++
		}
		if !goes.Equal(mustTime(t, c.goes)) {
			t.Logf("time.Date(%s %s) now gives %s (was %s); update the comment on Instant",
				c.zone, c.civil, goes.Format(time.RFC3339), c.goes)
		}
	}
	if disagreed == 0 {
		t.Errorf("time.Date agrees with RFC 5545 on every case; the reason given for Zone.Instant is out of date")
	}
}

func TestStartOfDayAndDayBounds(t *testing.T) {
	cases := []struct {
		zone  string
		day   Date
		start string
		hours float64 // length of the day
	}{
		{"Europe/Paris", Date{2026, 3, 28}, "2026-03-28T00:00:00+01:00", 24},
		{"Europe/Paris", Date{2026, 3, 29}, "2026-03-29T00:00:00+01:00", 23},
		{"Europe/Paris", Date{2026, 10, 25}, "2026-10-25T00:00:00+02:00", 25},
		{"America/New_York", Date{2026, 3, 8}, "2026-03-08T00:00:00-05:00", 23},
		{"America/New_York", Date{2026, 11, 1}, "2026-11-01T00:00:00-04:00", 25},
		// No midnight: the day starts at 01:00 -03:00.
		{"America/Santiago", Date{2026, 9, 6}, "2026-09-06T01:00:00-03:00", 23},
		{"America/Santiago", Date{2026, 9, 5}, "2026-09-05T00:00:00-04:00", 24},
		// The day before the fall-back is 25 hours, its last hour twice.
		{"America/Santiago", Date{2026, 4, 4}, "2026-04-04T00:00:00-03:00", 25},
		{"America/Santiago", Date{2026, 4, 5}, "2026-04-05T00:00:00-04:00", 24},
		{"Australia/Lord_Howe", Date{2026, 10, 4}, "2026-10-04T00:00:00+10:30", 23.5},
		{"Australia/Lord_Howe", Date{2026, 4, 5}, "2026-04-05T00:00:00+11:00", 24.5},
		// Toronto sprang from 23:30 EST on 1919-03-30 to 00:30 EDT: the
		// gap straddles midnight, so the day starts at 00:30, not at
		// 00:00 moved forward by the gap (01:00).
		{"America/Toronto", Date{1919, 3, 31}, "1919-03-31T00:30:00-04:00", 23.5},
		// A skipped day is empty and begins where the next one does.
		{"Pacific/Apia", Date{2011, 12, 30}, "2011-12-31T00:00:00+14:00", 0},
		{"Pacific/Apia", Date{2011, 12, 29}, "2011-12-29T00:00:00-10:00", 24},
	}
	for _, c := range cases {
		t.Run(c.zone+"/"+c.day.String(), func(t *testing.T) {
			z := MustZone(c.zone)
			start, end := z.DayBounds(c.day)
			if want := mustTime(t, c.start); !start.Equal(want) || offsetOf(start) != offsetOf(want) {
				t.Errorf("StartOfDay(%s) = %s, want %s", c.day, start.Format(time.RFC3339), c.start)
			}
			if h := end.Sub(start).Hours(); h != c.hours {
				t.Errorf("day %s lasts %v h, want %v h", c.day, h, c.hours)
			}
		})
	}
}

func TestMomentInstant(t *testing.T) {
	z := MustZone("America/Santiago")
	got, moved := z.MomentInstant(DayMoment(Date{2026, 9, 6}))
	if want := mustTime(t, "2026-09-06T01:00:00-03:00"); !got.Equal(want) || moved {
		t.Errorf("all-day moment = %s moved=%v, want %s moved=false", got, moved, want)
	}
	got, moved = z.MomentInstant(TimeMoment(dt(2026, 9, 6, 0, 30)))
	if want := mustTime(t, "2026-09-06T01:30:00-03:00"); !got.Equal(want) || !moved {
		t.Errorf("timed moment = %s moved=%v, want %s moved=true", got, moved, want)
	}
}

func TestZeroZoneIsUTC(t *testing.T) {
	var z Zone
	if z.Name() != "UTC" || z.Location() != time.UTC {
		t.Fatalf("zero Zone = %q %v, want UTC", z.Name(), z.Location())
	}
	got, moved := z.Instant(dt(2026, 1, 2, 3, 4))
	if !got.Equal(time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)) || moved {
		t.Errorf("zero Zone Instant = %v moved=%v", got, moved)
	}
}

// Files of the host's zoneinfo that are no zone of the embedded IANA
// database are refused, so a zone kept today loads on every machine.
func TestLoadZoneOnlyEmbeddedNames(t *testing.T) {
	for _, name := range []string{"localtime", "posixrules", "posix/Europe/Paris", "right/UTC", "./UTC", "Europe/../UTC", "zone.tab", "tzdata.zi"} {
		if z, err := LoadZone(name); err == nil {
			t.Errorf("LoadZone(%q) = %s, want refused", name, z)
		}
		if z, err := LoadZoneLoose(name); err == nil {
			t.Errorf("LoadZoneLoose(%q) = %s, want refused", name, z)
		}
	}
	for _, name := range []string{"Europe/Paris", "UTC", "Etc/UTC", "US/Eastern", "EST5EDT"} {
		if _, err := LoadZone(name); err != nil {
			t.Errorf("LoadZone(%q): %v", name, err)
		}
	}
}

// LastHeld is the last second a zone holds: the UTC bound for a zone
// west of UTC, the zone's own midnight for one east of it.
func TestLastHeld(t *testing.T) {
	for _, c := range []struct{ zone, want string }{
		{"UTC", "9999-12-31T23:59:59Z"},
		{"America/New_York", "9999-12-31T23:59:59Z"},
		{"Europe/Berlin", "9999-12-31T22:59:59Z"},
		{"Pacific/Kiritimati", "9999-12-31T09:59:59Z"},
	} {
		z := MustZone(c.zone)
		got := z.LastHeld()
		if got.UTC().Format(time.RFC3339) != c.want || !z.Holds(got) || z.Holds(got.Add(time.Second)) {
			t.Errorf("%s: %s, want %s, held and the next second not", c.zone, got.UTC().Format(time.RFC3339), c.want)
		}
	}
}
