package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// Reminder bounds (migrations/00014_remind_bounds.sql): every writer of
// tasks and events stores remind_from and remind_until, the earliest and
// latest instants any reminder of the item can fire, in any zone the person
// may take, so the reminders job reads only the items that can fire in a
// window instead of every item. They are bounds, not the fires: a rebuild
// works the fires out from the item, as before; an item whose bounds are
// too wide is read for nothing, one whose bounds were too narrow would be
// missed, so every doubt widens them.

// floatSlack widens the bounds of what floats with the person's zone (a
// date-only due, an all-day event, a remind_at read in the person's
// zone): zones are UTC−12 to UTC+14, and a DST change moves a wall-clock
// time by an hour more.
const floatSlack = 27 * time.Hour

// WideReminders is the span beyond which an item's bounds count as wide
// (remind_until − remind_from, in seconds; the partial indexes of
// migration 00014 spell it out): an item of at most this span whose fires
// are not all past has its remind_from at most this long before the
// window a rebuild reads, so one index range finds it; wider ones are read
// through their remind_until.
const WideReminders = 2 * 24 * time.Hour

// RemindBounds is an item's remind_from and remind_until: Never when none
// of its reminders can fire, Until zero for a series without end.
type RemindBounds struct {
	From, Until time.Time
	Never       bool
}

// Columns gives the values of the columns remind_from and remind_until
// for b, as the store writes them: 0 and 0 when none of the item's
// reminders can fire, NULL (nil) remind_until for a series without end,
// Unix seconds otherwise. A seeder that writes them spares the store
// working them out for every row when it next opens the database.
func (b RemindBounds) Columns() (from, until any) {
	if b.Never {
		return int64(0), int64(0)
	}
	from = b.From.Unix()
	if !b.Until.IsZero() {
		until = b.Until.Unix()
	}
	return from, until
}

func (b RemindBounds) set(row Row) Row {
	row["remind_from"], row["remind_until"] = b.Columns()
	return row
}

// span gathers what bounds an item's fires: instants it fires at
// (points), and offsets from occurrence starts that lie in [lo, hi] (hi
// zero: no end), used when occurrences is set.
type span struct {
	lo, hi      time.Time
	occurrences bool
	offsets     []time.Duration
	points      []time.Time
	floating    bool // widen by floatSlack
	unreadable  bool // bounds that make the job read it
}

func (s span) bounds() RemindBounds {
	if s.unreadable {
		return RemindBounds{From: time.Unix(0, 0).UTC()}
	}
	var lo, hi time.Time
	have, open := false, false
	take := func(l, h time.Time) {
		if !have || l.Before(lo) {
			lo = l
		}
		if !have || h.After(hi) {
			hi = h
		}
		have = true
	}
	for _, p := range s.points {
		take(p, p)
	}
	if s.occurrences && len(s.offsets) > 0 {
		minO, maxO := s.offsets[0], s.offsets[0]
		for _, o := range s.offsets {
			minO, maxO = min(minO, o), max(maxO, o)
		}
		h := s.hi.Add(maxO)
		if s.hi.IsZero() {
			open, h = true, s.lo.Add(minO)
		}
		take(s.lo.Add(minO), h)
	}
	if !have {
		return RemindBounds{Never: true}
	}
	if s.floating {
		lo, hi = lo.Add(-floatSlack), hi.Add(floatSlack)
	}
	b := RemindBounds{From: lo.Truncate(time.Second)}
	if !open {
		b.Until = hi.Add(time.Second - 1).Truncate(time.Second) // rounded up
	}
	return b
}

// TaskRemindBounds is where the reminders of t can fire (the rules of
// package alarm: a relative reminder before each occurrence's due, an
// absolute one at its distance from the first due, a one-time one at its
// instant), whatever t's status: the job reads only open tasks.
func TaskRemindBounds(t task.Task) RemindBounds {
	var s span
	s.points = append(s.points, t.RemindOnce...)
	remZone, remFloats := tz.UTC, true
	if t.RemindZone != "" {
		if z, err := tz.LoadZone(t.RemindZone); err == nil {
			remZone, remFloats = z, false
		} else {
			s.unreadable = true
		}
	}
	if !t.HasDue {
		for _, m := range t.Reminders.At {
			at, _ := remZone.MomentInstant(m)
			s.points = append(s.points, at)
			s.floating = s.floating || remFloats
		}
		return s.bounds()
	}
	if t.Reminders.Empty() {
		return s.bounds()
	}
	zone := tz.UTC
	if t.Due.HasTime {
		zone, remZone, remFloats = t.Due.Zone, t.Due.Zone, false
	} else {
		s.floating = true
	}
	first, _ := zone.MomentInstant(t.Due.Moment)
	s.lo, s.hi, s.occurrences = first, first, true
	if t.Rule != nil && t.RepeatFrom != task.FromCompletion {
		s.hi = time.Time{}
	}
	for _, m := range t.Reminders.Before {
		s.offsets = append(s.offsets, -time.Duration(m)*time.Minute)
	}
	for _, m := range t.Reminders.At {
		at, _ := remZone.MomentInstant(m)
		s.offsets = append(s.offsets, at.Sub(first))
		s.floating = s.floating || remFloats
	}
	return s.bounds()
}

// EventRemindBounds is where the reminders of e, with its live overrides
// ovs, can fire: each relative reminder (the series' or an override's)
// before an occurrence start, which [calendar.Bounds] bounds; each
// absolute one of the series at its distance from DTSTART; an override's
// absolute one and every one-time one at their instants.
func EventRemindBounds(e *calendar.Event, ovs map[string]*calendar.Override) RemindBounds {
	var s span
	once, err := item.ParseOnce(e.RemindOnce)
	s.unreadable = err != nil
	s.points = append(s.points, once...)
	first, _ := e.Zone.MomentInstant(e.Start)
	rem, err := item.ParseReminders(e.RemindBefore, e.RemindAt)
	s.unreadable = s.unreadable || err != nil
	addBefore := func(r item.Reminders) {
		for _, m := range r.Before {
			s.offsets = append(s.offsets, -time.Duration(m)*time.Minute)
		}
	}
	addBefore(rem)
	for _, m := range rem.At {
		at, _ := e.Zone.MomentInstant(m)
		s.offsets = append(s.offsets, at.Sub(first))
	}
	for _, o := range ovs {
		if o.Cancel || (o.RemindBefore == nil && o.RemindAt == nil) {
			continue
		}
		b, a := e.RemindBefore, e.RemindAt
		if o.RemindBefore != nil {
			b = *o.RemindBefore
		}
		if o.RemindAt != nil {
			a = *o.RemindAt
		}
		orem, err := item.ParseReminders(b, a)
		s.unreadable = s.unreadable || err != nil
		addBefore(orem)
		for _, m := range orem.At {
			at, _ := e.Zone.MomentInstant(m)
			if o.RemindAt != nil {
				s.points = append(s.points, at)
			} else {
				s.offsets = append(s.offsets, at.Sub(first))
			}
		}
	}
	if len(s.offsets) > 0 {
		lo, hi, bounded := calendar.Bounds(e, ovs)
		s.lo, s.occurrences = lo, true
		if bounded {
			s.hi = hi
		}
	}
	s.floating = e.AllDay
	return s.bounds()
}

// RemindCandidate is an item a rebuild reads: its label ("t12", "e7") and
// the instant of its updated_at (zero when it has none).
type RemindCandidate struct {
	Label   string
	Updated time.Time
}

// RemindCandidates gives the live items with reminders that can fire in
// [from, to] by their bounds: open tasks and live events whose
// remind_from is at most to and whose remind_until is at least from (or
// who have none), and every live item whose bounds are not worked out
// yet. Each is given once; the order is not meaningful. Its cost follows
// the items it gives, not the person's items.
func (tx *Tx) RemindCandidates(from, to time.Time) ([]RemindCandidate, error) {
	if list, ok := tx.takeCandidates(from, to); ok {
		return list, nil
	}
	byOwner, err := tx.remindCandidatesOf(nil, from, to)
	return byOwner[tx.owner], err
}

// remindCandidatesOf is RemindCandidates for each of owners (nil: tx's
// owner), in one statement a table, by owner.
func (tx *Tx) remindCandidatesOf(owners []int64, from, to time.Time) (map[int64][]RemindCandidate, error) {
	lo, hi, wide := from.Unix(), to.Unix(), int64(WideReminders/time.Second)
	owner, ownerArg := `owner_id = ?`, any(tx.owner)
	if owners != nil {
		owner, ownerArg = tx.inList("owner_id", owners)
	}
	out := map[int64][]RemindCandidate{}
	seen := map[int64]map[string]bool{}
	for _, tb := range []struct{ prefix, table, live string }{
		{"t", "tasks", `deleted_at IS NULL AND status = 'open'`},
		{"e", "events", `deleted_at IS NULL`},
	} {
		qs := []struct {
			q    string
			args []any
		}{
			// Narrow items: a fire in the window puts remind_from within
			// WideReminders before it.
			{`remind_from <> 0 AND remind_from >= ? AND remind_from <= ?`, []any{lo - wide, hi}},
			// Wide items whose fires are not all past.
			{`remind_until - remind_from > ` + strconv.FormatInt(wide, 10) + ` AND remind_until >= ? AND remind_from <= ?`, []any{lo, hi}},
			// Series without end.
			{`remind_until IS NULL AND remind_from <= ?`, []any{hi}},
			// Not worked out yet.
			{`remind_from IS NULL AND (remind_before <> '[]' OR remind_at <> '[]' OR remind_once <> '[]' OR id IN
				(SELECT event_id FROM event_overrides WHERE ` + owner + ` AND deleted_at IS NULL))`, []any{ownerArg}},
		}
		// One statement a table (its parts joined by UNION ALL): a
		// rebuild runs it for every person.
		var parts []string
		args := []any{}
		for i, q := range qs {
			from := tb.table
			if tx.s.engine != Postgres && i >= 2 {
				// SQLite's planner takes an index of every open task
				// (owner_id and status) over the small partial ones
				// these two read, which made each rebuild read all of
				// the person's tasks.
				from += ` INDEXED BY ` + tb.table + []string{"_remind_open", "_remind_unknown"}[i-2]
			}
			part := `SELECT owner_id, id, coalesce(updated_at, '') FROM ` + from + ` WHERE ` + owner + ` AND ` + tb.live + ` AND ` + q.q
			pargs := append([]any{ownerArg}, q.args...)
			if i == 3 && tb.table == "tasks" {
				part = `SELECT owner_id, id, coalesce(updated_at, '') FROM ` + from + ` WHERE ` + owner + ` AND ` + tb.live +
					` AND remind_from IS NULL AND (remind_before <> '[]' OR remind_at <> '[]' OR remind_once <> '[]')`
				pargs = []any{ownerArg}
			}
			parts = append(parts, part)
			args = append(args, pargs...)
		}
		if err := tx.eachCandidate(tb.prefix, strings.Join(parts, " UNION ALL "), args, seen, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (tx *Tx) eachCandidate(prefix, q string, args []any, seen map[int64]map[string]bool, out map[int64][]RemindCandidate) error {
	rows, err := tx.query(q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner, id int64
		var upd string
		if err := rows.Scan(&owner, &id, &upd); err != nil {
			return err
		}
		l := prefix + strconv.FormatInt(id, 10)
		if seen[owner] == nil {
			seen[owner] = map[string]bool{}
		}
		if seen[owner][l] {
			continue
		}
		seen[owner][l] = true
		at, _ := time.Parse(time.RFC3339, upd)
		out[owner] = append(out[owner], RemindCandidate{Label: l, Updated: at})
	}
	return rows.Err()
}

// RemindStarting gives the live items with reminders whose remind_from is
// in (after, to]: what a rebuild that read up to after had not read yet
// and can fire by to.
func (tx *Tx) RemindStarting(after, to time.Time) ([]RemindCandidate, error) {
	out := map[int64][]RemindCandidate{}
	seen := map[int64]map[string]bool{}
	for _, q := range []struct{ prefix, q string }{
		{"t", `SELECT owner_id, id, coalesce(updated_at, '') FROM tasks WHERE owner_id = ? AND deleted_at IS NULL AND status = 'open'
			AND remind_from <> 0 AND remind_from > ? AND remind_from <= ?`},
		{"e", `SELECT owner_id, id, coalesce(updated_at, '') FROM events WHERE owner_id = ? AND deleted_at IS NULL
			AND remind_from <> 0 AND remind_from > ? AND remind_from <= ?`},
	} {
		if err := tx.eachCandidate(q.prefix, q.q, []any{tx.owner, after.Unix(), to.Unix()}, seen, out); err != nil {
			return nil, err
		}
	}
	return out[tx.owner], nil
}

// RemindFromAfter is the earliest remind_from of the person's live items
// after t; ok is false when there is none.
func (tx *Tx) RemindFromAfter(t time.Time) (time.Time, bool, error) {
	best, found := time.Time{}, false
	for _, q := range []string{
		`SELECT min(remind_from) FROM tasks WHERE owner_id = ? AND deleted_at IS NULL AND status = 'open' AND remind_from <> 0 AND remind_from > ?`,
		`SELECT min(remind_from) FROM events WHERE owner_id = ? AND deleted_at IS NULL AND remind_from <> 0 AND remind_from > ?`,
	} {
		var v sql.NullInt64
		if err := tx.queryRow(q, tx.owner, t.Unix()).Scan(&v); err != nil {
			return time.Time{}, false, err
		}
		if v.Valid && (!found || v.Int64 < best.Unix()) {
			best, found = time.Unix(v.Int64, 0).UTC(), true
		}
	}
	return best, found, nil
}

// OpenTasksByID reads the live open tasks of ids, in one query per few
// hundred; a task whose row cannot be decoded is left out (reading it
// alone says why).
func (tx *Tx) OpenTasksByID(ids []int64) ([]task.Task, error) {
	if list, ok := tx.takeTasks(ids); ok {
		return list, nil
	}
	var out []task.Task
	const per = 500
	for len(ids) > 0 {
		n := min(len(ids), per)
		args := []any{tx.owner}
		q := taskSelect + ` WHERE owner_id = ? AND deleted_at IS NULL AND status = 'open' AND id IN (?` + repeatComma(n-1) + `)`
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		err := tx.eachTask(q, args, func(r Row) error {
			if t, err := decodeTask(r); err == nil {
				out = append(out, t)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return out, nil
}

func repeatComma(n int) string {
	b := make([]byte, 0, 3*n)
	for range n {
		b = append(b, ", ?"...)
	}
	return string(b)
}

// backfillBatch is how many rows one transaction of the bounds' backfill
// works out.
const backfillBatch = 2000

// backfillRemindBounds works out the reminder bounds of the rows that have
// none yet (written before migration 00014, or by a writer that did not
// set them), a batch per transaction so nothing waits long behind it. A
// database with none left costs one indexed query per table.
func (s *Store) backfillRemindBounds(ctx context.Context) error {
	for _, table := range []string{tasksTable, EventsTable} {
		// Most opens find nothing to do: a read through the partial index
		// *_remind_unknown says so without a write transaction (which
		// would take SQLite's write lock on every start).
		var one int
		err := s.db.QueryRowContext(ctx, `SELECT 1 FROM `+table+` WHERE remind_from IS NULL LIMIT 1`).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("cannot work out the reminder bounds of %s: %w", table, err)
		}
		for {
			n, err := s.backfillBatch(ctx, table)
			if err != nil {
				return fmt.Errorf("cannot work out the reminder bounds of %s: %w", table, err)
			}
			if n < backfillBatch {
				break
			}
		}
	}
	return nil
}

func (s *Store) backfillBatch(ctx context.Context, table string) (int, error) {
	tx, end, err := s.beginWrite(ctx, 0)
	if err != nil {
		return 0, err
	}
	defer end()
	t := &Tx{s: s, ctx: ctx, tx: tx}
	rows, err := t.query(`SELECT id, owner_id FROM `+table+` WHERE remind_from IS NULL ORDER BY id LIMIT ?`, backfillBatch)
	if err != nil {
		return 0, err
	}
	type key struct{ id, owner int64 }
	var keys []key
	for rows.Next() {
		var k key
		if err := rows.Scan(&k.id, &k.owner); err != nil {
			rows.Close()
			return 0, err
		}
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	bounds := map[int64]RemindBounds{}
	if table == tasksTable && len(keys) > 0 {
		// One query for the batch: most rows are tasks.
		args := make([]any, 0, len(keys))
		for _, k := range keys {
			args = append(args, k.id)
		}
		err := t.eachTask(taskSelect+` WHERE id IN (?`+repeatComma(len(keys)-1)+`)`, args, func(r Row) error {
			id, _ := integer(r["id"])
			if tk, err := decodeTask(r); err == nil {
				bounds[id] = TaskRemindBounds(tk)
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	if table == EventsTable && len(keys) > 0 {
		// A query a person for the batch's events (and their
		// overrides), not two an event.
		byOwner := map[int64][]int64{}
		for _, k := range keys {
			byOwner[k.owner] = append(byOwner[k.owner], k.id)
		}
		for owner, ids := range byOwner {
			t.owner = owner
			evs, err := t.EventsForReminders(ids)
			if err != nil {
				return 0, err
			}
			for id, w := range evs {
				bounds[id] = EventRemindBounds(w.Event, w.Overrides)
			}
		}
	}
	// Many rows a statement: one statement per row is most of the time
	// on PostgreSQL, a round trip each.
	const perStmt = 500
	for i := 0; i < len(keys); i += perStmt {
		part := keys[i:min(i+perStmt, len(keys))]
		args := make([]any, 0, 3*len(part))
		for _, k := range part {
			t.owner = k.owner
			b, ok := bounds[k.id]
			if !ok {
				if b, err = t.remindBoundsOf(table, k.id); err != nil {
					return 0, err
				}
			}
			from, until := b.Columns()
			args = append(args, k.id, from, until)
		}
		if s.engine != Postgres {
			// SQLite: a prepared statement per row costs no round trip,
			// and its planner would scan the table for a join.
			for j := 0; j < len(args); j += 3 {
				if _, err := t.exec(`UPDATE `+table+` SET remind_from = ?, remind_until = ? WHERE id = ?`,
					args[j+1], args[j+2], args[j]); err != nil {
					return 0, err
				}
			}
			continue
		}
		const row = `(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT))`
		q := `UPDATE ` + table + ` SET remind_from = v.column2, remind_until = v.column3 FROM (VALUES ` + row +
			strings.Repeat(`, `+row, len(part)-1) + `) AS v WHERE ` + table + `.id = v.column1`
		if _, err := t.exec(q, args...); err != nil {
			return 0, err
		}
	}
	return len(keys), tx.Commit()
}

// remindBoundsOf works out the bounds of row id of table (tasks or events)
// as it is stored, deleted or not; a row that cannot be decoded gets
// bounds that make the job read it (and say what is wrong).
func (tx *Tx) remindBoundsOf(table string, id int64) (RemindBounds, error) {
	unreadable := RemindBounds{From: time.Unix(0, 0).UTC()}
	if table == tasksTable {
		t, _, err := tx.TaskEvenDeleted(id)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return RemindBounds{Never: true}, nil
			}
			return unreadable, nil
		}
		return TaskRemindBounds(t), nil
	}
	w, ok, err := tx.EventForReminders(id)
	if err != nil || !ok {
		if err == nil {
			return RemindBounds{Never: true}, nil
		}
		return unreadable, nil
	}
	return EventRemindBounds(w.Event, w.Overrides), nil
}

// nullInt is a stored INTEGER as a value to compare with a row's: nil for
// NULL.
func nullInt(v sql.NullInt64) any {
	if !v.Valid {
		return nil
	}
	return v.Int64
}
