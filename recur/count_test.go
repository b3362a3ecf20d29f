package recur

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// randomRule writes a rule of any frequency with random INTERVAL, BYxxx
// parts and a COUNT from 1 to 2000; many are refused by ParseRule, which
// the caller skips.
func randomRule(rng *rand.Rand, allDay bool) string {
	freqs := []string{"YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY"}
	if allDay {
		freqs = freqs[:4]
	}
	f := freqs[rng.IntN(len(freqs))]
	parts := []string{"FREQ=" + f, fmt.Sprintf("COUNT=%d", 1+rng.IntN(2000))}
	if rng.IntN(3) == 0 {
		parts = append(parts, fmt.Sprintf("INTERVAL=%d", 2+rng.IntN(5)))
	} else if rng.IntN(20) == 0 {
		parts = append(parts, fmt.Sprintf("INTERVAL=%d", 10+rng.IntN(300)))
	}
	pick := func(n int, gen func() string) string {
		var v []string
		for range 1 + rng.IntN(n) {
			v = append(v, gen())
		}
		return strings.Join(v, ",")
	}
	sign := func() int {
		if rng.IntN(3) == 0 {
			return -1
		}
		return 1
	}
	if rng.IntN(3) == 0 {
		numbered := (f == "MONTHLY" || f == "YEARLY") && rng.IntN(2) == 0
		parts = append(parts, "BYDAY="+pick(4, func() string {
			d := weekdayCodes[rng.IntN(7)]
			if numbered {
				return fmt.Sprintf("%d%s", sign()*(1+rng.IntN(5)), d)
			}
			return d
		}))
	}
	if f != "WEEKLY" && rng.IntN(4) == 0 {
		parts = append(parts, "BYMONTHDAY="+pick(3, func() string { return fmt.Sprint(sign() * (1 + rng.IntN(31))) }))
	}
	if rng.IntN(5) == 0 {
		parts = append(parts, "BYMONTH="+pick(3, func() string { return fmt.Sprint(1 + rng.IntN(12)) }))
	}
	if rng.IntN(8) == 0 {
		parts = append(parts, "BYHOUR="+pick(3, func() string { return fmt.Sprint(rng.IntN(24)) }))
	}
	if rng.IntN(8) == 0 {
		parts = append(parts, "BYMINUTE="+pick(2, func() string { return fmt.Sprint(15 * rng.IntN(4)) }))
	}
	if rng.IntN(8) == 0 {
		parts = append(parts, "BYSETPOS="+fmt.Sprint(sign()*(1+rng.IntN(3))))
	}
	if rng.IntN(6) == 0 {
		parts = append(parts, "WKST="+weekdayCodes[rng.IntN(7)])
	}
	return strings.Join(parts, ";")
}

// fullOccurrences places every time of the full COUNT expansion
// (countTimes), sorted and one per instant, as starts does.
func fullOccurrences(s Series) []Occurrence {
	var out []Occurrence
	for _, c := range s.countTimes() {
		if s.Rule.freq > Daily && s.Start.HasTime {
			out = append(out, s.placeInstant(c))
		} else {
			out = append(out, s.place(c))
		}
	}
	slices.SortStableFunc(out, func(a, b Occurrence) int { return a.Start.Compare(b.Start) })
	return slices.CompactFunc(out, func(a, b Occurrence) bool { return a.Start.Equal(b.Start) })
}

func starts(occ []Occurrence) []string {
	out := make([]string, len(occ))
	for i, o := range occ {
		out[i] = o.Start.UTC().Format(time.RFC3339)
	}
	return out
}

// The fast COUNT path (countTail) against the full expansion, over random
// rules, starts, zones with DST, 30-minute offsets, a midnight DST change
// and a skipped day: Bounds' first is DTSTART's start, its last is never
// before the real last end, and wherever countTail answers, its times are
// exactly the full list's last two and expansion near any window gives
// exactly the full list's occurrences there.
func TestCountTailMatchesFullExpansion(t *testing.T) {
	zones := []string{"Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata",
		"America/St_Johns", "Australia/Adelaide", "America/Sao_Paulo", "Pacific/Apia", "UTC"}
	rng := rand.New(rand.NewPCG(5, 2026))
	cases, fast := 0, map[Frequency]int{}
	want := 800
	if testing.Short() {
		want = 300
	}
	for cases < want {
		allDay := rng.IntN(4) == 0
		r, err := parseRule(randomRule(rng, allDay))
		if err != nil {
			continue
		}
		d := tz.Date{Year: 2005 + rng.IntN(25), Month: time.Month(1 + rng.IntN(12)), Day: 1 + rng.IntN(31)}
		if _, ok := tz.NewDate(d.Year, d.Month, d.Day); !ok {
			continue
		}
		start := tz.DayMoment(d)
		if !allDay {
			start = tz.TimeMoment(d.At([]int{0, 2, 9, 23}[rng.IntN(4)], []int{0, 30, 45}[rng.IntN(3)]))
		}
		s := Series{Start: start, Zone: tz.MustZone(zones[rng.IntN(len(zones))]), Rule: r, Duration: time.Duration(rng.IntN(3)) * 90 * time.Minute}
		if s.Check() != nil {
			continue
		}
		cases++
		name := fmt.Sprintf("%s from %s in %s", r, start, s.Zone.Name())
		full := s.countTimes()
		// computeTail is countTail without the smallCount shortcut.
		tail := s.computeTail()
		ok := tail != nil
		if ok {
			fast[r.freq]++
			if want := full[max(0, len(full)-2):]; !slices.EqualFunc(tail, want, time.Time.Equal) {
				t.Fatalf("%s: countTail %v, full expansion ends %v", name, tail, want)
			}
		}
		occ := fullOccurrences(s)
		first, last, bounded := s.Bounds()
		if !bounded || !first.Equal(s.place(civilOf(s.Start)).Start) {
			t.Fatalf("%s: Bounds gives first %v (bounded %v), want DTSTART's %v", name, first, bounded, s.place(civilOf(s.Start)).Start)
		}
		for _, o := range occ {
			if o.Start.Before(first) || o.End.After(last) {
				t.Fatalf("%s: occurrence %v–%v lies outside Bounds %v–%v", name, o.Start, o.End, first, last)
			}
		}
		if _, ok := s.countTail(); !ok {
			continue
		}
		// Windows at the start, around a random occurrence and across the
		// end: expansion near the window stops at the COUNT-th time.
		pick := occ[rng.IntN(len(occ))].Start
		for _, w := range [][2]time.Time{
			{first.Add(-time.Hour), first.Add(40 * day)},
			{pick.Add(-3 * day), pick.Add(5 * day)},
			{occ[len(occ)-1].Start.Add(-10 * day), occ[len(occ)-1].Start.Add(400 * day)},
		} {
			var want []Occurrence
			for _, o := range occ {
				if !o.Start.Before(w[0]) && o.Start.Before(w[1]) {
					want = append(want, o)
				}
			}
			if got := s.StartsBetween(w[0], w[1]); !slices.Equal(starts(got), starts(want)) {
				t.Fatalf("%s: in [%v, %v)\ngot  %v\nwant %v", name, w[0], w[1], starts(got), starts(want))
			}
		}
		if len(occ) <= 300 {
			if got := s.All(len(occ) + 5); !slices.Equal(starts(got), starts(occ)) {
				t.Fatalf("%s: All gives %d occurrences, the full expansion %d", name, len(got), len(occ))
			}
		}
	}
	t.Logf("%d cases, fast path taken by frequency: %v", cases, fast)
	// The fast path must really be taken for each kind it claims.
	for _, f := range []Frequency{Yearly, Monthly, Weekly, Daily, Hourly, Minutely} {
		if fast[f] < want/100 {
			t.Errorf("countTail answered only %d %s rules of %d cases", fast[f], f, cases)
		}
	}
}

// Which COUNT rules take the fast path (small COUNTs always use the full
// list), and that the rest fall back to the full expansion with the same
// Bounds.
func TestCountTailCases(t *testing.T) {
	cases := []struct {
		rule, start string
		fast        bool
		last        string // civil time of the COUNT-th occurrence
	}{
		{"FREQ=WEEKLY;BYDAY=MO,WE;COUNT=1000", "2026-10-05T09:00", true, "2036-04-30T09:00"},
		{"FREQ=WEEKLY;BYDAY=MO,WE;COUNT=2", "2026-10-04T09:00", true, "2026-10-05T09:00"}, // DTSTART off the rule counts
		{"FREQ=DAILY;INTERVAL=3;COUNT=4", "2026-10-05T09:00", true, "2026-10-14T09:00"},
		{"FREQ=DAILY;BYHOUR=9,17;COUNT=3", "2026-10-05T12:00", true, "2026-10-06T09:00"},
		{"FREQ=MONTHLY;BYDAY=2TU;COUNT=3", "2026-10-20T18:00", true, "2026-12-08T18:00"},
		{"FREQ=MONTHLY;BYDAY=-1FR,-2FR;COUNT=4", "2026-10-01T18:00", true, "2026-11-20T18:00"},
		{"FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3", "2026-12-31T08:00", true, "2027-02-28T08:00"},
		{"FREQ=YEARLY;COUNT=3", "2026-10-05T09:00", true, "2028-10-05T09:00"},
		{"FREQ=YEARLY;BYMONTH=11;BYDAY=4TH;COUNT=2", "2026-11-26T12:00", true, "2027-11-25T12:00"},
		{"FREQ=HOURLY;INTERVAL=5;COUNT=3", "2026-10-05T09:00", true, "2026-10-05T19:00"},
		{"FREQ=YEARLY;COUNT=3", "2028-02-29T09:00", false, "2036-02-29T09:00"},
		{"FREQ=MONTHLY;BYMONTHDAY=31;COUNT=3", "2026-10-31T09:00", false, "2027-01-31T09:00"},
		{"FREQ=MONTHLY;BYDAY=5MO;COUNT=2", "2026-11-30T09:00", false, "2027-03-29T09:00"},
		{"FREQ=MONTHLY;BYDAY=1MO,-1MO;COUNT=2", "2026-10-05T09:00", false, "2026-10-26T09:00"},
		{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=2", "2026-10-30T09:00", false, "2026-11-30T09:00"},
		{"FREQ=HOURLY;BYMINUTE=0,30;COUNT=3", "2026-10-05T09:00", false, "2026-10-05T10:00"},
		{"FREQ=YEARLY;INTERVAL=1000;COUNT=20", "2026-10-05T09:00", false, "9026-10-05T09:00"}, // rrule-go stops at 9999
	}
	for _, c := range cases {
		s := Series{Start: tz.TimeMoment(dt(c.start)), Zone: tz.MustZone("Europe/Paris"), Rule: MustRule(c.rule)}
		tail := s.computeTail()
		if ok := tail != nil; ok != c.fast {
			t.Errorf("%s from %s: fast path %v, want %v", c.rule, c.start, ok, c.fast)
		}
		full := s.countTimes()
		if got := tz.FromUTCClock(full[len(full)-1]).String(); got != c.last && !(s.Rule.freq > Daily) {
			t.Errorf("%s from %s: last time %s, want %s", c.rule, c.start, got, c.last)
		}
		if tail != nil && !tail[len(tail)-1].Equal(full[len(full)-1]) {
			t.Errorf("%s from %s: countTail ends %v, full list %v", c.rule, c.start, tail[len(tail)-1], full[len(full)-1])
		}
		if _, ok := s.countTail(); ok != (c.fast && s.Rule.count > smallCount) {
			t.Errorf("%s from %s: countTail answers %v with smallCount %d", c.rule, c.start, ok, smallCount)
		}
		_, last, _ := s.Bounds()
		want, _ := s.Zone.Instant(dt(c.last))
		if !last.Equal(want) {
			t.Errorf("%s from %s: Bounds last %v, want %v", c.rule, c.start, last, want)
		}
	}
}
