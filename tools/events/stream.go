package events

import (
	"container/heap"
	"context"
	"math"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// A listing expands lazily: each series gives its occurrences in time
// order a few at a time (a stream), and a heap merges the streams, so a
// page costs what its occurrences cost, not what the window holds.

// position is a place in the order of occurrences (start, then series id,
// then RECURRENCE-ID, as compareOccs orders them): a page resumes just
// after it. A position with key "" and id 0 lies before every occurrence
// starting at its instant.
type position struct {
	start time.Time
	id    int64
	key   string
}

// before reports whether p comes before occurrence o.
func (p *position) before(o *occ) bool {
	if c := o.Start.Compare(p.start); c != 0 {
		return c > 0
	}
	if o.Event.ID != p.id {
		return o.Event.ID > p.id
	}
	return o.Key() > p.key
}

func positionOf(o *occ) position { return position{start: o.Start, id: o.Event.ID, key: o.Key()} }

// Steps of a rule's scan: the first looks firstStep ahead, and each next
// one doubles while a scan finds few occurrences and halves while it finds
// many, within these bounds.
const (
	leastStep = time.Hour
	mostStep  = 64 * 24 * time.Hour
)

// firstStep is how far the first scan of e's rule looks: about a dozen
// occurrences of a plain rule of its FREQ.
func firstStep(e *event) time.Duration {
	switch {
	case e.Rule == nil:
		return mostStep
	case e.Rule.Freq() == recur.Minutely:
		return leastStep
	case e.Rule.Freq() == recur.Hourly:
		return 12 * time.Hour
	case e.Rule.Freq() == recur.Daily:
		return 16 * 24 * time.Hour
	}
	return mostStep
}

// stream gives the occurrences of one series that overlap a window, its
// overrides applied and cancelled ones left out, in compareOccs order.
type stream struct {
	e      *event
	s      recur.Series
	ovs    map[string]*override
	person tz.Zone
	w      tools.Window
	after  *position       // only occurrences after it, or all when nil
	keep   func(*occ) bool // a filter (a query), or nil
	// rule is false when only the overrides' occurrences can pass keep.
	rule bool
	next time.Time // the rule's starts before next have been scanned
	end  time.Time // and none starts at or after end
	step time.Duration
	buf  []occ // scanned occurrences of the rule, not yet given
	own  []occ // occurrences whose override gives them a time (or, without rule, text), in order
	// scans counts the rule's scans, for the tests of bounded work.
	scans int
}

// newStream prepares the stream of e in w. The rule's starts are looked
// for from the latest of w.From less the longest occurrence, the cursor's
// place and first (no start of e comes earlier), up to the earlier of w.To
// and last (no start of e comes later; zero when e never ends).
func newStream(e *event, first, last time.Time, ovs map[string]*override, person tz.Zone, w tools.Window, after *position, keep func(*occ) bool, rule bool) *stream {
	st := &stream{e: e, s: e.Series(person), ovs: ovs, person: person, w: w, after: after, keep: keep, rule: rule, step: firstStep(e), end: w.To}
	if !last.IsZero() && last.Before(st.end) {
		st.end = last.Add(time.Second)
	}
	st.next = w.From.Add(-longest(e))
	if after != nil && after.start.After(st.next) {
		st.next = after.start
	}
	if first.After(st.next) {
		st.next = first
	}
	for key, ov := range ovs {
		if ov.Cancel || (!ov.HasTime && (rule || (ov.Title == nil && ov.Location == nil && ov.Notes == nil))) {
			continue
		}
		if !ov.HasTime {
			// Without the rule, an override that only changes text is
			// found here; its own time is the rule's.
			r, ok := occurrenceAt(st.s, key, person)
			if !ok {
				continue
			}
			if o, ok := shown(e, r, ovs, person); ok && st.passes(&o) {
				st.own = append(st.own, o)
			}
			continue
		}
		start, end := ov.StartAt, ov.EndAt
		if e.AllDay {
			start, end = person.StartOfDay(ov.Start.Date), person.StartOfDay(ov.End.Date)
		}
		if !w.Contains(start, end) || (after != nil && start.Before(after.start)) {
			continue
		}
		r, ok := occurrenceAt(st.s, key, person)
		if !ok {
			continue
		}
		if o, ok := shown(e, r, ovs, person); ok && st.passes(&o) {
			st.own = append(st.own, o)
		}
	}
	sortOccs(st.own)
	return st
}

// passes reports whether o belongs to the stream: in the window, after
// the cursor, kept by the filter.
func (st *stream) passes(o *occ) bool {
	return st.w.Contains(o.Start, o.End) && (st.after == nil || st.after.before(o)) && (st.keep == nil || st.keep(o))
}

// fill scans the rule until an occurrence is buffered or the window ends.
func (st *stream) fill(ctx context.Context) error {
	for st.rule && len(st.buf) == 0 && st.next.Before(st.end) {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := st.next.Add(st.step)
		if !hi.Before(st.end) {
			hi = st.end
		}
		st.scans++
		found := st.s.StartsBetween(st.next, hi)
		st.next = hi
		for _, r := range found {
			o := newOcc(st.e, r)
			if len(st.ovs) > 0 {
				if ov := st.ovs[o.Key()]; ov != nil {
					if ov.Cancel || ov.HasTime {
						continue // a moved one is in own, at its new time
					}
					o.apply(ov, st.person)
				}
			}
			if st.passes(&o) {
				st.buf = append(st.buf, o)
			}
		}
		switch {
		case len(found) < 16:
			st.step = min(2*st.step, mostStep)
		case len(found) > 256:
			st.step = max(st.step/2, leastStep)
		}
	}
	return nil
}

// peek returns the stream's next occurrence without taking it; ok is
// false when the stream has ended.
func (st *stream) peek(ctx context.Context) (o *occ, ok bool, err error) {
	if err := st.fill(ctx); err != nil {
		return nil, false, err
	}
	switch {
	case len(st.buf) == 0 && len(st.own) == 0:
		return nil, false, nil
	case len(st.own) == 0:
		return &st.buf[0], true, nil
	case len(st.buf) == 0:
		return &st.own[0], true, nil
	}
	// The rule's next start may come before the buffered one's only when
	// it was not scanned yet, and fill scans up to the first buffered.
	if compareOccs(st.own[0], st.buf[0]) < 0 {
		return &st.own[0], true, nil
	}
	return &st.buf[0], true, nil
}

// pop takes the occurrence peek returned.
func (st *stream) pop() occ {
	if len(st.own) > 0 && (len(st.buf) == 0 || compareOccs(st.own[0], st.buf[0]) < 0) {
		o := st.own[0]
		st.own = st.own[1:]
		return o
	}
	o := st.buf[0]
	st.buf = st.buf[1:]
	if len(st.buf) == 0 {
		st.buf = nil // let the scanned chunk go
	}
	return o
}

// merger yields the occurrences of many streams in compareOccs order.
// With an order (see [lazyStreams]) it makes streams only as the merge
// reaches them: the series of the order not yet made all start at or
// after the next entry's key, so a head that starts before that key is
// settled.
type merger struct {
	ctx   context.Context
	heads streamHeap
	all   []*stream
	// order, from at, are the series still to be made, up to (not at)
	// until, Unix seconds; make makes one's stream (nil: none to make).
	order []orderEntry
	at    int
	until int64
	make  func(*seriesRow) *stream
}

type streamHeap []streamHead

type streamHead struct {
	o  *occ
	st *stream
}

func (h streamHeap) Len() int           { return len(h) }
func (h streamHeap) Less(i, j int) bool { return compareOccs(*h[i].o, *h[j].o) < 0 }
func (h streamHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *streamHeap) Push(x any)        { *h = append(*h, x.(streamHead)) }
func (h *streamHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func newMerger(ctx context.Context, streams []*stream) (*merger, error) {
	m := &merger{ctx: ctx, all: streams}
	for _, st := range streams {
		o, ok, err := st.peek(ctx)
		if err != nil {
			return nil, err
		}
		if ok {
			m.heads = append(m.heads, streamHead{o, st})
		}
	}
	heap.Init(&m.heads)
	return m, nil
}

// pull makes the streams of the order whose key is not after the first
// head's start (all that can still come before it).
func (m *merger) pull() error {
	for m.at < len(m.order) {
		en := m.order[m.at]
		if en.key >= m.until {
			m.at = len(m.order)
			break
		}
		if len(m.heads) > 0 && en.key > m.heads[0].o.Start.Unix() {
			break
		}
		m.at++
		st := m.make(en.r)
		if st == nil {
			if m.at%1024 == 0 {
				if err := m.ctx.Err(); err != nil {
					return err
				}
			}
			continue
		}
		m.all = append(m.all, st)
		o, ok, err := st.peek(m.ctx)
		if err != nil {
			return err
		}
		if ok {
			heap.Push(&m.heads, streamHead{o, st})
		}
	}
	return nil
}

// next returns the next occurrence; ok is false when every stream ended.
// A cancelled ctx ends it with ctx's error.
func (m *merger) next() (o occ, ok bool, err error) {
	if err := m.pull(); err != nil {
		return o, false, err
	}
	if len(m.heads) == 0 {
		return o, false, nil
	}
	st := m.heads[0].st
	o = st.pop()
	p, more, err := st.peek(m.ctx)
	if err != nil {
		return o, false, err
	}
	if more {
		m.heads[0].o = p
		heap.Fix(&m.heads, 0)
	} else {
		heap.Pop(&m.heads)
	}
	return o, true, nil
}

// scans is how many rule scans the streams made.
func (m *merger) scans() int {
	n := 0
	for _, st := range m.all {
		n += st.scans
	}
	return n
}

// windowStreams makes the streams of tx's owner's live series that can
// overlap w (skip names one to leave out, 0 for none), from the cached
// snapshot. With a query, only occurrences whose title, location or notes
// (their override's, where it sets them) contain it (any case) are given:
// a series whose own text does not contain it gives only the occurrences
// an override changes.
// snap is the snapshot to use, or nil to take one covering w.
func windowStreams(tx *store.Tx, snap *snapshot, person tz.Zone, w tools.Window, skip int64, after *position, query string) ([]*stream, error) {
	var err error
	if snap == nil {
		if snap, err = seriesFor(tx, w.From, w.To); err != nil {
			return nil, err
		}
	}
	from, to := w.From.Unix(), w.To.Unix()
	var (
		cands []*seriesRow
		span  time.Duration
	)
	for i := range snap.rows {
		r := snap.rows[i]
		if r.reaches(from, to) && r.e.ID != skip {
			cands = append(cands, r)
			span = max(span, longest(r.e))
		}
	}
	ovs, err := windowOverrides(tx, w.From, w.To, span)
	if err != nil {
		return nil, err
	}
	var texts map[int64]eventText
	q := item.FoldText(query)
	if query != "" {
		if texts, err = matchingText(tx, q); err != nil {
			return nil, err
		}
	}
	out := make([]*stream, 0, len(cands))
	for _, r := range cands {
		e, first, last := r.e, time.Unix(r.first, 0), time.Time{}
		if r.last != math.MaxInt64 {
			last = time.Unix(r.last, 0)
		}
		if query == "" {
			out = append(out, newStream(e, first, last, ovs[e.ID], person, w, after, nil, true))
			continue
		}
		t, match := texts[e.ID]
		if !match && len(ovs[e.ID]) == 0 {
			continue
		}
		keep := func(o *occ) bool { return occMatches(o, t, q) }
		out = append(out, newStream(e, first, last, ovs[e.ID], person, w, after, keep, match))
	}
	return out, nil
}

// lazyStreams is windowStreams without a query, as a merger that makes
// each series' stream only when the merge reaches it, in the snapshot's
// order for w.From: a page reads the series its occurrences come from and
// those whose first occurrence in w is no later than its last, not every
// series that reaches w. The series with an override near w (which can
// move an occurrence ahead of the order's key) are made up front.
func lazyStreams(ctx context.Context, tx *store.Tx, snap *snapshot, person tz.Zone, w tools.Window, skip int64, after *position) (*merger, error) {
	var err error
	if snap == nil {
		if snap, err = seriesFor(tx, w.From, w.To); err != nil {
			return nil, err
		}
	}
	ovs, err := windowOverrides(tx, w.From, w.To, snap.span)
	if err != nil {
		return nil, err
	}
	from, to := w.From.Unix(), w.To.Unix()
	mk := func(r *seriesRow) *stream {
		if r.e.ID == skip || !r.reaches(from, to) {
			return nil
		}
		first, last := time.Unix(r.first, 0), time.Time{}
		if r.last != math.MaxInt64 {
			last = time.Unix(r.last, 0)
		}
		return newStream(r.e, first, last, ovs[r.e.ID], person, w, after, nil, true)
	}
	var early []*stream
	for id := range ovs {
		if r := snap.row(id); r != nil {
			if st := mk(r); st != nil {
				early = append(early, st)
			}
		}
	}
	m, err := newMerger(ctx, early)
	if err != nil {
		return nil, err
	}
	if m.order, err = snap.order(ctx, person, w.From); err != nil {
		return nil, err
	}
	m.until = to
	m.make = func(r *seriesRow) *stream {
		if ovs[r.e.ID] != nil {
			return nil // made up front
		}
		return mk(r)
	}
	return m, nil
}

// matchingText reads the title, location and notes of tx's owner's live
// events whose own text contains q (folded by [item.FoldText]); the
// others' text is not kept.
func matchingText(tx *store.Tx, q string) (map[int64]eventText, error) {
	return tx.EventTextsWhere(func(t store.EventText) bool {
		return hasText(t.Title, q) || hasText(t.Location, q) || hasText(t.Notes, q)
	})
}

// occMatches reports whether occurrence o, of a series with text t, has q
// (folded) in its title, location or notes, its override's where set.
func occMatches(o *occ, t eventText, q string) bool {
	title, location, notes := t.Title, t.Location, t.Notes
	if ov := o.Override; ov != nil {
		if ov.Title != nil {
			title = *ov.Title
		}
		if ov.Location != nil {
			location = *ov.Location
		}
		if ov.Notes != nil {
			notes = *ov.Notes
		}
	}
	return hasText(title, q) || hasText(location, q) || hasText(notes, q)
}

// hasText reports whether s holds q (already folded), both through
// [item.FoldText] as list_tasks compares: case, accents, “ß” and “ss”,
// ligatures, and the invisible characters dropped.
func hasText(s, q string) bool { return strings.Contains(item.FoldText(s), q) }

// firstOccs returns up to n occurrences of e, overrides applied, that
// overlap w, in order, expanding no more of the rule than they need.
func firstOccs(e *event, ovs map[string]*override, person tz.Zone, w tools.Window, n int) []occ {
	first, last, bounded := calendar.Bounds(e, ovs)
	if !bounded {
		last = time.Time{}
	}
	st := newStream(e, first, last, ovs, person, w, nil, nil, true)
	var out []occ
	for len(out) < n {
		if _, ok, _ := st.peek(context.Background()); !ok {
			break
		}
		out = append(out, st.pop())
	}
	return out
}
