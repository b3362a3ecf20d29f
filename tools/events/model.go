package events

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// The journaled tables of this package (migrations/00003_events.sql).
// Overrides are labelled "eo" so they never read like an event id.
const (
	eventsTable    = "events"
	overridesTable = "event_overrides"
)

func init() {
	store.RegisterTable(eventsTable)
	store.RegisterTableAs(overridesTable, "eo")
}

// allDaySlack widens the stored bounds of an all-day series: its days
// float with the person's zone, which may differ from tzid by up to 26 h.
const allDaySlack = 26 * time.Hour

// prevStart is an earlier DTSTART of a series, kept so that an occurrence
// id from before a shift can be mapped to its new id.
type prevStart struct {
	Start string `json:"start"`
	TZID  string `json:"tzid"`
}

// maxPrevStarts bounds prev_starts: stale ids older than that many shifts
// are answered as unknown.
const maxPrevStarts = 8

// event is one row of events, decoded.
type event struct {
	ID       int64
	UID      string
	Title    string
	Location string
	Notes    string
	AllDay   bool
	Zone     tz.Zone   // TZID
	Start    tz.Moment // DTSTART, civil in Zone (a date when AllDay)
	End      tz.Moment // DTEND, civil in Zone (the day after the last when AllDay)
	StartAt  time.Time // instant of DTSTART
	EndAt    time.Time // instant of DTEND
	Rule     *recur.Rule
	ExDates  []tz.Moment
	RDates   []tz.Moment

	remindBefore, remindAt string // stored JSON, parsed on demand
	// remindOnce is remind_once (item.ParseOnce): one-time reminders
	// read from a calendar file, shown but never written by the tools.
	remindOnce string

	SplitFrom  int64
	PrevStarts []prevStart
	CreatedAt  time.Time
}

// duration is the length of each occurrence: exact for timed events, whole
// days for all-day ones.
func (e *event) duration() time.Duration {
	if e.AllDay {
		return time.Duration(e.Start.Date.DaysUntil(e.End.Date)) * 24 * time.Hour
	}
	return e.EndAt.Sub(e.StartAt)
}

// days is how many days each all-day occurrence covers.
func (e *event) days() int { return e.Start.Date.DaysUntil(e.End.Date) }

// series is the event as recur sees it. All-day series repeat on dates
// placed in zone (the person's), since their days float.
func (e *event) series(person tz.Zone) recur.Series {
	s := recur.Series{Start: e.Start, Zone: e.Zone, Rule: e.Rule, ExDates: e.ExDates, RDates: e.RDates, Duration: e.duration()}
	if e.AllDay {
		s.Zone = person
	}
	return s
}

// repeats reports whether the event has more than its DTSTART.
func (e *event) repeats() bool { return e.Rule != nil || len(e.RDates) > 0 }

func (e *event) label() string { return label(e.ID) }

func label(id int64) string { return "e" + strconv.FormatInt(id, 10) }

// once is the event's one-time reminders (remind_once).
func (e *event) once() []time.Time {
	ts, _ := item.ParseOnce(e.remindOnce)
	return ts
}

func (e *event) reminders() item.Reminders {
	r, _ := item.ParseReminders(e.remindBefore, e.remindAt)
	return r
}

// override is one row of event_overrides, decoded. Nil pointers keep the
// series' value.
type override struct {
	ID       int64
	EventID  int64
	Key      string // RECURRENCE-ID, as Occurrence.Key gives it
	Cancel   bool
	Title    *string
	Location *string
	Notes    *string
	// Timed: Start and End are civil in Zone; all-day: dates, End the day
	// after the last. HasTime false means the occurrence keeps its time.
	HasTime        bool
	Start, End     tz.Moment
	Zone           tz.Zone
	StartAt, EndAt time.Time
	remindBefore   *string
	remindAt       *string
}

// newUID makes an RFC 5545 UID (§3.8.4.7): globally unique, opaque.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + "@assistant"
}

// timingColumns are the columns that place a series in time: what both a
// whole event (eventColumns) and the light rows of a snapshot read.
const timingColumns = `all_day, start_local, end_local, tzid, start_at, end_at, rrule, exdates, rdates`

// eventColumns is the SELECT list scanEvent reads.
const eventColumns = `id, uid, title, location, notes, ` + timingColumns + `,
	remind_before, remind_at, split_from, prev_starts, created_at, remind_once`

type scanner interface{ Scan(dest ...any) error }

// timing receives timingColumns of one row; one value may serve row after
// row, each Scan overwriting every field.
type timing struct {
	allDay             int
	startL, endL, tzid string
	startAt, endAt     int64
	rrule              sql.NullString
	exdates, rdates    string
}

// dest is the Scan destinations of timingColumns, in their order.
func (c *timing) dest() []any {
	return []any{&c.allDay, &c.startL, &c.endL, &c.tzid, &c.startAt, &c.endAt, &c.rrule, &c.exdates, &c.rdates}
}

// decode sets e's all-day flag, TZID, DTSTART, DTEND, their instants,
// RRULE, EXDATE and RDATE from c; e.ID must be set, for the error. An
// error means the row breaks the schema's own forms: a bug or a
// hand-edited database.
func (c *timing) decode(e *event) error {
	e.AllDay = c.allDay == 1
	var err error
	if e.Zone, err = tz.LoadZone(c.tzid); err != nil {
		return fmt.Errorf("event %d: %w", e.ID, err)
	}
	if e.Start, err = tz.ParseMoment(c.startL); err != nil {
		return fmt.Errorf("event %d: %w", e.ID, err)
	}
	if e.End, err = tz.ParseMoment(c.endL); err != nil {
		return fmt.Errorf("event %d: %w", e.ID, err)
	}
	e.StartAt = time.Unix(c.startAt, 0).UTC()
	e.EndAt = time.Unix(c.endAt, 0).UTC()
	if !e.AllDay {
		// The civil text does not tell the two readings of a repeated
		// hour apart; the stored instant does.
		e.Start.DateTime = e.Zone.Reading(e.Start.DateTime, e.StartAt)
		e.End.DateTime = e.Zone.Reading(e.End.DateTime, e.EndAt)
	}
	if c.rrule.Valid && c.rrule.String != "" {
		if e.Rule, err = recur.ParseRule(c.rrule.String); err != nil {
			return fmt.Errorf("event %d: %w", e.ID, err)
		}
	}
	if e.ExDates, err = tz.ParseMomentsJSON(c.exdates); err != nil {
		return fmt.Errorf("event %d exdates: %w", e.ID, err)
	}
	if e.RDates, err = tz.ParseMomentsJSON(c.rdates); err != nil {
		return fmt.Errorf("event %d rdates: %w", e.ID, err)
	}
	return nil
}

// scanEvent decodes one row of eventColumns. An error means the row breaks
// the schema's own forms: a bug or a hand-edited database.
func scanEvent(sc scanner) (*event, error) {
	var (
		e                              event
		t                              timing
		created                        int64
		prev                           string
		remindBefore, remindAt, once   string
		splitFromN                     sql.NullInt64
		title, location, notes, uidStr string
	)
	dest := append([]any{&e.ID, &uidStr, &title, &location, &notes}, t.dest()...)
	if err := sc.Scan(append(dest, &remindBefore, &remindAt, &splitFromN, &prev, &created, &once)...); err != nil {
		return nil, err
	}
	e.UID, e.Title, e.Location, e.Notes = uidStr, title, location, notes
	if err := t.decode(&e); err != nil {
		return nil, err
	}
	e.CreatedAt = time.Unix(created, 0).UTC()
	e.remindBefore, e.remindAt, e.remindOnce = remindBefore, remindAt, once
	e.SplitFrom = splitFromN.Int64
	if prev != "" && prev != "[]" {
		if err := json.Unmarshal([]byte(prev), &e.PrevStarts); err != nil {
			return nil, fmt.Errorf("event %d prev_starts: %w", e.ID, err)
		}
	}
	return &e, nil
}

// columns is every column of e that tools write (bounds aside).
func (e *event) columns() store.Row {
	row := store.Row{
		"uid":           e.UID,
		"title":         e.Title,
		"location":      e.Location,
		"notes":         e.Notes,
		"all_day":       boolInt(e.AllDay),
		"start_local":   e.Start.String(),
		"end_local":     e.End.String(),
		"tzid":          e.Zone.Name(),
		"start_at":      e.StartAt.Unix(),
		"end_at":        e.EndAt.Unix(),
		"rrule":         nil,
		"exdates":       tz.MomentsJSON(e.ExDates),
		"rdates":        tz.MomentsJSON(e.RDates),
		"remind_before": e.remindBefore,
		"remind_at":     e.remindAt,
		"split_from":    nil,
		"prev_starts":   "[]",
		"created_at":    e.CreatedAt.Unix(),
	}
	if e.Rule != nil {
		row["rrule"] = e.Rule.String()
	}
	if e.SplitFrom != 0 {
		row["split_from"] = e.SplitFrom
	}
	if len(e.PrevStarts) > 0 {
		b, _ := json.Marshal(e.PrevStarts)
		row["prev_starts"] = string(b)
	}
	if row["remind_before"] == "" {
		row["remind_before"] = "[]"
	}
	if row["remind_at"] == "" {
		row["remind_at"] = "[]"
	}
	return row
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// loadEvent reads one live event of tx's owner; store.ErrNotFound when the
// id is someone else's, deleted or unknown.
func loadEvent(tx *store.Tx, id int64) (*event, error) {
	row := tx.QueryRow(`SELECT `+eventColumns+` FROM events WHERE owner_id = ? AND id = ? AND deleted_at IS NULL`, tx.Owner(), id)
	e, err := scanEvent(row)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("there is no event %s: %w", label(id), store.ErrNotFound)
	}
	return e, err
}

// overrideColumns is the SELECT list scanOverride reads.
const overrideColumns = `id, event_id, recurrence_id, cancelled, title, location, notes,
	start_local, end_local, tzid, start_at, end_at, remind_before, remind_at`

func scanOverride(sc scanner) (*override, error) {
	var (
		o                      override
		cancel                 int
		title, location, notes sql.NullString
		startL, endL, tzid     sql.NullString
		startAt, endAt         sql.NullInt64
		remindBefore, remindAt sql.NullString
	)
	if err := sc.Scan(&o.ID, &o.EventID, &o.Key, &cancel, &title, &location, &notes,
		&startL, &endL, &tzid, &startAt, &endAt, &remindBefore, &remindAt); err != nil {
		return nil, err
	}
	o.Cancel = cancel == 1
	o.Title, o.Location, o.Notes = nullable(title), nullable(location), nullable(notes)
	o.remindBefore, o.remindAt = nullable(remindBefore), nullable(remindAt)
	if startL.Valid {
		var err error
		o.HasTime = true
		if o.Start, err = tz.ParseMoment(startL.String); err != nil {
			return nil, fmt.Errorf("override %d: %w", o.ID, err)
		}
		if o.End, err = tz.ParseMoment(endL.String); err != nil {
			return nil, fmt.Errorf("override %d: %w", o.ID, err)
		}
		if o.Zone, err = tz.LoadZone(tzid.String); err != nil {
			return nil, fmt.Errorf("override %d: %w", o.ID, err)
		}
		o.StartAt = time.Unix(startAt.Int64, 0).UTC()
		o.EndAt = time.Unix(endAt.Int64, 0).UTC()
		if o.Start.HasTime {
			o.Start.DateTime = o.Zone.Reading(o.Start.DateTime, o.StartAt)
			o.End.DateTime = o.Zone.Reading(o.End.DateTime, o.EndAt)
		}
	}
	return &o, nil
}

func nullable(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	s := n.String
	return &s
}

// columns is every column of o that tools write.
func (o *override) columns() store.Row {
	row := store.Row{
		"event_id": o.EventID, "recurrence_id": o.Key, "cancelled": boolInt(o.Cancel),
		"title": ptr(o.Title), "location": ptr(o.Location), "notes": ptr(o.Notes),
		"start_local": nil, "end_local": nil, "tzid": nil, "start_at": nil, "end_at": nil,
		"remind_before": ptr(o.remindBefore), "remind_at": ptr(o.remindAt),
	}
	if o.HasTime {
		row["start_local"] = o.Start.String()
		row["end_local"] = o.End.String()
		row["tzid"] = o.Zone.Name()
		row["start_at"] = o.StartAt.Unix()
		row["end_at"] = o.EndAt.Unix()
	}
	return row
}

func ptr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// overridesOf reads the live overrides of event id by RECURRENCE-ID; the
// map is never nil, so a change may add to it.
func overridesOf(tx *store.Tx, id int64) (map[string]*override, error) {
	rows, err := tx.Query(`SELECT `+overrideColumns+` FROM event_overrides
		WHERE owner_id = ? AND deleted_at IS NULL AND event_id = ?`, tx.Owner(), id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*override{}
	for rows.Next() {
		o, err := scanOverride(rows)
		if err != nil {
			return nil, err
		}
		out[o.Key] = o
	}
	return out, rows.Err()
}

// bounds are the stored first_at and last_at of e with its overrides: the
// span any occurrence can touch (design §4). bounded is false for a series
// that never ends.
func bounds(e *event, ovs map[string]*override) (first, last time.Time, bounded bool) {
	first, last, bounded = e.series(e.Zone).Bounds()
	for _, o := range ovs {
		if !o.HasTime || o.Cancel {
			continue
		}
		if o.StartAt.Before(first) {
			first = o.StartAt
		}
		if bounded && o.EndAt.After(last) {
			last = o.EndAt
		}
	}
	if e.AllDay {
		first = first.Add(-allDaySlack)
		if bounded {
			last = last.Add(allDaySlack)
		}
	}
	return first, last, bounded
}

// boundsColumns are the first_at and last_at columns of e.
func boundsColumns(e *event, ovs map[string]*override) store.Row {
	first, last, bounded := bounds(e, ovs)
	row := store.Row{"first_at": first.Unix(), "last_at": nil}
	if bounded {
		row["last_at"] = last.Unix()
	}
	return row
}

// insertEvent stores a new event with its bounds and returns its id.
func insertEvent(tx *store.Tx, e *event) (int64, error) {
	row := e.columns()
	for k, v := range boundsColumns(e, nil) {
		row[k] = v
	}
	id, err := tx.Insert(eventsTable, row)
	e.ID = id
	return id, err
}

// saveEvent writes every column of e whose value changed since before
// (the row as loaded), bounds recomputed from e's live overrides.
func saveEvent(tx *store.Tx, before, e *event) error {
	ovs, err := overridesOf(tx, e.ID)
	if err != nil {
		return err
	}
	after := e.columns()
	for k, v := range boundsColumns(e, ovs) {
		after[k] = v
	}
	prev := before.columns()
	var first, last sql.NullInt64
	if err := tx.QueryRow(`SELECT first_at, last_at FROM events WHERE owner_id = ? AND id = ?`, tx.Owner(), e.ID).Scan(&first, &last); err != nil {
		return err
	}
	prev["first_at"] = first.Int64
	prev["last_at"] = nil
	if last.Valid {
		prev["last_at"] = last.Int64
	}
	set := store.Row{}
	for k, v := range after {
		if fmt.Sprint(prev[k]) != fmt.Sprint(v) {
			set[k] = v
		}
	}
	if len(set) == 0 {
		return nil
	}
	return tx.Update(eventsTable, e.ID, set)
}

// clone is a copy of e whose slices may be changed without touching e.
func (e *event) clone() *event {
	c := *e
	c.ExDates = append([]tz.Moment(nil), e.ExDates...)
	c.RDates = append([]tz.Moment(nil), e.RDates...)
	c.PrevStarts = append([]prevStart(nil), e.PrevStarts...)
	return &c
}
