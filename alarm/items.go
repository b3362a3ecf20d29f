package alarm

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// trigger is one reminder of an item: it fires Offset after the start (or
// due) of each occurrence. Name is how the delivery key records it.
type trigger struct {
	Name   string
	Offset time.Duration
}

// override is a changed or cancelled occurrence of an event, keyed by its
// RECURRENCE-ID (RFC 5545 §3.8.4.4).
type override struct {
	Cancelled bool
	Start     time.Time     // zero: keeps the series' time
	Length    time.Duration // with Start: the occurrence's own length
	Triggers  []trigger     // nil: the series' reminders
	Title     string        // "": the series' title
	Notes     *string       // nil: the series' notes
}

// watched is one task or event as the reminders job sees it: its series of
// occurrences, its triggers and its overrides. A dead item (deleted, done)
// never fires.
type watched struct {
	Kind     string // "task" or "event"
	Label    string // "t12", "e7"
	ID       int64
	Title    string
	Location string
	Notes    string // the task's or event's notes, as written
	Dead     bool
	AllDay   bool
	// NoBase is a task without a due: only its absolute reminders fire,
	// each once, at its own instant.
	NoBase   bool
	Series   recur.Series
	Triggers []trigger
	// Absolute fire once each, at their instant, whatever the series: the
	// remind_at of a task without a due ("at:…"), and every item's
	// one-time reminders, remind_once ("once:2026-10-05T07:00:00Z").
	Absolute []fire
	Over     map[string]*override
	Updated  time.Time // the row's updated_at (the latest of an event and its overrides)
	zone     tz.Zone   // the person's zone
}

// fire is one computed reminder: a trigger of an occurrence at an instant.
type fire struct {
	Occurrence string    // RECURRENCE-ID form, "" for a task without a due
	Start      time.Time // the occurrence's start or due (zero without one)
	End        time.Time // an event occurrence's end (zero for a task)
	Trigger    string
	At         time.Time
}

// triggers turns stored reminders into triggers relative to first, the
// instant of DTSTART (or the due): a relative reminder is minutes before
// each occurrence (RFC 5545 relative trigger); an absolute one keeps its
// offset from DTSTART, so on a single item it fires at its own instant and
// on a repeating one at the same distance from each occurrence.
func triggers(r item.Reminders, first time.Time, zone, person tz.Zone) []trigger {
	var out []trigger
	for _, m := range r.Before {
		out = append(out, trigger{Name: "before:" + strconv.Itoa(m), Offset: -time.Duration(m) * time.Minute})
	}
	for _, m := range r.At {
		at, _ := zone.MomentInstant(m)
		out = append(out, trigger{Name: atTrigger(m, zone, person), Offset: at.Sub(first)})
	}
	return out
}

// atTrigger names an absolute reminder m, civil in zone: "at:" and the
// stored moment ("at:2026-10-05T08:00"), with the zone in brackets
// ("at:2026-10-05T12:30[Europe/Paris]", RFC 9557's suffix) when it is not
// the person's zone, so whoever reads the trigger reads the right instant.
func atTrigger(m tz.Moment, zone, person tz.Zone) string {
	if !m.HasTime || zone.Name() == person.Name() {
		return "at:" + m.Stored()
	}
	return "at:" + m.Stored() + "[" + zone.Name() + "]"
}

func offsetRange(ts []trigger) (lo, hi time.Duration) {
	for i, t := range ts {
		if i == 0 || t.Offset < lo {
			lo = t.Offset
		}
		if i == 0 || t.Offset > hi {
			hi = t.Offset
		}
	}
	return lo, hi
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

// loadTask reads a task, deleted or not (a deleted or done one is dead).
// A repeating task keeps its next due and the rule from there; a task
// repeated from completion has no known occurrence after the current due.
func loadTask(tx *store.Tx, id int64, zone tz.Zone) (*watched, bool, error) {
	t, deleted, err := tx.TaskEvenDeleted(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	it, err := watchTask(t, deleted, zone)
	return it, err == nil, err
}

// watchTask is task t as the reminders job sees it, for a person in zone;
// an error when its remind_zone is no IANA zone.
func watchTask(t task.Task, deleted bool, zone tz.Zone) (*watched, error) {
	it := &watched{Kind: "task", Label: task.Label(t.ID), ID: t.ID, Title: t.Title, Notes: t.Notes, zone: zone,
		Updated: t.UpdatedAt, Dead: deleted || t.Status != task.Open, Absolute: fireOnce(t.RemindOnce)}
	// remind_at is read in the zone it was written in (RemindZone), so
	// a moment given under another zone than the person's stored one
	// (--tz) fires at the instant it named; older rows have none and use
	// the person's zone.
	remZone := zone
	if t.RemindZone != "" {
		var err error
		if remZone, err = tz.LoadZone(t.RemindZone); err != nil {
			return nil, fmt.Errorf("task %s: %w", it.Label, err)
		}
	}
	if !t.HasDue {
		it.NoBase = true
		for _, m := range t.Reminders.At {
			a, _ := remZone.MomentInstant(m)
			it.Absolute = append(it.Absolute, fire{Trigger: atTrigger(m, remZone, zone), At: a})
		}
		return it, nil
	}
	s := recur.Series{Zone: zone, Start: t.Due.Moment}
	if t.Due.HasTime {
		s.Zone, remZone = t.Due.Zone, t.Due.Zone
	} else {
		it.AllDay = true
	}
	if t.RepeatFrom != task.FromCompletion {
		s.Rule = t.Rule
	}
	it.Series = s
	first, _ := s.Zone.MomentInstant(s.Start)
	it.Triggers = triggers(t.Reminders, first, remZone, zone)
	return it, nil
}

// loadEvent reads an event and its live overrides ([store.Tx.EventForReminders]).
// All-day series repeat on days placed in the person's zone, as the event
// tools list them.
func loadEvent(tx *store.Tx, id int64, zone tz.Zone) (*watched, bool, error) {
	w, ok, err := tx.EventForReminders(id)
	if !ok || err != nil {
		return nil, false, err
	}
	return watchEvent(w, id, zone)
}

// watchEvent is event id, read as w, as the reminders job sees it for a
// person in zone.
func watchEvent(w store.WatchedEvent, id int64, zone tz.Zone) (*watched, bool, error) {
	var err error
	e := w.Event
	it := &watched{Kind: "event", Label: e.Label(), ID: id, Title: e.Title, Location: e.Location,
		Notes: e.Notes, zone: zone, AllDay: e.AllDay, Updated: w.Updated, Dead: w.Dead}
	bad := func(err error) (*watched, bool, error) { return nil, false, fmt.Errorf("event e%d: %w", id, err) }
	if it.Absolute, err = onceFires(e.RemindOnce); err != nil {
		return bad(err)
	}
	s := e.Series(zone)
	it.Series = s
	first, _ := s.Zone.MomentInstant(s.Start)
	rem, err := item.ParseReminders(e.RemindBefore, e.RemindAt)
	if err != nil {
		return bad(err)
	}
	it.Triggers = triggers(rem, first, e.Zone, zone)
	for key, o := range w.Overrides {
		ov := &override{Cancelled: o.Cancel}
		if o.Title != nil {
			ov.Title = *o.Title
		}
		ov.Notes = o.Notes
		if o.HasTime {
			ov.Start = o.StartAt
			ov.Length = o.EndAt.Sub(o.StartAt)
			if e.AllDay {
				ov.Start = zone.StartOfDay(o.Start.Date)
				ov.Length = zone.StartOfDay(o.End.Date).Sub(ov.Start)
			}
		}
		if o.RemindBefore != nil || o.RemindAt != nil {
			// The series' remind_at keeps its offset from DTSTART; the
			// occurrence's own remind_at is absolute (RFC 5545 §3.8.6.3,
			// a DATE-TIME trigger of the RECURRENCE-ID instance), so it is
			// measured from this occurrence's start and fires at its moment.
			b, a, base := e.RemindBefore, e.RemindAt, first
			if o.RemindBefore != nil {
				b = *o.RemindBefore
			}
			if o.RemindAt != nil {
				a = *o.RemindAt
				if ov.Start.IsZero() {
					if orig, _, ok := calendar.KeyStart(key, s.Zone); ok {
						base = orig
					} // else not an occurrence, which never fires (occurrenceAt)
				} else {
					base = ov.Start
				}
			}
			orem, err := item.ParseReminders(b, a)
			if err != nil {
				return bad(err)
			}
			ov.Triggers = triggers(orem, base, e.Zone, zone)
			if ov.Triggers == nil {
				ov.Triggers = []trigger{}
			}
		}
		if it.Over == nil {
			it.Over = map[string]*override{}
		}
		it.Over[key] = ov
	}
	return it, true, nil
}

// onceFires reads remind_once (item.ParseOnce): each instant is a fire
// of its own, "once:" and its RFC 3339 UTC text.
func onceFires(s string) ([]fire, error) {
	ts, err := item.ParseOnce(s)
	return fireOnce(ts), err
}

// fireOnce is one absolute fire per one-time reminder instant.
func fireOnce(ts []time.Time) []fire {
	out := make([]fire, 0, len(ts))
	for _, at := range ts {
		out = append(out, fire{Trigger: "once:" + at.Format(time.RFC3339), At: at})
	}
	return out
}

// hasReminders reports whether anything of the item can ever fire.
func (it *watched) hasReminders() bool {
	if it.Dead {
		return false
	}
	if len(it.Absolute) > 0 {
		return true
	}
	if it.NoBase {
		return false
	}
	if len(it.Triggers) > 0 {
		return true
	}
	for _, ov := range it.Over {
		if !ov.Cancelled && len(ov.Triggers) > 0 {
			return true
		}
	}
	return false
}

// overridden resolves the override of occurrence key: its start (the
// original's, or the one it was moved to), its triggers, and whether it
// fires at all.
func (it *watched) overridden(ov *override, original time.Time) (time.Time, []trigger, bool) {
	if ov.Cancelled {
		return time.Time{}, nil, false
	}
	start := original
	if !ov.Start.IsZero() {
		start = ov.Start
	}
	ts := it.Triggers
	if ov.Triggers != nil {
		ts = ov.Triggers
	}
	return start, ts, true
}

// occurrenceAt finds the occurrence of the series whose RECURRENCE-ID is
// key (an override's), so an override of an occurrence that no longer
// exists (EXDATE, a changed rule) never fires.
func (it *watched) occurrenceAt(key string) (recur.Occurrence, bool) {
	m, utc, err := tz.ParseBasic(key)
	if err != nil {
		return recur.Occurrence{}, false
	}
	var lo, hi time.Time
	switch {
	case !m.HasTime:
		lo, hi = it.Series.Zone.DayBounds(m.Date)
	case utc:
		lo = m.DateTime.AsUTC()
		hi = lo.Add(time.Minute)
	default:
		return recur.Occurrence{}, false
	}
	for _, o := range it.Series.StartsBetween(lo, hi) {
		if o.Key() == key {
			return o, true
		}
	}
	return recur.Occurrence{}, false
}

// between returns every fire of the item in [from, to], sorted by instant.
// Cancelled occurrences have none; a moved one fires for its new start.
func (it *watched) between(from, to time.Time) []fire {
	if it.Dead {
		return nil
	}
	var out []fire
	for _, a := range it.Absolute {
		if !a.At.Before(from) && !a.At.After(to) {
			out = append(out, a)
		}
	}
	if it.NoBase {
		return out
	}
	add := func(key string, start, end time.Time, ts []trigger) {
		for _, t := range ts {
			if at := start.Add(t.Offset); !at.Before(from) && !at.After(to) {
				f := fire{Occurrence: key, Start: start, Trigger: t.Name, At: at}
				if it.Kind == "event" {
					f.End = end
				}
				out = append(out, f)
			}
		}
	}
	if len(it.Triggers) > 0 {
		lo, hi := offsetRange(it.Triggers)
		for _, o := range it.Series.StartsBetween(from.Add(-hi), to.Add(-lo).Add(time.Nanosecond)) {
			key := o.Key()
			if it.Over[key] != nil {
				continue
			}
			add(key, o.Start, o.End, it.Triggers)
		}
	}
	for key, ov := range it.Over {
		o, ok := it.occurrenceAt(key)
		if !ok {
			continue
		}
		if start, ts, ok := it.overridden(ov, o.Start); ok {
			end := o.End.Add(start.Sub(o.Start))
			if !ov.Start.IsZero() {
				end = start.Add(ov.Length)
			}
			add(key, start, end, ts)
		}
	}
	slices.SortFunc(out, func(a, b fire) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		if a.Occurrence != b.Occurrence {
			if a.Occurrence < b.Occurrence {
				return -1
			}
			return 1
		}
		if a.Trigger < b.Trigger {
			return -1
		}
		if a.Trigger > b.Trigger {
			return 1
		}
		return 0
	})
	return out
}

// maxScan bounds how many occurrences a search for the next fire walks
// past (overridden ones); a series that long with no fire is treated as
// having none for now and looked at again when it changes.
const maxScan = 4096

// next returns the first fire instant at or after from, and false when
// the item never fires again.
func (it *watched) next(from time.Time) (time.Time, bool) {
	if it.Dead {
		return time.Time{}, false
	}
	var best time.Time
	found := false
	consider := func(at time.Time) {
		if !at.Before(from) && (!found || at.Before(best)) {
			best, found = at, true
		}
	}
	for _, a := range it.Absolute {
		consider(a.At)
	}
	if it.NoBase {
		return best, found
	}
	if len(it.Triggers) > 0 {
		lo, hi := offsetRange(it.Triggers)
		t := from.Add(-hi).Add(-time.Nanosecond)
		for range maxScan {
			o, ok := it.Series.After(t)
			if !ok || (found && o.Start.Add(lo).After(best)) {
				break
			}
			t = o.Start
			if it.Over[o.Key()] != nil {
				continue
			}
			for _, tr := range it.Triggers {
				consider(o.Start.Add(tr.Offset))
			}
		}
	}
	for key, ov := range it.Over {
		if ov.Cancelled {
			continue
		}
		o, ok := it.occurrenceAt(key)
		if !ok {
			continue
		}
		if start, ts, ok := it.overridden(ov, o.Start); ok {
			for _, tr := range ts {
				consider(start.Add(tr.Offset))
			}
		}
	}
	return best, found
}

// produces reports whether the item, as it is now, still has the fire
// (occurrence, trigger, at): a recorded but unsent delivery that it no
// longer produces belongs to an older form of the item and is dropped.
func (it *watched) produces(occurrence, trig string, at time.Time) bool {
	for _, f := range it.between(at, at) {
		if f.Occurrence == occurrence && f.Trigger == trig {
			return true
		}
	}
	return false
}

// fireOf is the fire (occurrence, trig) of the item at instant at, as it
// is now; ok is false when the item no longer has it.
func (it *watched) fireOf(occurrence, trig string, at time.Time) (fire, bool) {
	for _, f := range it.between(at, at) {
		if f.Occurrence == occurrence && f.Trigger == trig {
			return f, true
		}
	}
	return fire{}, false
}
