package remind

import (
	"context"
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

// TestRebuildByBoundsMatchesEveryItem is the differential test of the
// first pass: two databases get the same randomised tasks and events
// through the real tools (timed and date-only dues, all-day and timed
// events, series with and without end, remind_before, remind_at, moved
// and cancelled occurrences, tasks done and deleted), and two engines run
// the same passes over them, one reading every item with reminders as the
// job did before the items' bounds were kept (the oracle), the other only
// what the bounds and the horizon say can fire. What they deliver, and
// when, what they record, and what status lists must be the same, through
// the first pass (long after the writes: catching up and skipping), the
// horizon's extensions, a zone change (a rebuild with floating days) and
// items written between passes.
func TestRebuildByBoundsMatchesEveryItem(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		seeds := []uint64{1, 2, 3}
		if testing.Short() {
			seeds = seeds[:1]
		}
		for _, seed := range seeds {
			t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { diffRebuild(t, seed) })
		}
	})
}

// twin is the same calls on two databases.
type twin struct{ old, new *env }

func (w twin) call(who func(*env) tools.Person, name, raw string) string {
	a := w.old.call(who(w.old), name, raw)
	b := w.new.call(who(w.new), name, raw)
	if a != b {
		w.old.t.Fatalf("%s %s: ids differ, %q and %q", name, raw, a, b)
	}
	return a
}

func (w twin) setNow(at time.Time) { w.old.now, w.new.now = at, at }

func ada(e *env) tools.Person { return e.ada }
func bob(e *env) tools.Person { return e.bob }

// randomItems writes n tasks and events of who, spread around base.
func randomItems(w twin, r *rand.Rand, who func(*env) tools.Person, base time.Time, n int) {
	pick := func(list ...string) string { return list[r.IntN(len(list))] }
	befores := func() string {
		switch r.IntN(6) {
		case 0:
			return ""
		case 1:
			return `,"remind_before":[` + pick("0", "15", "60") + `,` + pick("1440", "2880", "10080") + `]`
		default:
			return `,"remind_before":[` + pick("0", "5", "15", "30", "60", "180", "1440") + `]`
		}
	}
	for i := range n {
		day := base.AddDate(0, 0, r.IntN(20)-6)
		date := day.Format("2006-01-02")
		clock := fmt.Sprintf("T%02d:%02d", r.IntN(24), 15*r.IntN(4))
		at := ""
		if r.IntN(6) == 0 {
			at = `,"remind_at":["` + day.AddDate(0, 0, -r.IntN(3)).Format("2006-01-02") + fmt.Sprintf("T%02d:%02d", r.IntN(24), 30*r.IntN(2)) + `"]`
		}
		if r.IntN(2) == 0 {
			due := date + clock
			if r.IntN(4) == 0 {
				due = date
			}
			rule := ""
			if r.IntN(5) == 0 {
				rule = `,"rrule":"` + pick("FREQ=DAILY", "FREQ=WEEKLY", "FREQ=DAILY;COUNT=4", "FREQ=MONTHLY") + `"`
			}
			args := fmt.Sprintf(`{"title":"Task %d","due":%q%s%s%s}`, i, due, rule, befores(), at)
			if r.IntN(10) == 0 {
				args = fmt.Sprintf(`{"title":"Task %d","remind_at":["%s%s"]}`, i, date, clock)
			}
			id := w.call(who, "add_task", args)
			switch r.IntN(12) {
			case 0:
				w.call(who, "complete_task", fmt.Sprintf(`{"id":%q}`, id))
			case 1:
				w.call(who, "delete_task", fmt.Sprintf(`{"id":%q}`, id))
			}
			continue
		}
		start := date + clock
		if r.IntN(4) == 0 {
			start = date
		}
		rule := ""
		if r.IntN(3) == 0 {
			rule = `,"rrule":"` + pick("FREQ=WEEKLY", "FREQ=DAILY", "FREQ=DAILY;COUNT=4", "FREQ=WEEKLY;COUNT=3") + `"`
		}
		id := w.call(who, "add_event", fmt.Sprintf(`{"title":"Event %d","start":%q%s%s%s}`, i, start, rule, befores(), at))
		if rule != "" && r.IntN(3) == 0 {
			// One occurrence moved, with reminders of its own, or
			// cancelled: the second occurrence of the series.
			days := 1
			if strings.Contains(rule, "WEEKLY") {
				days = 7
			}
			occ := secondOccurrence(w.new, id, days)
			if occ == "" {
				continue
			}
			if r.IntN(2) == 0 {
				w.call(who, "delete_event", fmt.Sprintf(`{"id":%q,"scope":"this"}`, occ))
			} else {
				moved := day.AddDate(0, 0, 1).Format("2006-01-02") + fmt.Sprintf("T%02d:00", r.IntN(24))
				if len(start) == 10 {
					moved = day.AddDate(0, 0, 2).Format("2006-01-02")
				}
				w.call(who, "update_event", fmt.Sprintf(`{"id":%q,"scope":"this","start":%q,"remind_before":[%s]}`,
					occ, moved, pick("0", "20", "120")))
			}
		}
	}
}

// secondOccurrence is the id of the occurrence of event id days after
// its first, or "".
func secondOccurrence(e *env, id string, days int) string {
	rows, err := e.s.DB().QueryContext(e.ctx, `SELECT start_local, tzid, all_day FROM events WHERE id = ?`, strings.TrimPrefix(id, "e"))
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		return ""
	}
	var local, zone string
	var allDay int
	if err := rows.Scan(&local, &zone, &allDay); err != nil {
		e.t.Fatal(err)
	}
	if allDay == 1 {
		d, _ := time.Parse("2006-01-02", local)
		return id + "@" + d.AddDate(0, 0, days).Format("20060102")
	}
	loc, _ := time.LoadLocation(zone)
	t, _ := time.ParseInLocation("2006-01-02T15:04", local, loc)
	return id + "@" + t.AddDate(0, 0, days).UTC().Format("20060102T150405Z")
}

// TestBatchedPassMatchesPerPerson is the differential test of the pass
// over many people in shared transactions (batch.go): on two databases
// with the same randomised items, the oracle takes one person at a time,
// each in transactions of their own, reading everything as it needs it,
// as passes did before; the other records and sends in batches, what a
// record step reads first read ahead for the people of its transaction
// (readAhead). What they send, record and report must
// be the same, pass after pass (see TestRebuildByBoundsMatchesEveryItem
// for the steps).
func TestBatchedPassMatchesPerPerson(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		seeds := []uint64{4, 5}
		if testing.Short() {
			seeds = seeds[:1]
		}
		for _, seed := range seeds {
			t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
				diffPasses(t, seed, func(oracle *Engine) { oracle.perPerson = true }, func(e *Engine) { e.recordMin = 1 })
			})
		}
		// Both people in one record transaction (one worker on
		// PostgreSQL too), so what it reads ahead is read for both in
		// each statement (readAhead).
		t.Run("seed=6/together", func(t *testing.T) {
			diffPasses(t, 6, func(oracle *Engine) { oracle.perPerson = true }, func(*Engine) {})
		})
	})
}

func diffRebuild(t *testing.T, seed uint64) {
	diffPasses(t, seed, func(oracle *Engine) { oracle.everyItem = true }, func(*Engine) {})
}

// diffPasses runs the same passes on twin databases, with an oracle
// engine set by asOracle and one set by asTried, and wants the same
// outcomes.
func diffPasses(t *testing.T, seed uint64, asOracle, asTried func(*Engine)) {
	r := rand.New(rand.NewPCG(seed, 21))
	start := civilAt(t, "Europe/Paris", "2026-10-20T08:00")
	w := twin{old: newEnv(t, start), new: newEnv(t, start)}
	randomItems(w, r, ada, start, 70)
	randomItems(w, r, bob, start, 25)
	oracle := w.old.engine(Options{})
	asOracle(oracle)
	bounded := w.new.engine(Options{})
	asTried(bounded)

	// The job first runs days after the writes, then every 97 minutes
	// for a week (the horizon is extended about every 12 hours).
	now := start.Add(3*24*time.Hour + 5*time.Hour)
	for step := range 105 {
		w.setNow(now)
		switch step {
		case 30:
			w.call(ada, "set_time_zone", `{"time_zone":"Asia/Tokyo"}`)
			w.old.ada.Zone, w.new.ada.Zone = tz.MustZone("Asia/Tokyo"), tz.MustZone("Asia/Tokyo")
		case 50:
			randomItems(w, r, ada, now, 15)
		case 70:
			w.call(bob, "set_time_zone", `{"time_zone":"Pacific/Kiritimati"}`)
			w.old.bob.Zone, w.new.bob.Zone = tz.MustZone("Pacific/Kiritimati"), tz.MustZone("Pacific/Kiritimati")
		}
		want, got := w.old.pass(oracle), w.new.pass(bounded)
		if want != got {
			t.Fatalf("pass %d at %s: the oracle did %+v, the bounded rebuild %+v", step, now.Format(time.RFC3339), want, got)
		}
		if a, b := sentKeys(w.old.rec.take()), sentKeys(w.new.rec.take()); !slices.Equal(a, b) {
			t.Fatalf("pass %d at %s: the oracle sent\n%s\nthe bounded rebuild\n%s", step, now.Format(time.RFC3339),
				strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
		if step == 31 || step == 104 {
			// Status extends the horizon until it knows the next fires
			// (on so few items, often to all of them), so it runs only
			// where the passes' own extensions were seen before.
			compareStatus(t, step, oracle, bounded)
		}
		now = now.Add(97 * time.Minute)
	}
	a, b := w.old.rows(), w.new.rows()
	if !slices.Equal(a, b) {
		t.Fatalf("the recorded deliveries differ:\noracle %v\nbounded %v", a, b)
	}
	if len(a) < 100 {
		t.Fatalf("only %d deliveries recorded: the test does not exercise much", len(a))
	}
}

// sentKeys is what was sent: delivery id, fire instant, lateness and
// attempt of each message, sorted.
func sentKeys(msgs []Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		item := ""
		if m.Item != nil {
			item = m.Item.ID
		}
		out = append(out, fmt.Sprintf("%s %s %s %d %d", m.DeliveryID, item, m.FireAt, m.LateSeconds, m.Attempt))
	}
	slices.Sort(out)
	return out
}

func compareStatus(t *testing.T, step int, oracle, bounded *Engine) {
	t.Helper()
	a, err := oracle.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := bounded.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
		t.Fatalf("step %d: status differs:\noracle  %+v\nbounded %+v", step, a, b)
	}
}

// TestRemindBoundsHoldEveryFire checks the stored bounds of randomised
// tasks and events against their fires worked out in zones from UTC−12
// to UTC+14 (a date-only due and an all-day event float with the
// person's zone): no fire is before remind_from or after remind_until.
func TestRemindBoundsHoldEveryFire(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		start := civilAt(t, "Europe/Paris", "2026-10-20T08:00")
		w := twin{old: newEnv(t, start), new: newEnv(t, start)}
		r := rand.New(rand.NewPCG(7, 21))
		randomItems(w, r, ada, start, 150)
		e := w.new
		rows, err := e.s.DB().QueryContext(e.ctx, `SELECT id, 't', remind_from, remind_until FROM tasks WHERE owner_id = ?
			UNION ALL SELECT id, 'e', remind_from, remind_until FROM events WHERE owner_id = ?`, e.ada.ID, e.ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		type bound struct {
			label       string
			from, until *int64
		}
		var list []bound
		for rows.Next() {
			var b bound
			var id int64
			var kind string
			if err := rows.Scan(&id, &kind, &b.from, &b.until); err != nil {
				t.Fatal(err)
			}
			b.label = fmt.Sprint(kind, id)
			list = append(list, b)
		}
		rows.Close()
		checked := 0
		for _, zone := range []string{"Etc/GMT+12", "Pacific/Pago_Pago", "America/New_York", "UTC", "Europe/Paris", "Asia/Tokyo", "Pacific/Kiritimati"} {
			err := e.s.Read(e.ctx, e.ada.ID, func(tx *store.Tx) error {
				for _, b := range list {
					it, ok, err := loadItem(tx, b.label, tz.MustZone(zone))
					if err != nil || !ok {
						return fmt.Errorf("%s: %v", b.label, err)
					}
					if b.from == nil {
						return fmt.Errorf("%s has no bounds", b.label)
					}
					fires := it.Between(start.AddDate(-1, 0, 0), start.AddDate(0, 3, 0))
					if *b.from == 0 && b.until != nil && *b.until == 0 && len(fires) > 0 && !it.Dead {
						return fmt.Errorf("%s in %s fires at %s but its bounds say never", b.label, zone, fires[0].At)
					}
					for _, f := range fires {
						if *b.from == 0 && b.until != nil && *b.until == 0 {
							break // never fires: done or deleted tasks are Dead above
						}
						checked++
						if f.At.Unix() < *b.from || (b.until != nil && f.At.Unix() > *b.until) {
							return fmt.Errorf("%s in %s fires at %s, outside its bounds [%d, %v]", b.label, zone, f.At, *b.from, b.until)
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if checked < 500 {
			t.Fatalf("only %d fires checked", checked)
		}
	})
}

// TestRemindBoundsBackfill: rows without bounds (written before migration
// 00014) get, when the store opens the database, the bounds their writer
// would have stored, and until then a rebuild reads them all the same.
func TestRemindBoundsBackfill(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		start := civilAt(t, "Europe/Paris", "2026-10-20T08:00")
		w := twin{old: newEnv(t, start), new: newEnv(t, start)}
		randomItems(w, rand.New(rand.NewPCG(11, 21)), ada, start, 60)
		e := w.new
		read := func() string { return strings.Join(remindBounds(t, e.ctx, e.s.DB()), "\n") }
		written := read()
		if strings.Contains(written, ": nil nil") {
			t.Fatalf("a writer left an item without bounds:\n%s", written)
		}
		for _, q := range []string{`UPDATE tasks SET remind_from = NULL, remind_until = NULL`, `UPDATE events SET remind_from = NULL, remind_until = NULL`} {
			if _, err := e.s.DB().ExecContext(e.ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		// Before the store opens it again, a first pass reads those rows.
		e.now = start.Add(2 * time.Hour)
		w.old.now = e.now
		oracle := w.old.engine(Options{})
		oracle.everyItem = true
		if a, b := w.old.pass(oracle), e.pass(e.engine(Options{})); a != b {
			t.Fatalf("without bounds: the oracle did %+v, the bounded rebuild %+v", a, b)
		}
		if a, b := sentKeys(w.old.rec.take()), sentKeys(e.rec.take()); !slices.Equal(a, b) {
			t.Fatalf("without bounds: the oracle sent %v, the bounded rebuild %v", a, b)
		}
		e.s = e.open()
		if got := read(); got != written {
			t.Fatalf("backfilled bounds differ from the written ones:\nwritten\n%s\nbackfilled\n%s", written, got)
		}
	})
}

// TestIdlePassesMatchPerPerson is the differential test of the people a
// pass leaves alone (store.RemindBusy): passes every few minutes, most
// with nothing to do for one person or both, with items written, changed,
// completed and deleted between them, and a zone change; the
// batched engine must send, record and report what the per-person oracle
// does at every pass.
func TestIdlePassesMatchPerPerson(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 21))
		start := civilAt(t, "Europe/Paris", "2026-10-20T08:00")
		w := twin{old: newEnv(t, start), new: newEnv(t, start)}
		randomItems(w, r, ada, start, 20)
		randomItems(w, r, bob, start, 10)
		oracle := w.old.engine(Options{})
		oracle.perPerson = true
		batched := w.new.engine(Options{})
		now := start.Add(time.Hour)
		for step := range 160 {
			w.setNow(now)
			switch {
			case step == 60:
				w.call(bob, "set_time_zone", `{"time_zone":"America/New_York"}`)
				w.old.bob.Zone, w.new.bob.Zone = tz.MustZone("America/New_York"), tz.MustZone("America/New_York")
			case step%9 == 4:
				who := ada
				if r.IntN(2) == 0 {
					who = bob
				}
				// Due within the next hours, so a missed change shows.
				at := now.Add(time.Duration(20+r.IntN(200)) * time.Minute).In(w.new.ada.Zone.Location())
				w.call(who, "add_task", fmt.Sprintf(`{"title":"Soon %d","due":%q,"remind_before":[%d]}`,
					step, at.Format("2006-01-02T15:04"), 5*r.IntN(4)))
			case step%13 == 7:
				randomItems(w, r, ada, now, 1)
			}
			want, got := w.old.pass(oracle), w.new.pass(batched)
			if want != got {
				t.Fatalf("pass %d at %s: the oracle did %+v, the batched pass %+v", step, now.Format(time.RFC3339), want, got)
			}
			if a, b := sentKeys(w.old.rec.take()), sentKeys(w.new.rec.take()); !slices.Equal(a, b) {
				t.Fatalf("pass %d at %s: the oracle sent\n%s\nthe batched pass\n%s", step, now.Format(time.RFC3339),
					strings.Join(a, "\n"), strings.Join(b, "\n"))
			}
			now = now.Add(7 * time.Minute)
		}
		compareStatus(t, 160, oracle, batched)
		a, b := w.old.rows(), w.new.rows()
		if !slices.Equal(a, b) {
			t.Fatalf("the recorded deliveries differ:\noracle %v\nbatched %v", a, b)
		}
		if len(a) < 20 {
			t.Fatalf("only %d deliveries recorded: the test does not exercise much", len(a))
		}
	})
}
