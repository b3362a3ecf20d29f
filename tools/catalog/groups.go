package catalog

import (
	"slices"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/reminders"
	"github.com/assistant-dev/assistant/tools/tasks"
)

// Groups are the named sets of tools a front can offer instead of all of
// them (`assistant chat --tools`, `assistant mcp --tools`), besides "all"
// and "read-only", which every registry knows ([tools.Registry.Select]):
//
//   - tasks: the tools of package tasks, current_time (the day to write a
//     due against), snooze (package reminders: tasks remind too) and the
//     journal (list_changes, undo), so a change can be seen and put back;
//   - calendar: the tools of package events, which hold the event tools
//     and the time tools (current_time, set_time_zone), snooze, and the
//     journal.
//
// Each group follows its packages, so a tool added to one lands in its
// group; docs/tools.md shows the table ("Tool groups").
func Groups() []tools.Group {
	journal := names(changes.Register)
	snooze := names(reminders.Register)
	return []tools.Group{
		{Name: "tasks", Summary: "the task tools, current_time, snooze, and the journal to see and undo changes",
			Tools: slices.Concat(names(tasks.Register), []string{"current_time"}, snooze, journal)},
		{Name: "calendar", Summary: "the event tools, the time tools, snooze, and the journal to see and undo changes",
			Tools: slices.Concat(names(events.Register), snooze, journal)},
	}
}

// Select returns the tools of reg that names choose: "all", "read-only",
// a group of [Groups], or tool names, with readOnly keeping only the
// tools that change nothing; see [tools.Registry.Select], whose one
// sentence is the error. Every front limits its tools through it.
func Select(reg *tools.Registry, names []string, readOnly bool) (*tools.Registry, error) {
	return reg.Select(names, readOnly, Groups()...)
}

// names lists the tools register adds, in its order.
func names(register func(*tools.Registry)) []string {
	r := tools.NewRegistry()
	register(r)
	return r.Names()
}
