package caldav

import (
	"encoding/xml"
	"errors"
	"strings"
	"testing"
)

// The prop-filters of a calendar-query (RFC 4791 §9.7.2, §9.7.5) against
// a series whose override has a title of its own: a component passing
// every filter is enough, the case counts only under i;octet, a
// text-match needs the property, negate-condition turns it round, and
// what is not read lets everything pass.
func TestMatchesProps(t *testing.T) {
	body := []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n" +
		"BEGIN:VEVENT\r\nUID:yoga@example\r\nDTSTAMP:20261001T080000Z\r\nDTSTART:20261005T160000Z\r\nDURATION:PT1H\r\n" +
		"RRULE:FREQ=DAILY;COUNT=5\r\nSUMMARY:Yoga\r\nLOCATION:Studio\\, 2nd floor\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:yoga@example\r\nDTSTAMP:20261001T080000Z\r\nRECURRENCE-ID:20261007T160000Z\r\nDTSTART:20261007T170000Z\r\n" +
		"DURATION:PT1H\r\nSUMMARY:Late yoga\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
	for _, c := range []struct {
		filters string
		want    bool
	}{
		{``, true},
		{`<C:prop-filter name="SUMMARY"><C:text-match>yoga</C:text-match></C:prop-filter>`, true},
		{`<C:prop-filter name="summary"><C:text-match>LATE</C:text-match></C:prop-filter>`, true}, // the override's
		{`<C:prop-filter name="SUMMARY"><C:text-match>Dentist</C:text-match></C:prop-filter>`, false},
		{`<C:prop-filter name="SUMMARY"><C:text-match collation="i;octet">late</C:text-match></C:prop-filter>`, false},
		{`<C:prop-filter name="SUMMARY"><C:text-match collation="i;octet">Late</C:text-match></C:prop-filter>`, true},
		{`<C:prop-filter name="SUMMARY"><C:text-match collation="i;ascii-casemap">LATE YOGA</C:text-match></C:prop-filter>`, true},
		{`<C:prop-filter name="UID"><C:text-match>yoga@example</C:text-match></C:prop-filter>`, true},
		{`<C:prop-filter name="LOCATION"><C:text-match>studio, 2nd</C:text-match></C:prop-filter>`, true}, // unescaped
		// Both filters on one component: the override has no LOCATION.
		{`<C:prop-filter name="SUMMARY"><C:text-match>late</C:text-match></C:prop-filter><C:prop-filter name="LOCATION"/>`, false},
		{`<C:prop-filter name="SUMMARY"><C:text-match negate-condition="yes">yoga</C:text-match></C:prop-filter>`, false},
		{`<C:prop-filter name="SUMMARY"><C:text-match negate-condition="yes">late</C:text-match></C:prop-filter>`, true}, // the series
		{`<C:prop-filter name="CATEGORIES"><C:text-match negate-condition="yes">work</C:text-match></C:prop-filter>`, false},
		{`<C:prop-filter name="RECURRENCE-ID"><C:is-not-defined/></C:prop-filter>`, true},
		{`<C:prop-filter name="SUMMARY"><C:is-not-defined/></C:prop-filter>`, false},
		{`<C:prop-filter name="ATTENDEE"><C:param-filter name="PARTSTAT"><C:text-match>ACCEPTED</C:text-match></C:param-filter></C:prop-filter>`, true},
	} {
		comp, err := parseXML(strings.NewReader(`<C:comp-filter xmlns:C="` + nsCalDAV + `" name="VEVENT">` + c.filters + `</C:comp-filter>`))
		if err != nil {
			t.Fatalf("%s: %v", c.filters, err)
		}
		if comp.name != (xml.Name{Space: nsCalDAV, Local: "comp-filter"}) {
			t.Fatalf("parsed %v", comp.name)
		}
		fs, err := readPropFilters(comp)
		if err != nil {
			t.Fatalf("%s: %v", c.filters, err)
		}
		if got := matchesProps(body, "VEVENT", fs); got != c.want {
			t.Errorf("%s: %v, want %v", c.filters, got, c.want)
		}
	}
}

// i;ascii-casemap folds A to Z alone (RFC 4790 §9.2): “CAFÉ” is not
// “Café”; a collation the server does not have is refused with
// supported-collation (RFC 4791 §7.5.1).
func TestTextMatchCollations(t *testing.T) {
	body := []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:c@example\r\nDTSTAMP:20261001T080000Z\r\n" +
		"DTSTART:20261005T160000Z\r\nSUMMARY:Café\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
	for _, c := range []struct {
		text, collation string
		want            bool
	}{
		{"CAFÉ", "i;ascii-casemap", false},
		{"CAFé", "i;ascii-casemap", true},
		{"CAFé", "", true},
		{"Café", "i;octet", true},
		{"café", "i;octet", false},
	} {
		comp, err := parseXML(strings.NewReader(`<C:comp-filter xmlns:C="` + nsCalDAV + `" name="VEVENT"><C:prop-filter name="SUMMARY"><C:text-match collation="` + c.collation + `">` + c.text + `</C:text-match></C:prop-filter></C:comp-filter>`))
		if err != nil {
			t.Fatal(err)
		}
		fs, err := readPropFilters(comp)
		if err != nil {
			t.Fatalf("%s %q: %v", c.collation, c.text, err)
		}
		if got := matchesProps(body, "VEVENT", fs); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.collation, c.text, got, c.want)
		}
	}
	for _, f := range []string{
		`<C:prop-filter name="SUMMARY"><C:text-match collation="i;foo">yoga</C:text-match></C:prop-filter>`,
		`<C:prop-filter name="ATTENDEE"><C:param-filter name="PARTSTAT"><C:text-match collation="i;foo">ACCEPTED</C:text-match></C:param-filter></C:prop-filter>`,
	} {
		comp, err := parseXML(strings.NewReader(`<C:comp-filter xmlns:C="` + nsCalDAV + `" name="VEVENT">` + f + `</C:comp-filter>`))
		if err != nil {
			t.Fatal(err)
		}
		var he *httpError
		if _, err := readPropFilters(comp); !errors.As(err, &he) || he.code != 403 || he.precondition != "C:supported-collation" || !strings.Contains(he.msg, "i;foo") {
			t.Errorf("%s: %v", f, err)
		}
	}
}
