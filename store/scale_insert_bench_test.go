package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// scaleSizes are the table sizes of the scale benchmarks; sizes above 10k
// are skipped under -short.
var scaleSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}}

// BenchmarkScaleJournaledInsert is the cost of the journal: one task added
// as add_task adds it ([Store.AddTask]: the row, which the INSERT adds
// unless a task like it was added in the last item.DuplicateWindow, and
// its journal row, in one transaction) against the same row added by one
// bare prepared INSERT into the same table (same indexes, its own
// transaction, on SQLite the same connection), on a database already holding N tasks. A third call adds
// it by the general path of a tool's write (Write, InsertTask, a summary),
// reported as "write-ns" and "x-bare-write". The same row is every column
// InsertTask writes, the derived ones too (the text the search index
// keeps, the list order, the reminder bounds), so all pay for the same
// indexes; the benchmark checks that each journaled row equals the bare
// one but for their id. The three alternate in one loop so all meet the
// same load of a shared machine; ns/op is the three, "journaled-ns",
// "write-ns" and "bare-ns" are the medians of each, and "x-bare" is the
// ratio of add_task's to the bare one (the target: at most 1.5).
//
//	go test ./store -run '^$' -bench ScaleJournaledInsert -count 6
func BenchmarkScaleJournaledInsert(b *testing.B) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run(engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			for _, size := range scaleSizes {
				b.Run("rows="+size.name, func(b *testing.B) {
					if size.n > 10_000 && testing.Short() {
						b.Skip("above 10k rows under -short")
					}
					benchJournaledInsert(b, size.n)
				})
			}
		})
	}
}

// seedTasks adds n open tasks of owner in one statement, half with a due
// day, a tenth with a timed due. From 100k rows the indexes of tasks are
// built after the insert, in one pass each, rather than kept row by row
// (the 1M seed took one to two minutes).
func seedTasks(b *testing.B, f *fixture, owner int64, n int) {
	b.Helper()
	start := time.Now()
	if n >= 100_000 {
		defer func() { b.Logf("seeded %d tasks in %v", n, time.Since(start).Round(time.Millisecond)) }()
		defer withoutTaskIndexes(b, f)()
	}
	_, err := f.s.DB().ExecContext(f.ctx, `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
		INSERT INTO tasks (owner_id, title, title_norm, due_date, due_time, due_zone, due_at, created_at, updated_at)
		SELECT ?, 'seeded task ' || i, 'seeded task ' || i,
			CASE WHEN i % 2 = 0 THEN '2026-10-' || (10 + i % 18) END,
			CASE WHEN i % 10 = 0 THEN '2026-10-' || (10 + i % 18) || 'T09:00:00' END,
			CASE WHEN i % 10 = 0 THEN 'Europe/Paris' END,
			CASE WHEN i % 10 = 0 THEN ? + i END,
			?, ? FROM s`, n, owner, t0.Unix(), t0.Unix(), stamp(t0))
	if err != nil {
		b.Fatal(err)
	}
}

// withoutTaskIndexes drops the secondary indexes of tasks (not those of
// its primary key or constraints) and returns what makes them again, as
// they were defined.
func withoutTaskIndexes(b *testing.B, f *fixture) (restore func()) {
	b.Helper()
	q := `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks' AND sql IS NOT NULL`
	if f.s.Engine() == Postgres {
		q = `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'tasks'
			AND indexname NOT IN (SELECT conname FROM pg_constraint)`
	}
	rows, err := f.s.DB().QueryContext(f.ctx, q)
	if err != nil {
		b.Fatal(err)
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			b.Fatal(err)
		}
		names, defs = append(names, name), append(defs, def)
	}
	if err := rows.Close(); err != nil {
		b.Fatal(err)
	}
	for _, name := range names {
		if _, err := f.s.DB().ExecContext(f.ctx, `DROP INDEX `+name); err != nil {
			b.Fatal(err)
		}
	}
	return func() {
		for _, def := range defs {
			if _, err := f.s.DB().ExecContext(f.ctx, def); err != nil {
				b.Fatal(err)
			}
		}
		if f.s.Engine() == Postgres {
			if _, err := f.s.DB().ExecContext(f.ctx, `ANALYZE tasks`); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func benchJournaledInsert(b *testing.B, n int) {
	f := newFixture(b)
	seedTasks(b, f, f.alice.ID, n)
	benchJournaledInsertOn(b, f)
}

func benchJournaledInsertOn(b *testing.B, f *fixture) {
	// The columns of the row InsertTask writes for a task with a title
	// alone, worked out as it does; only the title's differ from call to
	// call.
	zone := tz.MustZone(f.alice.Zone)
	like := task.Task{Title: "x", Priority: 4, Status: task.Open, CreatedAt: t0}
	derived := derivedRow(like, zone)
	remindFrom, remindUntil := TaskRemindBounds(like).Columns()
	const bareInsert = `INSERT INTO tasks (owner_id, title, title_norm, notes, priority, tags,
		remind_before, remind_at, remind_once, status, created_at, updated_at,
		list_day, list_at, list_zone, search_fold, tags_fold, remind_from, remind_until)
		VALUES (?, ?, ?, '', 4, '[]', '[]', '[]', '[]', 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// The bare INSERT runs where the store's writes run: on SQLite the
	// kept connection (hotConn), so both meet the same page cache, which
	// SQLite drops on a connection when another one wrote.
	bare := func(args ...any) (sql.Result, error) {
		if h := f.s.takeHot(f.ctx); h != nil {
			defer f.s.putHot()
			if st := h.stmt(f.ctx, bareInsert); st != nil {
				return st.ExecContext(f.ctx, args...)
			}
			return nil, errors.New("cannot prepare the bare INSERT on the kept connection")
		}
		if f.s.Engine() == SQLite {
			return nil, errors.New("the kept connection is busy")
		}
		return f.s.DB().ExecContext(f.ctx, bareInsert, args...)
	}
	i := 0
	// add_task's own path (AddTask): the INSERT, which also looks for a
	// task like it added in the last DuplicateWindow, and the journal.
	addJournaled := func() {
		i++
		title := fmt.Sprintf("Task number %d", i)
		_, _, added, err := f.s.AddTask(f.ctx, f.alice.ID, "add_task", f.alice.Zone,
			task.Task{Title: title, Priority: 4, Status: task.Open, CreatedAt: t0}, t0.Add(-item.DuplicateWindow),
			func(ref string) string { return "added " + ref + " “" + title + "”" })
		if err != nil || !added {
			b.Fatalf("AddTask: added %v, %v", added, err)
		}
	}
	// The general path of a tool's write: Write, InsertTask, a summary.
	addWritten := func() {
		i++
		title := fmt.Sprintf("Task number %d", i)
		_, err := f.s.Write(f.ctx, f.alice.ID, "add_task", func(tx *Tx) error {
			id, err := tx.InsertTask(task.Task{Title: title, Priority: 4, Status: task.Open, CreatedAt: t0})
			tx.Summarize(fmt.Sprintf("added t%d “%s”", id, title))
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	addBare := func() {
		title := fmt.Sprintf("Task number %d", i)
		if _, err := bare(f.alice.ID, title, item.NormTitle(title), t0.Unix(), stamp(t0),
			derived["list_day"], derived["list_at"], derived["list_zone"], item.FoldText(title)+searchSep,
			derived["tags_fold"], remindFrom, remindUntil); err != nil {
			b.Fatal(err)
		}
	}
	addJournaled()
	addBare()
	sameRows(b, f)
	addWritten()
	addBare()
	sameRows(b, f)
	var framesJournaled, framesWritten, framesBare float64
	if f.s.Engine() == SQLite {
		framesJournaled, framesWritten, framesBare = walFrames(b, f, addJournaled), walFrames(b, f, addWritten), walFrames(b, f, addBare)
	}
	var journaled, written, plain []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		addJournaled()
		journaled = append(journaled, time.Since(start))
		start = time.Now()
		addBare()
		plain = append(plain, time.Since(start))
		start = time.Now()
		addWritten()
		written = append(written, time.Since(start))
	}
	b.StopTimer()
	j, w, p := median(journaled), median(written), median(plain)
	b.ReportMetric(float64(j.Nanoseconds()), "journaled-ns")
	b.ReportMetric(float64(w.Nanoseconds()), "write-ns")
	b.ReportMetric(float64(p.Nanoseconds()), "bare-ns")
	b.ReportMetric(float64(j)/float64(p), "x-bare")
	b.ReportMetric(float64(w)/float64(p), "x-bare-write")
	if framesJournaled > 0 {
		b.ReportMetric(framesJournaled, "pages-journaled")
		b.ReportMetric(framesWritten, "pages-write")
		b.ReportMetric(framesBare, "pages-bare")
	}
}

// sameRows fails b unless the last two tasks added, the journaled one and
// the bare one, hold the same values but for their id: a bare row that
// left out a column InsertTask writes (the search text) would be cheaper
// by the indexes it skips, not by the journal.
func sameRows(b *testing.B, f *fixture) {
	b.Helper()
	rows, err := f.s.DB().QueryContext(f.ctx, `SELECT * FROM tasks ORDER BY id DESC LIMIT 2`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var images [][]byte
	for rows.Next() {
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		for i, c := range cols {
			if c == "id" {
				vals[i] = nil
			}
		}
		img, err := encodeRow(cols, vals)
		if err != nil {
			b.Fatal(err)
		}
		images = append(images, img)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	if len(images) != 2 || string(images[0]) != string(images[1]) {
		b.Fatalf("the bare INSERT does not write the row InsertTask writes:\n%s\n%s", images[0], images[1])
	}
}

// walFrames is the number of pages (WAL frames) one write of add writes on
// SQLite, counted over 30 writes from an emptied WAL: fewer than the 1,000
// frames after which SQLite checkpoints and starts the WAL over (at 100
// writes of 10 pages or more it did, and both figures read 10.0 whatever
// was written).
func walFrames(b *testing.B, f *fixture, add func()) float64 {
	const n = 30
	if _, err := f.s.DB().ExecContext(f.ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	for range n {
		add()
	}
	st, err := os.Stat(f.path + "-wal")
	if err != nil {
		b.Fatal(err)
	}
	const header, frame = 32, 24 + 4096 // the WAL's header, a frame's header and page
	return float64(st.Size()-header) / frame / n
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
