package remind

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// hangs is a notifier whose send of a reminder titled "Hang" takes
// ExecTimeout (a command that never answers, killed at its timeout) and
// whose other sends are immediate; it notes the time each send began.
type hangs struct {
	now     func() time.Time
	mu      sync.Mutex
	started map[string]string // title → RFC 3339 in Paris
}

func (h *hangs) Name() string { return "hangs" }

func (h *hangs) Notify(_ context.Context, m *Message, _ []byte) error {
	h.mu.Lock()
	h.started[m.Title] = tz.RFC3339(h.now(), tz.MustZone(paris))
	h.mu.Unlock()
	if m.Title == "Hang" {
		time.Sleep(ExecTimeout)
		return fmt.Errorf("the command ran longer than %s", ExecTimeout)
	}
	return nil
}

// One person's notifier that hangs until its timeout holds up nobody
// else's reminders: in a pass over more people due at once than a send
// batch holds, the others go out at their time (the first batch) or a
// second later (sendGather, the next), not after the hanging send's 30 s
// (the clock is synctest's fake time, so the instants are exact), and are
// recorded sent; the hanging one is recorded as a failed attempt, to retry.
func TestHangingNotifierHoldsUpNobodyElse(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		loc := location(t)
		synctest.Test(t, func(t *testing.T) {
			e, clock := liveEnv(t, loc, "2026-10-05T08:44", 0)
			e.call(e.ada, "add_task", `{"title":"Hang","due":"2026-10-05T09:00","remind_before":[15]}`)
			want := []string{}
			for i := range sendBatch + 8 {
				p := e.person(fmt.Sprintf("p%d", i), paris)
				title := fmt.Sprintf("Call %d", i)
				e.call(p, "add_task", fmt.Sprintf(`{"title":%q,"due":"2026-10-05T09:00","remind_before":[15]}`, title))
				want = append(want, title)
			}
			n := &hangs{now: clock, started: map[string]string{}}
			eng := e.engine(Options{Notifiers: []Notifier{n}})
			sleepUntil(t, clock, "2026-10-05T08:45")
			r := e.pass(eng)
			if r.Sent != len(want) || r.Failed != 1 {
				t.Errorf("pass: %+v, want %d sent and 1 failed", r, len(want))
			}
			for _, title := range want {
				if got := n.started[title]; got != "2026-10-05T08:45:00+02:00" && got != "2026-10-05T08:45:01+02:00" {
					t.Errorf("%s went out at %q, want 08:45:00 or, in the next batch, 08:45:01 (the hanging send held it up)", title, got)
				}
			}
			status := map[string]int{}
			for _, row := range e.rows() {
				status[row.Status]++
			}
			if status["sent"] != len(want) || status["pending"] != 1 {
				t.Errorf("rows by status %v, want %d sent and the hanging one pending (to retry)", status, len(want))
			}
		})
	})
}

// BenchmarkSendManyPeople is one pass sending one due reminder to each of
// 64 people, through a notifier that answers at once or takes 20 ms a
// send (a webhook across a network), on each engine: deliveries/s shows
// whether the sends of different people wait for one another. Each
// iteration writes the next hour's tasks and indexes them outside the
// timer.
func BenchmarkSendManyPeople(b *testing.B) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run(engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			for _, d := range []time.Duration{0, 20 * time.Millisecond} {
				b.Run(fmt.Sprintf("send=%s", d), func(b *testing.B) {
					e := newEnv(b, civilAt(b, "Europe/Paris", "2026-10-05T08:00"))
					const n = 64
					var people []tools.Person
					for i := range n {
						people = append(people, e.person(fmt.Sprintf("p%d", i), paris))
					}
					eng := e.engine(Options{Notifiers: []Notifier{slowNotifier{d}}})
					sent := 0
					for b.Loop() {
						b.StopTimer()
						due := e.now.Add(time.Hour).In(tz.MustZone(paris).Location()).Format("2006-01-02T15:04")
						for _, p := range people {
							e.call(p, "add_task", fmt.Sprintf(`{"title":"Task","due":%q,"remind_before":[0]}`, due))
						}
						e.pass(eng)
						e.now = e.now.Add(time.Hour + time.Minute)
						b.StartTimer()
						sent += e.pass(eng).Sent
					}
					if sent != n*b.N {
						b.Fatalf("%d sent, want %d", sent, n*b.N)
					}
					b.ReportMetric(float64(sent)/b.Elapsed().Seconds(), "deliveries/s")
				})
			}
		})
	}
}
