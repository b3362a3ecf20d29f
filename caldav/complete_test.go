package caldav_test

import (
	"strings"
	"testing"
)

// Thunderbird completes one occurrence of a repeating to-do by sending it
// as a completed changed occurrence at the current due: the server takes
// it (it answered 403 before) and completes that occurrence, so the GET
// shows the task open at its next due.
func TestPutCompletesOccurrenceOfTask(t *testing.T) {
	f := open(t)
	const path = "/dav/me/calendars/tasks/rep.ics"
	todo := func(lines string, after string) string {
		return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN\r\n" +
			"BEGIN:VTODO\r\nUID:rep@example.com\r\nDTSTAMP:20261201T080000Z\r\nSUMMARY:Water the plants\r\n" +
			"DUE;TZID=Europe/Paris:20261207T090000\r\nRRULE:FREQ=WEEKLY;COUNT=5\r\n" + lines + "END:VTODO\r\n" + after + "END:VCALENDAR\r\n"
	}
	if code, _, body := f.as("PUT", path, calHeader, todo("STATUS:NEEDS-ACTION\r\n", "")); code != 201 {
		t.Fatalf("first PUT: %d %s", code, body)
	}
	occ := "BEGIN:VTODO\r\nUID:rep@example.com\r\nDTSTAMP:20261201T080000Z\r\nRECURRENCE-ID;TZID=Europe/Paris:20261207T090000\r\n" +
		"SUMMARY:Water the plants\r\nDUE;TZID=Europe/Paris:20261207T090000\r\nSTATUS:COMPLETED\r\nCOMPLETED:20261207T100000Z\r\n" +
		"PERCENT-COMPLETE:100\r\nEND:VTODO\r\n"
	if code, _, body := f.as("PUT", path, calHeader, todo("STATUS:NEEDS-ACTION\r\n", occ)); code != 204 {
		t.Fatalf("PUT completing the occurrence: %d %s", code, body)
	}
	code, _, body := f.as("GET", path, nil, "")
	body = strings.ReplaceAll(body, "\r\n ", "")
	if code != 200 || !strings.Contains(body, "DUE;TZID=Europe/Paris:20261214T090000") || !strings.Contains(body, "STATUS:NEEDS-ACTION") ||
		!strings.Contains(body, "COUNT=4") || strings.Contains(body, "PERCENT-COMPLETE") || strings.Contains(body, "RECURRENCE-ID") {
		t.Errorf("GET after completing the occurrence: %d\n%s", code, body)
	}
}
