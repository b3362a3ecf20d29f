package remind

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"

	"github.com/assistant-dev/assistant/tz"
)

// attempt is one call of a notifier, at the test's clock.
type attempt struct {
	At   string // RFC 3339 in Paris
	ID   string // delivery id
	Item string
	OK   bool
}

// clocked is a notifier that notes the time of every attempt; it fails the
// first fail ones, and when hold is set, blocks each call until it is
// closed (after closing started once).
type clocked struct {
	now     func() time.Time
	mu      sync.Mutex
	fail    int
	log     []attempt
	late    []int64
	hold    chan struct{}
	started chan struct{}
	once    sync.Once
}

func (c *clocked) Name() string { return "clocked" }

func (c *clocked) Notify(_ context.Context, m *Message, _ []byte) error {
	if c.hold != nil {
		c.once.Do(func() { close(c.started) })
		<-c.hold
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a := attempt{At: tz.RFC3339(c.now(), tz.MustZone(paris)), ID: m.DeliveryID, Item: m.Item.ID, OK: c.fail == 0}
	c.log = append(c.log, a)
	c.late = append(c.late, m.LateSeconds)
	if c.fail > 0 {
		c.fail--
		return errTest
	}
	return nil
}

func (c *clocked) attempts() []attempt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]attempt(nil), c.log...)
}

// liveEnv is an env inside a synctest bubble whose clock is the bubble's
// fake time, shifted to start at civil (Paris): Run's timers then run on
// that clock, and time moves only when everything waits.
// loc is the database, made outside the bubble (storetest.Location).
func liveEnv(t *testing.T, loc, civil string, seconds int) (*env, func() time.Time) {
	base := civilAt(t, paris, civil).Add(time.Duration(seconds) * time.Second)
	start := time.Now()
	clock := func() time.Time { return base.Add(time.Since(start)) }
	e := newEnvAt(t, loc, base)
	e.clock = clock
	return e, clock
}

// Run sleeps until the next reminder (or retry) is due, never longer than
// its interval, and a cancelled context stops it at once while it sleeps.
// The clock is synctest's fake time: what is asserted is the instant of
// each delivery, exactly, with no real waiting.
func TestRunSleepsUntilNextDue(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		loc := location(t)
		synctest.Test(t, func(t *testing.T) {
			e, clock := liveEnv(t, loc, "2026-10-05T08:44", 58)
			milk := e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
			call := e.call(e.ada, "add_event", `{"title":"Call","start":"2026-10-05T10:00","remind_before":[0]}`)
			n := &clocked{now: clock, fail: 1}
			eng := e.engine(Options{Notifiers: []Notifier{n}})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- eng.Run(ctx, time.Hour) }()

			// Sleeping through the cap: a task added at 10:05, while Run
			// sleeps the full hour after the 10:00 reminder, is seen at 11:00.
			sleepUntil(t, clock, "2026-10-05T10:05")
			late := e.call(e.ada, "add_task", `{"title":"Late one","due":"2026-10-05T10:30","remind_before":[15]}`)
			sleepUntil(t, clock, "2026-10-05T11:05")
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run returned %v after cancel, want nil", err)
			}
			if got := tz.RFC3339(clock(), tz.MustZone(paris)); got != "2026-10-05T11:05:00+02:00" {
				t.Errorf("Run returned at %s: it waited for its timer instead of the cancel", got)
			}

			got := n.attempts()
			want := []attempt{
				{At: "2026-10-05T08:45:00+02:00", Item: milk},           // 2 s after the start, not at the 1 h cap
				{At: "2026-10-05T08:46:00+02:00", Item: milk, OK: true}, // the retry, 1 min later
				{At: "2026-10-05T10:00:00+02:00", Item: call, OK: true}, // 1 h cap at 09:46, then 14 min
				{At: "2026-10-05T11:00:00+02:00", Item: late, OK: true}, // nothing was due: the cap
			}
			if len(got) != len(want) {
				t.Fatalf("attempts %+v, want %+v", got, want)
			}
			for i := range want {
				if got[i].At != want[i].At || got[i].Item != want[i].Item || got[i].OK != want[i].OK {
					t.Errorf("attempt %d: %+v, want %+v", i, got[i], want[i])
				}
			}
			if got[0].ID != got[1].ID {
				t.Errorf("the retry has delivery id %s, the first attempt %s", got[1].ID, got[0].ID)
			}
			if fmt.Sprint(n.late) != "[0 60 0 2700]" {
				t.Errorf("late seconds %v, want [0 60 0 2700]", n.late)
			}
		})
	})
}

// A cancel during a send lets that delivery finish and be recorded sent;
// nothing else is started, and Run returns nil.
func TestRunCancelDuringSend(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		loc := location(t)
		synctest.Test(t, func(t *testing.T) {
			e, clock := liveEnv(t, loc, "2026-10-05T08:30", 0)
			for _, title := range []string{"One", "Two"} {
				e.call(e.ada, "add_task", fmt.Sprintf(`{"title":%q,"due":"2026-10-05T09:00","remind_before":[15]}`, title))
			}
			n := &clocked{now: clock, hold: make(chan struct{}), started: make(chan struct{})}
			eng := e.engine(Options{Notifiers: []Notifier{n}})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- eng.Run(ctx, time.Hour) }()

			<-n.started // at 08:45, the first send is in flight
			cancel()
			synctest.Wait()
			select {
			case err := <-done:
				t.Fatalf("Run returned (%v) with a send in flight", err)
			default:
			}
			close(n.hold)
			if err := <-done; err != nil {
				t.Errorf("Run returned %v after cancel, want nil", err)
			}
			if got := n.attempts(); len(got) != 1 || !got[0].OK || got[0].At != "2026-10-05T08:45:00+02:00" {
				t.Fatalf("attempts %+v, want the one in flight only", got)
			}
			status := map[string]int{}
			for _, r := range e.rows() {
				status[r.Status]++
			}
			if status["sent"] != 1 || status["pending"] != 1 || len(status) != 2 {
				t.Errorf("rows by status %v, want 1 sent (the one in flight) and 1 pending", status)
			}
		})
	})
}

// sleepUntil sleeps the bubble's fake time to civil (Paris).
func sleepUntil(t *testing.T, clock func() time.Time, civil string) {
	t.Helper()
	d := civilAt(t, paris, civil).Sub(clock())
	if d < 0 {
		t.Fatalf("the clock is already past %s", civil)
	}
	time.Sleep(d)
}

// A send that outlasts many leases keeps its lease alive: in a synctest
// bubble (time.Now is the fake clock, for reminders and leases alike: the
// engines' LeaseClock, since a PostgreSQL server's clock is not the bubble's) a
// notifier holds the first send for ten minutes, five leases of two, and
// a second engine on another handle passing meanwhile sends nothing. The
// delivery goes out once.
func TestLeaseRenewedWhileSending(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		loc := location(t)
		synctest.Test(t, func(t *testing.T) {
			e, clock := liveEnv(t, loc, "2026-10-05T08:44", 0)
			e.call(e.ada, "add_task", `{"title":"Slow","due":"2026-10-05T09:00","remind_before":[15]}`)
			slow := &clocked{now: clock, hold: make(chan struct{}), started: make(chan struct{})}
			first := e.engine(Options{Notifiers: []Notifier{slow}, LeaseClock: time.Now})
			e.pass(first)
			sleepUntil(t, clock, "2026-10-05T08:45")
			done := make(chan error, 1)
			go func() {
				_, err := first.Pass(context.Background())
				done <- err
			}()
			<-slow.started
			time.Sleep(10 * time.Minute) // the send is still in flight
			other := &clocked{now: clock}
			second := e.engine(Options{Store: e.open(), Notifiers: []Notifier{other}, LeaseClock: time.Now})
			if r := e.pass(second); r.Sent != 0 || len(other.attempts()) != 0 {
				t.Errorf("a second engine sent a delivery whose holder is alive: %+v", r)
			}
			close(slow.hold)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if got := slow.attempts(); len(got) != 1 || !got[0].OK {
				t.Fatalf("attempts %+v, want one", got)
			}
			if rows := e.rows(); len(rows) != 1 || rows[0].Status != "sent" || rows[0].Attempts != 1 {
				t.Errorf("records %+v, want one sent after one attempt", rows)
			}
		})
	})
}
