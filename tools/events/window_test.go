package events

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// allocated returns the bytes f allocates (the tests of this file do not
// run in parallel, so little else allocates meanwhile).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A page of list_events costs what its occurrences cost, not what the
// window holds: a MINUTELY series over a month (43,200 occurrences), and
// a daily series and a MINUTELY one over ten years in the window from
// 0001-01-01 to 9999-12-31, each give a full first page within a few MB.
func TestListPageWorkFollowsPageSize(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Tick","start":"2026-10-05T09:00","duration":1,"rrule":"FREQ=MINUTELY;UNTIL=20361005T070000Z"}`)
		e.ok(e.bob, "add_event", `{"title":"Walk","start":"2026-10-05T07:00","rrule":"FREQ=DAILY"}`)
		for _, c := range []struct {
			who    tools.Person
			window string
			first  string
		}{
			{e.alice, `"from":"2026-10-05","to":"2026-11-04"`, "e1@20261005T070000Z"},
			{e.alice, `"from":"0001-01-01","to":"9999-12-31"`, "e1@20261005T070000Z"},
			{e.bob, `"from":"0001-01-01","to":"9999-12-31"`, "e2@20261005T110000Z"},
		} {
			var res tools.ExecResult
			n := allocated(func() { res = e.ok(c.who, "list_events", `{`+c.window+`,"limit":30}`) })
			ids, _ := occurrences(t, res)
			if len(ids) != 30 || ids[0] != c.first {
				t.Errorf("%s: %d occurrences from %v, want 30 from %s", c.window, len(ids), ids[:min(1, len(ids))], c.first)
			}
			if n > 8<<20 {
				t.Errorf("%s: one page allocated %d MB, want under 8", c.window, n>>20)
			}
			if next, _ := data(t, res)["next_cursor"].(string); next == "" {
				t.Errorf("%s: no next_cursor:\n%s", c.window, res.Out)
			}
		}
	})
}

// The same pages in the package: a page of the MINUTELY series over the
// whole calendar needs a handful of rule scans, not one per day; an
// already-cancelled context stops before the first.
func TestListPageScansAreBounded(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Tick","start":"2026-10-05T09:00","duration":1,"rrule":"FREQ=MINUTELY;UNTIL=20361005T070000Z"}`)
		e.ok(e.alice, "add_event", `{"title":"Walk","start":"2026-10-05T07:00","rrule":"FREQ=DAILY"}`)
		e.ok(e.alice, "add_event", `{"title":"Odd","start":"2026-10-05T07:00","rrule":"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29"}`)
		paris := tz.MustZone("Europe/Paris")
		w := tools.Window{From: paris.StartOfDay(tz.Date{Year: 1, Month: 1, Day: 1}), To: paris.StartOfDay(tz.Date{Year: 9999, Month: 12, Day: 31})}
		read := func(ctx context.Context) (listing, error) {
			var pg listing
			err := e.Store.Read(context.Background(), e.alice.ID, func(tx *store.Tx) error {
				var err error
				pg, err = listPage(ctx, tx, paris, w, nil, "", 40)
				return err
			})
			return pg, err
		}
		pg, err := read(context.Background())
		if err != nil || len(pg.page) != 40 {
			t.Fatalf("page: %d occurrences, %v", len(pg.page), err)
		}
		if pg.scans > 60 {
			t.Errorf("one page made %d rule scans, want at most 60", pg.scans)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		pg, err = read(ctx)
		if !errors.Is(err, context.Canceled) || pg.scans > 0 {
			t.Errorf("cancelled: %d scans, %v; want none and context.Canceled", pg.scans, err)
		}
		res, _ := e.Reg.Call(ctx, e.Context(e.alice), "list_events", []byte(`{"from":"0001-01-01","to":"9999-12-31"}`))
		if res.OK() || strings.Count(res.Err, ". ") > 0 || !strings.Contains(res.Err, "cancelled") {
			t.Errorf("cancelled call: code %d %q, want one sentence saying it was cancelled", res.Code, res.Err)
		}
	})
}

// A window longer than one page looks at is served in stretches: each
// page stops at most 366 days past where it starts, says so and gives a
// cursor; following the cursors gives every occurrence once, in order,
// with changed, moved and deleted occurrences as they are, and the same
// as a listing of each year on its own.
func TestListLongWindowStretches(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Rent","start":"2026-10-05T09:00","rrule":"FREQ=MONTHLY"}`)
		e.ok(e.alice, "add_event", `{"title":"Far","start":"2031-06-01T10:00"}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20261105T080000Z","start":"2026-11-20T18:00"}`)
		e.ok(e.alice, "delete_event", `{"id":"e1@20261205T080000Z"}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20270105T080000Z","title":"Rent (late)"}`)
		var want []string
		for y := 2026; y <= 2031; y++ {
			res := e.ok(e.alice, "list_events", fmt.Sprintf(`{"from":"%d-01-01","to":"%d-12-31","limit":40}`, y, y))
			ids, _ := occurrences(t, res)
			want = append(want, ids...)
		}
		var got []string
		cursor, cuts := "", 0
		for pages := 0; ; pages++ {
			if pages > 40 {
				t.Fatalf("cursor %q never ends", cursor)
			}
			raw := `{"from":"2026-01-01","to":"2031-12-31","limit":40`
			if cursor != "" {
				raw += fmt.Sprintf(`,"cursor":%q`, cursor)
			}
			res := e.ok(e.alice, "list_events", raw+`}`)
			ids, _ := occurrences(t, res)
			got = append(got, ids...)
			d := data(t, res)
			if strings.Contains(res.Out, "looks at most 366 days ahead") {
				cuts++
				if d["searched_to"] == nil || d["total"] != nil {
					t.Errorf("a cut page gives searched_to %v and total %v; want a time and no total", d["searched_to"], d["total"])
				}
			}
			cursor, _ = d["next_cursor"].(string)
			if cursor == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("pages joined:\n%v\nwant\n%v", got, want)
		}
		if cuts == 0 || len(want) != 63 {
			t.Errorf("%d cut pages and %d occurrences; want some cuts and 63 (62 months and Far)", cuts, len(want))
		}
		if !slices.Contains(got, "e1@20261105T080000Z") || slices.Contains(got, "e1@20261205T080000Z") {
			t.Errorf("moved or deleted occurrence wrong: %v", got[:4])
		}
	})
}

// A query over a long window reads only the series and overrides that can
// match: a changed title of one occurrence is found far out.
func TestListQueryFindsChangedOccurrence(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Standup","start":"2026-10-05T09:30","duration":15,"rrule":"FREQ=DAILY"}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20270310T083000Z","title":"Demo day"}`)
		res := e.ok(e.alice, "list_events", `{"from":"2026-10-05","to":"2027-10-01","query":"demo"}`)
		ids, _ := occurrences(t, res)
		if !slices.Equal(ids, []string{"e1@20270310T083000Z"}) || data(t, res)["total"] != float64(1) {
			t.Errorf("query demo: %v\n%s", ids, res.Out)
		}
		res = e.ok(e.alice, "list_events", `{"from":"2026-10-05","to":"2026-10-11","query":"standup"}`)
		if ids, _ := occurrences(t, res); len(ids) != 7 {
			t.Errorf("query standup: %v", ids)
		}
	})
}

// add_event and get_event of a MINUTELY series expand only the
// occurrences they show or check, not weeks of them.
func TestOneEventAnswersExpandWhatTheyShow(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		var add, get tools.ExecResult
		n := allocated(func() {
			add = e.ok(e.alice, "add_event", `{"title":"Tick","start":"2026-10-05T09:00","duration":1,"rrule":"FREQ=MINUTELY"}`)
		})
		m := allocated(func() { get = e.ok(e.alice, "get_event", `{"id":"e1"}`) })
		if n > 8<<20 || m > 8<<20 {
			t.Errorf("add_event allocated %d MB and get_event %d MB, want under 8 each", n>>20, m>>20)
		}
		for _, res := range []tools.ExecResult{add, get} {
			if !strings.Contains(res.Out, "e1@20261005T070100Z Mon 2026-10-05 09:01") {
				t.Errorf("next occurrences missing:\n%s", res.Out)
			}
		}
	})
}
