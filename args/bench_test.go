package args

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// addEvent is a typical 10-argument call as a model writes it.
var addEvent = []byte(`{"title": "Dentist \u2014 check-up", "start": "2026-10-05T09:00", "end": "2026-10-05T10:00",
 "time_zone": "Europe/Paris", "location": "12 Rue de la Paix, Paris", "notes": "Bring the insurance card.\nAsk about the crown.",
 "rrule": "FREQ=MONTHLY;COUNT=3", "tags": ["health", "appointments"], "remind_before": [60, 1440], "allow_duplicate": false}`)

var addEventNames = []string{"title", "start", "end", "time_zone", "location", "notes", "rrule", "tags", "remind_before", "allow_duplicate"}

// readAddEvent reads every argument the way an add_event handler does.
func readAddEvent(raw []byte, person tz.Zone) error {
	a, err := New(raw, addEventNames, []string{"title", "start"})
	if err != nil {
		return err
	}
	_ = a.NeededLine("title")
	zone, ok := a.Zone("time_zone")
	if !ok {
		zone = person
	}
	_, _ = a.Moment("start", zone)
	_, _ = a.Moment("end", zone)
	_ = a.Line("location")
	_ = a.Body("notes")
	_ = a.Text("rrule")
	_ = a.List("tags")
	_ = a.NumberList("remind_before", 0, 40320)
	_ = a.Flag("allow_duplicate")
	return a.Err()
}

func TestReadAddEvent(t *testing.T) {
	if err := readAddEvent(addEvent, tz.MustZone("Europe/Paris")); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkArgs reads the whole call, decoding included.
func BenchmarkArgs(b *testing.B) {
	person := tz.MustZone("Europe/Paris")
	b.ReportAllocs()
	for b.Loop() {
		if err := readAddEvent(addEvent, person); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMapDecode is the baseline: decoding the same JSON into
// map[string]any with UseNumber, reading nothing.
func BenchmarkMapDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(addEvent))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMapUnmarshal is the cheaper baseline without a Decoder.
func BenchmarkMapUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(addEvent, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRelative reads "tomorrow 9am" as a moment, at a now, with its
// echo.
func BenchmarkRelative(b *testing.B) {
	raw := []byte(`{"x":"next monday at 9:30pm"}`)
	b.ReportAllocs()
	for b.Loop() {
		a, err := New(raw, []string{"x"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		a.SetNow(tuesday)
		if _, ok := a.Moment("x", paris); !ok {
			b.Fatal(a.Err())
		}
	}
}

// BenchmarkRelativeLong refuses a megabyte of words: the text is cut at
// maxRelative before any word is read, so it costs what reading the JSON
// and cleaning the line cost.
func BenchmarkRelativeLong(b *testing.B) {
	raw, _ := json.Marshal(map[string]string{"x": string(bytes.Repeat([]byte("tomorrow "), 1<<17))})
	b.ReportAllocs()
	for b.Loop() {
		a, err := New(raw, []string{"x"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		a.SetNow(tuesday)
		if _, ok := a.Moment("x", paris); ok {
			b.Fatal("a megabyte was read as a moment")
		}
	}
}

// BenchmarkMinutes reads a length in words.
func BenchmarkMinutes(b *testing.B) {
	raw := []byte(`{"x":"1 hour 30 minutes"}`)
	b.ReportAllocs()
	for b.Loop() {
		a, err := New(raw, []string{"x"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if a.Minutes("x", 0, 1, 1440) != 90 {
			b.Fatal(a.Err())
		}
	}
}
