package ics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// TestZoneMatchingBounded: a file may define any number of VTIMEZONEs,
// but only maxMatched are matched to IANA zones by their rules; an event
// in one of the others is read in the person's zone, as for a TZID that
// names no zone, and the report says so, unless the zone has a hint
// (X-LIC-LOCATION) that names an IANA zone.
func TestZoneMatchingBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\n")
	n := maxMatched + 5
	for i := 0; i < n; i++ {
		hint := ""
		if i == n-1 {
			hint = "X-LIC-LOCATION:Asia/Tokyo\n"
		}
		fmt.Fprintf(&b, "BEGIN:VTIMEZONE\nTZID:Custom %d\n%sBEGIN:STANDARD\nDTSTART:16010101T030000\nTZOFFSETFROM:+0200\nTZOFFSETTO:+0100\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\nEND:STANDARD\nBEGIN:DAYLIGHT\nDTSTART:16010101T020000\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0200\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\nEND:DAYLIGHT\nEND:VTIMEZONE\n", i, hint)
		fmt.Fprintf(&b, "BEGIN:VEVENT\nUID:e%d\nDTSTART;TZID=Custom %d:20260705T090000\nEND:VEVENT\n", i, i)
	}
	b.WriteString("END:VCALENDAR\n")
	cal := DecodeBytes([]byte(b.String()), DecodeOptions{})
	zones := map[string]int{}
	for _, e := range cal.Events {
		zones[e.Zone.Name()]++
	}
	if len(cal.Events) != n || zones["Asia/Tokyo"] != 1 || zones["UTC"] != n-maxMatched-1 {
		t.Errorf("%d events read in zones %v, want %d: one in Asia/Tokyo, %d in UTC (the person's)", len(cal.Events), zones, n, n-maxMatched-1)
	}
	refused := 0
	for _, s := range cal.Repaired {
		if strings.Contains(s.Reason, fmt.Sprintf("more than %d time zones known only by their rules", maxMatched)) {
			refused++
		}
	}
	if refused != n-maxMatched-1 {
		t.Errorf("%d lines say a zone was not matched, want %d", refused, n-maxMatched-1)
	}
}

// BenchmarkDecodeZones reads files of n VTIMEZONEs with names that are
// no zone (matched by their rules, up to maxMatched), each used by one
// event: ns/zone is what a zone costs past the bound.
func BenchmarkDecodeZones(b *testing.B) {
	for _, n := range []int{100, 4000} {
		var s strings.Builder
		s.WriteString("BEGIN:VCALENDAR\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&s, "BEGIN:VTIMEZONE\nTZID:Z%d\nBEGIN:STANDARD\nDTSTART:16010101T030000\nTZOFFSETFROM:+0%d00\nTZOFFSETTO:+0%d00\nEND:STANDARD\nEND:VTIMEZONE\n", i, i%10, i%10)
			fmt.Fprintf(&s, "BEGIN:VEVENT\nUID:e%d\nDTSTART;TZID=Z%d:20200101T090000\nEND:VEVENT\n", i, i)
		}
		s.WriteString("END:VCALENDAR\n")
		data := []byte(s.String())
		b.Run(fmt.Sprintf("zones=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				DecodeBytes(data, DecodeOptions{})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/zone")
		})
	}
}

// TestZoneRulesBounded: a VTIMEZONE whose observances change the offset
// far more often than any zone does (a rule every minute, thousands of
// RDATEs) is not expanded and compared, which took minutes: its times
// are read in the person's zone and the report says why.
func TestZoneRulesBounded(t *testing.T) {
	var rdates strings.Builder
	for i := 0; i < 2000; i++ {
		if i > 0 {
			rdates.WriteString(",")
		}
		fmt.Fprintf(&rdates, "%04d%02d%02dT020000", 1995+i/300, 1+i/25%12, 1+i%25)
	}
	for _, c := range []struct{ observance, why string }{
		{"RRULE:FREQ=MINUTELY", "repeats more often than monthly"},
		{"RRULE:FREQ=DAILY;INTERVAL=3", "repeats more often than monthly"},
		{"RDATE:" + rdates.String(), "its offset changes more than"},
	} {
		data := "BEGIN:VCALENDAR\nBEGIN:VTIMEZONE\nTZID:Odd\nBEGIN:STANDARD\nDTSTART:19700101T000000\nTZOFFSETFROM:+0117\nTZOFFSETTO:+0117\n" +
			c.observance + "\nEND:STANDARD\nEND:VTIMEZONE\n" +
			"BEGIN:VEVENT\nUID:a\nDTSTART;TZID=Odd:20250101T090000\nEND:VEVENT\nBEGIN:VEVENT\nUID:b\nDTSTART:19950101T090000Z\nEND:VEVENT\nEND:VCALENDAR\n"
		cal := DecodeBytes([]byte(data), DecodeOptions{Zone: tz.MustZone("Europe/Paris")})
		said := false
		for _, r := range cal.Repaired {
			said = said || strings.Contains(r.Reason, c.why)
		}
		if len(cal.Events) != 2 || cal.Events[0].Zone.Name() != "Europe/Paris" || !said {
			t.Errorf("%.30s: %d events, the first in %s; repaired %+v; want 2, in Europe/Paris, saying %q",
				c.observance, len(cal.Events), cal.Events[0].Zone.Name(), cal.Repaired, c.why)
		}
	}
}
