package events

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/fields"
	"github.com/assistant-dev/assistant/tz"
)

// benchStore fills a store with 10,000 series of one person (issue 5,
// "Speed"): daily, weekly, monthly-by-setpos and yearly rules, starts over
// the last five years, a third ended by COUNT or UNTIL.
func benchStore(b *testing.B) (*store.Store, tools.Person, []*event) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), &store.Options{Now: func() time.Time { return monday }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	sp, err := s.AddPerson(ctx, "alice", "Europe/Paris")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []string{"FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", "FREQ=YEARLY", "FREQ=WEEKLY;INTERVAL=2", "FREQ=MONTHLY;BYDAY=2TU"}
	zones := []string{"Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC"}
	var evs []*event
	_, err = s.Write(ctx, sp.ID, "bench", func(tx *store.Tx) error {
		for i := range 10000 {
			rule := kinds[i%len(kinds)]
			switch i % 3 {
			case 1:
				rule += fmt.Sprintf(";COUNT=%d", 5+rng.IntN(300))
			case 2:
				rule += ";UNTIL=" + monday.AddDate(0, 0, rng.IntN(400)-300).Format("20060102T150405Z")
			}
			day := monday.AddDate(-5, 0, 0).Add(time.Duration(rng.IntN(5*365)) * 24 * time.Hour)
			start := tz.TimeMoment(tz.DateOf(day).At(8+rng.IntN(10), 15*rng.IntN(4)))
			e := &event{UID: newUID(), Title: fmt.Sprintf("Series %d", i), Zone: tz.MustZone(zones[rng.IntN(len(zones))]),
				Start: start, Rule: recur.MustRule(rule), remindBefore: "[]", remindAt: "[]", CreatedAt: monday}
			if err := times(e, tz.Moment{}, false, time.Duration(30*(1+rng.IntN(4)))*time.Minute, 1); err != nil {
				return err
			}
			if _, err := insertEvent(tx, e); err != nil {
				return err
			}
			evs = append(evs, e)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return s, tools.Person{ID: sp.ID, Name: "alice", Zone: tz.MustZone("Europe/Paris")}, evs
}

// BenchmarkListWeek lists one week over 10,000 series end to end (a
// list_events call through the Registry on a real SQLite file), after
// checking that the listing has exactly the occurrences the engine's full
// expansion from DTSTART gives.
func BenchmarkListWeek(b *testing.B) {
	s, p, evs := benchStore(b)
	reg := tools.NewRegistry()
	Register(reg)
	tc := &tools.ToolContext{}
	tools.Insert(tc, p)
	tools.Insert(tc, s)
	tools.Insert(tc, tools.Clock(func() time.Time { return monday }))
	raw := []byte(`{"from":"2026-10-05","to":"2026-10-11"}`)
	res, _ := reg.Call(context.Background(), tc, "list_events", raw)
	if res.Code != tools.CodeOK {
		b.Fatal(res.TextOut())
	}
	var got struct{ Total int }
	if err := json.Unmarshal(res.Data, &got); err != nil {
		b.Fatal(err)
	}
	w := fields.Window{From: p.Zone.StartOfDay(tz.Date{Year: 2026, Month: 10, Day: 5}), To: p.Zone.StartOfDay(tz.Date{Year: 2026, Month: 10, Day: 12})}
	want := 0
	for _, e := range evs {
		sr := e.series(p.Zone)
		for _, o := range sr.StartsBetween(e.StartAt, w.To) {
			if o.End.After(w.From) {
				want++
			}
		}
	}
	if got.Total != want || want == 0 {
		b.Fatalf("listing has %d occurrences, the full expansion %d", got.Total, want)
	}
	b.ReportMetric(float64(want), "occurrences")
	b.ResetTimer()
	for b.Loop() {
		if res, _ := reg.Call(context.Background(), tc, "list_events", raw); res.Code != tools.CodeOK {
			b.Fatal(res.TextOut())
		}
	}
}

// BenchmarkAddRepeating is one add_event of a repeating event end to end
// (arguments, recurrence, overlap check, SQLite write with journal).
func BenchmarkAddRepeating(b *testing.B) {
	s, p, _ := benchStore(b)
	reg := tools.NewRegistry()
	Register(reg)
	tc := &tools.ToolContext{}
	tools.Insert(tc, p)
	tools.Insert(tc, s)
	tools.Insert(tc, tools.Clock(func() time.Time { return monday }))
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
// event, without SQLite: parse a rule not seen before, check the series,
// compute its stored bounds, expand the overlap-check horizon and the next
// occurrences shown in the answer.
func BenchmarkCreateRecurrence(b *testing.B) {
	zone := tz.MustZone("Europe/Paris")
	i := 0
	for b.Loop() {
		i++
		rule, err := recur.ParseRule(fmt.Sprintf("FREQ=WEEKLY;BYDAY=MO,WE;COUNT=%d", 2+i%recur.MaxCount/2))
		if err != nil {
			b.Fatal(err)
		}
		e := &event{Zone: zone, Start: tz.TimeMoment(tz.Date{Year: 2026, Month: 10, Day: 5}.At(18, 0)), Rule: rule}
		if err := times(e, tz.Moment{}, false, time.Hour, 1); err != nil {
			b.Fatal(err)
		}
		if err := checkLists(e); err != nil {
			b.Fatal(err)
		}
		bounds(e, nil)
		expand(e, nil, zone, fields.Window{From: e.StartAt, To: e.StartAt.Add(overlapHorizon)})
		upcoming(e, nil, zone, monday, nextCount)
	}
}
