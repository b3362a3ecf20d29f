package remind

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
)

// env is a real database of the test's engine (storetest: a SQLite file,
// or a fresh PostgreSQL database in a storetest.Engines subtest named
// postgres) with the real task and event tools, a clock the test moves,
// and a notifier that records what it is given.
type env struct {
	t    testing.TB
	ctx  context.Context
	path string // the database's location, as store.Open takes it
	s    *store.Store
	reg  *tools.Registry
	now  time.Time
	// clock, when set, is read instead of now: a clock that moves by
	// itself (the fake time of a synctest bubble).
	clock func() time.Time
	ada   tools.Person // Europe/Paris
	bob   tools.Person // America/New_York
	rec   *recorder
}

func newEnv(t testing.TB, now time.Time) *env {
	t.Helper()
	return newEnvAt(t, location(t), now)
}

// location is a fresh database of t's engine (storetest), on PostgreSQL a
// copy of one already migrated.
func location(t testing.TB) string {
	t.Helper()
	return storetest.LocationFrom(t, migrated)
}

// migrated is the template of the PostgreSQL databases of location: an
// empty one that store.Open brought up to date, for as long as the
// migration files stay the same.
var migrated = tooltest.Migrated

// newEnvAt is newEnv on the database at loc (a location of
// location made outside a synctest bubble, whose own pool must
// not be made inside one).
func newEnvAt(t testing.TB, loc string, now time.Time) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), now: now, reg: tools.NewRegistry(), rec: &recorder{}}
	e.path = loc
	e.s = e.open()
	tasks.Register(e.reg)
	events.Register(e.reg)
	e.ada = e.person("ada", "Europe/Paris")
	e.bob = e.person("bob", "America/New_York")
	return e
}

// open opens another handle on the database, as another process would.
func (e *env) open() *store.Store {
	e.t.Helper()
	s, err := store.Open(e.ctx, e.path, &store.Options{Now: e.time})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { s.Close() })
	return s
}

// time is the test's clock: clock when set, else now.
func (e *env) time() time.Time {
	if e.clock != nil {
		return e.clock()
	}
	return e.now
}

func (e *env) person(name, zone string) tools.Person {
	e.t.Helper()
	p, err := e.s.AddPerson(e.ctx, name, zone)
	if err != nil {
		e.t.Fatal(err)
	}
	return tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(zone)}
}

// at sets the clock to a civil time in zone ("2026-10-05T09:00").
func (e *env) at(zone, civil string) time.Time {
	e.t.Helper()
	e.now = civilAt(e.t, zone, civil)
	return e.now
}

func civilAt(t testing.TB, zone, civil string) time.Time {
	t.Helper()
	dt, err := tz.ParseDateTime(civil)
	if err != nil {
		t.Fatal(err)
	}
	at, _ := tz.MustZone(zone).Instant(dt)
	return at
}

// call runs a tool as who and fails the test unless it succeeded; it
// returns the id of the task or event in the answer's data, if any.
func (e *env) call(who tools.Person, name, raw string) string {
	e.t.Helper()
	tc := &tools.ToolContext{}
	tools.Insert(tc, who)
	tools.Insert(tc, e.s)
	tools.Insert(tc, tools.Clock(e.time))
	res, _ := e.reg.Call(e.ctx, tc, name, []byte(raw))
	if !res.OK() {
		e.t.Fatalf("%s %s: code %d: %s", name, raw, res.Code, res.Err)
	}
	b, _ := json.Marshal(res.Data)
	var data map[string]json.RawMessage
	_ = json.Unmarshal(b, &data)
	for _, k := range []string{"task", "event"} {
		var v struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(data[k], &v) == nil && v.ID != "" {
			return v.ID
		}
	}
	return ""
}

func (e *env) engine(opts Options) *Engine {
	e.t.Helper()
	if opts.Store == nil {
		opts.Store = e.s
	}
	if opts.Notifiers == nil {
		opts.Notifiers = []Notifier{e.rec}
	}
	opts.Now = e.time
	eng, err := New(opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return eng
}

func (e *env) pass(eng *Engine) Result {
	e.t.Helper()
	r, err := eng.Pass(e.ctx)
	if err != nil {
		e.t.Fatalf("pass at %s: %v", e.now.Format(time.RFC3339), err)
	}
	return r
}

// row is one reminder_deliveries row, for assertions.
type row struct {
	Item, Occurrence, Trigger, DeliveryID, Status, LastError string
	FireAt                                                   time.Time
	Attempts                                                 int
}

// rows gives every delivery row in an order of what they hold (not of
// their ids, which passes recording people at once hand out in any
// order).
func (e *env) rows() []row {
	e.t.Helper()
	q, err := e.s.DB().QueryContext(e.ctx, `SELECT item, occurrence, trigger, delivery_id, status, last_error,
		fire_at, attempts FROM reminder_deliveries ORDER BY fire_at, delivery_id, item, occurrence, trigger, id`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer q.Close()
	var out []row
	for q.Next() {
		var r row
		var fire int64
		if err := q.Scan(&r.Item, &r.Occurrence, &r.Trigger, &r.DeliveryID, &r.Status, &r.LastError, &fire, &r.Attempts); err != nil {
			e.t.Fatal(err)
		}
		r.FireAt = time.Unix(fire, 0).UTC()
		out = append(out, r)
	}
	return out
}

// recorder is a notifier that keeps every message; fail makes the next
// calls fail.
type recorder struct {
	mu   sync.Mutex
	msgs []Message
	fail int
}

func (r *recorder) Name() string { return "recorder" }

func (r *recorder) Notify(_ context.Context, m *Message, body []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var back Message
	if err := json.Unmarshal(body, &back); err != nil {
		return err
	}
	if r.fail > 0 {
		r.fail--
		return errTest
	}
	r.msgs = append(r.msgs, back)
	return nil
}

// take returns the messages recorded since the last take.
func (r *recorder) take() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.msgs
	r.msgs = nil
	return out
}

type testError string

func (e testError) Error() string { return string(e) }

const errTest = testError("the receiver is down")
