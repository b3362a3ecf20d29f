package tz

import (
	"testing"
	"time"
)

// TestEveryTransition checks Instant and StartOfDay against every offset
// change of every zone in ZoneNames from 1900 to 2040, with expectations
// derived from the definitions alone: a civil minute in a gap is read with
// the offset before it (so it lands forward by the gap's length); a minute
// in a fold is read with the offset before it (the earlier instant); a day
// starts at the first instant whose civil day is that day.
func TestEveryTransition(t *testing.T) {
	if testing.Short() {
		t.Skip("walks every transition of every zone; skipped with -short")
	}
	from := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)
	checked := 0
	for _, name := range ZoneNames() {
		z := MustZone(name)
		loc := z.Location()
		var prev time.Time
		for at := from; at.Before(to); {
			_, end := at.In(loc).ZoneBounds()
			if end.IsZero() || !end.After(at) {
				break
			}
			_, next := end.In(loc).ZoneBounds()
			// Transitions less than two days apart would need the expectations
			// below to know about both; the fuzz test covers those.
			lonely := (prev.IsZero() || end.Sub(prev) > 48*time.Hour) &&
				(next.IsZero() || next.Sub(end) > 48*time.Hour)
			if lonely {
				checkTransition(t, z, end)
				checked++
			}
			prev, at = end, end
		}
	}
	t.Logf("checked %d transitions", checked)
	if checked < 10000 {
		t.Errorf("checked only %d transitions; the walk is broken", checked)
	}
}

func checkTransition(t *testing.T, z Zone, tr time.Time) {
	t.Helper()
	loc := z.Location()
	_, before := tr.Add(-time.Second).In(loc).Zone()
	_, after := tr.In(loc).Zone()
	if before == after {
		return // a change of abbreviation or DST flag only
	}
	clockBefore := tr.Add(time.Duration(before) * time.Second) // the civil time the old clock reached, as UTC
	clockAfter := tr.Add(time.Duration(after) * time.Second)
	lo, hi := clockBefore, clockAfter
	if hi.Before(lo) {
		lo, hi = hi, lo
	}
	// Whole civil minutes inside the skipped or repeated stretch.
	first := lo.Truncate(time.Minute)
	if first.Before(lo) {
		first = first.Add(time.Minute)
	}
	for _, m := range []time.Time{first, first.Add(hi.Sub(first) / 2).Truncate(time.Minute), hi.Add(-time.Nanosecond).Truncate(time.Minute)} {
		if m.Before(lo) || !m.Before(hi) {
			continue
		}
		civil := FromUTCClock(m)
		want := m.Add(-time.Duration(before) * time.Second)
		got, moved := z.Instant(civil)
		if !got.Equal(want) || moved != (after > before) {
			t.Errorf("%s %s (offsets %+ds → %+ds at %s): Instant = %s moved=%v, want %s moved=%v",
				z, civil, before, after, tr.UTC().Format(time.RFC3339), got.UTC().Format(time.RFC3339), moved,
				want.UTC().Format(time.RFC3339), after > before)
		}
	}
	// The minutes either side of the stretch exist once and read back.
	for _, m := range []time.Time{lo.Add(-time.Minute).Truncate(time.Minute), hi.Add(time.Minute - time.Nanosecond).Truncate(time.Minute)} {
		civil := FromUTCClock(m)
		got, moved := z.Instant(civil)
		if moved || z.In(got) != civil {
			t.Errorf("%s %s next to the transition at %s: Instant = %s moved=%v, want it to read back",
				z, civil, tr.UTC().Format(time.RFC3339), got.Format(time.RFC3339), moved)
		}
	}
	for _, d := range []Date{FromUTCClock(clockBefore).Date, FromUTCClock(clockAfter).Date} {
		for _, d := range []Date{d, d.AddDays(1)} {
			s := z.StartOfDay(d)
			if z.Today(s).Before(d) || !z.Today(s.Add(-time.Second)).Before(d) {
				t.Errorf("%s StartOfDay(%s) = %s, which is not the first instant of that day (transition at %s)",
					z, d, s.Format(time.RFC3339), tr.UTC().Format(time.RFC3339))
			}
		}
	}
}
