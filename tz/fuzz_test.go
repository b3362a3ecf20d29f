package tz

import (
	"strings"
	"testing"
	"time"
)

// fuzzZones are zones with the shapes of transition that matter: hour
// gaps and folds, a midnight gap, half-hour shifts, a skipped day, a gap
// straddling midnight, no DST at all, and local mean time in early years.
var fuzzZones = []string{
	"Europe/Paris", "America/New_York", "America/Santiago", "Australia/Lord_Howe",
	"Pacific/Apia", "America/Toronto", "Asia/Kathmandu", "UTC", "Antarctica/Troll",
	"Pacific/Kiritimati", "America/St_Johns", "Africa/Casablanca",
}

// FuzzInstant checks Zone.Instant on any civil minute in fuzzZones: it never
// panics; an unmoved result reads back as the input and no earlier instant
// does (the fold rule); a moved result lies just after a gap that contains
// the input, forward by exactly the gap's length (RFC 5545 §3.3.5).
func FuzzInstant(f *testing.F) {
	seeds := []struct {
		zone         uint8
		y            uint16
		mo, d, h, mi uint8
	}{
		{0, 2026, 3, 29, 2, 30}, {0, 2026, 10, 25, 2, 30}, {1, 2026, 3, 8, 2, 30}, {1, 2026, 11, 1, 1, 30},
		{2, 2026, 9, 6, 0, 0}, {2, 2026, 4, 4, 23, 30}, {3, 2026, 10, 4, 2, 15}, {3, 2026, 4, 5, 1, 45},
		{4, 2011, 12, 30, 12, 0}, {5, 1919, 3, 31, 0, 0}, {5, 1919, 3, 30, 23, 45}, {6, 1986, 1, 1, 0, 5},
		{8, 2026, 3, 29, 1, 30}, {9, 1994, 12, 31, 12, 0}, {0, 1911, 3, 11, 0, 0},
		{0, 2026, 1, 1, 128, 120}, {2, 2026, 1, 1, 128, 60}, {3, 2026, 6, 1, 200, 100}, {10, 1950, 1, 1, 130, 30},
	}
	for _, s := range seeds {
		f.Add(s.zone, s.y, s.mo, s.d, s.h, s.mi)
	}
	f.Fuzz(func(t *testing.T, zi uint8, y uint16, mo, d, h, mi uint8) {
		z := MustZone(fuzzZones[int(zi)%len(fuzzZones)])
		year := 1 + int(y)%9999
		month := time.Month(1 + int(mo)%12)
		civil := DateTime{Date{year, month, 1 + int(d)%daysIn(year, month)}, int(h) % 24, int(mi) % 60, false}
		if h >= 128 {
			// Random minutes rarely hit a transition; with the high bit of
			// h set, go to the zone's next one and land up to 90 minutes
			// either side of the old clock's last reading.
			if _, next := civil.asUTC().In(z.Location()).ZoneBounds(); !next.IsZero() {
				_, before := next.Add(-time.Nanosecond).Zone()
				civil = FromUTCClock(next.Add(time.Duration(before) * time.Second)).AddMinutes(int(mi)%181 - 90)
			}
		}
		u := civil.asUTC()

		got, moved := z.Instant(civil)
		if got.Location() != z.Location() {
			t.Fatalf("%s %s: result in %v, want %v", z, civil, got.Location(), z.Location())
		}
		_, off := got.Zone()
		start, _ := got.ZoneBounds()
		if !moved {
			if z.In(got) != civil || !got.Add(time.Duration(off)*time.Second).Equal(u) {
				t.Fatalf("%s %s: Instant = %s does not read back", z, civil, got.Format(time.RFC3339))
			}
			if start.IsZero() {
				return
			}
			// The period before this one must not also read civil.
			_, prevOff := start.Add(-time.Nanosecond).Zone()
			if other := u.Add(-time.Duration(prevOff) * time.Second); other.Before(start) && z.In(other) == civil {
				t.Fatalf("%s %s: Instant = %s, but the earlier %s reads the same", z, civil,
					got.Format(time.RFC3339), other.In(z.Location()).Format(time.RFC3339))
			}
			return
		}
		if start.IsZero() {
			t.Fatalf("%s %s: moved to %s, which is in no period after a transition", z, civil, got.Format(time.RFC3339))
		}
		_, before := start.Add(-time.Nanosecond).Zone()
		gapFrom := start.Add(time.Duration(before) * time.Second) // clocks as UTC
		gapTo := start.Add(time.Duration(off) * time.Second)
		if u.Before(gapFrom) || !u.Before(gapTo) {
			t.Fatalf("%s %s: moved, but the gap before %s runs from %s to %s", z, civil,
				got.Format(time.RFC3339), FromUTCClock(gapFrom), FromUTCClock(gapTo))
		}
		if want := u.Add(-time.Duration(before) * time.Second); !got.Equal(want) {
			t.Fatalf("%s %s: moved to %s, want %s (forward by the gap)", z, civil,
				got.Format(time.RFC3339), want.In(z.Location()).Format(time.RFC3339))
		}
		if !got.Add(time.Duration(off) * time.Second).After(u) {
			t.Fatalf("%s %s: moved to %s, which is not later on the clock", z, civil, got.Format(time.RFC3339))
		}
	})
}

// FuzzParseMoment checks the stored-form parser: no panic, and whatever it
// accepts is canonical (it prints back as the input).
func FuzzParseMoment(f *testing.F) {
	for _, s := range []string{"2026-10-05", "2026-10-05T09:00", "2026-02-30", "2026-10-05T24:00", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMoment(s)
		if err == nil && m.String() != s {
			t.Fatalf("ParseMoment(%q) = %v, which prints as %q", s, m, m.String())
		}
	})
}

// FuzzParseBasic checks the RFC 5545 parser: no panic, and an accepted
// value prints back as the input up to the seconds it cuts.
func FuzzParseBasic(f *testing.F) {
	for _, s := range []string{"20261005", "20261005T090000", "20261005T090000Z", "20261005T235960", "2026100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, utc, err := ParseBasic(s)
		if err != nil {
			return
		}
		want := m.Date.Basic()
		if m.HasTime {
			want = m.DateTime.Basic()[:13]
		}
		if len(s) < len(want) || s[:len(want)] != want || utc != (s[len(s)-1] == 'Z') {
			t.Fatalf("ParseBasic(%q) = %v utc=%v, which does not match the input", s, m, utc)
		}
	})
}

// FuzzAbbreviation feeds any text to the abbreviation index: what it calls
// an abbreviation has zones, each an Area/City zone that loads, and the
// hint names the first of them.
func FuzzAbbreviation(f *testing.F) {
	for _, s := range []string{"CEST", "ist", " PST ", "UTC", "GMT", "EST", "Europe/Paris", "ChST", "+03", "", "CESTX", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		abbr, ok := Abbreviation(s)
		zones := AbbreviationZones(abbr, MustZone("Europe/Paris"))
		if !ok {
			if abbr != "" {
				t.Fatalf("Abbreviation(%q) = %q without ok", s, abbr)
			}
			return
		}
		if len(zones) == 0 {
			t.Fatalf("Abbreviation(%q) = %q, which no zone uses", s, abbr)
		}
		for _, z := range zones {
			if _, err := LoadZone(z.Name); err != nil || !continental(z.Name) {
				t.Fatalf("AbbreviationZones(%q) lists %q: %v", abbr, z.Name, err)
			}
		}
		if h := AbbreviationHint(abbr, Zone{}); !strings.HasPrefix(h, AbbreviationZones(abbr, Zone{})[0].Name) {
			t.Fatalf("AbbreviationHint(%q) = %q", abbr, h)
		}
		if _, err := LoadZoneLoose(s); err == nil {
			t.Fatalf("LoadZoneLoose(%q) accepted the abbreviation %s", s, abbr)
		}
	})
}
