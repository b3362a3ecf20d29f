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
	titleProp    = tools.Str("title", fmt.Sprintf("One line, at most %d characters.", item.MaxTitle)).Like("Team meeting")
	startProp    = tools.Str("start", "A day and time, 2026-10-05T09:00, or a day alone for all-day.").Like("2026-10-05T09:00")
	endProp      = tools.Str("end", "For all-day, the last day (included); or give duration.")
	durationProp = tools.Int("duration", "Minutes, default 60; or give end.").Range(1, maxDurationMinutes)
	zoneProp     = tools.Str("time_zone", "IANA zone of the event, such as America/New_York; the call's plain times are in it.")
	locationProp = tools.Str("location", "Place, one line.")
	notesProp    = tools.Str("notes", "Details, any number of lines.")
	rruleProp    = tools.Str("rrule", "RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=MO,WE.")
	exdatesProp  = tools.Strs("exdates", "Starts of occurrences to leave out.")
	rdatesProp   = tools.Strs("rdates", "Starts of extra occurrences.")
)

// AddEvent is the add_event tool. Data: {"event": {...get_event's series
// data}, "added": true, "change": "c31", "warnings": [...]}; added is false
// when a repeated key or the duplicate window returned an existing event.
func AddEvent() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "add_event",
		Title:       "Add an event",
		Description: "Adds an event, once or repeating; the answer gives its id (e7).",
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
		Name:        "list_events",
		Title:       "List events",
		Description: "Lists occurrences of events in a window, in time order, with their ids; one answer spans at most 366 days, next_cursor goes on.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.FromProp, tools.ToProp,
			tools.Str("query", "Text in the title, location or notes."),
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
		Name:        "get_event",
		Title:       "Show an event",
		Description: "Shows an event whole, with its next and changed occurrences, or one occurrence.",
		Schema: tools.Schema{Properties: []tools.Property{
			idProp,
		}, Required: []string{"id"}},
		ReadOnly: true, Idempotent: true,
		Output: getOutput,
	}, readGetEvent, getEvent)
}

var (
	idProp    = tools.Str("id", "e7, or e7@20261005T070000Z for one occurrence.").Like("e7")
	scopeProp = tools.Str("scope", "Default this for an occurrence id, all for a series id.").OneOf(scopeThis, scopeFollowing, scopeAll)
)

// UpdateEvent is the update_event tool. Data: {"change": "c31", "event":
// get_event's data for what was changed, "notes": [...]}.
func UpdateEvent() tools.Tool {
	return tools.Tool{
		Name:        "update_event",
		Title:       "Change an event",
		Description: "Changes an event. With scope all, an occurrence's new start shifts every occurrence alike, BYDAY weekdays following; a rule by month day or 1TU needs its new rrule in the same call.",
		Schema: tools.Schema{Properties: []tools.Property{
			idProp,
			scopeProp,
			titleProp, startProp, endProp, durationProp, zoneProp, locationProp, notesProp, rruleProp,
			tools.Strs("exdates", "Replaces the left-out starts (delete_event drops one occurrence)."),
			tools.Strs("rdates", "Replaces the extra starts."),
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
		Name:        "delete_event",
		Title:       "Delete an event",
		Description: "Deletes an event, one occurrence, or the occurrences from one on (scope).",
		Schema: tools.Schema{Properties: []tools.Property{
			idProp,
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
		Name:        "find_free_time",
		Title:       "Find free time",
		Description: "Finds free slots of at least duration minutes in working hours, from now on. Timed events are busy, all-day ones not. Searches at most 92 days.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.FromProp, tools.ToProp,
			tools.Int("duration", "Minutes needed, default 30.").Range(5, 24*60),
			tools.Str("day_start", "Working day start, HH:MM, default 09:00."),
			tools.Str("day_end", "Working day end, HH:MM, default 18:00."),
			tools.Bool("weekends", "Include Saturdays and Sundays."),
			tools.Bool("tasks", "Open tasks with a due time are busy for 30 minutes before it."),
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
		Description: "Gives the person's date, weekday, time, zone and UTC offset now.",
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
		Name:        "set_time_zone",
		Title:       "Set the time zone",
		Description: "Sets the person's time zone, as when they travel. Events keep their own zones.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("time_zone", "IANA zone, such as Asia/Tokyo.").Like("Asia/Tokyo"),
		}, Required: []string{"time_zone"}},
		Idempotent: true,
		Output:     zoneOutput,
	}, readZone, setTimeZone)
}
