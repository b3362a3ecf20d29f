package tooltest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// seedColumns are the columns SeedTasks writes, the derived list columns
// of migration 00012 among them.
var seedColumns = []string{"owner_id", "title", "title_norm", "notes", "due_date", "due_time", "due_zone", "due_at",
	"priority", "tags", "status", "created_at", "updated_at", "list_day", "list_at", "list_zone", "search_fold", "tags_fold"}

// SeedTasks adds n open tasks to owner, whose zone is zone, fast: straight
// INSERTs of 500 rows, in one transaction, outside the journal, with the
// columns list_tasks reads worked out as the store works them out. The
// tasks are varied but fixed by n and first (the first title's number):
// one in four floating, two in four timed (in the owner's zone or another,
// a day within three months of now), the rest without a due; priorities 1
// to 4; tags from a few; a note on one in three. On PostgreSQL it ends
// with ANALYZE of tasks and task_tags. For benchmarks: the store's own
// writes are what tests exercise.
func SeedTasks(ctx context.Context, s *store.Store, owner int64, zone string, n, first int, now time.Time) error {
	z, err := tz.LoadZone(zone)
	if err != nil {
		return err
	}
	other := tz.MustZone("America/New_York")
	today := z.Today(now)
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.Engine() == store.SQLite {
		// A page cache that holds the whole transaction: with the default
		// (2 MiB) SQLite spills dirty pages to the WAL mid-transaction and
		// a 100k seed spends most of its time in writes it redoes.
		if _, err := tx.ExecContext(ctx, "PRAGMA cache_size = -524288"); err != nil {
			return err
		}
	}
	const batch = 500
	stamp := now.UTC().Format(time.RFC3339)
	rows := make([]any, 0, batch*len(seedColumns))
	flush := func(k int) error {
		if k == 0 {
			return nil
		}
		var b strings.Builder
		b.WriteString("INSERT INTO tasks (" + strings.Join(seedColumns, ", ") + ") VALUES ")
		p := 0
		for i := range k {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(")
			for j := range seedColumns {
				if j > 0 {
					b.WriteString(", ")
				}
				p++
				if s.Engine() == store.Postgres {
					b.WriteString("$" + strconv.Itoa(p))
				} else {
					b.WriteString("?")
				}
			}
			b.WriteString(")")
		}
		_, err := tx.ExecContext(ctx, b.String(), rows...)
		rows = rows[:0]
		return err
	}
	tagSets := [][]string{nil, {"home"}, {"work"}, {"home", "errands"}, {"Café"}}
	k := 0
	for i := range n {
		num := first + i
		t := task.Task{Status: task.Open, Priority: 1 + num%4, Title: fmt.Sprintf("Task number %d about the garden", num), CreatedAt: now}
		if num%3 == 0 {
			t.Notes = "Remember the crème fraîche and the milk."
		}
		t.Tags = tagSets[num%len(tagSets)]
		day := today.AddDays(num%97 - 10)
		switch num % 4 {
		case 0:
			t.Due, t.HasDue = task.Day(day), true
		case 1:
			t.Due, t.HasDue = task.Timed(day.At(num%24, 0), z), true
		case 2:
			t.Due, t.HasDue = task.Timed(day.At(num%24, 30), other), true
		}
		var dueDate, dueTime, dueZone, dueAt any
		if t.HasDue {
			dueDate = t.Due.Date.String()
			if t.Due.HasTime {
				dueTime, dueZone, dueAt = t.Due.DateTime.String(), t.Due.Zone.Name(), t.Due.At.Unix()
			}
		}
		tags := t.Tags
		if tags == nil {
			tags = []string{}
		}
		tj, _ := json.Marshal(tags)
		d := store.DerivedTaskColumns(t, z)
		rows = append(rows, owner, t.Title, item.NormTitle(t.Title), t.Notes, dueDate, dueTime, dueZone, dueAt,
			t.Priority, string(tj), t.Status, now.Unix(), stamp, d["list_day"], d["list_at"], d["list_zone"],
			d["search_fold"], d["tags_fold"])
		if k++; k == batch {
			if err := flush(k); err != nil {
				return err
			}
			k = 0
		}
	}
	if err := flush(k); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if s.Engine() == store.Postgres {
		// What autovacuum does within a minute of a bulk load: without
		// statistics the planner takes the tables for nearly empty and
		// may walk every task of the person for a page.
		_, err = s.DB().ExecContext(ctx, `ANALYZE tasks, task_tags`)
	}
	return err
}
