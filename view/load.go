package view

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Page sizes of the reads Load makes: the most each tool gives per call
// (list_events' and list_tasks' "limit" maximum), so a window takes few
// calls.
const (
	eventsPage = 40
	tasksPage  = 100
)

// WindowError is Load's refusal of the window it is asked for: one
// sentence saying what to ask for instead.
type WindowError struct{ msg string }

func (e *WindowError) Error() string { return e.msg }

// lastDay is the calendar's last day: no tool reads past it.
var lastDay = tz.DateOf(tz.LastInstant)

// Load reads the window from..to (whole days, inclusive, in the person's
// zone) for the person of tc, through reg's list_events and list_tasks as
// any front calls them, following next_cursor from page to page. Now is
// tools.Now(tc) and the zone the person's (tools.CurrentPerson).
//
// Each day holds the all-day events covering it, the timed occurrences
// overlapping it (an event crossing midnight is on each day it covers; one
// ending at midnight is not on the next), and the open tasks due that day;
// Overdue holds the open tasks due before from that are overdue at now.
// Past MaxItems events and tasks the reading stops and the window is Cut.
//
// A window longer than MaxDays, whose to comes before from, or that runs
// past the calendar's last day (9999-12-31, docs/time.md) is refused with
// a *WindowError of one sentence; a failed tool call returns a *ToolError
// with the tool's own sentence; a ctx done stops the reading and returns ctx's error.
func Load(ctx context.Context, reg *tools.Registry, tc *tools.ToolContext, from, to tz.Date) (Window, error) {
	if reg == nil || tc == nil {
		return Window{}, errors.New("the view has no tools to read with; this is a bug in the program")
	}
	n := from.DaysUntil(to) + 1
	switch {
	case n < 1:
		return Window{}, &WindowError{fmt.Sprintf("the window ends on %s before it starts on %s; give a last day on or after the first", to, from)}
	case n > MaxDays:
		return Window{}, &WindowError{fmt.Sprintf("a view shows at most %d days, and %s to %s is %d; ask for fewer days", MaxDays, from, to, n)}
	case to.After(lastDay):
		return Window{}, &WindowError{fmt.Sprintf("the calendar ends on %s, and this view would run to %s; start it earlier", lastDay, to)}
	}
	p, err := tools.CurrentPerson(ctx, tc)
	if err != nil {
		return Window{}, err
	}
	w := Window{Zone: p.Zone, Now: tools.Now(tc), From: from, To: to, Days: make([]Day, n)}
	for i := range w.Days {
		w.Days[i].Date = from.AddDays(i)
	}
	l := loader{ctx: ctx, reg: reg, tc: tc, w: &w}
	if err := l.events(); err != nil {
		return Window{}, err
	}
	if err := l.tasks(); err != nil {
		return Window{}, err
	}
	for i := range w.Days {
		d := &w.Days[i]
		slices.SortStableFunc(d.AllDay, func(a, b Event) int {
			return cmp.Or(a.FirstDay.Compare(b.FirstDay), strings.Compare(a.Title, b.Title), strings.Compare(a.ID, b.ID))
		})
		slices.SortStableFunc(d.Timed, func(a, b Event) int {
			return cmp.Or(a.Start.Compare(b.Start), a.End.Compare(b.End), strings.Compare(a.ID, b.ID))
		})
		slices.SortStableFunc(d.Tasks, func(a, b Task) int {
			switch {
			case a.DueTime && b.DueTime:
				return a.DueAt.Compare(b.DueAt)
			case a.DueTime:
				return -1
			case b.DueTime:
				return 1
			}
			return 0
		})
	}
	slices.SortStableFunc(w.Overdue, func(a, b Task) int { return a.dueInstant(w.Zone).Compare(b.dueInstant(w.Zone)) })
	return w, nil
}

// dueInstant is when t falls due: DueAt, or the start of its day.
func (t Task) dueInstant(z tz.Zone) time.Time {
	if t.DueTime {
		return t.DueAt
	}
	return z.StartOfDay(t.Due)
}

// ToolError is the error of [Load] when a tool call failed: Result is the
// tool's answer, whose sentence is the error's text, and whose cause (a
// store's trouble, for an internal failure) the error unwraps to, so a
// front can give the code it gives for that tool's failures.
type ToolError struct {
	Tool   string // list_events or list_tasks
	Result tools.ExecResult
}

func (e *ToolError) Error() string { return strings.TrimRight(e.Result.TextOut(), "\n") }

// Unwrap is the cause of an internal failure, or nil.
func (e *ToolError) Unwrap() error { return e.Result.Cause() }

// loader is one Load's reading state.
type loader struct {
	ctx   context.Context
	reg   *tools.Registry
	tc    *tools.ToolContext
	w     *Window
	items int // events and tasks read so far
}

// call runs tool with args and decodes its Data into out.
func (l *loader) call(tool string, args map[string]any, out any) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	res, _ := l.reg.Call(l.ctx, l.tc, tool, raw)
	if err := l.ctx.Err(); err != nil {
		return err
	}
	if !res.OK() {
		return &ToolError{Tool: tool, Result: res}
	}
	if err := json.Unmarshal(res.Data, out); err != nil {
		return fmt.Errorf("%s gave data the view cannot read (%v); this is a bug in the program", tool, err)
	}
	return nil
}

// eventData is one occurrence in list_events' Data.
type eventData struct {
	ID       string `json:"id"`
	Series   string `json:"series"`
	Title    string `json:"title"`
	Start    string `json:"start"`
	End      string `json:"end"`
	TimeZone string `json:"time_zone"`
	AllDay   bool   `json:"all_day"`
	Location string `json:"location"`
}

func (l *loader) events() error {
	cursor := ""
	for {
		args := map[string]any{"from": l.w.From.String(), "to": l.w.To.String(), "limit": eventsPage}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var page struct {
			Events     []eventData `json:"events"`
			NextCursor string      `json:"next_cursor"`
		}
		if err := l.call("list_events", args, &page); err != nil {
			return err
		}
		for _, d := range page.Events {
			if l.items >= MaxItems {
				l.w.Cut = true
				return nil
			}
			e, err := l.event(d)
			if err != nil {
				return err
			}
			l.items++
			l.place(e)
		}
		if page.NextCursor == "" || page.NextCursor == cursor {
			return nil
		}
		cursor = page.NextCursor
	}
}

// event reads d in the person's zone.
func (l *loader) event(d eventData) (Event, error) {
	z := l.w.Zone
	e := Event{ID: d.ID, Series: d.Series, Title: d.Title, Location: d.Location, AllDay: d.AllDay}
	if d.TimeZone != "" && d.TimeZone != z.Name() {
		e.EventZone = d.TimeZone
	}
	bad := func(err error) (Event, error) {
		return Event{}, fmt.Errorf("list_events gave a time the view cannot read for %s (%v); this is a bug in the program", d.ID, err)
	}
	if d.AllDay {
		first, err := tz.ParseDate(d.Start)
		if err != nil {
			return bad(err)
		}
		last, err := tz.ParseDate(d.End)
		if err != nil {
			return bad(err)
		}
		if last.Before(first) {
			last = first
		}
		e.FirstDay, e.LastDay = first, last
		e.Start, e.End = z.StartOfDay(first), z.StartOfDay(last.AddDays(1))
		e.EventZone = "" // an all-day event's days are the same days everywhere
		return e, nil
	}
	var err error
	if e.Start, err = time.Parse(time.RFC3339, d.Start); err != nil {
		return bad(err)
	}
	if e.End, err = time.Parse(time.RFC3339, d.End); err != nil {
		return bad(err)
	}
	e.FirstDay = z.Today(e.Start)
	e.LastDay = e.FirstDay
	if e.End.After(e.Start) {
		e.LastDay = z.Today(e.End.Add(-time.Nanosecond))
	}
	return e, nil
}

// place puts e on each day of the window it covers.
func (l *loader) place(e Event) {
	for i := range l.w.Days {
		d := &l.w.Days[i]
		if d.Date.Before(e.FirstDay) || d.Date.After(e.LastDay) {
			continue
		}
		if e.AllDay {
			d.AllDay = append(d.AllDay, e)
		} else {
			d.Timed = append(d.Timed, e)
		}
	}
}

// taskData is one task in list_tasks' Data.
type taskData struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	Overdue   bool   `json:"overdue"`
	Due       string `json:"due"`
	DueAllDay bool   `json:"due_all_day"`
	DueAt     string `json:"due_at"`
	Priority  int    `json:"priority"`
}

func (l *loader) tasks() error {
	cursor := ""
	for {
		// "to" alone lists every open task due by the window's end,
		// overdue ones included.
		args := map[string]any{"status": "open", "to": l.w.To.String(), "limit": tasksPage}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var page struct {
			Tasks      []taskData `json:"tasks"`
			NextCursor string     `json:"next_cursor"`
		}
		if err := l.call("list_tasks", args, &page); err != nil {
			return err
		}
		for _, d := range page.Tasks {
			if d.Due == "" && d.DueAt == "" {
				continue
			}
			if l.items >= MaxItems {
				l.w.Cut = true
				return nil
			}
			t, err := l.task(d)
			if err != nil {
				return err
			}
			l.items++
			switch {
			case t.Due.Before(l.w.From):
				if t.Overdue {
					l.w.Overdue = append(l.w.Overdue, t)
				}
			case !t.Due.After(l.w.To):
				day := &l.w.Days[l.w.From.DaysUntil(t.Due)]
				day.Tasks = append(day.Tasks, t)
			}
		}
		if page.NextCursor == "" || page.NextCursor == cursor {
			return nil
		}
		cursor = page.NextCursor
	}
}

// task reads d in the person's zone.
func (l *loader) task(d taskData) (Task, error) {
	t := Task{ID: d.ID, Title: d.Title, Priority: d.Priority, Done: d.Status == "done", Overdue: d.Overdue}
	if d.DueAt != "" && !d.DueAllDay {
		at, err := time.Parse(time.RFC3339, d.DueAt)
		if err != nil {
			return Task{}, fmt.Errorf("list_tasks gave a due the view cannot read for %s (%v); this is a bug in the program", d.ID, err)
		}
		t.DueTime, t.DueAt, t.Due = true, at, l.w.Zone.Today(at)
		return t, nil
	}
	due, err := tz.ParseDate(d.Due)
	if err != nil {
		return Task{}, fmt.Errorf("list_tasks gave a due the view cannot read for %s (%v); this is a bug in the program", d.ID, err)
	}
	t.Due = due
	return t, nil
}
