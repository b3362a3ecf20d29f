package remind

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// The reminder model is item's: an item's schedule of fires.
type (
	watched  = item.Schedule
	fire     = item.Fire
	trigger  = item.Trigger
	override = item.Override
)

func triggers(r item.Reminders, first time.Time, zone, person tz.Zone) []trigger {
	return item.Triggers(r, first, zone, person)
}

func atTrigger(m tz.Moment, zone, person tz.Zone) string { return item.AtTrigger(m, zone, person) }

func onceFires(s string) ([]fire, error) { return item.OnceFires(s) }

func keyStart(key string, zone tz.Zone) (time.Time, bool) { return item.KeyStart(key, zone) }

// parseStamp reads the journal's RFC 3339 UTC stamps; "" is the zero time.
func parseStamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// itemLabel splits "t12" into its kind and id.
func itemLabel(label string) (kind byte, id int64, ok bool) {
	if len(label) < 2 {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(label[1:], 10, 64)
	if err != nil || (label[0] != 't' && label[0] != 'e') {
		return 0, 0, false
	}
	return label[0], n, true
}

// loadItem reads the task or event called label of tx's owner, deleted
// ones included (as dead); ok is false when there is no such row at all.
func loadItem(tx *store.Tx, label string, zone tz.Zone) (*watched, bool, error) {
	kind, id, ok := itemLabel(label)
	if !ok {
		return nil, false, nil
	}
	if kind == 't' {
		return loadTask(tx, id, zone)
	}
	return loadEvent(tx, id, zone)
}

// loadTask reads a task (migrations/00002_tasks.sql). A repeating task
// keeps its next due and the rule from there; a task repeated from
// completion has no known occurrence after the current due.
func loadTask(tx *store.Tx, id int64, zone tz.Zone) (*watched, bool, error) {
	it, err := scanTask(tx.QueryRow(`SELECT `+taskColumns+` FROM tasks WHERE owner_id = ? AND id = ?`, tx.Owner(), id), zone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return it, true, nil
}

// taskColumns are the columns scanTask reads, in its order.
const taskColumns = `id, title, due_date, due_time, due_zone, due_at, rrule, repeat_from, remind_before, remind_at,
	remind_zone, remind_once, status, updated_at, deleted_at`

// scanTask decodes one row of taskColumns.
func scanTask(row interface{ Scan(...any) error }, zone tz.Zone) (*watched, error) {
	var (
		id                               int64
		title, before, at, once, status  string
		date, dtime, dzone, rrule, rfrom sql.NullString
		rzone, updated, deleted          sql.NullString
		dueAt                            sql.NullInt64
	)
	if err := row.Scan(&id, &title, &date, &dtime, &dzone, &dueAt, &rrule, &rfrom, &before, &at, &rzone, &once, &status,
		&updated, &deleted); err != nil {
		return nil, err
	}
	it := &watched{Kind: "task", Label: "t" + strconv.FormatInt(id, 10), ID: id, Title: title,
		Updated: parseStamp(updated.String), Dead: deleted.Valid || status != "open"}
	rem, err := item.ParseReminders(before, at)
	if err != nil {
		return nil, fmt.Errorf("task t%d: %w", id, err)
	}
	if it.Absolute, err = onceFires(once); err != nil {
		return nil, fmt.Errorf("task t%d: %w", id, err)
	}
	// remind_at is read in the zone it was written in (remind_zone), so
	// a moment given under another zone than the person's stored one
	// (--tz) fires at the instant it named; older rows have none and use
	// the person's zone.
	remZone := zone
	if rzone.Valid && rzone.String != "" {
		if remZone, err = tz.LoadZone(rzone.String); err != nil {
			return nil, fmt.Errorf("task t%d: %w", id, err)
		}
	}
	if !date.Valid {
		it.NoBase = true
		for _, m := range rem.At {
			a, _ := remZone.MomentInstant(m)
			it.Absolute = append(it.Absolute, fire{Trigger: atTrigger(m, remZone, zone), At: a})
		}
		return it, nil
	}
	s := recur.Series{Zone: zone}
	if dtime.Valid {
		dt, err := tz.ParseDateTime(dtime.String)
		if err != nil {
			return nil, fmt.Errorf("task t%d: %w", id, err)
		}
		if s.Zone, err = tz.LoadZone(dzone.String); err != nil {
			return nil, fmt.Errorf("task t%d: %w", id, err)
		}
		// The stored instant tells the two readings of a repeated hour apart.
		s.Start = tz.TimeMoment(s.Zone.Reading(dt, time.Unix(dueAt.Int64, 0)))
		remZone = s.Zone
	} else {
		d, err := tz.ParseDate(date.String)
		if err != nil {
			return nil, fmt.Errorf("task t%d: %w", id, err)
		}
		s.Start = tz.DayMoment(d)
		it.AllDay = true
	}
	if rrule.Valid && rfrom.String != "completion" {
		if s.Rule, err = recur.ParseRule(rrule.String); err != nil {
			return nil, fmt.Errorf("task t%d: %w", id, err)
		}
	}
	it.Series = s
	first, _ := s.Zone.MomentInstant(s.Start)
	it.Triggers = triggers(rem, first, remZone, zone)
	return it, nil
}

// loadEvent reads an event and its live overrides
// (migrations/00003_events.sql). All-day series repeat on days placed in
// the person's zone, as the event tools list them.
func loadEvent(tx *store.Tx, id int64, zone tz.Zone) (*watched, bool, error) {
	var (
		title, location, startL, endL, tzid, exdates, rdates, before, at string
		allDay                                                           int
		startAt, endAt                                                   int64
		rrule, updated, deleted                                          sql.NullString
	)
	var once string
	err := tx.QueryRow(`SELECT title, location, all_day, start_local, end_local, tzid, start_at, end_at, rrule,
		exdates, rdates, remind_before, remind_at, remind_once, updated_at, deleted_at FROM events
		WHERE owner_id = ? AND id = ?`,
		tx.Owner(), id).Scan(&title, &location, &allDay, &startL, &endL, &tzid, &startAt, &endAt, &rrule,
		&exdates, &rdates, &before, &at, &once, &updated, &deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	it := &watched{Kind: "event", Label: "e" + strconv.FormatInt(id, 10), ID: id, Title: title, Location: location,
		AllDay: allDay == 1, Updated: parseStamp(updated.String), Dead: deleted.Valid}
	bad := func(err error) (*watched, bool, error) { return nil, false, fmt.Errorf("event e%d: %w", id, err) }
	if it.Absolute, err = onceFires(once); err != nil {
		return bad(err)
	}
	evZone, err := tz.LoadZone(tzid)
	if err != nil {
		return bad(err)
	}
	start, err := tz.ParseMoment(startL)
	if err != nil {
		return bad(err)
	}
	if start.HasTime {
		start.DateTime = evZone.Reading(start.DateTime, time.Unix(startAt, 0))
	}
	s := recur.Series{Start: start, Zone: evZone, Duration: time.Duration(endAt-startAt) * time.Second}
	if it.AllDay {
		s.Zone = zone
		end, err := tz.ParseMoment(endL)
		if err != nil {
			return bad(err)
		}
		s.Duration = time.Duration(start.Date.DaysUntil(end.Date)) * 24 * time.Hour
	}
	if rrule.Valid && rrule.String != "" {
		if s.Rule, err = recur.ParseRule(rrule.String); err != nil {
			return bad(err)
		}
	}
	if s.ExDates, err = tz.ParseMomentsJSON(exdates); err != nil {
		return bad(err)
	}
	if s.RDates, err = tz.ParseMomentsJSON(rdates); err != nil {
		return bad(err)
	}
	it.Series = s
	first, _ := s.Zone.MomentInstant(s.Start)
	rem, err := item.ParseReminders(before, at)
	if err != nil {
		return bad(err)
	}
	it.Triggers = triggers(rem, first, evZone, zone)

	rows, err := tx.Query(`SELECT recurrence_id, cancelled, title, start_local, end_local, start_at, end_at,
		remind_before, remind_at, updated_at FROM event_overrides WHERE owner_id = ? AND event_id = ? AND deleted_at IS NULL`, tx.Owner(), id)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			key                             string
			cancelled                       int
			otitle, ostartL, oendL, obefore sql.NullString
			oat, oupd                       sql.NullString
			ostartAt, oendAt                sql.NullInt64
		)
		if err := rows.Scan(&key, &cancelled, &otitle, &ostartL, &oendL, &ostartAt, &oendAt, &obefore, &oat, &oupd); err != nil {
			return nil, false, err
		}
		ov := &override{Cancelled: cancelled == 1, Title: otitle.String}
		if ostartAt.Valid {
			ov.Start = time.Unix(ostartAt.Int64, 0).UTC()
			ov.Length = time.Duration(oendAt.Int64-ostartAt.Int64) * time.Second
			if it.AllDay {
				m, err := tz.ParseMoment(ostartL.String)
				if err != nil {
					return bad(err)
				}
				ov.Start = zone.StartOfDay(m.Date)
				if em, err := tz.ParseMoment(oendL.String); err == nil {
					ov.Length = zone.StartOfDay(em.Date).Sub(ov.Start)
				}
			}
		}
		if obefore.Valid || oat.Valid {
			// The series' remind_at keeps its offset from DTSTART; the
			// occurrence's own remind_at is absolute (RFC 5545 §3.8.6.3,
			// a DATE-TIME trigger of the RECURRENCE-ID instance), so it is
			// measured from this occurrence's start and fires at its moment.
			b, a, base := obefore.String, oat.String, first
			if !obefore.Valid {
				b = before
			}
			if !oat.Valid {
				a = at
			} else if ov.Start.IsZero() {
				if orig, ok := keyStart(key, s.Zone); ok {
					base = orig
				} // else not an occurrence, which never fires (occurrenceAt)
			} else {
				base = ov.Start
			}
			orem, err := item.ParseReminders(b, a)
			if err != nil {
				return bad(err)
			}
			ov.Triggers = triggers(orem, base, evZone, zone)
			if ov.Triggers == nil {
				ov.Triggers = []trigger{}
			}
		}
		if u := parseStamp(oupd.String); u.After(it.Updated) {
			it.Updated = u
		}
		if it.Over == nil {
			it.Over = map[string]*override{}
		}
		it.Over[key] = ov
	}
	return it, true, rows.Err()
}

// ended reports whether the event occurrence a delivery is about has
// ended by now, and says why it is not sent then: a reminder of something
// already over is of no use. Tasks never end (an overdue task is still
// worth a reminder), and neither does a delivery whose item cannot be read
// (the send says what the row knows).
func (e *Engine) ended(tx *store.Tx, p person, label, occurrence, trig string, at, now time.Time) (bool, string, error) {
	if kind, _, ok := itemLabel(label); !ok || kind != 'e' {
		return false, "", nil
	}
	it, found, err := loadItem(tx, label, p.Zone)
	if err != nil || !found {
		return false, "", nil
	}
	f, ok := it.FireOf(occurrence, trig, at)
	if !ok || f.End.IsZero() || now.Before(f.End) {
		return false, "", nil
	}
	return true, "the event ended " + tz.FormatModel(f.End, p.Zone) + ", before its reminder could be sent", nil
}
