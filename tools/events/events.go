// Package events holds the calendar tools: add_event, list_events,
// get_event, update_event, delete_event, find_free_time, current_time and
// set_time_zone.
//
// An event keeps its DTSTART as a civil time in its own IANA zone (TZID)
// and repeats there by RFC 5545 RRULE, EXDATE and RDATE, expanded by
// package recur; answers show it in the person's zone. One changed or
// cancelled occurrence is an override keyed by its RECURRENCE-ID, and
// occurrence ids quote it: e7@20261005T070000Z (all-day e7@20261005).
// Every write is one journaled store.Write, so undo puts it back, a split
// of a series included.
package events

import (
	"fmt"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/tools"
)

// Register adds the event tools to r.
func Register(r *tools.Registry) {
	r.Add(AddEvent())
	r.Add(ListEvents())
	r.Add(GetEvent())
	r.Add(UpdateEvent())
	r.Add(DeleteEvent())
	r.Add(FindFreeTime())
	r.Add(CurrentTime())
	r.Add(SetTimeZone())
}

// The properties add_event and update_event share.
var (
	titleProp    = tools.Str("title", fmt.Sprintf("Short title of the event, one line, at most %d characters.", item.MaxTitle))
	startProp    = tools.Str("start", "When it starts: a day and time (2026-10-05T09:00) in time_zone, or a day alone (2026-10-05) for an all-day event. A zone may be written in brackets (2026-10-05T09:00[America/New_York]) or as an offset.")
	endProp      = tools.Str("end", "When it ends: a day and time for a timed event; the last day, inclusive, for an all-day one (2026-10-07 for 5 to 7 October). Leave out to use duration.")
	durationProp = tools.Int("duration", "Length in minutes for a timed event (default 60). Give end or duration, not both.").Range(1, maxDurationMinutes)
	zoneProp     = tools.Str("time_zone", "IANA zone the event lives in, such as America/New_York; plain times of this call are read in it, and the event keeps its clock time there across DST changes.")
	locationProp = tools.Str("location", fmt.Sprintf("Where it takes place, one line, at most %d characters.", item.MaxLocation))
	notesProp    = tools.Str("notes", fmt.Sprintf("Free text notes; line breaks are kept. At most %d characters.", item.MaxNotes))
	rruleProp    = tools.Str("rrule", "RFC 5545 recurrence rule, such as FREQ=WEEKLY;BYDAY=MO,WE or FREQ=MONTHLY;BYDAY=-1FR;COUNT=6 (the RRULE: prefix is optional).")
	exdatesProp  = tools.Strs("exdates", "Occurrences to leave out of a repeating event, as their start times (2026-10-12T09:00), or days for an all-day one.")
	rdatesProp   = tools.Strs("rdates", "Extra occurrences of the event, as start times (2026-10-15T09:00), or days for an all-day one.")
)

// AddEvent is the add_event tool. Data: {"event": {...get_event's series
// data}, "added": true, "change": "c31", "warnings": [...]}; added is false
// when a repeated key or the duplicate window returned an existing event.
func AddEvent() tools.Tool {
	return tools.Define(tools.Tool{
		Name:  "add_event",
		Title: "Add an event",
		Description: "Adds a calendar event, once or repeating (rrule). Give start with a time for a timed event or a day alone for an all-day one. " +
			"Times without a zone are read in time_zone, or the person's zone. The answer gives the event id (e7) and its next occurrence ids, " +
			"and warns when it overlaps other events. A repeat of the same call (same title, start, end, place and rule) within 10 minutes returns the first event unless allow_duplicate is set; " +
			"one that differs only in those other fields is added, with a warning naming the first.",
		Schema: tools.Schema{Properties: []tools.Property{
			titleProp, startProp, endProp, durationProp, zoneProp, locationProp, notesProp, rruleProp, exdatesProp, rdatesProp,
			tools.RemindBeforeProp, tools.RemindAtProp, tools.KeyProp, tools.AllowDuplicateProp,
		}, Required: []string{"title", "start"}},
		Output: addOutput,
	}, readAdd, addEvent)
}

// ListEvents is the list_events tool. Data: {"events": [{"id":
// "e7@20261005T070000Z", "series": "e7", "title", "start", "end",
// "time_zone", "all_day", "location", "notes", "changed"}], "total",
// "next_cursor", "time_zone", "from", "to", "searched_to"}: start and end
// in RFC 3339 with the offset of the event's time_zone, or days (end
// inclusive) for all-day ones. total is left out when it is not known
// (more than a thousand after the page, or a window longer than one page
// looks at); searched_to is where a page of such a window stopped.
func ListEvents() tools.Tool {
	return tools.Define(tools.Tool{
		Name:  "list_events",
		Title: "List events",
		Description: "Lists every occurrence of the person's events that overlaps a window (default: today and the next 6 days), in time order, " +
			"shown in the person's zone with weekday and UTC offset, and in the event's own zone when it differs. " +
			"Each line starts with the occurrence id (e7@20261005T070000Z) to quote in get_event, update_event or delete_event. " +
			"One answer looks at most 366 days past where it starts; a longer window goes on through next_cursor.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.FromProp, tools.ToProp,
			tools.Str("query", "Only occurrences whose title, location or notes contain this text (any case)."),
			tools.LimitProp(listDefault, listMax), cursorProp,
		}},
		ReadOnly: true, Idempotent: true,
		Output: listOutput,
	}, readList, listEvents)
}

// GetEvent is the get_event tool. Data for a series: {"event": {"id",
// "uid", "title", "location", "notes", "all_day", "start", "end",
// "time_zone", "rrule", "repeats", "exdates", "rdates", "remind_before",
// "remind_at", "next": [occurrences], "exceptions": [{"id", "changed",
// "start", "end"}]}}; for an occurrence: {"occurrence": {...}, "series":
// "e7", "original_start"}.
func GetEvent() tools.Tool {
	return tools.Define(tools.Tool{
		Name:  "get_event",
		Title: "Show an event",
		Description: "Shows one event whole: for a series id (e7) its time, rule in words and as RRULE, next occurrences, deleted and changed occurrences, " +
			"reminders and notes; for an occurrence id (e7@20261005T070000Z) that occurrence.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("id", "An event id (e7) or an occurrence id (e7@20261005T070000Z), as list_events shows them."),
		}, Required: []string{"id"}},
		ReadOnly: true, Idempotent: true,
		Output: getOutput,
	}, readGetEvent, getEvent)
}

var scopeProp = tools.Str("scope", "Which occurrences: this (only the one the id names; default for an occurrence id), following (it and every later one), "+
	"or all (the whole series; default for a series id).").OneOf(scopeThis, scopeFollowing, scopeAll)

// UpdateEvent is the update_event tool. Data: {"change": "c31", "event":
// get_event's data for what was changed, "notes": [...]}.
func UpdateEvent() tools.Tool {
	return tools.Tool{
		Name:  "update_event",
		Title: "Change an event",
		Description: "Changes an event, one occurrence of it, or it from one occurrence on (scope). Give only the fields to change; clear names fields to empty. " +
			"Plain times are read in the event's own zone unless time_zone is given. With scope all, a new start for an occurrence id moves every occurrence by the same shift; a move to another day takes the rule's weekdays along (BYDAY=TU becomes WE), and a rule whose days cannot follow (BYMONTHDAY, 1TU…) needs the new rrule in the same call. " +
			"Following splits the series: the rest becomes a new event. Undo with the change id of the answer.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("id", "The event (e7) or occurrence (e7@20261005T070000Z) to change, as list_events shows them."),
			scopeProp,
			titleProp, startProp, endProp, durationProp, zoneProp, locationProp, notesProp, rruleProp,
			tools.Strs("exdates", "Replaces the list of left-out occurrences of the series (to drop one occurrence, use delete_event with its id)."),
			tools.Strs("rdates", "Replaces the list of extra occurrences of the series."),
			tools.RemindBeforeProp, tools.RemindAtProp,
			tools.Strs("clear", "Fields to empty: location, notes, rrule, exdates, rdates, remind_before, remind_at."),
		}, Required: []string{"id"}},
		Destructive: true,
		Output:      updateOutput,
		Handler:     updateEvent,
	}
}

// DeleteEvent is the delete_event tool. Data: {"change": "c31", "deleted":
// the id, "scope": the scope applied}.
func DeleteEvent() tools.Tool {
	return tools.Define(tools.Tool{
		Name:  "delete_event",
		Title: "Delete an event",
		Description: "Deletes one occurrence (scope this, the default for an occurrence id), an occurrence and every later one (following), " +
			"or the whole event (all, the default for a series id). Undo with the change id of the answer.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("id", "The event (e7) or occurrence (e7@20261005T070000Z) to delete, as list_events shows them."),
			scopeProp,
		}, Required: []string{"id"}},
		Destructive: true,
		Output:      deleteOutput,
	}, readScoped, deleteEvent)
}

// FindFreeTime is the find_free_time tool. Data: {"free": [{"start",
// "end", "minutes"}], "total", "time_zone", "tasks_counted"}, times in RFC
// 3339 in the person's zone.
func FindFreeTime() tools.Tool {
	return tools.Define(tools.Tool{
		Name:  "find_free_time",
		Title: "Find free time",
		Description: "Finds free slots of at least duration minutes within working hours (day_start to day_end, person's zone) between from and to. " +
			"Timed events are busy, all-day events are not; with tasks, open tasks with a due time are busy for the 30 minutes before they are due. " +
			"Slots start no earlier than now. One call searches at most 92 days from the later of from and now; past that it stops and says where.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.FromProp, tools.ToProp,
			tools.Int("duration", "Minutes needed, 5 to 1440 (default 30).").Range(5, 24*60),
			tools.Str("day_start", "Start of the working day, HH:MM in the person's zone (default 09:00)."),
			tools.Str("day_end", "End of the working day, HH:MM in the person's zone (default 18:00)."),
			tools.Bool("weekends", "Include Saturdays and Sundays (default false)."),
			tools.Bool("tasks", "Count open tasks with a due time as busy for the 30 minutes before they are due (default false)."),
		}},
		ReadOnly: true, Idempotent: true,
		Output: freeOutput,
	}, readFree, findFreeTime)
}

// CurrentTime is the current_time tool. Data: {"now": RFC 3339, "date",
// "time", "weekday", "time_zone", "offset"}.
func CurrentTime() tools.Tool {
	return tools.Tool{
		Name:        "current_time",
		Title:       "Current time",
		Description: "Gives the person's current date, weekday, time, time zone and UTC offset.",
		Schema:      tools.Schema{},
		ReadOnly:    true, Idempotent: true,
		Output:  nowOutput,
		Handler: currentTime,
	}
}

// SetTimeZone is the set_time_zone tool: it stores the person's new IANA
// zone as one journaled change (store.Tx.SetZone), which undo puts back.
// Data as current_time's, in the new zone, plus "change" ("c31") and
// "was" (the zone before) when the zone changed.
func SetTimeZone() tools.Tool {
	return tools.Define(tools.Tool{
		Name:  "set_time_zone",
		Title: "Set the time zone",
		Description: "Changes the person's time zone, for example when they travel (“I'm in Tokyo this week”). " +
			"Events keep their own zones; answers show them in the new zone from now on.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("time_zone", "IANA zone name, such as Asia/Tokyo or America/New_York."),
		}, Required: []string{"time_zone"}},
		Idempotent: true,
		Output:     zoneOutput,
	}, readZone, setTimeZone)
}
