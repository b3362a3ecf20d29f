// Package eventseed fills stores with many weekly series for the scale
// benchmarks of list_events and find_free_time (tools/events and the MCP
// front, mcpserver): the same series in every benchmark, seeded once per
// machine (SQLite, a file copied for each benchmark) or once per server
// (PostgreSQL, a template database copied for each), and the naive
// expansion they are compared with. Only tests import it.
package eventseed

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/migrations"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// Monday is the Monday of the week the benchmarks list, 2026-10-05, and
// the clock of their stores (09:00 UTC that day).
var Monday = time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC)

// Person is the name of the one person the series belong to, in Zone.
const (
	Person = "alice"
	Zone   = "Europe/Paris"
)

// Series is one seeded series as text, the way the naive lister reads it.
type Series struct {
	Rule, Zone string
	Start      tz.Moment // DTSTART, civil in Zone
	Dur        time.Duration
}

// Plan is n weekly series: DTSTART on a random day of the five years
// before Monday, at a quarter hour from 08:00 to 17:45 (never in a DST
// gap, so rrule-go's own expansion is right too), BYDAY its weekday, in
// one of four zones (two with DST), 30 to 120 minutes long; one in five
// ends (UNTIL) somewhere from two years before Monday to one after.
func Plan(n int) []Series {
	rng := rand.New(rand.NewPCG(21, uint64(n)))
	zones := []string{"Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC"}
	days := []string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}
	out := make([]Series, n)
	for i := range out {
		day := tz.DateOf(Monday.AddDate(-5, 0, 0)).AddDays(rng.IntN(5 * 365))
		start := tz.TimeMoment(day.At(8+rng.IntN(10), 15*rng.IntN(4)))
		rule := "FREQ=WEEKLY;BYDAY=" + days[day.Weekday()]
		if rng.IntN(5) == 0 {
			rule += ";UNTIL=" + Monday.AddDate(0, 0, rng.IntN(3*365)-2*365).Format("20060102T150405Z")
		}
		out[i] = Series{Rule: rule, Zone: zones[rng.IntN(len(zones))], Start: start, Dur: time.Duration(30*(1+rng.IntN(4))) * time.Minute}
	}
	return out
}

// Seed adds the series of plan to person in one write (batched inserts).
func Seed(ctx context.Context, s *store.Store, person int64, plan []Series) error {
	evs := make([]*calendar.Event, len(plan))
	for i, sr := range plan {
		zone, err := tz.LoadZone(sr.Zone)
		if err != nil {
			return err
		}
		rule, err := recur.ParseRule(sr.Rule)
		if err != nil {
			return err
		}
		start, _ := zone.Instant(sr.Start.DateTime)
		end := start.Add(sr.Dur)
		evs[i] = &calendar.Event{UID: fmt.Sprintf("seed-%d@bench", i), Title: fmt.Sprintf("Series %d", i), Zone: zone,
			Start: sr.Start, End: tz.TimeMoment(zone.In(end)), StartAt: start.UTC(), EndAt: end.UTC(), Rule: rule,
			RemindBefore: "[]", RemindAt: "[]", CreatedAt: Monday}
	}
	_, err := s.Write(ctx, person, "seed", func(tx *store.Tx) error {
		return tx.InsertEvents(evs, make([][]*calendar.Override, len(evs)))
	})
	return err
}

// seedInto opens the store at loc, adds Person and the n series, and
// closes it.
func seedInto(ctx context.Context, loc string, n int) error {
	s, err := store.Open(ctx, loc, &store.Options{Now: func() time.Time { return Monday }})
	if err != nil {
		return err
	}
	p, err := s.EnsurePerson(ctx, Person, Zone)
	if err == nil {
		err = Seed(ctx, s, p.ID, Plan(n))
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

var filesMu sync.Mutex

// Location is a database of tb's engine ([storetest.Engine]) holding Person
// with the n series of Plan(n), for tb alone: on SQLite a copy, in
// tb.TempDir(), of a file seeded once per machine (in os.TempDir(), named
// by n and the migrations, so later runs and the code before a change
// share it); on PostgreSQL a copy of a template database seeded once per
// server (and kept there).
func Location(tb testing.TB, n int) string {
	tb.Helper()
	if storetest.Engine(tb) == storetest.Postgres {
		return storetest.LocationFrom(tb, storetest.Template{
			Key: fmt.Sprintf("eventseed v1, %d weekly series, migrations %s", n, storetest.HashFS(migrations.Postgres)),
			Prepare: func(ctx context.Context, dsn string) error {
				return seedInto(ctx, dsn, n)
			},
		})
	}
	filesMu.Lock()
	defer filesMu.Unlock()
	src := filepath.Join(os.TempDir(), fmt.Sprintf("eventseed-v1-%d-%.16s.db", n, storetest.HashFS(migrations.SQLite)))
	if _, err := os.Stat(src); err != nil {
		dir, err := os.MkdirTemp("", "eventseed")
		if err != nil {
			tb.Fatal(err)
		}
		defer os.RemoveAll(dir)
		tmp := filepath.Join(dir, "assistant.db")
		if err := seedInto(context.Background(), tmp, n); err != nil {
			tb.Fatal(err)
		}
		// Renamed whole, so another process never copies half a file.
		if err := copyFile(tmp, src+".part"); err != nil {
			tb.Fatal(err)
		}
		if err := os.Rename(src+".part", src); err != nil {
			tb.Fatal(err)
		}
	}
	dst := filepath.Join(tb.TempDir(), "assistant.db")
	if err := copyFile(src, dst); err != nil {
		tb.Fatal(err)
	}
	return dst
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Naive lists [from, to) the naive way: parse each series' DTSTART and
// RRULE with rrule-go and expand from DTSTART with Between, keeping the
// starts of the occurrences that overlap the window; it returns how many.
// The series are given already in memory, which only flatters it.
func Naive(plan []Series, from, to time.Time) int {
	n := 0
	for _, sr := range plan {
		text := fmt.Sprintf("DTSTART;TZID=%s:%s\nRRULE:%s", sr.Zone, sr.Start.DateTime.Basic(), sr.Rule)
		set, err := rrule.StrToRRuleSet(text)
		if err != nil {
			panic(err)
		}
		for _, t := range set.Between(from.Add(-sr.Dur), to, true) {
			if t.Before(to) && t.Add(sr.Dur).After(from) {
				n++
			}
		}
	}
	return n
}

// Sizes are the numbers of series the scale benchmarks run at, with their
// names (rows=1k …); above 10k they are skipped under -short.
var Sizes = []struct {
	N    int
	Name string
}{{1000, "1k"}, {10000, "10k"}, {50000, "50k"}, {100000, "100k"}}
