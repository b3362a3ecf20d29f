package remind

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// The scale benchmarks of the reminders job (docs/scale.md): a database of
// N items, tasks and events, spread over N/1000 people, with a realistic
// share of reminders (seedScale says which), on each engine.
//
//	go test ./remind -run '^$' -bench 'ScaleRemind' -count 6
//
// BenchmarkScaleRemindFirstPass is the first pass on such a database (the
// job never ran on it: every person's index is built), sending what came
// due in the last --max-late; BenchmarkScaleRemindPass a later pass with
// nothing due. Sizes above 10k are skipped under -short.

// scaleNow is the benchmarks' clock.
var scaleNow = time.Date(2026, 10, 5, 6, 0, 30, 0, time.UTC)

var scaleSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}}

// BenchmarkScaleRemindFirstPass is the reminders job's first pass on a
// database of N items (tasks and events over N/1000 people), which builds
// every person's index.
func BenchmarkScaleRemindFirstPass(b *testing.B) { scaleRemind(b, true) }

// BenchmarkScaleRemindPass is a later pass over the same database with
// nothing due.
func BenchmarkScaleRemindPass(b *testing.B) { scaleRemind(b, false) }

func scaleRemind(b *testing.B, first bool) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run(engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			for _, size := range scaleSizes {
				b.Run("rows="+size.name, func(b *testing.B) {
					if size.n > 10_000 && testing.Short() {
						b.Skip("sizes above 10k are skipped under -short")
					}
					s := scaleStore(b, engine, size.n)
					b.ResetTimer() // the seeding of the first run is not the pass
					eng, err := New(Options{Store: s, Notifiers: []Notifier{&recorder{}}, Now: func() time.Time { return scaleNow }})
					if err != nil {
						b.Fatal(err)
					}
					if first {
						benchFirstPass(b, s, eng)
					} else {
						benchLaterPass(b, s, eng)
					}
				})
			}
		})
	}
}

// resetJob forgets everything the reminders job wrote, so the next pass is
// a first pass.
func resetJob(b *testing.B, s *store.Store) {
	b.Helper()
	for _, q := range []string{`DELETE FROM remind_next`, `DELETE FROM remind_state`, `DELETE FROM reminder_deliveries`} {
		if _, err := s.DB().Exec(q); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFirstPass(b *testing.B, s *store.Store, eng *Engine) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		resetJob(b, s)
		b.StartTimer()
		r, err := eng.Pass(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if r.Problems != 0 {
			b.Fatalf("the first pass had problems: %+v", r)
		}
	}
}

func benchLaterPass(b *testing.B, s *store.Store, eng *Engine) {
	ctx := context.Background()
	resetJob(b, s)
	if _, err := eng.Pass(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := eng.Pass(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if r.Sent != 0 {
			b.Fatalf("something was due: %+v", r)
		}
	}
}

// scaleDBs caches the seeded databases of this process, per engine and
// size; scaleCleanup removes them when the tests end (TestMain).
var (
	scaleMu  sync.Mutex
	scaleDBs = map[string]*store.Store{}
	scaleTmp []func()
)

func scaleCleanup() {
	scaleMu.Lock()
	defer scaleMu.Unlock()
	for _, s := range scaleDBs {
		s.Close()
	}
	for _, f := range scaleTmp {
		f()
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	scaleCleanup()
	os.Exit(code)
}

// scaleStore is the database of n items on engine, seeded once per
// process.
func scaleStore(b *testing.B, engine string, n int) *store.Store {
	b.Helper()
	scaleMu.Lock()
	defer scaleMu.Unlock()
	key := fmt.Sprint(engine, n)
	if s := scaleDBs[key]; s != nil {
		return s
	}
	ctx := context.Background()
	var loc string
	if engine == storetest.Postgres {
		server := storetest.PostgresDSN(b)
		admin, err := sql.Open("pgx", server)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("t_scale_remind_%d_%d", n, rand.Uint32())
		if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
			b.Fatal(err)
		}
		u, _ := url.Parse(server)
		u.Path = "/" + name
		loc = u.String()
		scaleTmp = append(scaleTmp, func() {
			_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
			admin.Close()
		})
	} else {
		dir, err := os.MkdirTemp("", "remind-scale-")
		if err != nil {
			b.Fatal(err)
		}
		scaleTmp = append(scaleTmp, func() { os.RemoveAll(dir) })
		loc = filepath.Join(dir, "assistant.db")
	}
	s, err := store.Open(ctx, loc, nil)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := seedScale(ctx, s, loc, n); err != nil {
		b.Fatal(err)
	}
	s.Close()
	// Opened again, as the job's process would (the store works out what
	// the rows it did not write need).
	if s, err = store.Open(ctx, loc, nil); err != nil {
		b.Fatal(err)
	}
	// A database at rest: the rows the store just worked out the bounds
	// of left a dead version each on PostgreSQL, and the statistics were
	// taken before it; autovacuum would see to both in time.
	if engine == storetest.Postgres {
		if _, err := s.DB().ExecContext(ctx, `VACUUM ANALYZE`); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d items on %s in %s (opened again included)", n, engine, time.Since(start).Round(time.Millisecond))
	scaleDBs[key] = s
	return s
}

// The seeded columns, in the migrations' names (as main's schema has them).
var (
	scaleTaskCols = []string{"owner_id", "title", "title_norm", "due_date", "due_time", "due_zone", "due_at", "rrule", "repeat_from",
		"remind_before", "status", "completed_at", "created_at", "updated_at", "remind_from", "remind_until"}
	scaleEventCols = []string{"owner_id", "uid", "title", "all_day", "start_local", "end_local", "tzid", "start_at", "end_at",
		"rrule", "first_at", "last_at", "remind_before", "created_at", "updated_at", "remind_from", "remind_until"}
)

// seedTaskBounds are the reminder bounds of a seeded task, worked out from
// the task as the store reads it back from the seeded columns.
func seedTaskBounds(zone tz.Zone, local, at time.Time, timed bool, rule any, rem string) (from, until any) {
	t := task.Task{HasDue: true, Due: task.Day(tz.DateOf(local))}
	if timed {
		dt := zone.Reading(tz.DateOf(local).At(local.Hour(), local.Minute()), at)
		t.Due = task.Timed(dt, zone)
	}
	if r, ok := rule.(string); ok {
		t.Rule, _ = recur.ParseRule(r)
		t.RepeatFrom = task.Schedule
	}
	t.Reminders, _ = item.ParseReminders(rem, "[]")
	return store.TaskRemindBounds(t).Columns()
}

// seedEventBounds are the reminder bounds of a seeded event, worked out
// from the event as the store reads it back from the seeded columns.
func seedEventBounds(zone tz.Zone, allDay bool, start, end string, startAt, endAt int64, rule any, rem string) (from, until any) {
	e := &calendar.Event{AllDay: allDay, Zone: zone, StartAt: time.Unix(startAt, 0).UTC(), EndAt: time.Unix(endAt, 0).UTC(),
		RemindBefore: rem, RemindAt: "[]", RemindOnce: "[]"}
	e.Start, _ = tz.ParseMoment(start)
	e.End, _ = tz.ParseMoment(end)
	if !allDay {
		e.Start.DateTime = zone.Reading(e.Start.DateTime, e.StartAt)
		e.End.DateTime = zone.Reading(e.End.DateTime, e.EndAt)
	}
	if r, ok := rule.(string); ok {
		e.Rule, _ = recur.ParseRule(r)
	}
	return store.EventRemindBounds(e, nil).Columns()
}

// seedScale writes n items over n/1000 people (at least one), each with
// 800 tasks and 200 events in that proportion:
//
//   - tasks: due within a year before or after now (a fifth date-only),
//     two fifths done; three in ten carry reminders (15 or 60 minutes, a
//     day and 15 minutes, or at the due), and one in twenty repeats
//     (weekly, daily or monthly, from its due);
//   - events: within a year before or after now, one in ten all day; one
//     in six a weekly series without end, one in twenty a series of ten;
//     half carry reminders (10 minutes, or an hour and 15 minutes).
//
// The people's zones are Europe/Paris, America/New_York and Asia/Tokyo in
// turn. Rows go in through one transaction of prepared INSERTs on SQLite,
// pgx's CopyFrom on PostgreSQL, with their reminder bounds worked out as
// the store works them out (it would otherwise do so row by row, an
// UPDATE each, when it next opens the database: most of a 1M seed's
// time).
func seedScale(ctx context.Context, s *store.Store, loc string, n int) error {
	zones := []string{"Europe/Paris", "America/New_York", "Asia/Tokyo"}
	people := max(1, n/1000)
	var owners []int64
	for i := range people {
		p, err := s.AddPerson(ctx, fmt.Sprintf("p%d", i), zones[i%len(zones)])
		if err != nil {
			return err
		}
		owners = append(owners, p.ID)
	}
	locs := map[string]*time.Location{}
	for _, z := range zones {
		l, err := time.LoadLocation(z)
		if err != nil {
			return err
		}
		locs[z] = l
	}
	r := rand.New(rand.NewPCG(uint64(n), 14))
	stamp := scaleNow.Add(-400 * 24 * time.Hour).Format(time.RFC3339)
	created := scaleNow.Add(-400 * 24 * time.Hour).Unix()
	pick := func(list ...string) string { return list[r.IntN(len(list))] }
	var tasks, events [][]any
	for i := range n {
		owner := owners[i%people]
		zone := tz.MustZone(zones[(i%people)%len(zones)])
		at := scaleNow.Add(time.Duration(r.Int64N(int64(2*365*24*time.Hour))) - 365*24*time.Hour).Truncate(15 * time.Minute)
		goLoc := locs[zone.Name()]
		local := at.In(goLoc)
		date := local.Format("2006-01-02")
		if i%5 == 4 { // an event
			allDay := r.IntN(10) == 0
			start, end := local.Format("2006-01-02T15:04"), local.Add(time.Hour).Format("2006-01-02T15:04")
			startAt, endAt := at.Unix(), at.Add(time.Hour).Unix()
			first, last := startAt, any(endAt)
			if allDay {
				d0, _ := time.Parse("2006-01-02", date)
				start, end = date, d0.AddDate(0, 0, 1).Format("2006-01-02")
				s0, _ := zone.Instant(tz.DateTime{Date: tz.DateOf(d0)})
				startAt, endAt = s0.Unix(), s0.Add(24*time.Hour).Unix()
				first, last = startAt-26*3600, endAt+26*3600
			}
			var rule any
			switch k := r.IntN(60); {
			case k < 10:
				rule, last = "FREQ=WEEKLY", nil
			case k < 13:
				rule = "FREQ=WEEKLY;COUNT=10"
				last = last.(int64) + 9*7*24*3600 + 3600
			}
			rem := "[]"
			if r.IntN(2) == 0 {
				rem = pick("[10]", "[15,60]")
			}
			rf, ru := seedEventBounds(zone, allDay, start, end, startAt, endAt, rule, rem)
			events = append(events, []any{owner, fmt.Sprintf("scale-%d", i), fmt.Sprintf("Event %d", i), b2i(allDay), start, end,
				zone.Name(), startAt, endAt, rule, first, last, rem, created, stamp, rf, ru})
			continue
		}
		var dueTime, dueZone, dueAt any
		if r.IntN(5) != 0 {
			dueTime, dueZone, dueAt = local.Format("2006-01-02T15:04"), zone.Name(), at.Unix()
		}
		var rule, from any
		if r.IntN(20) == 0 {
			rule, from = pick("FREQ=WEEKLY", "FREQ=DAILY", "FREQ=MONTHLY"), "schedule"
		}
		rem := "[]"
		if r.IntN(10) < 3 {
			rem = pick("[15]", "[60]", "[15,1440]", "[0]")
		}
		status, done := "open", any(nil)
		if r.IntN(5) < 2 {
			status, done = "done", at.Unix()
		}
		title := fmt.Sprintf("Task %d", i)
		rf, ru := seedTaskBounds(zone, local, at, dueTime != nil, rule, rem)
		tasks = append(tasks, []any{owner, title, strings.ToLower(title), date, dueTime, dueZone, dueAt, rule, from, rem,
			status, done, created, stamp, rf, ru})
	}
	if s.Engine() == store.Postgres {
		conn, err := pgx.Connect(ctx, loc)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"tasks"}, scaleTaskCols, pgx.CopyFromRows(tasks)); err != nil {
			return err
		}
		_, err = conn.CopyFrom(ctx, pgx.Identifier{"events"}, scaleEventCols, pgx.CopyFromRows(events))
		if err != nil {
			return err
		}
		_, err = conn.Exec(ctx, `VACUUM ANALYZE`)
		return err
	}
	// One connection with a page cache that holds the indexes being
	// filled (SQLite's default 2 MB makes each insert of a large seed
	// read and write index pages again), the rows grouped by person (an
	// index led by owner_id then grows in a few places at a time), many
	// rows per statement.
	conn, err := s.DB().Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA cache_size = -262144`); err != nil {
		return err
	}
	defer conn.ExecContext(ctx, `PRAGMA cache_size = -2000`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{{"tasks", scaleTaskCols, tasks}, {"events", scaleEventCols, events}} {
		slices.SortStableFunc(t.rows, func(a, b []any) int { return cmp.Compare(a[0].(int64), b[0].(int64)) })
		const perStmt = 64
		one := `(?` + strings.Repeat(", ?", len(t.cols)-1) + `)`
		insert := `INSERT INTO ` + t.table + ` (` + strings.Join(t.cols, ", ") + `) VALUES `
		st, err := tx.PrepareContext(ctx, insert+one+strings.Repeat(", "+one, perStmt-1))
		if err != nil {
			return err
		}
		args := make([]any, 0, perStmt*len(t.cols))
		rows := t.rows
		for len(rows) >= perStmt {
			args = args[:0]
			for _, row := range rows[:perStmt] {
				args = append(args, row...)
			}
			if _, err := st.ExecContext(ctx, args...); err != nil {
				return err
			}
			rows = rows[perStmt:]
		}
		st.Close()
		for _, row := range rows {
			if _, err := tx.ExecContext(ctx, insert+one, row...); err != nil {
				return err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `ANALYZE`)
	return err
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}
