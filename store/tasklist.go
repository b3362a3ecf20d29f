package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// list_tasks in SQL (migration 00012_task_list.sql): the order, the tag
// filter and the text search read indexes, so a page costs what the page
// holds, not what the person holds. The columns it reads are derived from
// the task and, for an open task, the owner's zone; the store writes them
// with every task it writes, works them out again for a row undo puts
// back, for every open task of a person whose zone changes, and at
// start-up for rows older than the migration.

// noDueDay is list_day of an open task without a due: after every day.
const noDueDay = 99999999

// derivedTaskColumns are the columns of tasks the store derives; the
// journal's row images leave them out (see encodeRow), so a change to them
// alone is no change, and undo works them out again rather than putting
// back an old value.
var derivedTaskColumns = []string{"list_day", "list_at", "list_zone", "search_fold", "tags_fold"}

// searchSep separates the folded title from the folded notes in
// search_fold: a control character, which no folded query holds, so a
// match never spans the two.
const searchSep = "\x1f"

// TaskKey is a task's place in list_tasks' order ([TaskKeyOf]): open
// tasks first, by Day (yyyymmdd of the person's day of the due, 99999999
// without a due), Priority, At (the due's start, Unix seconds) and ID;
// then done tasks, the latest completed_at (At) first, then the highest
// ID.
type TaskKey struct {
	Done     bool
	Day      int64
	Priority int64
	At       int64
	ID       int64
}

// TaskKeyOf is t's key read in the person's zone: the day of a timed due
// is the person's day of its instant, a floating day starts at midnight in
// the zone.
func TaskKeyOf(t task.Task, zone tz.Zone) TaskKey {
	if t.Status == task.Done {
		return TaskKey{Done: true, At: t.CompletedAt.Unix(), ID: t.ID}
	}
	k := TaskKey{Day: noDueDay, Priority: int64(t.Priority), ID: t.ID}
	if t.HasDue {
		d := t.Due.PersonDay(zone)
		k.Day = int64(d.Year*10000 + int(d.Month)*100 + d.Day)
		k.At = t.Due.Start(zone).Unix()
	}
	return k
}

// Compare orders two keys as list_tasks lists them: -1 when k comes first.
func (k TaskKey) Compare(o TaskKey) int {
	if k.Done != o.Done {
		if !k.Done {
			return -1
		}
		return 1
	}
	c := func(a, b int64) int {
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	}
	if k.Done {
		if r := c(o.At, k.At); r != 0 {
			return r
		}
		return c(o.ID, k.ID)
	}
	for _, r := range []int{c(k.Day, o.Day), c(k.Priority, o.Priority), c(k.At, o.At), c(k.ID, o.ID)} {
		if r != 0 {
			return r
		}
	}
	return 0
}

// DerivedTaskColumns is the columns of tasks the store derives from t for
// an owner in zone (list_day, list_at, list_zone, search_fold, tags_fold;
// migration 00012), for a test or a benchmark that seeds rows itself.
func DerivedTaskColumns(t task.Task, zone tz.Zone) Row { return derivedRow(t, zone) }

// derivedRow is the derived columns of t for an owner in zone.
func derivedRow(t task.Task, zone tz.Zone) Row { return deriveInto(make(Row, 5), t, zone) }

// deriveInto sets the derived columns of derivedRow in row, and returns it.
func deriveInto(row Row, t task.Task, zone tz.Zone) Row {
	k := TaskKeyOf(t, zone)
	row["list_day"], row["list_at"], row["list_zone"] = k.Day, k.At, ""
	if k.Done {
		row["list_day"] = int64(0)
	} else {
		row["list_zone"] = zone.Name()
	}
	row["search_fold"] = item.FoldText(t.Title) + searchSep + item.FoldText(t.Notes)
	row["tags_fold"] = "[]"
	if len(t.Tags) > 0 {
		tags := make([]string, 0, len(t.Tags))
		for _, x := range t.Tags {
			tags = append(tags, item.FoldTag(x))
		}
		b, _ := json.Marshal(tags)
		row["tags_fold"] = string(b)
	}
	return row
}

// AssumeZone tells the transaction the owner's zone as the caller read it
// (a tool's person), so writing a task does not read it again: the list
// columns are worked out in it and list_zone says so. Were it not the
// stored zone any more (changed by another process since), lists in the
// stored zone see list_zone differ and read through the Go path
// ([Tx.TaskListFresh]) until the next zone change works them out again.
func (tx *Tx) AssumeZone(zone string) {
	if _, err := tz.LoadZone(zone); err == nil {
		tx.listZone = zone
	}
}

// ownerZone is the owner's zone, read once per transaction.
func (tx *Tx) ownerZone() (tz.Zone, error) {
	if tx.listZone != "" {
		return tz.LoadZone(tx.listZone)
	}
	var name string
	if err := tx.queryRow(`SELECT zone FROM people WHERE id = ?`, tx.owner).Scan(&name); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return tz.Zone{}, fmt.Errorf("there is no person with id %d: %w", tx.owner, ErrNotFound)
		}
		return tz.Zone{}, err
	}
	z, err := tz.LoadZone(name)
	if err == nil {
		tx.listZone = name
	}
	return z, err
}

// withDerived adds the derived columns of t to row, in the owner's zone.
func (tx *Tx) withDerived(row Row, t task.Task) (Row, error) {
	z, err := tx.ownerZone()
	if err != nil {
		return nil, err
	}
	return deriveInto(row, t, z), nil
}

// setDerived writes the derived columns of task t, outside the journal.
func (tx *Tx) setDerived(t task.Task, zone tz.Zone) error {
	d := derivedRow(t, zone)
	_, err := tx.execWrite(`UPDATE tasks SET list_day = ?, list_at = ?, list_zone = ?, search_fold = ?, tags_fold = ?
		WHERE id = ? AND owner_id = ?`, d["list_day"], d["list_at"], d["list_zone"], d["search_fold"], d["tags_fold"], t.ID, tx.owner)
	return err
}

// rederiveTask works out the derived columns of task id again (undo has
// put the row back).
func (tx *Tx) rederiveTask(id int64) error {
	t, _, err := tx.TaskEvenDeleted(id)
	if err != nil {
		return err
	}
	z, err := tx.ownerZone()
	if err != nil {
		return err
	}
	return tx.setDerived(t, z)
}

// relistTasks works out list_day, list_at and list_zone of every live open
// task of the owner in zone, after the owner's zone changed: one pass over
// those tasks, in this transaction, so no list ever reads a day worked
// out in the old zone.
func (tx *Tx) relistTasks(zone string) error {
	z, err := tz.LoadZone(zone)
	if err != nil {
		return err
	}
	tx.listZone = zone
	type due struct {
		id                 int64
		date, civil, dzone sql.NullString
		at                 any
		priority           int64
	}
	rows, err := tx.query(`SELECT id, due_date, due_time, due_zone, due_at, priority FROM tasks
		WHERE owner_id = ? AND deleted_at IS NULL AND status = 'open'`, tx.owner)
	if err != nil {
		return err
	}
	var all []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.id, &d.date, &d.civil, &d.dzone, &d.at, &d.priority); err != nil {
			rows.Close()
			return err
		}
		all = append(all, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, d := range all {
		t := task.Task{ID: d.id, Status: task.Open, Priority: int(d.priority)}
		if t.Due, t.HasDue, err = decodeDue(d.date.String, d.civil.String, d.dzone.String, d.at); err != nil {
			return fmt.Errorf("task %s: %w", task.Label(d.id), err)
		}
		k := TaskKeyOf(t, z)
		if _, err := tx.execWrite(`UPDATE tasks SET list_day = ?, list_at = ?, list_zone = ? WHERE id = ? AND owner_id = ?`,
			k.Day, k.At, zone, d.id, tx.owner); err != nil {
			return err
		}
	}
	return nil
}

// deriveOld fills the derived columns of rows written before migration
// 00012 (search_fold NULL), a batch per transaction; a database without
// such rows costs one look into a partial index.
func (s *Store) deriveOld(ctx context.Context) error {
	cols, err := s.columns(ctx, s.db, tasksTable)
	if err != nil || !contains(cols, "search_fold") {
		return err
	}
	sel := make([]string, len(taskColumns))
	for i, c := range taskColumns {
		sel[i] = "t." + c
	}
	q := `SELECT ` + strings.Join(sel, ", ") + `, t.owner_id, p.zone FROM tasks t JOIN people p ON p.id = t.owner_id
		WHERE t.search_fold IS NULL ORDER BY t.id LIMIT 500`
	for {
		n := 0
		err := func() error {
			db, err := s.db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer db.Rollback()
			rows, err := db.QueryContext(ctx, q)
			if err != nil {
				return err
			}
			type one struct {
				t     task.Task
				zone  string
				owner int64
			}
			var batch []one
			vals := make([]any, len(taskColumns)+2)
			ptrs := make([]any, len(vals))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			for rows.Next() {
				if err := rows.Scan(ptrs...); err != nil {
					rows.Close()
					return err
				}
				r := make(Row, len(taskColumns))
				for i, c := range taskColumns {
					r[c] = vals[i]
				}
				t, err := decodeTask(r)
				if err != nil {
					rows.Close()
					return err
				}
				owner, _ := integer(vals[len(taskColumns)])
				batch = append(batch, one{t, text(vals[len(taskColumns)+1]), owner})
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, o := range batch {
				z, err := tz.LoadZone(o.zone)
				if err != nil {
					return err
				}
				d := derivedRow(o.t, z)
				if _, err := db.ExecContext(ctx, `UPDATE tasks SET list_day = ?, list_at = ?, list_zone = ?, search_fold = ?, tags_fold = ?
					WHERE id = ?`, d["list_day"], d["list_at"], d["list_zone"], d["search_fold"], d["tags_fold"], o.t.ID); err != nil {
					return err
				}
			}
			n = len(batch)
			return db.Commit()
		}()
		if err != nil {
			return fmt.Errorf("cannot prepare the tasks for listing: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
}

// TaskListFresh reports whether the owner's derived list columns were all
// worked out in zone (the zone a list is read in): when not (a zone
// changed by another process while this one kept the old, rows older than
// migration 00012), a caller lists through [Tx.Tasks] instead. Two looks
// into indexes.
func (tx *Tx) TaskListFresh(zone string) (bool, error) {
	var f freshness
	if err := tx.queryRow(`SELECT `+freshColumns, tx.owner, tx.owner, tx.owner).Scan(&f.lo, &f.hi, &f.old); err != nil {
		return false, err
	}
	return f.in(zone), nil
}

// freshColumns are what [Tx.TaskListFresh] reads, as the columns of a
// SELECT taking the owner three times: the lowest and highest list_zone
// of the open tasks, and whether a task lacks its search text.
const freshColumns = `(SELECT list_zone FROM tasks WHERE owner_id = ? AND status = 'open' AND deleted_at IS NULL ORDER BY list_zone LIMIT 1),
		(SELECT list_zone FROM tasks WHERE owner_id = ? AND status = 'open' AND deleted_at IS NULL ORDER BY list_zone DESC LIMIT 1),
		(SELECT count(*) FROM (SELECT 1 FROM tasks WHERE search_fold IS NULL AND owner_id = ? LIMIT 1) AS u)`

// freshness is what freshColumns read.
type freshness struct {
	lo, hi sql.NullString
	old    int64
}

// in reports whether the list columns were all worked out in zone.
func (f freshness) in(zone string) bool {
	return f.old == 0 && (!f.lo.Valid || f.lo.String == zone && f.hi.String == zone)
}

// TaskQuery is one page of list_tasks for [Tx.TaskPage].
type TaskQuery struct {
	// Status is task.Open, task.Done, or "" for both (open first).
	Status string
	// Window as in [TaskFilter] (WithoutDue is not used).
	Window         bool
	From, To       time.Time
	FromDay, ToDay tz.Date
	// Tag keeps the tasks with this tag: [item.FoldCase] of it is one of
	// [item.FoldTag] of theirs, as [task.Task.HasTag] compares.
	Tag string
	// Query keeps the tasks whose title or notes hold it
	// ([item.FoldText] on both sides).
	Query string
	// After, when set, starts the page after this key.
	After    TaskKey
	HasAfter bool
	// Limit is the most tasks returned; Cap the most counted.
	Limit, Cap int
	// Zone, when set, is the zone the page is listed in: the page is
	// read only if the owner's list columns were worked out in it, as
	// [Tx.TaskListFresh] tells (asked in the count's own statement);
	// else [TaskPage.Stale] is set and nothing is read.
	Zone string
}

// TaskPage is what [Tx.TaskPage] found.
type TaskPage struct {
	Tasks []task.Task
	Keys  []TaskKey // Keys[i] is the key of Tasks[i]
	// Total is how many tasks match in all, counted up to the query's
	// Cap; Exact is false when there are more than Cap.
	Total int
	Exact bool
	// Stale is set when the query's Zone was given and the list columns
	// were worked out in another (see [Tx.TaskListFresh]): the page is
	// empty, and the caller lists another way.
	Stale bool
}

// minTrigram is the shortest folded query the trigram indexes can find:
// a shorter one is looked for in each task of the person, in list order,
// until the page is full.
const minTrigram = 3

// Plans of a page with a tag or a text query. A filter that few tasks
// pass (at most TaskDriveCap rows in task_tags for the tag, or in the trigram
// index for the text, counted up to that) drives the query: its rows are
// read, joined to tasks and sorted, at most TaskDriveCap of them. A filter
// that many pass is checked on each task in list order (a probe into
// task_tags' primary key, instr on the folded text) until the page is
// full: many passing means a page fills soon, though it reads every task
// of the person when the many are other people's (a text) or done ones.
//
// TaskDriveCap is that bound; TaskTextCap the bound on the trigram
// index's hits, which are everyone's (a hit is one probe into tasks, far
// cheaper than reading the person's tasks in order). Tests lower both to
// read through both plans.
var TaskDriveCap, TaskTextCap = 1000, 20000

type plan int

const (
	walk   plan = iota // list order, each filter checked per task
	byTag              // from task_tags
	byText             // from the ids tasks_fts found (SQLite)
	byIDs              // from the ids of the tasks the count found (PostgreSQL)
)

// planOf chooses how a page of q is read; for byText it returns the
// trigram index's hits (ids of tasks of anyone), so the index is read
// once per page.
func (tx *Tx) planOf(q TaskQuery) (plan, string, error) {
	if q.Tag != "" {
		var n int
		if err := tx.queryRow(`SELECT count(*) FROM (SELECT 1 FROM task_tags WHERE owner_id = ? AND tag = ? LIMIT ?) AS c`,
			tx.owner, item.FoldCase(q.Tag), TaskDriveCap+1).Scan(&n); err != nil {
			return walk, "", err
		}
		if n <= TaskDriveCap {
			return byTag, "", nil
		}
	}
	if fq := item.FoldText(q.Query); tx.s.engine == SQLite && utf8.RuneCountInString(fq) >= minTrigram {
		// The tasks added since the index last took a batch (fewer than
		// 64, migration 00035) are not in it: those of the owner holding
		// the text join its hits.
		rows, err := tx.query(`SELECT rowid FROM tasks_fts WHERE tasks_fts MATCH ?
			UNION ALL SELECT p.id FROM tasks_fts_pending p CROSS JOIN tasks t ON t.id = p.id WHERE t.owner_id = ? AND instr(t.search_fold, ?) > 0
			LIMIT ?`, ftsPhrase(fq), tx.owner, fq, TaskTextCap+1)
		if err != nil {
			return walk, "", err
		}
		defer rows.Close()
		ids := make([]int64, 0, 16)
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return walk, "", err
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return walk, "", err
		}
		if len(ids) <= TaskTextCap {
			b, _ := json.Marshal(ids)
			return byText, string(b), nil
		}
	}
	return walk, "", nil
}

// ftsPhrase is a folded query as an FTS5 phrase: with the trigram
// tokenizer, the rows holding it as a substring (and a few more, which
// instr then leaves out).
func ftsPhrase(fq string) string { return `"` + strings.ReplaceAll(fq, `"`, `""`) + `"` }

// taskPageFilter is the FROM and WHERE clauses shared by the count and the
// page of q read by p, without the status and the keyset.
func (tx *Tx) taskPageFilter(q TaskQuery, p plan, hits any) (from, where string, args []any) {
	var b strings.Builder
	from = `tasks t`
	// CROSS JOIN: SQLite keeps the left table as the outer loop;
	// PostgreSQL's planner chooses from its statistics.
	join := ` CROSS JOIN `
	if tx.s.engine == Postgres {
		join = ` JOIN `
	}
	switch p {
	case byTag:
		from = `task_tags g` + join + `tasks t ON t.id = g.task_id`
		if tx.s.engine == Postgres {
			// The tag's rows are the outer loop whatever the statistics
			// say: a lateral subquery with OFFSET is never pulled up.
			// Before the first ANALYZE of a bulk-loaded table, the
			// planner took the person's tasks for one row and walked
			// them all in list order, probing task_tags for each (55 ms
			// at 10k tasks, against 0.1 ms).
			from = `task_tags g CROSS JOIN LATERAL (SELECT * FROM tasks t0 WHERE t0.id = g.task_id OFFSET 0) AS t`
		}
		b.WriteString(`g.owner_id = ? AND g.tag = ? AND `)
		args = append(args, tx.owner, item.FoldCase(q.Tag))
	case byText:
		from = `json_each(?) AS j` + join + `tasks t ON t.id = j.value`
		args = append(args, hits)
	case byIDs:
		// Probes by id, whatever the statistics say (as for a tag): the
		// filter below is checked on each task found, not read from an
		// index again.
		from = `unnest(?::bigint[]) AS j(id) CROSS JOIN LATERAL (SELECT * FROM tasks t0 WHERE t0.id = j.id OFFSET 0) AS t`
		args = append(args, hits)
	}
	b.WriteString(`t.owner_id = ? AND t.deleted_at IS NULL`)
	args = append(args, tx.owner)
	if q.Window {
		fromAt, toAt := int64(-1<<62), int64(1<<62)
		fromDay, toDay := "0000-00-00", "9999-99-99"
		if !q.From.IsZero() {
			fromAt = ceilUnix(q.From)
		}
		if !q.To.IsZero() {
			toAt = ceilUnix(q.To)
		}
		if !q.FromDay.IsZero() {
			fromDay = q.FromDay.String()
		}
		if !q.ToDay.IsZero() {
			toDay = q.ToDay.String()
		}
		b.WriteString(` AND ((t.due_time IS NOT NULL AND t.due_at >= ? AND t.due_at < ?)
			OR (t.due_time IS NULL AND t.due_date >= ? AND t.due_date <= ?))`)
		args = append(args, fromAt, toAt, fromDay, toDay)
	}
	if q.Tag != "" && p != byTag {
		b.WriteString(` AND EXISTS (SELECT 1 FROM task_tags g2 WHERE g2.owner_id = ? AND g2.tag = ? AND g2.task_id = t.id)`)
		args = append(args, tx.owner, item.FoldCase(q.Tag))
	}
	if q.Query != "" {
		fq := item.FoldText(q.Query)
		switch {
		case tx.s.engine == Postgres && utf8.RuneCountInString(fq) >= minTrigram:
			// pg_trgm's GIN index serves LIKE; without the extension
			// the same LIKE reads each task.
			b.WriteString(` AND t.search_fold LIKE ? ESCAPE '\'`)
			r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
			args = append(args, "%"+r.Replace(fq)+"%")
		case tx.s.engine == Postgres:
			b.WriteString(` AND strpos(t.search_fold, ?) > 0`)
			args = append(args, fq)
		default:
			b.WriteString(` AND instr(t.search_fold, ?) > 0`)
			args = append(args, fq)
		}
	}
	return from, b.String(), args
}

// TaskPage reads one page of the owner's live tasks that q selects, in
// list order ([TaskKey]), after q.After when set, and counts them up to
// q.Cap. Each task is read whole but for its uid, its notes and its
// stamps (UID, Notes, CreatedAt and UpdatedAt are zero: a list row does
// not show them, get_task does). The caller has checked
// [Tx.TaskListFresh] for the zone it lists in.
//
// On PostgreSQL, a page with no tag and no text rides in the count's own
// statement (one round trip for the count, the freshness and the page).
func (tx *Tx) TaskPage(q TaskQuery) (TaskPage, error) {
	var p TaskPage
	pl, hits, err := tx.planOf(q)
	if err != nil {
		return p, err
	}
	from, where, args := tx.taskPageFilter(q, pl, hits)
	statusCond, statusArgs := "", []any(nil)
	switch q.Status {
	case "":
	case task.Open, task.Done:
		// Written in, not bound: SQLite prepares `status = ?` again on
		// every run, since a bound status decides whether the partial
		// indexes on status = 'open' (migration 00014) may serve it.
		statusCond = ` AND t.status = '` + q.Status + `'`
	default:
		statusCond, statusArgs = ` AND t.status = ?`, []any{q.Status}
	}
	// A tag or a text is planned for its value (see customPlan).
	custom := q.Tag != "" || q.Query != ""
	countArgs := tx.customPlan(custom, append(append(append([]any{}, args...), statusArgs...), q.Cap+1))
	// Whether the list columns are fresh is asked in the count's own
	// statement (one round trip on PostgreSQL), but for a count planned
	// for its values on PostgreSQL: a statement that may ride with BEGIN
	// (pipeConn) cannot be, so the check rides there instead.
	freshApart := q.Zone != "" && custom && tx.s.engine == Postgres
	if freshApart {
		if fresh, err := tx.TaskListFresh(q.Zone); err != nil || !fresh {
			p.Stale = err == nil
			return p, err
		}
	}
	var n int
	if tx.s.engine == Postgres && q.Query != "" && utf8.RuneCountInString(item.FoldText(q.Query)) >= minTrigram {
		// A text on PostgreSQL is found through pg_trgm's index, whose
		// posting lists of common trigrams ("num", "ber") hold most
		// tasks of the database: the count reads the ids of the tasks
		// it counts, and when they are few the page is read from them,
		// so those lists are read once a page, not twice.
		ids, err := tx.ids(`SELECT t.id FROM `+from+` WHERE `+where+statusCond+` LIMIT ?`, countArgs...)
		if err != nil {
			return p, err
		}
		n = len(ids)
		if n <= TaskDriveCap {
			from, where, args = tx.taskPageFilter(q, byIDs, ids)
		}
	} else {
		s := `SELECT (SELECT count(*) FROM (SELECT 1 FROM ` + from + ` WHERE ` + where + statusCond + ` LIMIT ?) AS m)`
		if tx.s.engine == SQLite && !custom && !q.Window {
			// The same number without the LIMIT subquery, which SQLite
			// runs as a co-routine, one yield per row counted: whether
			// a row lies past the cap (an OFFSET into the index), and
			// only under the cap a count (a fifth less CPU at 2,050
			// open tasks). Only where every row read is counted (no
			// tag, text or window to check on each): elsewhere a filter
			// few rows pass would have every row read twice.
			sel := `SELECT 1 FROM ` + from + ` WHERE ` + where + statusCond
			s = `SELECT CASE WHEN EXISTS (` + sel + ` LIMIT 1 OFFSET ?) THEN ? ELSE (SELECT count(*) FROM ` + from + ` WHERE ` + where + statusCond + `) END`
			filterArgs := countArgs[:len(countArgs)-1]
			countArgs = append(append(append([]any{}, filterArgs...), q.Cap, q.Cap+1), filterArgs...)
		}
		dest := []any{&n}
		var f freshness
		if q.Zone != "" && !freshApart {
			s += `, ` + freshColumns
			countArgs = append(countArgs, tx.owner, tx.owner, tx.owner)
			dest = append(dest, &f.lo, &f.hi, &f.old)
		}
		if tx.s.engine == Postgres && !custom && q.Limit > 0 {
			// The first page query rides in the count's statement: each
			// of its rows carries the count, and one row of NULLs
			// stands for an empty page.
			first, pq, pa := tx.pageQuery(q, from, where, args, q.Status == task.Done || q.HasAfter && q.After.Done, q.Limit)
			p.Tasks, p.Keys = make([]task.Task, 0, min(q.Limit, 256)), make([]TaskKey, 0, min(q.Limit, 256))
			s += `, p.* FROM (SELECT 1) AS one LEFT JOIN (` + pq + `) AS p ON true ORDER BY ` + pageOrder(first, "p.")
			// When no done tasks follow, this statement is the whole
			// page: it needs no transaction of its own (soloKey).
			solo := first || q.Status == task.Open
			if err := tx.pageRows(tx.soloCtx(solo), s, append(countArgs, pa...), first, &p, dest...); err != nil {
				return p, err
			}
			if q.Zone != "" && !f.in(q.Zone) {
				return TaskPage{Stale: true}, nil
			}
			p.Total, p.Exact = min(n, q.Cap), n <= q.Cap
			if first || q.Status == task.Open || len(p.Tasks) == q.Limit {
				return p, nil
			}
			// Open tasks were read; done ones follow.
			_, pq, pa = tx.pageQuery(q, from, where, args, true, q.Limit-len(p.Tasks))
			return p, tx.pageRows(tx.ctx, pq, pa, true, &p)
		}
		if err := tx.queryRow(s, countArgs...).Scan(dest...); err != nil {
			return p, err
		}
		if q.Zone != "" && !freshApart && !f.in(q.Zone) {
			p.Stale = true
			return p, nil
		}
	}
	p.Total, p.Exact = min(n, q.Cap), n <= q.Cap
	if want := min(q.Limit, n, 256); want > 0 {
		p.Tasks, p.Keys = make([]task.Task, 0, want), make([]TaskKey, 0, want)
	}
	// Open tasks, then done ones.
	for _, done := range []bool{false, true} {
		if q.Status == task.Open && done || q.Status == task.Done && !done {
			continue
		}
		if q.HasAfter && q.After.Done && !done {
			continue
		}
		left := q.Limit - len(p.Tasks)
		if left <= 0 {
			break
		}
		_, s, a := tx.pageQuery(q, from, where, args, done, left)
		if err := tx.pageRows(tx.ctx, s, tx.customPlan(custom, a), done, &p); err != nil {
			return p, err
		}
	}
	return p, nil
}

// pageQuery is the query of up to limit tasks of q (open ones, or done
// ones when done) read from from and where (with their args), in list
// order, after q.After when it is of the same kind; it gives done back.
func (tx *Tx) pageQuery(q TaskQuery, from, where string, args []any, done bool, limit int) (bool, string, []any) {
	s := `SELECT ` + listColumns + ` FROM ` + from + ` WHERE ` + where
	a := append([]any{}, args...)
	if done {
		s += ` AND t.status = 'done'`
		if q.HasAfter && q.After.Done {
			s += ` AND (t.list_at, t.id) < (?, ?)`
			a = append(a, q.After.At, q.After.ID)
		}
	} else {
		s += ` AND t.status = 'open'`
		if q.Window {
			// The person's day of every due in the window is within
			// its days: the index's range.
			lo, hi := int64(0), int64(noDueDay-1)
			if !q.FromDay.IsZero() {
				lo = dayNumber(q.FromDay)
			}
			if !q.ToDay.IsZero() {
				hi = dayNumber(q.ToDay)
			}
			s += ` AND t.list_day >= ? AND t.list_day <= ?`
			a = append(a, lo, hi)
		}
		if q.HasAfter {
			s += ` AND (t.list_day, t.priority, t.list_at, t.id) > (?, ?, ?, ?)`
			a = append(a, q.After.Day, q.After.Priority, q.After.At, q.After.ID)
		}
	}
	return done, s + ` ORDER BY ` + pageOrder(done, "t.") + ` LIMIT ?`, append(a, limit)
}

// pageOrder is the list order of open tasks, or of done ones, over the
// columns of the table or subquery named by prefix ("t.").
func pageOrder(done bool, prefix string) string {
	if done {
		return prefix + "list_at DESC, " + prefix + "id DESC"
	}
	return prefix + "list_day, " + prefix + "priority, " + prefix + "list_at, " + prefix + "id"
}

// ids runs q, a query of one integer column (row ids), and returns its
// values in the order read.
func (tx *Tx) ids(q string, args ...any) ([]int64, error) {
	rows, err := tx.query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// customPlan returns args for a query whose best plan depends on its
// values, as a tag's or a text's page does: on PostgreSQL, in a read
// transaction, led by pgx's QueryExecModeCacheDescribe, so the query runs
// as an unnamed statement planned for these values every time. Through
// the default named statements PostgreSQL moves to a generic plan after
// five runs, and for `search_fold LIKE $2` that plan guesses a few
// matches and walks every open task of the person in list order, filtering
// each (10 ms at 10k tasks for a text 11 of them hold, against 0.8 ms
// through the trigram index). Writes are left as they are: their first
// query may go out in one batch with BEGIN (pipeConn), which takes no
// such argument.
func (tx *Tx) customPlan(on bool, args []any) []any {
	if !on || tx.s.engine != Postgres || !tx.readOnly {
		return args
	}
	return append([]any{pgx.QueryExecModeCacheDescribe}, args...)
}

func dayNumber(d tz.Date) int64 { return int64(d.Year*10000 + int(d.Month)*100 + d.Day) }

// pageColumns are the task columns a page reads: what a list line and its
// Data show (every column but the uid, the notes, the stamps and
// deleted_at).
var pageColumns = func() []string {
	var cols []string
	for _, c := range taskColumns {
		switch c {
		case "uid", "notes", "created_at", "updated_at", "deleted_at":
		default:
			cols = append(cols, c)
		}
	}
	return cols
}()

// listColumns are the columns a page reads: pageColumns and the key.
var listColumns = "t." + strings.Join(pageColumns, ", t.") + ", t.list_day, t.list_at"

// soloCtx is the context of a statement that reads, in itself, all a
// read transaction needs, when solo is set (on PostgreSQL it may then run
// outside the transaction: see soloKey); else the transaction's.
func (tx *Tx) soloCtx(solo bool) context.Context {
	if !solo || !tx.readOnly || tx.s.engine != Postgres {
		return tx.ctx
	}
	return context.WithValue(tx.ctx, soloKey{}, true)
}

// pageRows runs one page query, in ctx (tx's own context, or soloCtx's),
// and appends its tasks and keys to p. The query's rows may lead with
// more columns, scanned into lead (the same on every row); a row whose
// task columns are NULL (a LEFT JOIN's empty page) is no task.
func (tx *Tx) pageRows(ctx context.Context, q string, args []any, done bool, p *TaskPage, lead ...any) error {
	rows, err := tx.queryIn(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var c taskCols
	var day, at any
	ptrs := make([]any, 0, len(lead)+len(pageColumns)+2)
	ptrs = append(ptrs, lead...)
	for _, name := range pageColumns {
		ptrs = append(ptrs, c.dest(name))
	}
	ptrs = append(ptrs, &day, &at)
	for rows.Next() {
		if err := tx.ctx.Err(); err != nil {
			return err
		}
		c = taskCols{}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if c.id == nil {
			continue
		}
		t, err := c.decode()
		if err != nil {
			return err
		}
		d, _ := integer(day)
		a, _ := integer(at)
		k := TaskKey{Done: done, ID: t.ID, At: a}
		if !done {
			k.Day, k.Priority = d, int64(t.Priority)
		}
		p.Tasks = append(p.Tasks, t)
		p.Keys = append(p.Keys, k)
	}
	return rows.Err()
}

// rederive works out the derived columns of a row undo has put back: the
// task's own, or, for the person's row (a zone change taken back), every
// open task's.
func (tx *Tx) rederive(table string, id int64) error {
	switch table {
	case tasksTable:
		return tx.rederiveTask(id)
	case "people":
		tx.listZone = ""
		z, err := tx.ownerZone()
		if err != nil {
			return err
		}
		return tx.relistTasks(z.Name())
	}
	return nil
}
