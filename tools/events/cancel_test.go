package events

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// countdown is a context that is cancelled once its Err has been asked
// for n times, so a test can cancel a call in the middle of its work and
// count how often the work looked again before it stopped.
type countdown struct {
	context.Context
	n, asked atomic.Int64
}

func newCountdown(n int64) *countdown {
	c := &countdown{Context: context.Background()}
	c.n.Store(n)
	return c
}

func (c *countdown) Err() error {
	if c.asked.Add(1) > c.n.Load() {
		return context.Canceled
	}
	return nil
}

// find_free_time over a thousand years searches 92 days and says so.
func TestFreeTimeWindowIsBounded(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Tick","start":"2026-10-05T09:00","duration":1,"rrule":"FREQ=MINUTELY;INTERVAL=30"}`)
		res := e.ok(e.alice, "find_free_time", `{"from":"2026-10-05","to":"3026-10-05","duration":15}`)
		if !strings.Contains(res.Out, "find_free_time looks at most 92 days ahead, so the search stopped at the end of Mon 2027-01-04") {
			t.Errorf("no sentence on the cut:\n%s", res.Out)
		}
		if d := data(t, res); d["total"] != float64(66*18) {
			t.Errorf("total %v, want %d (18 slots a weekday over the 66 weekdays of 92 days)", d["total"], 66*18)
		}
	})
}

// A cancelled find_free_time or list_events stops its loops at once: the
// work after the cancel is a few more looks at ctx, not the window's days.
func TestCancelledCallsStop(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Tick","start":"2026-10-05T09:00","duration":1,"rrule":"FREQ=MINUTELY"}`)
		paris := tz.MustZone("Europe/Paris")
		w := tools.Window{From: monday, To: paris.StartOfDay(tz.Date{Year: 2027, Month: 1, Day: 4})}
		for _, c := range []struct {
			name string
			run  func(ctx context.Context, tx *store.Tx) (int, error)
		}{
			{"find_free_time", func(ctx context.Context, tx *store.Tx) (int, error) {
				_, _, days, err := freeSlots(ctx, tx, paris, w, 15, 9*60, 18*60, true, true)
				return days, err
			}},
			{"list_events", func(ctx context.Context, tx *store.Tx) (int, error) {
				pg, err := listPage(ctx, tx, paris, w, nil, "", 40)
				return pg.scans, err
			}},
		} {
			for _, after := range []int64{0, 2} {
				ctx := newCountdown(after)
				var (
					work int
					err  error
				)
				if rerr := e.Store.Read(context.Background(), e.alice.ID, func(tx *store.Tx) error {
					work, err = c.run(ctx, tx)
					return nil
				}); rerr != nil {
					t.Fatal(rerr)
				}
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s cancelled after %d looks: err %v, want context.Canceled", c.name, after, err)
				}
				if asked := ctx.asked.Load(); asked > after+1 || work > int(after)+1 {
					t.Errorf("%s cancelled after %d looks: looked %d times and did %d steps", c.name, after, asked, work)
				}
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, _ := e.Reg.Call(ctx, e.Context(e.alice), "find_free_time", []byte(`{"from":"2026-10-05","to":"3026-10-05"}`))
		if res.OK() || !strings.Contains(res.Err, "cancelled") || strings.Count(res.Err, ". ") > 0 {
			t.Errorf("cancelled call: code %d %q, want one sentence saying it was cancelled", res.Code, res.Err)
		}
		late, stop := context.WithDeadline(context.Background(), monday)
		defer stop()
		res, _ = e.Reg.Call(late, e.Context(e.alice), "list_events", []byte(`{"from":"2026-10-05","to":"3026-10-05"}`))
		if res.OK() || !strings.Contains(res.Err, "ran out of the time") || strings.Count(res.Err, ". ") > 0 {
			t.Errorf("call past its deadline: code %d %q, want one sentence saying it ran out of time", res.Code, res.Err)
		}
	})
}
