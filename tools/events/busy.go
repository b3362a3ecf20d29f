package events

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// find_free_time reads busy times from a busy index: the timed
// occurrences of every series of a snapshot over whole days of the
// person's zone, by the rule alone, sorted by start. It is built once per
// window of days and zone (every series expanded), kept with the snapshot
// and carried over by [patch], which expands again only the series the
// journal names: a call after another process' write costs what its
// overrides and its walk cost, not an expansion of every series. The
// series with an override near the window are taken from their own
// streams instead (see [busyTimes]).

// busyKey names a busy index: its days, as instants (Unix seconds), and
// the person's zone.
type busyKey struct {
	from, to int64
	zone     string
}

// busyList is a busy index: base, entries sorted by start (then series
// id, then end), less those of the series in gone (sorted ids), plus add
// (sorted likewise), in zone; over marks a window whose occurrences passed
// busyMaxEntries (find_free_time then streams). A patch shares base and
// puts what it read again in gone and add, so it costs the series it
// read, until add and gone grow past busyMaxPatch and base is made anew.
type busyList struct {
	zone tz.Zone
	base []busyEntry
	gone []int64
	add  []busyEntry
	over bool
}

// busyEntry is one timed occurrence by the rule: its start and end (Unix
// nanoseconds) and its series' id. Its series' stored bounds reach every
// window it starts in, unless odd (its start lies past the stored last
// start; then the bounds are looked at on each walk).
type busyEntry struct {
	start, end int64
	id         int64
	odd        bool
}

func compareBusy(a, b busyEntry) int {
	if a.start != b.start {
		return cmp.Compare(a.start, b.start)
	}
	if a.id != b.id {
		return cmp.Compare(a.id, b.id)
	}
	return cmp.Compare(a.end, b.end)
}

const (
	// busyMaxDays is the longest window of days a busy index is made
	// for; longer searches stream every series (memory then does not
	// grow with the window).
	busyMaxDays = 35
	// maxBusy is how many busy indexes a snapshot keeps; past it they
	// are all dropped and built again on demand.
	maxBusy = 4
)

// busyMaxEntries is the most occurrences the busy indexes of one snapshot
// hold together (32 bytes each); a variable for the tests.
var busyMaxEntries = 1 << 18

// busyMaxPatch is how many entries and ids a busy index keeps beside its
// base (at least; or a sixteenth of the base); a variable for the tests.
var busyMaxPatch = 256

// busyDays is w widened to whole days of zone, the window of the busy
// index that serves it, and whether one is made for it.
func busyDays(zone tz.Zone, w tools.Window) (tools.Window, bool) {
	first := zone.Today(w.From)
	last := zone.Today(w.To.Add(-time.Nanosecond))
	days := tools.Window{From: zone.StartOfDay(first), To: zone.StartOfDay(last.AddDays(1))}
	return days, w.From.Before(w.To) && first.AddDays(busyMaxDays).Compare(last) > 0
}

// rowBusy appends the timed occurrences of r's rule that overlap w to dst;
// ok is false once dst holds more than max.
func rowBusy(ctx context.Context, dst []busyEntry, r *seriesRow, zone tz.Zone, w tools.Window, max int) ([]busyEntry, bool, error) {
	if r.e.AllDay {
		return dst, true, nil
	}
	first, last := time.Unix(r.first, 0), time.Time{}
	if r.last != math.MaxInt64 {
		last = time.Unix(r.last, 0)
	}
	st := newStream(r.e, first, last, nil, zone, w, nil, nil, true)
	for {
		o, ok, err := st.peek(ctx)
		if err != nil || !ok {
			return dst, true, err
		}
		if !o.AllDay {
			if len(dst) >= max {
				return dst, false, nil
			}
			// A start in [from, to) with first <= start <= last
			// reaches [from, to] (the stream starts at first).
			dst = append(dst, busyEntry{start: o.Start.UnixNano(), end: o.End.UnixNano(), id: r.e.ID, odd: o.Start.Unix() > r.last || o.Start.Before(first)})
		}
		st.pop()
	}
}

// busyIndex is s's busy index of the days w in zone, made now when s
// has none; ok is false when it would hold more than busyMaxEntries.
func (s *snapshot) busyIndex(ctx context.Context, zone tz.Zone, w tools.Window) (bl busyList, ok bool, err error) {
	k := busyKey{from: w.From.Unix(), to: w.To.Unix(), zone: zone.Name()}
	s.mu.Lock()
	bl, found := s.busy[k]
	s.mu.Unlock()
	if found {
		return bl, !bl.over, nil
	}
	var list []busyEntry
	from, to := w.From.Unix(), w.To.Unix()
	over := false
	for i, r := range s.rows {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return bl, false, err
			}
		}
		if !r.reaches(from, to) {
			continue
		}
		if list, ok, err = rowBusy(ctx, list, r, zone, w, busyMaxEntries); err != nil {
			return bl, false, err
		}
		if !ok {
			list, over = nil, true
			break
		}
	}
	slices.SortFunc(list, compareBusy)
	s.mu.Lock()
	held := len(list)
	for _, o := range s.busy {
		held += len(o.base) + len(o.add)
	}
	if s.busy == nil || len(s.busy) >= maxBusy || held > busyMaxEntries {
		s.busy = map[busyKey]busyList{}
	}
	bl = busyList{zone: zone, base: list, over: over}
	s.busy[k] = bl
	s.mu.Unlock()
	return bl, !over, nil
}

// patched is bl (the index k) with the entries of the series ids
// (sorted; those read again) taken out and those of the fresh rows put
// in; ok is false when it would hold more than busyMaxEntries (the index
// is then made again on demand).
func (bl busyList) patched(k busyKey, ids []int64, fresh []*seriesRow) (busyList, bool) {
	w := tools.Window{From: time.Unix(k.from, 0), To: time.Unix(k.to, 0)}
	has := func(id int64) bool { _, found := slices.BinarySearch(ids, id); return found }
	add := slices.DeleteFunc(slices.Clone(bl.add), func(en busyEntry) bool { return has(en.id) })
	for _, r := range fresh {
		if !r.reaches(k.from, k.to) {
			continue
		}
		var ok bool
		// A cancelled call does not stop a patch: it expands at most
		// patchMax series over at most busyMaxDays.
		if add, ok, _ = rowBusy(context.Background(), add, r, bl.zone, w, busyMaxEntries); !ok {
			return busyList{}, false
		}
	}
	slices.SortFunc(add, compareBusy)
	gone := make([]int64, 0, len(bl.gone)+len(ids))
	gone = append(append(gone, bl.gone...), ids...)
	slices.Sort(gone)
	gone = slices.Compact(gone)
	n := busyList{zone: bl.zone, base: bl.base, gone: gone, add: add}
	if len(add)+len(gone) <= max(busyMaxPatch, len(bl.base)/16) {
		return n, len(bl.base)+len(add) <= busyMaxEntries
	}
	// Made anew: base without gone, merged with add.
	list := make([]busyEntry, 0, len(bl.base)+len(add))
	i := 0
	for _, en := range bl.base {
		if _, found := slices.BinarySearch(gone, en.id); found {
			continue
		}
		for i < len(add) && compareBusy(add[i], en) < 0 {
			list = append(list, add[i])
			i++
		}
		list = append(list, en)
	}
	list = append(list, add[i:]...)
	if len(list) > busyMaxEntries {
		return busyList{}, false
	}
	return busyList{zone: bl.zone, base: list}, true
}
