package recur

import (
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// An RDATE written as the later of two equal clock times (Fold, an
// instant in the repeated hour of a fall-back change) keeps its instant,
// as DTSTART does, and an EXDATE of the earlier instant leaves it alone.
func TestRDateInRepeatedHourKeepsItsInstant(t *testing.T) {
	for _, c := range []struct {
		zone  string
		rdate tz.DateTime
		want  time.Time
	}{
		{"Europe/Paris", tz.DateTime{Date: tz.Date{Year: 2026, Month: 10, Day: 25}, Hour: 2, Minute: 30, Fold: true}, time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC)},
		{"America/New_York", tz.DateTime{Date: tz.Date{Year: 2026, Month: 11, Day: 1}, Hour: 1, Minute: 30, Fold: true}, time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC)},
	} {
		z := tz.MustZone(c.zone)
		first := z.In(c.want.Add(-time.Hour)) // the earlier reading of the same clock time
		s := Series{Start: tz.TimeMoment(c.rdate.Date.AddDays(-1).At(c.rdate.Hour, c.rdate.Minute)), Zone: z, Duration: time.Hour,
			RDates: []tz.Moment{tz.TimeMoment(c.rdate)}}
		for _, ex := range [][]tz.Moment{nil, {tz.TimeMoment(first)}} {
			s.ExDates = ex
			if s.ExDates != nil {
				s.Rule = mustRule(t, "FREQ=WEEKLY;COUNT=2")
			}
			occ := s.StartsBetween(c.want.Add(-2*time.Hour), c.want.Add(2*time.Hour))
			if len(occ) != 1 || !occ[0].Start.Equal(c.want) {
				t.Errorf("%s RDATE %v (EXDATE %v): got %v, want one at %s", c.zone, c.rdate, ex, occ, c.want)
			}
		}
	}
}

func mustRule(t *testing.T, text string) *Rule {
	t.Helper()
	r, err := ParseRule(text)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
