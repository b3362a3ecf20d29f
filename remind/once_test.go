package remind

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"

	"github.com/assistant-dev/assistant/ics"
	"github.com/assistant-dev/assistant/tools"
)

// onceCalendar has a weekly event and a weekly task, each with an absolute
// alarm to come and one long past (RFC 5545 §3.8.6.3: an absolute trigger
// fires once, at its instant).
const onceCalendar = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
	"BEGIN:VEVENT\r\nUID:weekly@test\r\nDTSTAMP:20261001T000000Z\r\nSUMMARY:Weekly\r\n" +
	"DTSTART;TZID=Europe/Paris:20261005T090000\r\nDTEND;TZID=Europe/Paris:20261005T100000\r\nRRULE:FREQ=WEEKLY\r\n" +
	"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER;VALUE=DATE-TIME:20261012T060000Z\r\nEND:VALARM\r\n" +
	"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER;VALUE=DATE-TIME:19980102T130000Z\r\nEND:VALARM\r\n" +
	"END:VEVENT\r\n" +
	"BEGIN:VTODO\r\nUID:todo@test\r\nDTSTAMP:20261001T000000Z\r\nSUMMARY:Plants\r\n" +
	"DUE;TZID=Europe/Paris:20261006T180000\r\nRRULE:FREQ=WEEKLY\r\n" +
	"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER;VALUE=DATE-TIME:20261013T150000Z\r\nEND:VALARM\r\n" +
	"END:VTODO\r\nEND:VCALENDAR\r\n"

// An absolute alarm imported on a repeating event or task fires once, at
// its instant, never once per occurrence; one already past is dropped and
// named in the import's report. get_event and get_task show it, and the
// export writes it back as an absolute TRIGGER.
func TestImportedAbsoluteAlarmFiresOnce(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC))
		p, err := e.s.PersonByID(e.ctx, e.ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := ics.Import(e.ctx, e.s, p, strings.NewReader(onceCalendar), ics.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Skipped) != 1 || rep.Skipped[0].Component != "VALARM" || rep.Skipped[0].Line != 19 ||
			!strings.Contains(rep.Skipped[0].Reason, "19980102T130000Z") || !strings.Contains(rep.Skipped[0].Reason, "has passed") {
			t.Errorf("skipped %+v, want the alarm of 1998 named", rep.Skipped)
		}
		eng := e.engine(Options{})
		e.pass(eng)
		var sent []Message
		for day := 1; day <= 60; day++ { // a pass an hour for two months
			for h := range 24 {
				e.now = time.Date(2026, 10, 1+day, h, 0, 0, 0, time.UTC)
				e.pass(eng)
				sent = append(sent, e.rec.take()...)
			}
		}
		if len(sent) != 2 || sent[0].Title != "Weekly" || sent[0].FireAt != "2026-10-12T08:00:00+02:00" ||
			sent[1].Title != "Plants" || sent[1].FireAt != "2026-10-13T17:00:00+02:00" {
			t.Fatalf("sent %+v, want each one-time alarm once, at its instant", sent)
		}
		if !strings.HasPrefix(sent[0].Trigger, "once:") {
			t.Errorf("trigger %q", sent[0].Trigger)
		}

		tc := &tools.ToolContext{}
		tools.Insert(tc, e.ada)
		tools.Insert(tc, e.s)
		tools.Insert(tc, tools.Clock(e.time))
		for id, want := range map[string]string{"e1": "once at Mon 2026-10-12 08:00 (+02:00)", "t1": "once at Tue 2026-10-13 17:00 (+02:00)"} {
			name := map[byte]string{'e': "get_event", 't': "get_task"}[id[0]]
			res, _ := e.reg.Call(e.ctx, tc, name, []byte(`{"id":"`+id+`"}`))
			if !res.OK() || !strings.Contains(res.Out, want) || !strings.Contains(string(res.Data), `"remind_once":["`) {
				t.Errorf("%s %s lacks %q:\n%s\n%s", name, id, want, res.Out, res.Data)
			}
		}
		var out bytes.Buffer
		if err := ics.Export(e.ctx, e.s, p, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"TRIGGER;VALUE=DATE-TIME:20261012T060000Z", "TRIGGER;VALUE=DATE-TIME:20261013T150000Z"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the export lacks %s:\n%s", want, out.String())
			}
		}
	})
}

// A remind_at given through the tools keeps its meaning on a repeating
// event (its distance from each start): the export writes it as a
// relative trigger, not as an absolute one that would fire once.
func TestToolsRemindAtExportsRelative(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-01T08:00"))
		e.call(e.ada, "add_event", `{"title":"Weekly","start":"2026-10-05T09:00","rrule":"FREQ=WEEKLY","remind_at":["2026-10-04T20:00"]}`)
		p, err := e.s.PersonByID(e.ctx, e.ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := ics.Export(e.ctx, e.s, p, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "TRIGGER:-PT780M") || strings.Contains(out.String(), "VALUE=DATE-TIME") {
			t.Errorf("the export does not write 13 h before each start:\n%s", out.String())
		}
	})
}
