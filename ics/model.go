// Package ics reads and writes iCalendar files (RFC 5545) for assistant:
// it decodes VEVENTs and VTODOs into the project's own model (civil times in
// IANA zones, recurrence as package recur reads it, reminders as
// remind_before minutes and remind_at instants), encodes that model back to a
// valid, folded, CRLF file, and imports into and exports from the store.
//
// Parsing keeps what it can: a line or value that cannot be read is listed in
// Calendar.Skipped with its line number and the reason, and the rest of the
// file is still imported.
package ics

import (
	"strings"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// Calendar is the decoded content of one iCalendar file.
type Calendar struct {
	// Events are the VEVENTs in file order: masters, single events and
	// overrides (RecurrenceID set) alike.
	Events []Event
	// Tasks are the VTODOs in file order.
	Tasks []Task
	// Skipped lists, by line, what was not imported and why.
	Skipped []Skipped
	// Repaired lists lines and values that broke RFC 5545 but were read
	// anyway, with what they were read as.
	Repaired []Skipped
	// Counts is the number of components of each name seen in the file
	// ("VEVENT", "VTODO", "VTIMEZONE", "VALARM", …), skipped ones included.
	Counts map[string]int
	// Props are the VCALENDAR's own properties (VERSION, PRODID,
	// X-WR-CALNAME, …), each the first value, unescaped.
	Props map[string]string
	// Zones maps each TZID used in the file to the IANA zone it was read as,
	// and how ("IANA name", "Windows zone name (CLDR)", "VTIMEZONE rules").
	Zones map[string]ZoneMatch

	roots int // VCALENDAR objects found; 0 means this is no iCalendar stream
	// orphans are the overrides finish left out because their
	// RECURRENCE-ID matches no occurrence of their series (each also
	// in Skipped), RecurrenceID placed in the master's zone: a CalDAV
	// PUT may still place them on the stored series ([PutObject]).
	orphans []Event
	// todoOccs are the VTODOs with a RECURRENCE-ID (each also in
	// Skipped): a CalDAV PUT reads one that completes the stored
	// task's current occurrence as its completion ([PutObject]).
	todoOccs []todoOccurrence
}

// todoOccurrence is one VTODO with a RECURRENCE-ID, as far as completing
// it goes.
type todoOccurrence struct {
	Line int
	// RecurrenceID is the occurrence's original due: a date, or a civil
	// time in Zone with At its instant.
	RecurrenceID tz.Moment
	Zone         tz.Zone
	At           time.Time
	// Done is STATUS:COMPLETED (or COMPLETED without STATUS); Completed
	// the COMPLETED instant, zero when not given.
	Done      bool
	Completed time.Time
}

// ZoneMatch says which IANA zone a TZID was read as.
type ZoneMatch struct {
	Zone tz.Zone
	How  string
}

// Skipped is one thing the decoder left out (or, in Calendar.Repaired, read
// in spite of a fault): the 1-based line of the file where it starts, the
// component it was in ("VEVENT"; "" outside any), that component's UID when
// known, and the reason as one sentence.
type Skipped struct {
	Line      int
	Component string
	UID       string
	Reason    string
	// grave marks a loss a sender would notice in what is stored: a line
	// that could not be read, a component left out, a rule or a date of
	// the recurrence dropped (see [Object.Lost]).
	grave bool
	// fault is what is wrong, without what an import made of it, when
	// Reason says both (see [Skipped.Fault]).
	fault string
}

// Fault is what is wrong with the item, without what an import made of
// it ("its first 200 are imported", "imported without repeating"): the
// part of the reason that still holds for a server that stores nothing
// of an object it cannot keep as sent (CalDAV's PUT).
func (s Skipped) Fault() string {
	if s.fault != "" {
		return s.fault
	}
	if strings.HasSuffix(s.Reason, textCut) {
		if i := strings.LastIndex(s.Reason, "; its first "); i > 0 {
			return s.Reason[:i]
		}
	}
	return strings.TrimSuffix(s.Reason, ".")
}

// Event is one VEVENT (RFC 5545 §3.6.1).
type Event struct {
	UID string
	// RecurrenceID is set on an override: the original start of the
	// occurrence it replaces, as a moment in the master's Zone (a date for an
	// all-day master), comparable with recur.Occurrence.Original.
	RecurrenceID *tz.Moment
	// RecurrenceZone is the master's zone, in which RecurrenceID is
	// written back (the zero Zone means Zone).
	RecurrenceZone tz.Zone
	// Sequence is SEQUENCE (0 when absent).
	Sequence                       int
	Summary, Description, Location string
	// Status is STATUS upper-cased ("CONFIRMED", "TENTATIVE", "CANCELLED"),
	// or "" when absent. A cancelled override removes its occurrence.
	Status string
	// AllDay is true for VALUE=DATE starts.
	AllDay bool
	// Start is DTSTART as a civil moment in Zone (a date when AllDay).
	Start tz.Moment
	// End is the end as a civil moment in Zone: for an all-day event the
	// LAST day, inclusive, as the tools take it (DTEND is exclusive in the
	// file); for a timed event DTEND (or DTSTART + DURATION) read in Zone.
	End tz.Moment
	// Zone is the zone the event lives in: its TZID's IANA zone, UTC for
	// times written with "Z", the person's zone for floating times.
	Zone tz.Zone
	// Floating is true when DTSTART had neither TZID nor "Z".
	Floating bool
	// Rule, ExDates and RDates are the recurrence (RFC 5545 §3.8.5), the
	// dates as moments in Zone.
	Rule            *recur.Rule
	ExDates, RDates []tz.Moment
	Alarms
	// Line is where the component begins in the file.
	Line int
}

// Alarms are an item's VALARMs as assistant's reminders (docs/design.md,
// "Reminders").
type Alarms struct {
	// RemindBefore are minutes before the start (or a task's due), from
	// relative triggers, sorted, without repeats.
	RemindBefore []int
	// RemindAt are absolute triggers (VALUE=DATE-TIME), as instants. Each
	// fires once, at its instant (RFC 5545 §3.8.6.3), however the item
	// repeats: they are stored as the item's one-time reminders
	// (remind_once; an override's own remind_at).
	RemindAt []time.Time
}

// Duration is the length of each occurrence: End − Start for timed events;
// whole days for all-day ones.
func (e *Event) Duration() time.Duration {
	if e.AllDay {
		return time.Duration(e.Start.Date.DaysUntil(e.End.Date)+1) * 24 * time.Hour
	}
	s, _ := e.Zone.Instant(e.Start.DateTime)
	en, _ := e.Zone.Instant(e.End.DateTime)
	return en.Sub(s)
}

// Series is the event's recurrence as package recur expands it.
func (e *Event) Series() recur.Series {
	return recur.Series{Start: e.Start, Zone: e.Zone, Rule: e.Rule, ExDates: e.ExDates, RDates: e.RDates, Duration: e.Duration()}
}

// Task is one VTODO (RFC 5545 §3.6.2).
type Task struct {
	UID                  string
	Summary, Description string
	// Due and Start are civil moments in Zone (dates for date-only values);
	// HasDue and HasStart say whether they were given.
	Due, Start       tz.Moment
	HasDue, HasStart bool
	// StartLine is the line of DTSTART (0 when absent): the store has no
	// task start, so an import lists it there as not kept.
	StartLine int
	// RuleLine is the line of the RRULE kept (0 when none): where a
	// report names a rule the task cannot keep.
	RuleLine int
	// Zone is the zone of a timed due (or start): its TZID's IANA zone,
	// UTC for "Z" times, the person's zone for floating times.
	Zone     tz.Zone
	Floating bool
	// Priority is assistant's priority: 1 urgent, 2 high, 3 normal, 4 none,
	// from RFC 5545 PRIORITY 1–4 → 1, 5 → 2, 6–9 → 3, 0 or absent → 4.
	Priority int
	// Status is STATUS upper-cased; Done is true for COMPLETED (or a
	// COMPLETED date-time without STATUS), and Completed is when.
	Status    string
	Done      bool
	Completed time.Time
	Tags      []string
	// Rule is the RRULE; FromCompletion is true when the task repeats from
	// its completion (X-ASSISTANT-REPEAT-FROM:COMPLETION) rather than on a
	// fixed schedule.
	Rule           *recur.Rule
	FromCompletion bool
	Alarms
	Line int
}

// Series is the task's schedule as package recur expands it: from DTSTART
// when given (RFC 5545 §3.8.5.3 anchors the rule there), else from DUE.
func (t *Task) Series() recur.Series {
	start := t.Due
	if t.HasStart {
		start = t.Start
	}
	return recur.Series{Start: start, Zone: t.Zone, Rule: t.Rule}
}

// PriorityFromICal maps RFC 5545 PRIORITY (§3.8.1.9) to assistant's 1–4.
func PriorityFromICal(p int) int {
	switch {
	case p >= 1 && p <= 4:
		return 1
	case p == 5:
		return 2
	case p >= 6 && p <= 9:
		return 3
	default:
		return 4
	}
}

// PriorityToICal maps assistant's 1–4 back to RFC 5545 PRIORITY: 1, 5, 9, 0.
func PriorityToICal(p int) int {
	switch p {
	case 1:
		return 1
	case 2:
		return 5
	case 3:
		return 9
	default:
		return 0
	}
}
