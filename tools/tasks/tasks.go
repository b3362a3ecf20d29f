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
	titleProp = tools.Str("title", fmt.Sprintf("What to do, one line, at most %d characters.", MaxTitle))
	notesProp = tools.Str("notes", fmt.Sprintf("Details, kept as written (several lines are fine), at most %d characters.", MaxNotes))
	dueProp   = tools.Str("due", "When it is due: a day (2026-10-05), due that day wherever the person is, "+
		"or a day and time (2026-10-05T09:00) in the person's zone; add a zone in brackets for another one (2026-10-05T09:00[America/New_York]).")
	priorityProp = tools.Int("priority", "1 urgent, 2 high, 3 medium, 4 none (default).").Range(1, 4)
	tagsProp     = tools.Strs("tags", fmt.Sprintf("Tags, one word each (home, errands), at most %d, each at most %d characters.", MaxTags, MaxTag))
	rruleProp    = tools.Str("rrule", "Makes the task repeat: an RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=MO or FREQ=MONTHLY;BYMONTHDAY=-1. Needs a “due”, the first time.")
	repeatProp   = tools.Str("repeat_from", "How a repeating task moves on when done: schedule (default; the next date of the rule) or completion "+
		"(the rule's interval after the day it was done, for “every 3 days after I do it”: FREQ=DAILY;INTERVAL=3).").OneOf("schedule", "completion")
	remindAtProp = tools.Strs("remind_at", "Reminders at fixed moments, such as [\"2026-10-05T08:00\"], in the person's zone (in the due's zone when the due names another).")
	idProp       = tools.Str("id", "The task id as answers show it, such as t12.")
)

// AddTask is the add_task tool. Data: {"task": {…}, "change": "c31",
// "existing": false}; existing is true when an earlier task was returned
// (the same idempotency key, or the same title, due, priority, tags and
// rule within 10 minutes).
func AddTask() tools.Tool {
	return tools.Define(tools.Tool{
		Name:  "add_task",
		Title: "Add a task",
		Description: "Adds a task for the person. Give a “due” day, or day and time, when it has one. " +
			"Calling again with the same title, due, priority, tags and rule within 10 minutes returns the first task instead of a copy (set “allow_duplicate” to add another); " +
			"a task with the same title and due but other fields is added, with a warning naming the first. " +
			"The answer gives the task's id (t12) to quote later.",
		Schema: tools.Schema{Properties: []tools.Property{
			titleProp, notesProp, dueProp, priorityProp, tagsProp, rruleProp, repeatProp,
			tools.RemindBeforeProp, remindAtProp, tools.KeyProp, tools.AllowDuplicateProp,
		}, Required: []string{"title"}},
		Output: writtenOutput,
	}, readAdd, add)
}

// ListTasks is the list_tasks tool. Data: {"tasks": [{…}], "total": 40,
// "offset": 0, "next_cursor": "o25"}; each task's notes are their preview
// (item.Preview) with "notes_cut" set when get_task has more.
func ListTasks() tools.Tool {
	return tools.Define(tools.Tool{
		Name:  "list_tasks",
		Title: "List tasks",
		Description: "Lists the person's tasks, overdue first, then by due day, tasks with no due last, then by priority; " +
			"each line says how the task stands against today (overdue 2 days, today 17:00, tomorrow). " +
			"Without “from” and “to” every task of the status is listed. The answer gives the total and a cursor for the next page.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("status", "open (default), done, or all.").OneOf("open", "done", "all"),
			tools.Str("from", "Only tasks due at or after this: a day (2026-10-05) or a day and time in the person's zone. Leave out for no lower bound (overdue tasks included)."),
			tools.Str("to", "Only tasks due up to this: a day (2026-10-11: that whole day is included) or a day and time (2026-10-11T18:00: up to that moment, which is not included). Leave out for no upper bound."),
			tools.Str("tag", "Only tasks with this tag."),
			tools.Str("query", "Only tasks whose title or notes contain this text (any case)."),
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
		Description: "Shows one task whole: notes, due, repeat rule, reminders, and when it was done.",
		Schema:      tools.Schema{Properties: []tools.Property{idProp}, Required: []string{"id"}},
		ReadOnly:    true, Idempotent: true,
		Output: shownOutput,
	}, readTaskID, get)
}

// UpdateTask is the update_task tool. Data as add_task's.
func UpdateTask() tools.Tool {
	return tools.Define(tools.Tool{
		Name:  "update_task",
		Title: "Change a task",
		Description: "Changes the fields given and leaves the others as they are (an absent or empty argument changes nothing; " +
			"use “clear” to empty a field). Moving the “due” of a repeating task keeps its rule: the series continues from the new due.",
		Schema: tools.Schema{Properties: []tools.Property{
			idProp, titleProp, notesProp, dueProp, priorityProp,
			tools.Strs("tags", "Replaces all the tags."),
			tools.Strs("add_tags", "Tags to add to those the task has."),
			tools.Strs("remove_tags", "Tags to take off."),
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
		Name:  "complete_task",
		Title: "Complete a task",
		Description: "Marks a task done. A repeating task records this occurrence as done and moves to its next due " +
			"(the answer says when); it is done for good only when its rule runs out.",
		Schema:     tools.Schema{Properties: []tools.Property{idProp}, Required: []string{"id"}},
		Idempotent: false,
		Output:     writtenOutput,
	}, readTaskID, complete)
}

// ReopenTask is the reopen_task tool. Data: {"task": {…}, "change": "c34"}.
func ReopenTask() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "reopen_task",
		Title:       "Reopen a task",
		Description: "Opens a done task again and takes back its last completion.",
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
		Description: "Deletes a task. It can be brought back with undo.",
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
