package remind

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// state is a person's row of remind_state.
type state struct {
	Owner      int64
	ChangeMark int64  // the last change of the journal the index has seen
	Zone       string // the zone remind_next was computed in
	PassedAt   int64  // every fire up to this instant is recorded
	fresh      bool   // no row yet
}

func loadState(tx *store.Tx) (state, error) {
	st := state{Owner: tx.Owner()}
	err := tx.QueryRow(`SELECT change_mark, zone, passed_at FROM remind_state WHERE owner_id = ?`, tx.Owner()).
		Scan(&st.ChangeMark, &st.Zone, &st.PassedAt)
	if errors.Is(err, sql.ErrNoRows) {
		st.fresh = true
		return st, nil
	}
	return st, err
}

func saveState(tx *store.Tx, st state) error {
	_, err := tx.Exec(`INSERT INTO remind_state (owner_id, change_mark, zone, passed_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (owner_id) DO UPDATE SET change_mark = excluded.change_mark, zone = excluded.zone,
		passed_at = excluded.passed_at`, tx.Owner(), st.ChangeMark, st.Zone, st.PassedAt)
	return err
}

// needsFull reports whether remind_next must be rebuilt for the person:
// on the first pass, after a zone change (date-only bases move), or when
// the journal's numbering went back (purged, then reused). mark is the
// person's latest change.
func needsFull(tx *store.Tx, st state, zone string) (mark int64, full bool, err error) {
	if err := tx.QueryRow(`SELECT coalesce(max(id), 0) FROM changes WHERE owner_id = ?`, tx.Owner()).Scan(&mark); err != nil {
		return 0, false, err
	}
	return mark, st.fresh || st.Zone != zone || mark < st.ChangeMark, nil
}

// firstPassedAt is where a person's first pass starts: as far back as a
// reminder may still be sent; what fired before the job ever ran was never
// missed by it.
func (e *Engine) firstPassedAt(now time.Time) int64 { return now.Add(-e.maxLate).Unix() }

// rebuild recomputes every item of the person when needsFull says so, in
// transactions of rebuildBatch items so tools are never kept waiting
// behind one long write. Changes made meanwhile are newer than the mark
// it records, so the next sync picks them up.
func (e *Engine) rebuild(ctx context.Context, p person, now time.Time, r *Result) error {
	var (
		st      state
		mark    int64
		full    bool
		items   = map[string]time.Time{}
		pending map[string]bool
		olds    map[string]sql.NullInt64
		tasks   map[string]*watched // read in one query: most items are tasks
	)
	err := e.s.Read(ctx, p.ID, func(tx *store.Tx) error {
		var err error
		if st, err = loadState(tx); err != nil {
			return err
		}
		if mark, full, err = needsFull(tx, st, p.Zone.Name()); err != nil || !full {
			return err
		}
		if pending, err = pendingItems(tx); err != nil {
			return err
		}
		if err := allItems(tx, items); err != nil {
			return err
		}
		if olds, err = oldNext(tx); err != nil {
			return err
		}
		tasks, err = openTasks(tx, p)
		return err
	})
	if err != nil || !full {
		return err
	}
	if st.fresh {
		st.PassedAt = e.firstPassedAt(now)
	}
	labels := make([]string, 0, len(items))
	for l := range items {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	for len(labels) > 0 && ctx.Err() == nil {
		batch := labels[:min(rebuildBatch, len(labels))]
		labels = labels[len(batch):]
		if _, err := e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error {
			var keep []any // owner, item, next_fire triples
			for _, l := range batch {
				it, found := tasks[l]
				var err error
				if !found {
					if it, found, err = loadItem(tx, l, p.Zone); err != nil {
						e.log.Error("cannot work out an item's reminders; it is skipped until it changes",
							"person", p.Name, "item", l, "err", err)
						r.Problems++
						continue
					}
				}
				next, live, err := e.refresh(tx, l, it, found, olds[l], items[l], st.PassedAt, pending, r)
				if err != nil {
					return err
				}
				if live {
					keep = append(keep, tx.Owner(), l, next)
				} else if _, err := tx.Exec(`DELETE FROM remind_next WHERE owner_id = ? AND item = ?`, tx.Owner(), l); err != nil {
					return err
				}
			}
			return upsertNext(tx, keep)
		}); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	st.ChangeMark, st.Zone = mark, p.Zone.Name()
	_, err = e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error { return saveState(tx, st) })
	return err
}

// upsertNext writes (owner, item, next_fire) triples into remind_next,
// many rows per statement: a rebuild writes one row per item.
func upsertNext(tx *store.Tx, triples []any) error {
	const perStmt = 300
	for len(triples) > 0 {
		n := min(len(triples)/3, perStmt)
		q := `INSERT INTO remind_next (owner_id, item, next_fire) VALUES (?, ?, ?)` +
			strings.Repeat(`, (?, ?, ?)`, n-1) +
			` ON CONFLICT (owner_id, item) DO UPDATE SET next_fire = excluded.next_fire`
		if _, err := tx.Exec(q, triples[:3*n]...); err != nil {
			return err
		}
		triples = triples[3*n:]
	}
	return nil
}

// oldNext reads the whole index of the person.
func oldNext(tx *store.Tx) (map[string]sql.NullInt64, error) {
	rows, err := tx.Query(`SELECT item, next_fire FROM remind_next WHERE owner_id = ?`, tx.Owner())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]sql.NullInt64{}
	for rows.Next() {
		var l string
		var v sql.NullInt64
		if err := rows.Scan(&l, &v); err != nil {
			return nil, err
		}
		out[l] = v
	}
	return out, rows.Err()
}

// openTasks reads every open task with reminders in one query. A task
// whose row cannot be decoded is left out, and read (and reported) one by
// one later.
func openTasks(tx *store.Tx, p person) (map[string]*watched, error) {
	ts, err := tx.OpenTasksWithReminders()
	out := make(map[string]*watched, len(ts))
	for _, t := range ts {
		if it, err := watchTask(t, false, p.Zone); err == nil {
			out[it.Label] = it
		}
	}
	return out, err
}

// rebuildBatch is how many items one transaction of a rebuild recomputes
// (a few tens of milliseconds of work).
const rebuildBatch = 500

// sync brings remind_next up to date with the items the journal shows
// changed since the last pass, in tx. When the whole index needs
// rebuilding (see needsFull) and rebuild did not just do it, it is done
// here, in one transaction.
func (e *Engine) sync(tx *store.Tx, p person, now time.Time, r *Result) (state, error) {
	st, err := loadState(tx)
	if err != nil {
		return st, err
	}
	if st.fresh {
		st.PassedAt = e.firstPassedAt(now)
	}
	mark, full, err := needsFull(tx, st, p.Zone.Name())
	if err != nil {
		return st, err
	}
	changed := map[string]time.Time{} // item → when it changed
	var pending map[string]bool
	if full {
		if pending, err = pendingItems(tx); err != nil {
			return st, err
		}
		if err := allItems(tx, changed); err != nil {
			return st, err
		}
	} else if mark > st.ChangeMark {
		if err := changedItems(tx, st.ChangeMark, changed); err != nil {
			return st, err
		}
	}
	for label, at := range changed {
		e.recomputeLogged(tx, p, label, at, st.PassedAt, pending, r)
	}
	st.ChangeMark, st.Zone = mark, p.Zone.Name()
	return st, nil
}

func (e *Engine) recomputeLogged(tx *store.Tx, p person, label string, at time.Time, passedAt int64,
	pending map[string]bool, r *Result) {
	if err := e.recompute(tx, p, label, at, passedAt, pending, r); err != nil {
		e.log.Error("cannot work out an item's reminders; it is skipped until it changes",
			"person", p.Name, "item", label, "err", err)
		r.Problems++
	}
}

// pendingItems is the set of items with unsent, unclaimed deliveries.
func pendingItems(tx *store.Tx) (map[string]bool, error) {
	rows, err := tx.Query(`SELECT DISTINCT item FROM reminder_deliveries WHERE owner_id = ? AND status = 'pending'`, tx.Owner())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return nil, err
		}
		out[l] = true
	}
	return out, rows.Err()
}

// allItems adds every live item with reminders, and every item the index
// or an unsent delivery still names, with its updated_at as the change
// instant.
func allItems(tx *store.Tx, out map[string]time.Time) error {
	queries := []struct{ prefix, q string }{
		{"t", `SELECT id, coalesce(updated_at, '') FROM tasks WHERE owner_id = ? AND deleted_at IS NULL
			AND status = 'open' AND (remind_before <> '[]' OR remind_at <> '[]' OR remind_once <> '[]')`},
		{"e", `SELECT id, coalesce(updated_at, '') FROM events e WHERE owner_id = ? AND deleted_at IS NULL
			AND (remind_before <> '[]' OR remind_at <> '[]' OR remind_once <> '[]' OR EXISTS (SELECT 1 FROM event_overrides o
				WHERE o.owner_id = e.owner_id AND o.event_id = e.id AND o.deleted_at IS NULL
				AND (coalesce(o.remind_before, '[]') <> '[]' OR coalesce(o.remind_at, '[]') <> '[]')))`},
	}
	for _, q := range queries {
		rows, err := tx.Query(q.q, tx.Owner())
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var upd string
			if err := rows.Scan(&id, &upd); err != nil {
				rows.Close()
				return err
			}
			out[q.prefix+strconv.FormatInt(id, 10)] = parseStamp(upd)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	for _, q := range []string{
		`SELECT item FROM remind_next WHERE owner_id = ?`,
		`SELECT DISTINCT item FROM reminder_deliveries WHERE owner_id = ? AND status = 'pending' AND item <> 'digest'`,
	} {
		rows, err := tx.Query(q, tx.Owner())
		if err != nil {
			return err
		}
		for rows.Next() {
			var label string
			if err := rows.Scan(&label); err != nil {
				rows.Close()
				return err
			}
			if _, ok := out[label]; !ok {
				out[label] = time.Time{}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// changedItems adds the tasks and events that journal changes after mark
// touched (an override or a completion counts for its event or task),
// with the instant of their latest change.
func changedItems(tx *store.Tx, mark int64, out map[string]time.Time) error {
	rows, err := tx.Query(`SELECT cr.tbl, cr.row_id, c.created FROM changes c
		JOIN change_rows cr ON cr.change_id = c.id
		WHERE c.owner_id = ? AND c.id > ? AND cr.tbl IN ('tasks', 'events', 'event_overrides', 'task_completions')`,
		tx.Owner(), mark)
	if err != nil {
		return err
	}
	type touched struct {
		tbl string
		id  int64
		at  time.Time
	}
	var list []touched
	for rows.Next() {
		var t touched
		var created int64
		if err := rows.Scan(&t.tbl, &t.id, &created); err != nil {
			rows.Close()
			return err
		}
		t.at = time.Unix(created, 0).UTC()
		list = append(list, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, t := range list {
		var label string
		switch t.tbl {
		case "tasks":
			label = "t" + strconv.FormatInt(t.id, 10)
		case "events":
			label = "e" + strconv.FormatInt(t.id, 10)
		case "event_overrides", "task_completions":
			col, tbl, prefix := "event_id", "event_overrides", "e"
			if t.tbl == "task_completions" {
				col, tbl, prefix = "task_id", "task_completions", "t"
			}
			var parent int64
			err := tx.QueryRow(`SELECT `+col+` FROM `+tbl+` WHERE owner_id = ? AND id = ?`, tx.Owner(), t.id).Scan(&parent)
			if errors.Is(err, sql.ErrNoRows) {
				continue // purged since
			}
			if err != nil {
				return err
			}
			label = prefix + strconv.FormatInt(parent, 10)
		}
		if t.at.After(out[label]) {
			out[label] = t.at
		}
	}
	return nil
}

// recompute works out the next fire of one item after it changed at
// changedAt, and drops its unsent deliveries that it no longer produces
// (a moved occurrence, a completed task).
//
// The next fire is searched from changedAt — a reminder whose time had
// passed when the item took its present form was never due in that form —
// but not before the item's previous next fire, so a reminder that was
// due and not yet recorded when an unrelated field changed still goes
// out, and never at or before passedAt, whose fires are recorded already.
//
// pending, when not nil, is the set of items that have unsent deliveries,
// so a rebuild does not look for them item by item.
func (e *Engine) recompute(tx *store.Tx, p person, label string, changedAt time.Time, passedAt int64,
	pending map[string]bool, r *Result) error {
	var old sql.NullInt64
	err := tx.QueryRow(`SELECT next_fire FROM remind_next WHERE owner_id = ? AND item = ?`, tx.Owner(), label).Scan(&old)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	it, ok, err := loadItem(tx, label, p.Zone)
	if err != nil {
		return err
	}
	next, live, err := e.refresh(tx, label, it, ok, old, changedAt, passedAt, pending, r)
	if err != nil {
		return err
	}
	if !live {
		_, err := tx.Exec(`DELETE FROM remind_next WHERE owner_id = ? AND item = ?`, tx.Owner(), label)
		return err
	}
	_, err = tx.Exec(`INSERT INTO remind_next (owner_id, item, next_fire) VALUES (?, ?, ?)
		ON CONFLICT (owner_id, item) DO UPDATE SET next_fire = excluded.next_fire`, tx.Owner(), label, next)
	return err
}

// refresh is recompute's work once the item (it, found) and its previous
// next fire (old) are read: it drops stale deliveries and returns the new
// next fire (nil for none) and whether the item is to stay in the index.
func (e *Engine) refresh(tx *store.Tx, label string, it *watched, found bool, old sql.NullInt64, changedAt time.Time,
	passedAt int64, pending map[string]bool, r *Result) (next any, live bool, err error) {
	from := changedAt
	if old.Valid {
		if o := time.Unix(old.Int64, 0); o.Before(from) {
			from = o
		}
	}
	if floor := time.Unix(passedAt+1, 0); from.Before(floor) {
		from = floor
	}
	live = found && it.hasReminders()
	if pending == nil || pending[label] {
		if err := e.dropStale(tx, label, it, live, r); err != nil {
			return nil, false, err
		}
	}
	if !live {
		return nil, false, nil
	}
	if at, ok := it.next(from); ok {
		next = at.Unix()
	}
	return next, true, nil
}

// dropStale deletes the pending (due, unsent, unclaimed) deliveries of an
// item that it no longer produces. Claimed ones are in a sender's hands
// and are left to finish.
func (e *Engine) dropStale(tx *store.Tx, label string, it *watched, live bool, r *Result) error {
	rows, err := tx.Query(`SELECT id, occurrence, trigger, fire_at FROM reminder_deliveries
		WHERE owner_id = ? AND item = ? AND status = 'pending'`, tx.Owner(), label)
	if err != nil {
		return err
	}
	var stale []int64
	for rows.Next() {
		var id, at int64
		var occ, trig string
		if err := rows.Scan(&id, &occ, &trig, &at); err != nil {
			rows.Close()
			return err
		}
		if !live || !it.produces(occ, trig, time.Unix(at, 0).UTC()) {
			stale = append(stale, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range stale {
		if _, err := tx.Exec(`DELETE FROM reminder_deliveries WHERE owner_id = ? AND id = ? AND status = 'pending'`,
			tx.Owner(), id); err != nil {
			return err
		}
		r.Dropped++
	}
	return nil
}

// record adds a delivery row for every fire that came due by now (and the
// day's digest), then moves each such item's next fire past now.
func (e *Engine) record(tx *store.Tx, p person, st state, now time.Time, r *Result) error {
	rows, err := tx.Query(`SELECT item, next_fire FROM remind_next WHERE owner_id = ? AND next_fire IS NOT NULL
		AND next_fire <= ?`, tx.Owner(), now.Unix())
	if err != nil {
		return err
	}
	type due struct {
		label string
		from  int64
	}
	var list []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.label, &d.from); err != nil {
			rows.Close()
			return err
		}
		list = append(list, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	after := now.Truncate(time.Second).Add(time.Second)
	for _, d := range list {
		it, ok, err := loadItem(tx, d.label, p.Zone)
		if err != nil {
			e.log.Error("cannot read an item's reminders", "person", p.Name, "item", d.label, "err", err)
			r.Problems++
			continue
		}
		if !ok {
			if _, err := tx.Exec(`DELETE FROM remind_next WHERE owner_id = ? AND item = ?`, tx.Owner(), d.label); err != nil {
				return err
			}
			continue
		}
		for _, f := range it.between(time.Unix(d.from, 0), now) {
			local := ""
			if it.AllDay {
				local = wallClock(f.At, p.Zone)
			}
			if err := e.insert(tx, p, d.label, f.Occurrence, f.Trigger, f.At, local, now, r); err != nil {
				return err
			}
		}
		var next any
		if at, ok := it.next(after); ok {
			next = at.Unix()
		}
		if _, err := tx.Exec(`UPDATE remind_next SET next_fire = ? WHERE owner_id = ? AND item = ?`,
			next, tx.Owner(), d.label); err != nil {
			return err
		}
	}
	if e.digest != nil {
		return e.recordDigests(tx, p, st, now, r)
	}
	return nil
}

// recordedForDay reports whether the fire (label, occ, trig) at local, the
// wall-clock time a date-only base sets, was recorded at another instant:
// for that day, in the person's earlier zone. It is false when local is "".
func recordedForDay(tx *store.Tx, label, occ, trig, local string, at time.Time) (bool, error) {
	if local == "" {
		return false, nil
	}
	var n int
	err := tx.QueryRow(`SELECT count(*) FROM reminder_deliveries WHERE owner_id = ? AND item = ?
		AND occurrence = ? AND trigger = ? AND local_fire = ? AND fire_at <> ?`,
		tx.Owner(), label, occ, trig, local, at.Unix()).Scan(&n)
	return n > 0, err
}

// wallClock is at on the wall clock of zone, "2026-10-04T23:00".
func wallClock(at time.Time, zone tz.Zone) string { return tz.TimeMoment(zone.In(at)).String() }

// insert records one due fire, as pending, or as skipped when it is more
// than MaxLate late. A fire already recorded is left as it is. local is
// the fire's wall-clock time when a date-only start or due (or the
// digest's time of day) sets it, else "": a fire of the same item,
// occurrence and trigger already recorded at that wall-clock time was
// recorded for that day in the person's earlier zone, and is not recorded
// again at the new zone's instant.
func (e *Engine) insert(tx *store.Tx, p person, label, occ, trig string, at time.Time, local string, now time.Time, r *Result) error {
	if done, err := recordedForDay(tx, label, occ, trig, local, at); err != nil || done {
		return err
	}
	var localCol any
	if local != "" {
		localCol = local
	}
	status, why := "pending", ""
	if late := now.Sub(at); late > e.maxLate {
		status = "skipped"
		why = "missed by " + humanDuration(late) + ", more than the " + humanDuration(e.maxLate) + " allowed (--max-late)"
	}
	res, err := tx.Exec(`INSERT INTO reminder_deliveries (owner_id, item, occurrence, trigger, fire_at, delivery_id,
		status, next_attempt, last_error, created_at, local_fire) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (owner_id, item, occurrence, trigger, fire_at) DO NOTHING`,
		tx.Owner(), label, occ, trig, at.Unix(), deliveryID(tx.Owner(), label, occ, trig, at.Unix()),
		status, at.Unix(), why, now.Unix(), localCol)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 && status == "skipped" {
		r.Skipped++
		r.TooLate++
		e.log.Warn("reminder skipped: missed by more than --max-late", "person", p.Name, "item", label, "occurrence", occ,
			"trigger", trig, "fire_at", tz.RFC3339(at, p.Zone), "late", humanDuration(now.Sub(at)))
	}
	return nil
}
