package events

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// TestListDifferential pages through list_events (the merge in order of
// each series' first start, the snapshot patched from the journal) over
// random series and random windows and limits, and compares every page
// with the old path as the oracle: every live series and override read
// afresh, each series expanded whole over the window (appendOccs) and
// sorted. The series are weekly, daily and monthly, ended by COUNT or
// UNTIL or not, with EXDATEs, all-day or timed, in zones with DST (some
// starting in its gap or its repeated hour); between rounds, writes here
// and through a second handle on the database (as another process)
// shift, cancel and move occurrences, change, add and delete series. A
// total, when an answer gives one, must be the oracle's count.
func TestListDifferential(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		s2, err := store.Open(e.Ctx, e.Path, &store.Options{Now: func() time.Time { return e.Now }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s2.Close() })
		rng := rand.New(rand.NewPCG(21, 13))
		call := func(s *store.Store, name, raw string) (tools.ExecResult, bool) {
			tc := e.Context(e.alice)
			tools.Insert(tc, s)
			res, _ := e.Reg.Call(e.Ctx, tc, name, []byte(raw))
			return res, res.Code == tools.CodeOK
		}
		zones := []string{"Europe/Paris", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "UTC"}
		// Days near DST changes in those zones, and ordinary ones.
		days := []string{"2026-03-08", "2026-03-29", "2026-04-05", "2026-10-04", "2026-10-25", "2026-11-01", "2026-06-15", "2026-09-30", "2026-12-31", "2027-01-10"}
		weekdays := []string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}
		addSeries := func(s *store.Store) {
			day := days[rng.IntN(len(days))]
			start := day
			if rng.IntN(5) > 0 {
				h := []int{1, 2, 3, 9, 12, 18, 23}[rng.IntN(7)]
				start += fmt.Sprintf("T%02d:%02d", h, 30*rng.IntN(2))
			}
			var rule string
			switch rng.IntN(4) {
			case 0:
				rule = "FREQ=WEEKLY;BYDAY=" + weekdays[rng.IntN(7)] + "," + weekdays[rng.IntN(7)]
			case 1:
				rule = fmt.Sprintf("FREQ=DAILY;INTERVAL=%d", 1+rng.IntN(3))
			case 2:
				rule = fmt.Sprintf("FREQ=MONTHLY;BYMONTHDAY=%d", 1+rng.IntN(28))
			case 3:
				rule = "FREQ=WEEKLY"
			}
			switch rng.IntN(3) {
			case 0:
				rule += fmt.Sprintf(";COUNT=%d", 1+rng.IntN(40))
			case 1:
				rule += ";UNTIL=" + time.Date(2026, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, time.UTC).AddDate(rng.IntN(2), 0, 0).Format("20060102T150405Z")
			}
			args := map[string]any{"title": fmt.Sprintf("S%d", rng.IntN(1000)), "start": start, "rrule": rule, "time_zone": zones[rng.IntN(len(zones))], "allow_duplicate": true}
			if strings.Contains(start, "T") {
				args["duration"] = []int{1, 30, 60, 150, 1500}[rng.IntN(5)]
			} else if rng.IntN(3) == 0 {
				d, _ := tz.ParseDate(day)
				args["end"] = d.AddDays(1 + rng.IntN(3)).String()
			}
			if rng.IntN(3) == 0 {
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
		for range 40 {
			addSeries(e.Store)
		}
		person := e.alice.Zone
		oracle := func(w tools.Window) []string {
			var list []occ
			err := e.Store.Read(e.Ctx, e.alice.ID, func(tx *store.Tx) error {
				evs, err := tx.LiveEvents()
				if err != nil {
					return err
				}
				all, err := tx.AllOverrides()
				if err != nil {
					return err
				}
				for _, sp := range evs {
					ovs := map[string]*override{}
					for _, o := range all[sp.Event.ID] {
						ovs[o.Key] = o
					}
					list = appendOccs(list, sp.Event, ovs, person, w)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sortOccs(list)
			ids := make([]string, len(list))
			for i := range list {
				ids[i] = list[i].id()
			}
			return ids
		}
		patchedBefore := patched.Load()
		for round := range 30 {
			from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(700))
			span := []int{1, 7, 7, 31, 90, 400}[rng.IntN(6)]
			limit := 1 + rng.IntN(40)
			if rng.IntN(3) == 0 {
				limit = 40
			}
			args := fmt.Sprintf(`"from":"%s","to":"%s","limit":%d`, from.Format("2006-01-02"), from.AddDate(0, 0, span-1).Format("2006-01-02"), limit)
			check := func(when string) {
				var (
					got  []string
					want []string
				)
				for cursor, page := "", 0; ; page++ {
					raw := "{" + args
					if cursor != "" {
						raw += fmt.Sprintf(`,"cursor":%q`, cursor)
					}
					res, ok := call(e.Store, "list_events", raw+"}")
					if !ok {
						t.Fatalf("round %d %s: list_events %s}: %s", round, when, raw, res.TextOut())
					}
					var data struct {
						Events     []occData
						NextCursor string `json:"next_cursor"`
						Total      *int   `json:"total"`
						From, To   string
					}
					if err := json.Unmarshal(res.Data, &data); err != nil {
						t.Fatal(err)
					}
					if want == nil {
						wf, _ := time.Parse(time.RFC3339, data.From)
						wt, _ := time.Parse(time.RFC3339, data.To)
						want = oracle(tools.Window{From: wf, To: wt})
					}
					for _, o := range data.Events {
						got = append(got, o.ID)
					}
					if n := len(got); n > len(want) || !slices.Equal(got, want[:n]) {
						t.Fatalf("round %d %s page %d (%s): listing differs from the oracle:\n got %v\nwant %v", round, when, page, raw, got, want[:min(len(want), n+3)])
					}
					if data.Total != nil && *data.Total != len(want) {
						t.Fatalf("round %d %s page %d (%s): total %d, the oracle has %d", round, when, page, raw, *data.Total, len(want))
					}
					if cursor = data.NextCursor; cursor == "" {
						break
					}
					if page > 2000 {
						t.Fatalf("round %d %s: more than 2000 pages", round, when)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("round %d %s (%s): %d occurrences listed, the oracle has %d", round, when, args, len(got), len(want))
				}
			}
			check("before the writes")
			// Writes, here or elsewhere, on occurrences the oracle shows.
			all := oracle(tools.Window{From: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)})
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
				switch rng.IntN(6) {
				case 0:
					raw = fmt.Sprintf(`update_event {"id":%q,"start":"2026-%02d-%02dT%02d:15"}`, id, 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24))
				case 1:
					raw = fmt.Sprintf(`delete_event {"id":%q}`, id)
				case 2:
					raw = fmt.Sprintf(`update_event {"id":%q,"title":"moved","duration":%d}`, id, 10+rng.IntN(300))
				case 3:
					raw = fmt.Sprintf(`update_event {"id":%q,"rrule":"FREQ=WEEKLY;COUNT=%d"}`, series, 1+rng.IntN(30))
				case 4:
					raw = fmt.Sprintf(`delete_event {"id":%q}`, series)
				case 5:
					raw = fmt.Sprintf(`delete_event {"id":%q,"scope":"following"}`, id)
				}
				name, args, _ := strings.Cut(raw, " ")
				call(s, name, args) // refusals (a rule that would not occur …) change nothing
			}
			check("after the writes")
		}
		if n := patched.Load() - patchedBefore; n < 10 {
			t.Fatalf("only %d listings were served by a patched snapshot", n)
		}
	})
}
