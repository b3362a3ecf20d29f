package ics

import (
	"bytes"
	"testing"
	"time"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/tz"
)

// FuzzDecode feeds arbitrary bytes to the decoder: it must never panic,
// and whatever it keeps must encode to a file go-ical and we read back.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nDTSTART:20261005T090000Z\nEND:VEVENT\nEND:VCALENDAR\n",
		"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;TZID=\"W. Europe Standard Time:20200609T090000\"\r\nRRULE:FREQ=WEEKLY\r\nEND:VEVENT\r\n",
		"BEGIN:VCALENDAR\nBEGIN:VTODO\nDUE;VALUE=DATE:20261101\nPRIORITY:5\nCATEGORIES:a\\,b,c\nBEGIN:VALARM\nTRIGGER;RELATED=END:-PT15M\nEND:VALARM\nEND:VTODO\nEND:VCALENDAR",
		"BEGIN:VCALENDAR\nBEGIN:VTIMEZONE\nTZID:X\nBEGIN:STANDARD\nDTSTART:16010101T030000\nTZOFFSETFROM:+0200\nTZOFFSETTO:+0100\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\nEND:STANDARD\nEND:VTIMEZONE\nBEGIN:VEVENT\nDTSTART;TZID=X:20261005T090000\nRECURRENCE-ID;TZID=X:20261005T090000\nEND:VEVENT\nEND:VCALENDAR",
	} {
		f.Add([]byte(s))
	}
	person := tz.MustZone("Europe/Paris")
	f.Fuzz(func(t *testing.T, data []byte) {
		cal := DecodeBytes(data, DecodeOptions{Zone: person})
		var buf bytes.Buffer
		if err := Encode(&buf, cal, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatalf("encode: %v", err)
		}
		if _, err := ical.NewDecoder(bytes.NewReader(buf.Bytes())).Decode(); err != nil && (len(cal.Events)+len(cal.Tasks) > 0) {
			t.Fatalf("go-ical cannot read the re-encoded file: %v\n%s", err, buf.Bytes())
		}
		back := DecodeBytes(buf.Bytes(), DecodeOptions{Zone: person})
		if len(back.Events) != len(cal.Events) || len(back.Tasks) != len(cal.Tasks) {
			t.Fatalf("re-decoding lost items: %d/%d events, %d/%d tasks; skipped %+v", len(back.Events), len(cal.Events), len(back.Tasks), len(cal.Tasks), back.Skipped)
		}
	})
}
