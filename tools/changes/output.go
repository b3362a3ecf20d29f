package changes

import "github.com/assistant-dev/assistant/tools"

// The Output schemas of the journal tools (MCP outputSchema).
var (
	undoOutput = tools.Schema{Properties: []tools.Property{
		tools.Str("change", "The id of this undo, itself a change (undo it to redo)."),
		tools.Str("undid", "The id of the change undone."),
		tools.Str("tool", "The tool that made the change undone."),
		tools.NestedList[rowData]("rows", "What the undo did to each item: id, action and, for a part of it, part."),
	}, Required: []string{"change", "undid"}}.Output()
	listOutput = tools.Schema{Properties: []tools.Property{
		tools.NestedList[changeData]("changes", "The changes, newest first."),
		tools.Str("more_before", "The “before” of the next page, if any."),
	}, Required: []string{"changes"}}.Output()
)
