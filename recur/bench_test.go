package recur

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
	"github.com/teambition/rrule-go"
)

// benchRow is one stored series as a store keeps it: text fields plus the
// bounds computed at write time.
type benchRow struct {
	rule, zone  string
	start       tz.Moment
	dur         time.Duration
	first, last time.Time
	bounded     bool
}

var benchNow = time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)

// benchRows builds 10,000 series: daily, weekly, monthly-by-setpos and
// yearly rules, starts spread over the last five years at working hours
// (no DST gap, so the naive rrule-go expansion is right too), a third
// ended by COUNT or UNTIL, DTSTART on an occurrence of its rule.
func benchRows(tb testing.TB) []benchRow {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []string{"FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "FREQ=YEARLY", "FREQ=WEEKLY;INTERVAL=2", "FREQ=MONTHLY;BYDAY=2TU"}
	zones := []string{"Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC"}
	rows := make([]benchRow, 10000)
	for i := range rows {
		rule := kinds[i%len(kinds)]
		switch i % 3 {
		case 1:
			rule += fmt.Sprintf(";COUNT=%d", 5+rng.IntN(300))
		case 2:
			u := benchNow.AddDate(0, 0, rng.IntN(400)-300)
			rule += ";UNTIL=" + u.Format("20060102T150405Z")
		}
		start := benchNow.AddDate(-5, 0, 0).Add(time.Duration(rng.IntN(5*365)) * 24 * time.Hour)
		start = time.Date(start.Year(), start.Month(), start.Day(), 8+rng.IntN(10), 15*rng.IntN(4), 0, 0, time.UTC)
		s := Series{Start: tz.TimeMoment(tz.FromUTCClock(start)), Zone: tz.MustZone(zones[rng.IntN(len(zones))]), Rule: MustRule(rule)}
		// Synchronise DTSTART with the rule, as the tools do.
		if o := s.Rule.options(start); true {
			o.Dtstart = start
			r, _ := rrule.NewRRule(o)
			s.Start = tz.TimeMoment(tz.FromUTCClock(r.After(start, true)))
		}
		s.Duration = time.Duration(30*(1+rng.IntN(4))) * time.Minute
		first, last, bounded := s.Bounds()
		rows[i] = benchRow{rule: rule, zone: s.Zone.Name(), start: s.Start, dur: s.Duration, first: first, last: last, bounded: bounded}
	}
	return rows
}

// ours lists one window the way the event store does: skip by bounds,
// rebuild the series from its row (cached rule), expand near the window.
func ours(rows []benchRow, from, to time.Time) [][]time.Time {
	out := make([][]time.Time, len(rows))
	for i, row := range rows {
		if !row.first.Before(to) || row.bounded && !row.last.After(from) {
			continue
		}
		rule, _ := ParseRule(row.rule)
		zone, _ := tz.LoadZone(row.zone)
		s := Series{Start: row.start, Zone: zone, Rule: rule, Duration: row.dur}
		for _, o := range s.Between(from, to) {
			out[i] = append(out[i], o.Start)
		}
	}
	return out
}

// naive parses each rule with its DTSTART and expands from DTSTART with
// rrule-go's Between, as a caller of that library alone would.
func naive(rows []benchRow, from, to time.Time) [][]time.Time {
	out := make([][]time.Time, len(rows))
	for i, row := range rows {
		text := fmt.Sprintf("DTSTART;TZID=%s:%s\nRRULE:%s", row.zone, row.start.DateTime.Basic(), row.rule)
		if row.zone == "UTC" {
			text = fmt.Sprintf("DTSTART:%sZ\nRRULE:%s", row.start.DateTime.Basic(), row.rule)
		}
		set, err := rrule.StrToRRuleSet(text)
		if err != nil {
			panic(err)
		}
		for _, t := range set.Between(from.Add(-row.dur), to, true) {
			if t.Before(to) && t.Add(row.dur).After(from) {
				out[i] = append(out[i], t)
			}
		}
	}
	return out
}

func sameLists(tb testing.TB, what string, a, b [][]time.Time) {
	tb.Helper()
	n := 0
	for i := range a {
		n += len(a[i])
		if !slices.EqualFunc(a[i], b[i], time.Time.Equal) {
			tb.Fatalf("%s: series %d differs:\n%v\n%v", what, i, a[i], b[i])
		}
	}
	if n == 0 {
		tb.Fatalf("%s: no occurrences in the window", what)
	}
}

// BenchmarkListWeek lists one week over 10,000 series: ours (bounds, cached
// rules, expansion near the window) against the naive way, in one run.
func BenchmarkListWeek(b *testing.B) {
	rows := benchRows(b)
	from := benchNow
	to := from.Add(7 * 24 * time.Hour)
	want := naive(rows, from, to)
	sameLists(b, "ours vs naive", ours(rows, from, to), want)
	// And against our own full expansion from DTSTART (no bounds, no jump).
	full := make([][]time.Time, len(rows))
	for i, row := range rows {
		s := Series{Start: row.start, Zone: tz.MustZone(row.zone), Rule: MustRule(row.rule), Duration: row.dur}
		for _, o := range s.StartsBetween(row.first, to) {
			if o.End.After(from) {
				full[i] = append(full[i], o.Start)
			}
		}
	}
	sameLists(b, "ours vs full expansion", ours(rows, from, to), full)
	b.Run("ours", func(b *testing.B) {
		for b.Loop() {
			ours(rows, from, to)
		}
	})
	// Cold: the month cache is dropped before each listing, so every
	// series in reach is expanded again (rules stay cached).
	b.Run("ours-cold", func(b *testing.B) {
		for b.Loop() {
			chunkCache.Clear()
			ours(rows, from, to)
		}
	})
	b.Run("naive", func(b *testing.B) {
		for b.Loop() {
			naive(rows, from, to)
		}
	})
}

// BenchmarkCreateSeries is the recurrence work of creating or changing one
// repeating event: parse a rule not seen before, check the series, compute
// its bounds (COUNT expands once) and its next occurrence.
func BenchmarkCreateSeries(b *testing.B) {
	zone := tz.MustZone("Europe/Paris")
	start := tz.TimeMoment(tz.DateTime{Date: tz.Date{Year: 2026, Month: 10, Day: 5}, Hour: 9})
	i := 0
	for b.Loop() {
		i++
		// Distinct texts, so the rule cache does not help.
		rule := fmt.Sprintf("FREQ=WEEKLY;INTERVAL=%d;BYDAY=MO,WE;COUNT=%d", 1+i/50%MaxInterval, 2+i%50)
		if i%2 == 0 {
			rule = fmt.Sprintf("FREQ=MONTHLY;INTERVAL=%d;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;UNTIL=2027%02d01", 1+i/12%MaxInterval, 1+i%12)
		}
		r, err := ParseRule(rule)
		if err != nil {
			b.Fatal(err)
		}
		s := Series{Start: start, Zone: zone, Rule: r, Duration: time.Hour}
		if err := s.Check(); err != nil {
			b.Fatal(err)
		}
		s.Bounds()
		if _, ok := s.After(benchNow); !ok {
			b.Fatal("no next occurrence")
		}
	}
}

// countBenchKinds are the rule shapes of BenchmarkCreateCount: the common
// ones whose periods each give a fixed number of occurrences, and one
// (BYSETPOS) that is always expanded in full.
var countBenchKinds = []string{
	"FREQ=WEEKLY;BYDAY=MO,WE", "FREQ=DAILY", "FREQ=MONTHLY;BYDAY=2TU",
	"FREQ=MONTHLY;BYMONTHDAY=15", "FREQ=YEARLY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH,FR",
}

// BenchmarkCreateCount is the recurrence work the event tools do when a
// repeating event with COUNT is created or changed: Check, Bounds and the
// next occurrence after the first (After). Each iteration parses its rule
// without the rule cache (parseRule) and has its own DTSTART, so neither
// the rule cache nor the COUNT and month caches (keyed by rule and
// DTSTART) help. count-N has COUNTs from 1 to N, over countBenchKinds;
// setpos-N is a rule always expanded in full, for comparison.
func BenchmarkCreateCount(b *testing.B) {
	zone := tz.MustZone("Europe/Paris")
	base := tz.Date{Year: 2026, Month: 10, Day: 5}
	run := func(b *testing.B, most int, kinds []string) {
		i := 0
		for b.Loop() {
			i++
			kind := kinds[i%len(kinds)]
			r, err := parseRule(fmt.Sprintf("%s;COUNT=%d", kind, 1+i%most))
			if err != nil {
				b.Fatal(err)
			}
			s := Series{Start: tz.TimeMoment(base.AddDays(i%3000).At(18, 0)), Zone: zone, Rule: r, Duration: time.Hour}
			if err := s.Check(); err != nil {
				b.Fatal(err)
			}
			first, _, _ := s.Bounds()
			s.After(first)
		}
	}
	for _, most := range []int{20, 1000} {
		b.Run(fmt.Sprintf("count-%d", most), func(b *testing.B) { run(b, most, countBenchKinds) })
	}
	b.Run("setpos-1000", func(b *testing.B) {
		run(b, 1000, []string{"FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"})
	})
}

// BenchmarkCountSparse is the COUNT expansion (countCivil) of rules whose
// COUNT is reached late or never before the year 10000, against the walk
// to the year 9999 it replaces (walk, the test's oracle). Each iteration
// has its own DTSTART, as each event of an import has.
//
//	go test ./recur -run '^$' -bench CountSparse -count 6
func BenchmarkCountSparse(b *testing.B) {
	for _, text := range []string{
		"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=3000",
		"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO;COUNT=500",
		"FREQ=WEEKLY;BYMONTH=2;BYDAY=MO;COUNT=10000",
	} {
		r, err := parseRule(text)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.ToLower(strings.SplitN(strings.TrimPrefix(text, "FREQ="), ";", 2)[0])
		for _, way := range []string{"cycle", "walk"} {
			b.Run(name+"/"+way, func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					start := time.Date(2026, 1, 1+i%28, 9, 0, 0, 0, time.UTC)
					var n int
					if way == "cycle" {
						s := Series{Start: tz.TimeMoment(tz.Date{Year: 2026, Month: 1, Day: start.Day()}.At(9, 0)), Zone: tz.MustZone("UTC"), Rule: r}
						n = len(s.countCivil(start))
					} else {
						n = len(countCivilByWalk(r, start))
					}
					if n == 0 {
						b.Fatalf("%s: %d times", text, n)
					}
				}
			})
		}
	}
}
