package ics

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// encodeOne writes one calendar of evs and returns its unfolded lines.
func encodeOne(t *testing.T, evs ...Event) []string {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, &Calendar{Events: evs}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.ReplaceAll(b.String(), "\r\n ", ""), "\r\n")
}

// linesOf are the lines of the VEVENTs starting with one of the prefixes.
func linesOf(lines []string, prefixes ...string) []string {
	var out []string
	in := false
	for _, l := range lines {
		switch l {
		case "BEGIN:VEVENT":
			in = true
		case "END:VEVENT":
			in = false
		}
		for _, p := range prefixes {
			if in && strings.HasPrefix(l, p) {
				out = append(out, l)
			}
		}
	}
	return out
}

func civil(s string) tz.Moment {
	m, err := tz.ParseMoment(s)
	if err != nil {
		panic(err)
	}
	return m
}

// decodeStarts reads lines back and returns each event's occurrence
// starts (UTC texts) up to 2030, keyed by RECURRENCE-ID or "".
func decodeStarts(t *testing.T, lines []string) []string {
	t.Helper()
	cal, err := Decode(strings.NewReader(strings.Join(lines, "\r\n")), DecodeOptions{Zone: tz.UTC})
	if err != nil || len(cal.Skipped)+len(cal.Repaired) > 0 {
		t.Fatalf("the export does not read back cleanly: %v %+v %+v", err, cal.Skipped, cal.Repaired)
	}
	var out []string
	for _, e := range cal.Events {
		if e.RecurrenceID != nil {
			s, _ := e.Zone.Instant(e.Start.DateTime)
			en, _ := e.Zone.Instant(e.End.DateTime)
			out = append(out, "override "+s.UTC().Format(time.RFC3339)+"–"+en.UTC().Format(time.RFC3339))
			continue
		}
		for _, o := range e.Series().StartsBetween(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) {
			out = append(out, o.Start.UTC().Format(time.RFC3339)+"–"+o.End.UTC().Format(time.RFC3339))
		}
	}
	return out
}

// A day-only EXDATE on a timed series is written as the date-time of that
// day's occurrence, in its own property beside the date-time ones: never
// merged into a DATE-TIME list, never VALUE=DATE on a DATE-TIME DTSTART.
// One that removes no occurrence is left out (ical.js then skips the
// next EXDATE).
func TestExportDayExDateOnTimedSeries(t *testing.T) {
	london := tz.MustZone("Europe/London")
	e := Event{UID: "x", Summary: "X", Zone: london, Start: civil("2027-03-05T12:45"), End: civil("2027-03-05T13:45"),
		Rule: recur.MustRule("FREQ=WEEKLY;COUNT=20"), ExDates: []tz.Moment{civil("2027-04-02T12:45"), civil("2027-06-04"), civil("2027-06-05"), civil("2027-04-03T12:45")}}
	got := strings.Join(linesOf(encodeOne(t, e), "EXDATE"), "\n")
	want := "EXDATE;TZID=Europe/London:20270402T124500,20270604T124500"
	if got != want {
		t.Errorf("EXDATE lines:\n%s\nwant\n%s", got, want)
	}
}

// A day-only EXDATE (or RDATE) beside the date-time of that day's
// occurrence on a timed series writes one value, not the same twice.
func TestExportDayAndTimeOfOneOccurrenceOnce(t *testing.T) {
	berlin := tz.MustZone("Europe/Berlin")
	e := Event{UID: "x", Summary: "X", Zone: berlin, Start: civil("2026-01-12T10:00"), End: civil("2026-01-12T11:00"),
		Rule:    recur.MustRule("FREQ=DAILY;COUNT=10"),
		ExDates: []tz.Moment{civil("2026-01-14"), civil("2026-01-14T10:00")},
		RDates:  []tz.Moment{civil("2026-01-30"), civil("2026-01-30T10:00")}}
	b := encodeOne(t, e)
	for prop, want := range map[string]string{
		"EXDATE": "EXDATE;TZID=Europe/Berlin:20260114T100000",
		"RDATE":  "RDATE;TZID=Europe/Berlin:20260130T100000",
	} {
		var mine []string
		for _, l := range linesOf(b, prop) {
			if strings.Contains(l, "TZID=Europe/Berlin:2026") {
				mine = append(mine, l)
			}
		}
		if got := strings.Join(mine, "\n"); got != want {
			t.Errorf("%s lines:\n%s\nwant\n%s", prop, got, want)
		}
	}
}

// Each VTIMEZONE starts at or before the earliest DTSTART that uses it
// (RFC 5545 erratum 3740): Chatham's DTSTART two days before its April
// change is covered by an observance with Chatham's summer offset.
func TestExportVTimezoneCoversFirstStart(t *testing.T) {
	z := tz.MustZone("Pacific/Chatham")
	e := Event{UID: "c", Summary: "C", Zone: z, Start: civil("2027-04-02T02:45"), End: civil("2027-04-02T03:45")}
	lines := encodeOne(t, e)
	best, offset := "", ""
	var onset string
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "DTSTART:"); ok {
			onset = v
			if v <= "20270402T024500" && v > best {
				best = v
				offset = ""
			}
		}
		if v, ok := strings.CutPrefix(l, "TZOFFSETTO:"); ok && onset == best && offset == "" {
			offset = v
		}
	}
	if best == "" || offset != "+1345" {
		t.Errorf("the VTIMEZONE in force at 2027-04-02T02:45 starts %q with offset %q, want an onset before it with +1345:\n%s", best, offset, strings.Join(lines, "\n"))
	}
}

// An UNTIL on a zoned DTSTART is written in UTC (RFC 5545 §3.3.10), and
// allows the same occurrences as the local or date UNTIL stored.
func TestExportUntilInUTC(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	for _, c := range []struct{ rule, want string }{
		{"FREQ=WEEKLY;UNTIL=20261019T100000", "RRULE:FREQ=WEEKLY;UNTIL=20261019T080000Z"},
		{"FREQ=WEEKLY;UNTIL=20261019", "RRULE:FREQ=WEEKLY;UNTIL=20261019T215959Z"},
		{"FREQ=WEEKLY;UNTIL=20261019T080000Z", "RRULE:FREQ=WEEKLY;UNTIL=20261019T080000Z"},
	} {
		e := Event{UID: "u", Summary: "U", Zone: paris, Start: civil("2026-10-05T10:00"), End: civil("2026-10-05T11:00"), Rule: recur.MustRule(c.rule)}
		lines := encodeOne(t, e)
		if got := strings.Join(linesOf(lines, "RRULE"), "\n"); got != c.want {
			t.Errorf("%s: %s, want %s", c.rule, got, c.want)
		}
		if got := decodeStarts(t, lines); len(got) != 3 {
			t.Errorf("%s: read back as %v, want 3 occurrences", c.rule, got)
		}
	}
	// An all-day series keeps a DATE UNTIL.
	e := Event{UID: "d", Summary: "D", AllDay: true, Zone: paris, Start: civil("2026-10-05"), End: civil("2026-10-05"), Rule: recur.MustRule("FREQ=DAILY;UNTIL=20261007T220000Z")}
	if got := strings.Join(linesOf(encodeOne(t, e), "RRULE"), "\n"); got != "RRULE:FREQ=DAILY;UNTIL=20261008" {
		t.Errorf("all-day: %s, want a DATE UNTIL", got)
	}
}

// A start or end in the repeated hour of a fall-back night is written so
// that readers get its instant: in UTC, or for a daily series whose
// DTSTART is the later reading, DTSTART's local reading excluded and the
// instant added as an RDATE with an exact DURATION. Reading the file back
// gives the same instants.
func TestExportRepeatedHour(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	second := func(s string) tz.Moment { m := civil(s); m.Fold = true; return m }
	oneOff := Event{UID: "a", Summary: "A", Zone: paris, Start: civil("2027-10-31T02:30"), End: second("2027-10-31T02:15")}
	lateStart := Event{UID: "b", Summary: "B", Zone: paris, Start: second("2027-10-31T02:30"), End: civil("2027-10-31T03:15")}
	daily := Event{UID: "c", Summary: "C", Zone: paris, Start: second("2027-10-31T02:30"), End: civil("2027-10-31T03:00"), Rule: recur.MustRule("FREQ=DAILY;COUNT=2")}
	series := Event{UID: "d", Summary: "D", Zone: paris, Start: civil("2027-10-24T02:30"), End: civil("2027-10-24T03:00"), Rule: recur.MustRule("FREQ=WEEKLY;COUNT=3")}
	firstDaily := Event{UID: "e", Summary: "E", Zone: paris, Start: civil("2027-10-31T02:30"), End: civil("2027-10-31T03:00"), Rule: recur.MustRule("FREQ=DAILY;COUNT=2")}
	rid := civil("2027-10-31T02:30")
	ov := series
	ov.Rule, ov.RecurrenceID, ov.RecurrenceZone = nil, &rid, paris
	ov.Start, ov.End = second("2027-10-31T02:30"), second("2027-10-31T02:45")
	lines := encodeOne(t, oneOff, lateStart, daily, series, ov, firstDaily)
	// go-ical writes a component's properties in name order.
	got := strings.Join(linesOf(lines, "DTSTART", "DTEND", "DURATION", "EXDATE", "RDATE", "RRULE", "RECURRENCE-ID"), "\n")
	want := strings.Join([]string{
		"DTEND:20271031T011500Z", "DTSTART:20271031T003000Z",
		"DTEND:20271031T021500Z", "DTSTART:20271031T013000Z",
		"DTSTART;TZID=Europe/Paris:20271031T023000",
		"DURATION:PT30M", "EXDATE;TZID=Europe/Paris:20271031T023000", "RDATE:20271031T013000Z", "RRULE:FREQ=DAILY;COUNT=2",
		"DTEND;TZID=Europe/Paris:20271024T030000", "DTSTART;TZID=Europe/Paris:20271024T023000", "RRULE:FREQ=WEEKLY;COUNT=3",
		"DTEND:20271031T014500Z", "DTSTART:20271031T013000Z", "RECURRENCE-ID:20271031T003000Z",
		"DTSTART;TZID=Europe/Paris:20271031T023000", "DURATION:PT1H30M",
		"RRULE:FREQ=DAILY;COUNT=2",
	}, "\n")
	if got != want {
		t.Errorf("the times written:\n%s\nwant\n%s", got, want)
	}
	gotStarts := strings.Join(decodeStarts(t, lines), "\n")
	wantStarts := strings.Join([]string{
		"2027-10-31T00:30:00Z–2027-10-31T01:15:00Z",
		"2027-10-31T01:30:00Z–2027-10-31T02:15:00Z",
		"2027-10-31T01:30:00Z–2027-10-31T02:00:00Z", "2027-11-01T01:30:00Z–2027-11-01T02:00:00Z",
		"2027-10-24T00:30:00Z–2027-10-24T01:00:00Z", "2027-10-31T00:30:00Z–2027-10-31T01:00:00Z", "2027-11-07T01:30:00Z–2027-11-07T02:00:00Z",
		"override 2027-10-31T01:30:00Z–2027-10-31T01:45:00Z",
		"2027-10-31T00:30:00Z–2027-10-31T02:00:00Z", "2027-11-01T01:30:00Z–2027-11-01T03:00:00Z",
	}, "\n")
	if gotStarts != wantStarts {
		t.Errorf("read back:\n%s\nwant\n%s", gotStarts, wantStarts)
	}
}
