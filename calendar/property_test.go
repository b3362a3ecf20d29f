package calendar

import (
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
