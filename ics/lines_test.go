package ics

import (
	"strings"
	"testing"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/tz"
)

func TestMalformedLinesAreListed(t *testing.T) {
	src := strings.Join([]string{
		"BEGIN:VCALENDAR",               // 1
		"BEGIN:VEVENT",                  // 2
		"UID:a",                         // 3
		"DTSTART:20261005T090000Z",      // 4
		"SUMMARY;BROKEN:Hello",          // 5 parameter without =
		"SUMMARY:Hello\\, world",        // 6
		"DTEND:20261005T100000Z",        // 7
		"END:VEVENT",                    // 8
		"BEGIN:VEVENT",                  // 9
		"UID:b",                         // 10
		"DTSTART:not-a-date",            // 11
		"END:VEVENT",                    // 12
		"BEGIN:VTODO",                   // 13
		"UID:c",                         // 14
		"SUMMARY:Pay rent",              // 15
		"DUE;VALUE=DATE:20261101",       // 16
		"PRIORITY:5",                    // 17
		"CATEGORIES:home,money\\,bills", // 18
		"END:VTODO",                     // 19
		"END:VCALENDAR",                 // 20
	}, "\n")
	cal := DecodeBytes([]byte(src), DecodeOptions{Zone: tz.MustZone("Europe/Paris")})
	if len(cal.Events) != 1 || cal.Events[0].Summary != "Hello, world" {
		t.Fatalf("events: %+v", cal.Events)
	}
	if len(cal.Tasks) != 1 || cal.Tasks[0].Priority != 2 || strings.Join(cal.Tasks[0].Tags, "|") != "home|money,bills" {
		t.Fatalf("tasks: %+v", cal.Tasks)
	}
	wantLines := map[int]bool{5: true, 11: true, 9: true}
	for _, s := range cal.Skipped {
		if !wantLines[s.Line] {
			t.Errorf("unexpected skip %+v", s)
		}
		delete(wantLines, s.Line)
	}
	if len(wantLines) != 0 {
		t.Errorf("lines not reported: %v (skipped: %+v)", wantLines, cal.Skipped)
	}
}

func TestPriorityMapping(t *testing.T) {
	for _, c := range []struct{ ical, ours, back int }{
		{0, 4, 0}, {1, 1, 1}, {4, 1, 1}, {5, 2, 5}, {6, 3, 9}, {9, 3, 9},
	} {
		if got := PriorityFromICal(c.ical); got != c.ours {
			t.Errorf("PriorityFromICal(%d) = %d, want %d", c.ical, got, c.ours)
		}
		if got := PriorityToICal(c.ours); got != c.back {
			t.Errorf("PriorityToICal(%d) = %d, want %d", c.ours, got, c.back)
		}
	}
}

func TestUnescapeText(t *testing.T) {
	for in, want := range map[string]string{
		`a\,b\;c\\d\ne\Nf`: "a,b;c\\d\ne\nf",
		`plain, comma`:     "plain, comma",
		`trailing\`:        `trailing\`,
		`odd\:`:            "odd:",
	} {
		if got := unescapeText(in); got != want {
			t.Errorf("unescapeText(%q) = %q, want %q", in, got, want)
		}
	}
}

// A backslash in an unquoted parameter value keeps the character after
// it in the value, as Apple's calendars write a “;” there
// (X-APPLE-STRUCTURED-LOCATION's X-TITLE): the line is read whole, the
// parameters as meant, and nothing is listed.
func TestBackslashInParameterValue(t *testing.T) {
	var params ical.Params
	name, value, reason := splitLine(`X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-TITLE=Hauptstraße 1-5\; 4041 Linz;X-APPLE-RADIUS=70.5:geo:48.3,14.2`, &params)
	if reason != "" || name != "X-APPLE-STRUCTURED-LOCATION" || value != "geo:48.3,14.2" {
		t.Fatalf("name %q value %q reason %q", name, value, reason)
	}
	if got := params["X-TITLE"]; len(got) != 1 || got[0] != `Hauptstraße 1-5\; 4041 Linz` || params.Get("X-APPLE-RADIUS") != "70.5" {
		t.Errorf("params %v", params)
	}
	// A ":" after a backslash still ends the parameters (RFC 5545), and a
	// quote after one is still no part of an unquoted value.
	params = nil
	if _, value, reason := splitLine(`X-A;X-T=end\:geo:48.3`, &params); reason != "" || value != "geo:48.3" || params.Get("X-T") != `end\` {
		t.Errorf("backslash before the colon: value %q, params %v, reason %q", value, params, reason)
	}
	if _, _, reason := splitLine(`X-A;X-T=a\"d:v`, nil); reason == "" {
		t.Error("a quote in an unquoted value was read")
	}
	// A "\," does not split the value in two either; a bare "," does.
	params = nil
	if _, _, reason := splitLine(`X-A;X-B=one\,two,three:v`, &params); reason != "" || len(params["X-B"]) != 2 || params["X-B"][0] != `one\,two` {
		t.Errorf("params %v, reason %q", params, reason)
	}
	cal := DecodeBytes([]byte("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20261005T090000Z\r\n"+
		"X-APPLE-STRUCTURED-LOCATION;X-TITLE=Main St\\; Linz:geo:48.3,14.2\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"), DecodeOptions{Zone: tz.MustZone("Europe/Vienna")})
	if len(cal.Events) != 1 || len(cal.Skipped) != 0 || len(cal.Repaired) != 0 {
		t.Errorf("events %d, skipped %+v, repaired %+v", len(cal.Events), cal.Skipped, cal.Repaired)
	}
}
