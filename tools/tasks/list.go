package tasks

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
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

// TotalCap is the most tasks list_tasks counts: past it the heading says
// "more than 1000 open tasks" and Data's total_exact is false, so a count
// costs at most this many index entries whatever the person holds.
const TotalCap = 1000

// listIn is what list_tasks was asked for: after is the key of the last
// task of the page before (from the cursor), pos how many tasks came
// before this page.
type listIn struct {
	f        filter
	limit    int
	after    store.TaskKey
	hasAfter bool
	pos      int
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
	raw := a.Line("tag")
	f.tag = strings.TrimSpace(strings.TrimLeft(raw, "#"))
	if raw != "" && f.tag == "" {
		// "#" alone would filter nothing and list every task.
		a.Fail("tag", fmt.Sprintf("“tag” holds %s, which is no tag; write a tag as a word such as “home”, or leave “tag” out for every task.", args.Quote(raw)))
	}
	tooLong(a, "tag", "tag", f.tag, MaxTag)
	f.query = a.Line("query")
	tooLong(a, "query", "search text", f.query, MaxQuery)
	if a.InvisibleOnly("query") || f.query != "" && strings.TrimSpace(item.FoldText(f.query)) == "" {
		// Folded to nothing, it is a substring of every task.
		a.Fail("query", "“query” holds only invisible characters or accents, which would match every task; write the words to look for, or leave “query” out.")
	}
	limit := a.Number("limit", DefaultLimit, 1, MaxLimit)
	in := listIn{f: f, limit: limit}
	if c := a.Text("cursor"); c != "" {
		body, ok := tools.OpenCursor(c, f.scope(e.Zone)...)
		if ok {
			in.pos, in.after, ok = parseCursor(body)
		}
		if !ok {
			a.Fail("cursor", fmt.Sprintf("“cursor” must be the next_cursor of this same listing, not %s (a cursor holds the filters it was given for, and the person's zone); ask again without a cursor for the first page.", args.Quote(c)))
		}
		in.hasAfter = ok
	}
	return in
}

// scope is what a cursor of the listing f, read in zone, holds to itself
// ([tools.SealCursor]): another filter, window or zone orders or cuts the
// tasks otherwise, so its cursor would skip or repeat some.
func (f filter) scope(zone tz.Zone) []string {
	side := func(has bool, t time.Time) string {
		if !has {
			return ""
		}
		return strconv.FormatInt(t.Unix(), 10)
	}
	return []string{f.status, side(f.hasFrom, f.window.From), side(f.hasTo, f.window.To), f.tag, f.query, zone.Name()}
}

// cursor is the opaque text of list_tasks' next_cursor: "k", then in base
// 36, dot-separated, how many tasks came before the next page and the key
// of the last task shown (done 0 or 1, day, priority, start, id).
func cursor(pos int, k store.TaskKey) string {
	done := int64(0)
	if k.Done {
		done = 1
	}
	parts := []string{strconv.FormatInt(int64(pos), 36), strconv.FormatInt(done, 36), strconv.FormatInt(k.Day, 36),
		strconv.FormatInt(k.Priority, 36), strconv.FormatInt(k.At, 36), strconv.FormatInt(k.ID, 36)}
	return "k" + strings.Join(parts, ".")
}

// parseCursor reads a cursor; ok is false when c is not one.
func parseCursor(c string) (pos int, k store.TaskKey, ok bool) {
	rest, found := strings.CutPrefix(c, "k")
	parts := strings.Split(rest, ".")
	if !found || len(parts) != 6 {
		return 0, k, false
	}
	var n [6]int64
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 36, 64)
		if err != nil {
			return 0, k, false
		}
		n[i] = v
	}
	if n[0] < 0 || n[0] > math.MaxInt32 || n[1] < 0 || n[1] > 1 {
		return 0, k, false
	}
	return int(n[0]), store.TaskKey{Done: n[1] == 1, Day: n[2], Priority: n[3], At: n[4], ID: n[5]}, true
}

// forceGoPath makes list read through the Go path whatever the store says
// (the differential test's oracle).
var forceGoPath bool

func list(e *tools.Env, in listIn) tools.ExecResult {
	v := newView(e.Zone, e.Now)
	f, limit := in.f, in.limit
	var page store.TaskPage
	err := e.Read(func(tx *store.Tx) error {
		var err error
		if !forceGoPath {
			// Read the Go way only when the list columns were
			// worked out in another zone (Stale).
			if page, err = tx.TaskPage(f.query0(in, e.Zone)); err != nil || !page.Stale {
				return err
			}
		}
		page, err = goPage(tx, in, v)
		return err
	})
	if err != nil {
		return tools.Fail(err)
	}
	total, offset, exact := page.Total, in.pos, page.Exact
	heading := f.heading(e.Zone, total, exact)
	budget := pageBudget - len(heading) - 64
	var rows []string
	page2 := make([]listRow, 0, min(limit, len(page.Tasks)))
	used := 0
	for _, t := range page.Tasks {
		if len(rows) == limit {
			break
		}
		l := v.line(t, v.standing(t))
		if len(rows) > 0 && used+len(l)+1 > budget {
			break
		}
		used += len(l) + 1
		rows = append(rows, l)
		page2 = append(page2, v.listRow(t))
	}
	next := ""
	if len(rows) < len(page.Tasks) {
		next = tools.SealCursor(cursor(offset+len(rows), page.Keys[len(rows)-1]), f.scope(e.Zone)...)
	}
	if next == "" && !exact && len(rows) > 0 && offset+len(rows) > total {
		// The last page of a count that stopped at [TotalCap]: where it ends
		// is the whole count.
		total, exact = offset+len(rows), true
		heading = f.heading(e.Zone, total, exact)
	}
	what := f.describe(e.Zone, total)
	var out tools.Output
	switch {
	case total == 0:
		out.Heading = "No " + what + "."
	case len(rows) == 0:
		out.Heading = fmt.Sprintf("%s; none after the cursor: ask again without it.", heading)
	case offset == 0 && next == "" && exact:
		out.Heading = heading + ":"
	default:
		out.Heading = fmt.Sprintf("%s; %d–%d shown:", heading, offset+1, offset+len(rows))
	}
	out.Rows = rows
	if next != "" {
		out.Footer = fmt.Sprintf("More: call list_tasks again with cursor “%s”.", next)
	}
	return tools.SuccessWithData(out.Text(), listPage{Tasks: page2, Total: total, TotalExact: exact, Offset: offset, NextCursor: next})
}

// listPage is list_tasks' Data (listOutput): a struct, not a map, so
// json.Marshal writes it without sorting keys; its fields are in the
// order a map's keys were written, so the bytes are the same.
type listPage struct {
	NextCursor string    `json:"next_cursor"`
	Offset     int       `json:"offset"`
	Tasks      []listRow `json:"tasks"`
	Total      int       `json:"total"`
	TotalExact bool      `json:"total_exact"`
}

// heading is list_tasks' count of total tasks: "1000 open tasks", or
// "more than 1000 open tasks" when the count stopped at [TotalCap].
func (f filter) heading(zone tz.Zone, total int, exact bool) string {
	count := strconv.Itoa(total)
	if !exact {
		count = "more than " + count
	}
	return count + " " + f.describe(zone, total)
}

// query0 is the store's query for one page of in, read in zone: one task
// more than the page, to know whether another page follows.
func (f filter) query0(in listIn, zone tz.Zone) store.TaskQuery {
	w := selectFilter(f, zone)
	return store.TaskQuery{Status: w.Status, Window: w.Window, From: w.From, To: w.To, FromDay: w.FromDay, ToDay: w.ToDay,
		Tag: f.tag, Query: f.query, After: in.after, HasAfter: in.hasAfter, Limit: in.limit + 1, Cap: TotalCap, Zone: zone.Name()}
}

// goPage is the page read the way list_tasks read every page before
// migration 00012: every task of the status and window, filtered, sorted
// and cut in Go. It answers when the store's list columns were worked out
// in another zone than the one listed in, and it is the oracle of the
// differential test.
func goPage(tx *store.Tx, in listIn, v view) (store.TaskPage, error) {
	all, err := tx.Tasks(selectFilter(in.f, v.zone))
	if err != nil {
		return store.TaskPage{}, err
	}
	all = slices.DeleteFunc(all, func(t task.Task) bool { return !in.f.keep(t) })
	sortTasks(all, v)
	p := store.TaskPage{Total: min(len(all), TotalCap), Exact: len(all) <= TotalCap}
	for _, t := range all {
		k := store.TaskKeyOf(t, v.zone)
		if in.hasAfter && k.Compare(in.after) <= 0 {
			continue
		}
		if len(p.Tasks) == in.limit+1 {
			break
		}
		p.Tasks = append(p.Tasks, t)
		p.Keys = append(p.Keys, k)
	}
	return p, nil
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

// keep applies the tag and text filters in Go: tags compared as
// [task.Task.HasTag] does, text through [item.FoldText] (case, accents and
// invisible characters aside), as the store's indexes compare them.
func (f filter) keep(t task.Task) bool {
	if f.tag != "" && !t.HasTag(f.tag) {
		return false
	}
	if f.query != "" {
		q := item.FoldText(f.query)
		if !strings.Contains(item.FoldText(t.Title), q) && !strings.Contains(item.FoldText(t.Notes), q) {
			return false
		}
	}
	return true
}

// selectFilter is the store's filter of the status and the window when
// there is one. A timed due matches when its instant is in [from, to); a
// floating day when the day, taken in the person's zone, overlaps it.
func selectFilter(f filter, zone tz.Zone) store.TaskFilter {
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
	return q
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
