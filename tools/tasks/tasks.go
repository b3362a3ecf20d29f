// Package tasks holds the tools that keep a person's tasks: add_task,
// list_tasks, get_task, update_task, complete_task, reopen_task and
// delete_task.
//
// Every tool is made with [tools.Define]: a read step turns the arguments
// into a request, a run step applies the task operation of package task to
// what the store's task methods read, in at most one journaled
// store.Write (so each change can be undone with the undo tool), and
// renders the answer. The store filters every read by the person: another
// person's task reads exactly like one that does not exist.
//
// Time: a date-only due floats (it is due on that day wherever
// the person is, and "today" and "overdue" are worked out in the person's
// zone when asked); a timed due is pinned to the IANA zone it was written
// in. Repeating tasks carry an RFC 5545 RRULE expanded by package recur.
package tasks

import (
	"fmt"

	"github.com/assistant-dev/assistant/tools"
)

// Register adds the task tools to r, in the order a model most often needs
// them.
func Register(r *tools.Registry) {
	r.Add(AddTask())
	r.Add(ListTasks())
	r.Add(GetTask())
	r.Add(UpdateTask())
	r.Add(CompleteTask())
	r.Add(ReopenTask())
	r.Add(DeleteTask())
}

// Properties shared by add_task and update_task.
var (
	titleProp    = tools.Str("title", fmt.Sprintf("One line, at most %d characters.", MaxTitle)).Like("Call the plumber")
	notesProp    = tools.Str("notes", "Details, any number of lines.")
	dueProp      = tools.Str("due", "A day, 2026-10-05 (due that day in any zone), or a day and time, 2026-10-05T09:00.")
	priorityProp = tools.Int("priority", "1 urgent, 2 high, 3 medium, 4 none (default).").Range(1, 4)
	tagsProp     = tools.Strs("tags", fmt.Sprintf("One word each (home, errands), at most %d.", MaxTags))
	rruleProp    = tools.Str("rrule", "RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=MO; needs a due.")
	repeatProp   = tools.Str("repeat_from", "From the schedule (default) or the day of completion.").OneOf("schedule", "completion")
	remindAtProp = tools.Strs("remind_at", "Moments, such as [\"2026-10-05T08:00\"], in the due's zone.")
	idProp       = tools.Str("id", "Task id, such as t12.").Like("t12")
)

// AddTask is the add_task tool. Data: {"task": {…}, "change": "c31",
// "existing": false}; existing is true when an earlier task was returned
// (the same idempotency key, or the same title, due, priority, tags and
// rule within 10 minutes).
func AddTask() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "add_task",
		Title:       "Add a task",
		Description: "Adds a task; the answer gives its id (t12).",
		Schema: tools.Schema{Properties: []tools.Property{
			titleProp, notesProp, dueProp, priorityProp, tagsProp, rruleProp, repeatProp,
			tools.RemindBeforeProp, remindAtProp, tools.KeyProp, tools.AllowDuplicateProp,
		}, Required: []string{"title"}},
		Output: writtenOutput,
	}, readAdd, add)
}

// ListTasks is the list_tasks tool. Data: {"tasks": [{…}], "total": 40,
// "total_exact": true, "offset": 0, "next_cursor": "k…"}; total is
// counted up to [TotalCap] (total_exact false past it); next_cursor is
// opaque (the position and the key of the last task shown); each task is
// a [listRow]: what its line shows, without the notes, which get_task
// gives.
func ListTasks() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "list_tasks",
		Title:       "List tasks",
		Description: "Lists tasks: overdue first, then by due, undated last, then by priority.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("status", "Default open.").OneOf("open", "done", "all"),
			tools.Str("from", "Only tasks due from this on (none: overdue too)."),
			tools.Str("to", "Only tasks due up to this."),
			tools.Str("tag", "Only tasks with this tag."),
			tools.Str("query", "Text in the title or notes."),
			tools.LimitProp(DefaultLimit, MaxLimit),
			tools.CursorProp,
		}},
		ReadOnly: true, Idempotent: true,
		Output: listOutput,
	}, readList, list)
}

// GetTask is the get_task tool. Data: {"task": {…, "completions": [{…}],
// "completions_total": 3}}, the latest MaxHistory completions.
func GetTask() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "get_task",
		Title:       "Show a task",
		Description: "Shows a task whole, with its completions.",
		Schema:      tools.Schema{Properties: []tools.Property{idProp}, Required: []string{"id"}},
		ReadOnly:    true, Idempotent: true,
		Output: shownOutput,
	}, readTaskID, get)
}

// UpdateTask is the update_task tool. Data as add_task's.
func UpdateTask() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "update_task",
		Title:       "Change a task",
		Description: "Changes a task; a repeating one keeps its rule and goes on from a new due.",
		Schema: tools.Schema{Properties: []tools.Property{
			idProp, titleProp, notesProp, dueProp, priorityProp,
			tools.Strs("tags", "Replaces all tags."),
			tools.Strs("add_tags", "Tags to add."),
			tools.Strs("remove_tags", "Tags to remove."),
			rruleProp, repeatProp, tools.RemindBeforeProp, remindAtProp,
			tools.Strs("clear", "Fields to empty: notes, due, priority, tags, rrule, repeat_from, remind_before, remind_at."),
		}, Required: []string{"id"}},
		Idempotent: true,
		Output:     writtenOutput,
	}, readUpdate, update)
}

// CompleteTask is the complete_task tool. Data: {"task": {…}, "change":
// "c33", "next": "2026-10-12T09:00"}; next is empty when the task is done
// for good.
func CompleteTask() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "complete_task",
		Title:       "Complete a task",
		Description: "Marks a task done; a repeating one moves to its next due until its rule ends.",
		Schema:      tools.Schema{Properties: []tools.Property{idProp}, Required: []string{"id"}},
		Idempotent:  false,
		Output:      writtenOutput,
	}, readTaskID, complete)
}

// ReopenTask is the reopen_task tool. Data: {"task": {…}, "change": "c34"}.
func ReopenTask() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "reopen_task",
		Title:       "Reopen a task",
		Description: "Opens a done task again, taking back its last completion (a repeating task stays open: undo its completion).",
		Schema:      tools.Schema{Properties: []tools.Property{idProp}, Required: []string{"id"}},
		Idempotent:  true,
		Output:      writtenOutput,
	}, readTaskID, reopen)
}

// DeleteTask is the delete_task tool. Data: {"task": {…}, "change": "c35"}.
func DeleteTask() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "delete_task",
		Title:       "Delete a task",
		Description: "Deletes a task.",
		Schema:      tools.Schema{Properties: []tools.Property{idProp}, Required: []string{"id"}},
		Destructive: true, Idempotent: true,
		Output: writtenOutput,
	}, readTaskID, remove)
}

// missing is the sentence for an id that is not one of the person's live
// tasks, the same whether it never existed, was deleted or is someone
// else's.
func missing(id int64) string { return fmt.Sprintf("There is no task %s.", label(id)) }

// failed answers an error out of a Write or Read for task id.
func failed(id int64, err error) tools.ExecResult { return tools.FailItem(err, missing(id)) }

// written is the Data of a write.
type written struct {
	Task     taskData `json:"task"`
	Change   string   `json:"change,omitempty"`
	Existing bool     `json:"existing,omitempty"`
	Next     string   `json:"next,omitempty"`
	// Warnings are sentences the answer's text has too, such as a
	// reminder time already past.
	Warnings []string `json:"warnings,omitempty"`
}

// changeNote ends a write's answer with its change id, for undo.
func changeNote(change string) string {
	if change == "" {
		return ""
	}
	return " Change " + change + "."
}

// attach records what a write changed, for the host.
func attach(e *tools.Env, change string, id int64) { e.Changed(change, label(id)) }
