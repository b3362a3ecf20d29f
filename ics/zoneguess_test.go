package ics

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// customZoneFile is a VCALENDAR holding a VTIMEZONE of TZID "Custom" made of
// parts, and two VEVENTs at 10:00 in it.
func customZoneFile(parts string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VTIMEZONE\r\nTZID:Custom\r\n" + parts +
		"END:VTIMEZONE\r\n" +
		"BEGIN:VEVENT\r\nUID:a@x\r\nDTSTART;TZID=Custom:20261210T100000\r\nSUMMARY:a\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:b@x\r\nDTSTART;TZID=Custom:20270710T100000\r\nSUMMARY:b\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
}

func fixedPart(offset string) string {
	return "BEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:" + offset + "\r\nTZOFFSETTO:" + offset + "\r\nEND:STANDARD\r\n"
}

// TestZoneGuessesSaid: a VTIMEZONE is read as the IANA zone whose offsets
// it gives; one that differs from every zone at some instants is read as
// the nearest and the report says so, once; one that differs at most
// instants (an offset no zone has, such as +01:17) or cannot be read (an
// offset out of range, such as +99:59) is no zone at all, and its times are
// read in the person's zone, said too.
func TestZoneGuessesSaid(t *testing.T) {
	person := tz.MustZone("America/New_York")
	berlinish := func(octoberDay string) string {
		return "BEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=" + octoberDay +
			"\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\n" +
			"BEGIN:DAYLIGHT\r\nDTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nEND:DAYLIGHT\r\n"
	}
	for _, c := range []struct {
		name, parts string
		zone        string // of both events
		said        string // in the one line of Repaired; "" for none
	}{
		{"exact", berlinish("-1SU"), "", ""},
		{"near", berlinish("-2SU"), "", "the IANA zone nearest its VTIMEZONE"},
		{"no zone's offset", fixedPart("+0117"), "America/New_York", "matches no IANA zone; read in America/New_York"},
		{"out of range", fixedPart("+9959"), "America/New_York", "cannot be read"},
		{"minutes out of range", fixedPart("+0160"), "America/New_York", "cannot be read"},
	} {
		cal := DecodeBytes([]byte(customZoneFile(c.parts)), DecodeOptions{Zone: person})
		if len(cal.Events) != 2 {
			t.Fatalf("%s: %d events", c.name, len(cal.Events))
		}
		z := cal.Events[0].Zone.Name()
		if cal.Events[1].Zone.Name() != z {
			t.Errorf("%s: the events are in %s and %s", c.name, z, cal.Events[1].Zone.Name())
		}
		switch {
		case c.zone != "" && z != c.zone:
			t.Errorf("%s: read in %s, want %s", c.name, z, c.zone)
		case c.zone == "" && (z == "America/New_York" || !strings.HasPrefix(z, "Europe/") && z != "CET" && z != "MET"):
			t.Errorf("%s: read in %s, want a zone of Central Europe", c.name, z)
		}
		var lines []string
		for _, r := range cal.Repaired {
			if strings.Contains(r.Reason, "Custom") {
				lines = append(lines, r.Reason)
			}
		}
		if c.said == "" && len(lines) != 0 || c.said != "" && (len(lines) == 0 || !strings.Contains(lines[0], c.said)) {
			t.Errorf("%s: the report says %q, want a line with %q", c.name, lines, c.said)
		}
		if c.zone == "" && len(lines) > 1 {
			t.Errorf("%s: the guess is said %d times, want once: %q", c.name, len(lines), lines)
		}
	}
}
