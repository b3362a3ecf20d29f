package ics

import (
	"bytes"
	"slices"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// This file keeps a CalDAV PUT from rewriting what it does not change.
// One stored item may be kept in forms that [WriteEventObject] and
// [WriteTaskObject] serve the same: an EXDATE or RDATE as a day or as the
// date-time of its occurrence, an EXDATE that removes no occurrence (not
// served), a local or a UTC UNTIL, a reminder as a fixed moment
// (remind_at) or as minutes before (remind_before) or as a one-time
// reminder (remind_once). ParseObject reads the served form back, so a
// client that GETs an object and PUTs the same bytes would turn the
// stored form into the served one: a journal change, a new sync token,
// for nothing (docs/caldav.md, “Writes, and lost races”). PutObject
// therefore keeps the stored form of every part of a row that the body
// leaves served as it was.

// servedEvent is the VEVENT WriteEventObject writes of the stored series
// e (DTSTAMP and extra aside), as text; ok is false when e cannot be
// written.
func servedEvent(e *calendar.Event, person tz.Zone) (string, bool) {
	me, err := eventFromStore(e, person)
	if err != nil {
		return "", false
	}
	var b bytes.Buffer
	writeRaw(&b, (&Writer{}).eventComponent(me))
	return b.String(), true
}

// servedOverride is the VEVENT WriteEventObject writes of the stored
// override o of the stored series master, as text; ok is false when
// either cannot be written.
func servedOverride(master *calendar.Event, o *calendar.Override, person tz.Zone) (string, bool) {
	me, err := eventFromStore(master, person)
	if err != nil {
		return "", false
	}
	ov, err := overrideFromStore(me, o)
	if err != nil {
		return "", false
	}
	var b bytes.Buffer
	writeRaw(&b, (&Writer{}).eventComponent(ov))
	return b.String(), true
}

// servedTask is the VTODO WriteTaskObject writes of the stored task t
// (DTSTAMP and extra aside), as text; ok is false when t cannot be
// written.
func servedTask(t task.Task, person tz.Zone) (string, bool) {
	mt, err := exportedTask(t, person)
	if err != nil {
		return "", false
	}
	var b bytes.Buffer
	writeRaw(&b, (&Writer{}).taskComponent(mt))
	return b.String(), true
}

// keepStoredEvent brings want, the series a PUT writes over the stored
// have (same id), back to have where they are served the same: all of
// it when the whole VEVENT is, else each of its rule, EXDATEs, RDATEs and
// reminders whose stored form in have gives want's VEVENT unchanged.
func keepStoredEvent(have, want *calendar.Event, person tz.Zone) {
	served, ok := servedEvent(want, person)
	if !ok {
		return
	}
	same := func(alt *calendar.Event) bool {
		s, ok := servedEvent(alt, person)
		return ok && s == served
	}
	if alt := have.Clone(); same(alt) {
		*want = *alt
		return
	}
	parts := []func(alt *calendar.Event){
		func(alt *calendar.Event) { alt.Rule = have.Rule },
		func(alt *calendar.Event) { alt.ExDates = slices.Clone(have.ExDates) },
		func(alt *calendar.Event) { alt.RDates = slices.Clone(have.RDates) },
		func(alt *calendar.Event) {
			alt.RemindBefore, alt.RemindAt, alt.RemindOnce = have.RemindBefore, have.RemindAt, have.RemindOnce
		},
	}
	for _, part := range parts {
		alt := want.Clone()
		part(alt)
		if same(alt) {
			*want = *alt
		}
	}
}

// keepStoredOverride brings want, the override a PUT writes over the
// stored have (same key) of the series master as it is written, back to
// have where they are served the same: all of it, else its reminders.
func keepStoredOverride(master *calendar.Event, have, want *calendar.Override, person tz.Zone) {
	served, ok := servedOverride(master, want, person)
	if !ok {
		return
	}
	same := func(alt *calendar.Override) bool {
		s, ok := servedOverride(master, alt, person)
		return ok && s == served
	}
	alt := *have
	alt.ID, alt.EventID, alt.Key = want.ID, want.EventID, want.Key
	if same(&alt) {
		*want = alt
		return
	}
	alt = *want
	alt.RemindBefore, alt.RemindAt = have.RemindBefore, have.RemindAt
	if same(&alt) {
		*want = alt
	}
}

// keepStoredTask brings want, the task a PUT writes over the stored have
// (same id), back to have where they are served the same: all of it, else
// its reminders (minutes, fixed moments with their zone, and one-time
// ones).
func keepStoredTask(have task.Task, want *task.Task, person tz.Zone) {
	served, ok := servedTask(*want, person)
	if !ok {
		return
	}
	same := func(alt task.Task) bool {
		s, ok := servedTask(alt, person)
		return ok && s == served
	}
	if same(have) {
		*want = have
		return
	}
	alt := *want
	alt.Reminders, alt.RemindZone, alt.RemindOnce = have.Reminders, have.RemindZone, have.RemindOnce
	if same(alt) {
		*want = alt
	}
}
