package ics

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// vcalendar wraps component lines in a VCALENDAR with CRLF line ends.
func vcalendar(lines ...string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + strings.Join(lines, "\r\n") + "\r\nEND:VCALENDAR\r\n"
}

// TestTodoStartNotKept: the tasks table has no start, so an import lists a
// VTODO's DTSTART (at its line, with the to-do's UID) as not kept, while
// still using it as the base of the to-do's relative alarms; a to-do
// without DTSTART gets no such line.
func TestTodoStartNotKept(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		src := vcalendar(
			"BEGIN:VTODO", // line 4
			"UID:with-start",
			"SUMMARY:Write report",
			"DTSTART;TZID=Europe/Berlin:20261005T090000", // line 7
			"DUE;TZID=Europe/Berlin:20261005T170000",
			"BEGIN:VALARM",
			"ACTION:DISPLAY",
			"TRIGGER:-PT15M", // from DTSTART: 08:45, 495 minutes before the due
			"END:VALARM",
			"END:VTODO",
			"BEGIN:VTODO",
			"UID:without-start",
			"SUMMARY:Pay rent",
			"DUE;VALUE=DATE:20261101",
			"END:VTODO",
		)
		st, _ := openStore(t)
		for _, dry := range []bool{true, false} {
			p := addPerson(t, st, fmt.Sprintf("dry-%t", dry))
			rep, err := Import(context.Background(), st, p, strings.NewReader(src), ImportOptions{DryRun: dry})
			if err != nil {
				t.Fatal(err)
			}
			var got []Skipped
			for _, s := range rep.Skipped {
				if strings.Contains(s.Reason, "DTSTART") {
					got = append(got, s)
				}
			}
			if len(got) != 1 || got[0].Line != 7 || got[0].Component != "VTODO" || got[0].UID != "with-start" ||
				!strings.Contains(got[0].Reason, "not kept") || !strings.Contains(got[0].Reason, "alarms") {
				t.Fatalf("dry run %v: want one DTSTART line 7 (VTODO with-start) not kept, got %+v", dry, rep.Skipped)
			}
			if rep.Tasks.Created != 2 {
				t.Fatalf("dry run %v: tasks %+v, want 2 new", dry, rep.Tasks)
			}
			if dry {
				continue
			}
			if d := dump(t, st, p.ID, `SELECT uid, due_time, remind_before FROM tasks WHERE owner_id = ? ORDER BY uid`); d != "with-start | 2026-10-05T17:00 | [495] | \nwithout-start | <nil> | [] | \n" {
				t.Fatalf("tasks stored as\n%s", d)
			}
		}
	})
}

// TestRelatedEndTrigger: TRIGGER;RELATED=END counts from the end (RFC 5545
// §3.8.6.3). On a VTODO the end is DUE, so it is minutes before the due;
// on a VEVENT it is DTEND, so the reminder is duration − offset minutes
// before the start, and one that fires after the start is skipped with
// the reason (docs/icalendar.md says both).
func TestRelatedEndTrigger(t *testing.T) {
	alarm := func(trigger string) string {
		return "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;RELATED=END:" + trigger + "\r\nEND:VALARM"
	}
	cases := []struct {
		name   string
		item   []string
		before []int
		reason string // the skipped alarm's reason, when one is
	}{
		{"todo before due", []string{"BEGIN:VTODO", "UID:a", "DUE;TZID=Europe/Paris:20261005T170000", alarm("-PT30M"), "END:VTODO"}, []int{30}, ""},
		{"todo with start, before due", []string{"BEGIN:VTODO", "UID:a", "DTSTART;TZID=Europe/Paris:20261005T090000", "DUE;TZID=Europe/Paris:20261005T170000", alarm("-P1D"), "END:VTODO"}, []int{1440}, ""},
		{"todo at due", []string{"BEGIN:VTODO", "UID:a", "DUE;VALUE=DATE:20261005", alarm("PT0S"), "END:VTODO"}, []int{0}, ""},
		{"event 90 min before a 60 min end", []string{"BEGIN:VEVENT", "UID:e", "DTSTART;TZID=Europe/Paris:20261005T090000", "DTEND;TZID=Europe/Paris:20261005T100000", alarm("-PT90M"), "END:VEVENT"}, []int{30}, ""},
		{"event by DURATION", []string{"BEGIN:VEVENT", "UID:e", "DTSTART:20261005T070000Z", "DURATION:PT2H", alarm("-PT3H"), "END:VEVENT"}, []int{60}, ""},
		{"event all day", []string{"BEGIN:VEVENT", "UID:e", "DTSTART;VALUE=DATE:20261005", "DTEND;VALUE=DATE:20261006", alarm("-PT36H"), "END:VEVENT"}, []int{720}, ""},
		{"event end exactly at start", []string{"BEGIN:VEVENT", "UID:e", "DTSTART;TZID=Europe/Paris:20261005T090000", "DTEND;TZID=Europe/Paris:20261005T100000", alarm("-PT1H"), "END:VEVENT"}, []int{0}, ""},
		{"event after start", []string{"BEGIN:VEVENT", "UID:e", "DTSTART;TZID=Europe/Paris:20261005T090000", "DTEND;TZID=Europe/Paris:20261005T100000", alarm("-PT15M"), "END:VEVENT"}, nil, "fires after the start"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cal := DecodeBytes([]byte(vcalendar(c.item...)), DecodeOptions{Zone: tz.MustZone("Europe/Berlin")})
			var a Alarms
			switch {
			case len(cal.Events) == 1:
				a = cal.Events[0].Alarms
			case len(cal.Tasks) == 1:
				a = cal.Tasks[0].Alarms
			default:
				t.Fatalf("nothing decoded: %+v", cal.Skipped)
			}
			if !reflect.DeepEqual(a.RemindBefore, c.before) || len(a.RemindAt) != 0 {
				t.Errorf("remind_before %v at %v, want %v", a.RemindBefore, a.RemindAt, c.before)
			}
			switch {
			case c.reason == "" && len(cal.Skipped) > 0:
				t.Errorf("skipped %+v", cal.Skipped)
			case c.reason != "" && (len(cal.Skipped) != 1 || !strings.Contains(cal.Skipped[0].Reason, c.reason) || cal.Skipped[0].Component != "VALARM"):
				t.Errorf("want the VALARM skipped with %q, got %+v", c.reason, cal.Skipped)
			}
		})
	}
}

// TestDateExdateOnTimedSeries: an EXDATE;VALUE=DATE against a series with
// times removes that day's occurrence (RFC 5545 leaves the match to the
// reader; Google and Apple write these), whatever the time of day.
func TestDateExdateOnTimedSeries(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		src := vcalendar(
			"BEGIN:VEVENT",
			"UID:daily",
			"DTSTART;TZID=America/New_York:20261102T233000",
			"DURATION:PT1H",
			"RRULE:FREQ=DAILY;COUNT=5",
			"EXDATE;VALUE=DATE:20261104",
			"EXDATE;VALUE=DATE:20261110", // no occurrence that day: harmless
			"END:VEVENT",
		)
		// The person lives in Berlin: the date is the series' day in New York
		// (23:30 there is the next day in Berlin), not the person's.
		cal := DecodeBytes([]byte(src), DecodeOptions{Zone: tz.MustZone("Europe/Berlin")})
		if len(cal.Skipped) > 0 || len(cal.Events) != 1 {
			t.Fatalf("events %d, skipped %+v", len(cal.Events), cal.Skipped)
		}
		from, to := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		var got []string
		for _, in := range cal.Instances("daily", from, to) {
			got = append(got, in.Original.String())
		}
		want := []string{"2026-11-02T23:30", "2026-11-03T23:30", "2026-11-05T23:30", "2026-11-06T23:30"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("occurrences %v, want %v", got, want)
		}
		// Through the store too: the stored series has the same four.
		st, p := openStore(t)
		if _, err := Import(context.Background(), st, p, strings.NewReader(src), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := Export(context.Background(), st, p, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		got = nil
		for _, in := range DecodeBytes([]byte(out.String()), DecodeOptions{Zone: tz.MustZone("Europe/Berlin")}).Instances("daily", from, to) {
			got = append(got, in.Original.String())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after the store: occurrences %v, want %v", got, want)
		}
	})
}
