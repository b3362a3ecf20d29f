package caldav_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

const tasks1 = "/dav/me/calendars/tasks/"

// idOf is the id ("e7", "t3") in the data of an add_event or add_task
// answer.
func (f *fixture) idOf(tool, raw string) string {
	f.t.Helper()
	res := f.call(tool, raw)
	var d struct {
		Event struct{ ID string } `json:"event"`
		Task  struct{ ID string } `json:"task"`
	}
	if err := json.Unmarshal(res.Data, &d); err != nil {
		f.t.Fatalf("%s: %v: %s", tool, err, res.Data)
	}
	if d.Event.ID != "" {
		return d.Event.ID
	}
	if d.Task.ID == "" {
		f.t.Fatalf("%s %s gave no id: %s", tool, raw, res.Data)
	}
	return d.Task.ID
}

// toolShapes makes, through the tools, every shape of event and task a
// person can make by talking to the assistant.
func toolShapes(f *fixture) {
	f.call("add_event", `{"title":"Single","start":"2026-12-07T09:00","duration":30,"location":"Room 1","notes":"two\nlines"}`)
	f.call("add_event", `{"title":"Holiday","start":"2026-12-24"}`)
	f.call("add_event", `{"title":"Trip","start":"2026-12-26","end":"2026-12-29"}`)
	f.call("add_event", `{"title":"Other zone","start":"2026-12-08T09:00","duration":45,"time_zone":"America/New_York"}`)
	f.call("add_event", `{"title":"Ex as day","start":"2026-12-06T10:00","duration":60,"rrule":"FREQ=WEEKLY","exdates":["2026-12-27"]}`)
	f.call("add_event", `{"title":"Ex as time","start":"2026-12-06T11:00","duration":60,"rrule":"FREQ=WEEKLY;COUNT=8","exdates":["2026-12-13T11:00","2026-12-20T11:00"]}`)
	f.call("add_event", `{"title":"With rdates","start":"2026-12-06T13:00","duration":60,"rrule":"FREQ=WEEKLY;UNTIL=20270301T000000Z","rdates":["2026-12-10T15:00","2026-12-11"]}`)
	f.call("add_event", `{"title":"Rdates only","start":"2026-12-06T14:00","duration":30,"rdates":["2026-12-09T14:00"]}`)
	f.call("add_event", `{"title":"All-day weekly","start":"2026-12-05","rrule":"FREQ=WEEKLY;COUNT=10","exdates":["2026-12-12"],"rdates":["2026-12-16"]}`)
	f.call("add_event", `{"title":"Reminded","start":"2026-12-09T09:00","duration":30,"remind_before":[10,1440],"remind_at":["2026-12-08T20:00"]}`)
	f.call("add_event", `{"title":"Reminded weekly","start":"2026-12-09T10:00","duration":30,"rrule":"FREQ=WEEKLY","remind_before":[15],"remind_at":["2026-12-09T09:00","2026-12-01T09:00"]}`)
	f.call("add_event", `{"title":"All-day reminded","start":"2026-12-20","remind_before":[600]}`)

	changed := f.idOf("add_event", `{"title":"Changed once","start":"2026-12-07T16:00","duration":60,"rrule":"FREQ=WEEKLY;COUNT=6"}`)
	f.call("update_event", fmt.Sprintf(`{"id":"%s@20261214T150000Z","scope":"this","title":"Changed title","start":"2026-12-14T17:30","location":"Elsewhere","remind_before":[5]}`, changed))
	f.call("update_event", fmt.Sprintf(`{"id":"%s@20261221T150000Z","scope":"this","notes":"only notes"}`, changed))
	f.call("delete_event", fmt.Sprintf(`{"id":"%s@20261228T150000Z","scope":"this"}`, changed))

	allDay := f.idOf("add_event", `{"title":"All-day changed","start":"2026-12-02","rrule":"FREQ=WEEKLY;COUNT=6"}`)
	f.call("update_event", fmt.Sprintf(`{"id":"%s@20261209","scope":"this","start":"2026-12-10"}`, allDay))
	f.call("update_event", fmt.Sprintf(`{"id":"%s@20261216","scope":"this","title":"Renamed day"}`, allDay))
	f.call("delete_event", fmt.Sprintf(`{"id":"%s@20261223","scope":"this"}`, allDay))

	split := f.idOf("add_event", `{"title":"Split","start":"2026-12-03T08:00","duration":30,"rrule":"FREQ=DAILY;COUNT=20","exdates":["2026-12-05T08:00"]}`)
	f.call("update_event", fmt.Sprintf(`{"id":"%s@20261204T070000Z","scope":"this","title":"Early change"}`, split))
	f.call("update_event", fmt.Sprintf(`{"id":"%s@20261210T070000Z","scope":"following","title":"Split later","start":"2026-12-10T08:30"}`, split))

	moved := f.idOf("add_event", `{"title":"Moved","start":"2026-12-07T18:00","duration":60,"rrule":"FREQ=WEEKLY;BYDAY=MO","exdates":["2026-12-21T18:00"]}`)
	f.call("update_event", fmt.Sprintf(`{"id":"%s@20261214T170000Z","scope":"this","title":"Moved once"}`, moved))
	f.call("update_event", fmt.Sprintf(`{"id":"%s","scope":"all","start":"2026-12-08T19:00"}`, moved))

	f.call("add_event", `{"title":"Fall back","start":"2027-10-31T02:30","duration":30}`)
	f.call("add_event", `{"title":"Fall back weekly","start":"2027-10-31T02:30","duration":30,"rrule":"FREQ=WEEKLY;COUNT=3","remind_before":[10]}`)
	f.call("add_event", `{"title":"Spring gap","start":"2027-03-28T02:30","duration":30,"rrule":"FREQ=DAILY;COUNT=3"}`)
	f.call("add_event", `{"title":"Zone reminded","start":"2026-12-08T09:00","duration":45,"time_zone":"Asia/Tokyo","rrule":"FREQ=DAILY;COUNT=4","remind_at":["2026-12-07T21:00"],"exdates":["2026-12-09"]}`)
	f.call("add_event", `{"title":"All-day at","start":"2026-12-21","remind_at":["2026-12-20T18:00"]}`)
	ovRem := f.idOf("add_event", `{"title":"Occurrence reminded","start":"2026-12-07T07:00","duration":30,"rrule":"FREQ=DAILY;COUNT=5","remind_before":[30]}`)
	f.call("update_event", fmt.Sprintf(`{"id":"%s@20261208T060000Z","scope":"this","remind_at":["2026-12-08T06:00"]}`, ovRem))
	f.call("update_event", fmt.Sprintf(`{"id":"%s@20261209T060000Z","scope":"this","clear":["remind_before"]}`, ovRem))
	gone := f.idOf("add_event", `{"title":"Undone delete","start":"2026-12-15T09:00","duration":30,"exdates":[],"rrule":"FREQ=WEEKLY;COUNT=3"}`)
	f.call("delete_event", fmt.Sprintf(`{"id":"%s"}`, gone))
	f.call("undo", `{}`)
	f.call("add_task", `{"title":"Day reminded","due":"2026-12-12","remind_at":["2026-12-11T19:00"],"remind_before":[0]}`)
	f.call("add_task", `{"title":"Due day","due":"2026-12-10"}`)
	f.call("add_task", `{"title":"Due time","due":"2026-12-10T17:00"}`)
	f.call("add_task", `{"title":"No due","notes":"some notes"}`)
	f.call("add_task", `{"title":"Repeats","due":"2026-12-10","rrule":"FREQ=WEEKLY"}`)
	f.call("add_task", `{"title":"Repeats timed","due":"2026-12-10T08:00","rrule":"FREQ=DAILY","repeat_from":"completion"}`)
	f.call("add_task", `{"title":"Tagged","due":"2026-12-11T09:00","tags":["home","errands"],"priority":2,"remind_before":[60],"remind_at":["2026-12-09T08:00"]}`)
	f.call("add_task", `{"title":"Reminded repeating","due":"2026-12-11","rrule":"FREQ=MONTHLY","remind_before":[1440],"remind_at":["2026-12-10T18:00"]}`)
	done := f.idOf("add_task", `{"title":"Done","due":"2026-12-03"}`)
	f.call("complete_task", fmt.Sprintf(`{"id":"%s"}`, done))
	again := f.idOf("add_task", `{"title":"Done once of many","due":"2026-12-01","rrule":"FREQ=WEEKLY"}`)
	f.call("complete_task", fmt.Sprintf(`{"id":"%s"}`, again))
}

// clientShapes are objects as clients PUT them, by resource name.
var clientShapes = map[string]string{
	"exdate-date.ics": vevent("exdate-date", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T100000\r\n"+
		"RRULE:FREQ=WEEKLY;COUNT=10\r\nEXDATE;VALUE=DATE:20261214\r\nEXDATE;VALUE=DATE:20261102\r\n"),
	"exdate-utc.ics": vevent("exdate-utc", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDURATION:PT1H\r\n"+
		"RRULE:FREQ=WEEKLY\r\nEXDATE:20261214T080000Z,20261221T080000Z\r\nEXDATE;TZID=Europe/Paris:20261228T090000\r\n"),
	"exdate-nothing.ics": vevent("exdate-nothing", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T100000\r\n"+
		"RRULE:FREQ=WEEKLY;UNTIL=20270301T080000Z\r\nEXDATE;TZID=Europe/Paris:20261208T090000\r\nEXDATE;VALUE=DATE:20261209\r\n"),
	"rdate-date.ics": vevent("rdate-date", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T100000\r\n"+
		"RRULE:FREQ=WEEKLY;COUNT=4\r\nRDATE;VALUE=DATE:20261210,20261211\r\n"),
	"rdate-time.ics": vevent("rdate-time", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T100000\r\n"+
		"RRULE:FREQ=WEEKLY;COUNT=4\r\nRDATE:20261210T150000Z\r\nRDATE;TZID=America/New_York:20261211T090000\r\n"),
	"rdate-allday.ics": vevent("rdate-allday", "DTSTART;VALUE=DATE:20261207\r\nDTEND;VALUE=DATE:20261208\r\n"+
		"RRULE:FREQ=WEEKLY;COUNT=4\r\nRDATE;VALUE=DATE:20261210\r\nEXDATE;VALUE=DATE:20261214\r\nEXDATE;VALUE=DATE:20261215\r\n"),
	"until-local.ics": vevent("until-local", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T100000\r\n"+
		"RRULE:FREQ=DAILY;UNTIL=20261215T090000\r\n"),
	"until-utc.ics": vevent("until-utc", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T100000\r\n"+
		"RRULE:FREQ=DAILY;UNTIL=20261215T080000Z\r\n"),
	"until-date.ics": vevent("until-date", "DTSTART;VALUE=DATE:20261207\r\nRRULE:FREQ=DAILY;UNTIL=20261215\r\n"),
	"floating.ics": vevent("floating", "DTSTART:20261207T090000\r\nDTEND:20261207T100000\r\nRRULE:FREQ=DAILY;UNTIL=20261212T090000\r\n"+
		"EXDATE:20261209T090000\r\nRDATE:20261220T090000\r\n"),
	"utc.ics": vevent("utc", "DTSTART:20261207T090000Z\r\nDTEND:20261207T100000Z\r\nRRULE:FREQ=DAILY;COUNT=5\r\nEXDATE:20261209T090000Z\r\n"),
	"allday-overrides.ics": vevent("allday-overrides", "DTSTART;VALUE=DATE:20261207\r\nDTEND;VALUE=DATE:20261209\r\nRRULE:FREQ=WEEKLY;COUNT=5\r\n") +
		"",
	"custom-tz.ics": "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
		"BEGIN:VTIMEZONE\r\nTZID:My Custom Zone\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\n" +
		"TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\n" +
		"TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n" +
		"BEGIN:VEVENT\r\nUID:custom-tz\r\nDTSTAMP:20261201T080000Z\r\nDTSTART;TZID=My Custom Zone:20261207T090000\r\nDTEND;TZID=My Custom Zone:20261207T100000\r\n" +
		"RRULE:FREQ=WEEKLY;COUNT=6\r\nEXDATE;TZID=My Custom Zone:20261214T090000\r\nSUMMARY:Custom zone\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:custom-tz\r\nDTSTAMP:20261201T080000Z\r\nRECURRENCE-ID;TZID=My Custom Zone:20261221T090000\r\n" +
		"DTSTART;TZID=My Custom Zone:20261221T110000\r\nDTEND;TZID=My Custom Zone:20261221T120000\r\nSUMMARY:Custom zone moved\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
	"windows-tz.ics": vevent("windows-tz", "DTSTART;TZID=W. Europe Standard Time:20261207T090000\r\nDTEND;TZID=W. Europe Standard Time:20261207T100000\r\n"+
		"RRULE:FREQ=WEEKLY;COUNT=3\r\n"),
	"xprops.ics": vevent("xprops", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T100000\r\n"+
		"X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC\r\nX-MOZ-GENERATION:3\r\nATTENDEE;CN=Ann;PARTSTAT=ACCEPTED:mailto:ann@example.org\r\n"+
		"ORGANIZER;CN=Bob:mailto:bob@example.org\r\nCLASS:PRIVATE\r\nTRANSP:OPAQUE\r\nSEQUENCE:2\r\nCATEGORIES:Work,Home\r\n"+
		"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n"+
		"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER;VALUE=DATE-TIME:20261206T180000Z\r\nEND:VALARM\r\n"),
	"alarms.ics": vevent("alarms", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T100000\r\nRRULE:FREQ=DAILY;COUNT=3\r\n"+
		"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:-P1D\r\nEND:VALARM\r\n"+
		"BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT1H30M\r\nEND:VALARM\r\n"+
		"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER;RELATED=END:PT0M\r\nEND:VALARM\r\n"+
		"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER;VALUE=DATE-TIME:20261207T070000Z\r\nEND:VALARM\r\n"),
	"utc-rid.ics": strings.TrimSuffix(vevent("utc-rid", "DTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T100000\r\nRRULE:FREQ=DAILY;COUNT=5\r\n"), "END:VCALENDAR\r\n") +
		"BEGIN:VEVENT\r\nUID:utc-rid\r\nDTSTAMP:20261201T080000Z\r\nRECURRENCE-ID:20261208T080000Z\r\nDTSTART:20261208T100000Z\r\nDTEND:20261208T110000Z\r\nSUMMARY:utc-rid\r\n" +
		"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:utc-rid\r\nDTSTAMP:20261201T080000Z\r\nRECURRENCE-ID;TZID=Europe/Paris:20261209T090000\r\nDTSTART;TZID=Europe/Paris:20261209T090000\r\nDTEND;TZID=Europe/Paris:20261209T100000\r\nSUMMARY:utc-rid\r\nX-ONLY-EXTRA:1\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:utc-rid\r\nDTSTAMP:20261201T080000Z\r\nRECURRENCE-ID;TZID=Europe/Paris:20261210T090000\r\nDTSTART;VALUE=DATE:20261210\r\nSUMMARY:made all-day\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
	"fixed-offset.ics": "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
		"BEGIN:VTIMEZONE\r\nTZID:Fixed +0530\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n" +
		"BEGIN:VEVENT\r\nUID:fixed-offset\r\nDTSTAMP:20261201T080000Z\r\nDTSTART;TZID=Fixed +0530:20261207T090000\r\nDURATION:PT2H\r\nRRULE:FREQ=WEEKLY;UNTIL=20270101T000000\r\nSUMMARY:fixed\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
	"floating-allday-until.ics": vevent("floating-allday-until", "DTSTART;VALUE=DATE:20261207\r\nRRULE:FREQ=DAILY;UNTIL=20261210T230000Z\r\nEXDATE:20261208T000000\r\n"),
	"todo-alarm.ics": vtodo("todo-alarm", "DUE;VALUE=DATE:20261215\r\nRRULE:FREQ=MONTHLY\r\n"+
		"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER;VALUE=DATE-TIME:20261214T180000Z\r\nEND:VALARM\r\n"+
		"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:-P2D\r\nEND:VALARM\r\n"),
	"todo-utc-until.ics": vtodo("todo-utc-until", "DUE;TZID=Europe/Paris:20261210T090000\r\nRRULE:FREQ=DAILY;UNTIL=20261220T090000\r\n"),
	"todo-day.ics": vtodo("todo-day", "DUE;VALUE=DATE:20261210\r\nPRIORITY:1\r\nCATEGORIES:home,work\r\n"+
		"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:-PT30M\r\nEND:VALARM\r\n"),
	"todo-time.ics":      vtodo("todo-time", "DUE;TZID=America/New_York:20261210T170000\r\nX-FOO:bar\r\nRRULE:FREQ=WEEKLY;COUNT=5\r\n"),
	"todo-floating.ics":  vtodo("todo-floating", "DUE:20261210T170000\r\nDTSTART:20261210T090000\r\n"),
	"todo-done.ics":      vtodo("todo-done", "DUE;VALUE=DATE:20261130\r\nSTATUS:COMPLETED\r\nCOMPLETED:20261130T100000Z\r\nPERCENT-COMPLETE:100\r\n"),
	"todo-inprocess.ics": vtodo("todo-inprocess", "DUE:20261212T100000Z\r\nSTATUS:IN-PROCESS\r\nPERCENT-COMPLETE:40\r\nRRULE:FREQ=DAILY;UNTIL=20261220T100000Z\r\n"),
}

func init() {
	// The all-day series with a moved, a renamed and a cancelled
	// occurrence, RECURRENCE-ID as dates.
	ov := func(rid, body string) string {
		return "BEGIN:VEVENT\r\nUID:allday-overrides\r\nDTSTAMP:20261201T080000Z\r\nRECURRENCE-ID;VALUE=DATE:" + rid + "\r\n" + body + "END:VEVENT\r\n"
	}
	s := clientShapes["allday-overrides.ics"]
	s = strings.TrimSuffix(s, "END:VCALENDAR\r\n") +
		ov("20261214", "DTSTART;VALUE=DATE:20261215\r\nDTEND;VALUE=DATE:20261217\r\nSUMMARY:Moved a day\r\n") +
		ov("20261221", "DTSTART;VALUE=DATE:20261221\r\nDTEND;VALUE=DATE:20261223\r\nSUMMARY:Renamed\r\nX-OWN:1\r\n") +
		ov("20261228", "DTSTART;VALUE=DATE:20261228\r\nDTEND;VALUE=DATE:20261230\r\nSTATUS:CANCELLED\r\n") +
		"END:VCALENDAR\r\n"
	clientShapes["allday-overrides.ics"] = s
}

func vevent(uid, body string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:" + uid +
		"\r\nDTSTAMP:20261201T080000Z\r\nSUMMARY:" + uid + "\r\n" + body + "END:VEVENT\r\nEND:VCALENDAR\r\n"
}

func vtodo(uid, body string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:" + uid +
		"\r\nDTSTAMP:20261201T080000Z\r\nSUMMARY:" + uid + "\r\n" + body + "END:VTODO\r\nEND:VCALENDAR\r\n"
}

var hrefRe = regexp.MustCompile(`<D:href>([^<]+\.ics)</D:href>`)

// hrefs lists the objects of a collection.
func (f *fixture) hrefs(collection string) []string {
	f.t.Helper()
	code, _, body := f.as("PROPFIND", collection, map[string]string{"Depth": "1"}, `<propfind xmlns="DAV:"><prop><getetag/></prop></propfind>`)
	if code != 207 {
		f.t.Fatalf("PROPFIND %s: %d %s", collection, code, body)
	}
	var out []string
	for _, m := range hrefRe.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// TestGetPutBackChangesNothing is the rule of docs/caldav.md, “Writes,
// and lost races”: a client that GETs an object and PUTs the same bytes
// back makes no change. For every shape the tools make and a set of
// shapes clients send, the PUT of the GET body answers 204, writes no
// journal row, and the next GET gives the same bytes and ETag.
func TestGetPutBackChangesNothing(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		toolShapes(f)
		names := make([]string, 0, len(clientShapes))
		for n := range clientShapes {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			coll := events1
			if strings.HasPrefix(n, "todo-") {
				coll = tasks1
			}
			code, _, body := f.as("PUT", coll+n, map[string]string{"Content-Type": "text/calendar", "If-None-Match": "*"}, clientShapes[n])
			if code != 201 {
				t.Errorf("PUT %s: %d %s", n, code, body)
			}
		}
		evs, tks := f.hrefs(events1), f.hrefs(tasks1)
		if len(evs) < 30 || len(tks) < 14 {
			t.Fatalf("%d events and %d tasks listed: %v %v", len(evs), len(tks), evs, tks)
		}
		for _, href := range append(evs, tks...) {
			code, h, body := f.as("GET", href, nil, "")
			if code != 200 {
				t.Errorf("GET %s: %d %s", href, code, body)
				continue
			}
			tag := h.Get("ETag")
			before := f.lastChange()
			code, _, answer := f.as("PUT", href, map[string]string{"Content-Type": "text/calendar", "If-Match": tag}, body)
			if code != 204 {
				t.Errorf("PUT of its own GET %s: %d %s\n%s", href, code, answer, body)
				continue
			}
			if got := f.lastChange(); got != before {
				t.Errorf("PUT of its own GET %s made change %d (was %d):\n%s", href, got, before, body)
			}
			code, h, again := f.as("GET", href, nil, "")
			if code != 200 || again != body || h.Get("ETag") != tag {
				t.Errorf("GET %s after the PUT of its own GET: %d, ETag %s (was %s):\n%s\n--- was:\n%s", href, code, h.Get("ETag"), tag, again, body)
			}
		}
	})
}

// TestPutKeepsStoredFormOfUnchangedParts: a client that changes one
// thing of an object (its title) changes only that; the day of an
// EXDATE made by the tools, served as the date-time of its occurrence,
// and a reminder at a fixed moment, served as minutes before, stay as
// the tools wrote them.
func TestPutKeepsStoredFormOfUnchangedParts(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		id := f.idOf("add_event", `{"title":"Weekly","start":"2026-12-06T10:00","duration":60,"rrule":"FREQ=WEEKLY","exdates":["2026-12-27"],"remind_at":["2026-12-06T09:00"]}`)
		path := events1 + id + ".ics"
		code, h, body := f.as("GET", path, nil, "")
		if code != 200 || !strings.Contains(body, "EXDATE;TZID=Europe/Paris:20261227T100000") || !strings.Contains(body, "TRIGGER:-PT60M") {
			t.Fatalf("GET: %d\n%s", code, body)
		}
		before := f.lastChange()
		code, _, answer := f.as("PUT", path, map[string]string{"Content-Type": "text/calendar", "If-Match": h.Get("ETag")},
			strings.Replace(body, "SUMMARY:Weekly", "SUMMARY:Weekly yoga", 1))
		if code != 204 || f.lastChange() == before {
			t.Fatalf("PUT of a new title: %d, change %d (was %d) %s", code, f.lastChange(), before, answer)
		}
		var d struct {
			Event struct {
				Title        string   `json:"title"`
				ExDates      []string `json:"exdates"`
				RemindAt     []string `json:"remind_at"`
				RemindBefore []int    `json:"remind_before"`
			} `json:"event"`
		}
		res := f.call("get_event", fmt.Sprintf(`{"id":"%s"}`, id))
		if err := json.Unmarshal(res.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.Event.Title != "Weekly yoga" || strings.Join(d.Event.ExDates, ",") != "2026-12-27" ||
			strings.Join(d.Event.RemindAt, ",") != "2026-12-06T09:00" || len(d.Event.RemindBefore) != 0 {
			t.Errorf("after the PUT: %+v", d.Event)
		}
	})
}
