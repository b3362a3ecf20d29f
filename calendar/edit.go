package calendar

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// The edit operations the event tools run, as pure functions over
// [Event] and [Override]: they read no clock and no database, and leave
// their arguments as they were. The tools read the arguments, call them,
// store what they return and word their errors.

// SetLength sets e's DTEND and the instants of DTSTART and DTEND from its
// Start and Zone: dur long when timed (60 minutes when dur is not
// positive), days days (at least 1) when Start is a date, which makes e
// all-day.
func (e *Event) SetLength(dur time.Duration, days int) {
	if !e.Start.HasTime {
		e.AllDay = true
		e.End = tz.DayMoment(e.Start.Date.AddDays(max(days, 1)))
		e.StartAt = e.Zone.StartOfDay(e.Start.Date).UTC()
		e.EndAt = e.Zone.StartOfDay(e.End.Date).UTC()
		return
	}
	e.AllDay = false
	start, _ := e.Zone.Instant(e.Start.DateTime)
	if dur <= 0 {
		dur = time.Hour
	}
	e.StartAt = start.UTC()
	e.EndAt = start.Add(dur).UTC()
	e.End = tz.TimeMoment(e.Zone.In(e.EndAt))
}

// CanChangeKind reports whether series e, with overrides ovs, may turn
// between all-day and timed: not when it repeats and has changed or
// deleted occurrences, whose keys (a date, or an instant) cannot follow.
func CanChangeKind(e *Event, ovs map[string]*Override) bool {
	return !e.Repeats() || len(ovs) == 0 && len(e.ExDates) == 0
}

// MoveSeries is e with its occurrence whose original start is from moved
// to to, in zone, and every other occurrence by the same civil shift
// (returned): DTSTART, the rule's days and UNTIL, EXDATEs and RDATEs
// ([Shift]). With newRule the rule is left as it was, for the caller sets
// another. When from and to differ in kind (a date and a time) e turns
// between all-day and timed: DTSTART moves by the days from from to to
// and takes to's clock, the rule's weekdays, its UNTIL and the RDATEs
// along by those days, each RDATE and UNTIL as a date (see kindUntil),
// and the shift is 0 (check [CanChangeKind] first). DTEND and the instants are e's: set
// them with [Event.SetLength]. The error is a [*DaysError] when the
// rule's days cannot follow, or a rule that no longer reads.
func MoveSeries(e *Event, from, to tz.Moment, zone tz.Zone, newRule bool) (*Event, time.Duration, error) {
	n := e.Clone()
	n.Zone = zone
	if from.HasTime != to.HasTime {
		days := from.Date.DaysUntil(to.Date)
		d := e.Start.Date.AddDays(days)
		n.Start = tz.DayMoment(d)
		if to.HasTime {
			n.Start = tz.TimeMoment(d.At(to.Hour, to.Minute))
		}
		if !newRule {
			var err error
			if n.Rule, err = MoveRule(e.Rule, days, e.Start, n.Start); err != nil {
				return nil, 0, err
			}
			if n.Rule, err = kindUntil(n.Rule, e.Rule, e.Zone, e.Start, days); err != nil {
				return nil, 0, err
			}
		}
		n.RDates = kindDays(e.RDates, days)
		return n, 0, nil
	}
	old := e.Series(e.Zone)
	if newRule {
		old.Rule = nil
	}
	mv, shift, err := Shift(old, from, to, zone)
	if err != nil {
		return nil, 0, err
	}
	n.Start, n.ExDates, n.RDates = mv.Start, mv.ExDates, mv.RDates
	if !newRule {
		n.Rule = mv.Rule
	}
	return n, shift, nil
}

// ShiftRemindAt moves the absolute reminders at (stored JSON, moments
// in the series' zone) by the civil shift of a series move, so they keep
// their offset from the start; clock is the series' DTSTART before the
// move, which tells a repeated hour's readings apart ([ShiftMoments]).
func ShiftRemindAt(at string, shift time.Duration, clock tz.DateTime) (string, error) {
	ms, err := tz.ParseMomentsJSON(at)
	if err != nil {
		return "", err
	}
	return tz.MomentsJSON(ShiftMoments(ms, shift, clock)), nil
}

// RecordMove adds e's DTSTART and TZID to n.PrevStarts (keeping the
// latest [MaxPrevStarts]) when n, e after an edit, starts elsewhere or in
// another zone, so that occurrence ids of before stay answerable; it
// reports whether n moved.
func RecordMove(e, n *Event) bool {
	if n.Start == e.Start && n.Zone.Name() == e.Zone.Name() {
		return false
	}
	n.PrevStarts = append(slices.Clone(n.PrevStarts), PrevStart{Start: e.Start.String(), TZID: e.Zone.Name()})
	if len(n.PrevStarts) > MaxPrevStarts {
		n.PrevStarts = n.PrevStarts[len(n.PrevStarts)-MaxPrevStarts:]
	}
	return true
}

// AtOwnTime reports whether the own time of override o is that of its
// occurrence occ in series n: the override no longer moves it.
func AtOwnTime(n *Event, o *Override, occ recur.Occurrence) bool {
	if n.AllDay {
		return o.Start.Date == occ.Original.Date && o.Start.Date.DaysUntil(o.End.Date) == n.Days()
	}
	return o.StartAt.Equal(occ.Start) && o.EndAt.Equal(occ.End) && o.Zone.Name() == n.Zone.Name()
}

// OverrideEdit is what an edit does to one stored override: delete it, or
// save After (a changed copy) over Before.
type OverrideEdit struct {
	Before, After *Override
	Delete        bool
}

// Followed is how the overrides of a series follow an edit of it: the
// writes to make, the keys whose occurrence the new series no longer has
// (their overrides are deleted), and the keys that changed (From → To).
type Followed struct {
	Edits   []OverrideEdit
	Dropped []string
	Rekeyed [][2]string // {old key, new key}
}

// FollowSeries carries the overrides ovs of e over to n, e after an edit:
// re-keyed by the rule the occurrences follow ([Rekey], shift being the
// civil shift of the edit), deleted when n no longer has their
// occurrence. A changed occurrence keeps its own time unless it is named
// (the occurrence the edit gave a new start), and one whose own time is
// now the series' time is an ordinary occurrence again (deleted when it
// changes nothing else). All-day series are expanded in person. Edits
// come in key order.
func FollowSeries(e, n *Event, ovs map[string]*Override, shift time.Duration, named string, person tz.Zone) Followed {
	var f Followed
	s := n.Series(person)
	keys := make([]string, 0, len(ovs))
	for k := range ovs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	moves := Rekey(e.Series(person), s, shift, keys)
	for _, key := range keys {
		ov := ovs[key]
		occ, ok := moves[key]
		if !ok {
			f.Edits = append(f.Edits, OverrideEdit{Before: ov, Delete: true})
			f.Dropped = append(f.Dropped, key)
			continue
		}
		after := *ov
		after.Key = occ.Key()
		if after.HasTime && (key == named || AtOwnTime(n, &after, occ)) {
			after.HasTime = false
			if after.Empty() {
				f.Edits = append(f.Edits, OverrideEdit{Before: ov, Delete: true})
				continue
			}
		}
		f.Edits = append(f.Edits, OverrideEdit{Before: ov, After: &after})
		if after.Key != key {
			f.Rekeyed = append(f.Rekeyed, [2]string{key, after.Key})
		}
	}
	return f
}

// ErrSplitAtFirst is the error of [SplitEvent] at a series' first
// occurrence, which splits nothing.
var ErrSplitAtFirst = errors.New("calendar: split at the first occurrence")

// SplitEvent cuts e at its occurrence r ([Split], all-day series expanded
// in person): head is e ending just before r (same id), tail the rest from
// r on as a new series (id 0, split from e, a copy of e's other fields
// without PrevStarts and one-time reminders, which stay with head: set its
// UID and CreatedAt). With restart the
// tail starts at r itself, whatever the rule's days, for the caller gives
// it a new rule. The error is [ErrSplitAtFirst] when r is e's first
// occurrence.
func SplitEvent(e *Event, r recur.Occurrence, person tz.Zone, restart bool) (head, tail *Event, err error) {
	h, t, ok, err := Split(e.Series(person), r)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s at %s", ErrSplitAtFirst, e.Label(), r.Key())
	}
	head = e.Clone()
	head.Rule, head.ExDates, head.RDates = h.Rule, h.ExDates, h.RDates
	if head.Start != h.Start {
		head.Start = h.Start
		head.SetLength(e.Duration(), e.Days())
	}
	if restart {
		var rest []tz.Moment
		for _, x := range t.RDates {
			if x != r.Original {
				rest = append(rest, x)
			}
		}
		t.Start, t.RDates = r.Original, rest
	}
	tail = e.Clone()
	tail.ID, tail.SplitFrom, tail.PrevStarts = 0, e.ID, nil
	tail.RemindOnce = "" // one-time reminders fire once: they stay with head
	tail.Start, tail.Rule, tail.ExDates, tail.RDates = t.Start, t.Rule, t.ExDates, t.RDates
	tail.SetLength(e.Duration(), e.Days())
	return head, tail, nil
}

// KeyFrom reports whether the override key is at or after occurrence r:
// by date for a day key, by instant otherwise; false for a malformed key.
func KeyFrom(key string, r recur.Occurrence) bool {
	m, _, err := tz.ParseBasic(key)
	if err != nil {
		return false
	}
	if !m.HasTime {
		return !m.Date.Before(r.Original.Date)
	}
	return !m.DateTime.AsUTC().Before(r.Start)
}

// MoveOccurrence gives o, the override of occurrence r of series e, its
// own time: for an all-day series the days [first, first+days), for a
// timed one the civil start in zone lasting dur. When that is r's own
// time (and zone) o keeps the series' time again (HasTime false).
// Callers check first that the calendar holds the new span.
func MoveOccurrence(e *Event, o *Override, r recur.Occurrence, first tz.Date, days int, start tz.Moment, zone tz.Zone, dur time.Duration) {
	if e.AllDay {
		o.HasTime = true
		o.Start, o.End, o.Zone = tz.DayMoment(first), tz.DayMoment(first.AddDays(days)), e.Zone
		o.StartAt, o.EndAt = e.Zone.StartOfDay(first).UTC(), e.Zone.StartOfDay(first.AddDays(days)).UTC()
		if first == r.Original.Date && days == e.Days() {
			o.HasTime = false
		}
		return
	}
	at, _ := zone.Instant(start.DateTime)
	o.HasTime = true
	o.Start, o.Zone = start, zone
	o.StartAt, o.EndAt = at.UTC(), at.Add(dur).UTC()
	o.End = tz.TimeMoment(zone.In(o.EndAt))
	if o.StartAt.Equal(r.Start) && o.EndAt.Equal(r.End) && zone.Name() == e.Zone.Name() {
		o.HasTime = false // back to the rule's own time
	}
}
