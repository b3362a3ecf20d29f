package events

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tz"
)

// sliceBusy is a busySource over a sorted list; skip drops nothing.
type sliceBusy []interval

func (s *sliceBusy) next() (interval, bool, error) {
	if len(*s) == 0 {
		return interval{}, false, nil
	}
	iv := (*s)[0]
	*s = (*s)[1:]
	return iv, true, nil
}

func (s *sliceBusy) skip(time.Time) {}

// TestFreeDifferential compares find_free_time's slots (the snapshot's
// busy index, patched from the journal, with the series that have
// overrides streamed) with the old full expansion as the oracle: every
// live series and override read afresh, each series expanded whole over
// the window (appendOccs), sorted, walked with no skipping. The series
// are weekly, daily, hourly and monthly, ended or not, with EXDATEs,
// timed or all-day (all-day ones are never busy), of lengths from none to
// a day, in zones with DST; the searches take random windows (some past
// busyMaxDays, which stream), durations, working hours, weekends, tasks
// and person zones; between rounds, writes here and through a second
// handle on the database (as another process) move, cancel, retitle and
// lengthen occurrences and change, add and delete series.
func TestFreeDifferential(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		tasks.Register(e.Reg)
		s2, err := store.Open(e.Ctx, e.Path, &store.Options{Now: func() time.Time { return e.Now }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s2.Close() })
		rng := rand.New(rand.NewPCG(21, 17))
		call := func(s *store.Store, name, raw string) (tools.ExecResult, bool) {
			tc := e.Context(e.alice)
			tools.Insert(tc, s)
			res, _ := e.Reg.Call(e.Ctx, tc, name, []byte(raw))
			return res, res.Code == tools.CodeOK
		}
		zones := []string{"Europe/Paris", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "UTC"}
		days := []string{"2026-09-28", "2026-10-01", "2026-10-04", "2026-10-05", "2026-10-06", "2026-10-20", "2026-10-25", "2026-11-01", "2026-11-13", "2026-06-15"}
		weekdays := []string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}
		addSeries := func(s *store.Store) {
			day := days[rng.IntN(len(days))]
			start := day
			if rng.IntN(6) > 0 {
				start += fmt.Sprintf("T%02d:%02d", []int{1, 7, 8, 9, 10, 12, 13, 16, 17, 18, 23}[rng.IntN(11)], 15*rng.IntN(4))
			}
			var rule string
			switch rng.IntN(6) {
			case 0:
				rule = "FREQ=WEEKLY;BYDAY=" + weekdays[rng.IntN(7)] + "," + weekdays[rng.IntN(7)]
			case 1:
				rule = fmt.Sprintf("FREQ=DAILY;INTERVAL=%d", 1+rng.IntN(3))
			case 2:
				rule = fmt.Sprintf("FREQ=MONTHLY;BYMONTHDAY=%d", 1+rng.IntN(28))
			case 3:
				rule = "FREQ=WEEKLY"
			case 4:
				rule = fmt.Sprintf("FREQ=HOURLY;INTERVAL=%d", 3+rng.IntN(20))
			}
			if rule != "" {
				switch rng.IntN(3) {
				case 0:
					rule += fmt.Sprintf(";COUNT=%d", 1+rng.IntN(40))
				case 1:
					rule += ";UNTIL=" + time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(90)).Format("20060102T150405Z")
				}
			}
			args := map[string]any{"title": fmt.Sprintf("S%d", rng.IntN(1000)), "start": start, "time_zone": zones[rng.IntN(len(zones))], "allow_duplicate": true}
			if rule != "" {
				args["rrule"] = rule
			}
			if strings.Contains(start, "T") {
				args["duration"] = []int{1, 15, 30, 60, 90, 150, 600, 1440}[rng.IntN(8)]
			} else if rng.IntN(3) == 0 {
				d, _ := tz.ParseDate(day)
				args["end"] = d.AddDays(1 + rng.IntN(3)).String()
			}
			if rule != "" && rng.IntN(3) == 0 {
				d, _ := tz.ParseDate(day)
				ex := d.AddDays(7 * (1 + rng.IntN(4))).String()
				if i := strings.Index(start, "T"); i > 0 {
					ex += start[i:]
				}
				args["exdates"] = []string{ex}
			}
			raw, _ := json.Marshal(args)
			call(s, "add_event", string(raw)) // a refused one (a rule that never occurs) is left out
		}
		for range 25 {
			addSeries(e.Store)
		}
		for i := range 6 {
			call(e.Store, "add_task", fmt.Sprintf(`{"title":"T%d","due":"2026-10-%02dT%02d:%02d"}`, i, 5+rng.IntN(20), 8+rng.IntN(10), 15*rng.IntN(4)))
		}
		oracle := func(tx *store.Tx, zone tz.Zone, w tools.Window) *sliceBusy {
			evs, err := tx.LiveEvents()
			if err != nil {
				t.Fatal(err)
			}
			all, err := tx.AllOverrides()
			if err != nil {
				t.Fatal(err)
			}
			var list []occ
			for _, sp := range evs {
				ovs := map[string]*override{}
				for _, o := range all[sp.Event.ID] {
					ovs[o.Key] = o
				}
				list = appendOccs(list, sp.Event, ovs, zone, w)
			}
			sortOccs(list)
			var out sliceBusy
			for _, o := range list {
				if !o.AllDay {
					out = append(out, interval{o.Start, o.End})
				}
			}
			return &out
		}
		indexedBefore, patchedBefore := 0, busyPatched.Load()
		defer func(n int) { busyMaxPatch = n }(busyMaxPatch)
		type search struct {
			zone                   tz.Zone
			w                      tools.Window
			need, dayStart, dayEnd int
			weekends, withTasks    bool
		}
		randomSearch := func() search {
			zone := tz.MustZone(zones[rng.IntN(len(zones))])
			if rng.IntN(2) == 0 {
				zone = e.alice.Zone
			}
			from := zone.StartOfDay(tz.DateOf(monday).AddDays(rng.IntN(30) - 3))
			if rng.IntN(3) == 0 {
				from = from.Add(time.Duration(rng.IntN(24*4)) * 15 * time.Minute)
			}
			span := []int{1, 2, 7, 7, 7, 14, 31, 40}[rng.IntN(8)]
			to := zone.StartOfDay(zone.Today(from).AddDays(span))
			dayStart := []int{0, 7 * 60, 9 * 60, 9*60 + 30}[rng.IntN(4)]
			dayEnd := []int{17 * 60, 18 * 60, 20 * 60, 24 * 60}[rng.IntN(4)]
			return search{zone, tools.Window{From: from, To: to}, []int{5, 15, 30, 60, 120}[rng.IntN(5)], dayStart, dayEnd, rng.IntN(2) == 0, rng.IntN(2) == 0}
		}
		// Some searches come back every round, so their indexes are
		// patched again and again (maxBusy of them are kept); others are
		// new.
		var kept []search
		for range 2 {
			kept = append(kept, randomSearch())
		}
		defer func(n, m int) { busyMaxPatch, busyMaxEntries = n, m }(busyMaxPatch, busyMaxEntries)
		for round := range 40 {
			// Patched indexes made anew late, soon, or at once; indexes
			// too large to keep (find_free_time streams) in some rounds.
			busyMaxPatch = []int{256, 3, 0, 256}[round/10]
			busyMaxEntries = 1 << 18
			if round%4 == 3 {
				busyMaxEntries = 60
			}
			searches := append(slices.Clone(kept), randomSearch())
			check := func(when string) {
				for i, sc := range searches {
					days, idx := busyDays(sc.zone, sc.w)
					_ = days
					if idx {
						indexedBefore++
					}
					err := e.Store.Read(e.Ctx, e.alice.ID, func(tx *store.Tx) error {
						free, total, _, err := freeSlots(context.Background(), tx, sc.zone, sc.w, sc.need, sc.dayStart, sc.dayEnd, sc.weekends, sc.withTasks)
						if err != nil {
							return err
						}
						var dues []time.Time
						if sc.withTasks {
							if dues, err = taskDues(tx, sc.w.From, sc.w.To.Add(taskBusy)); err != nil {
								return err
							}
							slices.SortFunc(dues, time.Time.Compare)
						}
						wantFree, wantTotal, _, err := walkFree(context.Background(), sc.zone, sc.w, sc.need, sc.dayStart, sc.dayEnd, sc.weekends, oracle(tx, sc.zone, sc.w), dues)
						if err != nil {
							return err
						}
						if total != wantTotal || !slices.EqualFunc(free, wantFree, func(a, b interval) bool { return a.from.Equal(b.from) && a.to.Equal(b.to) }) {
							t.Fatalf("round %d %s search %d (%+v in %s): %d slots %v, the oracle has %d %v", round, when, i, sc.w, sc.zone.Name(), total, free, wantTotal, wantFree)
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			check("before the writes")
			checkIndexes(t, e.Store, e.alice.ID)
			all := make([]string, 0)
			err := e.Store.Read(e.Ctx, e.alice.ID, func(tx *store.Tx) error {
				list, err := windowOccs(tx, e.alice.Zone, tools.Window{From: monday.AddDate(0, 0, -10), To: monday.AddDate(0, 0, 60)}, 0)
				for i := range list {
					all = append(all, list[i].id())
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			for range 1 + rng.IntN(3) {
				s := e.Store
				if rng.IntN(2) == 0 {
					s = s2
				}
				if len(all) == 0 || rng.IntN(6) == 0 {
					addSeries(s)
					continue
				}
				id := all[rng.IntN(len(all))]
				series := id[:strings.Index(id, "@")]
				var raw string
				switch rng.IntN(7) {
				case 0:
					raw = fmt.Sprintf(`update_event {"id":%q,"start":"2026-10-%02dT%02d:15"}`, id, 1+rng.IntN(28), rng.IntN(24))
				case 1:
					raw = fmt.Sprintf(`delete_event {"id":%q}`, id)
				case 2:
					raw = fmt.Sprintf(`update_event {"id":%q,"title":"moved","duration":%d}`, id, 10+rng.IntN(300))
				case 3:
					raw = fmt.Sprintf(`update_event {"id":%q,"rrule":"FREQ=DAILY;COUNT=%d"}`, series, 1+rng.IntN(30))
				case 4:
					raw = fmt.Sprintf(`delete_event {"id":%q}`, series)
				case 5:
					raw = fmt.Sprintf(`delete_event {"id":%q,"scope":"following"}`, id)
				case 6:
					raw = fmt.Sprintf(`update_event {"id":%q,"duration":%d}`, series, 5+rng.IntN(200))
				}
				name, args, _ := strings.Cut(raw, " ")
				call(s, name, args) // refusals change nothing
			}
			check("after the writes")
			checkIndexes(t, e.Store, e.alice.ID)
		}
		if indexedBefore == 0 {
			t.Fatal("no search was served by a busy index")
		}
		if n := busyPatched.Load() - patchedBefore; n < 10 {
			t.Fatalf("only %d busy indexes were carried over by a patch", n)
		}
	})
}

// checkIndexes compares every busy index of owner's cached snapshot (base
// less gone, and add) with one made anew from the snapshot's rows (when
// that one is not too large, busyMaxEntries having been lowered since).
func checkIndexes(t *testing.T, s *store.Store, owner int64) {
	t.Helper()
	v, ok := snapshots.Load(owner)
	if !ok {
		return
	}
	snap := v.(*snapshot)
	snap.mu.Lock()
	busy := maps.Clone(snap.busy)
	snap.mu.Unlock()
	for k, bl := range busy {
		if bl.over {
			continue
		}
		var got []busyEntry
		for _, en := range bl.base {
			if _, found := slices.BinarySearch(bl.gone, en.id); !found {
				got = append(got, en)
			}
		}
		got = append(got, bl.add...)
		slices.SortFunc(got, compareBusy)
		fresh := &snapshot{rows: snap.rows}
		want, ok, err := fresh.busyIndex(context.Background(), bl.zone, tools.Window{From: time.Unix(k.from, 0), To: time.Unix(k.to, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if ok && !slices.Equal(got, want.base) {
			t.Fatalf("busy index %+v: %d entries after patches, %d made anew", k, len(got), len(want.base))
		}
	}
}
