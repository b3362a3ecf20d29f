// Package changes holds the tools that work on the change journal for
// every kind of item: undo (put a change's rows back as they were) and
// list_changes (find a change id again). Together they make a wrong call
// by a model harmless.
package changes

import (
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/alarm"
	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
)

// Register adds undo and list_changes to r.
func Register(r *tools.Registry) {
	r.Add(Undo())
	r.Add(ListChanges())
}

var changeID = regexp.MustCompile(`^[cC][0-9]{1,18}$`)

// Undo is the undo tool: `change` (a change id such as c31; default the
// person's latest change not yet undone). Data:
// {"change": "c36", "undid": "c31", "tool": "update_task",
// "rows": [{"id": "t12", "action": "changed"}, {"id": "t12", "action":
// "deleted", "part": "completion"}]}, where action is what the undo did to
// the item or, with "part", to that part of it (changed, deleted,
// restored). The answer says it in words: "changed t12 (1 completion
// removed)".
func Undo() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "undo",
		Title:       "Undo a change",
		Description: "Puts back what a change touched; again goes further back, and undoing an undo redoes. Refused when a row changed since, naming the change to undo first.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("change", "Change id, such as c31; default the latest not undone."),
		}},
		Destructive: true,
		Output:      undoOutput,
	}, readUndo, undo)
}

// ListChanges is the list_changes tool: `limit` (1–200, default 20) and
// `before` (a change id: the page of those older than it). Data:
// {"changes": [{"id": "c31", "tool": "add_task", "summary": "added t12",
// "at": "2026-10-05T09:00:00+02:00", "undone_by": "", "undoes": "",
// "rows": [{"id": "t12", "action": "added"}]}], "more_before": "c31"}
// (rows as in Undo), newest first, times in the person's zone;
// more_before, when there may be older changes, is the `before` of the
// next page.
func ListChanges() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "list_changes",
		Title:       "List recent changes",
		Description: "Lists changes, newest first: id, tool, when, items.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Int("limit", "How many, default 20.").Range(1, 200),
			tools.Str("before", "Next page: those older than this id."),
		}},
		ReadOnly:   true,
		Idempotent: true,
		Output:     listOutput,
	}, readList, listChanges)
}

// rowData is one item a change touched. A part of an item (a completion of
// a task, a changed occurrence of an event) is given as its item, with
// what it is in part, so no answer names a row the tools never show.
type rowData struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Part   string `json:"part,omitempty"` // "completion", "changed occurrence"
}

func rowsOf(c store.Change) []rowData {
	out := make([]rowData, 0, len(c.Rows))
	for _, r := range c.Rows {
		if store.IsPart(r.Table) {
			out = append(out, rowData{ID: r.Parent, Action: r.Action, Part: store.Noun(r.Table, 1)})
			continue
		}
		out = append(out, rowData{ID: r.Label, Action: r.Action})
	}
	return out
}

// itemsOf are the labels of the items a change touched, each once, parts
// counted as their item.
func itemsOf(c store.Change) []string {
	var out []string
	seen := map[string]bool{} // an undone import names 50,000
	for _, r := range c.Rows {
		l := r.Label
		if store.IsPart(r.Table) {
			l = r.Parent
		}
		if l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// undoItemsShown is how many items an undo's answer names before "and N
// more": an undone import can touch thousands.
const undoItemsShown = 10

// readUndo reads “change”: a change id, or "" for the latest change.
func readUndo(a *args.Args, _ *tools.Env) string {
	change := a.Line("change")
	if change != "" && (!changeID.MatchString(change) || strings.Trim(change[1:], "0") == "") {
		a.Fail("change", fmt.Sprintf("“change” must be a change id such as “c31” (list_changes shows them), not %s.", args.Quote(change)))
	}
	return change
}

func undo(e *tools.Env, change string) tools.ExecResult {
	newID, err := e.Store.Undo(e.Ctx, e.Person.ID, change)
	if err != nil {
		return tools.Fail(err)
	}
	e.Changed(newID) // saved: known before the answer is made
	c, err := e.Store.ChangeByID(e.Ctx, e.Person.ID, newID)
	if err != nil {
		return tools.Internal(err)
	}
	undone, err := e.Store.ChangeHead(e.Ctx, e.Person.ID, c.Undoes)
	if err != nil {
		return tools.Internal(err)
	}
	e.Changed(newID, itemsOf(c)...)
	what := store.Describe(c.Rows, undoItemsShown)
	if c.RowsTotal > len(c.Rows) {
		// Only the first rows were read: their "and N more" would
		// undercount, so the total of rows is given instead.
		if i := strings.LastIndex(what, ", and "); i >= 0 && strings.HasSuffix(what, " more") {
			what = what[:i]
		}
		what = fmt.Sprintf("%s and more, %d rows in all", what, c.RowsTotal)
	}
	out := fmt.Sprintf("Undid %s (%s): %s. This undo is %s; undo %s to redo it.",
		undone.ID, undone.Tool, what, newID, newID)
	if s := item.MissedReminders(missed(e, c, undone), e.Zone); s != "" {
		out += " " + s
	}
	return tools.SuccessWithData(out, map[string]any{
		"change": newID, "undid": undone.ID, "tool": undone.Tool, "rows": rowsOf(c),
	})
}

// missed records the reminders of the items the undo c put back whose
// time passed while the change undone was in place ([alarm.RecordMissed]),
// and returns their instants. It runs after the undo is saved, in a write
// of its own that journals nothing; when it fails, the undo stands and
// the failure is logged.
func missed(e *tools.Env, c, undone store.Change) []time.Time {
	if !undone.Created.Before(e.Now) {
		return nil
	}
	var out []time.Time
	_, err := e.Store.Write(e.Ctx, e.Person.ID, "undo", func(tx *store.Tx) error {
		out = nil
		for _, l := range itemsOf(c) {
			if !strings.HasPrefix(l, "t") && !strings.HasPrefix(l, "e") {
				continue
			}
			ts, err := alarm.RecordMissed(tx, l, e.Zone, undone.Created, e.Now)
			if err != nil {
				return err
			}
			out = append(out, ts...)
		}
		return nil
	})
	if err != nil {
		slog.Error("cannot record the reminders an undo brought back", "change", c.ID, "err", err)
		return nil
	}
	slices.SortFunc(out, time.Time.Compare)
	return slices.CompactFunc(out, time.Time.Equal)
}

type changeData struct {
	ID       string    `json:"id"`
	Tool     string    `json:"tool"`
	Summary  string    `json:"summary"`
	At       string    `json:"at"`
	Undoes   string    `json:"undoes,omitempty"`
	UndoneBy string    `json:"undone_by,omitempty"`
	Rows     []rowData `json:"rows"`
}

// listIn is list_changes' arguments.
type listIn struct {
	limit  int
	before string // a change id, or ""
}

// readList reads “limit”, 1 to 200, default 20, and “before”, a change id.
func readList(a *args.Args, _ *tools.Env) listIn {
	before := a.Line("before")
	if before != "" && (!changeID.MatchString(before) || strings.Trim(before[1:], "0") == "") {
		a.Fail("before", fmt.Sprintf("“before” must be a change id such as “c31” (the “more_before” of the last page), not %s.", args.Quote(before)))
	}
	return listIn{limit: a.Number("limit", 20, 1, 200), before: before}
}

func listChanges(e *tools.Env, in listIn) tools.ExecResult {
	p := e.Person
	limit := in.limit
	list, err := e.Store.ChangesBefore(e.Ctx, p.ID, in.before, limit+1)
	if err != nil {
		return tools.Fail(err)
	}
	more := ""
	if len(list) > limit {
		list = list[:limit]
		more = list[limit-1].ID
	}
	loc := time.UTC
	if l := p.Zone.Location(); l != nil {
		loc = l
	}
	data := make([]changeData, 0, len(list))
	var b strings.Builder
	if len(list) == 0 {
		b.WriteString("No changes yet.")
	}
	for i, c := range list {
		at := c.Created.In(loc)
		data = append(data, changeData{ID: c.ID, Tool: c.Tool, Summary: c.Summary,
			At: at.Format(time.RFC3339), Undoes: c.Undoes, UndoneBy: c.UndoneBy, Rows: rowsOf(c)})
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s  %s  %s: %s", c.ID, at.Format("Mon 2006-01-02 15:04"), c.Tool, c.Summary)
		if c.UndoneBy != "" {
			fmt.Fprintf(&b, " (undone by %s)", c.UndoneBy)
		}
	}
	if more != "" {
		fmt.Fprintf(&b, "\nOlder changes: call list_changes with before=%s.", more)
	}
	out := map[string]any{"changes": data}
	if more != "" {
		out["more_before"] = more
	}
	return tools.SuccessWithData(b.String(), out)
}
