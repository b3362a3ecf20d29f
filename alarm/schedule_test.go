package alarm

import (
	"slices"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

var paris = mustZone("Europe/Paris")

func mustZone(name string) tz.Zone {
	z, err := tz.LoadZone(name)
	if err != nil {
		panic(err)
	}
	return z
}

// utc is a UTC instant on 2026-10-hh:mm.
func utc(day, h, m int) time.Time { return time.Date(2026, 10, day, h, m, 0, 0, time.UTC) }

// standup is a daily event at 09:00 in Paris (07:00 UTC) from 2026-10-05,
// reminding 15 and 60 minutes before; the occurrence of 10-06 is moved to
// 10:00 and the one of 10-07 cancelled.
func standup(t *testing.T) *Item {
	t.Helper()
	start, err := tz.ParseMoment("2026-10-05T09:00")
	if err != nil {
		t.Fatal(err)
	}
	rule, err := recur.ParseRule("FREQ=DAILY")
	if err != nil {
		t.Fatal(err)
	}
	s := recur.Series{Start: start, Zone: paris, Duration: 15 * time.Minute, Rule: rule}
	first, _ := paris.MomentInstant(start)
	return &Item{Kind: "event", Label: "e7", Series: s,
		Triggers: triggers(item.Reminders{Before: []int{15, 60}}, first, paris, paris),
		Over: map[string]*override{
			"20261006T070000Z": {Start: utc(6, 8, 0), Length: 30 * time.Minute},
			"20261007T070000Z": {Cancelled: true},
		}}
}

func TestScheduleBetween(t *testing.T) {
	s := standup(t)
	type f struct {
		occ, trig string
		at        time.Time
	}
	var got []f
	for _, x := range s.Between(utc(5, 0, 0), utc(8, 23, 0)) {
		got = append(got, f{x.Occurrence, x.Trigger, x.At.UTC()})
	}
	want := []f{
		{"20261005T070000Z", "before:60", utc(5, 6, 0)},
		{"20261005T070000Z", "before:15", utc(5, 6, 45)},
		{"20261006T070000Z", "before:60", utc(6, 7, 0)}, // moved to 08:00 UTC
		{"20261006T070000Z", "before:15", utc(6, 7, 45)},
		// 10-07 is cancelled
		{"20261008T070000Z", "before:60", utc(8, 6, 0)},
		{"20261008T070000Z", "before:15", utc(8, 6, 45)},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Between =\n%v\nwant\n%v", got, want)
	}
	moved := s.Between(utc(6, 7, 45), utc(6, 7, 45))
	if len(moved) != 1 || !moved[0].Start.Equal(utc(6, 8, 0)) || !moved[0].End.Equal(utc(6, 8, 30)) {
		t.Errorf("moved occurrence's fire = %+v; want start 08:00 and its own 30 min", moved)
	}
}

func TestScheduleNextAndProduces(t *testing.T) {
	s := standup(t)
	cases := []struct {
		from, want time.Time
	}{
		{utc(5, 0, 0), utc(5, 6, 0)},
		{utc(5, 6, 1), utc(5, 6, 45)},
		{utc(6, 6, 1), utc(6, 7, 0)},  // the moved one's, not 06:00
		{utc(6, 7, 46), utc(8, 6, 0)}, // the cancelled day has none
	}
	for _, c := range cases {
		if got, ok := s.Next(c.from); !ok || !got.Equal(c.want) {
			t.Errorf("Next(%v) = %v, %v; want %v", c.from, got, ok, c.want)
		}
	}
	if !s.Produces("20261006T070000Z", "before:15", utc(6, 7, 45)) {
		t.Error("Produces: false for the moved occurrence's fire")
	}
	if s.Produces("20261006T070000Z", "before:15", utc(6, 6, 45)) {
		t.Error("Produces: true for the moved occurrence's old time")
	}
	s.Dead = true
	if _, ok := s.Next(utc(5, 0, 0)); ok || s.HasReminders() || s.Between(utc(5, 0, 0), utc(9, 0, 0)) != nil {
		t.Error("a dead item still fires")
	}
}

func TestScheduleOnceAndNoBase(t *testing.T) {
	once, err := onceFires(item.OnceJSON([]time.Time{utc(5, 7, 0)}))
	if err != nil || len(once) != 1 || once[0].Trigger != "once:2026-10-05T07:00:00Z" {
		t.Fatalf("OnceFires = %+v, %v", once, err)
	}
	at, _ := tz.ParseMoment("2026-10-05T12:30")
	ny := mustZone("America/New_York")
	if got := atTrigger(at, ny, paris); got != "at:2026-10-05T12:30[America/New_York]" {
		t.Errorf("AtTrigger in another zone = %q", got)
	}
	if got := atTrigger(at, paris, paris); got != "at:2026-10-05T12:30" {
		t.Errorf("AtTrigger in the person's zone = %q", got)
	}
	s := &Item{Kind: "task", Label: "t1", NoBase: true, Absolute: once}
	if !s.HasReminders() {
		t.Error("a task with a one-time reminder has none")
	}
	if got := s.Between(utc(5, 0, 0), utc(6, 0, 0)); len(got) != 1 || got[0].Occurrence != "" {
		t.Errorf("Between = %+v", got)
	}
}

func TestSchedulePastFires(t *testing.T) {
	// A single event at 09:00 Paris on 10-05 reminding 15 and 60 minutes
	// before, set at 08:50: both reminders are past.
	start, _ := tz.ParseMoment("2026-10-05T09:00")
	first, _ := paris.MomentInstant(start)
	single := &Item{Kind: "event", Label: "e1", Series: recur.Series{Start: start, Zone: paris, Duration: time.Hour},
		Triggers: triggers(item.Reminders{Before: []int{15, 60, 5}}, first, paris, paris)}
	var got []time.Time
	for _, f := range single.PastFires(utc(5, 6, 50)) {
		got = append(got, f.At)
	}
	if want := []time.Time{utc(5, 6, 0), utc(5, 6, 45)}; !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("PastFires of a single event = %v; want %v (not the 5 min one, still to come)", got, want)
	}
	// The daily standup at 06:50 UTC on 10-08: that day's occurrence is
	// still to start, so its reminders of 06:00 and 06:45 count; the fires
	// of the occurrences already over do not.
	got = nil
	for _, f := range standup(t).PastFires(utc(8, 6, 50)) {
		got = append(got, f.At)
	}
	if want := []time.Time{utc(8, 6, 0), utc(8, 6, 45)}; !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("PastFires of a daily event = %v; want %v", got, want)
	}
	after := &Item{Kind: "event", Series: single.Series, Triggers: triggers(item.Reminders{Before: []int{}}, first, paris, paris)}
	if got := after.PastFires(utc(5, 8, 0)); got != nil {
		t.Errorf("PastFires without reminders = %v", got)
	}
}
