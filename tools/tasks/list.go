package tasks

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Page sizes of list_tasks. A page also stops early when its text would
// pass pageBudget bytes, so even a page of the longest titles and tags
// never spills a model turn (tools.ModelLimit); the cursor carries on from
// the first row left out.
const (
	DefaultLimit = 25
	MaxLimit     = 100
	MaxQuery     = item.MaxQuery
	pageBudget   = tools.ModelLimit - 512
)

// filter is what list_tasks was asked for.
type filter struct {
	status     string
	window     tools.Window
	hasWindow  bool
	hasFrom    bool
	hasTo      bool
	tag, query string
}

// listIn is what list_tasks was asked for. offset reads “cursor” against
// the total, which only the store knows; a failure is kept on the
// arguments, as for every other argument.
type listIn struct {
	f      filter
	limit  int
	offset func(total int) (int, error)
}

// readList is list_tasks' read step.
func readList(a *args.Args, e *tools.Env) listIn {
	f := filter{status: a.OneOf("status", "open", "open", "done", "all")}
	f.hasFrom, f.hasTo = a.Has("from"), a.Has("to")
	if f.hasFrom || f.hasTo {
		// No default window for tasks: a side left out is open, so “to”
		// alone lists everything due by then, overdue tasks included.
		f.window, f.hasWindow = tools.ReadWindow(a, e.Zone, e.Now), true
	}
	f.tag = strings.TrimLeft(a.Line("tag"), "#")
	tooLong(a, "tag", "tag", f.tag, MaxTag)
	f.query = a.Line("query")
	tooLong(a, "query", "search text", f.query, MaxQuery)
	limit := a.Number("limit", DefaultLimit, 1, MaxLimit)
	tools.ReadCursor(a, math.MaxInt) // its form, before the store is read
	return listIn{f: f, limit: limit, offset: func(total int) (int, error) {
		n := tools.ReadCursor(a, total)
		return n, a.Err()
	}}
}

func list(e *tools.Env, in listIn) tools.ExecResult {
	v := newView(e.Zone, e.Now)
	f, limit := in.f, in.limit
	var all []task.Task
	err := e.Read(func(tx *store.Tx) error {
		var err error
		all, err = selectTasks(tx, f, e.Zone)
		return err
	})
	if err != nil {
		return tools.Fail(err)
	}
	all = slices.DeleteFunc(all, func(t task.Task) bool { return !f.keep(t) })
	sortTasks(all, v)
	total := len(all)
	offset, err := in.offset(total)
	if err != nil {
		return tools.Invalid(err)
	}

	what := f.describe(e.Zone, total)
	heading := fmt.Sprintf("%d %s", total, what)
	budget := pageBudget - len(heading) - 64
	var rows []string
	page := make([]taskData, 0, min(limit, total-offset))
	used := 0
	for _, t := range all[offset:] {
		if len(rows) == limit {
			break
		}
		l := v.line(t)
		if len(rows) > 0 && used+len(l)+1 > budget {
			break
		}
		used += len(l) + 1
		rows = append(rows, l)
		page = append(page, v.listData(t))
	}
	next := tools.NextCursor(offset, len(rows), total)
	var out tools.Output
	switch {
	case total == 0:
		out.Heading = "No " + what + "."
	case offset == 0 && next == "":
		out.Heading = heading + ":"
	default:
		out.Heading = fmt.Sprintf("%s; %d–%d shown:", heading, offset+1, offset+len(rows))
	}
	out.Rows = rows
	if next != "" {
		out.Footer = fmt.Sprintf("More: call list_tasks again with cursor “%s”.", next)
	}
	return tools.SuccessWithData(out.Text(), map[string]any{
		"tasks": page, "total": total, "offset": offset, "next_cursor": next,
	})
}

// describe names a listing of n tasks: "open tasks due Mon 2026-11-30 to Sun
// 2026-12-06 tagged “home” matching “milk”".
func (f filter) describe(zone tz.Zone, n int) string {
	s := "tasks"
	if n == 1 {
		s = "task"
	}
	if f.status != "all" {
		s = f.status + " " + s
	}
	if f.hasWindow {
		switch {
		case f.hasFrom && f.hasTo:
			s += " due " + f.window.String(zone)
		case f.hasFrom:
			s += " due " + edge(f.window.From, zone, false)
		default:
			s += " due " + edge(f.window.To, zone, true)
		}
	}
	if f.tag != "" {
		s += fmt.Sprintf(" tagged “%s”", f.tag)
	}
	if f.query != "" {
		s += fmt.Sprintf(" matching “%s”", f.query)
	}
	return s
}

// edge names one side of a window: "from Mon 2026-11-30", "by Tue
// 2026-12-01" (the last day an end at midnight includes), or with the
// instant when the side is not at midnight.
func edge(t time.Time, zone tz.Zone, end bool) string {
	dt := zone.In(t)
	if dt.Hour != 0 || dt.Minute != 0 {
		if end {
			return "before " + tz.FormatModel(t, zone)
		}
		return "from " + tz.FormatModel(t, zone)
	}
	if end {
		return "by " + tz.FormatDateModel(dt.Date.AddDays(-1))
	}
	return "from " + tz.FormatDateModel(dt.Date)
}

// keep applies the filters SQL cannot do right for every script: tags and
// text compared with Unicode case folding.
func (f filter) keep(t task.Task) bool {
	if f.tag != "" && !t.HasTag(f.tag) {
		return false
	}
	if f.query != "" {
		q := strings.ToLower(f.query)
		// through CleanLine: older rows may hold invisible characters
		if !strings.Contains(strings.ToLower(args.CleanLine(t.Title)), q) && !strings.Contains(strings.ToLower(args.CleanLine(t.Notes)), q) {
			return false
		}
	}
	return true
}

// selectTasks reads the owner's live tasks of the status, within the
// window when there is one. A timed due matches when its instant is in
// [from, to); a floating day when the day, taken in the person's zone,
// overlaps it.
func selectTasks(tx *store.Tx, f filter, zone tz.Zone) ([]task.Task, error) {
	q := store.TaskFilter{Window: f.hasWindow}
	if f.status != "all" {
		q.Status = f.status
	}
	if f.hasFrom {
		q.From, q.FromDay = f.window.From, zone.Today(f.window.From)
	}
	if f.hasTo {
		q.To = f.window.To
		last := zone.Today(f.window.To)
		if !zone.StartOfDay(last).Before(f.window.To) {
			last = last.AddDays(-1)
		}
		// The last day itself, compared with <=: the day after
		// 9999-12-31 has a five-digit year, which sorts as text
		// before every other day.
		q.ToDay = last
	}
	return tx.Tasks(q)
}

// sortTasks orders a listing: open tasks by the person's day of their due
// (so overdue ones come first), those with no due last, then by priority,
// then by time of day (a floating day before timed dues), then by id; done
// tasks after the open ones, the latest done first.
func sortTasks(ts []task.Task, v view) {
	const noDay = math.MaxInt32
	dayOf := func(t task.Task) int {
		if !t.HasDue {
			return noDay
		}
		return v.today.DaysUntil(v.personDay(t.Due))
	}
	startOf := func(t task.Task) time.Time {
		if !t.HasDue {
			return time.Time{}
		}
		return t.Due.Start(v.zone)
	}
	slices.SortStableFunc(ts, func(a, b task.Task) int {
		if a.Status != b.Status {
			if a.Status == task.Open {
				return -1
			}
			return 1
		}
		if a.Status == task.Done {
			return cmp.Or(b.CompletedAt.Compare(a.CompletedAt), cmp.Compare(b.ID, a.ID))
		}
		return cmp.Or(cmp.Compare(dayOf(a), dayOf(b)), cmp.Compare(a.Priority, b.Priority),
			startOf(a).Compare(startOf(b)), cmp.Compare(a.ID, b.ID))
	})
}
