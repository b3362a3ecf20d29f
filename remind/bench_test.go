package remind

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tz"
)

// fill writes n tasks with timed dues spread over the coming year and m
// weekly events, all with reminders, in the columns the task and event
// migrations define, through one Write's InsertMany (multi-row INSERTs of
// 64 rows, journaled; the tools would take minutes for this many).
func fill(b *testing.B, e *env, n, m int) {
	b.Helper()
	zone := tz.MustZone("Europe/Paris")
	stamp := e.now.UTC().Format(time.RFC3339)
	base := zone.Today(e.now).AddDays(1)
	taskRows := make([]store.Row, 0, n)
	for i := range n {
		dt := base.AddDays(i%365).At(8+i%10, (i%4)*15)
		at, _ := zone.Instant(dt)
		title := fmt.Sprintf("Task %d", i)
		taskRows = append(taskRows, store.Row{"title": title, "title_norm": strings.ToLower(title),
			"due_date": dt.Date.String(), "due_time": dt.String(), "due_zone": zone.Name(), "due_at": at.Unix(),
			"remind_before": "[15, 1440]", "created_at": e.now.Unix(), "updated_at": stamp})
	}
	eventRows := make([]store.Row, 0, m)
	for i := range m {
		dt := base.AddDays(i%7).At(7+i%12, (i%2)*30)
		at, _ := zone.Instant(dt)
		end := dt.AddMinutes(30)
		endAt, _ := zone.Instant(end)
		eventRows = append(eventRows, store.Row{"uid": fmt.Sprintf("bench-%d", i), "title": fmt.Sprintf("Event %d", i),
			"start_local": dt.String(), "end_local": end.String(), "tzid": zone.Name(), "start_at": at.Unix(),
			"end_at": endAt.Unix(), "rrule": "FREQ=WEEKLY", "first_at": at.Unix(), "last_at": nil,
			"remind_before": "[10]", "created_at": e.now.Unix(), "updated_at": stamp})
	}
	_, err := e.s.Write(e.ctx, e.ada.ID, "bench", func(tx *store.Tx) error {
		if _, err := tx.InsertMany("tasks", taskRows); err != nil {
			return err
		}
		_, err := tx.InsertMany("events", eventRows)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// benchEnv is newEnv on a database of b's engine: a SQLite file, or a new
// PostgreSQL database on the server of ASSISTANT_TEST_POSTGRES in a
// sub-benchmark named "postgres" (storetest.Location).
func benchEnv(b *testing.B, now time.Time) *env {
	e := &env{t: b, ctx: context.Background(), now: now, reg: tools.NewRegistry(), rec: &recorder{}}
	e.path = storetest.Location(b)
	e.s = e.open()
	tasks.Register(e.reg)
	events.Register(e.reg)
	e.ada = e.person("ada", "Europe/Paris")
	e.bob = e.person("bob", "America/New_York")
	return e
}

// BenchmarkPassNothingDue is one pass over 100,000 tasks and 10,000 weekly
// events with reminders when nothing is due: the cost of a once-a-minute
// timer (target: under 200 ms). The first pass, which builds the next-fire
// index, is reported separately as first-pass-ms.
//
// It runs on each engine (…/sqlite, …/postgres; the latter needs
// ASSISTANT_TEST_POSTGRES):
//
//	go test ./remind -run '^$' -bench PassNothingDue -count 6
//
// (BenchmarkPassNothingDue/sqlite/pass, …/postgres/pass).
func BenchmarkPassNothingDue(b *testing.B) {
	b.Run(storetest.SQLite, passNothingDue)
	b.Run(storetest.Postgres, func(b *testing.B) {
		storetest.SkipUnlessPostgres(b)
		passNothingDue(b)
	})
}

func passNothingDue(b *testing.B) {
	e := benchEnv(b, civilAt(b, "Europe/Paris", "2026-10-05T06:00"))
	filled := time.Now()
	fill(b, e, 100_000, 10_000)
	fillTime := time.Since(filled)
	eng := e.engine(Options{})
	start := time.Now()
	if _, err := eng.Pass(e.ctx); err != nil {
		b.Fatal(err)
	}
	firstPass := time.Since(start)
	var indexed int
	if err := e.s.DB().QueryRow(`SELECT count(*) FROM remind_next WHERE next_fire IS NOT NULL`).Scan(&indexed); err != nil {
		b.Fatal(err)
	}
	if indexed != 110_000 {
		b.Fatalf("%d items indexed, want 110000", indexed)
	}
	// The passes are a sub-benchmark, so -count repeats them on the same
	// filled database instead of filling it again.
	b.Run("pass", func(b *testing.B) {
		for b.Loop() {
			e.now = e.now.Add(time.Second)
			r, err := eng.Pass(e.ctx)
			if err != nil {
				b.Fatal(err)
			}
			if r.Sent != 0 {
				b.Fatalf("something was due: %+v", r)
			}
		}
		b.ReportMetric(float64(firstPass.Milliseconds()), "first-pass-ms")
		b.ReportMetric(float64(fillTime.Milliseconds()), "fill-ms")
	})
}
