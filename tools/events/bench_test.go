package events

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
	"github.com/teambition/rrule-go"
)

// benchSeries is one stored series of the benchmark as text, the way the
// naive lister reads it.
type benchSeries struct {
	rule, zone string
	start      tz.Moment
	dur        time.Duration
}

// benchStore fills a store (of b's engine, see [benchEngines]) with 10,000 series of one person: daily, weekly, monthly-by-setpos and yearly rules, starts over
// the last five years at working hours (no DST gap, so rrule-go's own
// expansion is right too), a third ended by COUNT or UNTIL, DTSTART on an
// occurrence of its rule (rrule-go does not count an off-rule DTSTART).
func benchStore(b *testing.B) (*tooltest.Env, tools.Person, []*event, []benchSeries) {
	env := tooltest.Open(b, monday, Register)
	p := env.Person("alice", "Europe/Paris")
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []string{"FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "FREQ=YEARLY", "FREQ=WEEKLY;INTERVAL=2", "FREQ=MONTHLY;BYDAY=2TU"}
	zones := []string{"Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC"}
	var (
		evs  []*event
		text []benchSeries
	)
	_, err := env.Store.Write(env.Ctx, p.ID, "bench", func(tx *store.Tx) error {
		for i := range 10000 {
			kind := kinds[i%len(kinds)]
			rule := kind
			switch i % 3 {
			case 1:
				rule += fmt.Sprintf(";COUNT=%d", 5+rng.IntN(300))
			case 2:
				rule += ";UNTIL=" + monday.AddDate(0, 0, rng.IntN(400)-300).Format("20060102T150405Z")
			}
			day := monday.AddDate(-5, 0, 0).Add(time.Duration(rng.IntN(5*365)) * 24 * time.Hour)
			clock := tz.DateOf(day).At(8+rng.IntN(10), 15*rng.IntN(4)).AsUTC()
			on, err := rrule.StrToRRule("DTSTART:" + clock.Format("20060102T150405Z") + "\nRRULE:" + kind)
			if err != nil {
				return err
			}
			start := tz.TimeMoment(tz.FromUTCClock(on.After(clock, true)))
			e := &event{UID: newUID(), Title: fmt.Sprintf("Series %d", i), Zone: tz.MustZone(zones[rng.IntN(len(zones))]),
				Start: start, Rule: recur.MustRule(rule), RemindBefore: "[]", RemindAt: "[]", CreatedAt: monday}
			dur := time.Duration(30*(1+rng.IntN(4))) * time.Minute
			if err := times(e, tz.Moment{}, false, dur, 1); err != nil {
				return err
			}
			evs = append(evs, e)
			text = append(text, benchSeries{rule: rule, zone: e.Zone.Name(), start: start, dur: dur})
		}
		// In batches (InsertMany's multi-row INSERTs), not 10,000
		// statements: a round trip each on PostgreSQL.
		return tx.InsertEvents(evs, make([][]*calendar.Override, len(evs)))
	})
	if err != nil {
		b.Fatal(err)
	}
	return env, p, evs, text
}

// naiveWeek lists a window the naive way: parse each series'
// DTSTART and RRULE with rrule-go and expand from DTSTART with Between,
// keeping the starts of the occurrences that overlap [from, to). It is
// given the series already in memory, which only flatters it.
func naiveWeek(series []benchSeries, from, to time.Time) [][]time.Time {
	out := make([][]time.Time, len(series))
	for i, sr := range series {
		text := fmt.Sprintf("DTSTART;TZID=%s:%s\nRRULE:%s", sr.zone, sr.start.DateTime.Basic(), sr.rule)
		set, err := rrule.StrToRRuleSet(text)
		if err != nil {
			panic(err)
		}
		for _, t := range set.Between(from.Add(-sr.dur), to, true) {
			if t.Before(to) && t.Add(sr.dur).After(from) {
				out[i] = append(out[i], t)
			}
		}
	}
	return out
}

// fullWeek is the engine's full expansion from DTSTART of each series,
// with no stored bounds and no start near the window.
func fullWeek(evs []*event, person tz.Zone, from, to time.Time) [][]time.Time {
	out := make([][]time.Time, len(evs))
	for i, e := range evs {
		for _, o := range e.Series(person).StartsBetween(e.StartAt, to) {
			if o.End.After(from) {
				out[i] = append(out[i], o.Start)
			}
		}
	}
	return out
}

// sameStarts fails unless both listings have the same starts per series.
func sameStarts(b *testing.B, what string, got, want [][]time.Time) int {
	b.Helper()
	n := 0
	for i := range want {
		n += len(want[i])
		if !slices.EqualFunc(got[i], want[i], time.Time.Equal) {
			b.Fatalf("%s: series %d has %v, the full expansion %v", what, i, got[i], want[i])
		}
	}
	if n == 0 {
		b.Fatalf("%s: nothing in the window", what)
	}
	return n
}

// BenchmarkListWeek lists one week over 10,000 series end to end (a
// list_events call through the Registry on a real SQLite file) and the
// naive way, in one run, after checking that the tool's whole listing and
// the naive one both equal the engine's full expansion from DTSTART. The
// list_events result reports x-naive, how many times faster it was than
// naive in this run.
//
// It runs on each engine (BenchmarkListWeek/sqlite/…, …/postgres/…; the
// latter needs ASSISTANT_TEST_POSTGRES):
//
//	go test ./tools/events -run '^$' -bench 'ListWeek/.*/list_events' -count 6
func BenchmarkListWeek(b *testing.B) { benchEngines(b, listWeek) }

// benchEngines runs fn as the sub-benchmarks "sqlite" and "postgres" (whose
// stores storetest.Location, through tooltest, makes on the server of
// ASSISTANT_TEST_POSTGRES; skipped without it).
func benchEngines(b *testing.B, fn func(b *testing.B)) {
	b.Run(storetest.SQLite, fn)
	b.Run(storetest.Postgres, func(b *testing.B) {
		storetest.SkipUnlessPostgres(b)
		fn(b)
	})
}

func listWeek(b *testing.B) {
	env, p, evs, text := benchStore(b)
	s, reg, tc := env.Store, env.Reg, env.Context(p)
	ctx := context.Background()
	raw := []byte(`{"from":"2026-10-05","to":"2026-10-11"}`)
	w := tools.Window{From: p.Zone.StartOfDay(tz.Date{Year: 2026, Month: 10, Day: 5}), To: p.Zone.StartOfDay(tz.Date{Year: 2026, Month: 10, Day: 12})}

	full := fullWeek(evs, p.Zone, w.From, w.To)
	want := sameStarts(b, "naive", naiveWeek(text, w.From, w.To), full)
	index := map[int64]int{}
	for i, e := range evs {
		index[e.ID] = i
	}
	var list []occ
	err := s.Read(ctx, p.ID, func(tx *store.Tx) error {
		var err error
		list, err = loadWindow(tx, p.Zone, w, 0)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	got := make([][]time.Time, len(evs))
	for _, o := range list {
		got[index[o.Event.ID]] = append(got[index[o.Event.ID]], o.Start)
	}
	for i := range got {
		slices.SortFunc(got[i], time.Time.Compare)
	}
	sameStarts(b, "listing", got, full)
	// The pages of list_events, cursor to cursor, give them all.
	shown := 0
	for cursor := ""; ; {
		page := fmt.Sprintf(`{"from":"2026-10-05","to":"2026-10-11","limit":40,"cursor":%q}`, cursor)
		res, _ := reg.Call(ctx, tc, "list_events", []byte(page))
		var data struct {
			Events     []any
			NextCursor string `json:"next_cursor"`
		}
		if res.Code != tools.CodeOK || json.Unmarshal(res.Data, &data) != nil {
			b.Fatal(res.TextOut())
		}
		shown += len(data.Events)
		if cursor = data.NextCursor; cursor == "" {
			break
		}
	}
	if shown != want {
		b.Fatalf("list_events gave %d occurrences, the full expansion %d", shown, want)
	}

	var naiveNs float64
	b.Run("naive", func(b *testing.B) {
		for b.Loop() {
			naiveWeek(text, w.From, w.To)
		}
		naiveNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("list_events", func(b *testing.B) {
		for b.Loop() {
			if res, _ := reg.Call(ctx, tc, "list_events", raw); res.Code != tools.CodeOK {
				b.Fatal(res.TextOut())
			}
		}
		b.ReportMetric(float64(want), "occurrences")
		if naiveNs > 0 {
			b.ReportMetric(naiveNs/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "x-naive")
		}
	})
	// Cold: the cached snapshot is dropped before each listing, as after
	// another process's write, so the series are read from the store again.
	b.Run("list_events-cold", func(b *testing.B) {
		for b.Loop() {
			snapshots.Clear()
			if res, _ := reg.Call(ctx, tc, "list_events", raw); res.Code != tools.CodeOK {
				b.Fatal(res.TextOut())
			}
		}
		if naiveNs > 0 {
			b.ReportMetric(naiveNs/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "x-naive")
		}
	})
}

// BenchmarkAddRepeating is one add_event of a repeating event end to end
// (arguments, recurrence, overlap check, SQLite write with journal).
func BenchmarkAddRepeating(b *testing.B) {
	env, p, _, _ := benchStore(b)
	reg, tc := env.Reg, env.Context(p)
	// The first call builds the person's snapshot (as any first call
	// after another process's write does); later adds carry it over.
	if res, _ := reg.Call(context.Background(), tc, "list_events", []byte(`{}`)); res.Code != tools.CodeOK {
		b.Fatal(res.TextOut())
	}
	i := 0
	for b.Loop() {
		i++
		raw := fmt.Sprintf(`{"title":"Course %d","start":"2026-10-%02dT18:00","rrule":"FREQ=WEEKLY;BYDAY=MO,WE;COUNT=%d"}`, i, 5+i%20, 2+i%500)
		if res, _ := reg.Call(context.Background(), tc, "add_event", []byte(raw)); res.Code != tools.CodeOK {
			b.Fatal(res.TextOut())
		}
	}
}

// BenchmarkCreateRecurrence is the recurrence work of creating a repeating
// event, without SQLite: parse the rule, check the series, compute its
// stored bounds, expand the overlap-check horizon and the next occurrences
// shown in the answer. Every iteration has a (rule, DTSTART) pair not seen
// before, so recur's COUNT and month caches never help; count-1000 has
// COUNTs up to 1,000, count-20 up to 20.
func BenchmarkCreateRecurrence(b *testing.B) {
	zone := tz.MustZone("Europe/Paris")
	base := tz.Date{Year: 2026, Month: 10, Day: 5}
	for _, most := range []int{20, 1000} {
		b.Run(fmt.Sprintf("count-%d", most), func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				rule, err := recur.ParseRule(fmt.Sprintf("FREQ=WEEKLY;BYDAY=MO,WE;COUNT=%d", 2+i%(most-1)))
				if err != nil {
					b.Fatal(err)
				}
				e := &event{Zone: zone, Start: tz.TimeMoment(base.AddDays(i/(most-1)%20000).At(18, 0)), Rule: rule}
				if err := times(e, tz.Moment{}, false, time.Hour, 1); err != nil {
					b.Fatal(err)
				}
				if err := checkLists(e); err != nil {
					b.Fatal(err)
				}
				calendar.Bounds(e, nil)
				firstOccs(e, nil, zone, tools.Window{From: e.StartAt, To: e.StartAt.Add(overlapHorizon)}, overlapMax)
				upcoming(e, nil, zone, monday, nextCount)
			}
		})
	}
}

// BenchmarkListPage is one first page of list_events (30 occurrences) end
// to end over windows far larger than the page: a MINUTELY series over
// ten years listed over those ten years (its first page and one five
// years in), and a daily series listed from 0001-01-01 to 9999-12-31. Its
// B/op is the memory of one page.
func BenchmarkListPage(b *testing.B) {
	for _, c := range []struct{ name, add, list string }{
		{"minutely-10y", `{"title":"Tick","start":"2026-10-05T09:00","duration":1,"rrule":"FREQ=MINUTELY;UNTIL=20361005T070000Z"}`,
			`{"from":"2026-10-05","to":"2036-10-04"}`},
		{"daily-0001-9999", `{"title":"Walk","start":"2026-10-05T09:00","rrule":"FREQ=DAILY"}`,
			`{"from":"0001-01-01","to":"9999-12-31"}`},
		// A page five years in, by the cursor of the occurrence before it.
		{"minutely-10y-year5", `{"title":"Tick","start":"2026-10-05T09:00","duration":1,"rrule":"FREQ=MINUTELY;UNTIL=20361005T070000Z"}`,
			fmt.Sprintf(`{"from":"2026-10-05","to":"2036-10-04","cursor":%q}`,
				tools.SealCursor(listCursor(2629440, position{start: time.Date(2031, 10, 5, 7, 0, 0, 0, time.UTC), id: 1, key: "20311005T070000Z"}),
					listArgs{w: tools.Window{From: parisMidnight(2026, 10, 5), To: parisMidnight(2036, 10, 5)}}.scope(paris)...))},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := tooltest.Open(b, monday, Register)
			p := env.Person("alice", "Europe/Paris")
			if res, _ := env.Call(p, "add_event", c.add); res.Code != tools.CodeOK {
				b.Fatal(res.TextOut())
			}
			raw := []byte(c.list)
			tc := env.Context(p)
			b.ReportAllocs()
			for b.Loop() {
				if res, _ := env.Reg.Call(context.Background(), tc, "list_events", raw); res.Code != tools.CodeOK {
					b.Fatal(res.TextOut())
				}
			}
		})
	}
}

// paris is the zone of BenchmarkListPage's person.
var paris, _ = tz.LoadZone("Europe/Paris")

// parisMidnight is the start of a day in paris.
func parisMidnight(y int, m time.Month, d int) time.Time {
	loc, _ := time.LoadLocation("Europe/Paris")
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}
