package ics

import (
	"sort"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// Instance is one occurrence of an event after overrides are applied.
type Instance struct {
	// Original is the occurrence's RECURRENCE-ID (its start as the rule or
	// RDATE gave it), in the master's zone.
	Original tz.Moment
	// Start and End are instants.
	Start, End time.Time
	// Event is what the occurrence shows: the master, or the override that
	// replaced it.
	Event *Event
	// Override is true when an override replaced the occurrence, or (with
	// Orphan) when an override matched no occurrence and is shown as written.
	Override, Orphan bool
}

// Instances returns the occurrences of the event UID that overlap [from, to),
// sorted by start: the master's expansion (RRULE, RDATE, EXDATE by package
// recur) with each occurrence replaced by its override, cancelled ones
// (STATUS:CANCELLED on the override) left out, and overrides whose
// RECURRENCE-ID matches no occurrence added as they are.
func (c *Calendar) Instances(uid string, from, to time.Time) []Instance {
	var master *Event
	overrides := map[tz.Moment]*Event{}
	for i := range c.Events {
		e := &c.Events[i]
		if e.UID != uid {
			continue
		}
		if e.RecurrenceID == nil {
			master = e
		} else {
			overrides[*e.RecurrenceID] = e
		}
	}
	var out []Instance
	add := func(in Instance) {
		if in.Start.Before(to) && (in.End.After(from) || (in.End.Equal(in.Start) && !in.Start.Before(from))) {
			out = append(out, in)
		}
	}
	if master != nil {
		s := master.Series()
		// Overrides may move an occurrence into the window from far away,
		// so the span of every RECURRENCE-ID is expanded too.
		lo, hi := from, to
		for r := range overrides {
			t, _ := master.Zone.MomentInstant(r)
			if t.Before(lo) {
				lo = t.Add(-s.Duration)
			}
			if !t.Before(hi) {
				hi = t.Add(time.Second)
			}
		}
		for _, o := range s.Between(lo, hi) {
			ov := overrides[o.Original]
			if ov == nil {
				add(Instance{Original: o.Original, Start: o.Start, End: o.End, Event: master})
				continue
			}
			delete(overrides, o.Original)
			if ov.Status != "CANCELLED" {
				add(ov.instance(o.Original, true, false))
			}
		}
	}
	// [lo, hi) covered every RECURRENCE-ID, so what is left matched no
	// occurrence (or has no master): shown as written.
	for r, ov := range overrides {
		if ov.Status != "CANCELLED" {
			add(ov.instance(r, true, true))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

func (e *Event) instance(original tz.Moment, override, orphan bool) Instance {
	start, _ := e.Zone.MomentInstant(e.Start)
	end := start.Add(e.Duration())
	if e.AllDay {
		end = e.Zone.StartOfDay(e.End.Date.AddDays(1))
	}
	return Instance{Original: original, Start: start, End: end, Event: e, Override: override, Orphan: orphan}
}
