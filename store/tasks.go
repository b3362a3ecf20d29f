package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// The tables of the task aggregate (migrations/00002_tasks.sql, uid in
// 00005_ics.sql, remind_zone and remind_once in 00009_reminders.sql).
// Completions are labelled "tc" so they never read like a change id (c31).
const (
	tasksTable       = "tasks"
	completionsTable = "task_completions"
)

func init() {
	RegisterTable(tasksTable)
	RegisterTableAs(completionsTable, "tc")
}

// taskColumns are the columns of tasks the codec reads, in order.
var taskColumns = []string{"id", "uid", "title", "notes", "due_date", "due_time", "due_zone", "due_at", "priority", "tags",
	"rrule", "repeat_from", "remind_before", "remind_at", "remind_zone", "remind_once", "status", "completed_at",
	"created_at", "updated_at", "deleted_at"}

var taskSelect = `SELECT ` + strings.Join(taskColumns, ", ") + ` FROM tasks`

func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

func integer(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	}
	return 0, false
}

// decodeDue reads the four due columns; has is false when due_date is NULL.
// at, when the row keeps one, tells the two readings of a repeated hour
// apart, which the civil text cannot.
func decodeDue(date, civil, zone string, at any) (d task.Due, has bool, err error) {
	if date == "" {
		return task.Due{}, false, nil
	}
	if civil == "" {
		day, err := tz.ParseDate(date)
		if err != nil {
			return task.Due{}, false, err
		}
		return task.Day(day), true, nil
	}
	dt, err := tz.ParseDateTime(civil)
	if err != nil {
		return task.Due{}, false, err
	}
	z, err := tz.LoadZone(zone)
	if err != nil {
		return task.Due{}, false, err
	}
	if sec, ok := integer(at); ok {
		dt = z.Reading(dt, time.Unix(sec, 0))
	}
	return task.Timed(dt, z), true, nil
}

// encodeDue is the four due columns of d (all NULL when there is none).
func encodeDue(d task.Due, has bool) Row {
	// Room for a whole task's columns: encodeTask and InsertTask add to it.
	row := make(Row, 32)
	row["due_date"], row["due_time"], row["due_zone"], row["due_at"] = nil, nil, nil, nil
	if !has {
		return row
	}
	row["due_date"] = d.Date.String()
	if d.HasTime {
		row["due_time"] = d.DateTime.String()
		row["due_zone"] = d.Zone.Name()
		row["due_at"] = d.At.Unix()
	}
	return row
}

// plainStrings reads s, a JSON array of strings as json.Marshal writes
// it, without encoding/json when it is plain: compact, and no string holds
// a backslash, a control character or invalid UTF-8. ok is false for any
// other s, which json.Unmarshal then reads; where ok is true the strings
// are what json.Unmarshal gives (an empty, non-nil slice for "[]"). A
// page's tags are read this way: one json.Unmarshal a row was a tenth of
// the page.
func plainStrings(s string) (out []string, ok bool) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	body := s[1 : len(s)-1]
	if body == "" {
		return []string{}, true
	}
	n := strings.Count(body, `","`) + 1
	out = make([]string, 0, n)
	for body != "" {
		if body[0] != '"' {
			return nil, false
		}
		end := strings.IndexByte(body[1:], '"')
		if end < 0 {
			return nil, false
		}
		v := body[1 : 1+end]
		for i := 0; i < len(v); i++ {
			if c := v[i]; c < 0x20 || c == '\\' {
				return nil, false
			}
		}
		if !utf8.ValidString(v) {
			return nil, false
		}
		out = append(out, v)
		body = body[2+end:]
		if body != "" {
			if body[0] != ',' || len(body) == 1 {
				return nil, false
			}
			body = body[1:]
		}
	}
	return out, true
}

// decodeTask reads one row of tasks (any of taskColumns present); an error
// means the row breaks the schema's own forms, a bug or a hand-edited
// database, and names the task.
func decodeTask(r Row) (task.Task, error) {
	return taskCols{id: r["id"], uid: r["uid"], title: r["title"], notes: r["notes"], dueDate: r["due_date"], dueTime: r["due_time"],
		dueZone: r["due_zone"], dueAt: r["due_at"], priority: r["priority"], tags: r["tags"], rrule: r["rrule"], repeatFrom: r["repeat_from"],
		remindBefore: r["remind_before"], remindAt: r["remind_at"], remindZone: r["remind_zone"], remindOnce: r["remind_once"],
		status: r["status"], completedAt: r["completed_at"], createdAt: r["created_at"], updatedAt: r["updated_at"]}.decode()
}

// taskCols are the columns of a row of tasks as the driver gives them, nil
// for one not read: what decodeTask reads from a Row, and a list page
// ([Tx.pageRows]) scans into by position.
type taskCols struct {
	id, uid, title, notes, dueDate, dueTime, dueZone, dueAt, priority, tags, rrule, repeatFrom,
	remindBefore, remindAt, remindZone, remindOnce, status, completedAt, createdAt, updatedAt any
}

// dest is the scan destination of the column called name, nil for one
// taskCols does not hold.
func (c *taskCols) dest(name string) *any {
	switch name {
	case "id":
		return &c.id
	case "uid":
		return &c.uid
	case "title":
		return &c.title
	case "notes":
		return &c.notes
	case "due_date":
		return &c.dueDate
	case "due_time":
		return &c.dueTime
	case "due_zone":
		return &c.dueZone
	case "due_at":
		return &c.dueAt
	case "priority":
		return &c.priority
	case "tags":
		return &c.tags
	case "rrule":
		return &c.rrule
	case "repeat_from":
		return &c.repeatFrom
	case "remind_before":
		return &c.remindBefore
	case "remind_at":
		return &c.remindAt
	case "remind_zone":
		return &c.remindZone
	case "remind_once":
		return &c.remindOnce
	case "status":
		return &c.status
	case "completed_at":
		return &c.completedAt
	case "created_at":
		return &c.createdAt
	case "updated_at":
		return &c.updatedAt
	}
	return nil
}

// decode is decodeTask of the row c holds.
func (c taskCols) decode() (task.Task, error) {
	var t task.Task
	t.ID, _ = integer(c.id)
	bad := func(err error) (task.Task, error) { return t, fmt.Errorf("task %s: %w", task.Label(t.ID), err) }
	t.UID = text(c.uid)
	t.Title = text(c.title)
	t.Notes = text(c.notes)
	pr, _ := integer(c.priority)
	t.Priority = int(pr)
	t.Status = text(c.status)
	var err error
	if t.Due, t.HasDue, err = decodeDue(text(c.dueDate), text(c.dueTime), text(c.dueZone), c.dueAt); err != nil {
		return bad(err)
	}
	if tags := text(c.tags); tags != "" {
		var ok bool
		if t.Tags, ok = plainStrings(tags); !ok {
			if err := json.Unmarshal([]byte(tags), &t.Tags); err != nil {
				return bad(fmt.Errorf("tags: %w", err))
			}
		}
	}
	if rr := text(c.rrule); rr != "" {
		if t.Rule, err = recur.ParseRule(rr); err != nil {
			return bad(err)
		}
		t.RepeatFrom = text(c.repeatFrom)
		if t.RepeatFrom == "" {
			t.RepeatFrom = task.Schedule
		}
	}
	if t.Reminders, err = item.ParseReminders(text(c.remindBefore), text(c.remindAt)); err != nil {
		return bad(err)
	}
	t.RemindZone = text(c.remindZone)
	if t.RemindOnce, err = item.ParseOnce(text(c.remindOnce)); err != nil {
		return bad(err)
	}
	if v, ok := integer(c.completedAt); ok {
		t.CompletedAt = time.Unix(v, 0).UTC()
	}
	if v, ok := integer(c.createdAt); ok {
		t.CreatedAt = time.Unix(v, 0).UTC()
	}
	if u := text(c.updatedAt); u != "" {
		t.UpdatedAt, _ = time.Parse(time.RFC3339, u)
	}
	return t, nil
}

// encodeTask is every column of t a writer sets, as stored: all but id,
// owner_id, created_at (InsertTask adds it), updated_at and deleted_at.
// title_norm is derived from the title ([item.NormTitle]); remind_zone is
// kept only where it means something (remind_at without a timed due).
func encodeTask(t task.Task) Row {
	row := encodeDue(t.Due, t.HasDue)
	tb := []byte("[]")
	if len(t.Tags) > 0 {
		tb, _ = json.Marshal(t.Tags)
	}
	row["uid"] = nil
	if t.UID != "" {
		row["uid"] = t.UID
	}
	row["title"] = t.Title
	row["title_norm"] = item.NormTitle(t.Title)
	row["notes"] = t.Notes
	row["priority"] = t.Priority
	row["tags"] = string(tb)
	row["rrule"] = nil
	row["repeat_from"] = nil
	if t.Rule != nil {
		row["rrule"] = t.Rule.String()
		row["repeat_from"] = t.RepeatFrom
	}
	row["remind_before"] = t.Reminders.BeforeJSON()
	row["remind_at"] = t.Reminders.AtJSON()
	row["remind_zone"] = nil
	if len(t.Reminders.At) > 0 && !(t.HasDue && t.Due.HasTime) && t.RemindZone != "" {
		row["remind_zone"] = t.RemindZone
	}
	row["remind_once"] = item.OnceJSON(t.RemindOnce)
	row["status"] = t.Status
	row["completed_at"] = nil
	if !t.CompletedAt.IsZero() {
		row["completed_at"] = t.CompletedAt.Unix()
	}
	return row
}

// TaskFingerprint is the stored form of t as one value, for an
// idempotency fingerprint: two calls that would store the same task (an
// "RRULE:" prefix or not, spaces) give the same value.
func TaskFingerprint(t task.Task) any { return encodeTask(t) }

// diffRows returns the columns of after that differ from before.
func diffRows(before, after Row) Row {
	out := Row{}
	for k, v := range after {
		if !sameValue(before[k], v) {
			out[k] = v
		}
	}
	return out
}

// sameValue says whether two column values as the codecs make them are
// equal (an int 4 and an int64 4 are the same value; NULL is only NULL),
// without printing the kinds the codecs use; other kinds compare by their
// printed forms.
func sameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if ok {
			return x == y
		}
	case int:
		switch y := b.(type) {
		case int:
			return x == y
		case int64:
			return int64(x) == y
		}
	case int64:
		switch y := b.(type) {
		case int:
			return x == int64(y)
		case int64:
			return x == y
		}
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// fieldNames names changed columns as the task's fields: "due" for any of
// the due columns; title_norm, derived from the title, is none. Sorted.
func fieldNames(set Row) []string {
	names := make([]string, 0, len(set))
	for k := range set {
		switch k {
		case "due_date", "due_time", "due_zone", "due_at":
			k = "due"
		case "title_norm":
			continue
		}
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

// TaskChanges names the fields in which after differs from before as they
// are stored (see [Tx.SaveTask] for the names); empty when saving after
// would change nothing.
func TaskChanges(before, after task.Task) []string {
	return fieldNames(diffRows(encodeTask(before), encodeTask(after)))
}

// Task reads one live task of tx's owner; ErrNotFound when the id is
// someone else's, deleted or unknown.
func (tx *Tx) Task(id int64) (task.Task, error) {
	r, err := tx.Get(tasksTable, id)
	if err != nil {
		return task.Task{}, err
	}
	return decodeTask(r)
}

// TaskEvenDeleted reads one task of tx's owner, deleted or not, and says
// whether it is deleted; ErrNotFound when there is no such row at all.
func (tx *Tx) TaskEvenDeleted(id int64) (t task.Task, deleted bool, err error) {
	if r, ok := tx.written(tasksTable, id); ok {
		t, err = decodeTask(r)
		return t, r["deleted_at"] != nil, err
	}
	var found bool
	err = tx.eachTask(taskSelect+` WHERE owner_id = ? AND id = ?`, []any{tx.owner, id}, func(r Row) error {
		found, deleted = true, r["deleted_at"] != nil
		t, err = decodeTask(r)
		return err
	})
	if err == nil && !found {
		err = notFound(tasksTable, id)
	}
	return t, deleted, err
}

// InsertTask adds t for tx's owner, journaled, with created_at from
// t.CreatedAt, and returns its id.
func (tx *Tx) InsertTask(t task.Task) (int64, error) {
	if err := ownUID(t.UID); err != nil {
		return 0, err
	}
	row, err := tx.taskRow(t)
	if err != nil {
		return 0, err
	}
	return tx.Insert(tasksTable, row)
}

// taskRow is the row InsertTask adds for t: its columns, the reminder
// bounds, the derived list columns and created_at.
func (tx *Tx) taskRow(t task.Task) (Row, error) {
	row := TaskRemindBounds(t).set(encodeTask(t))
	if !t.HasDue && tx.listZone == "" {
		// Without a due the zone works out no day: it is only list_zone's
		// text, which the INSERT reads itself, so the write makes no
		// statement of its own to read the owner's zone.
		deriveInto(row, t, tz.UTC)
		if t.Status != task.Done {
			row["list_zone"] = ownerZone{}
		}
	} else {
		var err error
		if row, err = tx.withDerived(row, t); err != nil {
			return nil, err
		}
	}
	row["created_at"] = t.CreatedAt.Unix()
	return row, nil
}

// InsertTasks adds many tasks in batches ([Tx.InsertMany]), each journaled,
// and returns their ids in order.
func (tx *Tx) InsertTasks(ts []task.Task) ([]int64, error) {
	rows := make([]Row, len(ts))
	for i, t := range ts {
		if err := ownUID(t.UID); err != nil {
			return nil, err
		}
		var err error
		if rows[i], err = tx.withDerived(TaskRemindBounds(t).set(encodeTask(t)), t); err != nil {
			return nil, err
		}
		rows[i]["created_at"] = t.CreatedAt.Unix()
	}
	return tx.InsertMany(tasksTable, rows)
}

// SaveTask writes the columns in which after, the task before.ID as
// changed, differs from before, as read: only those, journaled, so undo
// takes back just this change; nothing when they are the same. It returns
// the changed fields, sorted: their column names (title, notes, priority,
// tags, rrule, repeat_from, remind_before, remind_at, remind_zone,
// remind_once, status, completed_at, uid), and "due" for the due.
// ErrNotFound as for [Tx.Update].
func (tx *Tx) SaveTask(before, after task.Task) ([]string, error) {
	if after.UID != before.UID {
		if err := ownUID(after.UID); err != nil {
			return nil, err
		}
	}
	set := diffRows(encodeTask(before), encodeTask(after))
	if len(set) == 0 {
		return nil, nil
	}
	names := fieldNames(set)
	after.ID = before.ID
	// The reminder bounds follow every change (store/remind_bounds.go).
	set, err := tx.withDerived(TaskRemindBounds(after).set(set), after)
	if err != nil {
		return nil, err
	}
	if err := tx.Update(tasksTable, before.ID, set); err != nil {
		return nil, err
	}
	return names, nil
}

// ownUID refuses a UID of the form [task.MadeUID] gives for a task to
// hold as its own: that form names the task of its number that has no UID,
// and two tasks would be written with one UID. The import and CalDAV
// decide before (another one, or a refusal); this is their backstop.
func ownUID(uid string) error {
	if _, ok := task.MadeID(uid); ok {
		return fmt.Errorf("a task may not hold the UID %q as its own: UIDs of the form t<number>@assistant name the tasks this database made", uid)
	}
	return nil
}

// DeleteTask soft-deletes task id of tx's owner, journaled (undo brings it
// back); ErrNotFound as for [Tx.Delete].
func (tx *Tx) DeleteTask(id int64) error { return tx.Delete(tasksTable, id) }

// TaskFilter selects tasks for [Tx.Tasks].
type TaskFilter struct {
	// Status is task.Open, task.Done, or "" for both.
	Status string
	// Window, when set, keeps only tasks due within it: a timed due whose
	// instant is in [From, To), a floating day in [FromDay, ToDay]. A zero
	// bound is open on that side. From and To are rounded up to whole
	// seconds, as due_at keeps them.
	Window         bool
	From, To       time.Time
	FromDay, ToDay tz.Date
	// WithoutDue keeps, within a Window, the tasks with no due too.
	WithoutDue bool
}

// Tasks reads tx's owner's live tasks that f selects, by id.
func (tx *Tx) Tasks(f TaskFilter) ([]task.Task, error) {
	q := taskSelect + ` WHERE owner_id = ? AND deleted_at IS NULL`
	params := []any{tx.owner}
	if f.Status != "" {
		q += ` AND status = ?`
		params = append(params, f.Status)
	}
	if f.Window {
		fromAt, toAt := int64(math.MinInt64), int64(math.MaxInt64)
		fromDay, toDay := "0000-00-00", "9999-99-99"
		if !f.From.IsZero() {
			fromAt = ceilUnix(f.From)
		}
		if !f.To.IsZero() {
			toAt = ceilUnix(f.To)
		}
		if !f.FromDay.IsZero() {
			fromDay = f.FromDay.String()
		}
		if !f.ToDay.IsZero() {
			toDay = f.ToDay.String()
		}
		noDue := ""
		if f.WithoutDue {
			noDue = `due_date IS NULL OR `
		}
		q += ` AND (` + noDue + `(due_time IS NOT NULL AND due_at >= ? AND due_at < ?)
			OR (due_time IS NULL AND due_date >= ? AND due_date <= ?))`
		params = append(params, fromAt, toAt, fromDay, toDay)
	}
	return tx.tasks(q+` ORDER BY id`, params...)
}

func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// OpenTasksWithReminders reads tx's owner's live open tasks that have a
// reminder of any kind, by id, in one query. A row that cannot be decoded
// is left out; [Tx.TaskEvenDeleted] reads it (and says what is wrong).
func (tx *Tx) OpenTasksWithReminders() ([]task.Task, error) {
	var out []task.Task
	err := tx.eachTask(taskSelect+` WHERE owner_id = ? AND deleted_at IS NULL AND status = 'open'
		AND (remind_before <> '[]' OR remind_at <> '[]' OR remind_once <> '[]') ORDER BY id`, []any{tx.owner}, func(r Row) error {
		if t, err := decodeTask(r); err == nil {
			out = append(out, t)
		}
		return nil
	})
	return out, err
}

// TasksByUID reads tx's owner's live tasks that have a UID (imported from
// a calendar file), by UID.
func (tx *Tx) TasksByUID() (map[string]task.Task, error) {
	ts, err := tx.tasks(taskSelect+` WHERE owner_id = ? AND deleted_at IS NULL AND uid IS NOT NULL`, tx.owner)
	out := make(map[string]task.Task, len(ts))
	for _, t := range ts {
		out[t.UID] = t
	}
	return out, err
}

// TasksOfUIDs reads tx's owner's live tasks whose UID is one of uids, by
// UID, in one statement: what an import of a file holding those UIDs needs,
// whatever else the owner has.
func (tx *Tx) TasksOfUIDs(uids []string) (map[string]task.Task, error) {
	return tasksOfKeys(tx, tasksByUID, uids, func(t task.Task) string { return t.UID })
}

// MadeTasks reads tx's owner's live tasks of ids that have no UID of
// their own (written as [task.MadeUID]), by id, in one statement.
func (tx *Tx) MadeTasks(ids []int64) (map[int64]task.Task, error) {
	return tasksOfKeys(tx, madeTasksByID, ids, func(t task.Task) int64 { return t.ID })
}

// tasksOfKeys reads the tasks r finds for keys ([Tx.ofKeys]), by key.
func tasksOfKeys[K comparable](tx *Tx, r keyRead, keys []K, key func(task.Task) K) (map[K]task.Task, error) {
	out := make(map[K]task.Task, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	q, args := tx.ofKeys(strings.Join(taskColumns, ", "), r, keys)
	ts, err := tx.tasks(q, args...)
	for _, t := range ts {
		out[key(t)] = t
	}
	return out, err
}

// TaskByUID reads the live task of tx's owner whose UID is uid, by the
// index tasks_owner_uid. A task the tools made has no UID (NULL) and is
// exported as "t<ID>@assistant" (package ics), so such a uid finds task
// <ID> when its own UID is NULL. The error wraps [ErrNotFound] when there
// is none.
func (tx *Tx) TaskByUID(uid string) (task.Task, error) {
	ts, err := tx.tasks(taskSelect+` WHERE owner_id = ? AND uid = ? AND deleted_at IS NULL`, tx.owner, uid)
	if err != nil {
		return task.Task{}, err
	}
	if len(ts) > 0 {
		return ts[0], nil
	}
	if id, ok := task.MadeID(uid); ok {
		ts, err := tx.tasks(taskSelect+` WHERE owner_id = ? AND id = ? AND uid IS NULL AND deleted_at IS NULL`, tx.owner, id)
		if err != nil {
			return task.Task{}, err
		}
		if len(ts) > 0 {
			return ts[0], nil
		}
	}
	return task.Task{}, fmt.Errorf("there is no task with UID %q: %w", uid, ErrNotFound)
}

// TasksLike reads tx's owner's live open tasks added at or after since
// whose normalised title ([item.NormTitle]) and due are t's, by id: the
// candidates of a duplicate of t.
//
// On PostgreSQL the index part of the test is fenced off from the rest
// (see tasksLikeFenced), so the plan reads tasks_owner_title whatever
// the statistics say.
func (tx *Tx) TasksLike(t task.Task, since time.Time) ([]task.Task, error) {
	if tx.s.engine == Postgres {
		return tx.tasks(tasksLikePostgres, tasksLikeArgs(tx.owner, t, since)...)
	}
	return tx.tasks(taskSelect+tasksLikeWhere+` ORDER BY id`, tasksLikeArgs(tx.owner, t, since)...)
}

// tasksLikeWhere selects TasksLike's tasks; its arguments are
// tasksLikeArgs'.
const tasksLikeWhere = ` WHERE ` + tasksLikeIndexed + ` AND ` + tasksLikeRest

// tasksLikePostgres is TasksLike's query on PostgreSQL.
var tasksLikePostgres = `SELECT ` + strings.Join(taskColumns, ", ") + ` FROM (SELECT * FROM tasks WHERE ` + tasksLikeIndexed +
	` OFFSET 0) AS tasks WHERE ` + tasksLikeRest + ` ORDER BY id`

// tasksLikeIndexed is the part of tasksLikeWhere that tasks_owner_title
// answers (its first three arguments); tasksLikeRest is the rest (the
// other three).
const (
	tasksLikeIndexed = `owner_id = ? AND title_norm = ? AND created_at >= ?`
	tasksLikeRest    = `deleted_at IS NULL AND status = 'open'
		AND due_date IS NOT DISTINCT FROM ? AND due_time IS NOT DISTINCT FROM ? AND due_zone IS NOT DISTINCT FROM ?`
)

func tasksLikeArgs(owner int64, t task.Task, since time.Time) []any {
	d := encodeDue(t.Due, t.HasDue)
	return []any{owner, item.NormTitle(t.Title), since.Unix(), d["due_date"], d["due_time"], d["due_zone"]}
}

// tasks runs a query of taskColumns and decodes every row.
func (tx *Tx) tasks(q string, params ...any) ([]task.Task, error) {
	var out []task.Task
	err := tx.eachTask(q, params, func(r Row) error {
		t, err := decodeTask(r)
		if err == nil {
			out = append(out, t)
		}
		return err
	})
	return out, err
}

// eachTask runs a query of taskColumns (owner-filtered by the caller) and
// calls fn with each row, stopping at the first error.
func (tx *Tx) eachTask(q string, params []any, fn func(Row) error) error {
	rows, err := tx.query(q, params...)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(taskColumns))
	ptrs := make([]any, len(taskColumns))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		r := make(Row, len(taskColumns))
		for i, c := range taskColumns {
			r[c] = vals[i]
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// InsertCompletion records c, one done occurrence of task c.TaskID,
// journaled, and returns its id.
func (tx *Tx) InsertCompletion(c task.Completion) (int64, error) {
	row := encodeDue(c.Due, c.HasDue)
	row["task_id"] = c.TaskID
	row["completed_at"] = c.At.Unix()
	return tx.Insert(completionsTable, row)
}

// DeleteCompletion soft-deletes completion id (a reopened task takes its
// last one back), journaled.
func (tx *Tx) DeleteCompletion(id int64) error { return tx.Delete(completionsTable, id) }

// Completions reads the live completions of task id, newest first, at most
// limit (0 for all), and how many there are in all.
func (tx *Tx) Completions(id int64, limit int) ([]task.Completion, int, error) {
	var total int
	if err := tx.queryRow(`SELECT count(*) FROM task_completions
		WHERE owner_id = ? AND task_id = ? AND deleted_at IS NULL`, tx.owner, id).Scan(&total); err != nil {
		return nil, 0, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := tx.query(`SELECT id, due_date, due_time, due_zone, due_at, completed_at FROM task_completions
		WHERE owner_id = ? AND task_id = ? AND deleted_at IS NULL
		ORDER BY completed_at DESC, id DESC LIMIT ?`, tx.owner, id, limitArg(limit))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []task.Completion
	for rows.Next() {
		c := task.Completion{TaskID: id}
		var date, civil, zone sql.NullString
		var dueAt any
		var at int64
		if err := rows.Scan(&c.ID, &date, &civil, &zone, &dueAt, &at); err != nil {
			return nil, 0, err
		}
		c.At = time.Unix(at, 0).UTC()
		if c.Due, c.HasDue, err = decodeDue(date.String, civil.String, zone.String, dueAt); err != nil {
			return nil, 0, fmt.Errorf("completion tc%d: %w", c.ID, err)
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}
