package tasks

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// The journaled tables of this package (migrations/00002_tasks.sql).
// Completions are labelled "tc" so they never read like a change id (c31).
const (
	tasksTable       = "tasks"
	completionsTable = "task_completions"
)

func init() {
	store.RegisterTable(tasksTable)
	store.RegisterTableAs(completionsTable, "tc")
}

// due is a task's due (design §3): a floating day (HasTime false, Zone
// unused), or a civil date-time pinned to the IANA Zone it was written in,
// with At its instant by RFC 5545 §3.3.5 (Moved when the civil time falls
// in a DST gap and At is later than written).
type due struct {
	tz.Moment
	Zone  tz.Zone
	At    time.Time
	Moved bool
}

// timedDue pins the civil dt to zone.
func timedDue(dt tz.DateTime, zone tz.Zone) due {
	at, moved := zone.Instant(dt)
	return due{Moment: tz.TimeMoment(dt), Zone: zone, At: at.UTC(), Moved: moved}
}

// start is the instant the due begins for a person in zone person: the
// instant of a timed due, 00:00 of a floating day in the person's zone.
func (d due) start(person tz.Zone) time.Time {
	if d.HasTime {
		return d.At
	}
	return person.StartOfDay(d.Date)
}

// seriesZone is the zone a repeating due expands in: its own for a timed
// due, the person's for a floating day.
func (d due) seriesZone(person tz.Zone) tz.Zone {
	if d.HasTime {
		return d.Zone
	}
	return person
}

// task is one row of tasks, decoded.
type task struct {
	ID         int64
	Title      string
	Notes      string
	Due        due
	HasDue     bool
	Priority   int
	Tags       []string
	Rule       *recur.Rule // nil when the task does not repeat
	RepeatFrom string      // "schedule" or "completion"; "" when Rule is nil
	Reminders  item.Reminders
	// RemindZone is the IANA zone Reminders.At were read in when the task
	// has no timed due (a timed due's own zone is theirs); "" for rows
	// written before it was kept, which read them in the person's zone.
	RemindZone string
	// RemindOnce are one-time reminders read from a calendar file
	// (remind_once, item.ParseOnce): shown, never written by the tools.
	RemindOnce  []time.Time
	Status      string // "open" or "done"
	CompletedAt time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// label is how a task is named to the model: "t12".
func label(id int64) string { return "t" + strconv.FormatInt(id, 10) }

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

func num(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), true
	}
	return 0, false
}

// fromRow decodes a stored row; an error means the row breaks the schema's
// own forms, a bug or a hand-edited database.
func fromRow(r store.Row) (task, error) {
	var t task
	t.ID, _ = num(r["id"])
	t.Title = str(r["title"])
	t.Notes = str(r["notes"])
	pr, _ := num(r["priority"])
	t.Priority = int(pr)
	t.Status = str(r["status"])
	if d := str(r["due_date"]); d != "" {
		t.HasDue = true
		if dt := str(r["due_time"]); dt != "" {
			civil, err := tz.ParseDateTime(dt)
			if err != nil {
				return t, fmt.Errorf("task %d: %w", t.ID, err)
			}
			zone, err := tz.LoadZone(str(r["due_zone"]))
			if err != nil {
				return t, fmt.Errorf("task %d: %w", t.ID, err)
			}
			if at, ok := num(r["due_at"]); ok {
				// The civil text does not tell the two readings of a
				// repeated hour apart; the stored instant does.
				civil = zone.Reading(civil, time.Unix(at, 0))
			}
			t.Due = timedDue(civil, zone)
		} else {
			day, err := tz.ParseDate(d)
			if err != nil {
				return t, fmt.Errorf("task %d: %w", t.ID, err)
			}
			t.Due = due{Moment: tz.DayMoment(day)}
		}
	}
	if err := json.Unmarshal([]byte(str(r["tags"])), &t.Tags); err != nil {
		return t, fmt.Errorf("task %d: tags: %w", t.ID, err)
	}
	if rr := str(r["rrule"]); rr != "" {
		rule, err := recur.ParseRule(rr)
		if err != nil {
			return t, fmt.Errorf("task %d: %w", t.ID, err)
		}
		t.Rule = rule
		t.RepeatFrom = str(r["repeat_from"])
		if t.RepeatFrom == "" {
			t.RepeatFrom = "schedule"
		}
	}
	rem, err := item.ParseReminders(str(r["remind_before"]), str(r["remind_at"]))
	if err != nil {
		return t, fmt.Errorf("task %d: %w", t.ID, err)
	}
	t.Reminders = rem
	t.RemindZone = str(r["remind_zone"])
	if t.RemindOnce, err = item.ParseOnce(str(r["remind_once"])); err != nil {
		return t, fmt.Errorf("task %d: %w", t.ID, err)
	}
	if c, ok := num(r["completed_at"]); ok {
		t.CompletedAt = time.Unix(c, 0).UTC()
	}
	if c, ok := num(r["created_at"]); ok {
		t.CreatedAt = time.Unix(c, 0).UTC()
	}
	if u := str(r["updated_at"]); u != "" {
		t.UpdatedAt, _ = time.Parse(time.RFC3339, u)
	}
	return t, nil
}

// dueColumns are the four due columns of d (all NULL when there is none).
func dueColumns(d due, has bool) store.Row {
	row := store.Row{"due_date": nil, "due_time": nil, "due_zone": nil, "due_at": nil}
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

// columns is every column of t that tools write, as stored.
func (t task) columns() store.Row {
	row := dueColumns(t.Due, t.HasDue)
	tags := t.Tags
	if tags == nil {
		tags = []string{}
	}
	tb, _ := json.Marshal(tags)
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
	row["status"] = t.Status
	row["completed_at"] = nil
	if !t.CompletedAt.IsZero() {
		row["completed_at"] = t.CompletedAt.Unix()
	}
	return row
}

// diff returns the columns of after that differ from before, for an
// update that journals only real changes.
func diff(before, after store.Row) store.Row {
	out := store.Row{}
	for k, v := range after {
		if fmt.Sprint(before[k]) != fmt.Sprint(v) {
			out[k] = v
		}
	}
	return out
}

// completion is one done occurrence.
type completion struct {
	ID     int64
	Due    due
	HasDue bool
	At     time.Time
}

// loadTask reads one live task of tx's owner; store.ErrNotFound when the
// id is someone else's, deleted or unknown.
func loadTask(tx *store.Tx, id int64) (task, error) {
	r, err := tx.Get(tasksTable, id)
	if err != nil {
		return task{}, err
	}
	return fromRow(r)
}

// loadCompletions reads the live completions of task id, newest first, at
// most limit (0 for all), and how many there are in all.
func loadCompletions(tx *store.Tx, id int64, limit int) ([]completion, int, error) {
	var total int
	if err := tx.QueryRow(`SELECT count(*) FROM task_completions
		WHERE owner_id = ? AND task_id = ? AND deleted_at IS NULL`, tx.Owner(), id).Scan(&total); err != nil {
		return nil, 0, err
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := tx.Query(`SELECT id, due_date, due_time, due_zone, completed_at FROM task_completions
		WHERE owner_id = ? AND task_id = ? AND deleted_at IS NULL
		ORDER BY completed_at DESC, id DESC LIMIT ?`, tx.Owner(), id, limit)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []completion
	for rows.Next() {
		var c completion
		var date, dtime, zone sql.NullString
		var at int64
		if err := rows.Scan(&c.ID, &date, &dtime, &zone, &at); err != nil {
			return nil, 0, err
		}
		c.At = time.Unix(at, 0).UTC()
		if date.Valid {
			c.HasDue = true
			if dtime.Valid {
				civil, err := tz.ParseDateTime(dtime.String)
				if err != nil {
					return nil, 0, err
				}
				z, err := tz.LoadZone(zone.String)
				if err != nil {
					return nil, 0, err
				}
				c.Due = timedDue(civil, z)
			} else {
				d, err := tz.ParseDate(date.String)
				if err != nil {
					return nil, 0, err
				}
				c.Due = due{Moment: tz.DayMoment(d)}
			}
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}

// hasTag reports whether t carries tag, compared case-insensitively and
// through [args.CleanLine], so a tag stored with invisible characters
// before they were dropped still matches.
func (t task) hasTag(tag string) bool {
	for _, x := range t.Tags {
		if strings.EqualFold(strings.TrimSpace(args.CleanLine(x)), tag) {
			return true
		}
	}
	return false
}
