package tooltest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
)

var seedNow = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

// seedSets seeds three people's tasks into a new database of t's engine
// and returns its location.
func seedSets(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	loc := Location(t)
	s, err := store.Open(ctx, loc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var sets []TaskSet
	for i, zone := range []string{"Europe/Paris", "Asia/Tokyo", "America/New_York"} {
		p, err := s.EnsurePerson(ctx, fmt.Sprintf("p%d", i), zone)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, TaskSet{Owner: p.ID, Zone: zone, N: 300 + 50*i, First: 1000 * i})
	}
	if err := SeedTaskSets(ctx, s, seedNow, sets...); err != nil {
		t.Fatal(err)
	}
	return loc
}

// dump is every row of the query q on loc, each as text, read through the
// database's driver, not the store (which would work out what the rows
// lack when it opens).
func dump(t *testing.T, loc, q string) []string {
	t.Helper()
	ctx := context.Background()
	driver := "sqlite"
	if storetest.Engine(t) == storetest.Postgres {
		driver = "pgx"
	}
	db, err := sql.Open(driver, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The reminder bounds SeedTaskSets writes are those the store works out
// for the same rows when it opens a database whose rows have none.
func TestSeededBoundsAreTheStores(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		loc := seedSets(t)
		const q = `SELECT id, remind_from, remind_until FROM tasks ORDER BY id`
		seeded := dump(t, loc, q)
		if len(seeded) != 300+350+400 {
			t.Fatalf("%d tasks seeded, want %d", len(seeded), 300+350+400)
		}
		ctx := context.Background()
		s, err := store.Open(ctx, loc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().ExecContext(ctx, `UPDATE tasks SET remind_from = NULL, remind_until = NULL`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if s, err = store.Open(ctx, loc, nil); err != nil { // which works them out
			t.Fatal(err)
		}
		s.Close()
		if got := dump(t, loc, q); !slices.Equal(got, seeded) {
			for i := range min(len(got), len(seeded)) {
				if got[i] != seeded[i] {
					t.Fatalf("task %d: the store works out %q, the seed wrote %q", i, got[i], seeded[i])
				}
			}
			t.Fatalf("the store has %d tasks after working out the bounds, the seed %d", len(got), len(seeded))
		}
	})
}

// A seed large enough to build the indexes of tasks after its rows leaves
// the same rows, tags and indexes as one that keeps them row by row.
func TestBulkSeedBuildsTheSameIndexes(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		indexes := `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks' ORDER BY name`
		if storetest.Engine(t) == storetest.Postgres {
			indexes = `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'tasks' ORDER BY indexname`
		}
		const tasks = `SELECT * FROM tasks ORDER BY id`
		const tags = `SELECT owner_id, tag, task_id FROM task_tags ORDER BY owner_id, tag, task_id`
		// The trigram index and the tasks not yet in it (migration 00035).
		search := `SELECT rowid FROM tasks_fts WHERE tasks_fts MATCH '"number 77"'
			UNION ALL SELECT t.id FROM tasks_fts_pending p JOIN tasks t ON t.id = p.id WHERE instr(t.search_fold, 'number 77') > 0 ORDER BY 1`
		if storetest.Engine(t) == storetest.Postgres {
			search = `SELECT id FROM tasks WHERE search_fold LIKE '%number 77%' ORDER BY id`
		}
		kept := seedSets(t)
		old := BulkSeed
		BulkSeed = 1
		t.Cleanup(func() { BulkSeed = old })
		bulk := seedSets(t)
		BulkSeed = old
		for _, q := range []string{indexes, tasks, tags, search} {
			want, got := dump(t, kept, q), dump(t, bulk, q)
			if len(want) == 0 {
				t.Fatalf("%s: no rows", q)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s:\nbulk %q\nkept %q", q, got, want)
			}
		}
	})
}
