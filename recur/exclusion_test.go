package recur

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// TestExclusionAgrees: the EXDATE sets that starts asks give the answer
// excluded gives for every occurrence of 400 seeded series (all-day and
// timed, around a fall-back night, EXDATEs as days, as times on and off
// the occurrences, in the repeated hour), and the listing drops exactly
// the occurrences excluded drops.
func TestExclusionAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 5))
	zones := []tz.Zone{tz.MustZone("Europe/Paris"), tz.MustZone("America/New_York"), tz.UTC}
	rules := []string{"FREQ=DAILY;COUNT=40", "FREQ=HOURLY;COUNT=60", "FREQ=MINUTELY;INTERVAL=30;COUNT=100", "FREQ=WEEKLY;BYDAY=MO,SA,SU;COUNT=20"}
	for i := range 400 {
		z := zones[r.IntN(len(zones))]
		day := tz.DateOf(time.Date(2026, 10, 20+r.IntN(10), 0, 0, 0, 0, time.UTC))
		s := Series{Zone: z, Rule: MustRule(rules[r.IntN(len(rules))]), Duration: time.Hour}
		allDay := r.IntN(4) == 0
		if allDay {
			s.Start, s.Rule, s.Duration = tz.DayMoment(day), MustRule("FREQ=DAILY;COUNT=30"), 24*time.Hour
		} else {
			s.Start = tz.TimeMoment(day.At(r.IntN(24), 30*r.IntN(2)))
		}
		all := s.Between(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
		for range r.IntN(30) {
			switch o := all[r.IntN(len(all))]; r.IntN(4) {
			case 0:
				s.ExDates = append(s.ExDates, tz.DayMoment(o.Original.Date))
			case 1:
				s.ExDates = append(s.ExDates, tz.TimeMoment(z.In(o.Start)))
			case 2:
				s.ExDates = append(s.ExDates, tz.TimeMoment(z.In(o.Start.Add(7*time.Minute))))
			default:
				m := tz.TimeMoment(day.AddDays(r.IntN(12)).At(2, 30))
				m.Fold = r.IntN(2) == 0
				s.ExDates = append(s.ExDates, m)
			}
		}
		ex := s.exclusion()
		kept := 0
		for _, o := range all {
			if got, want := ex.has(o), s.excluded(o); got != want {
				t.Fatalf("series %d (%v, %v, exdates %v): %v excluded %v, want %v", i, s.Start, s.Rule, s.ExDates, o.Start, got, want)
			}
			if !s.excluded(o) {
				kept++
			}
		}
		if got := len(s.Between(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))); got != kept {
			t.Fatalf("series %d: %d occurrences listed, want %d", i, got, kept)
		}
	}
}

// excluded is the EXDATE rule read one EXDATE at a time, as starts asked
// it before exclusion: the reference TestExclusionAgrees holds the sets
// to.
func (s Series) excluded(o Occurrence) bool {
	for _, x := range s.ExDates {
		switch {
		case !x.HasTime || o.AllDay:
			if x.Date == o.Original.Date {
				return true
			}
		default:
			if t, _ := s.Zone.Instant(x.DateTime); t.Equal(o.Start) {
				return true
			}
		}
	}
	return false
}
