package events

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/events/eventseed"
	"github.com/assistant-dev/assistant/tz"
)

// The scale benchmarks of list_events and find_free_time: one
// week over N weekly series (eventseed.Plan), N = 1k, 10k, 50k, 100k (the
// last two skipped under -short), on each engine, each reporting x-naive,
// how many times faster the call was than rrule-go expanding the same
// series from DTSTART (eventseed.Naive, measured once per size):
//
//	go test ./tools/events -run '^$' -bench 'Scale' -count 6
//
// ListEvents is a repeated call (the snapshot cached), ListEventsAfterWrite
// the first call after another connection to the same database changed a
// series (as another process does), ListEventsCold the first call with
// nothing cached (as a process's first), FreeTime the first find_free_time
// after another connection's write.

// BenchmarkScaleListEvents is a one-week list_events (limit 40) over N
// weekly series, called again with the series cached.
func BenchmarkScaleListEvents(b *testing.B) {
	scaleEngines(b, func(b *testing.B, sc *scaleEnv) { sc.run(b, listWeekLimit40, nil) })
}

// BenchmarkScaleListEventsAfterWrite is the same week's first list_events
// after another connection (as another process) changed one series.
func BenchmarkScaleListEventsAfterWrite(b *testing.B) {
	scaleEngines(b, func(b *testing.B, sc *scaleEnv) { sc.run(b, listWeekLimit40, sc.writeElsewhere) })
}

// BenchmarkScaleListEventsCold is the same week's list_events with nothing
// cached, as a process's first call.
func BenchmarkScaleListEventsCold(b *testing.B) {
	scaleEngines(b, func(b *testing.B, sc *scaleEnv) {
		sc.run(b, listWeekLimit40, func(*testing.B, int) { snapshots.Clear() })
	})
}

// BenchmarkScaleFreeTime is find_free_time (30 minutes) over the same week,
// the first call after another connection changed one series.
func BenchmarkScaleFreeTime(b *testing.B) {
	scaleEngines(b, func(b *testing.B, sc *scaleEnv) { sc.run(b, freeWeek, sc.writeElsewhere) })
}

const (
	listWeekLimit40 = `list_events {"from":"2026-10-05","to":"2026-10-11","limit":40}`
	freeWeek        = `find_free_time {"from":"2026-10-05","to":"2026-10-11","duration":30}`
)

// scaleEnv is a store seeded with n weekly series, a second handle on it
// (another connection, as another process has) and the naive cost of the
// week over the same series.
type scaleEnv struct {
	s, other *store.Store
	reg      *tools.Registry
	tc       *tools.ToolContext
	person   int64
	n        int
	naive    float64 // ns of eventseed.Naive over the week
}

var (
	naiveMu sync.Mutex
	naiveNs = map[int]float64{}
)

// naiveWeekNs is the best of three naive listings of the week over
// eventseed.Plan(n), in ns.
func naiveWeekNs(n int) float64 {
	naiveMu.Lock()
	defer naiveMu.Unlock()
	if v, ok := naiveNs[n]; ok {
		return v
	}
	plan := eventseed.Plan(n)
	from := tz.MustZone(eventseed.Zone).StartOfDay(tz.DateOf(eventseed.Monday))
	best := time.Duration(1 << 62)
	for range 3 {
		t0 := time.Now()
		eventseed.Naive(plan, from, from.AddDate(0, 0, 7))
		best = min(best, time.Since(t0))
	}
	naiveNs[n] = float64(best.Nanoseconds())
	return naiveNs[n]
}

func scaleEngines(b *testing.B, fn func(b *testing.B, sc *scaleEnv)) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run(engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			for _, size := range eventseed.Sizes {
				b.Run("rows="+size.Name, func(b *testing.B) {
					if testing.Short() && size.N > 10000 {
						b.Skip("above 10k series under -short")
					}
					fn(b, openScale(b, size.N))
				})
			}
		})
	}
}

func openScale(b *testing.B, n int) *scaleEnv {
	ctx := context.Background()
	loc := eventseed.Location(b, n)
	open := func() *store.Store {
		s, err := store.Open(ctx, loc, &store.Options{Now: func() time.Time { return eventseed.Monday }})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	sc := &scaleEnv{s: open(), other: open(), reg: tools.NewRegistry(), n: n, naive: naiveWeekNs(n)}
	Register(sc.reg)
	p, err := sc.s.EnsurePerson(ctx, eventseed.Person, eventseed.Zone)
	if err != nil {
		b.Fatal(err)
	}
	sc.person = p.ID
	sc.tc = &tools.ToolContext{}
	tools.Insert(sc.tc, tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)})
	tools.Insert(sc.tc, tools.Clock(func() time.Time { return eventseed.Monday }))
	tools.Insert(sc.tc, sc.s)
	snapshots.Clear()
	return sc
}

// writeElsewhere changes series e(i%n+1) through the other connection:
// its title and its length (30 minutes more or less), so its timing
// changes too.
func (sc *scaleEnv) writeElsewhere(b *testing.B, i int) {
	id := int64(i%sc.n + 1)
	_, err := sc.other.Write(context.Background(), sc.person, "bench", func(tx *store.Tx) error {
		e, err := tx.Event(id)
		if err != nil {
			return err
		}
		after := *e
		after.Title = fmt.Sprintf("Series %d, take %d", id, i)
		d := 30 * time.Minute
		if e.EndAt.Sub(e.StartAt) > time.Hour {
			d = -d
		}
		after.EndAt = e.EndAt.Add(d)
		after.End = tz.TimeMoment(e.Zone.In(after.EndAt))
		return tx.SaveEvent(e, &after)
	})
	if err != nil {
		b.Fatal(err)
	}
}

// run calls the tool of call ("name {args}") once to warm up, then in b's
// loop, with before (when not nil) run outside the timer before each call.
func (sc *scaleEnv) run(b *testing.B, call string, before func(b *testing.B, i int)) {
	var name, raw string
	fmt.Sscanf(call, "%s", &name)
	raw = call[len(name)+1:]
	ctx := context.Background()
	do := func() {
		if res, _ := sc.reg.Call(ctx, sc.tc, name, []byte(raw)); res.Code != tools.CodeOK {
			b.Fatal(res.TextOut())
		}
	}
	do()
	runtime.GC() // the seeding's and the first call's garbage is not the loop's
	i := 0
	for b.Loop() {
		if before != nil {
			b.StopTimer()
			before(b, i)
			i++
			b.StartTimer()
		}
		do()
	}
	b.ReportMetric(sc.naive/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "x-naive")
}
