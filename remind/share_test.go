package remind

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// gate is a notifier shared by several engines that holds every send
// until want sends are in flight at once (or until a deadline that only
// bounds the wait, when it fails them): it proves that the engines send
// side by side rather than one behind another.
type gate struct {
	want     int
	mu       sync.Mutex
	inFlight int
	open     chan struct{}
	opened   bool
	ids      map[string]int
}

func newGate(want int) *gate {
	return &gate{want: want, open: make(chan struct{}), ids: map[string]int{}}
}

func (g *gate) Name() string { return "gate" }

func (g *gate) Notify(_ context.Context, m *Message, _ []byte) error {
	g.mu.Lock()
	g.inFlight++
	if g.inFlight >= g.want && !g.opened {
		g.opened = true
		close(g.open)
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	}()
	select {
	case <-g.open:
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("fewer than %d sends were ever in flight at once", g.want)
	}
	g.mu.Lock()
	g.ids[m.DeliveryID]++
	g.mu.Unlock()
	return nil
}

// Three engines on three handles of one database (as three processes, on
// three machines with PostgreSQL) share the due deliveries of ONE person,
// the case a per-person write lock could serialise: the claims are short
// transactions of their own and the sends run outside them, so three
// sends are in flight at once, and every delivery goes out exactly once.
func TestEnginesShareOnePersonsDeliveries(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		const n = 9
		for i := range n {
			e.call(e.ada, "add_task", fmt.Sprintf(`{"title":"Task %d","due":"2026-10-05T09:%02d","remind_before":[0]}`, i, i))
		}
		e.pass(e.engine(Options{})) // the index, before anything is due
		e.at("Europe/Paris", "2026-10-05T09:30")
		g := newGate(3)
		var engines []*Engine
		for range 3 {
			engines = append(engines, e.engine(Options{Store: e.open(), Notifiers: []Notifier{g}}))
		}
		var wg sync.WaitGroup
		results := make([]Result, len(engines))
		for i, eng := range engines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := eng.Pass(context.Background())
				if err != nil {
					t.Error(err)
				}
				results[i] = r
			}()
		}
		wg.Wait()
		if !g.opened {
			t.Fatal("three engines never had a send in flight at once")
		}
		sent := 0
		for _, r := range results {
			sent += r.Sent
			if r.Failed != 0 {
				t.Errorf("a pass had failures: %+v", r)
			}
		}
		if sent != n || len(g.ids) != n {
			t.Errorf("%d sent, %d distinct ids, want %d of each", sent, len(g.ids), n)
		}
		for id, c := range g.ids {
			if c != 1 {
				t.Errorf("%s delivered %d times", id, c)
			}
		}
	})
}

// slowNotifier takes a fixed time per send, as a webhook across a network
// does.
type slowNotifier struct{ d time.Duration }

func (s slowNotifier) Name() string { return "slow" }

func (s slowNotifier) Notify(context.Context, *Message, []byte) error {
	time.Sleep(s.d)
	return nil
}

// BenchmarkSharedSends is how fast 1 or 3 engines, each on its own handle
// (as processes on machines of their own), send 30 due reminders of one
// person through a notifier that takes 20 ms a send, on each engine of
// the store: the deliveries/s metric shows whether the senders share the
// work or queue behind one another's claims. Each iteration writes the
// next hour's 30 tasks and indexes them outside the timer.
func BenchmarkSharedSends(b *testing.B) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run(engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			for _, k := range []int{1, 3} {
				b.Run(fmt.Sprintf("engines=%d", k), func(b *testing.B) {
					e := newEnv(b, civilAt(b, "Europe/Paris", "2026-10-05T08:00"))
					var engines []*Engine
					for range k {
						engines = append(engines, e.engine(Options{Store: e.open(), Notifiers: []Notifier{slowNotifier{20 * time.Millisecond}}}))
					}
					const n = 30
					sent := 0
					b.ResetTimer()
					for b.Loop() {
						b.StopTimer()
						due := e.now.Add(time.Hour).In(tz.MustZone(paris).Location()).Format("2006-01-02T15:04")
						for i := range n {
							e.call(e.ada, "add_task", fmt.Sprintf(`{"title":"Task %d","due":%q,"remind_before":[0]}`, i, due))
						}
						e.pass(engines[0])
						e.now = e.now.Add(time.Hour + time.Minute)
						b.StartTimer()
						var wg sync.WaitGroup
						counts := make([]int, k)
						for i, eng := range engines {
							wg.Add(1)
							go func() {
								defer wg.Done()
								r, err := eng.Pass(context.Background())
								if err != nil {
									b.Error(err)
								}
								counts[i] = r.Sent
							}()
						}
						wg.Wait()
						for _, c := range counts {
							sent += c
						}
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

// A task written through a machine whose clock runs 40 s behind the
// reminders machine's, with a reminder a moment ahead by its own clock,
// is not missed although the reminders machine's last pass is already past
// that moment: it is sent (late) at the next pass, once.
func TestWriterClockBehindIsNotMissed(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T10:00").Add(50*time.Second))
		eng, err := New(Options{Store: e.s, Notifiers: []Notifier{e.rec},
			Now: func() time.Time { return e.now.Add(40 * time.Second) }})
		if err != nil {
			t.Fatal(err)
		}
		e.pass(eng) // the reminders machine has passed 10:01:30
		out := e.out(e.ada, "add_task", `{"title":"Call","remind_at":["2026-10-05T10:01"]}`)
		if strings.Contains(out, "already passed") {
			t.Fatalf("the writer's clock says the reminder is ahead: %s", out)
		}
		e.now = e.now.Add(5 * time.Second)
		if r := e.pass(eng); r.Sent != 1 {
			t.Fatalf("the next pass: %+v, want the reminder sent", r)
		}
		e.now = e.now.Add(time.Minute)
		if r := e.pass(eng); r.Sent != 0 {
			t.Errorf("a later pass sent again: %+v", r)
		}
		if got := e.rec.take(); len(got) != 1 || got[0].Title != "Call" {
			t.Errorf("sent %+v", got)
		}
	})
}

// BenchmarkPassManyPeopleNothingDue is one pass over 200 people, each with
// a task whose reminder is a day away, on each engine: the cost per person
// of a timer's pass when nothing is due (round trips, on PostgreSQL).
func BenchmarkPassManyPeopleNothingDue(b *testing.B) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run(engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			e := newEnv(b, civilAt(b, "Europe/Paris", "2026-10-05T08:00"))
			for i := range 200 {
				p := e.person(fmt.Sprintf("p%d", i), "Europe/Paris")
				e.call(p, "add_task", `{"title":"Tomorrow","due":"2026-10-06T09:00","remind_before":[15]}`)
			}
			eng := e.engine(Options{})
			e.pass(eng)
			for b.Loop() {
				e.now = e.now.Add(time.Second)
				if r := e.pass(eng); r.Sent != 0 {
					b.Fatalf("something was due: %+v", r)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/202, "µs/person")
		})
	}
}
