package events

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// A snapshot is what expansion needs of every live series of one person
// whose stored bounds reach a horizon, parsed once and kept in memory while
// it is known to match the database. SQLite (and PostgreSQL) draw a new
// random event generation (migrations/00006_events_speed.sql) on every write
// to a person's events or overrides, from any process, so a snapshot is
// used as it is only when the generation read in the same transaction is
// the one it was built at. When the generation moved, the change journal
// says which events were written since the snapshot's newest change (every
// tool, undo and import writes through it): only those are read and parsed
// again, into a new snapshot ([patch]). A snapshot is read afresh when the
// journal cannot tell (nothing journaled since, as after a hand-made SQL
// write, or too many rows, as after an import) or when its rows were last
// read in full more than [patchAge] ago. Snapshots are shared between
// goroutines and never changed but for their orders, built on demand under
// mu; their events carry no title, location or notes (fillText reads those
// for the occurrences shown).
type snapshot struct {
	src      *store.Store // the store it was read from
	gen      int64
	mark     int64     // the owner's newest change in the journal it has seen
	read     time.Time // when its rows were last read in full
	from, to int64     // horizon, Unix seconds: every series reaching [from, to] is in rows
	rows     []*seriesRow
	span     time.Duration // the longest occurrence of any series in rows

	mu     sync.Mutex
	orders map[orderKey]orderList
	busy   map[busyKey]busyList
}

// orderList is an order with the zone it was made in.
type orderList struct {
	zone tz.Zone
	list []orderEntry
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

// patchMax is the most journal rows a snapshot is patched from; past it
// (an import, a large undo) the series are read again in full.
const patchMax = 1000

// patchAge is how long a snapshot is patched from the journal before its
// rows are read again in full: it bounds how long a write made around the
// journal together with journaled ones (SQL typed by hand) can stay unseen.
const patchAge = 10 * time.Minute

// patched counts the snapshots made by [patch], for the tests.
var patched atomic.Int64

// busyPatched counts the busy indexes [patch] carried over, for the tests.
var busyPatched atomic.Int64

// snapshots holds the latest snapshot per person (owner id → *snapshot);
// a snapshot of another store is not used (its src differs).
var snapshots sync.Map

// seriesFor returns a snapshot of tx's owner's series valid in tx and
// covering [from, to]: the cached one when the generation matches, the
// cached one patched with the events the journal names when it does not,
// else one read now (and cached).
func seriesFor(tx *store.Tx, from, to time.Time) (*snapshot, error) {
	gen, ok, err := tx.EventGeneration()
	if err != nil {
		return nil, err
	}
	// A write transaction that changed rows already reads what may yet be
	// rolled back: it may use a cached snapshot, never leave one.
	keep := ok && tx.Touched() == 0
	if ok {
		if v, found := snapshots.Load(tx.Owner()); found {
			s := v.(*snapshot)
			if s.src == tx.Source() && s.from <= from.Unix() && to.Unix() <= s.to {
				if s.gen == gen {
					return s, nil
				}
				if time.Since(s.read) < patchAge {
					n, err := patch(tx, s, gen)
					if err != nil {
						return nil, err
					}
					if n != nil {
						if keep {
							snapshots.CompareAndSwap(tx.Owner(), s, n)
						}
						return n, nil
					}
				}
			}
		}
	}
	s := &snapshot{src: tx.Source(), gen: gen, read: time.Now(), from: from.Add(-snapshotPad).Unix(), to: to.Add(snapshotPad).Unix()}
	if s.mark, err = tx.LatestChange(); err != nil {
		return nil, err
	}
	if s.rows, err = loadSeries(tx, s.from, s.to); err != nil {
		return nil, err
	}
	for _, r := range s.rows {
		s.span = max(s.span, longest(r.e))
	}
	if keep {
		snapshots.Store(tx.Owner(), s)
	}
	return s, nil
}

// patch is s brought to generation gen by reading again the events the
// journal names after s.mark; nil when the journal cannot tell what
// changed (see [snapshot]).
func patch(tx *store.Tx, s *snapshot, gen int64) (*snapshot, error) {
	// An override's write also writes its event when the stored bounds
	// move; the override itself is read with the window.
	count, ids, last, err := tx.EventsChangedSince(s.mark, patchMax+1)
	if err != nil || count == 0 || count > patchMax {
		return nil, err
	}
	n := &snapshot{src: s.src, gen: gen, mark: last, read: s.read, from: s.from, to: s.to}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	spans, err := tx.SeriesByID(ids)
	if err != nil {
		return nil, err
	}
	var fresh []*seriesRow
	for _, sp := range spans {
		if r := (&seriesRow{e: sp.Event, first: sp.First, last: sp.Last}); r.reaches(s.from, s.to) {
			fresh = append(fresh, r)
		}
	}
	slices.SortFunc(fresh, func(a, b *seriesRow) int { return cmp.Compare(a.e.ID, b.e.ID) })
	// The rows are copied in stretches between the changed ids (found by
	// binary search): nothing reads the series in between.
	byID := func(r *seriesRow, id int64) int { return cmp.Compare(r.e.ID, id) }
	var removed []*seriesRow
	n.rows = make([]*seriesRow, 0, len(s.rows)+len(fresh))
	prev, f := 0, 0
	for _, id := range ids {
		pos, found := slices.BinarySearchFunc(s.rows, id, byID)
		n.rows = append(n.rows, s.rows[prev:pos]...)
		prev = pos
		if found {
			removed = append(removed, s.rows[pos])
			prev = pos + 1
		}
		if f < len(fresh) && fresh[f].e.ID == id {
			n.rows = append(n.rows, fresh[f])
			f++
		}
	}
	n.rows = append(n.rows, s.rows[prev:]...)
	n.span = s.span
	for _, r := range fresh {
		n.span = max(n.span, longest(r.e))
	}
	isRemoved := func(r *seriesRow) bool { return slices.Contains(removed, r) }
	if len(removed) > 8 {
		set := make(map[*seriesRow]bool, len(removed))
		for _, r := range removed {
			set[r] = true
		}
		isRemoved = func(r *seriesRow) bool { return set[r] }
	}
	// Orders carry over: the rows read again are taken out and put back
	// at their new place; the others keep theirs.
	s.mu.Lock()
	old := maps.Clone(s.orders)
	s.mu.Unlock()
	if len(old) > 0 {
		n.orders = make(map[orderKey]orderList, len(old))
		for k, ol := range old {
			list := make([]orderEntry, len(ol.list), len(ol.list)+len(fresh))
			copy(list, ol.list)
			if len(removed) > 0 {
				list = slices.DeleteFunc(list, func(en orderEntry) bool { return isRemoved(en.r) })
			}
			for _, r := range fresh {
				if en, ok := entryOf(r, ol.zone, k.from); ok {
					at, _ := slices.BinarySearchFunc(list, en, compareEntries)
					list = slices.Insert(list, at, en)
				}
			}
			n.orders[k] = orderList{ol.zone, list}
		}
	}
	s.mu.Lock()
	oldBusy := maps.Clone(s.busy)
	s.mu.Unlock()
	if len(oldBusy) > 0 {
		n.busy = make(map[busyKey]busyList, len(oldBusy))
		for k, bl := range oldBusy {
			if bl.over {
				n.busy[k] = bl
				continue
			}
			if nb, ok := bl.patched(k, ids, fresh); ok {
				n.busy[k] = nb
				busyPatched.Add(1)
			}
		}
	}
	patched.Add(1)
	return n, nil
}

// row finds the series id in s, or nil.
func (s *snapshot) row(id int64) *seriesRow {
	i, found := slices.BinarySearchFunc(s.rows, id, func(r *seriesRow, id int64) int { return cmp.Compare(r.e.ID, id) })
	if !found {
		return nil
	}
	return s.rows[i]
}

// orderKey names an order: the start of the window, Unix seconds, and the
// person's zone (all-day series take their days in it).
type orderKey struct {
	from int64
	zone string
}

// orderEntry is a series with key, the start (Unix seconds) of its first
// occurrence by the rule (or RDATE) that can overlap a window starting at
// the order's from: a lower bound of what its stream gives there, which
// an override that moves an occurrence can break (such series are taken
// up front, see [lazyStreams]).
type orderEntry struct {
	key int64
	r   *seriesRow
}

func compareEntries(a, b orderEntry) int {
	if a.key != b.key {
		return cmp.Compare(a.key, b.key)
	}
	return cmp.Compare(a.r.e.ID, b.r.e.ID)
}

// maxOrders is how many orders a snapshot keeps (different window starts
// or zones); past it they are all dropped and built again on demand.
const maxOrders = 8

// order is the series of s that can overlap a window starting at from
// (in the person's zone), sorted by the start of their first occurrence
// there: a listing merges them in that order and stops reading series once
// its page is settled. It is built once per window start (every series'
// first occurrence is looked for) and then kept, carried over by [patch].
func (s *snapshot) order(ctx context.Context, zone tz.Zone, from time.Time) ([]orderEntry, error) {
	k := orderKey{from: from.Unix(), zone: zone.Name()}
	s.mu.Lock()
	ol, ok := s.orders[k]
	s.mu.Unlock()
	if ok {
		return ol.list, nil
	}
	list := make([]orderEntry, 0, len(s.rows))
	for i, r := range s.rows {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err // a cancelled call stops here
			}
		}
		if en, ok := entryOf(r, zone, k.from); ok {
			list = append(list, en)
		}
	}
	slices.SortFunc(list, compareEntries)
	s.mu.Lock()
	if s.orders == nil || len(s.orders) >= maxOrders {
		s.orders = map[orderKey]orderList{}
	}
	s.orders[k] = orderList{zone, list}
	s.mu.Unlock()
	return list, nil
}

// entryOf is r's entry in the order of windows starting at from (Unix
// seconds) in the person's zone; ok is false when r ends before any of its
// occurrences can overlap such a window. When the rule's next start is not
// found (the search gave up), the earliest possible start stands in: a key
// may come early, never late.
func entryOf(r *seriesRow, zone tz.Zone, from int64) (orderEntry, bool) {
	lo := time.Unix(from, 0).Add(-longest(r.e))
	if r.last < lo.Unix() {
		return orderEntry{}, false
	}
	if f := time.Unix(r.first, 0); f.After(lo) {
		lo = f
	}
	// A timed occurrence of length d overlaps the window only when it
	// starts after from-d (one of no length, at from or later); an
	// all-day one's length follows the zone, so longest stays a margin.
	after := lo.Add(-time.Nanosecond)
	if d := longest(r.e); !r.e.AllDay && d > 0 && !lo.After(time.Unix(from, 0).Add(-d)) {
		after = lo
	}
	if o, found := r.e.Series(zone).After(after); found {
		return orderEntry{key: o.Start.Unix(), r: r}, true
	}
	return orderEntry{key: lo.Unix(), r: r}, true
}

// loadSeries reads the columns expansion needs of tx's owner's live series
// whose stored bounds reach [from, to] (Unix seconds), by id.
func loadSeries(tx *store.Tx, from, to int64) ([]*seriesRow, error) {
	spans, err := tx.SeriesReaching(from, to)
	out := make([]*seriesRow, len(spans))
	for i, sp := range spans {
		out[i] = &seriesRow{e: sp.Event, first: sp.First, last: sp.Last}
	}
	slices.SortFunc(out, func(a, b *seriesRow) int { return cmp.Compare(a.e.ID, b.e.ID) })
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
