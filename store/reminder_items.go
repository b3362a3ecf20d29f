package store

import (
	"database/sql"
	"errors"
	"strconv"
	"time"
)

// What the reminders job reads of the tasks, events and the change
// journal: which items can fire, which changed, and the day's agenda.
// Items are named by label, "t12" for a task and "e7" for an event.

// LatestChange is the id of the person's latest change in the journal, 0
// when there is none.
func (tx *Tx) LatestChange() (int64, error) {
	if m, ok := tx.takeMark(); ok {
		return m, nil
	}
	var mark int64
	err := tx.queryRow(`SELECT coalesce(max(id), 0) FROM changes WHERE owner_id = ?`, tx.owner).Scan(&mark)
	return mark, err
}

// ItemsWithReminders gives every live item with reminders, with the
// instant of its updated_at (zero when it has none): open tasks with
// remind_before, remind_at or remind_once, and events with those or with
// a live override that has reminders of its own.
func (tx *Tx) ItemsWithReminders() (map[string]time.Time, error) {
	out := map[string]time.Time{}
	queries := []struct{ prefix, q string }{
		{"t", `SELECT id, coalesce(updated_at, '') FROM tasks WHERE owner_id = ? AND deleted_at IS NULL
			AND status = 'open' AND (remind_before <> '[]' OR remind_at <> '[]' OR remind_once <> '[]')`},
		{"e", `SELECT id, coalesce(updated_at, '') FROM events e WHERE owner_id = ? AND deleted_at IS NULL
			AND (remind_before <> '[]' OR remind_at <> '[]' OR remind_once <> '[]' OR EXISTS (SELECT 1 FROM event_overrides o
				WHERE o.owner_id = e.owner_id AND o.event_id = e.id AND o.deleted_at IS NULL
				AND (coalesce(o.remind_before, '[]') <> '[]' OR coalesce(o.remind_at, '[]') <> '[]')))`},
	}
	for _, q := range queries {
		rows, err := tx.query(q.q, tx.owner)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var upd string
			if err := rows.Scan(&id, &upd); err != nil {
				rows.Close()
				return nil, err
			}
			at, _ := time.Parse(time.RFC3339, upd)
			out[q.prefix+strconv.FormatInt(id, 10)] = at
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ItemsChangedSince gives the tasks and events that journal changes after
// mark touched, with the instant of their latest change: a change of an
// override counts for its event, one of a completion for its task. A row
// purged since is left out.
func (tx *Tx) ItemsChangedSince(mark int64) (map[string]time.Time, error) {
	rows, err := tx.query(`SELECT cr.tbl, cr.row_id, c.created FROM changes c
		JOIN journal_rows cr ON cr.change_id = c.id
		WHERE c.owner_id = ? AND c.id > ? AND cr.change_id > ? AND cr.tbl IN ('tasks', 'events', 'event_overrides', 'task_completions')`,
		tx.owner, mark, mark)
	if err != nil {
		return nil, err
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
			return nil, err
		}
		t.at = time.Unix(created, 0).UTC()
		list = append(list, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	for _, t := range list {
		var label string
		switch t.tbl {
		case "tasks":
			label = "t" + strconv.FormatInt(t.id, 10)
		case "events":
			label = "e" + strconv.FormatInt(t.id, 10)
		case "event_overrides", "task_completions":
			q, prefix := `SELECT event_id FROM event_overrides WHERE owner_id = ? AND id = ?`, "e"
			if t.tbl == "task_completions" {
				q, prefix = `SELECT task_id FROM task_completions WHERE owner_id = ? AND id = ?`, "t"
			}
			var parent int64
			err := tx.queryRow(q, tx.owner, t.id).Scan(&parent)
			if errors.Is(err, sql.ErrNoRows) {
				continue // purged since
			}
			if err != nil {
				return nil, err
			}
			label = prefix + strconv.FormatInt(parent, 10)
		}
		if t.at.After(out[label]) {
			out[label] = t.at
		}
	}
	return out, nil
}

// EventIDsBetween gives the ids of the live events whose stored range
// (first_at, last_at; last_at NULL for a series without end) meets
// (lo, hi): first_at < hi and last_at > lo.
func (tx *Tx) EventIDsBetween(lo, hi time.Time) ([]int64, error) {
	return tx.ids(`SELECT id FROM events WHERE owner_id = ? AND deleted_at IS NULL AND first_at < ?
		AND (last_at IS NULL OR last_at > ?) ORDER BY id`, tx.owner, hi.Unix(), lo.Unix())
}

// DueTask is an open task in an agenda: its due date ("2026-10-05") and,
// for a timed due, its instant (else zero).
type DueTask struct {
	ID      int64
	Title   string
	DueDate string
	DueAt   time.Time
}

// OpenTasksDue counts the open tasks due by the end of day (a timed due
// before end, a date-only due on day, "2026-10-05", or earlier), and lists
// at most limit of them by due date, due instant and id.
func (tx *Tx) OpenTasksDue(day string, end time.Time, limit int) (total int, list []DueTask, err error) {
	const where = `FROM tasks WHERE owner_id = ? AND deleted_at IS NULL AND status = 'open'
		AND ((due_at IS NOT NULL AND due_at < ?) OR (due_at IS NULL AND due_date IS NOT NULL AND due_date <= ?))`
	if err := tx.queryRow(`SELECT count(*) `+where, tx.owner, end.Unix(), day).Scan(&total); err != nil {
		return 0, nil, err
	}
	ts, err := tx.tasks(taskSelect+` WHERE owner_id = ? AND deleted_at IS NULL AND status = 'open'
		AND ((due_at IS NOT NULL AND due_at < ?) OR (due_at IS NULL AND due_date IS NOT NULL AND due_date <= ?))
		ORDER BY due_date, coalesce(due_at, 0), id LIMIT ?`, tx.owner, end.Unix(), day, limitArg(limit))
	if err != nil {
		return 0, nil, err
	}
	for _, t := range ts {
		d := DueTask{ID: t.ID, Title: t.Title, DueDate: t.Due.Date.String()}
		if t.Due.HasTime {
			d.DueAt = t.Due.At.UTC()
		}
		list = append(list, d)
	}
	return total, list, nil
}
