package tasks

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/alarm"
	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
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

// updateIn is what update_task was asked for, read before the task is:
// the id and every field argument. a stays for what only the stored task
// can judge (a tag count, a rule against its due, “remind_at” when the
// task's timed due is in another zone than the person's); failures are
// kept on it, as the read step's are, and answered the same way.
type updateIn struct {
	id int64
	u  updateArgs
	a  *args.Args
}

// updateArgs are the field arguments of update_task as read.
type updateArgs struct {
	given                                               bool
	title, notes                                        string
	hasTitle, hasNotes, hasDue, hasPrio, hasRule, hasRF bool
	due                                                 task.Due
	prio                                                int
	tags, addTags, removeTags                           []string
	rule                                                *recur.Rule
	rf                                                  string
	remZone                                             tz.Zone
	rem                                                 item.Reminders
	hasBefore, hasAt                                    bool
	clear                                               map[string]bool
}

// readUpdate is update_task's read step.
func readUpdate(a *args.Args, e *tools.Env) updateIn {
	id := readID(a)
	if a.Err() != nil {
		return updateIn{}
	}
	var u updateArgs
	u.given = len(a.Names()) > 1 // more than “id”
	u.title, u.hasTitle = readTitle(a, false)
	u.notes, u.hasNotes = readNotes(a)
	u.due, u.hasDue = readDue(a, e.Zone)
	u.prio, u.hasPrio = readPriority(a)
	u.tags = readTags(a, "tags")
	u.addTags = readTags(a, "add_tags")
	u.removeTags = readTags(a, "remove_tags")
	u.rule, u.hasRule = readRule(a)
	u.rf, u.hasRF = readRepeatFrom(a)
	// remind_at is read in the due's zone: the one given, else (once the
	// task is read) its stored one, else the person's.
	u.remZone = e.Zone
	if u.hasDue && u.due.HasTime {
		u.remZone = u.due.Zone
	}
	u.rem, u.hasBefore, u.hasAt = readReminders(a, u.remZone)
	u.clear = readClear(a)
	if a.Err() != nil {
		return updateIn{}
	}
	if !u.given {
		a.Fail("id", fmt.Sprintf("Nothing to change in %s: give a field to change besides “id” (title, notes, due, priority, tags, add_tags, remove_tags, rrule, repeat_from, remind_before, remind_at), or name fields in “clear”.", label(id)))
		return updateIn{}
	}
	for _, both := range []struct {
		name string
		set  bool
	}{{"notes", u.hasNotes}, {"due", u.hasDue}, {"priority", u.hasPrio}, {"tags", len(u.tags) > 0},
		{"rrule", u.hasRule}, {"repeat_from", u.hasRF}, {"remind_before", u.hasBefore}, {"remind_at", u.hasAt}} {
		if both.set && u.clear[both.name] {
			a.Fail("clear", fmt.Sprintf("“clear” names “%s”, which this call also sets; either set it or clear it.", both.name))
			return updateIn{}
		}
	}
	return updateIn{id: id, u: u, a: a}
}

func update(e *tools.Env, in updateIn) tools.ExecResult {
	v := newView(e.Zone, e.Now)
	id := in.id
	var before, after task.Task
	var past []time.Time // reminder times already past, recorded as skipped
	change, err := e.Write(func(tx *store.Tx) error {
		var err error
		if before, err = tx.Task(id); err != nil {
			return err
		}
		after = before
		after.Tags = slices.Clone(before.Tags)
		if !applyUpdate(in.a, in.u, &after, e) {
			return in.a.Err()
		}
		set, err := tx.SaveTask(before, after)
		if err != nil || len(set) == 0 {
			return err
		}
		tx.Summarize(fmt.Sprintf("changed %s “%s”: %s", label(id), after.Title, strings.Join(set, ", ")))
		if !timingChanged(set) {
			return nil
		}
		past, err = alarm.SkipPast(tx, label(id), e.Zone, e.Now)
		return err
	})
	if err != nil {
		return failed(id, err)
	}
	if change == "" {
		return tools.SuccessWithData(fmt.Sprintf("Nothing changed: %s already is as asked.", label(id)),
			written{Task: v.data(after)})
	}
	after.UpdatedAt = e.Now
	attach(e, change, id)
	out := "Changed " + v.summary(after) + "." + v.movedNote(after.Due)
	if in.u.hasDue || in.u.hasRule {
		out += v.ruleNote(after)
	}
	warn := pastWarning(past, e)
	out += warnText(warn) + changeNote(change)
	return tools.SuccessWithData(out, written{Task: v.data(after), Change: change, Warnings: warn})
}

// applyUpdate applies the field arguments u of update_task to the stored
// task t; false when one of them fails against it (a.Err says which).
func applyUpdate(a *args.Args, u updateArgs, t *task.Task, e *tools.Env) bool {
	if !u.hasDue && t.HasDue && t.Due.HasTime && u.remZone.Name() != t.Due.Zone.Name() && a.Has("remind_at") {
		u.remZone = t.Due.Zone
		u.rem, u.hasBefore, u.hasAt = readReminders(a, u.remZone)
		if a.Err() != nil {
			return false
		}
	}
	title, hasTitle, notes, hasNotes, d, hasDue := u.title, u.hasTitle, u.notes, u.hasNotes, u.due, u.hasDue
	prio, hasPrio, tags := u.prio, u.hasPrio, u.tags
	rule, hasRule, rf, hasRF, remZone, rem, hasBefore, hasAt, clear := u.rule, u.hasRule, u.rf, u.hasRF, u.remZone, u.rem, u.hasBefore, u.hasAt, u.clear

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
	applyTags(a, u, t)
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
		checkRepeat(a, t.Rule, t.RepeatFrom, t.Due, t.HasDue, e.Zone)
	}
	return a.Err() == nil
}

// applyTags adds and takes off the tags of add_tags and remove_tags,
// after tags has replaced them, and checks how many the task then has.
func applyTags(a *args.Args, u updateArgs, t *task.Task) {
	for _, tag := range u.addTags {
		t.Tags = task.AddTag(t.Tags, tag)
	}
	for _, tag := range u.removeTags {
		t.Tags = task.RemoveTag(t.Tags, tag)
	}
	switch {
	case len(u.addTags) > 0:
		checkTagCount(a, "add_tags", t.Tags)
	case len(u.tags) > 0:
		checkTagCount(a, "tags", t.Tags)
	}
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
func pastWarning(past []time.Time, e *tools.Env) []string {
	if s := item.PastReminders(past, e.Zone); s != "" {
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
