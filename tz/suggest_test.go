package tz

import (
	"errors"
	"strings"
	"testing"
)

func TestSuggestZone(t *testing.T) {
	cases := []struct {
		in, want string // want "" means no suggestion
	}{
		{"europe/paris", "Europe/Paris"},
		{"EUROPE/PARIS", "Europe/Paris"},
		{"Paris", "Europe/Paris"},
		{"paris", "Europe/Paris"},
		{"America/NewYork", "America/New_York"},
		{"new york", "America/New_York"},
		{"New-York", "America/New_York"},
		{"Asia/Paris", "Europe/Paris"},
		{"Europe/Pari", "Europe/Paris"},
		{"Europ/Berlin", "Europe/Berlin"},
		{"Amercia/Chicago", "America/Chicago"},
		{"Berln", "Europe/Berlin"},
		{"Santigo", "America/Santiago"},
		{"Lord Howe", "Australia/Lord_Howe"},
		{"port au prince", "America/Port-au-Prince"},
		{"Kolkata", "Asia/Kolkata"},
		{"est5edt", "EST5EDT"},
		{"utc", "UTC"},
		{"z", "UTC"},
		{"UTC+2", "Etc/GMT-2"},
		{"GMT-05:00", "Etc/GMT+5"},
		{"utc+0200", "Etc/GMT-2"},
		{"UTC+0", "Etc/UTC"},
		{"UTC+05:30", ""}, // no whole-hour Etc zone; and nothing close
		// Past the Etc table: one edit away is another offset (Etc/GMT+1).
		{"Etc/GMT+14", ""},
		{"etc/gmt-15", ""},
		{"Mars/Olympus_Mons", ""},
		{"xyz", ""},
		{"", ""},
		{"   ", ""},
	}
	for _, c := range cases {
		got, ok := SuggestZone(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("SuggestZone(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

func TestLoadZoneStrict(t *testing.T) {
	for _, name := range []string{"Europe/Paris", "America/New_York", "UTC", "EST5EDT", "US/Eastern", "Etc/GMT-2", "Asia/Kathmandu"} {
		z, err := LoadZone(name)
		if err != nil || z.Name() != name {
			t.Errorf("LoadZone(%q) = %q, %v; want it loaded under that name", name, z.Name(), err)
		}
	}
	cases := []struct {
		in, sentence string
	}{
		{"europe/paris", `"europe/paris" is not an IANA time zone; write Europe/Paris, the closest real name`},
		{"Europe/Pari", `"Europe/Pari" is not an IANA time zone; write Europe/Paris, the closest real name`},
		{"Paris", `"Paris" is not an IANA time zone; write Europe/Paris, the closest real name`},
		{"UTC+2", `"UTC+2" is not an IANA time zone; write a city zone such as Europe/Paris, or Etc/GMT-2 for that fixed offset (POSIX inverts the sign)`},
		{"Mars/Olympus_Mons", `"Mars/Olympus_Mons" is not an IANA time zone; write an Area/City name such as Europe/Paris or America/New_York`},
		{"", `a time zone must be an IANA name such as Europe/Paris, not ""`},
		{"Local", `a time zone must be an IANA name such as Europe/Paris, not "Local"`},
		{"Factory", `"Factory" is not an IANA time zone; write an Area/City name such as Europe/Paris or America/New_York`},
		{"../../etc/passwd", `"../../etc/passwd" is not an IANA time zone; write an Area/City name such as Europe/Paris or America/New_York`},
		{"/etc/localtime", `"/etc/localtime" is not an IANA time zone; write an Area/City name such as Europe/Paris or America/New_York`},
	}
	for _, c := range cases {
		_, err := LoadZone(c.in)
		var ze *ZoneError
		if !errors.As(err, &ze) || ze.Name != c.in {
			t.Errorf("LoadZone(%q) error = %v; want a *ZoneError", c.in, err)
			continue
		}
		if err.Error() != c.sentence {
			t.Errorf("LoadZone(%q) error\n got %s\nwant %s", c.in, err, c.sentence)
		}
	}
}

func TestLoadZoneLoose(t *testing.T) {
	cases := []struct {
		in, want, suggestion string // want "" means an error
	}{
		{"Europe/Paris", "Europe/Paris", ""},
		{" europe/paris ", "Europe/Paris", ""},
		{"AMERICA/NEW_YORK", "America/New_York", ""},
		{"utc", "UTC", ""},
		{"Z", "UTC", ""},
		{"gmt", "UTC", ""},
		{"est5edt", "EST5EDT", ""},
		{"Paris", "", "Europe/Paris"},
		{"America/NewYork", "", "America/New_York"},
		{"Local", "", ""},
	}
	for _, c := range cases {
		z, err := LoadZoneLoose(c.in)
		if c.want != "" {
			if err != nil || z.Name() != c.want {
				t.Errorf("LoadZoneLoose(%q) = %q, %v; want %q", c.in, z.Name(), err, c.want)
			}
			continue
		}
		var ze *ZoneError
		if !errors.As(err, &ze) || ze.Suggestion != c.suggestion {
			t.Errorf("LoadZoneLoose(%q) error = %#v; want suggestion %q", c.in, err, c.suggestion)
		}
	}
}

// TestZoneNamesAllLoad keeps the generated list honest: every name in it
// loads strictly, and it holds the zones the rest of the tests rely on.
func TestZoneNamesAllLoad(t *testing.T) {
	names := ZoneNames()
	if len(names) < 400 {
		t.Fatalf("ZoneNames has %d names; regenerate zonenames.txt with go generate ./tz", len(names))
	}
	for _, n := range names {
		if _, err := LoadZone(n); err != nil {
			t.Errorf("listed zone %q does not load: %v", n, err)
		}
		if strings.ContainsAny(n, " \t#") {
			t.Errorf("listed zone %q has a stray character", n)
		}
	}
	for _, n := range []string{"Europe/Paris", "America/Santiago", "Australia/Lord_Howe", "UTC"} {
		if _, ok := zoneIndex().folded[strings.ToLower(n)]; !ok {
			t.Errorf("ZoneNames lacks %q", n)
		}
	}
}

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"paris", "paris", 0}, {"pari", "paris", 1},
		{"prais", "paris", 1}, {"kitten", "sitting", 3}, {"é", "e", 1},
	}
	for _, c := range cases {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
