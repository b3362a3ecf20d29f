package tasks

import (
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools"
)

// shown is get_task's Data: the task whole, with its latest completions.
type shown struct {
	Task taskData `json:"task"`
}

// The Output schemas of the task tools (MCP outputSchema): derived from the
// types their Data is marshalled from where there is one.
var (
	writtenOutput = tools.OutputOf[written]()
	shownOutput   = tools.OutputOf[shown]()
	listOutput    = tools.Schema{Properties: []tools.Property{
		tools.NestedList[listRow]("tasks", "The tasks of this page, in the order of the text.").WithDefault("status", task.Open),
		tools.Int("total", "How many tasks match, counted up to 1000, on every page."),
		tools.Bool("total_exact", "False when more than total match."),
		tools.Int("offset", "How many matching tasks come before this page."),
		tools.Str("next_cursor", "The cursor of the next page; empty on the last."),
	}, Required: []string{"tasks", "total"}}.Output()
)
