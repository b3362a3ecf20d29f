package recur

import (
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// TestFirstAndAfterFromLongBefore: First is DTSTART's start, or an earlier
// RDATE's, and After from centuries before a MINUTELY series finds its
// first occurrence (it begins its search there), an earlier RDATE first.
func TestFirstAndAfterFromLongBefore(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	start := tz.TimeMoment(tz.DateOf(time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)).At(10, 0))
	s := Series{Start: start, Zone: paris, Rule: MustRule("FREQ=MINUTELY"), Duration: time.Minute}
	want, _ := paris.Instant(start.DateTime)
	if got := s.First(); !got.Equal(want) {
		t.Errorf("First = %v, want %v", got, want)
	}
	long := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	if o, ok := s.After(long); !ok || !o.Start.Equal(want) {
		t.Errorf("After(1900) = %v, %v; want %v", o.Start, ok, want)
	}
	early := tz.TimeMoment(tz.DateOf(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)).At(9, 0))
	s.RDates = []tz.Moment{early}
	wantEarly, _ := paris.Instant(early.DateTime)
	if got := s.First(); !got.Equal(wantEarly) {
		t.Errorf("First with an earlier RDATE = %v, want %v", got, wantEarly)
	}
	if o, ok := s.After(long); !ok || !o.Start.Equal(wantEarly) {
		t.Errorf("After(1900) with an earlier RDATE = %v, %v; want %v", o.Start, ok, wantEarly)
	}
	if o, ok := s.After(wantEarly); !ok || !o.Start.Equal(want) {
		t.Errorf("After the RDATE = %v, %v; want %v", o.Start, ok, want)
	}
}
