package recur

import (
	"strconv"
	"testing"
	"time"
)

// A MINUTELY rule steps on the instant timeline like HOURLY:
// across a spring-forward or fall-back change every occurrence is INTERVAL
// real minutes after the one before, so the skipped hour's wall-clock times
// are simply not there and the repeated hour's appear twice, once per
// offset, with none lost or doubled as instants.
func TestMinutelyAcrossDST(t *testing.T) {
	cases := []struct {
		name, zone, start, rule string
		want                    []string
	}{
		{
			name: "Paris spring-forward", zone: "Europe/Paris",
			start: "2026-03-29T01:00", rule: "FREQ=MINUTELY;INTERVAL=30;COUNT=6",
			want: []string{"2026-03-29T01:00+01:00", "2026-03-29T01:30+01:00", "2026-03-29T03:00+02:00",
				"2026-03-29T03:30+02:00", "2026-03-29T04:00+02:00", "2026-03-29T04:30+02:00"},
		},
		{
			name: "Paris fall-back", zone: "Europe/Paris",
			start: "2026-10-25T01:30", rule: "FREQ=MINUTELY;INTERVAL=30;COUNT=6",
			want: []string{"2026-10-25T01:30+02:00", "2026-10-25T02:00+02:00", "2026-10-25T02:30+02:00",
				"2026-10-25T02:00+01:00", "2026-10-25T02:30+01:00", "2026-10-25T03:00+01:00"},
		},
		{
			name: "New York spring-forward", zone: "America/New_York",
			start: "2026-03-08T01:00", rule: "FREQ=MINUTELY;INTERVAL=30;COUNT=5",
			want: []string{"2026-03-08T01:00-05:00", "2026-03-08T01:30-05:00", "2026-03-08T03:00-04:00",
				"2026-03-08T03:30-04:00", "2026-03-08T04:00-04:00"},
		},
		{
			name: "New York fall-back", zone: "America/New_York",
			start: "2026-11-01T00:30", rule: "FREQ=MINUTELY;INTERVAL=30;COUNT=6",
			want: []string{"2026-11-01T00:30-04:00", "2026-11-01T01:00-04:00", "2026-11-01T01:30-04:00",
				"2026-11-01T01:00-05:00", "2026-11-01T01:30-05:00", "2026-11-01T02:00-05:00"},
		},
		{
			// Without COUNT the UNTIL bound and the window path decide.
			name: "New York fall-back with UNTIL", zone: "America/New_York",
			start: "2026-11-01T00:30", rule: "FREQ=MINUTELY;INTERVAL=30;UNTIL=20261101T070000Z",
			want: []string{"2026-11-01T00:30-04:00", "2026-11-01T01:00-04:00", "2026-11-01T01:30-04:00",
				"2026-11-01T01:00-05:00", "2026-11-01T01:30-05:00", "2026-11-01T02:00-05:00"},
		},
		{
			name: "Paris spring-forward with UNTIL", zone: "Europe/Paris",
			start: "2026-03-29T01:00", rule: "FREQ=MINUTELY;INTERVAL=30;UNTIL=20260329T023000Z",
			want: []string{"2026-03-29T01:00+01:00", "2026-03-29T01:30+01:00", "2026-03-29T03:00+02:00",
				"2026-03-29T03:30+02:00", "2026-03-29T04:00+02:00", "2026-03-29T04:30+02:00"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := timed(c.zone, c.start, c.rule)
			occ := s.All(20)
			wantList(t, local(occ, c.zone), c.want...)
			// The window path, started in the middle, agrees with All.
			if len(occ) > 2 {
				mid := s.StartsBetween(occ[1].Start, occ[len(occ)-1].Start.Add(time.Minute))
				wantList(t, local(mid, c.zone), c.want[1:]...)
			}
		})
	}
}

// Over the two days around each change of 2026 in both zones, an every-30-minutes and an
// every-45-minutes series have exactly one occurrence per INTERVAL real
// minutes: the count over the window is its length divided by the
// interval, and each start is INTERVAL after the one before.
func TestMinutelyEvenStepsAcrossDST(t *testing.T) {
	for zone, days := range map[string][]string{
		"Europe/Paris":     {"2026-03-28", "2026-10-24"},
		"America/New_York": {"2026-03-07", "2026-10-31"},
	} {
		for _, day := range days {
			for _, interval := range []int{30, 45} {
				rule := "FREQ=MINUTELY;INTERVAL=" + strconv.Itoa(interval)
				s := timed(zone, day+"T00:00", rule)
				first, _, _ := s.Bounds()
				to := first.Add(48 * time.Hour)
				occ := s.StartsBetween(first, to)
				step := time.Duration(interval) * time.Minute
				if want := int(48 * time.Hour / step); len(occ) != want {
					t.Errorf("%s %s %s: %d occurrences in 48 h, want %d", zone, day, rule, len(occ), want)
				}
				for i := 1; i < len(occ); i++ {
					if d := occ[i].Start.Sub(occ[i-1].Start); d != step {
						t.Errorf("%s %s %s: %s then %s, %s apart, want %s", zone, day, rule,
							occ[i-1].Start.UTC(), occ[i].Start.UTC(), d, step)
						break
					}
				}
			}
		}
	}
}
