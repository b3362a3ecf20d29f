package tasks

import (
	"fmt"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// MaxHistory is how many completions get_task gives in Data, newest first;
// its text shows the latest historyLines.
const (
	MaxHistory   = 100
	historyLines = 10
)

func complete(e *tools.Env, id int64) tools.ExecResult {
	v := newView(e.Zone, e.Now)
	var t task.Task
	var done task.Completion
	var already bool
	var adv task.Advance
	change, err := e.Write(func(tx *store.Tx) error {
		before, err := tx.Task(id)
		if err != nil {
			return err
		}
		t = before
		if t.Status == task.Done {
			already = true
			return nil
		}
		if t, done, adv, err = task.Complete(before, e.Zone, e.Now); err != nil {
			return err
		}
		if _, err := tx.InsertCompletion(done); err != nil {
			return err
		}
		if adv.Ended {
			tx.Summarize(fmt.Sprintf("completed %s “%s”", label(id), t.Title))
		} else {
			tx.Summarize(fmt.Sprintf("completed %s “%s” due %s; next %s", label(id), t.Title, done.Due, adv.Next))
		}
		_, err = tx.SaveTask(before, t)
		return err
	})
	if err != nil {
		return failed(id, err)
	}
	if already {
		return tools.SuccessWithData(fmt.Sprintf("%s “%s” is already done (%s); nothing changed. Use reopen_task to open it again.",
			label(id), t.Title, v.standing(t)), written{Task: v.data(t)})
	}
	t.UpdatedAt = e.Now
	attach(e, change, id)
	var out strings.Builder
	fmt.Fprintf(&out, "Done: %s “%s”", label(id), t.Title)
	if t.Rule != nil && done.HasDue {
		fmt.Fprintf(&out, " (the occurrence due %s)", occurrenceText(done.Due))
	}
	next := ""
	switch {
	case !adv.Ended:
		next = adv.Next.String()
		fmt.Fprintf(&out, ". Next due %s.%s", v.dueText(adv.Next), v.movedNote(adv.Next))
	case t.Rule != nil:
		out.WriteString(". That was the last one: its rule has run out, so the task is done for good.")
	default:
		out.WriteString(".")
	}
	out.WriteString(changeNote(change))
	return tools.SuccessWithData(out.String(), written{Task: v.data(t), Change: change, Next: next})
}

// occurrenceText names a done occurrence by its own due: "Mon 2026-10-05"
// or "Mon 2026-10-05 09:00 (+02:00)" in the due's zone.
func occurrenceText(d task.Due) string {
	if !d.HasTime {
		return tz.FormatDateModel(d.Date)
	}
	return tz.FormatModel(d.At, d.Zone)
}

func reopen(e *tools.Env, id int64) tools.ExecResult {
	v := newView(e.Zone, e.Now)
	var t task.Task
	var already, completed bool
	change, err := e.Write(func(tx *store.Tx) error {
		var err error
		if t, err = tx.Task(id); err != nil {
			return err
		}
		if t.Status == task.Open {
			already = true
			if t.Rule != nil {
				_, n, err := tx.Completions(id, 1)
				completed = n > 0
				return err
			}
			return nil
		}
		last, _, err := tx.Completions(id, 1)
		if err != nil {
			return err
		}
		if len(last) == 1 {
			if err := tx.DeleteCompletion(last[0].ID); err != nil {
				return err
			}
		}
		before := t
		t.Status, t.CompletedAt = task.Open, time.Time{}
		tx.Summarize(fmt.Sprintf("reopened %s “%s”", label(id), t.Title))
		_, err = tx.SaveTask(before, t)
		return err
	})
	if err != nil {
		return failed(id, err)
	}
	if already {
		msg := fmt.Sprintf("%s “%s” is already open; nothing changed.", label(id), t.Title)
		if t.Rule != nil && completed {
			// A repeating task stays open when completed: it moves on.
			msg = fmt.Sprintf("%s “%s” is open: it repeats, so completing it moved it on to its next due (%s) rather than closing it; nothing changed. To take that completion back, undo its change (list_changes names it).",
				label(id), t.Title, v.standing(t))
		}
		return tools.SuccessWithData(msg, written{Task: v.data(t)})
	}
	t.UpdatedAt = e.Now
	attach(e, change, id)
	out := "Reopened " + v.summary(t) + "." + changeNote(change)
	return tools.SuccessWithData(out, written{Task: v.data(t), Change: change})
}

func remove(e *tools.Env, id int64) tools.ExecResult {
	v := newView(e.Zone, e.Now)
	var t task.Task
	change, err := e.Write(func(tx *store.Tx) error {
		var err error
		if t, err = tx.Task(id); err != nil {
			return err
		}
		tx.Summarize(fmt.Sprintf("deleted %s “%s”", label(id), t.Title))
		return tx.DeleteTask(id)
	})
	if err != nil {
		return failed(id, err)
	}
	attach(e, change, id)
	out := fmt.Sprintf("Deleted %s “%s”. Undo brings it back.%s", label(id), t.Title, changeNote(change))
	return tools.SuccessWithData(out, written{Task: v.data(t), Change: change})
}

func get(e *tools.Env, id int64) tools.ExecResult {
	v := newView(e.Zone, e.Now)
	var t task.Task
	var hist []task.Completion
	var total int
	err := e.Read(func(tx *store.Tx) error {
		var err error
		if t, err = tx.Task(id); err != nil {
			return err
		}
		hist, total, err = tx.Completions(id, MaxHistory)
		return err
	})
	if err != nil {
		return failed(id, err)
	}
	d := v.data(t)
	d.Done = total
	for _, c := range hist {
		d.Completions = append(d.Completions, v.completionData(c))
	}
	return tools.SuccessWithData(v.detail(t, hist, total), shown{Task: d})
}

// detail is get_task's text: a heading line, then one line per field that
// is set, then the latest completions.
func (v view) detail(t task.Task, hist []task.Completion, total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s “%s” · %s", label(t.ID), t.Title, t.Status)
	if t.Status == task.Open && v.overdue(t) {
		b.WriteString(" · overdue")
	}
	line := func(name, value string) { fmt.Fprintf(&b, "\n%s: %s", name, value) }
	if t.HasDue {
		d := v.dueText(t.Due)
		if !t.Due.HasTime {
			d += " (any time that day)"
		}
		line("due", d)
	} else {
		line("due", "none")
	}
	line("priority", priorityWord(t.Priority))
	if len(t.Tags) > 0 {
		line("tags", tagText(t.Tags))
	}
	if t.Rule != nil {
		how := "on a fixed schedule"
		if t.RepeatFrom == task.FromCompletion {
			how = "counted from each completion"
		}
		line("repeats", fmt.Sprintf("%s, %s (RRULE:%s)", t.Rule.Describe(), how, t.Rule))
	}
	if r := v.reminders(t); r != "" {
		line("reminders", r)
	}
	if !t.CompletedAt.IsZero() {
		line("done", tz.FormatModel(t.CompletedAt, v.zone))
	}
	line("added", tz.FormatModel(t.CreatedAt, v.zone))
	if total > 0 {
		shown := hist
		if len(shown) > historyLines {
			shown = shown[:historyLines]
		}
		heading := fmt.Sprintf("completions (%d", total)
		if total > len(shown) {
			heading += fmt.Sprintf(", latest %d", len(shown))
		}
		b.WriteString("\n" + heading + "):")
		for _, c := range shown {
			fmt.Fprintf(&b, "\n  %s", tz.FormatModel(c.At, v.zone))
			if c.HasDue {
				fmt.Fprintf(&b, " (due %s)", occurrenceText(c.Due))
			}
		}
	}
	if t.Notes != "" {
		b.WriteString("\nnotes:\n")
		b.WriteString(item.FitNotes(t.Notes, tools.ModelLimit-tools.AnswerRoom-b.Len()))
	}
	return b.String()
}

func priorityWord(p int) string {
	switch p {
	case 1:
		return "p1 urgent"
	case 2:
		return "p2 high"
	case 3:
		return "p3 medium"
	}
	return "p4 none"
}
