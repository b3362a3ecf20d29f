package tasks

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// view renders tasks for one person at one instant: "today" and "overdue"
// are the person's days, never UTC's.
type view struct {
	zone  tz.Zone
	now   time.Time
	today tz.Date
}

func newView(zone tz.Zone, now time.Time) view {
	return view{zone: zone, now: now, today: zone.Today(now)}
}

func days(n int) string {
	if n == 1 {
		return "1 day"
	}
	return strconv.Itoa(n) + " days"
}

// dayWord names day d against today: "today", "tomorrow", "yesterday", or
// "Fri 2026-12-04".
func (v view) dayWord(d tz.Date) string {
	switch v.today.DaysUntil(d) {
	case 0:
		return "today"
	case 1:
		return "tomorrow"
	case -1:
		return "yesterday"
	}
	return tz.FormatDateModel(d)
}

// clock is a timed due's time as the person reads it, with the due's own
// time and zone when that zone is not the person's: "17:00", or "15:00
// (09:00 America/New_York)".
func (v view) clock(d task.Due) string {
	s := d.At.In(v.zone.Location()).Format("15:04")
	if d.Zone.Name() != v.zone.Name() {
		s += fmt.Sprintf(" (%s %s)", d.At.In(d.Zone.Location()).Format("15:04"), d.Zone.Name())
	}
	return s
}

// personDay is the person's civil day of a due.
func (v view) personDay(d task.Due) tz.Date { return d.PersonDay(v.zone) }

// overdue reports whether an open task's due has passed for the person: a
// floating day before today, or a timed due before now.
func (v view) overdue(t task.Task) bool {
	if !t.HasDue || t.Status != task.Open {
		return false
	}
	if t.Due.HasTime {
		return t.Due.At.Before(v.now)
	}
	return t.Due.Date.Before(v.today)
}

// standing says how a task stands against the person's today: "overdue 2
// days (Mon 2026-11-30)", "overdue since today 09:00", "today", "today
// 17:00", "tomorrow 09:00", "Fri 2026-12-04", "no due"; for a done task
// "done Mon 2026-11-30".
func (v view) standing(t task.Task) string {
	if t.Status == task.Done {
		return "done " + tz.FormatDateModel(v.zone.Today(t.CompletedAt))
	}
	if !t.HasDue {
		return "no due"
	}
	day := v.personDay(t.Due)
	late := v.today.DaysUntil(day)
	timeOf := ""
	if t.Due.HasTime {
		timeOf = " " + v.clock(t.Due)
	}
	switch {
	case late < 0:
		return fmt.Sprintf("overdue %s (%s%s)", days(-late), tz.FormatDateModel(day), timeOf)
	case late == 0 && v.overdue(t):
		return "overdue since today" + timeOf
	}
	return v.dayWord(day) + timeOf
}

// dueText is the due in full for one-task answers: "tomorrow, Tue
// 2026-12-01 09:00 (+01:00)", "Fri 2026-12-04", "today, Mon 2026-11-30";
// a due pinned to another zone adds its own clock: "= 09:00
// America/New_York".
func (v view) dueText(d task.Due) string {
	day := v.personDay(d)
	s := ""
	if w := v.dayWord(day); w != tz.FormatDateModel(day) {
		s = w + ", "
	}
	if !d.HasTime {
		return s + tz.FormatDateModel(d.Date)
	}
	s += tz.FormatModel(d.At, v.zone)
	if d.Zone.Name() != v.zone.Name() {
		s += fmt.Sprintf(" = %s %s", d.At.In(d.Zone.Location()).Format("15:04"), d.Zone.Name())
	}
	return s
}

// movedNote says when a timed due fell in a DST gap and was moved
// (RFC 5545 §3.3.5), or "".
func (v view) movedNote(d task.Due) string {
	if !d.HasTime || !d.Moved {
		return ""
	}
	return fmt.Sprintf(" (%02d:%02d does not exist on %s in %s, the clocks skip it; it falls at %s.)",
		d.Hour, d.Minute, d.Date, d.Zone.Name(), d.At.In(d.Zone.Location()).Format("15:04"))
}

// ruleNote says, after a sentence, when a repeating task's due is not one
// of the days its rule gives ([tools.OffRule]), or "".
func (v view) ruleNote(t task.Task) string {
	if t.Rule == nil || !t.HasDue {
		return ""
	}
	if n := tools.OffRule("due", t.Due.Moment, t.Due.SeriesZone(v.zone), t.Rule); n != "" {
		return " " + n
	}
	return ""
}

func tagText(tags []string) string {
	parts := make([]string, len(tags))
	for i, t := range tags {
		parts[i] = "#" + t
	}
	return strings.Join(parts, " ")
}

// line is one task on one line, as lists show it:
// "t12 · today 17:00 · Buy milk · p2 · #home · repeats every week".
// standing is v.standing(t), which the caller works out once for the line
// and the task's Data.
func (v view) line(t task.Task, standing string) string {
	parts := []string{label(t.ID), standing, t.Title}
	if t.Priority < 4 {
		parts = append(parts, "p"+strconv.Itoa(t.Priority))
	}
	if len(t.Tags) > 0 {
		parts = append(parts, tagText(t.Tags))
	}
	if t.Rule != nil {
		parts = append(parts, repeatText(t))
	}
	return strings.Join(parts, " · ")
}

func repeatText(t task.Task) string {
	s := "repeats " + t.Rule.Describe()
	if t.RepeatFrom == task.FromCompletion {
		s += " after completion"
	}
	return s
}

// taskData is a task as Data gives it to programs: civil forms, zone names
// and RFC 3339 instants (in the due's zone for the due, in the person's
// zone for the stamps).
type taskData struct {
	ID           string           `json:"id"`
	Title        string           `json:"title"`
	Notes        string           `json:"notes"`
	NotesCut     bool             `json:"notes_cut,omitempty"`
	Status       string           `json:"status"`
	Standing     string           `json:"standing"`
	Overdue      bool             `json:"overdue"`
	Due          string           `json:"due,omitempty"`
	DueAllDay    bool             `json:"due_all_day,omitempty"`
	DueZone      string           `json:"due_zone,omitempty"`
	DueAt        string           `json:"due_at,omitempty"`
	Priority     int              `json:"priority"`
	Tags         []string         `json:"tags"`
	RRule        string           `json:"rrule,omitempty"`
	RepeatFrom   string           `json:"repeat_from,omitempty"`
	Repeats      string           `json:"repeats,omitempty"`
	RemindBefore []int            `json:"remind_before"`
	RemindAt     []string         `json:"remind_at"`
	RemindZone   string           `json:"remind_zone,omitempty"` // the zone of remind_at, when not the person's
	RemindOnce   []string         `json:"remind_once,omitempty"` // one-time reminders, each fired once at its instant
	CompletedAt  string           `json:"completed_at,omitempty"`
	CreatedAt    string           `json:"created_at"`
	UpdatedAt    string           `json:"updated_at,omitempty"`
	Completions  []completionData `json:"completions,omitempty"`
	Done         int              `json:"completions_total,omitempty"`
}

type completionData struct {
	ID          string `json:"id"`
	Due         string `json:"due,omitempty"`
	DueZone     string `json:"due_zone,omitempty"`
	DueAt       string `json:"due_at,omitempty"`
	CompletedAt string `json:"completed_at"`
}

func (v view) data(t task.Task) taskData { return v.dataAs(t, v.standing(t)) }

// dataAs is data with t's standing worked out already.
func (v view) dataAs(t task.Task, standing string) taskData {
	d := taskData{
		ID: label(t.ID), Title: t.Title, Notes: t.Notes, Status: t.Status,
		Standing: standing, Overdue: v.overdue(t), Priority: t.Priority,
		Tags: t.Tags, RemindBefore: t.Reminders.Before, RemindAt: []string{},
		CreatedAt: tz.RFC3339(t.CreatedAt, v.zone),
	}
	if d.Tags == nil {
		d.Tags = []string{}
	}
	if d.RemindBefore == nil {
		d.RemindBefore = []int{}
	}
	p := v.parts(t)
	if p.RemindAt != nil {
		d.RemindAt = p.RemindAt
	}
	d.RemindZone, d.RemindOnce = p.RemindZone, p.RemindOnce
	d.Due, d.DueAllDay, d.DueZone, d.DueAt = p.Due, p.DueAllDay, p.DueZone, p.DueAt
	d.RRule, d.RepeatFrom, d.Repeats = p.RRule, p.RepeatFrom, p.Repeats
	d.CompletedAt = p.CompletedAt
	if !t.UpdatedAt.IsZero() {
		d.UpdatedAt = tz.RFC3339(t.UpdatedAt, v.zone)
	}
	return d
}

// listRow is a task as a list's Data gives it (list_tasks): what the
// page's line shows, as fields a program can act on, so a page of 50 stays
// small for the client that decodes it. A field at its empty value is left
// out (no tags or reminders, not overdue, no due, not repeating, not
// done), status too when it is "open" (the schema's default). The notes,
// the standing in words (the text's line has it; due and overdue say it
// to a program) and the stamps (created_at, updated_at) are get_task's
// only. The fields it has read as in [taskData].
type listRow struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Status       string   `json:"status,omitempty"`
	Overdue      bool     `json:"overdue,omitempty"`
	Due          string   `json:"due,omitempty"`
	DueAllDay    bool     `json:"due_all_day,omitempty"`
	DueZone      string   `json:"due_zone,omitempty"`
	DueAt        string   `json:"due_at,omitempty"`
	Priority     int      `json:"priority"`
	Tags         []string `json:"tags,omitempty"`
	RRule        string   `json:"rrule,omitempty"`
	RepeatFrom   string   `json:"repeat_from,omitempty"`
	Repeats      string   `json:"repeats,omitempty"`
	RemindBefore []int    `json:"remind_before,omitempty"`
	RemindAt     []string `json:"remind_at,omitempty"`
	RemindZone   string   `json:"remind_zone,omitempty"`
	RemindOnce   []string `json:"remind_once,omitempty"`
	CompletedAt  string   `json:"completed_at,omitempty"`
}

// listRow is t as a list row.
func (v view) listRow(t task.Task) listRow {
	d := listRow{
		ID: label(t.ID), Title: t.Title, Overdue: v.overdue(t), Priority: t.Priority,
		Tags: t.Tags, RemindBefore: t.Reminders.Before,
	}
	if t.Status != task.Open {
		d.Status = t.Status
	}
	p := v.parts(t)
	d.RemindAt, d.RemindZone, d.RemindOnce = p.RemindAt, p.RemindZone, p.RemindOnce
	d.Due, d.DueAllDay, d.DueZone, d.DueAt = p.Due, p.DueAllDay, p.DueZone, p.DueAt
	d.RRule, d.RepeatFrom, d.Repeats = p.RRule, p.RepeatFrom, p.Repeats
	d.CompletedAt = p.CompletedAt
	return d
}

// taskParts are the fields of a task's Data that [taskData] and
// [listRow] both give, worked out one way for both: the due (its day,
// and for a timed due its zone and RFC 3339 instant), the RRULE with its
// repeat_from and description, the reminders at times of day (RemindAt
// nil when none), their zone and one-time instants, and when it was done
// (in the person's zone). Empty strings and nil slices stand for "none".
type taskParts struct {
	Due, DueZone, DueAt        string
	DueAllDay                  bool
	RRule, RepeatFrom, Repeats string
	RemindAt, RemindOnce       []string
	RemindZone, CompletedAt    string
}

// parts is t's [taskParts] as v shows them.
func (v view) parts(t task.Task) taskParts {
	var p taskParts
	if len(t.Reminders.At) > 0 {
		p.RemindAt = make([]string, len(t.Reminders.At))
		for i, m := range t.Reminders.At {
			p.RemindAt[i] = m.String()
		}
	}
	p.RemindZone = v.remindZone(t)
	if len(t.RemindOnce) > 0 {
		p.RemindOnce = item.OnceData(t.RemindOnce, v.zone)
	}
	if t.HasDue {
		p.Due = t.Due.String()
		p.DueAllDay = !t.Due.HasTime
		if t.Due.HasTime {
			p.DueZone = t.Due.Zone.Name()
			p.DueAt = tz.RFC3339(t.Due.At, t.Due.Zone)
		}
	}
	if t.Rule != nil {
		p.RRule = t.Rule.String()
		p.RepeatFrom = t.RepeatFrom
		p.Repeats = t.Rule.Describe()
	}
	if !t.CompletedAt.IsZero() {
		p.CompletedAt = tz.RFC3339(t.CompletedAt, v.zone)
	}
	return p
}

func (v view) completionData(c task.Completion) completionData {
	d := completionData{ID: "tc" + strconv.FormatInt(c.ID, 10), CompletedAt: tz.RFC3339(c.At, v.zone)}
	if c.HasDue {
		d.Due = c.Due.String()
		if c.Due.HasTime {
			d.DueZone = c.Due.Zone.Name()
			d.DueAt = tz.RFC3339(c.Due.At, c.Due.Zone)
		}
	}
	return d
}

// ago says a short span in words: "under a minute", "1 minute", "7 minutes".
func ago(d time.Duration) string {
	m := int(d / time.Minute)
	switch {
	case m < 1:
		return "under a minute"
	case m == 1:
		return "1 minute"
	}
	return strconv.Itoa(m) + " minutes"
}

// remindZone is the zone t's remind_at moments are in when it is not the
// zone the task is shown in (nor its timed due's, which they follow), else
// "".
func (v view) remindZone(t task.Task) string {
	if len(t.Reminders.At) == 0 || (t.HasDue && t.Due.HasTime) || t.RemindZone == "" || t.RemindZone == v.zone.Name() {
		return ""
	}
	return t.RemindZone
}

// reminders is t's reminders in words, naming the zone of its remind_at
// when it is not the one the task is shown in: "at 2026-10-05T17:48
// (Europe/Paris)".
func (v view) reminders(t task.Task) string {
	d := t.Reminders.Describe()
	if z := v.remindZone(t); z != "" {
		d += " (" + z + ")"
	}
	if once := item.DescribeOnce(t.RemindOnce, v.zone); once != "" {
		if d != "" {
			d += "; "
		}
		d += once
	}
	return d
}
