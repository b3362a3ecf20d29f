package events

import (
	"database/sql"
	"math"
	"sync"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// A snapshot is what expansion needs of every live series of one person
// whose stored bounds reach a horizon, parsed once and kept in memory while
// the person's event generation (migrations/00006_events_speed.sql) is
// unchanged. SQLite draws a new random generation on every write to their
// events or overrides, from any process, so a snapshot is used only when
// the generation read in the same transaction is the one it was built at:
// never stale. Snapshots are shared between goroutines and never changed;
// their events carry no title, location or notes (fillText reads those for
// the occurrences shown).
type snapshot struct {
	gen      int64
	from, to int64 // horizon, Unix seconds: every series reaching [from, to] is in rows
	rows     []seriesRow
}

// seriesRow is one series of a snapshot with its stored bounds (Unix
// seconds; last is math.MaxInt64 for a series that never ends).
type seriesRow struct {
	e           *event
	first, last int64
}

// reaches reports whether the row's bounds can touch [from, to] (Unix
// seconds), as the stored-bounds query of design §4 asks.
func (r *seriesRow) reaches(from, to int64) bool { return r.first <= to && r.last >= from }

// snapshotPad widens a window into the horizon a snapshot is built for,
// so that listings of nearby weeks and the overlap check of add_event
// (28 days from now) share one.
const snapshotPad = 35 * 24 * time.Hour

// snapshots holds the latest snapshot per person (owner id → *snapshot).
// The key needs no database identity: generations are random 64-bit
// numbers, so two databases never share one by chance.
var snapshots sync.Map

// generation reads tx's owner's event generation; ok is false when they
// have none yet (no write since the migration), and nothing is cached then.
func generation(tx *store.Tx) (gen int64, ok bool, err error) {
	err = tx.QueryRow(`SELECT gen FROM event_generations WHERE person_id = ?`, tx.Owner()).Scan(&gen)
	if err == sql.ErrNoRows {
		return 0, false, nil
	}
	return gen, err == nil, err
}

// seriesFor returns a snapshot of tx's owner's series valid in tx and
// covering [from, to]: the cached one when the generation matches, else one
// read now (and cached).
func seriesFor(tx *store.Tx, from, to time.Time) (*snapshot, error) {
	gen, ok, err := generation(tx)
	if err != nil {
		return nil, err
	}
	if ok {
		if v, found := snapshots.Load(tx.Owner()); found {
			s := v.(*snapshot)
			if s.gen == gen && s.from <= from.Unix() && to.Unix() <= s.to {
				return s, nil
			}
		}
	}
	s := &snapshot{gen: gen, from: from.Add(-snapshotPad).Unix(), to: to.Add(snapshotPad).Unix()}
	if s.rows, err = loadSeries(tx, s.from, s.to); err != nil {
		return nil, err
	}
	if ok {
		snapshots.Store(tx.Owner(), s)
	}
	return s, nil
}

// advance records that the write which took tx's owner from generation
// before to after (read in that write's transaction, after its last change
// to events) added e and nothing else. The cached snapshot, if it is the one
// of before, is carried over to after, with e when it reaches the horizon;
// a listing right after an add then reads no series again. Call it only
// once the write committed.
func advance(owner, before, after int64, e *event) {
	v, found := snapshots.Load(owner)
	if !found {
		return
	}
	s := v.(*snapshot)
	if s.gen != before {
		return
	}
	first, last, bounded := bounds(e, nil)
	r := seriesRow{e: lightEvent(e), first: first.Unix(), last: math.MaxInt64}
	if bounded {
		r.last = last.Unix()
	}
	n := &snapshot{gen: after, from: s.from, to: s.to, rows: s.rows}
	if r.reaches(s.from, s.to) {
		n.rows = append(s.rows[:len(s.rows):len(s.rows)], r)
	}
	snapshots.CompareAndSwap(owner, s, n)
}

// lightEvent is e without the fields expansion does not need.
func lightEvent(e *event) *event {
	return &event{ID: e.ID, AllDay: e.AllDay, Zone: e.Zone, Start: e.Start, End: e.End, StartAt: e.StartAt, EndAt: e.EndAt,
		Rule: e.Rule, ExDates: e.ExDates, RDates: e.RDates}
}

// loadSeries reads the columns expansion needs of tx's owner's live series
// whose stored bounds reach [from, to] (Unix seconds).
func loadSeries(tx *store.Tx, from, to int64) ([]seriesRow, error) {
	rows, err := tx.Query(`SELECT id, `+timingColumns+`, first_at, last_at
		FROM events WHERE owner_id = ? AND deleted_at IS NULL AND first_at <= ? AND (last_at IS NULL OR last_at >= ?)`,
		tx.Owner(), to, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		out   []seriesRow
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
		e := &event{ID: id}
		if err := t.decode(e); err != nil {
			return nil, err
		}
		r := seriesRow{e: e, first: first, last: math.MaxInt64}
		if last.Valid {
			r.last = last.Int64
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// eventText is what fillText reads of a series.
type eventText struct{ title, location, notes string }

// fillText puts the title, location and notes of their series (and of
// their override, when it sets them) on list.
func fillText(tx *store.Tx, list []occ) error {
	ids := make([]int64, 0, len(list))
	seen := map[int64]bool{}
	for i := range list {
		if id := list[i].Event.ID; !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	texts := make(map[int64]eventText, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500) // under SQLite's variable limit
		q := make([]any, 0, n+1)
		q = append(q, tx.Owner())
		for _, id := range ids[:n] {
			q = append(q, id)
		}
		ids = ids[n:]
		rows, err := tx.Query(`SELECT id, title, location, notes FROM events WHERE owner_id = ? AND id IN (?`+repeatVars(n-1)+`)`, q...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var t eventText
			if err := rows.Scan(&id, &t.title, &t.location, &t.notes); err != nil {
				rows.Close()
				return err
			}
			texts[id] = t
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	for i := range list {
		o := &list[i]
		t := texts[o.Event.ID]
		o.Title, o.Location, o.Notes = t.title, t.location, t.notes
		if ov := o.Override; ov != nil {
			if ov.Title != nil {
				o.Title = *ov.Title
			}
			if ov.Location != nil {
				o.Location = *ov.Location
			}
			if ov.Notes != nil {
				o.Notes = *ov.Notes
			}
		}
	}
	return nil
}

func repeatVars(n int) string {
	b := make([]byte, 0, 2*n)
	for range n {
		b = append(b, ",?"...)
	}
	return string(b)
}

// windowOverrides reads the live overrides of tx's owner that can matter
// to a window: those keyed to an original start near it (span is the
// longest occurrence of the series in play) and those moved near it. The
// margins of two days cover all-day keys and days, which float with the
// person's zone.
func windowOverrides(tx *store.Tx, from, to time.Time, span time.Duration) (map[int64]map[string]*override, error) {
	const margin = 2 * 24 * time.Hour
	keyLo := tz.DateOf(from.Add(-span - margin).UTC()).Basic()
	keyHi := tz.DateOf(to.Add(margin).UTC()).Basic()
	rows, err := tx.Query(`SELECT `+overrideColumns+` FROM event_overrides
		WHERE owner_id = ? AND deleted_at IS NULL AND ((recurrence_id >= ? AND recurrence_id < ?)
			OR (start_at IS NOT NULL AND start_at < ? AND end_at > ?))`,
		tx.Owner(), keyLo, keyHi, to.Add(margin).Unix(), from.Add(-margin).Unix())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]map[string]*override{}
	for rows.Next() {
		o, err := scanOverride(rows)
		if err != nil {
			return nil, err
		}
		if out[o.EventID] == nil {
			out[o.EventID] = map[string]*override{}
		}
		out[o.EventID][o.Key] = o
	}
	return out, rows.Err()
}

// longest is the longest any occurrence of e can last, for widening a
// window's lower edge.
func longest(e *event) time.Duration {
	if e.AllDay {
		return time.Duration(e.days()+1) * 24 * time.Hour
	}
	return e.EndAt.Sub(e.StartAt)
}
