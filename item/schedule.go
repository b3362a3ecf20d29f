package item

import (
	"slices"
	"strconv"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// Trigger is one reminder of an item: it fires Offset after the start (or
// due) of each occurrence. Name is how a delivery records it: "before:15",
// "at:2026-10-05T08:00" (see [AtTrigger]).
type Trigger struct {
	Name   string
	Offset time.Duration
}

// Override is a changed or cancelled occurrence of an event, keyed by its
// RECURRENCE-ID (RFC 5545 §3.8.4.4).
type Override struct {
	Cancelled bool
	Start     time.Time     // zero: keeps the series' time
	Length    time.Duration // with Start: the occurrence's own length
	Triggers  []Trigger     // nil: the series' reminders
	Title     string        // "": the series' title
}

// Schedule is when one task or event reminds: its series of occurrences
// (a task's due and its rule, an event's start and its rule), its
// triggers, its overrides and its one-time reminders. A dead item
// (deleted, done) never fires. It is pure data: building one reads the
// item's row, computing its fires reads no clock and no database.
type Schedule struct {
	Kind     string // "task" or "event"
	Label    string // "t12", "e7"
	ID       int64
	Title    string
	Location string
	Dead     bool
	AllDay   bool
	// NoBase is a task without a due: only its absolute reminders fire,
	// each once, at its own instant.
	NoBase   bool
	Series   recur.Series
	Triggers []Trigger
	// Absolute fire once each, at their instant, whatever the series: the
	// remind_at of a task without a due ("at:…"), and every item's
	// one-time reminders, remind_once ("once:2026-10-05T07:00:00Z").
	Absolute []Fire
	Over     map[string]*Override
	Updated  time.Time // the row's updated_at (the latest of an event and its overrides)
}

// Fire is one computed reminder: a trigger of an occurrence at an instant.
type Fire struct {
	Occurrence string    // RECURRENCE-ID form, "" for a task without a due
	Start      time.Time // the occurrence's start or due (zero without one)
	End        time.Time // an event occurrence's end (zero for a task)
	Trigger    string
	At         time.Time
}

// Triggers turns stored reminders into triggers relative to first, the
// instant of DTSTART (or the due): a relative reminder is minutes before
// each occurrence (RFC 5545 §3.8.6.3, a relative trigger); an absolute one
// is read in zone and keeps its offset from DTSTART, so on a single item it
// fires at its own instant and on a repeating one at the same distance from
// each occurrence. person is the person's zone ([AtTrigger] names it).
func Triggers(r Reminders, first time.Time, zone, person tz.Zone) []Trigger {
	var out []Trigger
	for _, m := range r.Before {
		out = append(out, Trigger{Name: "before:" + strconv.Itoa(m), Offset: -time.Duration(m) * time.Minute})
	}
	for _, m := range r.At {
		at, _ := zone.MomentInstant(m)
		out = append(out, Trigger{Name: AtTrigger(m, zone, person), Offset: at.Sub(first)})
	}
	return out
}

// AtTrigger names an absolute reminder m, civil in zone: "at:" and the
// stored moment ("at:2026-10-05T08:00"), with the zone in brackets
// ("at:2026-10-05T12:30[Europe/Paris]", RFC 9557's suffix) when it is not
// the person's zone, so whoever reads the trigger reads the right instant.
func AtTrigger(m tz.Moment, zone, person tz.Zone) string {
	if !m.HasTime || zone.Name() == person.Name() {
		return "at:" + m.Stored()
	}
	return "at:" + m.Stored() + "[" + zone.Name() + "]"
}

// OffsetRange is the earliest and the latest offset of ts (0, 0 when empty).
func OffsetRange(ts []Trigger) (lo, hi time.Duration) {
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

// OnceFires reads remind_once ([ParseOnce]): each instant is a fire of
// its own, triggered "once:" and its RFC 3339 UTC text.
func OnceFires(s string) ([]Fire, error) {
	ts, err := ParseOnce(s)
	out := make([]Fire, 0, len(ts))
	for _, at := range ts {
		out = append(out, Fire{Trigger: "once:" + at.Format(time.RFC3339), At: at})
	}
	return out, err
}

// KeyStart is the original start of the occurrence a RECURRENCE-ID names:
// a UTC DATE-TIME as written, a DATE at 00:00 of that day in zone.
func KeyStart(key string, zone tz.Zone) (time.Time, bool) {
	m, utc, err := tz.ParseBasic(key)
	switch {
	case err != nil:
		return time.Time{}, false
	case !m.HasTime:
		return zone.StartOfDay(m.Date), true
	case utc:
		return m.DateTime.AsUTC(), true
	}
	return time.Time{}, false
}

// HasReminders reports whether anything of the item can ever fire.
func (it *Schedule) HasReminders() bool {
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
func (it *Schedule) overridden(ov *Override, original time.Time) (time.Time, []Trigger, bool) {
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

// OccurrenceAt finds the occurrence of the series whose RECURRENCE-ID is
// key (an override's), so an override of an occurrence that no longer
// exists (EXDATE, a changed rule) never fires.
func (it *Schedule) OccurrenceAt(key string) (recur.Occurrence, bool) {
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

// Between returns every fire of the item in [from, to], sorted by instant.
// Cancelled occurrences have none; a moved one fires for its new start.
func (it *Schedule) Between(from, to time.Time) []Fire {
	if it.Dead {
		return nil
	}
	var out []Fire
	for _, a := range it.Absolute {
		if !a.At.Before(from) && !a.At.After(to) {
			out = append(out, a)
		}
	}
	if it.NoBase {
		return out
	}
	add := func(key string, start, end time.Time, ts []Trigger) {
		for _, t := range ts {
			if at := start.Add(t.Offset); !at.Before(from) && !at.After(to) {
				f := Fire{Occurrence: key, Start: start, Trigger: t.Name, At: at}
				if it.Kind == "event" {
					f.End = end
				}
				out = append(out, f)
			}
		}
	}
	if len(it.Triggers) > 0 {
		lo, hi := OffsetRange(it.Triggers)
		for _, o := range it.Series.StartsBetween(from.Add(-hi), to.Add(-lo).Add(time.Nanosecond)) {
			key := o.Key()
			if it.Over[key] != nil {
				continue
			}
			add(key, o.Start, o.End, it.Triggers)
		}
	}
	for key, ov := range it.Over {
		o, ok := it.OccurrenceAt(key)
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
	slices.SortFunc(out, func(a, b Fire) int {
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

// Next returns the first fire instant at or after from, and false when
// the item never fires again.
func (it *Schedule) Next(from time.Time) (time.Time, bool) {
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
		lo, hi := OffsetRange(it.Triggers)
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
		o, ok := it.OccurrenceAt(key)
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

// Produces reports whether the item, as it is now, still has the fire
// (occurrence, trigger, at): a recorded but unsent delivery that it no
// longer produces belongs to an older form of the item and is dropped.
func (it *Schedule) Produces(occurrence, trig string, at time.Time) bool {
	for _, f := range it.Between(at, at) {
		if f.Occurrence == occurrence && f.Trigger == trig {
			return true
		}
	}
	return false
}

// FireOf is the fire (occurrence, trig) of the item at instant at, as it
// is now; ok is false when the item no longer has it.
func (it *Schedule) FireOf(occurrence, trig string, at time.Time) (Fire, bool) {
	for _, f := range it.Between(at, at) {
		if f.Occurrence == occurrence && f.Trigger == trig {
			return f, true
		}
	}
	return Fire{}, false
}

// pastLookback is how far back PastFires looks for the reminders of an
// item that does not repeat (a remind_at may be long before its start).
const pastLookback = 100 * 366 * 24 * time.Hour

// pastRepeatWindow is how far before now PastFires looks for reminders of
// a repeating item's occurrences still to start: the longest
// remind_before (four weeks, MaxRemindBefore) and a few days.
const pastRepeatWindow = 31 * 24 * time.Hour

// PastFires are the fires of the item, in the form it has at now, whose
// time was already past at now: they would never fire (the reminders job
// only looks for fires after an item changed). For a repeating item only
// the reminders of occurrences still to start count (those of past
// occurrences were never promised), looked for at most a little over four
// weeks back; for one that does not repeat, every reminder before now.
// They are sorted by instant.
func (it *Schedule) PastFires(now time.Time) []Fire {
	if !it.HasReminders() {
		return nil
	}
	repeats := !it.NoBase && (it.Series.Rule != nil || len(it.Series.RDates) > 0)
	from := now.Add(-pastLookback)
	if repeats {
		lo, _ := OffsetRange(it.Triggers)
		for _, ov := range it.Over {
			if l, _ := OffsetRange(ov.Triggers); len(ov.Triggers) > 0 && l < lo {
				lo = l
			}
		}
		if lo >= 0 {
			return nil
		}
		// Bounded, so a rule of many occurrences is never expanded over
		// years: a remind_at further before its start is not looked for.
		from = now.Add(max(lo, -pastRepeatWindow))
	}
	var out []Fire
	for _, f := range it.Between(from, now) {
		if !f.At.Before(now) || (repeats && f.Start.Before(now)) {
			continue
		}
		out = append(out, f)
	}
	return out
}
