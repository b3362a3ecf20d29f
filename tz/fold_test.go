package tz

import (
	"testing"
	"time"
)

// An instant in the repeated hour of a fall-back change reads as the
// second of the two equal clock times (Fold), and Instant gives it back;
// the same reading without Fold is the earlier instant (RFC 5545 §3.3.5).
func TestInReadsTheRepeatedHourWithFold(t *testing.T) {
	cases := []struct {
		zone    string
		instant time.Time
		clock   string
		fold    bool
	}{
		{"Europe/Paris", time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC), "2026-10-25T02:30", false},
		{"Europe/Paris", time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC), "2026-10-25T02:30", true},
		{"Europe/Paris", time.Date(2026, 10, 25, 1, 59, 0, 0, time.UTC), "2026-10-25T02:59", true},
		{"Europe/Paris", time.Date(2026, 10, 25, 2, 0, 0, 0, time.UTC), "2026-10-25T03:00", false},
		{"America/New_York", time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC), "2026-11-01T01:30", false},
		{"America/New_York", time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC), "2026-11-01T01:30", true},
		{"Australia/Lord_Howe", time.Date(2026, 4, 4, 15, 15, 0, 0, time.UTC), "2026-04-05T01:45", true},
		{"UTC", time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC), "2026-10-25T01:30", false},
	}
	for _, c := range cases {
		z := MustZone(c.zone)
		dt := z.In(c.instant)
		if dt.String() != c.clock || dt.Fold != c.fold {
			t.Errorf("%s In(%s) = %s fold %v, want %s fold %v", c.zone, c.instant, dt, dt.Fold, c.clock, c.fold)
		}
		if back, _ := z.Instant(dt); !back.Equal(c.instant) {
			t.Errorf("%s Instant(In(%s)) = %s", c.zone, c.instant, back.UTC())
		}
		if got := z.Reading(dt.Clock(), c.instant); got != dt {
			t.Errorf("%s Reading(%s, %s) = %+v, want %+v", c.zone, dt, c.instant, got, dt)
		}
	}
	// Fold on a time read only once changes nothing.
	z := MustZone("Europe/Paris")
	dt := Date{2026, 10, 26}.At(2, 30)
	dt.Fold = true
	if got, _ := z.Instant(dt); !got.Equal(time.Date(2026, 10, 26, 1, 30, 0, 0, time.UTC)) {
		t.Errorf("Instant of a single reading with Fold = %s", got.UTC())
	}
}
