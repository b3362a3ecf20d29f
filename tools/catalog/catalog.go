// Package catalog assembles every tool of assistant into one Registry, in
// the order models see them: tasks, events and time, snooze, then the
// journal.
// Every front (chat, MCP, the shell's call) serves what New returns.
package catalog

import (
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/reminders"
	"github.com/assistant-dev/assistant/tools/tasks"
)

// New returns a Registry with every tool registered.
func New() *tools.Registry {
	r := tools.NewRegistry()
	for _, register := range registrars {
		register(r)
	}
	return r
}

// registrars lists each tool package's Register in the order models see
// the tools.
var registrars = []func(*tools.Registry){
	tasks.Register,
	events.Register,
	reminders.Register,
	changes.Register,
}
