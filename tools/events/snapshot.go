package events

import (
	"math"
	"sync"
	"time"

	"github.com/assistant-dev/assistant/calendar"
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
// seconds), as the stored-bounds query asks.
func (r *seriesRow) reaches(from, to int64) bool { return r.first <= to && r.last >= from }

// snapshotPad widens a window into the horizon a snapshot is built for,
// so that listings of nearby weeks and the overlap check of add_event
// (28 days from now) share one.
const snapshotPad = 35 * 24 * time.Hour

// snapshots holds the latest snapshot per person (owner id → *snapshot).
// The key needs no database identity: generations are random 64-bit
// numbers, so two databases never share one by chance.
var snapshots sync.Map

// seriesFor returns a snapshot of tx's owner's series valid in tx and
// covering [from, to]: the cached one when the generation matches, else one
// read now (and cached).
func seriesFor(tx *store.Tx, from, to time.Time) (*snapshot, error) {
	gen, ok, err := tx.EventGeneration()
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
	first, last, bounded := calendar.Bounds(e, nil)
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
	spans, err := tx.SeriesReaching(from, to)
	out := make([]seriesRow, len(spans))
	for i, sp := range spans {
		out[i] = seriesRow{e: sp.Event, first: sp.First, last: sp.Last}
	}
	return out, err
}

// eventText is what fillText reads of a series.
type eventText = store.EventText

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
	texts, err := tx.EventTexts(ids)
	if err != nil {
		return err
	}
	for i := range list {
		o := &list[i]
		t := texts[o.Event.ID]
		o.Title, o.Location, o.Notes = t.Title, t.Location, t.Notes
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

// windowOverrides reads the live overrides of tx's owner that can matter
// to a window: those keyed to an original start near it (span is the
// longest occurrence of the series in play) and those moved near it. The
// margins of two days cover all-day keys and days, which float with the
// person's zone.
func windowOverrides(tx *store.Tx, from, to time.Time, span time.Duration) (map[int64]map[string]*override, error) {
	const margin = 2 * 24 * time.Hour
	keyLo := tz.DateOf(from.Add(-span - margin).UTC()).Basic()
	keyHi := tz.DateOf(to.Add(margin).UTC()).Basic()
	return tx.OverridesNear(keyLo, keyHi, from.Add(-margin), to.Add(margin))
}

// longest is the longest any occurrence of e can last, for widening a
// window's lower edge.
func longest(e *event) time.Duration {
	if e.AllDay {
		return time.Duration(e.Days()+1) * 24 * time.Hour
	}
	return e.EndAt.Sub(e.StartAt)
}
