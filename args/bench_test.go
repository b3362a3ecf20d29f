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
