package store

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestOfKeysProbesTheIndex: on PostgreSQL the generic plan of each read
// by keys ([Tx.ofKeys]) an import makes probes an index by each key, made
// on empty tables and on thousands of rows the transaction added, without
// statistics: a plan reading the person's index range and filtering it
// made a 50,000-event import read every event added before each batch.
// On SQLite the same reads find the rows they name.
func TestOfKeysProbesTheIndex(t *testing.T) {
	lookups := []struct {
		read  keyRead
		keys  any
		index string
	}{
		{eventsByUID, []string{"a@x", "b@x"}, "events_owner_uid"},
		{overridesByEvent, []int64{1, 2}, "event_overrides_event"},
		{tasksByUID, []string{"a@x", "b@x"}, "tasks_owner_uid"},
		{madeTasksByID, []int64{1, 2}, "tasks_pkey"},
	}
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		if f.s.Engine() == SQLite {
			id, _ := f.add(t, f.alice.ID, "kept")
			tx := &Tx{s: f.s, ctx: f.ctx, owner: f.alice.ID}
			q, args := tx.ofKeys("id, title", keyRead{"notes", "owner_id = ?", "id"}, []int64{id, id + 1})
			var got []string
			rows, err := f.s.DB().QueryContext(f.ctx, q, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var n int64
				var title string
				if err := rows.Scan(&n, &title); err != nil {
					t.Fatal(err)
				}
				got = append(got, title)
			}
			if strings.Join(got, ",") != "kept" {
				t.Errorf("read %v, want the one note named", got)
			}
			return
		}
		// An import's transaction: the generic plan of each read, made
		// on empty tables and again once they hold rows the transaction
		// added (no statistics).
		errDone := errors.New("rolled back")
		_, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
			if _, err := tx.tx.ExecContext(f.ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
				return err
			}
			for _, rows := range []int{0, 3000} {
				if rows > 0 {
					for _, q := range []string{
						`INSERT INTO events (owner_id, uid, title, start_local, end_local, tzid, start_at, end_at, first_at, created_at)
							SELECT ?, 'u' || i || '@x', 'e', '2026-12-01T10:00:00', '2026-12-01T11:00:00', 'UTC', 1796100000 + i, 1796103600 + i, 1796100000 + i, 0
							FROM generate_series(1, 3000) AS i`,
						`INSERT INTO event_overrides (owner_id, event_id, recurrence_id, created_at)
							SELECT owner_id, id, '2026-12-08T10:00:00', 0 FROM events WHERE owner_id = ?`,
						`INSERT INTO tasks (owner_id, title, title_norm, created_at, uid)
							SELECT ?, 't', 't', 0, 'u' || i || '@x' FROM generate_series(1, 3000) AS i`,
					} {
						if _, err := tx.tx.ExecContext(f.ctx, q, f.alice.ID); err != nil {
							return err
						}
					}
				}
				for i, l := range lookups {
					q, _ := tx.ofKeys("*", l.read, l.keys)
					n := 0 // the keys are $1, the owner $2, as bound
					q = regexp.MustCompile(`\?`).ReplaceAllStringFunc(q, func(string) string { n++; return "$" + strconv.Itoa(n) })
					typ := "text[]"
					if _, ok := l.keys.([]int64); ok {
						typ = "bigint[]"
					}
					name := "lookup" + strconv.Itoa(i)
					if _, err := tx.tx.ExecContext(f.ctx, `PREPARE `+name+`(`+typ+`, bigint) AS `+q); err != nil {
						return err
					}
					r, err := tx.tx.QueryContext(f.ctx, `EXPLAIN EXECUTE `+name+`('{1}', 1)`)
					if err != nil {
						return err
					}
					var plan []string
					for r.Next() {
						var line string
						if err := r.Scan(&line); err != nil {
							return err
						}
						plan = append(plan, line)
					}
					r.Close()
					if _, err := tx.tx.ExecContext(f.ctx, `DEALLOCATE `+name); err != nil {
						return err
					}
					text := strings.Join(plan, "\n")
					probe := regexp.MustCompile(`Index Cond: \(.*\b` + l.read.col + ` = k\.v\)`)
					if !strings.Contains(text, l.index) || !probe.MatchString(text) || !strings.Contains(text, "Function Scan on unnest k") {
						t.Errorf("%s by %s, %d rows: the generic plan does not probe %s by each key:\n%s", l.read.table, l.read.col, rows, l.index, text)
					}
				}
			}
			return errDone
		})
		if !errors.Is(err, errDone) {
			t.Fatal(err)
		}
	})
}
