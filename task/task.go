// Package task is the task aggregate as data: a [Task] with its [Due], the
// [Completion] of one occurrence, the bounds on what a task holds, and the
// pure operations on them, above all [Complete], which moves a repeating
// task to its next due. It holds no SQL and reads no clock: package store
// keeps tasks, the tools and the fronts decide when "now" is.
//
// Time: a date-only due floats (it is due on that day wherever the person
// is, and "today" and "overdue" are worked out in the person's zone when
// asked); a timed due is pinned to the IANA zone it was written in, with
// its instant by RFC 5545 §3.3.5. Repeating tasks carry an RFC 5545 RRULE
// expanded by package recur.
package task

import (
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// Bounds on what a task holds, in characters (Unicode code points), and on
// how many tags it has. A value over a bound is refused with a sentence,
// never cut (an import cuts and reports).
const (
	MaxTitle = item.MaxTitle
	MaxNotes = item.MaxNotes
	MaxTag   = 40
	MaxTags  = 20
	MaxKey   = item.MaxKey
)

// The values of [Task.Status].
const (
	Open = "open"
	Done = "done"
)

// The values of [Task.RepeatFrom] for a repeating task.
const (
	// Schedule moves a done task to the next date of its rule.
	Schedule = "schedule"
	// FromCompletion moves it the rule's interval after the day it was
	// done ("every 3 days after I do it").
	FromCompletion = "completion"
)

// Due is when a task is due: a floating day (HasTime false, Zone, At and
// Moved unused), or a civil date-time pinned to the IANA Zone it was
// written in, with At its instant (UTC) by RFC 5545 §3.3.5 and Moved set
// when the civil time falls in a DST gap, so At is later than written.
type Due struct {
	tz.Moment
	Zone  tz.Zone
	At    time.Time
	Moved bool
}

// Day is the floating due of day d.
func Day(d tz.Date) Due { return Due{Moment: tz.DayMoment(d)} }

// Timed pins the civil date-time dt to zone (RFC 5545 §3.3.5: a time in a
// DST gap moves forward by the gap, and Moved says so; a time that exists
// twice is the earlier instant unless dt.Fold is set).
func Timed(dt tz.DateTime, zone tz.Zone) Due {
	at, moved := zone.Instant(dt)
	return Due{Moment: tz.TimeMoment(dt), Zone: zone, At: at.UTC(), Moved: moved}
}

// Start is the instant the due begins for a person in zone person: the
// instant of a timed due, 00:00 of a floating day in the person's zone.
func (d Due) Start(person tz.Zone) time.Time {
	if d.HasTime {
		return d.At
	}
	return person.StartOfDay(d.Date)
}

// SeriesZone is the zone a repeating due expands in: its own for a timed
// due, the person's for a floating day.
func (d Due) SeriesZone(person tz.Zone) tz.Zone {
	if d.HasTime {
		return d.Zone
	}
	return person
}

// PersonDay is the person's civil day of the due: a timed due's instant
// read in person, a floating due's own day.
func (d Due) PersonDay(person tz.Zone) tz.Date {
	if d.HasTime {
		return person.Today(d.At)
	}
	return d.Date
}

// Task is one task of one person.
type Task struct {
	ID int64 // 0 until stored
	// UID is the RFC 5545 UID of the VTODO it was imported from (RFC 5545
	// §3.8.4.7); "" for a task the tools made.
	UID    string
	Title  string // one line, at most MaxTitle characters
	Notes  string // as written, at most MaxNotes characters
	Due    Due    // meaningful when HasDue
	HasDue bool
	// Priority is 1 urgent, 2 high, 3 medium, 4 none.
	Priority int
	// Tags are words without spaces, kept once each ignoring case.
	Tags []string
	// Rule is the RRULE of the series that starts at Due (DTSTART = the
	// due); its COUNT is what remains from there. nil when the task does
	// not repeat.
	Rule       *recur.Rule
	RepeatFrom string // Schedule or FromCompletion; "" when Rule is nil
	Reminders  item.Reminders
	// RemindZone is the IANA zone Reminders.At were read in when the task
	// has no timed due (a timed due's own zone is theirs); "" for tasks
	// written before it was kept, which read them in the person's zone.
	RemindZone string
	// RemindOnce are one-time reminders read from a calendar file
	// ([item.ParseOnce]): each fires once at its instant.
	RemindOnce  []time.Time
	Status      string    // Open or Done
	CompletedAt time.Time // UTC, whole seconds; zero while open
	CreatedAt   time.Time // UTC, whole seconds
	UpdatedAt   time.Time // UTC, whole seconds; zero until stored
}

// New is an open task with no priority, added at now.
func New(title string, now time.Time) Task {
	return Task{Title: title, Status: Open, Priority: 4, CreatedAt: now}
}

// Series is the RFC 5545 series of t from its current due, expanded in the
// due's zone (the person's for a floating day).
func (t Task) Series(person tz.Zone) recur.Series {
	return recur.Series{Start: t.Due.Moment, Zone: t.Due.SeriesZone(person), Rule: t.Rule}
}

// Label is how a task is named to people and models: "t12".
func Label(id int64) string { return "t" + strconv.FormatInt(id, 10) }

// MadeUID is the UID "t12@assistant" under which a task with no UID of its
// own (one the tools made, stored with UID "") is written to calendar files
// and served over CalDAV. The form is this database's: no other task may
// be stored with a UID of it (see [MadeID]), or two items would share one
// UID (RFC 5545 §3.8.4.7).
func MadeUID(id int64) string { return Label(id) + "@assistant" }

// MadeID reads the id out of a UID that [MadeUID] gives, and reports
// whether uid is one: exactly "t", the id in decimal without a sign or a
// leading zero, and "@assistant" ("t012@assistant" is not one, nor is
// "T12@assistant").
func MadeID(uid string) (int64, bool) {
	digits, ok := strings.CutSuffix(uid, "@assistant")
	if !ok || len(digits) < 2 || len(digits) > 20 || digits[0] != 't' || digits[1] == '0' {
		return 0, false
	}
	id, err := strconv.ParseInt(digits[1:], 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != digits[1:] {
		return 0, false
	}
	return id, true
}

// HasTag reports whether t carries tag, compared case-insensitively and
// through [args.CleanLine], so a tag stored with invisible characters
// before they were dropped still matches.
func (t Task) HasTag(tag string) bool {
	for _, x := range t.Tags {
		if strings.EqualFold(strings.TrimSpace(args.CleanLine(x)), tag) {
			return true
		}
	}
	return false
}

// AddTag adds tag to tags unless it is there already, ignoring case.
func AddTag(tags []string, tag string) []string {
	for _, t := range tags {
		if strings.EqualFold(t, tag) {
			return tags
		}
	}
	return append(tags, tag)
}

// RemoveTag returns tags without tag (ignoring case), in a new slice.
func RemoveTag(tags []string, tag string) []string {
	out := tags[:0:0]
	for _, t := range tags {
		if !strings.EqualFold(t, tag) {
			out = append(out, t)
		}
	}
	return out
}

// SameTags compares tags as sets, ignoring case, as AddTag keeps them.
func SameTags(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range a {
		if len(RemoveTag(b, t)) == len(b) {
			return false
		}
	}
	return true
}

// Differs names the fields, beyond title and due, in which b is another
// request than a: "priority", "tags", "rrule" (the rule or how it repeats).
// Empty when b asks for the same task as a, as a call sent twice does.
func Differs(a, b Task) []string {
	var out []string
	if a.Priority != b.Priority {
		out = append(out, "priority")
	}
	if !SameTags(a.Tags, b.Tags) {
		out = append(out, "tags")
	}
	ruleOf := func(t Task) string {
		if t.Rule == nil {
			return ""
		}
		return t.Rule.String() + " " + t.RepeatFrom
	}
	if ruleOf(a) != ruleOf(b) {
		out = append(out, "rrule")
	}
	return out
}

// Completion is one done occurrence of a task: the due it had when it was
// done (none for a task without a due) and the instant it was done.
type Completion struct {
	ID     int64 // 0 until stored
	TaskID int64
	Due    Due
	HasDue bool
	At     time.Time // UTC, whole seconds
}
