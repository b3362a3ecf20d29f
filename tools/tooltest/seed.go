package tooltest

import (
	"context"
	"database/sql"
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
// of migration 00012 and the reminder bounds of migration 00014 among
// them.
var seedColumns = []string{"owner_id", "title", "title_norm", "notes", "due_date", "due_time", "due_zone", "due_at",
	"priority", "tags", "status", "created_at", "updated_at", "list_day", "list_at", "list_zone", "search_fold", "tags_fold",
	"remind_from", "remind_until"}

// SeedTasks adds n open tasks to owner, whose zone is zone, fast: straight
// INSERTs of 500 rows, in one transaction, outside the journal, with the
// columns list_tasks reads and the reminder bounds worked out as the store
// works them out. The tasks are varied but fixed by n and first (the
// first title's number): one in four floating, two in four timed (in the
// owner's zone or another, a day within three months of now), the rest
// without a due; priorities 1 to 4; tags from a few; a note on one in
// three. On PostgreSQL it ends with VACUUM ANALYZE of tasks and task_tags. For
// benchmarks: the store's own writes are what tests exercise.
func SeedTasks(ctx context.Context, s *store.Store, owner int64, zone string, n, first int, now time.Time) error {
	return SeedTaskSets(ctx, s, now, TaskSet{Owner: owner, Zone: zone, N: n, First: first})
}

// TaskSet is a share of [SeedTaskSets]: N open tasks of Owner, whose zone
// is Zone, the first titled with number First.
type TaskSet struct {
	Owner int64
	Zone  string
	N     int
	First int
}

// BulkSeed is the number of tasks from which [SeedTaskSets] builds the
// secondary indexes of tasks after the rows are in, one pass each, rather
// than keeping them row by row. A variable so tests can take that path
// with few rows.
var BulkSeed = 100_000

// SeedTaskSets adds the tasks of every set as [SeedTasks] adds those of
// one, all in one transaction and with one VACUUM ANALYZE at the end on
// PostgreSQL (an ANALYZE of a million tasks takes about a second: one per
// person made the 1M seed take a quarter of an hour). From [BulkSeed]
// tasks in all, the secondary indexes of tasks are dropped first and made
// again, as they were defined, after the rows are in.
func SeedTaskSets(ctx context.Context, s *store.Store, now time.Time, sets ...TaskSet) error {
	total := 0
	for _, set := range sets {
		total += set.N
	}
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
	var restore func() error
	if total >= BulkSeed {
		if restore, err = withoutIndexes(ctx, tx, s.Engine(), "tasks"); err != nil {
			return err
		}
	}
	for _, set := range sets {
		if err := seedTaskSet(ctx, s, tx, set, now); err != nil {
			return err
		}
	}
	if restore != nil {
		if err := restore(); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if s.Engine() == store.Postgres {
		// What autovacuum does within a minute of a bulk load (an
		// insert-only table is vacuumed once its inserts pass a fifth of
		// it): without statistics the planner takes the tables for nearly
		// empty and may walk every task of the person for a page, and
		// without the visibility map an index-only scan (the page's count)
		// still reads every row's heap page.
		_, err = s.DB().ExecContext(ctx, `VACUUM (ANALYZE) tasks, task_tags`)
	}
	return err
}

// withoutIndexes drops the secondary indexes of table (not those behind
// its primary key or constraints) in tx and returns what makes them again
// as they were defined.
func withoutIndexes(ctx context.Context, tx *sql.Tx, engine store.Engine, table string) (restore func() error, err error) {
	q := `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`
	if engine == store.Postgres {
		q = `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1
			AND indexname NOT IN (SELECT conname FROM pg_constraint)`
	}
	rows, err := tx.QueryContext(ctx, q, table)
	if err != nil {
		return nil, err
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, err
		}
		names, defs = append(names, name), append(defs, def)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := tx.ExecContext(ctx, `DROP INDEX `+name); err != nil {
			return nil, err
		}
	}
	return func() error {
		if engine == store.Postgres {
			// The trigram index of search_fold builds in one pass when
			// its work fits in memory.
			if _, err := tx.ExecContext(ctx, `SET LOCAL maintenance_work_mem = '256MB'`); err != nil {
				return err
			}
		}
		for _, def := range defs {
			if _, err := tx.ExecContext(ctx, def); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// seedTaskSet inserts the tasks of set in tx.
func seedTaskSet(ctx context.Context, s *store.Store, tx *sql.Tx, set TaskSet, now time.Time) error {
	owner, n, first := set.Owner, set.N, set.First
	z, err := tz.LoadZone(set.Zone)
	if err != nil {
		return err
	}
	other := tz.MustZone("America/New_York")
	today := z.Today(now)
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
		from, until := store.TaskRemindBounds(t).Columns()
		rows = append(rows, owner, t.Title, item.NormTitle(t.Title), t.Notes, dueDate, dueTime, dueZone, dueAt,
			t.Priority, string(tj), t.Status, now.Unix(), stamp, d["list_day"], d["list_at"], d["list_zone"],
			d["search_fold"], d["tags_fold"], from, until)
		if k++; k == batch {
			if err := flush(k); err != nil {
				return err
			}
			k = 0
		}
	}
	return flush(k)
}
