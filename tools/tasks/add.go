package tasks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/alarm"
	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools"
)

// summary is a task in one sentence part for the answers of writes:
// "t12 “Buy milk”, due tomorrow, Tue 2026-12-01; p2; #home; repeats every
// week".
func (v view) summary(t task.Task) string {
	parts := []string{fmt.Sprintf("%s “%s”", label(t.ID), t.Title)}
	if t.HasDue {
		parts[0] += ", due " + v.dueText(t.Due)
	}
	if t.Priority < 4 {
		parts = append(parts, fmt.Sprintf("p%d", t.Priority))
	}
	if len(t.Tags) > 0 {
		parts = append(parts, tagText(t.Tags))
	}
	if t.Rule != nil {
		parts = append(parts, repeatText(t))
	}
	if d := v.reminders(t); d != "" {
		parts = append(parts, "reminders "+d)
	}
	return strings.Join(parts, "; ")
}

// addIn is what add_task was asked for: the task as it would be stored
// and its guard against adding it twice.
type addIn struct {
	t    task.Task
	once tools.Once
}

// readAdd is add_task's read step.
func readAdd(a *args.Args, e *tools.Env) addIn {
	title, _ := readTitle(a, true)
	t := task.New(title, e.Now)
	t.Notes, _ = readNotes(a)
	t.Due, t.HasDue = readDue(a, e.Zone)
	if p, ok := readPriority(a); ok {
		t.Priority = p
	}
	t.Tags = readTags(a, "tags")
	checkTagCount(a, "tags", t.Tags)
	rule, hasRule := readRule(a)
	rf, hasRF := readRepeatFrom(a)
	remZone := e.Zone
	if t.HasDue && t.Due.HasTime {
		remZone = t.Due.Zone
	}
	t.Reminders, _, _ = readReminders(a, remZone)
	t.RemindZone = remZone.Name() // a moment read in a zone fires at that instant
	once := tools.ReadOnce(a, "add_task")
	if hasRF && !hasRule && a.Err() == nil {
		a.Fail("repeat_from", "“repeat_from” says how a repeating task moves on, so it needs an “rrule” too; give one, or leave “repeat_from” out.")
	}
	if hasRule {
		t.Rule, t.RepeatFrom = rule, task.Schedule
		if hasRF {
			t.RepeatFrom = rf
		}
	}
	checkRepeat(a, t.Rule, t.RepeatFrom, t.Due, t.HasDue, e.Zone)
	// The fingerprint is of what would be stored, so spellings of the same
	// call ("RRULE:" or not, spaces) count as the same arguments. Only a
	// key's record keeps it, so a call without a key does not hash.
	if once.Key != "" {
		once.Fingerprint = tools.Fingerprint(map[string]any{"task": store.TaskFingerprint(t), "allow_duplicate": once.AllowDuplicate})
	}
	return addIn{t: t, once: once}
}

func add(e *tools.Env, in addIn) tools.ExecResult {
	v := newView(e.Zone, e.Now)
	// Its own UID, globally unique: a task made without one (before this
	// release) is written as "t12@assistant", which another database's
	// task 12 is too (see task.MadeUID).
	in.t.UID = item.NewUID()
	if res, done := addAlone(e, in, v); done {
		return res
	}
	t, key := in.t, in.once.Key
	var alike string     // a warning about a task much like the new one
	var past []time.Time // reminder times already past, recorded as skipped
	var outcome tools.Outcome
	var ref string
	change, err := e.Write(func(tx *store.Tx) error {
		same := func(tx *store.Tx) (string, error) {
			id, like, differs, err := findDuplicate(tx, t, e)
			if err != nil {
				return "", err
			}
			if like.ID != 0 {
				alike = fmt.Sprintf(" Warning: %s, added %s ago, has the same title and due but another %s; if one of the two is a copy, delete it with delete_task.",
					label(like.ID), ago(e.Now.Sub(like.CreatedAt)), strings.Join(differs, ", "))
			}
			if id == 0 {
				return "", nil
			}
			return label(id), nil
		}
		insert := func(tx *store.Tx) (string, error) {
			id, err := tx.InsertTask(t)
			if err != nil {
				return "", err
			}
			// A task without reminders has none already past: no need to
			// read it back and work its fires out.
			if !t.Reminders.Empty() || len(t.RemindOnce) > 0 {
				if past, err = alarm.SkipPast(tx, label(id), e.Zone, e.Now); err != nil {
					return "", err
				}
			}
			tx.Summarize(addedSummary(label(id), t))
			return label(id), nil
		}
		var err error
		outcome, ref, err = in.once.Run(tx, same, insert)
		return err
	})
	var kc *tools.KeyConflict
	if errors.As(err, &kc) {
		return tools.Conflict(fmt.Sprintf("The “key” “%s” was already used for %s with other arguments; repeat that call exactly, or use a new key for a new task.", key, kc.Ref))
	}
	if err == nil {
		t.ID, err = parseRef(ref)
	}
	if err != nil {
		return tools.Fail(err)
	}
	if outcome == tools.Added {
		return added(e, v, t, change, alike, past)
	}
	// An earlier task answers: show it as it is now.
	var cur task.Task
	err = e.Read(func(tx *store.Tx) error {
		var err error
		cur, err = tx.Task(t.ID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return tools.NotFound(fmt.Sprintf("The “key” “%s” was used for %s, which has been deleted since; undo the delete to get it back, or use a new key.", key, label(t.ID)))
	}
	if err != nil {
		return tools.Fail(err)
	}
	why := "this “key” was already used for it, so nothing new was added"
	if outcome == tools.Duplicate {
		why = fmt.Sprintf("a task with this title, due, priority, tags and rule was added %s ago, so no copy was made; set “allow_duplicate” to add another",
			ago(e.Now.Sub(cur.CreatedAt)))
	}
	out := fmt.Sprintf("Already there: %s (%s).", v.summary(cur), why)
	return tools.SuccessWithData(out, written{Task: v.data(cur), Existing: true})
}

// added is the answer of a call that added t in change.
func added(e *tools.Env, v view, t task.Task, change, alike string, past []time.Time) tools.ExecResult {
	attach(e, change, t.ID)
	warn := pastWarning(past, e)
	out := "Added " + v.summary(t) + "." + v.movedNote(t.Due) + v.ruleNote(t) + alike + warnText(warn) + changeNote(change)
	return tools.SuccessWithData(out, written{Task: v.data(t), Change: change, Warnings: warn})
}

// addAlone is the most common add_task in one store call (store.AddTask,
// one round trip on PostgreSQL): no key, no reminders (which a task must
// be read back for), and no task like it within item.DuplicateWindow
// unless allow_duplicate. done is false, with nothing written, when
// there is one like it or the call is not of that kind: add goes on the
// general way.
func addAlone(e *tools.Env, in addIn, v view) (res tools.ExecResult, done bool) {
	t := in.t
	if in.once.Key != "" || !t.Reminders.Empty() || len(t.RemindOnce) > 0 {
		return res, false
	}
	var since time.Time // none: allow_duplicate looks for no task like it
	if !in.once.AllowDuplicate {
		since = e.Now.Add(-item.DuplicateWindow)
	}
	id, change, ok, err := e.Store.AddTask(e.Ctx, e.Person.ID, e.Tool, e.Zone.Name(), t, since,
		func(ref string) string { return addedSummary(ref, t) })
	if err != nil {
		return tools.Fail(err), true
	}
	if !ok {
		return res, false
	}
	e.Changed(change)
	t.ID = id
	return added(e, v, t, change, "", nil), true
}

// addedSummary is the journal's summary of adding t as ref ("t12").
func addedSummary(ref string, t task.Task) string {
	return fmt.Sprintf("added %s “%s”", ref, t.Title)
}

func parseRef(ref string) (int64, error) {
	m := taskID.FindStringSubmatch(ref)
	if m == nil {
		return 0, fmt.Errorf("idempotency ref %q is not a task id", ref)
	}
	var id int64
	_, err := fmt.Sscan(m[1], &id)
	return id, err
}

// findDuplicate looks among the open tasks of the owner added within
// item.DuplicateWindow with the same normalised title and the same due
// (store.Tx.TasksLike). same is the first that also has the same
// priority, tags and rule (task.Differs): a call sent twice, answered with that task. Failing that,
// similar is the latest with the same title and due only, and differs
// names what it has otherwise: another request, added with a warning.
// Both are 0 when there is none.
func findDuplicate(tx *store.Tx, t task.Task, e *tools.Env) (same int64, similar task.Task, differs []string, err error) {
	like, err := tx.TasksLike(t, e.Now.Add(-item.DuplicateWindow))
	if err != nil {
		return 0, task.Task{}, nil, err
	}
	for _, c := range like {
		d := task.Differs(c, t)
		if len(d) == 0 {
			return c.ID, task.Task{}, nil, nil
		}
		similar, differs = c, d
	}
	return 0, similar, differs, nil
}
