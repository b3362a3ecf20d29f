package tasks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/fields"
)

// clearable are the fields “clear” may name; title cannot be emptied.
var clearable = []string{"notes", "due", "priority", "tags", "rrule", "repeat_from", "remind_before", "remind_at"}

// readClear reads “clear”: field names, any case, each one of clearable.
func readClear(a *args.Args) map[string]bool {
	out := map[string]bool{}
	for _, raw := range a.List("clear") {
		name := strings.ToLower(raw)
		switch {
		case name == "title":
			a.Fail("clear", "“clear” cannot empty “title”: every task needs one. Give a new “title” instead.")
			return nil
		case !slices.Contains(clearable, name):
			a.Fail("clear", fmt.Sprintf("“clear” names fields to empty, from: %s; not %s.", strings.Join(clearable, ", "), args.Quote(raw)))
			return nil
		}
		out[name] = true
	}
	return out
}

func update(ctx context.Context, tc *tools.ToolContext, a *args.Args) tools.ExecResult {
	e, err := host(tc)
	if err != nil {
		return tools.Internal(err)
	}
	id := readID(a)
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}
	var before, after task.Task
	var past []time.Time // reminder times already past, recorded as skipped
	change, err := e.s.Write(ctx, e.person.ID, "update_task", func(tx *store.Tx) error {
		var err error
		if before, err = tx.Task(id); err != nil {
			return err
		}
		after = before
		after.Tags = slices.Clone(before.Tags)
		if !applyUpdate(a, &after, e) {
			return errArgs
		}
		set, err := tx.SaveTask(before, after)
		if err != nil || len(set) == 0 {
			return err
		}
		tx.Summarize(fmt.Sprintf("changed %s “%s”: %s", label(id), after.Title, strings.Join(set, ", ")))
		if !timingChanged(set) {
			return nil
		}
		past, err = fields.SkipPast(tx, label(id), e.zone, e.now)
		return err
	})
	if errors.Is(err, errArgs) {
		return tools.Invalid(a.Err())
	}
	if err != nil {
		return failed(id, err)
	}
	if change == "" {
		return tools.SuccessWithData(fmt.Sprintf("Nothing changed: %s already is as asked.", label(id)),
			written{Task: e.v.data(after)})
	}
	after.UpdatedAt = e.now
	attach(tc, change, id)
	out := "Changed " + e.v.summary(after) + "." + e.v.movedNote(after.Due)
	if a.Has("due") || a.Has("rrule") {
		out += e.v.ruleNote(after)
	}
	warn := pastWarning(past, e)
	out += warnText(warn) + changeNote(change)
	return tools.SuccessWithData(out, written{Task: e.v.data(after), Change: change, Warnings: warn})
}

// applyUpdate reads every field argument of update_task onto t; false when
// an argument failed (a.Err says which).
func applyUpdate(a *args.Args, t *task.Task, e env) bool {
	given := len(a.Names()) > 1 // more than “id”
	title, hasTitle := readTitle(a, false)
	notes, hasNotes := readNotes(a)
	d, hasDue := readDue(a, e.zone)
	prio, hasPrio := readPriority(a)
	tags := readTags(a, "tags")
	addTags := readTags(a, "add_tags")
	removeTags := readTags(a, "remove_tags")
	rule, hasRule := readRule(a)
	rf, hasRF := readRepeatFrom(a)
	remZone := e.zone
	if hasDue && d.HasTime {
		remZone = d.Zone
	} else if !hasDue && t.HasDue && t.Due.HasTime {
		remZone = t.Due.Zone
	}
	rem, hasBefore, hasAt := readReminders(a, remZone)
	clear := readClear(a)
	if a.Err() != nil {
		return false
	}
	if !given {
		a.Fail("id", fmt.Sprintf("Nothing to change in %s: give a field to change besides “id” (title, notes, due, priority, tags, add_tags, remove_tags, rrule, repeat_from, remind_before, remind_at), or name fields in “clear”.", label(t.ID)))
		return false
	}
	for _, both := range []struct {
		name string
		set  bool
	}{{"notes", hasNotes}, {"due", hasDue}, {"priority", hasPrio}, {"tags", len(tags) > 0},
		{"rrule", hasRule}, {"repeat_from", hasRF}, {"remind_before", hasBefore}, {"remind_at", hasAt}} {
		if both.set && clear[both.name] {
			a.Fail("clear", fmt.Sprintf("“clear” names “%s”, which this call also sets; either set it or clear it.", both.name))
			return false
		}
	}

	if hasTitle {
		t.Title = title
	}
	if hasNotes {
		t.Notes = notes
	} else if clear["notes"] {
		t.Notes = ""
	}
	if hasDue {
		if t.HasDue && !hasAt && !clear["remind_at"] {
			t.Reminders.At = task.ShiftAt(t.Reminders.At, t.Due, d)
		}
		t.Due, t.HasDue = d, true
	} else if clear["due"] {
		t.Due, t.HasDue = task.Due{}, false
	}
	if hasPrio {
		t.Priority = prio
	} else if clear["priority"] {
		t.Priority = 4
	}
	if len(tags) > 0 {
		t.Tags = tags
	} else if clear["tags"] {
		t.Tags = nil
	}
	for _, tag := range addTags {
		t.Tags = task.AddTag(t.Tags, tag)
	}
	for _, tag := range removeTags {
		t.Tags = task.RemoveTag(t.Tags, tag)
	}
	switch {
	case len(addTags) > 0:
		checkTagCount(a, "add_tags", t.Tags)
	case len(tags) > 0:
		checkTagCount(a, "tags", t.Tags)
	}
	if hasRule {
		if t.Rule == nil {
			t.RepeatFrom = task.Schedule
		}
		t.Rule = rule
	} else if clear["rrule"] {
		t.Rule, t.RepeatFrom = nil, ""
	}
	if hasRF {
		if t.Rule == nil && a.Err() == nil {
			a.Fail("repeat_from", fmt.Sprintf("“repeat_from” says how a repeating task moves on, and %s does not repeat; give an “rrule” too, or leave “repeat_from” out.", label(t.ID)))
		}
		t.RepeatFrom = rf
	} else if clear["repeat_from"] && t.Rule != nil {
		t.RepeatFrom = task.Schedule
	}
	if hasBefore {
		t.Reminders.Before = rem.Before
	} else if clear["remind_before"] {
		t.Reminders.Before = nil
	}
	if hasAt {
		t.Reminders.At = rem.At
		t.RemindZone = remZone.Name()
	} else if clear["remind_at"] {
		t.Reminders.At = nil
	}
	if a.Err() == nil && clear["due"] && t.Rule != nil {
		a.Fail("clear", fmt.Sprintf("“clear” cannot empty the “due” of %s while it repeats (%s); clear “rrule” too, or give a new “due”.", label(t.ID), t.Rule.Describe()))
	}
	if hasRule || hasDue || hasRF {
		checkRepeat(a, t.Rule, t.RepeatFrom, t.Due, t.HasDue, e.zone)
	}
	return a.Err() == nil
}

// timingChanged reports whether a change of these fields (as
// store.Tx.SaveTask names them) can set reminders at other times: the
// reminders themselves, the due or the rule.
func timingChanged(set []string) bool {
	for _, c := range []string{"remind_before", "remind_at", "remind_zone", "due", "rrule", "repeat_from"} {
		if slices.Contains(set, c) {
			return true
		}
	}
	return false
}

// pastWarning is the warning of reminder times already past when they
// were set (recorded as skipped, so they never fire), or nil.
func pastWarning(past []time.Time, e env) []string {
	if s := item.PastReminders(past, e.zone); s != "" {
		return []string{s}
	}
	return nil
}

// warnText is the warnings as sentences of an answer: " Warning: …".
func warnText(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(" Warning: " + w)
	}
	return b.String()
}
