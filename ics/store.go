package ics

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"

	// The event and task tables are registered as journaled by the
	// packages that own them (migrations 00002, 00003; uid on tasks in
	// 00005_ics.sql). ics writes their rows through SQL with their column
	// names, not through their tool handlers.
	_ "github.com/assistant-dev/assistant/tools/events"
)

// ImportOptions tunes Import.
type ImportOptions struct {
	// DryRun works out what would be created, updated and skipped and
	// changes nothing.
	DryRun bool
	// Source names the file in the change's summary ("calendar.ics") and
	// in the *NotCalendarError of a file that is no calendar.
	Source string
}

// Counts says what an import did (or, dry, would do) to one kind of row.
type Counts struct {
	Created, Updated, Unchanged int
}

// Report is what Import did.
type Report struct {
	Events, Overrides, Tasks Counts
	// Skipped lists, by line, what was not imported and why; Repaired
	// what was read in spite of a fault.
	Skipped, Repaired []Skipped
	// Change is the journal change ("c31") that undo takes back whole;
	// "" when nothing changed or on a dry run.
	Change string
	DryRun bool
	// The three phases, timed: reading the file, turning it into rows,
	// and the one write transaction.
	Parse, Validate, Write time.Duration
}

// Rows is the number of rows the import created or updated.
func (r Report) Rows() int {
	return r.Events.Created + r.Events.Updated + r.Overrides.Created + r.Overrides.Updated + r.Tasks.Created + r.Tasks.Updated
}

// Import reads an iCalendar stream and writes its events and tasks for
// person, idempotently: items are matched by UID (overrides by UID and
// RECURRENCE-ID), so importing the same file twice changes nothing and an
// updated file updates what changed. The whole file is parsed and turned
// into rows first; the rows are then written in one short transaction, one
// journal change, so `undo` takes the import back whole. Items in the store
// that the file does not mention are left alone. Input with no VCALENDAR
// (an empty file, a file of another kind) is refused with a
// *NotCalendarError naming opts.Source, and nothing is written.
func Import(ctx context.Context, st *store.Store, person store.Person, r io.Reader, opts ImportOptions) (Report, error) {
	rep := Report{DryRun: opts.DryRun}
	zone, err := tz.LoadZone(person.Zone)
	if err != nil {
		return rep, fmt.Errorf("the person's zone “%s” is not an IANA zone: %w", person.Zone, err)
	}
	now := time.Now()
	if st.Now != nil {
		now = st.Now()
	}
	t0 := time.Now()
	cal, err := Decode(r, DecodeOptions{Zone: zone, Now: now})
	var nc *NotCalendarError
	if errors.As(err, &nc) && opts.Source != "" {
		nc.Source = opts.Source
	}
	if err != nil {
		return rep, err
	}
	t1 := time.Now()
	rep.Parse = t1.Sub(t0)
	plan := planRows(cal, zone, now)
	rep.Skipped = append(cal.Skipped, plan.skipped...)
	rep.Repaired = cal.Repaired
	t2 := time.Now()
	rep.Validate = t2.Sub(t1)
	apply := func(tx *store.Tx) error { return plan.apply(tx, &rep, opts) }
	if opts.DryRun {
		err = st.Read(ctx, person.ID, apply)
	} else {
		rep.Change, err = st.Write(ctx, person.ID, "import", apply)
	}
	rep.Write = time.Since(t2)
	if err != nil {
		return rep, fmt.Errorf("the import was not written, nothing changed: %w", err)
	}
	return rep, nil
}

// planned is every row an import means to write, before the transaction.
type planned struct {
	events  []plannedEvent
	tasks   []task.Task
	skipped []Skipped
}

type plannedEvent struct {
	row       store.Row
	overrides []store.Row // without event_id
}

// reminderColumns are the stored forms of an item's alarms: minutes
// before (remind_before, tools/fields), and its absolute alarms as
// one-time reminders (remind_once: instants as RFC 3339 UTC texts), each
// fired once at its instant (RFC 5545 §3.8.6.3), never once per
// occurrence as a remind_at would.
func reminderColumns(a Alarms) (before, once string) {
	return item.Reminders{Before: a.RemindBefore}.BeforeJSON(), item.OnceJSON(a.RemindAt)
}

// overrideReminderColumns are the reminder columns of an occurrence's own
// alarms: minutes, and its absolute alarms as remind_at moments in the
// series' zone, which tools/events and the reminders job read an
// occurrence's remind_at in (it fires once, at its moment).
func overrideReminderColumns(a Alarms, zone tz.Zone) (string, string) {
	r := item.Reminders{Before: a.RemindBefore}
	for _, t := range a.RemindAt {
		r.At = append(r.At, tz.TimeMoment(zone.In(t)))
	}
	return r.BeforeJSON(), r.AtJSON()
}

// allDaySlack matches tools/events: an all-day series' stored bounds are
// widened by 26 h, as its days float with the person's zone.
const allDaySlack = 26 * time.Hour

// planRows turns the decoded calendar into rows of events, event_overrides
// and tasks (their migrations' column names), so the write transaction
// only compares and writes.
func planRows(cal *Calendar, person tz.Zone, now time.Time) planned {
	var p planned
	skip := func(line int, comp, uid, reason string) {
		p.skipped = append(p.skipped, Skipped{Line: line, Component: comp, UID: args.Clip(uid), Reason: reason})
	}
	for i := range cal.Events {
		e := &cal.Events[i]
		e.Summary = fitText(skip, e.Line, "VEVENT", e.UID, "SUMMARY", e.Summary, item.MaxTitle, true)
		e.Location = fitText(skip, e.Line, "VEVENT", e.UID, "LOCATION", e.Location, item.MaxLocation, true)
		e.Description = fitText(skip, e.Line, "VEVENT", e.UID, "DESCRIPTION", e.Description, item.MaxNotes, false)
		if e.RecurrenceID == nil && e.Rule != nil {
			if err := e.Series().CheckOccurs(); err != nil && !onlyStart(err) {
				skip(e.Line, "VEVENT", e.UID, neverOccurs(err))
				e.Rule = nil
			}
		}
	}
	masters := map[string]int{} // uid → index in p.events
	var overrides []*Event
	for i := range cal.Events {
		e := &cal.Events[i]
		if e.RecurrenceID != nil {
			overrides = append(overrides, e)
			continue
		}
		if e.Status == "CANCELLED" {
			skip(e.Line, "VEVENT", e.UID, "a cancelled event (STATUS:CANCELLED) is not imported")
			continue
		}
		if e.Floating || e.AllDay {
			e.Zone = person
		}
		row := eventRow(e, person, now)
		masters[e.UID] = len(p.events)
		p.events = append(p.events, plannedEvent{row: row})
	}
	for _, ov := range overrides {
		mi, ok := masters[ov.UID]
		if !ok {
			skip(ov.Line, "VEVENT", ov.UID, "a changed occurrence (RECURRENCE-ID) whose series is not in the file is not imported")
			continue
		}
		var master *Event
		for i := range cal.Events {
			if cal.Events[i].UID == ov.UID && cal.Events[i].RecurrenceID == nil {
				master = &cal.Events[i]
				break
			}
		}
		row := overrideRow(master, ov, person, now)
		pe := &p.events[mi]
		pe.overrides = append(pe.overrides, row)
		// An override moved outside the series' span widens it.
		if sa, ok := row["start_at"].(int64); ok {
			if first := pe.row["first_at"].(int64); sa < first {
				pe.row["first_at"] = sa
			}
			if last, ok := pe.row["last_at"].(int64); ok && row["end_at"].(int64) > last {
				pe.row["last_at"] = row["end_at"]
			}
		}
	}
	for i := range cal.Tasks {
		p.tasks = append(p.tasks, planTask(&cal.Tasks[i], person, now, skip))
	}
	return p
}

// planTask applies the tools' rules to an imported to-do (text bounds,
// tags, what a task cannot keep) and gives the task it becomes; skip
// records what was cut or left out.
func planTask(t *Task, person tz.Zone, now time.Time, skip func(line int, comp, uid, reason string)) task.Task {
	if t.Floating {
		t.Zone = person
	}
	t.Summary = fitText(skip, t.Line, "VTODO", t.UID, "SUMMARY", t.Summary, item.MaxTitle, true)
	t.Description = fitText(skip, t.Line, "VTODO", t.UID, "DESCRIPTION", t.Description, item.MaxNotes, false)
	tags, seen := t.Tags[:0], map[string]bool{}
	for _, tag := range t.Tags {
		tag = fitText(skip, t.Line, "VTODO", t.UID, "A CATEGORIES item", strings.TrimLeft(strings.TrimSpace(args.CleanLine(tag)), "#"), task.MaxTag, true)
		if tag != "" && !seen[strings.ToLower(tag)] {
			seen[strings.ToLower(tag)] = true
			tags = append(tags, tag)
		}
	}
	if len(tags) > task.MaxTags {
		skip(t.Line, "VTODO", t.UID, fmt.Sprintf("CATEGORIES has %d items, more than the %d tags a task keeps; the first %d are imported", len(tags), task.MaxTags, task.MaxTags))
		tags = tags[:task.MaxTags]
	}
	t.Tags = tags
	if t.HasStart {
		// The tasks table has a due and no start; DTSTART only
		// served as the base of the to-do's relative alarms (RFC 5545
		// §3.8.6.3) and the anchor of its RRULE.
		skip(t.StartLine, "VTODO", t.UID, "DTSTART of a to-do is not kept (tasks have a due, not a start); it was used only as the base of the to-do's alarms")
	}
	if t.Rule != nil && !t.HasDue {
		skip(t.Line, "VTODO", t.UID, "a repeating task without DUE is imported without repeating (tasks repeat from their due)")
		t.Rule = nil
	}
	if t.Rule != nil {
		if err := t.Series().CheckOccurs(); err != nil && !onlyStart(err) {
			skip(t.Line, "VTODO", t.UID, neverOccurs(err))
			t.Rule = nil
		}
	}
	return importedTask(t, now)
}

// fitText applies the tools' rules to the text of property prop of an
// imported item: a one-line text (SUMMARY, LOCATION, a title) as
// [args.CleanLine] cleans it (invisible format characters such as U+200B
// dropped) and trimmed, a body (DESCRIPTION, notes) as [args.CleanBody]
// (a leading byte order mark dropped). A text longer than most characters
// is cut there, as a calendar client keeps what it can rather than drop
// the item, and skip names what was left out.
func fitText(skip func(line int, comp, uid, reason string), line int, comp, uid, prop, s string, most int, oneLine bool) string {
	if oneLine {
		s = strings.TrimSpace(args.CleanLine(s))
	} else {
		s = args.CleanBody(s)
	}
	if len(s) <= most {
		return s
	}
	count := utf8.RuneCountInString(s)
	if count <= most {
		return s
	}
	i := 0
	for range most {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	skip(line, comp, uid, fmt.Sprintf("%s has %d characters, more than the %d an item keeps; its first %d are imported and the rest is left out", prop, count, most, most))
	return strings.TrimRightFunc(s[:i], unicode.IsSpace)
}

// onlyStart reports whether err refuses a rule only because its UNTIL
// leaves DTSTART its one occurrence ([recur.Error.OnlyStart]): a file may
// hold such a rule (the export of a series cut down to one occurrence
// does), and it is kept as it is, with nothing to report.
func onlyStart(err error) bool {
	var re *recur.Error
	return errors.As(err, &re) && re.OnlyStart
}

// neverOccurs is the report's line for an RRULE the tools would refuse as
// giving nothing after DTSTART, or less than its COUNT
// ([recur.Series.CheckOccurs]): the item is
// kept as its DTSTART alone, which RFC 5545 §3.8.5.3 counts as its first
// occurrence, rather than stored as a rule that never repeats.
func neverOccurs(err error) string {
	return "its RRULE is one the tools refuse (" + strings.TrimSuffix(err.Error(), ".") +
		"), so the item is imported as its DTSTART alone, its first occurrence, without the RRULE"
}

func eventRow(e *Event, person tz.Zone, now time.Time) store.Row {
	s := e.Series()
	startAt, _ := e.Zone.MomentInstant(e.Start)
	endLocal := e.End
	endAt := startAt.Add(s.Duration)
	if e.AllDay {
		endLocal = tz.DayMoment(e.End.Date.AddDays(1))
		endAt = e.Zone.StartOfDay(endLocal.Date)
	}
	first, last, bounded := s.Bounds()
	if e.AllDay {
		first = first.Add(-allDaySlack)
		last = last.Add(allDaySlack)
	}
	title := strings.TrimSpace(e.Summary)
	if title == "" {
		title = "(no title)"
	}
	rb, once := reminderColumns(e.Alarms)
	row := store.Row{
		"uid": e.UID, "title": title, "location": e.Location, "notes": e.Description,
		"all_day": boolInt(e.AllDay), "start_local": e.Start.String(), "end_local": endLocal.String(), "tzid": e.Zone.Name(),
		"start_at": startAt.Unix(), "end_at": endAt.Unix(), "rrule": nil,
		"exdates": tz.MomentsJSON(e.ExDates), "rdates": tz.MomentsJSON(e.RDates),
		"first_at": first.Unix(), "last_at": nil,
		"remind_before": rb, "remind_at": "[]", "remind_once": once, "created_at": now.Unix(),
	}
	if e.Rule != nil {
		row["rrule"] = e.Rule.String()
	}
	if bounded {
		row["last_at"] = last.Unix()
	}
	return row
}

// occurrenceKey is an occurrence's RECURRENCE-ID as tools/events keys it
// (design §4): the original start in UTC form, or the date for all-day.
func occurrenceKey(master *Event, rid tz.Moment) string {
	if master.AllDay {
		return rid.Date.Basic()
	}
	t, _ := master.Zone.Instant(rid.DateTime)
	return t.UTC().Format("20060102T150405Z")
}

func overrideRow(master, ov *Event, person tz.Zone, now time.Time) store.Row {
	row := store.Row{
		"recurrence_id": occurrenceKey(master, *ov.RecurrenceID), "cancelled": boolInt(ov.Status == "CANCELLED"),
		"title": nil, "location": nil, "notes": nil,
		"start_local": nil, "end_local": nil, "tzid": nil, "start_at": nil, "end_at": nil,
		"remind_before": nil, "remind_at": nil, "created_at": now.Unix(),
	}
	if ov.Summary != master.Summary {
		row["title"] = ov.Summary
	}
	if ov.Location != master.Location {
		row["location"] = ov.Location
	}
	if ov.Description != master.Description {
		row["notes"] = ov.Description
	}
	if ov.Floating || ov.AllDay {
		ov.Zone = person
	}
	// The occurrence's own time, when it moved or changed length.
	orig := ov.RecurrenceID
	origAt, _ := master.Zone.MomentInstant(*orig)
	startAt, _ := ov.Zone.MomentInstant(ov.Start)
	dur := ov.Duration()
	if !startAt.Equal(origAt) || dur != master.Duration() || ov.AllDay != master.AllDay {
		endLocal := ov.End
		endAt := startAt.Add(dur)
		if ov.AllDay {
			endLocal = tz.DayMoment(ov.End.Date.AddDays(1))
			endAt = ov.Zone.StartOfDay(endLocal.Date)
		}
		row["start_local"], row["end_local"], row["tzid"] = ov.Start.String(), endLocal.String(), ov.Zone.Name()
		row["start_at"], row["end_at"] = startAt.Unix(), endAt.Unix()
	}
	rb, ro := reminderColumns(ov.Alarms)
	mb, mo := reminderColumns(master.Alarms)
	if rb != mb || ro != mo {
		row["remind_before"], row["remind_at"] = overrideReminderColumns(ov.Alarms, master.Zone)
	}
	return row
}

// importedTask is the task a VTODO becomes: its due pinned to its zone
// (the person's for a floating one, set by planRows), its alarms as
// minutes before and one-time reminders (reminderColumns), open or done
// as its STATUS says, completed now when the file says done but not when.
func importedTask(t *Task, now time.Time) task.Task {
	title := strings.TrimSpace(t.Summary)
	if title == "" {
		title = "(no title)"
	}
	out := task.New(title, now)
	out.UID, out.Notes, out.Priority, out.Tags = t.UID, t.Description, t.Priority, t.Tags
	if t.HasDue {
		out.HasDue, out.Due = true, task.Day(t.Due.Date)
		if t.Due.HasTime {
			out.Due = task.Timed(t.Due.DateTime, t.Zone)
		}
	}
	if t.Rule != nil {
		out.Rule, out.RepeatFrom = t.Rule, task.Schedule
		if t.FromCompletion {
			out.RepeatFrom = task.FromCompletion
		}
	}
	out.Reminders.Before = t.Alarms.RemindBefore
	out.RemindOnce = t.Alarms.RemindAt
	if t.Done {
		out.Status, out.CompletedAt = task.Done, now
		if !t.Completed.IsZero() {
			out.CompletedAt = t.Completed
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// changed returns the columns of want that differ from have (created_at
// aside: an item keeps the day it first came in).
func changed(have, want store.Row) store.Row {
	out := store.Row{}
	for k, v := range want {
		if k == "created_at" {
			continue
		}
		if fmt.Sprint(have[k]) != fmt.Sprint(v) {
			out[k] = v
		}
	}
	return out
}

// existing reads the live rows of one table of tx's owner keyed by key(row).
func existing(tx *store.Tx, query string, cols []string, key func(store.Row) string) (map[string]store.Row, error) {
	out := map[string]store.Row{}
	err := eachRow(tx, cols, query, []any{tx.Owner()}, func(r store.Row) error {
		out[key(r)] = r
		return nil
	})
	return out, err
}

var (
	eventCols    = []string{"id", "uid", "title", "location", "notes", "all_day", "start_local", "end_local", "tzid", "start_at", "end_at", "rrule", "exdates", "rdates", "first_at", "last_at", "remind_before", "remind_at", "remind_once"}
	overrideCols = []string{"id", "event_id", "recurrence_id", "cancelled", "title", "location", "notes", "start_local", "end_local", "tzid", "start_at", "end_at", "remind_before", "remind_at"}
)

// apply compares the planned rows with the owner's live rows and writes
// the difference (or, dry, only counts it).
func (p *planned) apply(tx *store.Tx, rep *Report, opts ImportOptions) error {
	evs, err := existing(tx, `SELECT `+strings.Join(eventCols, ", ")+` FROM events WHERE owner_id = ? AND deleted_at IS NULL`, eventCols,
		func(r store.Row) string { return fmt.Sprint(r["uid"]) })
	if err != nil {
		return err
	}
	ovs, err := existing(tx, `SELECT `+strings.Join(overrideCols, ", ")+` FROM event_overrides WHERE owner_id = ? AND deleted_at IS NULL`, overrideCols,
		func(r store.Row) string { return fmt.Sprint(r["event_id"], "@", r["recurrence_id"]) })
	if err != nil {
		return err
	}
	// update changes have to want where they differ; new rows are
	// counted here and inserted in batches (store.Tx.InsertMany), which
	// journal them without reading each back.
	update := func(table string, have, want store.Row, c *Counts) error {
		diff := changed(have, want)
		if len(diff) == 0 {
			c.Unchanged++
			return nil
		}
		c.Updated++
		if opts.DryRun {
			return nil
		}
		return tx.Update(table, have["id"].(int64), diff)
	}
	insert := func(table string, rows []store.Row, c *Counts) ([]int64, error) {
		c.Created += len(rows)
		if opts.DryRun || len(rows) == 0 {
			return make([]int64, len(rows)), nil
		}
		return tx.InsertMany(table, rows)
	}
	eventIDs := make([]int64, len(p.events)) // 0 for a new event on a dry run
	var fresh []store.Row
	var freshAt []int
	for i, pe := range p.events {
		have := evs[pe.row["uid"].(string)]
		if have == nil {
			fresh, freshAt = append(fresh, pe.row), append(freshAt, i)
			continue
		}
		eventIDs[i] = have["id"].(int64)
		if err := update("events", have, pe.row, &rep.Events); err != nil {
			return fmt.Errorf("event %s: %w", pe.row["uid"], err)
		}
	}
	ids, err := insert("events", fresh, &rep.Events)
	if err != nil {
		return fmt.Errorf("the events: %w", err)
	}
	for k, id := range ids {
		eventIDs[freshAt[k]] = id
	}
	fresh = fresh[:0]
	for i, pe := range p.events {
		id := eventIDs[i]
		for _, ov := range pe.overrides {
			ov["event_id"] = id
			var have store.Row
			if id != 0 {
				have = ovs[fmt.Sprint(id, "@", ov["recurrence_id"])]
			}
			if have == nil {
				fresh = append(fresh, ov)
				continue
			}
			if err := update("event_overrides", have, ov, &rep.Overrides); err != nil {
				return fmt.Errorf("override %s of %s: %w", ov["recurrence_id"], pe.row["uid"], err)
			}
		}
	}
	if _, err := insert("event_overrides", fresh, &rep.Overrides); err != nil {
		return fmt.Errorf("the changed occurrences: %w", err)
	}
	if err := p.applyTasks(tx, &rep.Tasks, opts.DryRun); err != nil {
		return err
	}
	if !opts.DryRun {
		src := opts.Source
		if src == "" {
			src = "a calendar"
		}
		tx.Summarize(fmt.Sprintf("imported %s: %d events, %d changed occurrences, %d tasks added or updated",
			src, rep.Events.Created+rep.Events.Updated, rep.Overrides.Created+rep.Overrides.Updated, rep.Tasks.Created+rep.Tasks.Updated))
	}
	return nil
}

// applyTasks writes the planned tasks: those whose UID a live task of the
// owner has update it where they differ, the others are added in batches
// (or, dry, only counted in c).
func (p *planned) applyTasks(tx *store.Tx, c *Counts, dry bool) error {
	have, err := tx.TasksByUID()
	if err != nil {
		return err
	}
	var fresh []task.Task
	for _, t := range p.tasks {
		old, ok := have[t.UID]
		switch {
		case !ok:
			fresh = append(fresh, t)
			continue
		case len(store.TaskChanges(old, t)) == 0:
			c.Unchanged++
			continue
		}
		c.Updated++
		if dry {
			continue
		}
		if _, err := tx.SaveTask(old, t); err != nil {
			return fmt.Errorf("task %s: %w", t.UID, err)
		}
	}
	c.Created += len(fresh)
	if dry || len(fresh) == 0 {
		return nil
	}
	if _, err := tx.InsertTasks(fresh); err != nil {
		return fmt.Errorf("the tasks: %w", err)
	}
	return nil
}

// touches reports whether the series e, with its overrides, shows an
// occurrence overlapping [from, to) (a zero bound is open). The stored
// bounds only narrow the rows down: an all-day series' are widened by a day
// either side, and a series may skip the window between its first and last
// occurrence. With both bounds the window is expanded; with one, the
// series' own bounds and its overrides' times decide.
func touches(e *Event, ovs []*Event, from, to time.Time) bool {
	switch {
	case from.IsZero() && to.IsZero():
		return true
	case !from.IsZero() && !to.IsZero():
		return touchesWindow(e, ovs, from, to)
	}
	first, last, bounded := e.Series().Bounds()
	if !from.IsZero() && (!bounded || last.After(from)) {
		return true
	}
	if !to.IsZero() && first.Before(to) {
		return true
	}
	for _, ov := range ovs {
		if ov.Status == "CANCELLED" {
			continue
		}
		in := ov.instance(*ov.RecurrenceID, true, false)
		if (!from.IsZero() && in.End.After(from)) || (!to.IsZero() && in.Start.Before(to)) {
			return true
		}
	}
	return false
}

// touchesWindow is touches with both bounds. An override shows its own
// time (none when cancelled); the other occurrences are looked for in
// growing stretches of the window, stopping at the first one, so the
// work follows the occurrences looked at, never the window's length.
func touchesWindow(e *Event, ovs []*Event, from, to time.Time) bool {
	overridden := make(map[tz.Moment]bool, len(ovs))
	for _, ov := range ovs {
		overridden[*ov.RecurrenceID] = true
		if ov.Status == "CANCELLED" {
			continue
		}
		in := ov.instance(*ov.RecurrenceID, true, false)
		if in.Start.Before(to) && (in.End.After(from) || (in.End.Equal(in.Start) && !in.Start.Before(from))) {
			return true
		}
	}
	s := e.Series()
	step := 24 * time.Hour
	for lo := from; lo.Before(to); {
		hi := lo.Add(step)
		if !hi.Before(to) {
			hi = to
		}
		found := s.Between(lo, hi)
		for _, o := range found {
			if !overridden[o.Original] {
				return true
			}
		}
		lo = hi
		if len(found) < 16 {
			step = min(2*step, 64*24*time.Hour)
		}
	}
	return false
}

// Export writes person's events and tasks as one iCalendar file to w,
// streamed row by row: the events with an occurrence overlapping [from, to)
// (every event when both are zero), each whole with its rule and all its
// changed and cancelled occurrences, and the
// tasks due in that window or with no due. Times keep their zones; a
// VTIMEZONE is written for each zone used.
func Export(ctx context.Context, st *store.Store, person store.Person, w io.Writer, from, to time.Time) error {
	zone, err := tz.LoadZone(person.Zone)
	if err != nil {
		return fmt.Errorf("the person's zone “%s” is not an IANA zone: %w", person.Zone, err)
	}
	lo, hi := int64(-1<<62), int64(1<<62)
	if !from.IsZero() {
		lo = from.Unix()
	}
	if !to.IsZero() {
		hi = to.Unix()
	}
	return st.Read(ctx, person.ID, func(tx *store.Tx) error {
		evWhere := `owner_id = ? AND deleted_at IS NULL AND first_at < ? AND (last_at IS NULL OR last_at > ?)`
		tks, err := tx.Tasks(exportFilter(zone, from, to))
		if err != nil {
			return err
		}
		// Zones and years first: the VTIMEZONEs go before the items.
		var zones []tz.Zone
		seen := map[string]bool{}
		fromY, toY := 0, 0
		note := func(name sql.NullString, minAt, maxAt sql.NullInt64) {
			if name.Valid && !seen[name.String] {
				if z, err := tz.LoadZone(name.String); err == nil {
					seen[name.String] = true
					zones = append(zones, z)
				}
			}
			if minAt.Valid {
				if y := time.Unix(minAt.Int64, 0).UTC().Year(); fromY == 0 || y < fromY {
					fromY = y
				}
			}
			if maxAt.Valid {
				toY = max(toY, time.Unix(maxAt.Int64, 0).UTC().Year())
			}
		}
		collect := func(q string, args ...any) error {
			rows, err := tx.Query(q, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var name sql.NullString
				var minAt, maxAt sql.NullInt64
				if err := rows.Scan(&name, &minAt, &maxAt); err != nil {
					return err
				}
				note(name, minAt, maxAt)
			}
			return rows.Err()
		}
		if err := collect(`SELECT tzid, MIN(start_at), MAX(COALESCE(last_at, start_at + 315576000)) FROM events WHERE `+evWhere+` AND all_day = 0 GROUP BY tzid`, tx.Owner(), hi, lo); err != nil {
			return err
		}
		if err := collect(`SELECT tzid, MIN(start_at), MAX(start_at) FROM event_overrides WHERE owner_id = ? AND deleted_at IS NULL AND tzid IS NOT NULL GROUP BY tzid`, tx.Owner()); err != nil {
			return err
		}
		for _, z := range taskZones(tks) {
			note(sql.NullString{String: z.name, Valid: true}, sql.NullInt64{Int64: z.first, Valid: true}, sql.NullInt64{Int64: z.last, Valid: true})
		}
		wr := NewWriter(w, WriterOptions{Zones: zones, FromYear: fromY, ToYear: min(toY, 9998), Stamp: tx.Now()})
		ovByEvent, err := loadOverrides(tx)
		if err != nil {
			return err
		}
		err = eachRow(tx, eventCols, `SELECT `+strings.Join(eventCols, ", ")+` FROM events WHERE `+evWhere+` ORDER BY start_at, id`,
			[]any{tx.Owner(), hi, lo}, func(r store.Row) error {
				e, err := eventFromRow(r, zone)
				if err != nil {
					return err
				}
				if !heldEnd(e) {
					// Kept before such ends were refused; RFC 5545 cannot
					// write the year 10000, so the file goes without it.
					return nil
				}
				var ovs []*Event
				for _, o := range ovByEvent[r["id"].(int64)] {
					ov, err := overrideFromRow(e, o, zone)
					if err != nil {
						return err
					}
					ovs = append(ovs, ov)
				}
				if !touches(e, ovs, from, to) {
					return nil
				}
				if err := wr.Event(e); err != nil {
					return err
				}
				for _, ov := range ovs {
					if err := wr.Event(ov); err != nil {
						return err
					}
				}
				return nil
			})
		if err != nil {
			return err
		}
		for _, tk := range tks {
			t, err := exportedTask(tk, zone)
			if err != nil {
				return err
			}
			if err := wr.Task(t); err != nil {
				return err
			}
		}
		return wr.Close()
	})
}

// eachRow runs query with args and calls fn with each row read as cols
// (TEXT as string), in order, stopping at the first error.
func eachRow(tx *store.Tx, cols []string, query string, args []any, fn func(store.Row) error) error {
	rows, err := tx.Query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
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
			if b, ok := vals[i].([]byte); ok {
				r[c] = string(b)
			} else {
				r[c] = vals[i]
			}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// loadOverrides reads tx's owner's live overrides by their event's id,
// each event's in RECURRENCE-ID order.
func loadOverrides(tx *store.Tx) (map[int64][]store.Row, error) {
	out := map[int64][]store.Row{}
	err := eachRow(tx, overrideCols, `SELECT `+strings.Join(overrideCols, ", ")+` FROM event_overrides WHERE owner_id = ? AND deleted_at IS NULL ORDER BY recurrence_id`,
		[]any{tx.Owner()}, func(r store.Row) error {
			id := r["event_id"].(int64)
			out[id] = append(out[id], r)
			return nil
		})
	return out, err
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// alarmsFromColumns reads stored reminders back as alarms: remind_at
// moments read in zone (the item's, as the tools and the reminders job
// read them) and remind_once instants both become absolute alarms. On a
// repeating item (repeatFrom is the instant of its DTSTART or first due),
// a remind_at keeps its distance from the start of every occurrence, which
// is a relative trigger, so it is written as one when it comes before the
// start by at most four weeks (an absolute one would fire only once when
// read back).
func alarmsFromColumns(before, at, once string, zone tz.Zone, repeatFrom *time.Time) (Alarms, error) {
	r, err := item.ParseReminders(before, at)
	if err != nil {
		return Alarms{}, err
	}
	ts, err := item.ParseOnce(once)
	if err != nil {
		return Alarms{}, err
	}
	return alarmsOf(r, ts, zone, repeatFrom), nil
}

// alarmsOf is alarmsFromColumns of reminders already read.
func alarmsOf(r item.Reminders, once []time.Time, zone tz.Zone, repeatFrom *time.Time) Alarms {
	a := Alarms{RemindBefore: r.Before}
	for _, m := range r.At {
		t, _ := zone.MomentInstant(m)
		if repeatFrom != nil && !t.After(*repeatFrom) && repeatFrom.Sub(t) <= maxRemindMinutes*time.Minute {
			a.RemindBefore = append(a.RemindBefore, int(repeatFrom.Sub(t)/time.Minute))
			continue
		}
		a.RemindAt = append(a.RemindAt, t)
	}
	a.RemindBefore = uniqueInts(a.RemindBefore)
	a.RemindAt = uniqueTimes(append(a.RemindAt, once...))
	return a
}

// heldEnd reports whether e ends within the years RFC 5545 can write
// (before [tz.LastInstant] in UTC and in its zone). Stored ends past it
// come from before they were refused at write time.
func heldEnd(e *Event) bool {
	if e.Start.Year > 9999 || e.End.Year > 9999 || (e.AllDay && e.End.Date == (tz.Date{Year: 9999, Month: time.December, Day: 31})) {
		return false
	}
	if e.AllDay {
		return true
	}
	end, _ := e.Zone.Instant(e.End.DateTime)
	start, _ := e.Zone.Instant(e.Start.DateTime)
	return e.Zone.Holds(end) && e.Zone.Holds(start)
}

// eventFromRow reads one events row back into the model.
func eventFromRow(r store.Row, person tz.Zone) (*Event, error) {
	bad := func(err error) (*Event, error) {
		return nil, fmt.Errorf("event e%v cannot be exported: %w", r["id"], err)
	}
	z, err := tz.LoadZone(str(r["tzid"]))
	if err != nil {
		return bad(err)
	}
	e := &Event{UID: str(r["uid"]), Summary: str(r["title"]), Location: str(r["location"]), Description: str(r["notes"]), Zone: z}
	e.AllDay = r["all_day"] == int64(1)
	if e.Start, err = tz.ParseMoment(str(r["start_local"])); err != nil {
		return bad(err)
	}
	end, err := tz.ParseMoment(str(r["end_local"]))
	if err != nil {
		return bad(err)
	}
	e.End = end
	if !e.AllDay {
		// The stored instants tell the two readings of a repeated hour apart.
		if at, ok := r["start_at"].(int64); ok {
			e.Start.DateTime = z.Reading(e.Start.DateTime, time.Unix(at, 0))
		}
		if at, ok := r["end_at"].(int64); ok {
			e.End.DateTime = z.Reading(e.End.DateTime, time.Unix(at, 0))
		}
	}
	if e.AllDay {
		e.End = tz.DayMoment(end.Date.AddDays(-1))
		if e.End.Date.Before(e.Start.Date) {
			e.End = e.Start
		}
	}
	if rr := str(r["rrule"]); rr != "" {
		if e.Rule, err = recur.ParseRule(rr); err != nil {
			return bad(err)
		}
	}
	if e.ExDates, err = tz.ParseMomentsJSON(str(r["exdates"])); err != nil {
		return bad(err)
	}
	if e.RDates, err = tz.ParseMomentsJSON(str(r["rdates"])); err != nil {
		return bad(err)
	}
	var repeatFrom *time.Time
	if e.Rule != nil || len(e.RDates) > 0 {
		base := z
		if e.AllDay {
			base = person // all-day days begin at 00:00 in the person's zone
		}
		first, _ := base.MomentInstant(e.Start)
		repeatFrom = &first
	}
	if e.Alarms, err = alarmsFromColumns(str(r["remind_before"]), str(r["remind_at"]), str(r["remind_once"]), z, repeatFrom); err != nil {
		return bad(err)
	}
	return e, nil
}

// overrideFromRow builds the VEVENT of one changed or cancelled occurrence:
// its RECURRENCE-ID from the stored key, NULL fields from the series.
func overrideFromRow(master *Event, r store.Row, person tz.Zone) (*Event, error) {
	key := str(r["recurrence_id"])
	ov := *master
	ov.Rule, ov.ExDates, ov.RDates = nil, nil, nil
	var rid tz.Moment
	if master.AllDay {
		m, _, err := tz.ParseBasic(key)
		if err != nil {
			return nil, fmt.Errorf("override %s of %s: %w", key, master.UID, err)
		}
		rid = tz.DayMoment(m.Date)
	} else {
		t, err := time.Parse("20060102T150405Z", key)
		if err != nil {
			return nil, fmt.Errorf("override %s of %s: %w", key, master.UID, err)
		}
		rid = tz.TimeMoment(master.Zone.In(t))
		// An occurrence whose rule time fell in a DST gap was moved
		// forward (RFC 5545 §3.3.5); its RECURRENCE-ID is the rule time,
		// which readers move the same way, not the moved clock reading.
		s := master.Series()
		for _, o := range s.StartsBetween(t, t.Add(time.Minute)) {
			if o.Moved && o.Start.Equal(t) {
				rid = o.Original
			}
		}
	}
	ov.RecurrenceID, ov.RecurrenceZone = &rid, master.Zone
	if r["cancelled"] == int64(1) {
		ov.Status = "CANCELLED"
	}
	if r["title"] != nil {
		ov.Summary = str(r["title"])
	}
	if r["location"] != nil {
		ov.Location = str(r["location"])
	}
	if r["notes"] != nil {
		ov.Description = str(r["notes"])
	}
	if r["start_local"] != nil {
		z, err := tz.LoadZone(str(r["tzid"]))
		if err != nil {
			return nil, err
		}
		ov.Zone = z
		s, err1 := tz.ParseMoment(str(r["start_local"]))
		en, err2 := tz.ParseMoment(str(r["end_local"]))
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		if at, ok := r["start_at"].(int64); ok && s.HasTime {
			s.DateTime = z.Reading(s.DateTime, time.Unix(at, 0))
		}
		if at, ok := r["end_at"].(int64); ok && en.HasTime {
			en.DateTime = z.Reading(en.DateTime, time.Unix(at, 0))
		}
		ov.Start, ov.End, ov.AllDay = s, en, !s.HasTime
		if ov.AllDay {
			ov.End = tz.DayMoment(en.Date.AddDays(-1))
		}
	} else {
		// The occurrence keeps its time: its original start and the
		// series' length.
		ov.Start = rid
		if master.AllDay {
			ov.End = tz.DayMoment(rid.Date.AddDays(master.Start.Date.DaysUntil(master.End.Date)))
		} else {
			t, _ := master.Zone.Instant(rid.DateTime)
			ov.End = tz.TimeMoment(master.Zone.In(t.Add(master.Duration())))
		}
	}
	if r["remind_before"] != nil || r["remind_at"] != nil {
		a, err := alarmsFromColumns(str(r["remind_before"]), str(r["remind_at"]), "", master.Zone, nil)
		if err != nil {
			return nil, err
		}
		ov.Alarms = a
	}
	return &ov, nil
}

// exportFilter selects the tasks an export of [from, to) holds (a zero
// bound is open): those due in it, a floating day taken in zone, and those
// with no due.
func exportFilter(zone tz.Zone, from, to time.Time) store.TaskFilter {
	f := store.TaskFilter{Window: true, WithoutDue: true, From: from, To: to}
	if !from.IsZero() {
		f.FromDay = zone.Today(from)
	}
	if !to.IsZero() {
		// The last day, compared with <=: the day after 9999-12-31 would
		// sort as text before every other day.
		last := zone.Today(to.Add(-time.Second))
		if last.Year > 9999 {
			last = tz.Date{Year: 9999, Month: time.December, Day: 31}
		}
		f.ToDay = last
	}
	return f
}

// taskZone is one zone the timed dues of tasks are pinned to, with the
// first and last of their instants (Unix seconds).
type taskZone struct {
	name        string
	first, last int64
}

// taskZones lists the zones of the timed dues of ts, by name.
func taskZones(ts []task.Task) []taskZone {
	var out []taskZone
	at := map[string]int{}
	for _, t := range ts {
		if !t.HasDue || !t.Due.HasTime {
			continue
		}
		name, sec := t.Due.Zone.Name(), t.Due.At.Unix()
		i, ok := at[name]
		if !ok {
			at[name] = len(out)
			out = append(out, taskZone{name: name, first: sec, last: sec})
			continue
		}
		out[i].first, out[i].last = min(out[i].first, sec), max(out[i].last, sec)
	}
	slices.SortFunc(out, func(a, b taskZone) int { return strings.Compare(a.name, b.name) })
	return out
}

// exportedTask is a stored task as a VTODO of the model; a task the tools
// made has no UID, and gets one from its id. A timed due is written as
// its local time with TZID, which names the earlier of the two instants of
// a repeated hour (RFC 5545 §3.3.5), and its alarms are reckoned from that.
func exportedTask(s task.Task, person tz.Zone) (*Task, error) {
	t := &Task{UID: s.UID, Summary: s.Title, Description: s.Notes, Zone: person, Priority: s.Priority}
	if t.UID == "" {
		t.UID = task.Label(s.ID) + "@assistant"
	}
	if s.HasDue {
		t.HasDue, t.Due = true, tz.DayMoment(s.Due.Date)
		if s.Due.HasTime {
			dt := s.Due.DateTime
			dt.Fold = false
			t.Due, t.Zone = tz.TimeMoment(dt), s.Due.Zone
		}
	}
	if len(s.Tags) > 0 {
		t.Tags = s.Tags
	}
	if s.Rule != nil {
		t.Rule, t.FromCompletion = s.Rule, s.RepeatFrom == task.FromCompletion
	}
	t.Done = s.Status == task.Done
	t.Status = "NEEDS-ACTION"
	if t.Done {
		t.Status = "COMPLETED"
		t.Completed = s.CompletedAt
	}
	remZone := t.Zone // a timed due's zone, else the person's
	if s.RemindZone != "" && !t.Due.HasTime {
		z, err := tz.LoadZone(s.RemindZone)
		if err != nil {
			return nil, fmt.Errorf("task %s cannot be exported: %w", task.Label(s.ID), err)
		}
		remZone = z
	}
	var repeatFrom *time.Time
	if t.Rule != nil && t.HasDue {
		first := person.StartOfDay(t.Due.Date)
		if t.Due.HasTime {
			first, _ = t.Zone.Instant(t.Due.DateTime)
		}
		repeatFrom = &first
	}
	t.Alarms = alarmsOf(s.Reminders, s.RemindOnce, remZone, repeatFrom)
	return t, nil
}
