// Package view gathers what the everyday views show — the agenda, the
// week and the month in the terminal, the week page in the browser — for
// one person over a run of days: their events' occurrences and their
// tasks, each day in the person's zone. It reads through the tools
// (list_events and list_tasks, by their structured results), as every
// other front does, so a view sees exactly what the model and the shell
// see, with the same isolation and the same bounds; the renderers
// (agenda, grid, page) take a [Window] and write it, and never read the
// store.
package view

import (
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// Window is a run of whole days, From to To inclusive, in the person's
// zone at Now, as a view shows it.
type Window struct {
	Zone     tz.Zone   // the person's zone: every day and time below is in it
	Now      time.Time // the instant the view was made (the run's clock)
	From, To tz.Date   // the first and last day shown
	Days     []Day     // one per day From..To, in order, empty days included
	// Overdue are the open tasks due before From that are overdue at Now,
	// oldest first: an agenda shows them on top. A task due on a day of the
	// window stays on that day (with Task.Overdue set once its due has
	// passed), so each task is shown once.
	Overdue []Task
	// Cut is true when the window held more items than a view reads (see
	// [MaxItems]); the views say so rather than show a partial day as whole.
	Cut bool
}

// Day is one civil day of a [Window].
type Day struct {
	Date   tz.Date
	AllDay []Event // the all-day events covering this day, by start then title
	Timed  []Event // the timed occurrences overlapping this day, by start
	Tasks  []Task  // the tasks due this day (timed first, by due time; then all-day ones)
}

// Event is one occurrence of an event as list_events gives it.
type Event struct {
	ID       string // the occurrence id to quote, as list_events gives it (e7@20261005T070000Z)
	Series   string // the event id (e7)
	Title    string
	Location string
	AllDay   bool
	Start    time.Time // the instant it starts (timed), or midnight of its first day in Zone (all-day)
	End      time.Time // the instant it ends (exclusive), or midnight after its last day (all-day)
	// FirstDay and LastDay are the civil days it covers in the person's
	// zone (for an all-day event: its own days; LastDay inclusive).
	FirstDay, LastDay tz.Date
	EventZone         string // the event's own IANA zone when it differs from the person's, else ""
}

// ClockChanges reports whether z's offset at e's end differs from its
// offset at e's start: a clock change falls inside e, so its wall-clock
// times need the zone's abbreviations to be told apart (02:30 CEST to
// 02:00 CET).
func (e Event) ClockChanges(z tz.Zone) bool {
	_, a := e.Start.In(z.Location()).Zone()
	_, b := e.End.In(z.Location()).Zone()
	return a != b
}

// Task is one task as list_tasks gives it.
type Task struct {
	ID       string // t12
	Title    string
	Priority int // 1 urgent, 2 high, 3 medium, 4 none, as list_tasks says
	Done     bool
	// Due is the day it is due in the person's zone; DueTime is false for
	// a task due on a day (VALUE=DATE), true when it has a time (DueAt).
	Due     tz.Date
	DueTime bool
	DueAt   time.Time
	Overdue bool // open and past its due at Now: a due time before Now, or a due day before today
}

// MaxDays is the most days one window holds (a month view shows six
// weeks); asking for more is refused by [Load] with a sentence.
const MaxDays = 42

// MaxItems is the most events plus tasks a window reads; past it the
// window is Cut.
const MaxItems = 2000
