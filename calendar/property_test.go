package calendar

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

var cases = flag.Int("cases", 300, "random cases per property test")

// randomSeries is a seeded series near a DST change: DAILY, WEEKLY (with
// or without a BYDAY list) or MONTHLY, with COUNT, UNTIL or open, EXDATEs
// and RDATEs, timed or all-day.
func randomSeries(rng *rand.Rand) recur.Series {
	zones := []string{"UTC", "Europe/Paris", "America/New_York", "Europe/London", "Australia/Lord_Howe"}
	zone := tz.MustZone(zones[rng.IntN(len(zones))])
	day := tz.Date{Year: 2026, Month: time.Month(1 + rng.IntN(12)), Day: 1 + rng.IntN(25)}
	s := recur.Series{Zone: zone, Duration: 30 * time.Minute}
	allDay := rng.IntN(5) == 0
	if allDay {
		s.Start, s.Duration = tz.DayMoment(day), 24*time.Hour
	} else {
		s.Start = tz.TimeMoment(day.At(rng.IntN(24), 15*rng.IntN(4)))
	}
	rule := []string{"FREQ=DAILY", "FREQ=WEEKLY", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "FREQ=MONTHLY"}[rng.IntN(4)]
	switch rng.IntN(3) {
	case 0:
		rule += fmt.Sprintf(";COUNT=%d", 2+rng.IntN(12))
	case 1:
		end := day.AddDays(10 + rng.IntN(200))
		if allDay {
			rule += ";UNTIL=" + end.Basic()
		} else {
			t, _ := zone.Instant(end.At(rng.IntN(24), 0))
			rule += ";UNTIL=" + tz.FromUTCClock(t).Basic() + "Z"
		}
	}
	s.Rule = recur.MustRule(rule)
	for range rng.IntN(3) {
		occ := s.All(20)
		if len(occ) == 0 {
			break
		}
		s.ExDates = append(s.ExDates, occ[rng.IntN(len(occ))].Original)
	}
	for range rng.IntN(3) {
		d := day.AddDays(rng.IntN(150) - 20)
		if allDay {
			s.RDates = append(s.RDates, tz.DayMoment(d))
		} else {
			s.RDates = append(s.RDates, tz.TimeMoment(d.At(rng.IntN(24), 30)))
		}
	}
	return s
}

// window is where the properties compare occurrences: wide enough for
// every bounded series here, and the same cut for the open ones.
func window(s recur.Series) []recur.Occurrence {
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return s.Between(from, from.Add(3*365*24*time.Hour))
}

func instants(list []recur.Occurrence) []string {
	var out []string
	for _, o := range list {
		out = append(out, o.Start.UTC().Format(time.RFC3339))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Split and DeleteFollowing of random series: head and tail together are
// the series; the head is what came before the cut, nothing more.
func TestSplitProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for i := range *cases {
		s := randomSeries(rng)
		list := window(s)
		if len(list) < 2 {
			continue
		}
		at := list[1+rng.IntN(len(list)-1)]
		head, tail, ok, err := Split(s, at)
		if err != nil || !ok {
			t.Fatalf("case %d: split %v at %s: ok %v, %v", i, s, at.Original, ok, err)
		}
		var before []recur.Occurrence
		for _, o := range list {
			if o.Start.Before(at.Start) {
				before = append(before, o)
			}
		}
		if got, want := instants(window(head)), instants(before); !slices.Equal(got, want) {
			t.Errorf("case %d: %s %v rule %s ex %v rd %v split at %s: head\n got %v\nwant %v", i, s.Zone, s.Start, s.Rule, s.ExDates, s.RDates, at.Original, got, want)
			continue
		}
		both := append(window(head), window(tail)...)
		if got, want := instants(both), instants(list); !slices.Equal(got, want) {
			t.Errorf("case %d: %s %v rule %s ex %v rd %v split at %s: head+tail\n got %v\nwant %v (tail rule %v start %v rd %v)", i, s.Zone, s.Start, s.Rule, s.ExDates, s.RDates, at.Original, got, want, tail.Rule, tail.Start, tail.RDates)
		}
	}
}

// Shift of random series by random shifts, some into another zone: every
// occurrence moves by the same civil shift, none is lost or gained.
func TestShiftProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5545, 3))
	for i := range *cases {
		s := randomSeries(rng)
		shift := time.Duration(rng.IntN(7)-3) * 24 * time.Hour
		if s.Start.HasTime {
			shift += time.Duration(rng.IntN(16)-8) * 30 * time.Minute
		}
		to := ShiftMoment(s.Start, shift, s.Start.DateTime)
		if s.Rule.Freq() == recur.Monthly && to.Date.Month != s.Start.Month {
			// Moved into another month, a monthly rule is on another day
			// of every month, which months of other lengths place at
			// other distances.
			continue
		}
		zone := s.Zone
		if rng.IntN(3) == 0 {
			zone = tz.MustZone([]string{"UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo", "Pacific/Chatham"}[rng.IntN(5)])
		}
		n, got, err := Shift(s, s.Start, to, zone)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got != shift {
			t.Fatalf("case %d: shift %v, want %v", i, got, shift)
		}
		old, moved := window(s), window(n)
		var want []string
		for _, o := range old {
			want = append(want, ShiftMoment(o.Original, shift, s.Start.DateTime).DateTime.String())
		}
		var have []string
		for _, o := range moved {
			have = append(have, o.Original.DateTime.String())
		}
		// Occurrences shifted past the window's edges are not compared.
		if !s.Rule.Bounded() {
			continue
		}
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(have, want) {
			t.Errorf("case %d: %s %v rule %s ex %v rd %v by %v into %s: rule %s\n got %v\nwant %v", i, s.Zone, s.Start, s.Rule, s.ExDates, s.RDates, shift, zone, n.Rule, have, want)
		}
	}
}

// MoveSeries of random series between all-day and timed, by a random
// number of days: the days of the occurrences move by those days, no day
// is lost or gained (two timed occurrences of one day, a rule's and an
// RDATE's, become its one all-day occurrence); UNTIL and the RDATEs
// follow as the DTSTART does.
func TestMoveSeriesKindProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5545, 19))
	checked := 0
	for i := range *cases {
		s := randomSeries(rng)
		s.ExDates = nil // a series with EXDATEs may not change kind (CanChangeKind)
		days := rng.IntN(7) - 3
		if s.Rule.Freq() == recur.Monthly && s.Start.Date.AddDays(days).Month != s.Start.Month {
			continue // as in TestShiftProperty
		}
		e := &Event{ID: 7, Zone: s.Zone, Start: s.Start, AllDay: !s.Start.HasTime, Rule: s.Rule, RDates: s.RDates}
		to := tz.DayMoment(s.Start.Date.AddDays(days))
		if !s.Start.HasTime {
			to = tz.TimeMoment(s.Start.Date.AddDays(days).At(rng.IntN(24), 15*rng.IntN(4)))
		}
		n, _, err := MoveSeries(e, s.Start, to, s.Zone, false)
		if err != nil {
			var de *DaysError
			if errors.As(err, &de) {
				continue
			}
			t.Fatalf("case %d: %v", i, err)
		}
		moved := n.Series(s.Zone)
		if moved.Start.HasTime {
			moved.Duration = 30 * time.Minute
		} else {
			moved.Duration = 24 * time.Hour
		}
		var want, have []string
		for _, o := range s.All(400) {
			want = append(want, o.Original.Date.AddDays(days).String())
		}
		for _, o := range moved.All(400) {
			have = append(have, o.Original.Date.String())
		}
		slices.Sort(want)
		slices.Sort(have)
		want, have = slices.Compact(want), slices.Compact(have)
		if !s.Rule.Bounded() {
			// Compared as far as both went.
			want, have = want[:min(len(want), 20)], have[:min(len(have), 20)]
		}
		if !slices.Equal(have, want) {
			t.Errorf("case %d: %s %v rule %s rd %v by %d days to %v: rule %s rd %v\n got %v\nwant %v", i, s.Zone, s.Start, s.Rule, s.RDates, days, to, n.Rule, n.RDates, have, want)
			continue
		}
		checked++
	}
	if checked < *cases/2 {
		t.Fatalf("only %d of %d cases checked", checked, *cases)
	}
}
