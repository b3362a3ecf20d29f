package tz

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestAbbreviationZones checks that abbreviations are answered with the
// zones whose clocks show them, read from the zone database, several for
// an ambiguous one, and the person's own zone first when it uses it.
func TestAbbreviationZones(t *testing.T) {
	names := func(abbr string, home Zone) []string {
		var out []string
		for _, z := range AbbreviationZones(abbr, home) {
			out = append(out, z.Name)
		}
		return out
	}
	cases := []struct {
		abbr string
		has  []string
	}{
		{"CEST", []string{"Europe/Paris", "Europe/Berlin", "Europe/Rome", "Europe/Madrid"}},
		{"CET", []string{"Europe/Paris", "Europe/Berlin", "Africa/Algiers"}},
		{"BST", []string{"Europe/London"}},
		{"IST", []string{"Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"}},
		{"EST", []string{"America/New_York", "America/Toronto", "America/Panama"}},
		{"EDT", []string{"America/New_York"}},
		{"CST", []string{"America/Chicago", "Asia/Shanghai", "America/Havana"}},
		{"CDT", []string{"America/Chicago", "America/Havana"}},
		{"PST", []string{"America/Los_Angeles", "Asia/Manila"}},
		{"PDT", []string{"America/Los_Angeles"}},
		{"JST", []string{"Asia/Tokyo"}},
		{"AEST", []string{"Australia/Sydney", "Australia/Brisbane"}},
		{"AEDT", []string{"Australia/Sydney"}},
		{"MSK", []string{"Europe/Moscow"}},
		{"HST", []string{"Pacific/Honolulu"}},
		{"AKST", []string{"America/Anchorage"}},
		{"NZST", []string{"Pacific/Auckland"}},
	}
	for _, c := range cases {
		got := names(c.abbr, Zone{})
		for _, want := range c.has {
			if !slices.Contains(got, want) {
				t.Errorf("AbbreviationZones(%s) = %v, missing %s", c.abbr, got, want)
			}
		}
		for _, n := range got {
			if !continental(n) {
				t.Errorf("AbbreviationZones(%s) lists %s, not an Area/City zone", c.abbr, n)
			}
		}
	}
	// an ambiguous abbreviation gives one zone for each offset first
	for abbr, first := range map[string][]string{
		"IST": {"Asia/Jerusalem", "Europe/Dublin", "Asia/Kolkata"},
		"CST": {"America/Chicago", "Asia/Shanghai", "America/Havana"},
	} {
		got := names(abbr, Zone{})
		if len(got) < len(first) || !sameSet(got[:len(first)], first) {
			t.Errorf("AbbreviationZones(%s) starts %v, want %v in some order", abbr, got, first)
		}
	}
	// the person's zone comes first when its clock shows the abbreviation
	for _, c := range []struct{ abbr, home string }{
		{"CEST", "Europe/Paris"}, {"CET", "Europe/Oslo"}, {"IST", "Europe/Dublin"}, {"CST", "Asia/Taipei"}, {"EST", "America/New_York"},
	} {
		if got := names(c.abbr, MustZone(c.home)); len(got) == 0 || got[0] != c.home {
			t.Errorf("AbbreviationZones(%s, home %s) = %v, want the home first", c.abbr, c.home, got)
		}
	}
	if got := names("CEST", MustZone("Asia/Tokyo")); slices.Contains(got, "Asia/Tokyo") {
		t.Errorf("AbbreviationZones(CEST, home Asia/Tokyo) = %v lists a home that does not use it", got)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestAbbreviation(t *testing.T) {
	for in, want := range map[string]string{"CEST": "CEST", " cest ": "CEST", "Est": "EST", "IST": "IST", "chst": "ChST", "MSK": "MSK"} {
		if got, ok := Abbreviation(in); !ok || got != want {
			t.Errorf("Abbreviation(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"UTC", "GMT", "Z", "Europe/Paris", "Japan", "Cuba", "NZ", "XYZT", "", "+03", "CESTCESTCEST"} {
		if got, ok := Abbreviation(in); ok {
			t.Errorf("Abbreviation(%q) = %q, want none", in, got)
		}
	}
}

// TestAbbreviationRefused checks the errors: never a name spelt alike, the
// zones the abbreviation stands for, and legacy names that are also
// abbreviations refused for typed text but still loaded for stored data.
func TestAbbreviationRefused(t *testing.T) {
	if s, ok := SuggestZone("CEST"); ok {
		t.Errorf("SuggestZone(CEST) = %s, want no suggestion by spelling", s)
	}
	for _, name := range []string{"CEST", "IST", "PDT", "AEDT"} {
		_, err := LoadZone(name)
		var ze *ZoneError
		if !errors.As(err, &ze) || ze.Abbreviation != name || ze.Suggestion != "" {
			t.Fatalf("LoadZone(%s) = %#v, want a ZoneError with the abbreviation", name, err)
		}
	}
	_, err := LoadZoneLoose("cest")
	var ze *ZoneError
	if !errors.As(err, &ze) {
		t.Fatalf("LoadZoneLoose(cest) = %v", err)
	}
	ze.Home = MustZone("Europe/Paris")
	if got := ze.Error(); !strings.HasPrefix(got, `"cest" is a time zone abbreviation, not an IANA time zone; write the zone of the place, such as Europe/Paris, `) ||
		strings.Contains(got, "Australia") {
		t.Errorf("error = %s", got)
	}
	_, err = LoadZone("IST")
	if got := err.Error(); !strings.Contains(got, "Asia/Kolkata (UTC+05:30)") || !strings.Contains(got, "Europe/Dublin (UTC+01:00)") ||
		!strings.Contains(got, "Asia/Jerusalem (UTC+02:00)") {
		t.Errorf("LoadZone(IST) error = %s, want India, Ireland and Israel with their offsets", got)
	}
	for _, name := range []string{"EST", "CET", "HST", "MST", "EET", "WET"} {
		if _, err := LoadZoneLoose(name); err == nil {
			t.Errorf("LoadZoneLoose(%s) accepted an abbreviation", name)
		}
		if _, err := LoadZone(name); err != nil {
			t.Errorf("LoadZone(%s) (stored data) = %v, want it loaded", name, err)
		}
	}
	for _, name := range []string{"UTC", "GMT", "Europe/Paris", "Japan", "EST5EDT"} {
		if _, err := LoadZoneLoose(name); err != nil {
			t.Errorf("LoadZoneLoose(%s) = %v", name, err)
		}
	}
}

func TestAbbreviationHint(t *testing.T) {
	if got, want := AbbreviationHint("BST", Zone{}), "Europe/London (UTC+01:00)"; got != want {
		t.Errorf("AbbreviationHint(BST) = %q, want %q", got, want)
	}
	got := AbbreviationHint("CEST", MustZone("Europe/Paris"))
	if !strings.HasPrefix(got, "Europe/Paris, ") || !strings.Contains(got, " (UTC+02:00), or one of the ") ||
		!strings.HasSuffix(got, " other zones that use CEST") {
		t.Errorf("AbbreviationHint(CEST) = %q", got)
	}
	if got := AbbreviationHint("Europe/Paris", Zone{}); got != "" {
		t.Errorf("AbbreviationHint of a zone name = %q", got)
	}
}

// TestLongZoneName checks that a hostile name costs little and is quoted
// short.
func TestLongZoneName(t *testing.T) {
	long := strings.Repeat("Europe/Paris", 100000)
	_, err := LoadZoneLoose(long)
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("LoadZoneLoose(1 MB) error has %d bytes", len(err.Error()))
	}
	if s, ok := SuggestZone(long); ok {
		t.Errorf("SuggestZone(1 MB) = %s", s)
	}
}
