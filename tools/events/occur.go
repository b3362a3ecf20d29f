package events

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// occ is one occurrence as the tools show it: the series' fields with its
// override, if any, applied.
type occ struct {
	Event *event
	// key is the RECURRENCE-ID ("20261005T070000Z", all-day "20261005"),
	// made on demand (most listed occurrences are never named).
	key string
	// OrigStart is the start the rule gave, before any override.
	OrigStart time.Time
	// Original is the start the rule gave, civil in the series' zone.
	Original tz.Moment
	// Start and End are the instants it takes; for an all-day occurrence,
	// 00:00 of its first day and of the day after its last, in the
	// person's zone.
	Start, End time.Time
	// Zone is the zone of its own time: the series', or the override's.
	Zone   tz.Zone
	AllDay bool
	// First and Last are the days of an all-day occurrence (Last inclusive).
	First, Last tz.Date
	// Moved: the rule's time did not exist that day (a DST gap) and the
	// occurrence starts later by the gap's length (RFC 5545 §3.3.5).
	Moved                  bool
	Title, Location, Notes string
	Override               *override
}

func (o *occ) id() string { return o.Event.Label() + "@" + o.Key() }

// Key is the occurrence's RECURRENCE-ID, as recur.Occurrence.Key gives it.
func (o *occ) Key() string {
	if o.key == "" {
		o.key = recur.Occurrence{Original: o.Original, Start: o.OrigStart, AllDay: o.Event.AllDay}.Key()
	}
	return o.key
}

// newOcc is occurrence r of e, before any override.
func newOcc(e *event, r recur.Occurrence) occ {
	o := occ{Event: e, Original: r.Original, OrigStart: r.Start, Start: r.Start, End: r.End, Zone: e.Zone,
		AllDay: r.AllDay, Moved: r.Moved, Title: e.Title, Location: e.Location, Notes: e.Notes}
	if o.AllDay {
		o.First = r.Original.Date
		o.Last = o.First.AddDays(e.Days() - 1)
	}
	return o
}

// apply puts override ov on o; person is the zone all-day days float in.
func (o *occ) apply(ov *override, person tz.Zone) {
	o.Override = ov
	if ov.Title != nil {
		o.Title = *ov.Title
	}
	if ov.Location != nil {
		o.Location = *ov.Location
	}
	if ov.Notes != nil {
		o.Notes = *ov.Notes
	}
	if !ov.HasTime {
		return
	}
	o.Moved = false
	if o.AllDay {
		o.First, o.Last = ov.Start.Date, ov.End.Date.AddDays(-1)
		o.Start, o.End = person.StartOfDay(o.First), person.StartOfDay(ov.End.Date)
		return
	}
	o.Start, o.End, o.Zone = ov.StartAt, ov.EndAt, ov.Zone
}

// keyStart is [calendar.KeyStart]; person is the zone all-day days are
// placed in.
func keyStart(key string, person tz.Zone) (lo, hi time.Time, ok bool) {
	return calendar.KeyStart(key, person)
}

// occurrenceAt finds the occurrence of s whose RECURRENCE-ID is key
// ([calendar.ByKey]); s is a series of the person in zone person, whose
// zone s already has for an all-day series.
func occurrenceAt(s recur.Series, key string, person tz.Zone) (recur.Occurrence, bool) {
	if !s.Start.HasTime {
		s.Zone = person
	}
	return calendar.ByKey(s, key)
}

// expand returns the occurrences of e that overlap w, overrides applied,
// cancelled ones left out, sorted by start.
func expand(e *event, ovs map[string]*override, person tz.Zone, w tools.Window) []occ {
	out := appendOccs(nil, e, ovs, person, w)
	sortOccs(out)
	return out
}

// appendOccs appends expand's occurrences to dst, unsorted.
func appendOccs(dst []occ, e *event, ovs map[string]*override, person tz.Zone, w tools.Window) []occ {
	s := e.Series(person)
	for _, r := range s.Between(w.From, w.To) {
		o := newOcc(e, r)
		if len(ovs) == 0 {
			dst = append(dst, o)
			continue
		}
		if ov := ovs[o.Key()]; ov != nil {
			if ov.Cancel || ov.HasTime {
				continue // a rescheduled one is found by its own time below
			}
			o.apply(ov, person)
		}
		dst = append(dst, o)
	}
	for key, ov := range ovs {
		if ov.Cancel || !ov.HasTime {
			continue
		}
		start, end := ov.StartAt, ov.EndAt
		if e.AllDay {
			start, end = person.StartOfDay(ov.Start.Date), person.StartOfDay(ov.End.Date)
		}
		if !w.Contains(start, end) {
			continue
		}
		r, ok := occurrenceAt(s, key, person)
		if !ok {
			continue
		}
		o := newOcc(e, r)
		o.apply(ov, person)
		dst = append(dst, o)
	}
	return dst
}

// sortOccs sorts by start, then series, then RECURRENCE-ID: a total
// order, so an unstable sort gives one result. Long lists sort small
// pointer-free keys and move each occurrence once.
func sortOccs(list []occ) {
	if len(list) < 64 {
		slices.SortFunc(list, compareOccs)
		return
	}
	type sortKey struct {
		start, id int64
		i         int
	}
	keys := make([]sortKey, len(list))
	for i := range list {
		keys[i] = sortKey{start: list[i].Start.UnixNano(), id: list[i].Event.ID, i: i}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		if a.id != b.id {
			return cmp.Compare(a.id, b.id)
		}
		return strings.Compare(list[a.i].Key(), list[b.i].Key())
	})
	sorted := make([]occ, len(list))
	for j, k := range keys {
		sorted[j] = list[k.i]
	}
	copy(list, sorted)
}

func compareOccs(a, b occ) int {
	if c := a.Start.Compare(b.Start); c != 0 {
		return c
	}
	if a.Event.ID != b.Event.ID {
		return cmp.Compare(a.Event.ID, b.Event.ID)
	}
	return strings.Compare(a.Key(), b.Key())
}

// loadWindow returns every occurrence of tx's owner's live events that
// overlaps w, sorted, with titles; skip names an event to leave out (0 for
// none).
func loadWindow(tx *store.Tx, person tz.Zone, w tools.Window, skip int64) ([]occ, error) {
	list, err := windowOccs(tx, person, w, skip)
	if err != nil {
		return nil, err
	}
	return list, fillText(tx, list)
}

// windowOccs is loadWindow without title, location and notes (fillText
// adds them to the occurrences shown). Only the series whose stored bounds
// reach w are expanded, from the cached snapshot when it is
// current, and only the overrides near w are read.
func windowOccs(tx *store.Tx, person tz.Zone, w tools.Window, skip int64) ([]occ, error) {
	snap, err := seriesFor(tx, w.From, w.To)
	if err != nil {
		return nil, err
	}
	from, to := w.From.Unix(), w.To.Unix()
	var (
		cands []*event
		span  time.Duration
	)
	for i := range snap.rows {
		r := snap.rows[i]
		if r.reaches(from, to) && r.e.ID != skip {
			cands = append(cands, r.e)
			span = max(span, longest(r.e))
		}
	}
	ovs, err := windowOverrides(tx, w.From, w.To, span)
	if err != nil {
		return nil, err
	}
	out := make([]occ, 0, 2*len(cands))
	for _, e := range cands {
		out = appendOccs(out, e, ovs[e.ID], person, w)
	}
	sortOccs(out)
	return out, nil
}

// shown is occurrence r of e as it now is, its override (if any) applied;
// ok is false when the override cancels it. Every answer that names one
// occurrence builds it here, so a moved one is shown at its new time.
func shown(e *event, r recur.Occurrence, ovs map[string]*override, person tz.Zone) (o occ, ok bool) {
	o = newOcc(e, r)
	if ov := ovs[o.Key()]; ov != nil {
		if ov.Cancel {
			return o, false
		}
		o.apply(ov, person)
	}
	return o, true
}

// lastBefore returns the occurrence of e, as shown, that starts latest
// among those whose rule start lies before t; ok is false when there is
// none. The rule is searched back from t in growing windows, and every
// moved occurrence is weighed too, as a move can carry an early one past
// later ones.
func lastBefore(e *event, ovs map[string]*override, person tz.Zone, t time.Time) (last occ, ok bool) {
	s := e.Series(person)
	first, _, _ := s.Bounds()
	consider := func(r recur.Occurrence) {
		if !r.Start.Before(t) {
			return
		}
		if o, live := shown(e, r, ovs, person); live && (!ok || compareOccs(o, last) > 0) {
			last, ok = o, true
		}
	}
	for step := 8 * 24 * time.Hour; !ok; step *= 4 {
		lo := t.Add(-step)
		if step > 100*365*24*time.Hour || lo.Before(first) {
			lo = first
		}
		list := s.StartsBetween(lo, t)
		for i := len(list) - 1; i >= 0 && !ok; i-- {
			consider(list[i])
		}
		if !lo.After(first) {
			break
		}
	}
	for key, ov := range ovs {
		if !ov.HasTime || ov.Cancel {
			continue
		}
		if r, found := occurrenceAt(s, key, person); found {
			consider(r)
		}
	}
	return last, ok
}
