package ics

import (
	"bytes"
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// TestExportWindow: with a window, Export writes only the items that touch
// [from, to) — half-open, so an event ending at from or starting at to is
// left out — and a repeating series that touches it whole, with its rule,
// its EXDATEs and every changed or cancelled occurrence, even those outside
// the window. Tasks are those due in the window, and those with no due.
func TestExportWindow(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		src := vcalendar(
			"BEGIN:VEVENT", "UID:inside", "SUMMARY:Inside", "DTSTART;TZID=Europe/Berlin:20261012T100000", "DTEND;TZID=Europe/Berlin:20261012T110000", "END:VEVENT",
			"BEGIN:VEVENT", "UID:before", "SUMMARY:Before", "DTSTART;TZID=Europe/Berlin:20261001T100000", "DTEND;TZID=Europe/Berlin:20261001T110000", "END:VEVENT",
			"BEGIN:VEVENT", "UID:after", "SUMMARY:After", "DTSTART;TZID=Europe/Berlin:20261025T100000", "DTEND;TZID=Europe/Berlin:20261025T110000", "END:VEVENT",
			"BEGIN:VEVENT", "UID:ends-at-from", "SUMMARY:Ends at from", "DTSTART;TZID=Europe/Berlin:20261009T230000", "DTEND;TZID=Europe/Berlin:20261010T000000", "END:VEVENT",
			"BEGIN:VEVENT", "UID:starts-at-to", "SUMMARY:Starts at to", "DTSTART;TZID=Europe/Berlin:20261020T000000", "DTEND;TZID=Europe/Berlin:20261020T010000", "END:VEVENT",
			"BEGIN:VEVENT", "UID:across-from", "SUMMARY:Across from", "DTSTART:20261009T210000Z", "DTEND:20261009T230000Z", "END:VEVENT",
			"BEGIN:VEVENT", "UID:day-before", "SUMMARY:Day before", "DTSTART;VALUE=DATE:20261009", "DTEND;VALUE=DATE:20261010", "END:VEVENT",
			"BEGIN:VEVENT", "UID:last-day", "SUMMARY:Last day", "DTSTART;VALUE=DATE:20261019", "DTEND;VALUE=DATE:20261020", "END:VEVENT",
			"BEGIN:VEVENT", "UID:day-after", "SUMMARY:Day after", "DTSTART;VALUE=DATE:20261020", "DTEND;VALUE=DATE:20261021", "END:VEVENT",
			// A weekly series from September on: touches the window, so it is
			// exported whole with both its September overrides.
			"BEGIN:VEVENT", "UID:weekly", "SUMMARY:Weekly", "DTSTART;TZID=Europe/Berlin:20260907T090000", "DTEND;TZID=Europe/Berlin:20260907T093000",
			"RRULE:FREQ=WEEKLY", "EXDATE;TZID=Europe/Berlin:20260928T090000", "END:VEVENT",
			"BEGIN:VEVENT", "UID:weekly", "RECURRENCE-ID;TZID=Europe/Berlin:20260914T090000", "SUMMARY:Weekly moved",
			"DTSTART;TZID=Europe/Berlin:20260915T090000", "DTEND;TZID=Europe/Berlin:20260915T093000", "END:VEVENT",
			"BEGIN:VEVENT", "UID:weekly", "RECURRENCE-ID;TZID=Europe/Berlin:20260921T090000", "STATUS:CANCELLED", "SUMMARY:Weekly",
			"DTSTART;TZID=Europe/Berlin:20260921T090000", "DTEND;TZID=Europe/Berlin:20260921T093000", "END:VEVENT",
			// Over before the window.
			"BEGIN:VEVENT", "UID:ended", "SUMMARY:Ended", "DTSTART;TZID=Europe/Berlin:20260901T090000", "DTEND;TZID=Europe/Berlin:20260901T100000", "RRULE:FREQ=DAILY;COUNT=3", "END:VEVENT",
			// A series outside the window with one occurrence moved into it.
			"BEGIN:VEVENT", "UID:moved-in", "SUMMARY:Moved in", "DTSTART;TZID=Europe/Berlin:20261101T090000", "DTEND;TZID=Europe/Berlin:20261101T100000", "RRULE:FREQ=DAILY;COUNT=2", "END:VEVENT",
			"BEGIN:VEVENT", "UID:moved-in", "RECURRENCE-ID;TZID=Europe/Berlin:20261102T090000", "SUMMARY:Moved in",
			"DTSTART;TZID=Europe/Berlin:20261015T090000", "DTEND;TZID=Europe/Berlin:20261015T100000", "END:VEVENT",
			"BEGIN:VTODO", "UID:due-inside", "SUMMARY:Due inside", "DUE;VALUE=DATE:20261015", "END:VTODO",
			"BEGIN:VTODO", "UID:due-last-evening", "SUMMARY:Due last evening", "DUE;TZID=Europe/Berlin:20261019T233000", "END:VTODO",
			"BEGIN:VTODO", "UID:due-at-to", "SUMMARY:Due at to", "DUE;VALUE=DATE:20261020", "END:VTODO",
			"BEGIN:VTODO", "UID:due-before", "SUMMARY:Due before", "DUE;TZID=Europe/Berlin:20261009T235900", "END:VTODO",
			"BEGIN:VTODO", "UID:no-due", "SUMMARY:No due", "END:VTODO",
		)
		ctx := context.Background()
		st, p := openStore(t)
		if rep, err := Import(ctx, st, p, strings.NewReader(src), ImportOptions{}); err != nil || len(rep.Skipped) > 0 {
			t.Fatalf("import: %v, skipped %+v", err, rep.Skipped)
		}
		berlin := tz.MustZone("Europe/Berlin")
		from, to := berlin.StartOfDay(tz.Date{Year: 2026, Month: 10, Day: 10}), berlin.StartOfDay(tz.Date{Year: 2026, Month: 10, Day: 20})
		var out bytes.Buffer
		if err := Export(ctx, st, p, &out, from, to); err != nil {
			t.Fatal(err)
		}
		cal := DecodeBytes(out.Bytes(), DecodeOptions{Zone: berlin})
		if len(cal.Skipped) > 0 {
			t.Fatalf("the export does not read back: %+v", cal.Skipped)
		}
		var events, overrides, tasks []string
		for _, e := range cal.Events {
			if e.RecurrenceID != nil {
				overrides = append(overrides, e.UID+"@"+e.RecurrenceID.String()+" "+e.Status)
				continue
			}
			events = append(events, e.UID)
		}
		for _, tk := range cal.Tasks {
			tasks = append(tasks, tk.UID)
		}
		sort.Strings(events)
		sort.Strings(overrides)
		sort.Strings(tasks)
		checks := []struct {
			what      string
			got, want []string
		}{
			{"events", events, []string{"across-from", "inside", "last-day", "moved-in", "weekly"}},
			{"overrides", overrides, []string{"moved-in@2026-11-02T09:00 ", "weekly@2026-09-14T09:00 ", "weekly@2026-09-21T09:00 CANCELLED"}},
			{"tasks", tasks, []string{"due-inside", "due-last-evening", "no-due"}},
		}
		for _, c := range checks {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("%s exported: %v, want %v", c.what, c.got, c.want)
			}
		}
		for _, e := range cal.Events {
			if e.UID == "weekly" && e.RecurrenceID == nil {
				if e.Rule == nil || e.Rule.String() != "FREQ=WEEKLY" || len(e.ExDates) != 1 || e.ExDates[0].String() != "2026-09-28T09:00" {
					t.Errorf("the weekly series lost its rule or EXDATE: %+v %v", e.Rule, e.ExDates)
				}
			}
		}
		// One bound only: the other side is open.
		oneSided := []struct {
			from, to time.Time
			want     []string
		}{
			{from, time.Time{}, []string{"across-from", "after", "day-after", "inside", "last-day", "moved-in", "starts-at-to", "weekly"}},
			{time.Time{}, from, []string{"across-from", "before", "day-before", "ended", "ends-at-from", "weekly"}},
		}
		for _, c := range oneSided {
			out.Reset()
			if err := Export(ctx, st, p, &out, c.from, c.to); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range DecodeBytes(out.Bytes(), DecodeOptions{Zone: berlin}).Events {
				if e.RecurrenceID == nil {
					got = append(got, e.UID)
				}
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("from %v to %v: events %v, want %v", c.from, c.to, got, c.want)
			}
		}
		// Without a window, everything.
		out.Reset()
		if err := Export(ctx, st, p, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		all := DecodeBytes(out.Bytes(), DecodeOptions{Zone: berlin})
		if len(all.Events) != 15 || len(all.Tasks) != 5 {
			t.Errorf("an export without a window has %d events and %d tasks, want 15 and 5", len(all.Events), len(all.Tasks))
		}
	})
}

// A window that ends at the end of the calendar keeps a date-only to-do:
// the day after 9999-12-31 would sort before every other day as text.
func TestExportWindowToTheEndOfTheCalendar(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		src := vcalendar("BEGIN:VTODO", "UID:parcel", "SUMMARY:Parcel", "DUE;VALUE=DATE:20261015", "END:VTODO")
		ctx := context.Background()
		st, p := openStore(t)
		if _, err := Import(ctx, st, p, strings.NewReader(src), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		zone := tz.MustZone(p.Zone)
		if err := Export(ctx, st, p, &out, zone.StartOfDay(tz.Date{Year: 2026, Month: 10, Day: 1}), time.Date(9999, 12, 31, 23, 59, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "UID:parcel") {
			t.Errorf("the to-do is missing from an export to the end of 9999:\n%s", out.String())
		}
	})
}
