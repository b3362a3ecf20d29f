package tasks

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/fields"
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
	window     fields.Window
	hasWindow  bool
	hasFrom    bool
	hasTo      bool
	tag, query string
}

func list(ctx context.Context, tc *tools.ToolContext, a *args.Args) tools.ExecResult {
	e, err := host(tc)
	if err != nil {
		return tools.Internal(err)
	}
	f := filter{status: a.OneOf("status", "open", "open", "done", "all")}
	f.hasFrom, f.hasTo = a.Has("from"), a.Has("to")
	if f.hasFrom || f.hasTo {
		// No default window for tasks: a side left out is open, so “to”
		// alone lists everything due by then, overdue tasks included.
		f.window, f.hasWindow = fields.ReadWindow(a, e.zone, e.now), true
	}
	f.tag = strings.TrimLeft(a.Line("tag"), "#")
	tooLong(a, "tag", "tag", f.tag, MaxTag)
	f.query = a.Line("query")
	tooLong(a, "query", "search text", f.query, MaxQuery)
	limit := a.Number("limit", DefaultLimit, 1, MaxLimit)
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}
	var all []task
	err = e.s.Read(ctx, e.person.ID, func(tx *store.Tx) error {
		all, err = selectTasks(tx, f, e.zone)
		return err
	})
	if err != nil {
		return tools.Internal(err)
	}
	all = slices.DeleteFunc(all, func(t task) bool { return !f.keep(t) })
	sortTasks(all, e.v)
	total := len(all)
	offset := fields.ReadCursor(a, total)
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}

	what := f.describe(e.zone, total)
	heading := fmt.Sprintf("%d %s", total, what)
	budget := pageBudget - len(heading) - 64
	var rows []string
	page := make([]taskData, 0, min(limit, total-offset))
	used := 0
	for _, t := range all[offset:] {
		if len(rows) == limit {
			break
		}
		l := e.v.line(t)
		if len(rows) > 0 && used+len(l)+1 > budget {
			break
		}
		used += len(l) + 1
		rows = append(rows, l)
		page = append(page, e.v.listData(t))
	}
	next := fields.NextCursor(offset, len(rows), total)
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
func (f filter) keep(t task) bool {
	if f.tag != "" && !t.hasTag(f.tag) {
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
func selectTasks(tx *store.Tx, f filter, zone tz.Zone) ([]task, error) {
	q := `SELECT * FROM tasks WHERE owner_id = ? AND deleted_at IS NULL`
	params := []any{tx.Owner()}
	if f.status != "all" {
		q += ` AND status = ?`
		params = append(params, f.status)
	}
	if f.hasWindow {
		fromAt, toAt := int64(math.MinInt64), int64(math.MaxInt64)
		fromDay, toDay := "0000-00-00", "9999-99-99"
		if f.hasFrom {
			fromAt = f.window.From.Unix()
			if f.window.From.Nanosecond() > 0 {
				fromAt++
			}
			fromDay = zone.Today(f.window.From).String()
		}
		if f.hasTo {
			toAt = f.window.To.Unix()
			if f.window.To.Nanosecond() > 0 {
				toAt++
			}
			last := zone.Today(f.window.To)
			if !zone.StartOfDay(last).Before(f.window.To) {
				last = last.AddDays(-1)
			}
			// The last day itself, compared with <=: the day after
			// 9999-12-31 has a five-digit year, which sorts as text
			// before every other day.
			toDay = last.String()
		}
		q += ` AND ((due_time IS NOT NULL AND due_at >= ? AND due_at < ?)
			OR (due_time IS NULL AND due_date >= ? AND due_date <= ?))`
		params = append(params, fromAt, toAt, fromDay, toDay)
	}
	rows, err := tx.Query(q, params...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []task
	err = scanRows(rows, func(r store.Row) error {
		t, err := fromRow(r)
		if err == nil {
			out = append(out, t)
		}
		return err
	})
	return out, err
}

func scanRows(rows *sql.Rows, each func(store.Row) error) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		r := make(store.Row, len(cols))
		for i, c := range cols {
			r[c] = vals[i]
		}
		if err := each(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// sortTasks orders a listing: open tasks by the person's day of their due
// (so overdue ones come first), those with no due last, then by priority,
// then by time of day (a floating day before timed dues), then by id; done
// tasks after the open ones, the latest done first.
func sortTasks(ts []task, v view) {
	const noDay = math.MaxInt32
	dayOf := func(t task) int {
		if !t.HasDue {
			return noDay
		}
		return v.today.DaysUntil(v.personDay(t.Due))
	}
	startOf := func(t task) time.Time {
		if !t.HasDue {
			return time.Time{}
		}
		return t.Due.start(v.zone)
	}
	slices.SortStableFunc(ts, func(a, b task) int {
		if a.Status != b.Status {
			if a.Status == "open" {
				return -1
			}
			return 1
		}
		if a.Status == "done" {
			return cmp.Or(b.CompletedAt.Compare(a.CompletedAt), cmp.Compare(b.ID, a.ID))
		}
		return cmp.Or(cmp.Compare(dayOf(a), dayOf(b)), cmp.Compare(a.Priority, b.Priority),
			startOf(a).Compare(startOf(b)), cmp.Compare(a.ID, b.ID))
	})
}
