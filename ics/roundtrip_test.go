package ics

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

var (
	genZones = []string{"Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "UTC", "America/Sao_Paulo", "Pacific/Apia"}
	genRules = []string{"FREQ=DAILY;COUNT=5", "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10", "FREQ=DAILY;INTERVAL=2;COUNT=7", "FREQ=MONTHLY;COUNT=4", "FREQ=YEARLY", "FREQ=WEEKLY"}
	genText  = []string{"Team sync", "Déjeuner, rue d'Alésia", "日本語のタイトル", "semi;colon\\back", "line one\nline two", "emoji 🎉 party", "",
		strings.Repeat("A long description that certainly needs folding at seventy-five octets, é ", 4)}
	// genLine is genText without the text longer than a title may be
	// (item.MaxTitle), for SUMMARY and LOCATION
	genLine = genText[:len(genText)-1]
)

// genCalendar makes a random calendar of events (one-off, all-day,
// repeating with EXDATE, RDATE and overrides, floating) and tasks, in the
// model's normal form, for the round-trip property.
func genCalendar(r *rand.Rand, person tz.Zone) *Calendar {
	cal := &Calendar{}
	pick := func(s []string) string { return s[r.Intn(len(s))] }
	civil := func() tz.DateTime {
		d := tz.Date{Year: 2020 + r.Intn(10), Month: time.Month(1 + r.Intn(12)), Day: 1 + r.Intn(28)}
		return d.At(r.Intn(24), r.Intn(4)*15)
	}
	alarms := func() Alarms {
		var a Alarms
		for _, m := range []int{0, 10, 60, 1440} {
			if r.Intn(3) == 0 {
				a.RemindBefore = append(a.RemindBefore, m)
			}
		}
		if r.Intn(4) == 0 {
			a.RemindAt = []time.Time{time.Date(2026, 2, 1+r.Intn(28), r.Intn(24), 0, 0, 0, time.UTC)} // after the stamp: one already past is dropped
		}
		return a
	}
	for i := range 1 + r.Intn(8) {
		e := Event{UID: fmt.Sprintf("ev%d@test", i), Summary: pick(genLine), Description: pick(genText), Location: pick(genLine), Alarms: alarms()}
		switch k := r.Intn(10); {
		case k < 2: // all-day
			e.AllDay, e.Zone = true, person
			e.Start = tz.DayMoment(civil().Date)
			e.End = tz.DayMoment(e.Start.Date.AddDays(r.Intn(3)))
		default:
			e.Zone = tz.MustZone(pick(genZones))
			if k == 2 {
				e.Zone, e.Floating = person, true
			}
			start := civil()
			at, _ := e.Zone.Instant(start)
			e.Start = tz.TimeMoment(e.Zone.In(at))
			e.End = tz.TimeMoment(e.Zone.In(at.Add(time.Duration(r.Intn(20)*15) * time.Minute)))
		}
		if r.Intn(10) < 4 {
			e.Rule = recur.MustRule(pick(genRules))
			occ := e.Series().All(4)
			if len(occ) > 2 && r.Intn(2) == 0 {
				e.ExDates = []tz.Moment{occ[2].Original}
			}
			if !e.AllDay && r.Intn(3) == 0 {
				e.RDates = []tz.Moment{tz.TimeMoment(e.Start.DateTime.AddMinutes(3*24*60 + 30))}
			}
			if len(occ) > 1 && r.Intn(2) == 0 {
				orig := occ[1].Original
				ov := e
				ov.Rule, ov.ExDates, ov.RDates = nil, nil, nil
				ov.RecurrenceID, ov.RecurrenceZone = &orig, e.Zone
				ov.Summary = "moved " + e.Summary
				if r.Intn(3) == 0 {
					ov.Status = "CANCELLED"
				}
				if e.AllDay {
					ov.Start = tz.DayMoment(orig.Date.AddDays(1))
					ov.End = ov.Start
				} else {
					at := occ[1].Start.Add(time.Hour)
					ov.Start = tz.TimeMoment(e.Zone.In(at))
					ov.End = tz.TimeMoment(e.Zone.In(at.Add(30 * time.Minute)))
				}
				defer func() { cal.Events = append(cal.Events, ov) }()
			}
		}
		cal.Events = append(cal.Events, e)
	}
	for i := range r.Intn(6) {
		t := Task{UID: fmt.Sprintf("td%d@test", i), Summary: pick(genLine), Description: pick(genText), Zone: person, Priority: 1 + r.Intn(4)}
		switch r.Intn(3) {
		case 0:
			t.HasDue, t.Due = true, tz.DayMoment(civil().Date)
		case 1:
			t.Zone = tz.MustZone(pick(genZones))
			t.HasDue, t.Due = true, tz.TimeMoment(civil())
			if at, moved := t.Zone.Instant(t.Due.DateTime); moved {
				t.Due = tz.TimeMoment(t.Zone.In(at))
			}
			if r.Intn(2) == 0 {
				t.HasStart, t.Start = true, tz.TimeMoment(t.Due.DateTime.AddMinutes(-120))
				if at, moved := t.Zone.Instant(t.Start.DateTime); moved {
					t.Start = tz.TimeMoment(t.Zone.In(at))
				}
			}
		}
		if r.Intn(3) == 0 {
			t.Tags = []string{"home", "bills, paper"}
		}
		if r.Intn(3) == 0 {
			t.Done, t.Status, t.Completed = true, "COMPLETED", time.Date(2024, 3, 1+r.Intn(27), 10, 0, 0, 0, time.UTC)
		} else {
			t.Status = "NEEDS-ACTION"
		}
		if t.HasDue && r.Intn(3) == 0 {
			t.Rule = recur.MustRule(pick(genRules))
			t.FromCompletion = r.Intn(2) == 0
		}
		if t.HasDue {
			t.Alarms = alarms()
		}
		cal.Tasks = append(cal.Tasks, t)
	}
	return cal
}

// TestRoundTrip encodes generated calendars and decodes them again: the
// same events, occurrences and tasks must come back, the file must parse
// with go-ical, and every physical line must be at most 75 octets of whole
// UTF-8 sequences ending in CRLF.
func TestRoundTrip(t *testing.T) {
	person := tz.MustZone("Europe/Berlin")
	var events, overrides, repeating, tasks int
	defer func() {
		t.Logf("round trip: %d events (%d repeating, %d overrides), %d tasks", events, repeating, overrides, tasks)
		if overrides < 50 || repeating < 100 || tasks < 200 {
			t.Errorf("the generator made too few interesting items")
		}
	}()
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		cal := genCalendar(r, person)
		tasks += len(cal.Tasks)
		for _, e := range cal.Events {
			events++
			if e.RecurrenceID != nil {
				overrides++
			} else if e.Rule != nil {
				repeating++
			}
		}
		var buf bytes.Buffer
		if err := Encode(&buf, cal, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatalf("seed %d: encode: %v", seed, err)
		}
		checkPhysical(t, seed, buf.Bytes())
		if _, err := ical.NewDecoder(bytes.NewReader(buf.Bytes())).Decode(); err != nil {
			t.Fatalf("seed %d: go-ical cannot read our file: %v\n%s", seed, err, buf.String())
		}
		back := DecodeBytes(buf.Bytes(), DecodeOptions{Zone: person})
		if len(back.Skipped) > 0 || len(back.Repaired) > 0 {
			t.Fatalf("seed %d: decoding our own file skipped %+v repaired %+v", seed, back.Skipped, back.Repaired)
		}
		compareCalendars(t, seed, cal, back)
	}
}

func checkPhysical(t *testing.T, seed int64, b []byte) {
	t.Helper()
	if !bytes.HasSuffix(b, []byte("\r\n")) {
		t.Fatalf("seed %d: the file does not end in CRLF", seed)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\r\n")), []byte("\r\n")) {
		if len(line) > 75 {
			t.Fatalf("seed %d: line %d is %d octets", seed, i+1, len(line))
		}
		if bytes.ContainsAny(line, "\r\n") {
			t.Fatalf("seed %d: line %d has a bare CR or LF", seed, i+1)
		}
		if !utf8.Valid(line) {
			t.Fatalf("seed %d: line %d splits a UTF-8 sequence: %q", seed, i+1, line)
		}
	}
}

func compareCalendars(t *testing.T, seed int64, want, got *Calendar) {
	t.Helper()
	if len(got.Events) != len(want.Events) || len(got.Tasks) != len(want.Tasks) {
		t.Fatalf("seed %d: %d events %d tasks back, want %d and %d", seed, len(got.Events), len(got.Tasks), len(want.Events), len(want.Tasks))
	}
	for i := range want.Events {
		we := want.Events[i]
		if on, known := we.Series().StartOnRule(); we.Rule != nil && we.RecurrenceID == nil && known && !on {
			// A DTSTART off its rule comes back with COUNT written as
			// the UNTIL of its last occurrence (eventComponent); the
			// occurrences, compared below, are the same.
			we.Rule = countAsUntil(&we, we.Rule)
		}
		w, g := eventKey(&we), eventKey(&got.Events[i])
		if !reflect.DeepEqual(w, g) {
			t.Fatalf("seed %d: event %d\n got %+v\nwant %+v", seed, i, g, w)
		}
	}
	from, to := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2033, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, e := range want.Events {
		if e.RecurrenceID != nil {
			continue
		}
		w, g := instKeys(want.Instances(e.UID, from, to)), instKeys(got.Instances(e.UID, from, to))
		if !reflect.DeepEqual(w, g) {
			t.Fatalf("seed %d: occurrences of %s\n got %v\nwant %v", seed, e.UID, g, w)
		}
	}
	for i := range want.Tasks {
		w, g := want.Tasks[i], got.Tasks[i]
		w.Line, g.Line = 0, 0
		w.StartLine, g.StartLine = 0, 0
		w.RuleLine, g.RuleLine = 0, 0
		w.Zone, g.Zone = tz.Zone{}, tz.Zone{}
		wz, gz := want.Tasks[i].Zone.Name(), got.Tasks[i].Zone.Name()
		if !reflect.DeepEqual(w, g) || (w.HasDue && w.Due.HasTime && wz != gz) {
			t.Fatalf("seed %d: task %d\n got %+v %s\nwant %+v %s", seed, i, g, gz, w, wz)
		}
	}
}

func eventKey(e *Event) string {
	rid := ""
	if e.RecurrenceID != nil {
		rid = e.RecurrenceID.String()
	}
	rule := ""
	if e.Rule != nil {
		rule = e.Rule.String()
	}
	return fmt.Sprintf("%s|%q|%q|%q|%s|%v|%s|%s|%s|%v|%s|%v|%v|%s|%v|%v", e.UID, e.Summary, e.Description, e.Location, e.Status,
		e.AllDay, e.Start, e.End, e.Zone.Name(), e.Floating, rule, e.ExDates, e.RDates, rid, e.RemindBefore, utcs(e.RemindAt))
}

func utcs(ts []time.Time) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.UTC().Format(time.RFC3339))
	}
	return out
}

func instKeys(ins []Instance) []string {
	var out []string
	for _, in := range ins {
		out = append(out, fmt.Sprintf("%s %s %s %q", in.Original, in.Start.UTC().Format(time.RFC3339), in.End.UTC().Format(time.RFC3339), in.Event.Summary))
	}
	return out
}
