package calendar

import (
	"slices"
	"strconv"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// AllDaySlack widens the stored bounds of an all-day series: its days
// float with the person's zone, which may differ from its TZID by up to
// 26 h (UTC−12 to UTC+14).
const AllDaySlack = 26 * time.Hour

// MaxPrevStarts bounds [Event.PrevStarts]: occurrence ids older than that
// many moves of their series are answered as unknown.
const MaxPrevStarts = 8

// PrevStart is an earlier DTSTART of a series (as [tz.Moment.String]
// writes it) with its TZID, kept so that an occurrence id from before a
// move can be mapped to its new id.
type PrevStart struct {
	Start string `json:"start"`
	TZID  string `json:"tzid"`
}

// Event is one series (or single event) of the calendar: a VEVENT with
// its DTSTART, DTEND, RRULE, EXDATEs and RDATEs (RFC 5545 §3.6.1). Its
// changed occurrences are [Override]s, kept apart by RECURRENCE-ID.
type Event struct {
	ID       int64 // 0 until stored
	UID      string
	Title    string
	Location string
	Notes    string
	AllDay   bool
	Zone     tz.Zone   // TZID
	Start    tz.Moment // DTSTART, civil in Zone (a date when AllDay)
	End      tz.Moment // DTEND, civil in Zone (the day after the last when AllDay)
	StartAt  time.Time // instant of DTSTART
	EndAt    time.Time // instant of DTEND
	Rule     *recur.Rule
	ExDates  []tz.Moment
	RDates   []tz.Moment

	// RemindBefore and RemindAt are the reminders as stored
	// ([item.Reminders.BeforeJSON], [item.Reminders.AtJSON]); "" reads
	// as none.
	RemindBefore, RemindAt string
	// RemindOnce is the one-time reminders ([item.ParseOnce]) read from
	// a calendar file: shown, never written by the tools.
	RemindOnce string

	SplitFrom  int64       // the series this one was split from, 0 for none
	PrevStarts []PrevStart // oldest first, at most MaxPrevStarts
	CreatedAt  time.Time
}

// Duration is the length of each occurrence: exact for timed events,
// whole days (24 h each) for all-day ones.
func (e *Event) Duration() time.Duration {
	if e.AllDay {
		return time.Duration(e.Days()) * 24 * time.Hour
	}
	return e.EndAt.Sub(e.StartAt)
}

// Days is how many days each all-day occurrence covers.
func (e *Event) Days() int { return e.Start.Date.DaysUntil(e.End.Date) }

// Series is the event as recur expands it. An all-day series repeats on
// dates placed in person (the person's zone), since its days float.
func (e *Event) Series(person tz.Zone) recur.Series {
	s := recur.Series{Start: e.Start, Zone: e.Zone, Rule: e.Rule, ExDates: e.ExDates, RDates: e.RDates, Duration: e.Duration()}
	if e.AllDay {
		s.Zone = person
	}
	return s
}

// Repeats reports whether the event has more than its DTSTART.
func (e *Event) Repeats() bool { return e.Rule != nil || len(e.RDates) > 0 }

// Label is how people and models name the event: "e7".
func (e *Event) Label() string { return Label(e.ID) }

// Label is the name of event id: "e7".
func Label(id int64) string { return "e" + strconv.FormatInt(id, 10) }

// Once is the event's one-time reminders (RemindOnce); a malformed value
// reads as none.
func (e *Event) Once() []time.Time {
	ts, _ := item.ParseOnce(e.RemindOnce)
	return ts
}

// Reminders is the event's reminders; malformed stored JSON reads as none.
func (e *Event) Reminders() item.Reminders {
	r, _ := item.ParseReminders(e.RemindBefore, e.RemindAt)
	return r
}

// Clone is a copy of e whose slices may be changed without touching e.
func (e *Event) Clone() *Event {
	c := *e
	c.ExDates = slices.Clone(e.ExDates)
	c.RDates = slices.Clone(e.RDates)
	c.PrevStarts = slices.Clone(e.PrevStarts)
	return &c
}

// Override is one changed or cancelled occurrence of an [Event], keyed by
// its RECURRENCE-ID (RFC 5545 §3.8.4.4). Nil pointers keep the series'
// value.
type Override struct {
	ID      int64 // 0 until stored
	EventID int64
	Key     string // RECURRENCE-ID, as [OccurrenceKey] makes it
	Cancel  bool
	Title   *string
	// Location and Notes, like Title, are nil to keep the series' value.
	Location *string
	Notes    *string
	// Timed: Start and End are civil in Zone; all-day: dates, End the day
	// after the last. HasTime false means the occurrence keeps its time.
	HasTime        bool
	Start, End     tz.Moment
	Zone           tz.Zone
	StartAt, EndAt time.Time
	// RemindBefore and RemindAt are stored JSON as for [Event]; nil keeps
	// the series' reminders.
	RemindBefore *string
	RemindAt     *string
}

// Empty reports whether o changes nothing of its occurrence.
func (o *Override) Empty() bool {
	return !o.Cancel && !o.HasTime && o.Title == nil && o.Location == nil && o.Notes == nil &&
		o.RemindBefore == nil && o.RemindAt == nil
}

// OccurrenceKey is the RECURRENCE-ID that keys the occurrence of a series
// whose original start is original: the date in basic form for an
// all-day series ("20261005"), else the instant original reads in zone,
// in UTC basic form ("20261005T070000Z"), as [recur.Occurrence.Key]
// writes it for every instant on a whole minute (RFC 5545 §3.8.4.4 lets
// either form name it). Seconds, which only a historical offset gives,
// are written, not dropped.
func OccurrenceKey(allDay bool, zone tz.Zone, original tz.Moment) string {
	if allDay {
		return original.Date.Basic()
	}
	t, _ := zone.Instant(original.DateTime)
	return t.UTC().Format("20060102T150405Z")
}

// Bounds is the span any occurrence of e with its overrides ovs can touch,
// what the store keeps as first_at and last_at: the series' own bounds
// ([recur.Series.Bounds] in e's zone), widened by the overrides that move
// an occurrence (cancelled ones aside) and, for an all-day series, by
// [AllDaySlack] either side. bounded is false for a series that never
// ends; last is then meaningless.
func Bounds(e *Event, ovs map[string]*Override) (first, last time.Time, bounded bool) {
	first, last, bounded = e.Series(e.Zone).Bounds()
	for _, o := range ovs {
		if !o.HasTime || o.Cancel {
			continue
		}
		if o.StartAt.Before(first) {
			first = o.StartAt
		}
		if bounded && o.EndAt.After(last) {
			last = o.EndAt
		}
	}
	if e.AllDay {
		first = first.Add(-AllDaySlack)
		if bounded {
			last = last.Add(AllDaySlack)
		}
	}
	return first, last, bounded
}
