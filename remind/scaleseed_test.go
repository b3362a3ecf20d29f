package remind

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
)

// The reminder bounds the scale seed writes are those the store works out
// for the same rows when it opens a database whose rows have none: the
// seed's shortcut must not change what the benchmarks measure.
func TestScaleSeedBoundsAreTheStores(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		loc := storetest.Location(t)
		s, err := store.Open(ctx, loc, nil)
		if err != nil {
			t.Fatal(err)
		}
		const n = 20_000
		err = seedScale(ctx, s, loc, n)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		driver := "sqlite"
		if storetest.Engine(t) == storetest.Postgres {
			driver = "pgx"
		}
		raw, err := sql.Open(driver, loc)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		read := func() []string { return remindBounds(t, ctx, raw) }
		seeded := read()
		if len(seeded) != n {
			t.Fatalf("%d items seeded, want %d", len(seeded), n)
		}
		kinds := map[string]int{}
		for _, l := range seeded {
			switch {
			case strings.HasSuffix(l, " nil"):
				kinds["without end"]++
			case strings.HasSuffix(l, ": 0 0"):
				kinds["never"]++
			default:
				kinds["bounded"]++
			}
		}
		if kinds["without end"] == 0 || kinds["never"] == 0 || kinds["bounded"] == 0 {
			t.Fatalf("the seed's bounds are not varied: %v", kinds)
		}
		for _, table := range []string{"tasks", "events"} {
			if _, err := raw.ExecContext(ctx, `UPDATE `+table+` SET remind_from = NULL, remind_until = NULL`); err != nil {
				t.Fatal(err)
			}
		}
		// Opening the store works out the bounds of the rows without.
		if s, err = store.Open(ctx, loc, nil); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if got := read(); !slices.Equal(got, seeded) {
			bad := 0
			for i := range min(len(got), len(seeded)) {
				if got[i] != seeded[i] {
					if bad++; bad <= 5 {
						t.Errorf("the store works out %q, the seed wrote %q", got[i], seeded[i])
					}
				}
			}
			t.Fatalf("%d of %d items differ (store %d, seed %d)", bad, n, len(got), len(seeded))
		}
	})
}

// remindBounds is every task's and event's remind_from and remind_until
// in db, a line each ("tasks 7: 1700000000 nil", nil for NULL), by table
// and id.
func remindBounds(t testing.TB, ctx context.Context, db *sql.DB) (out []string) {
	t.Helper()
	for _, table := range []string{"tasks", "events"} {
		rows, err := db.QueryContext(ctx, `SELECT id, remind_from, remind_until FROM `+table+` ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var from, until sql.NullInt64
			if err := rows.Scan(&id, &from, &until); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %d: %v %v", table, id, nullText(from), nullText(until)))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func nullText(v sql.NullInt64) string {
	if !v.Valid {
		return "nil"
	}
	return fmt.Sprint(v.Int64)
}
