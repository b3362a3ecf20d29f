// Package alarm is when tasks and events remind: an item's schedule of
// fires (each relative reminder before every occurrence, each absolute one
// at its distance from the start, each one-time reminder at its instant;
// overrides moving, cancelling or re-timing single occurrences), read from
// the store, and the record of those already past when an item is written.
// The reminders front (package remind) sends them; the task and event
// tools call [SkipPast] after a write. Computing fires reads no clock and
// no database; only [Load], [LoadEvent] and [SkipPast] use the
// transaction they are given.
package alarm

import (
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// Item is one task or event as the reminders see it ([Load]): its series
// of occurrences, its triggers, its overrides and its one-time reminders.
type Item = watched

// Fire is one computed reminder: a trigger of an occurrence at an instant.
type Fire = fire

// Trigger is one reminder of an item: it fires Offset after the start (or
// due) of each occurrence; Name is how a delivery records it ("before:15",
// "at:2026-10-05T08:00", "at:2026-10-05T12:30[Europe/Paris]").
type Trigger = trigger

// Override is a changed or cancelled occurrence of an event, keyed by its
// RECURRENCE-ID (RFC 5545 §3.8.4.4).
type Override = override

// Load reads the task or event called label ("t12", "e7") of tx's owner,
// deleted ones included (as dead), for a person in zone (00:00 of a
// date-only start or due, the days of all-day series); found is false when
// there is no such row at all, or label names no task or event.
func Load(tx *store.Tx, label string, zone tz.Zone) (it *Item, found bool, err error) {
	return loadItem(tx, label, zone)
}

// LoadEvent is [Load] of the event with that id.
func LoadEvent(tx *store.Tx, id int64, zone tz.Zone) (it *Item, found bool, err error) {
	return loadEvent(tx, id, zone)
}

// IsEvent reports whether label names an event ("e7").
func IsEvent(label string) bool {
	kind, _, ok := itemLabel(label)
	return ok && kind == 'e'
}

// HasReminders reports whether anything of the item can ever fire.
func (it *watched) HasReminders() bool { return it.hasReminders() }

// Between returns every fire of the item in [from, to], sorted by instant
// (then occurrence, then trigger). Cancelled occurrences have none; a
// moved one fires for its new start.
func (it *watched) Between(from, to time.Time) []Fire { return it.between(from, to) }

// Next returns the first fire instant at or after from, and false when the
// item never fires again (or none is found within a bounded search).
func (it *watched) Next(from time.Time) (time.Time, bool) { return it.next(from) }

// Produces reports whether the item, as it is now, still has the fire
// (occurrence, trigger, at).
func (it *watched) Produces(occurrence, trig string, at time.Time) bool {
	return it.produces(occurrence, trig, at)
}

// FireOf is the fire (occurrence, trigger) of the item at instant at, as it
// is now; ok is false when the item no longer has it.
func (it *watched) FireOf(occurrence, trig string, at time.Time) (Fire, bool) {
	return it.fireOf(occurrence, trig, at)
}

// OccurrenceAt finds the occurrence of the series whose RECURRENCE-ID is
// key; ok is false when the series has none there any more.
func (it *watched) OccurrenceAt(key string) (recur.Occurrence, bool) { return it.occurrenceAt(key) }
