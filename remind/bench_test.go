package remind

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// fill writes n tasks with timed dues spread over the coming year and m
// weekly events, all with reminders, straight into the tables (the tools
// would take minutes for this many), in the columns the task and event
// migrations define.
func fill(b *testing.B, e *env, n, m int) {
	b.Helper()
	ctx := context.Background()
	zone := tz.MustZone("Europe/Paris")
	tx, err := e.s.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	stamp := e.now.UTC().Format(time.RFC3339)
	base := zone.Today(e.now).AddDays(1)
	taskStmt, err := tx.PrepareContext(ctx, `INSERT INTO tasks (owner_id, title, title_norm, due_date, due_time, due_zone,
		due_at, remind_before, created_at, updated_at) VALUES (?, ?, lower(?2), ?, ?, ?, ?, '[15, 1440]', ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		dt := base.AddDays(i%365).At(8+i%10, (i%4)*15)
		at, _ := zone.Instant(dt)
		if _, err := taskStmt.ExecContext(ctx, e.ada.ID, fmt.Sprintf("Task %d", i), dt.Date.String(), dt.String(),
			zone.Name(), at.Unix(), e.now.Unix(), stamp); err != nil {
			b.Fatal(err)
		}
	}
	evStmt, err := tx.PrepareContext(ctx, `INSERT INTO events (owner_id, uid, title, start_local, end_local, tzid,
		start_at, end_at, rrule, first_at, last_at, remind_before, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'FREQ=WEEKLY', ?, NULL, '[10]', ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := range m {
		dt := base.AddDays(i%7).At(7+i%12, (i%2)*30)
		at, _ := zone.Instant(dt)
		end := dt.AddMinutes(30)
		endAt, _ := zone.Instant(end)
		if _, err := evStmt.ExecContext(ctx, e.ada.ID, fmt.Sprintf("bench-%d", i), fmt.Sprintf("Event %d", i),
			dt.String(), end.String(), zone.Name(), at.Unix(), endAt.Unix(), at.Unix(), e.now.Unix(), stamp); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPassNothingDue is one pass over 100,000 tasks and 10,000 weekly
// events with reminders when nothing is due: the cost of a once-a-minute
// timer (target: under 200 ms). The first pass, which builds the next-fire
// index, is reported separately as first-pass-ms.
func BenchmarkPassNothingDue(b *testing.B) {
	e := newEnv(b, civilAt(b, "Europe/Paris", "2026-10-05T06:00"))
	fill(b, e, 100_000, 10_000)
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
	b.ResetTimer()
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
}
