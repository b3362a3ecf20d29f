package tasks

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkAddTask is one add_task end to end: Registry.Call, Args, the
// duplicate check, a journaled BEGIN IMMEDIATE write with synchronous=FULL.
func BenchmarkAddTask(b *testing.B) {
	h := newHarness(b, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
	b.ResetTimer()
	for i := range b.N {
		res, _ := h.Call(h.paris, "add_task", fmt.Sprintf(`{"title":"Task %d","due":"2026-12-01T09:00","tags":["bench"],"priority":2}`, i))
		if !res.OK() {
			b.Fatal(res.TextOut())
		}
	}
}

// BenchmarkBareInsert is the floor: one INSERT of the same row straight
// through database/sql, in its own transaction, with no journal.
func BenchmarkBareInsert(b *testing.B) {
	h := newHarness(b, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
	db := h.Store.DB()
	b.ResetTimer()
	for i := range b.N {
		if _, err := db.Exec(`INSERT INTO tasks (owner_id, title, title_norm, due_date, due_time, due_zone, due_at, priority, tags, created_at, updated_at)
			VALUES (?, ?, '', '2026-12-01', '2026-12-01T09:00', 'Europe/Paris', 1795075200, 2, '["bench"]', 1795075200, '2026-11-30T08:00:00Z')`,
			h.paris.ID, fmt.Sprintf("Task %d", i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListTasks lists the first page out of 2,000 open tasks.
func BenchmarkListTasks(b *testing.B) {
	h := newHarness(b, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
	db := h.Store.DB()
	for i := range 2000 {
		if _, err := db.Exec(`INSERT INTO tasks (owner_id, title, title_norm, due_date, priority, tags, created_at, updated_at)
			VALUES (?, ?, '', ?, ?, '["x"]', 0, '2026-11-30T08:00:00Z')`,
			h.paris.ID, fmt.Sprintf("Task %d", i), fmt.Sprintf("2026-12-%02d", 1+i%28), 1+i%4); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if res, _ := h.Call(h.paris, "list_tasks", `{}`); !res.OK() {
			b.Fatal(res.TextOut())
		}
	}
}
