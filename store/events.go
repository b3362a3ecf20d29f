package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// The journaled tables of events (migrations/00003_events.sql).
// Overrides are labelled "eo" so they never read like an event id.
const (
	EventsTable    = "events"
	OverridesTable = "event_overrides"
)

func init() {
	RegisterTable(EventsTable)
	RegisterTableAs(OverridesTable, "eo")
}

// This file is the one row codec of events and event_overrides: decoding
// (scanEvent, scanOverride, timing.decode) and encoding (eventRow,
// overrideRow), and the typed methods on [Tx] that read and write them.

// timingColumns are the columns that place a series in time.
const timingColumns = `all_day, start_local, end_local, tzid, start_at, end_at, rrule, exdates, rdates`

// eventColumns is the SELECT list scanEvent reads.
const eventColumns = `id, uid, title, location, notes, ` + timingColumns + `,
	remind_before, remind_at, split_from, prev_starts, created_at, remind_once`

// overrideColumns is the SELECT list scanOverride reads.
const overrideColumns = `id, event_id, recurrence_id, cancelled, title, location, notes,
	start_local, end_local, tzid, start_at, end_at, remind_before, remind_at`

type evScanner interface{ Scan(dest ...any) error }

// timing receives timingColumns of one row; one value may serve row after
// row, each Scan overwriting every field.
type timing struct {
	allDay             int
	startL, endL, tzid string
	startAt, endAt     int64
	rrule              sql.NullString
	exdates, rdates    string
}

func (c *timing) dest() []any {
	return []any{&c.allDay, &c.startL, &c.endL, &c.tzid, &c.startAt, &c.endAt, &c.rrule, &c.exdates, &c.rdates}
}

// decode sets e's all-day flag, TZID, DTSTART, DTEND, their instants,
// RRULE, EXDATE and RDATE from c; e.ID must be set, for the error. An
// error means the row breaks the schema's own forms: a bug or a
// hand-edited database.
func (c *timing) decode(e *calendar.Event) error {
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
	e.Rule = nil
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

// scanEvent decodes one row of eventColumns, followed by extra
// destinations.
func scanEvent(sc evScanner, extra ...any) (*calendar.Event, error) {
	var (
		e          calendar.Event
		t          timing
		created    int64
		prev       string
		splitFromN sql.NullInt64
	)
	dest := append([]any{&e.ID, &e.UID, &e.Title, &e.Location, &e.Notes}, t.dest()...)
	dest = append(dest, &e.RemindBefore, &e.RemindAt, &splitFromN, &prev, &created, &e.RemindOnce)
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	if err := t.decode(&e); err != nil {
		return nil, err
	}
	e.CreatedAt = time.Unix(created, 0).UTC()
	e.SplitFrom = splitFromN.Int64
	if prev != "" && prev != "[]" {
		if err := json.Unmarshal([]byte(prev), &e.PrevStarts); err != nil {
			return nil, fmt.Errorf("event %d prev_starts: %w", e.ID, err)
		}
	}
	return &e, nil
}

// eventRow is every column of e that callers write (remind_once too, which
// only an import sets), first_at and last_at from [calendar.Bounds] of e
// with ovs, remind_from and remind_until from [EventRemindBounds].
func eventRow(e *calendar.Event, ovs map[string]*calendar.Override) Row {
	vals := eventValues(e, ovs)
	row := make(Row, len(eventCols))
	for i, c := range eventCols {
		row[c] = vals[i]
	}
	return row
}

// eventCols are the columns eventValues gives, in its order.
var eventCols = []string{"uid", "title", "location", "notes", "all_day", "start_local", "end_local", "tzid",
	"start_at", "end_at", "rrule", "exdates", "rdates", "remind_before", "remind_at", "remind_once",
	"split_from", "prev_starts", "created_at", "first_at", "last_at", "remind_from", "remind_until"}

// eventValues is eventRow as values in the order of eventCols, for a
// batch insert that builds no map per row.
func eventValues(e *calendar.Event, ovs map[string]*calendar.Override) []any {
	var rrule, split, last any
	prev := "[]"
	if e.Rule != nil {
		rrule = e.Rule.String()
	}
	if e.SplitFrom != 0 {
		split = e.SplitFrom
	}
	if len(e.PrevStarts) > 0 {
		b, _ := json.Marshal(e.PrevStarts)
		prev = string(b)
	}
	first, l, bounded := calendar.Bounds(e, ovs)
	if bounded {
		last = l.Unix()
	}
	from, until := EventRemindBounds(e, ovs).Columns()
	return []any{e.UID, e.Title, e.Location, e.Notes, evBool(e.AllDay), e.Start.String(), e.End.String(), e.Zone.Name(),
		e.StartAt.Unix(), e.EndAt.Unix(), rrule, tz.MomentsJSON(e.ExDates), tz.MomentsJSON(e.RDates),
		evList(e.RemindBefore), evList(e.RemindAt), evList(e.RemindOnce), split, prev, e.CreatedAt.Unix(), first.Unix(), last,
		from, until}
}

func evList(s string) string {
	if s == "" {
		return "[]"
	}
	return s
}

func evBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

func scanOverride(sc evScanner, extra ...any) (*calendar.Override, error) {
	var (
		o                      calendar.Override
		cancel                 int
		title, location, notes sql.NullString
		startL, endL, tzid     sql.NullString
		startAt, endAt         sql.NullInt64
		remindBefore, remindAt sql.NullString
	)
	dest := []any{&o.ID, &o.EventID, &o.Key, &cancel, &title, &location, &notes,
		&startL, &endL, &tzid, &startAt, &endAt, &remindBefore, &remindAt}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	o.Cancel = cancel == 1
	o.Title, o.Location, o.Notes = evNullable(title), evNullable(location), evNullable(notes)
	o.RemindBefore, o.RemindAt = evNullable(remindBefore), evNullable(remindAt)
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

func evNullable(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	s := n.String
	return &s
}

// overrideRow is every column of o that callers write.
func overrideRow(o *calendar.Override) Row {
	row := Row{
		"event_id": o.EventID, "recurrence_id": o.Key, "cancelled": evBool(o.Cancel),
		"title": evPtr(o.Title), "location": evPtr(o.Location), "notes": evPtr(o.Notes),
		"start_local": nil, "end_local": nil, "tzid": nil, "start_at": nil, "end_at": nil,
		"remind_before": evPtr(o.RemindBefore), "remind_at": evPtr(o.RemindAt),
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

func evPtr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// changedColumns is the columns of after whose value differs from
// before's.
func evChanged(before, after Row) Row {
	set := Row{}
	for k, v := range after {
		if fmt.Sprint(before[k]) != fmt.Sprint(v) {
			set[k] = v
		}
	}
	return set
}

// Event reads one live event of tx's owner. The error wraps [ErrNotFound]
// ("there is no event e7") when the id is someone else's, deleted or
// unknown; any other error means a row that breaks the schema's forms.
func (tx *Tx) Event(id int64) (*calendar.Event, error) {
	row := tx.queryRow(`SELECT `+eventColumns+` FROM events WHERE owner_id = ? AND id = ? AND deleted_at IS NULL`, tx.owner, id)
	e, err := scanEvent(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("there is no event %s: %w", calendar.Label(id), ErrNotFound)
	}
	return e, err
}

// EventByUID reads the live event of tx's owner whose UID (RFC 5545
// §3.8.4.7) is uid, by the index events_owner_uid, which keeps one live
// event per UID and owner. The error wraps [ErrNotFound] when there is
// none; any other error means a row that breaks the schema's forms.
func (tx *Tx) EventByUID(uid string) (*calendar.Event, error) {
	row := tx.queryRow(`SELECT `+eventColumns+` FROM events WHERE owner_id = ? AND uid = ? AND deleted_at IS NULL`, tx.owner, uid)
	e, err := scanEvent(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("there is no event with UID %q: %w", uid, ErrNotFound)
	}
	return e, err
}

// Overrides reads the live overrides of event id by RECURRENCE-ID; the map
// is never nil, so a change may add to it.
func (tx *Tx) Overrides(eventID int64) (map[string]*calendar.Override, error) {
	rows, err := tx.query(`SELECT `+overrideColumns+` FROM event_overrides
		WHERE owner_id = ? AND deleted_at IS NULL AND event_id = ?`, tx.owner, eventID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*calendar.Override{}
	for rows.Next() {
		o, err := scanOverride(rows)
		if err != nil {
			return nil, err
		}
		out[o.Key] = o
	}
	return out, rows.Err()
}

// InsertEvent stores e, a new event without overrides, with its bounds
// ([calendar.Bounds]), journaled; it sets e.ID and returns it.
func (tx *Tx) InsertEvent(e *calendar.Event) (int64, error) {
	id, err := tx.Insert(EventsTable, eventRow(e, nil))
	e.ID = id
	return id, err
}

// SaveEvent writes, journaled, every column of after (event after.ID)
// whose value differs from before (the event as loaded), its bounds
// recomputed with its live overrides as stored now: save overrides first.
// Nothing is written when nothing differs.
func (tx *Tx) SaveEvent(before, after *calendar.Event) error {
	ovs, err := tx.Overrides(after.ID)
	if err != nil {
		return err
	}
	prev := eventRow(before, nil)
	var first, last, rfrom, runtil sql.NullInt64
	if err := tx.queryRow(`SELECT first_at, last_at, remind_from, remind_until FROM events WHERE owner_id = ? AND id = ?`,
		tx.owner, after.ID).Scan(&first, &last, &rfrom, &runtil); err != nil {
		return err
	}
	prev["first_at"], prev["last_at"] = first.Int64, nil
	if last.Valid {
		prev["last_at"] = last.Int64
	}
	prev["remind_from"], prev["remind_until"] = nullInt(rfrom), nullInt(runtil)
	set := evChanged(prev, eventRow(after, ovs))
	if len(set) == 0 {
		return nil
	}
	return tx.Update(EventsTable, after.ID, set)
}

// DeleteEvent soft-deletes event id (its overrides stay, unseen with it),
// journaled so that undo brings it back.
func (tx *Tx) DeleteEvent(id int64) error { return tx.Delete(EventsTable, id) }

// InsertOverride stores o, a new override of event o.EventID, journaled,
// created at created; it sets o.ID. Save the event afterwards
// ([Tx.SaveEvent]) so its bounds take o in.
func (tx *Tx) InsertOverride(o *calendar.Override, created time.Time) error {
	row := overrideRow(o)
	row["created_at"] = created.Unix()
	id, err := tx.Insert(OverridesTable, row)
	o.ID = id
	return err
}

// SaveOverride writes, journaled, the columns of after (override after.ID)
// that differ from before, its event and key included.
func (tx *Tx) SaveOverride(before, after *calendar.Override) error {
	set := evChanged(overrideRow(before), overrideRow(after))
	if len(set) == 0 {
		return nil
	}
	return tx.Update(OverridesTable, after.ID, set)
}

// DeleteOverride soft-deletes override id, journaled.
func (tx *Tx) DeleteOverride(id int64) error { return tx.Delete(OverridesTable, id) }

// EventGeneration reads tx's owner's event generation, a random number
// drawn anew on every write to their events or overrides
// (migrations/00006_events_speed.sql: by the engine's triggers on an
// update or a delete; on SQLite by the store itself on an insert,
// migration 00034 and [Tx.bumpEventGeneration]); ok is false when they
// have none yet.
func (tx *Tx) EventGeneration() (gen int64, ok bool, err error) {
	err = tx.queryRow(`SELECT gen FROM event_generations WHERE person_id = ?`, tx.owner).Scan(&gen)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return gen, err == nil, err
}

// bumpEventGenerationSQL draws tx's owner's event generation anew, as
// the triggers of migration 00006 do on an update or a delete.
const bumpEventGenerationSQL = `INSERT INTO event_generations (person_id, gen) VALUES (?, random())
	ON CONFLICT (person_id) DO UPDATE SET gen = excluded.gen`

// bumpEventGeneration draws tx's owner's event generation anew before
// rows are inserted into table, when table is events or event_overrides
// and the engine is SQLite, whose insert triggers migration 00034 dropped
// (they drew it once per row). Every way the store inserts rows
// (insertIf, insertRuns) calls it, so a generation read after an insert,
// in the same transaction or after its commit by another process, is never
// the one read before. PostgreSQL's statement triggers draw it there.
func (tx *Tx) bumpEventGeneration(table string) error {
	if tx.s.engine != SQLite || (table != EventsTable && table != OverridesTable) {
		return nil
	}
	if _, err := tx.exec(bumpEventGenerationSQL, tx.owner); err != nil {
		return fmt.Errorf("cannot add to %s: %w", table, err)
	}
	return nil
}

// EventSpan is a series with its stored bounds, Unix seconds; Last is
// math.MaxInt64 for a series that never ends.
type EventSpan struct {
	Event       *calendar.Event
	First, Last int64
}

// SeriesReaching reads the timing of tx's owner's live series whose stored
// bounds reach [from, to] (Unix seconds): the events carry their id and
// the fields that place them in time, no text, reminders or history.
func (tx *Tx) SeriesReaching(from, to int64) ([]EventSpan, error) {
	rows, err := tx.query(`SELECT id, `+timingColumns+`, first_at, last_at
		FROM events WHERE owner_id = ? AND deleted_at IS NULL AND first_at <= ? AND (last_at IS NULL OR last_at >= ?)`,
		tx.owner, to, from)
	if err != nil {
		return nil, err
	}
	return scanSpans(rows, nil)
}

// SeriesByID reads, as [Tx.SeriesReaching] does, the live series of tx's
// owner among ids, whatever their bounds; deleted or unknown ids are left
// out. The order is the database's. Its cost follows len(ids): rows are
// found by primary key (+owner_id keeps SQLite off the owner's index).
func (tx *Tx) SeriesByID(ids []int64) ([]EventSpan, error) {
	var out []EventSpan
	for len(ids) > 0 {
		n := min(len(ids), 500) // under SQLite's variable limit
		q := make([]any, 0, n+1)
		q = append(q, tx.owner)
		for _, id := range ids[:n] {
			q = append(q, id)
		}
		ids = ids[n:]
		rows, err := tx.query(`SELECT id, `+timingColumns+`, first_at, last_at
			FROM events WHERE +owner_id = ? AND deleted_at IS NULL AND id IN (?`+strings.Repeat(",?", n-1)+`)`, q...)
		if err != nil {
			return nil, err
		}
		if out, err = scanSpans(rows, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scanSpans appends to out the rows of id, timingColumns, first_at and
// last_at, and closes rows.
func scanSpans(rows *sql.Rows, out []EventSpan) ([]EventSpan, error) {
	defer rows.Close()
	var (
		id    int64
		t     timing
		first int64
		last  sql.NullInt64
	)
	dest := append(append([]any{&id}, t.dest()...), &first, &last)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		e := &calendar.Event{ID: id}
		if err := t.decode(e); err != nil {
			return nil, err
		}
		r := EventSpan{Event: e, First: first, Last: math.MaxInt64}
		if last.Valid {
			r.Last = last.Int64
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// EventsChangedSince reads the journal rows of events and overrides that
// tx's owner's changes after change mark wrote, at most limit of them:
// n is how many, ids the events among them (in journal order, an id as
// often as it was written), last the newest change read (mark when none).
// Its cost follows the journal after mark: changes by the owner's index
// from mark on, their rows by primary key.
func (tx *Tx) EventsChangedSince(mark int64, limit int) (n int, ids []int64, last int64, err error) {
	// The rows of changes of several rows (change_rows) and those of
	// changes of one row (inline in changes, seq 0; migration 00016), each
	// read in journal order up to limit, then merged, as in ChangedRows.
	// r.change_id > mark repeats c.id > mark on change_rows' key: without
	// it PostgreSQL hash-joins the changes after mark with every row of
	// change_rows (a 10k-row import's rows read on each call).
	rows, err := tx.query(`SELECT change_id, tbl, row_id FROM (
		SELECT * FROM (SELECT r.change_id, r.seq, r.tbl, r.row_id FROM changes c JOIN change_rows r ON r.change_id = c.id
		WHERE c.owner_id = ? AND c.id > ? AND r.change_id > ? AND r.tbl IN (?, ?) ORDER BY c.id, r.seq LIMIT ?) many
		UNION ALL
		SELECT * FROM (SELECT c.id, 0, c.tbl, c.row_id FROM changes c
		WHERE c.owner_id = ? AND c.id > ? AND c.tbl IN (?, ?) ORDER BY c.id LIMIT ?) one
		ORDER BY 1, 2 LIMIT ?) j`,
		tx.owner, mark, mark, EventsTable, OverridesTable, limit,
		tx.owner, mark, EventsTable, OverridesTable, limit, limit)
	if err != nil {
		return 0, nil, mark, err
	}
	defer rows.Close()
	last = mark
	for rows.Next() {
		var (
			tbl string
			id  int64
		)
		if err := rows.Scan(&last, &tbl, &id); err != nil {
			return 0, nil, mark, err
		}
		n++
		if tbl == EventsTable {
			ids = append(ids, id)
		}
	}
	return n, ids, last, rows.Err()
}

// Source is the store tx belongs to: two transactions of one Source read
// one database, so what one learnt of it (a cached snapshot) may serve the
// other.
func (tx *Tx) Source() *Store { return tx.s }

// EventText is the text of a series: its title, location and notes.
type EventText struct{ Title, Location, Notes string }

// EventTexts reads the text of tx's owner's events ids (deleted ones
// too); ids not found are missing from the map.
func (tx *Tx) EventTexts(ids []int64) (map[int64]EventText, error) {
	texts := make(map[int64]EventText, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500) // under SQLite's variable limit
		q := make([]any, 0, n+1)
		q = append(q, tx.owner)
		for _, id := range ids[:n] {
			q = append(q, id)
		}
		ids = ids[n:]
		// +owner_id: by the primary key, not by the owner's index (which
		// SQLite picks otherwise and reads every event of the owner).
		rows, err := tx.query(`SELECT id, title, location, notes FROM events WHERE +owner_id = ? AND id IN (?`+strings.Repeat(",?", n-1)+`)`, q...)
		if err != nil {
			return nil, err
		}
		if err := scanTexts(rows, texts, nil); err != nil {
			return nil, err
		}
	}
	return texts, nil
}

// EventTextsWhere reads the text of tx's owner's live events for which
// keep is true; the others' text is not kept.
func (tx *Tx) EventTextsWhere(keep func(EventText) bool) (map[int64]EventText, error) {
	rows, err := tx.query(`SELECT id, title, location, notes FROM events WHERE owner_id = ? AND deleted_at IS NULL`, tx.owner)
	if err != nil {
		return nil, err
	}
	out := map[int64]EventText{}
	return out, scanTexts(rows, out, keep)
}

func scanTexts(rows *sql.Rows, into map[int64]EventText, keep func(EventText) bool) error {
	defer rows.Close()
	for rows.Next() {
		var id int64
		var t EventText
		if err := rows.Scan(&id, &t.Title, &t.Location, &t.Notes); err != nil {
			return err
		}
		if keep == nil || keep(t) {
			into[id] = t
		}
	}
	return rows.Err()
}

// OverridesNear reads tx's owner's live overrides keyed in [keyLo, keyHi)
// (RECURRENCE-IDs compare as text: "20261005" < "20261005T070000Z") or
// whose own time overlaps (from, to), by event id and key.
func (tx *Tx) OverridesNear(keyLo, keyHi string, from, to time.Time) (map[int64]map[string]*calendar.Override, error) {
	rows, err := tx.query(`SELECT `+overrideColumns+` FROM event_overrides
		WHERE owner_id = ? AND deleted_at IS NULL AND ((recurrence_id >= ? AND recurrence_id < ?)
			OR (start_at IS NOT NULL AND start_at < ? AND end_at > ?))`,
		tx.owner, keyLo, keyHi, to.Unix(), from.Unix())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]map[string]*calendar.Override{}
	for rows.Next() {
		o, err := scanOverride(rows)
		if err != nil {
			return nil, err
		}
		if out[o.EventID] == nil {
			out[o.EventID] = map[string]*calendar.Override{}
		}
		out[o.EventID][o.Key] = o
	}
	return out, rows.Err()
}

// SplitsOf lists the ids of tx's owner's live events split from event id
// (their split_from).
func (tx *Tx) SplitsOf(id int64) ([]int64, error) {
	return tx.ids(`SELECT id FROM events WHERE owner_id = ? AND split_from = ? AND deleted_at IS NULL`, tx.owner, id)
}

// EventsStartingAt lists tx's owner's live events created at or after
// since whose DTSTART is e's and whose first occurrence (first_at, from
// [calendar.Bounds]) is e's without overrides, newest first: the
// candidates of a duplicate add of e. An add sent twice stores both the
// same, and asking for first_at lets the lookup ride events_owner_range
// (migration 00036) rather than an index of its own. An event whose
// first_at has moved since it was added (an override that moves an
// occurrence earlier) is no candidate.
func (tx *Tx) EventsStartingAt(e *calendar.Event, since time.Time) ([]*calendar.Event, error) {
	first, _, _ := calendar.Bounds(e, nil)
	rows, err := tx.query(`SELECT `+eventColumns+` FROM events
		WHERE owner_id = ? AND deleted_at IS NULL AND first_at = ? AND start_at = ? AND created_at >= ? ORDER BY id DESC`,
		tx.owner, first.Unix(), e.StartAt.Unix(), since.Unix())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*calendar.Event
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// OpenDueTimes lists the due instants in [from, to) of tx's owner's open,
// live tasks that have a due time (a date-only due has none), unordered:
// what free_time keeps clear.
func (tx *Tx) OpenDueTimes(from, to time.Time) ([]time.Time, error) {
	rows, err := tx.query(`SELECT due_at FROM tasks WHERE owner_id = ? AND status = 'open' AND deleted_at IS NULL
		AND due_at IS NOT NULL AND due_at >= ? AND due_at < ?`, tx.owner, from.Unix(), to.Unix())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			return nil, err
		}
		out = append(out, time.Unix(at, 0).UTC())
	}
	return out, rows.Err()
}

// WatchedEvent is an event as the reminders job reads it: deleted ones
// too (Dead), with its live overrides and the latest updated_at of the
// event and those overrides.
type WatchedEvent struct {
	Event     *calendar.Event
	Overrides map[string]*calendar.Override
	Dead      bool
	Updated   time.Time // zero when never stamped
}

// EventForReminders reads event id of tx's owner, deleted or not; ok is
// false when there is no such row.
func (tx *Tx) EventForReminders(id int64) (w WatchedEvent, ok bool, err error) {
	var updated, deleted sql.NullString
	row := tx.queryRow(`SELECT `+eventColumns+`, updated_at, deleted_at FROM events WHERE owner_id = ? AND id = ?`, tx.owner, id)
	w.Event, err = scanEvent(row, &updated, &deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return w, false, nil
	}
	if err != nil {
		return w, false, err
	}
	w.Dead, w.Updated = deleted.Valid, evStamp(updated.String)
	rows, err := tx.query(`SELECT `+overrideColumns+`, updated_at FROM event_overrides
		WHERE owner_id = ? AND deleted_at IS NULL AND event_id = ?`, tx.owner, id)
	if err != nil {
		return w, false, err
	}
	defer rows.Close()
	w.Overrides = map[string]*calendar.Override{}
	for rows.Next() {
		var upd sql.NullString
		o, err := scanOverride(rows, &upd)
		if err != nil {
			return w, false, err
		}
		if u := evStamp(upd.String); u.After(w.Updated) {
			w.Updated = u
		}
		w.Overrides[o.Key] = o
	}
	return w, true, rows.Err()
}

// parseStamp reads an RFC 3339 updated_at; zero when empty or malformed.
func evStamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

// What a calendar import and export need: every live row at once, and
// writes that report whether anything differed (and, dry, write nothing).

// LiveEvents reads every live event of tx's owner with its stored bounds.
func (tx *Tx) LiveEvents() ([]EventSpan, error) {
	rows, err := tx.query(`SELECT `+eventColumns+`, first_at, last_at FROM events WHERE owner_id = ? AND deleted_at IS NULL`, tx.owner)
	if err != nil {
		return nil, err
	}
	return scanLiveSpans(rows)
}

// scanLiveSpans reads rows of eventColumns, first_at and last_at as
// EventSpans of whole events, and closes rows.
func scanLiveSpans(rows *sql.Rows) ([]EventSpan, error) {
	defer rows.Close()
	var out []EventSpan
	for rows.Next() {
		var first int64
		var last sql.NullInt64
		e, err := scanEvent(rows, &first, &last)
		if err != nil {
			return nil, err
		}
		sp := EventSpan{Event: e, First: first, Last: math.MaxInt64}
		if last.Valid {
			sp.Last = last.Int64
		}
		out = append(out, sp)
	}
	return out, rows.Err()
}

// LiveEventsOfUIDs reads tx's owner's live events whose UID is one of
// uids, with their stored bounds, and their live overrides by event id
// (ordered by RECURRENCE-ID, as [Tx.AllOverrides]), in two statements:
// what an import needs of the series it reads, whatever else the owner
// has.
func (tx *Tx) LiveEventsOfUIDs(uids []string) ([]EventSpan, map[int64][]*calendar.Override, error) {
	ovs := map[int64][]*calendar.Override{}
	if len(uids) == 0 {
		return nil, ovs, nil
	}
	q, args := tx.ofKeys(eventColumns+`, first_at, last_at`, eventsByUID, uids)
	rows, err := tx.query(q, args...)
	if err != nil {
		return nil, nil, err
	}
	out, err := scanLiveSpans(rows)
	if err != nil || len(out) == 0 {
		return out, ovs, err
	}
	ids := make([]int64, len(out))
	for i, sp := range out {
		ids[i] = sp.Event.ID
	}
	q, args = tx.ofKeys(overrideColumns, overridesByEvent, ids)
	orows, err := tx.query(q+` ORDER BY recurrence_id`, args...)
	if err != nil {
		return nil, nil, err
	}
	defer orows.Close()
	for orows.Next() {
		o, err := scanOverride(orows)
		if err != nil {
			return nil, nil, err
		}
		ovs[o.EventID] = append(ovs[o.EventID], o)
	}
	return out, ovs, orows.Err()
}

// EachEventOverlapping calls fn with each live event of tx's owner whose
// stored bounds overlap (lo, hi) (Unix seconds, both open), in order of
// DTSTART and id, stopping at fn's first error.
func (tx *Tx) EachEventOverlapping(lo, hi int64, fn func(*calendar.Event) error) error {
	rows, err := tx.query(`SELECT `+eventColumns+` FROM events
		WHERE owner_id = ? AND deleted_at IS NULL AND first_at < ? AND (last_at IS NULL OR last_at > ?) ORDER BY start_at, id`, tx.owner, hi, lo)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// AllOverrides reads every live override of tx's owner by event id, each
// event's in RECURRENCE-ID order.
func (tx *Tx) AllOverrides() (map[int64][]*calendar.Override, error) {
	rows, err := tx.query(`SELECT `+overrideColumns+` FROM event_overrides
		WHERE owner_id = ? AND deleted_at IS NULL ORDER BY recurrence_id`, tx.owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64][]*calendar.Override{}
	for rows.Next() {
		o, err := scanOverride(rows)
		if err != nil {
			return nil, err
		}
		out[o.EventID] = append(out[o.EventID], o)
	}
	return out, rows.Err()
}

// ZoneSpan is a zone the owner's events use, with the first and last
// start in it (Unix seconds).
type ZoneSpan struct {
	Name     string
	Min, Max int64
	// Open is whether a series of the zone never ends.
	Open bool
}

// EventZones lists the zones of tx's owner's live timed events whose
// stored bounds overlap (lo, hi), from their first start to their last
// bound (ten years after the start for a series that never ends, which
// also sets Open), and the zones of every live override with its own
// time: the zones and years an export writes VTIMEZONEs for.
func (tx *Tx) EventZones(lo, hi int64) ([]ZoneSpan, error) {
	var out []ZoneSpan
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`SELECT tzid, MIN(start_at), MAX(COALESCE(last_at, start_at + 315576000)), MAX(CASE WHEN last_at IS NULL THEN 1 ELSE 0 END) FROM events
			WHERE owner_id = ? AND deleted_at IS NULL AND first_at < ? AND (last_at IS NULL OR last_at > ?) AND all_day = 0 GROUP BY tzid`, []any{tx.owner, hi, lo}},
		{`SELECT tzid, MIN(start_at), MAX(start_at), 0 FROM event_overrides
			WHERE owner_id = ? AND deleted_at IS NULL AND tzid IS NOT NULL GROUP BY tzid`, []any{tx.owner}},
	} {
		rows, err := tx.query(q.sql, q.args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var z ZoneSpan
			var open int64
			if err := rows.Scan(&z.Name, &z.Min, &z.Max, &open); err != nil {
				rows.Close()
				return nil, err
			}
			z.Open = open != 0
			out = append(out, z)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func overrideMap(ovs []*calendar.Override) map[string]*calendar.Override {
	m := make(map[string]*calendar.Override, len(ovs))
	for _, o := range ovs {
		m[o.Key] = o
	}
	return m
}

// InsertEvents stores new events in batches, journaled, each with the
// bounds of its overrides ovs[i] (stored apart, [Tx.InsertOverrides]);
// it sets their ids. The values of at most insertChunk events are held at
// a time, whatever len(es).
func (tx *Tx) InsertEvents(es []*calendar.Event, ovs [][]*calendar.Override) error {
	ps := make([]PreparedEvent, 0, min(len(es), insertChunk))
	for start := 0; start < len(es); start += insertChunk {
		ps = ps[:0]
		for i, e := range es[start:min(start+insertChunk, len(es))] {
			ps = append(ps, PrepareEvent(e, ovs[start+i]))
		}
		if err := tx.InsertPrepared(ps); err != nil {
			return err
		}
	}
	return nil
}

// PreparedEvent is an event with the values of its row worked out
// ([PrepareEvent]), for [Tx.InsertPrepared]: the bounds of its
// occurrences, of its reminders, its texts. Nothing of a transaction goes
// into them, so they may be worked out on another goroutine while a
// transaction writes others; the event must not change after.
type PreparedEvent struct {
	Event *calendar.Event
	vals  []any
}

// PrepareEvent works out the row of e, with the bounds of its overrides
// ovs (stored apart).
func PrepareEvent(e *calendar.Event, ovs []*calendar.Override) PreparedEvent {
	return PreparedEvent{Event: e, vals: eventValues(e, overrideMap(ovs))}
}

// InsertPrepared stores prepared events, journaled, insertChunk at a
// time as InsertEvents does, and sets their ids.
func (tx *Tx) InsertPrepared(ps []PreparedEvent) error {
	vals := make([][]any, 0, min(len(ps), insertChunk))
	for start := 0; start < len(ps); start += insertChunk {
		chunk := ps[start:min(start+insertChunk, len(ps))]
		vals = vals[:0]
		for _, p := range chunk {
			if p.vals == nil {
				return fmt.Errorf("store: event %q was not prepared by PrepareEvent", p.Event.UID)
			}
			vals = append(vals, p.vals)
		}
		ids, err := tx.InsertValues(EventsTable, eventCols, vals)
		for i, id := range ids {
			chunk[i].Event.ID = id
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// InsertOverrides stores new overrides in batches, journaled, created at
// created; it sets their ids.
func (tx *Tx) InsertOverrides(os []*calendar.Override, created time.Time) error {
	for start := 0; start < len(os); start += insertChunk {
		chunk := os[start:min(start+insertChunk, len(os))]
		rows := make([]Row, len(chunk))
		for i, o := range chunk {
			rows[i] = overrideRow(o)
			rows[i]["created_at"] = created.Unix()
		}
		ids, err := tx.InsertMany(OverridesTable, rows)
		for i, id := range ids {
			chunk[i].ID = id
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// SyncEvent writes want over have, a live event as [Tx.LiveEvents] read
// it, where they differ (want's bounds taken with ovs); with dry it only
// reports whether they do. want's id, creation time, split and earlier
// starts are have's.
func (tx *Tx) SyncEvent(have EventSpan, want *calendar.Event, ovs []*calendar.Override, dry bool) (bool, error) {
	e := *want
	e.ID, e.CreatedAt, e.SplitFrom, e.PrevStarts = have.Event.ID, have.Event.CreatedAt, have.Event.SplitFrom, have.Event.PrevStarts
	prev := eventRow(have.Event, nil)
	prev["first_at"], prev["last_at"] = have.First, nil
	if have.Last != math.MaxInt64 {
		prev["last_at"] = have.Last
	}
	var rfrom, runtil sql.NullInt64
	if err := tx.queryRow(`SELECT remind_from, remind_until FROM events WHERE owner_id = ? AND id = ?`,
		tx.owner, e.ID).Scan(&rfrom, &runtil); err != nil {
		return false, err
	}
	prev["remind_from"], prev["remind_until"] = nullInt(rfrom), nullInt(runtil)
	set := evChanged(prev, eventRow(&e, overrideMap(ovs)))
	if len(set) == 0 || dry {
		return len(set) > 0, nil
	}
	return true, tx.Update(EventsTable, e.ID, set)
}

// SyncOverride writes want over have (a live override) where they differ;
// with dry it only reports whether they do. want's id is have's.
func (tx *Tx) SyncOverride(have, want *calendar.Override, dry bool) (bool, error) {
	set := evChanged(overrideRow(have), overrideRow(want))
	if len(set) == 0 || dry {
		return len(set) > 0, nil
	}
	return true, tx.Update(OverridesTable, have.ID, set)
}
