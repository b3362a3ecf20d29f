package ics

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
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
// updated file updates what changed. The stream is read component by
// component inside one write transaction, one journal change, so `undo`
// takes the import back whole: each series is written (in batches, its
// journal with it) as soon as it is read, unless the file changes one of
// its occurrences, and the rest when the stream ends. Items in the store
// that the file does not mention are left alone. Input with no VCALENDAR
// (an empty file, a file of another kind) is refused with a
// *NotCalendarError naming opts.Source, and nothing is written. An
// io.ReadSeeker (a file) is read twice (see Decode); any other reader is
// held in memory.
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
	var readErr error
	apply := func(tx *store.Tx) error {
		t0 := time.Now()
		w, err := newImportWriter(tx, &rep, opts.DryRun, zone, now)
		if err != nil {
			return err
		}
		read := readAhead(ctx, r, DecodeOptions{Zone: zone, Now: now, MoveMadeEventUIDs: true})
		for batch := range read.batches {
			if w.err == nil {
				if w.add(batch); w.err != nil {
					read.stop()
				}
			}
		}
		cal, err := read.wait()
		if w.err != nil {
			return w.err
		}
		var nc *NotCalendarError
		if errors.As(err, &nc) && opts.Source != "" {
			nc.Source = opts.Source
		}
		if err != nil {
			readErr = err
			return err
		}
		t1 := time.Now()
		rep.Parse = t1.Sub(t0)
		// What waited for the end: the series with changed occurrences,
		// those occurrences, the tasks.
		rest := planRows(cal, zone, now)
		w.plan.events = append(w.plan.events, rest.events...)
		w.plan.tasks, w.plan.lines = rest.tasks, rest.lines
		for i := range rest.skips {
			w.plan.skips[i] = append(w.plan.skips[i], read.plan.skips[i]...)
			w.plan.skips[i] = append(w.plan.skips[i], rest.skips[i]...)
		}
		rep.Skipped = append(cal.Skipped, w.plan.skipped()...)
		rep.Repaired = cal.Repaired
		t2 := time.Now()
		rep.Validate = t2.Sub(t1)
		err = w.plan.apply(tx, &rep, opts, w)
		rep.Write = time.Since(t2)
		return err
	}
	if opts.DryRun {
		err = st.Read(ctx, person.ID, apply)
	} else {
		rep.Change, err = st.Write(ctx, person.ID, "import", apply)
	}
	if readErr != nil {
		return rep, readErr
	}
	if err != nil {
		return rep, fmt.Errorf("the import was not written, nothing changed: %w", err)
	}
	return rep, nil
}

// planned is every row an import means to write, before the transaction.
type planned struct {
	now    time.Time // the import's: the created_at of new rows
	person tz.Zone   // the person's zone, where all-day and floating items live
	events []plannedEvent
	tasks  []task.Task
	lines  []int // of tasks, in the file
	// skips are the report's lines of the rules applied, by the step that
	// gave them: texts and rules of every event, cancelled series, changed
	// occurrences without their series, tasks; each in the order of the file.
	skips [4][]Skipped
}

// The steps of planned.skips.
const (
	skipTexts = iota
	skipCancelled
	skipOrphans
	skipTasks
)

// skipper records a line of the report at step.
func (p *planned) skipper(step int) func(line int, comp, uid, reason string) {
	return func(line int, comp, uid, reason string) {
		p.skips[step] = append(p.skips[step], Skipped{Line: line, Component: comp, UID: args.Clip(uid), Reason: reason})
	}
}

// loser records a line of the report at step for a loss the sender of
// the item would notice in what is stored ([Object.Lost]): reason, and
// fault, what is wrong without what the import made of it.
func (p *planned) loser(step int) func(line int, comp, uid, reason, fault string) {
	return func(line int, comp, uid, reason, fault string) {
		p.skips[step] = append(p.skips[step], Skipped{Line: line, Component: comp, UID: args.Clip(uid), Reason: reason, grave: true, fault: fault})
	}
}

// skipped is the report's lines of the rules applied, step by step, each
// step's in the order of the file.
func (p *planned) skipped() []Skipped {
	var out []Skipped
	for _, list := range p.skips {
		sort.SliceStable(list, func(i, j int) bool { return list[i].Line < list[j].Line })
		out = append(out, list...)
	}
	return out
}

// importWriter writes the series an import streams (decodeStream) in
// batches as they come, inside the import's transaction.
type importWriter struct {
	tx     *store.Tx
	rep    *Report
	dry    bool
	person tz.Zone
	plan   planned
	live   map[string]store.EventSpan     // the owner's live events of the UIDs looked up
	ovs    map[int64][]*calendar.Override // their live overrides by event
	batch  []plannedEvent                 // streamed, not written yet
	err    error                          // the first failed batch's
}

func newImportWriter(tx *store.Tx, rep *Report, dry bool, person tz.Zone, now time.Time) (*importWriter, error) {
	return &importWriter{tx: tx, rep: rep, dry: dry, person: person, plan: planned{now: now},
		live: map[string]store.EventSpan{}, ovs: map[int64][]*calendar.Override{}}, nil
}

// lookup reads the owner's live events of the series of pes, with their
// overrides, into w.live and w.ovs, in place of the last batch's: an
// import reads what its file names, not all the owner has (one event into
// 50,000 read them all: 0.44 s and 72 MB). The decoder gives each UID one
// series, so no UID comes twice.
func (w *importWriter) lookup(pes []plannedEvent) error {
	clear(w.live)
	clear(w.ovs)
	uids := make([]string, len(pes))
	for i := range pes {
		uids[i] = pes[i].src.UID
	}
	live, ovs, err := w.tx.LiveEventsOfUIDs(uids)
	if err != nil {
		return err
	}
	for _, sp := range live {
		w.live[sp.Event.UID] = sp
	}
	for id, list := range ovs {
		w.ovs[id] = list
	}
	return nil
}

// add takes a batch of streamed series, the rules applied (readAhead),
// and writes the batches they complete; after a failed write (w.err) it
// keeps nothing.
func (w *importWriter) add(pes []plannedEvent) {
	w.batch = append(w.batch, pes...)
	if len(w.batch) >= flushRows {
		w.err = w.flush()
	}
}

// reader is a calendar being read by its own goroutine (readAhead) while
// the import writes what it has read: on a machine of two cores the
// reading and the writing overlap.
type reader struct {
	// batches are the streamed series (see decodeStream), the rules of
	// planRows applied and their stored form made, readBatch at a time;
	// closed when the stream is read.
	batches <-chan []plannedEvent
	// plan holds the report's lines of the rules applied to them.
	plan    planned
	stopped chan struct{} // closed by stop: the reading ends early
	once    sync.Once
	done    chan struct{} // closed when the goroutine has ended
	cal     *Calendar
	err     error
	panic   any
}

// readBatch is how many series readAhead hands over at a time, and
// readQueue how many batches may wait: the series of one write of the
// import (flushRows), so the reading goes on while a write waits for
// the database and the next write's series are ready when it ends
// (with half of them the reading stopped while a write waited, and the
// writer then waited for it); what is read ahead of the writing stays a
// few thousand events.
const (
	readBatch = 256
	readQueue = flushRows / readBatch
)

// readAhead decodes r (decodeStream) in a goroutine of its own: each
// streamed series has checkEvent and planSeries applied and its stored
// form made there, and comes out of the reader's batches. Every batch
// must be received (or stop called, then the rest received); wait then
// gives what decodeStream returned. The reading stops early, with an
// error, when ctx is cancelled or stop is called.
func readAhead(ctx context.Context, r io.Reader, opts DecodeOptions) *reader {
	out := make(chan []plannedEvent, readQueue)
	rd := &reader{batches: out, plan: planned{now: opts.Now}, stopped: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(rd.done)
		defer close(out)
		defer func() {
			// A panic is carried over to the goroutine that waits, as if
			// the reading had run there.
			if p := recover(); p != nil {
				rd.panic = p
			}
		}()
		var batch []plannedEvent
		send := func() bool {
			select {
			case out <- batch:
				batch = make([]plannedEvent, 0, readBatch)
				return true
			case <-rd.stopped:
				return false
			}
		}
		var in io.Reader = &stoppable{r: r, ctx: ctx, stopped: rd.stopped}
		if rs, ok := r.(io.ReadSeeker); ok {
			in = &stoppableSeeker{stoppable{r: r, ctx: ctx, stopped: rd.stopped}, rs}
		}
		rd.cal, rd.err = decodeStream(in, opts, func(e *Event) {
			checkEvent(e, rd.plan.skipper(skipTexts))
			if !planSeries(e, opts.Zone, rd.plan.skipper(skipCancelled)) {
				return
			}
			pe := plannedEvent{src: e}
			// Its row is worked out here too, beside the writing, for
			// when it is a new event (applySeries).
			pe.prepared = store.PrepareEvent(pe.stored(opts.Now), nil)
			if batch = append(batch, pe); len(batch) >= readBatch {
				send()
			}
		})
		if len(batch) > 0 {
			send()
		}
	}()
	return rd
}

// stop ends the reading early: the goroutine's next read of the stream
// fails and no more batches are sent.
func (rd *reader) stop() { rd.once.Do(func() { close(rd.stopped) }) }

// wait waits for the goroutine to end (every batch received) and gives
// what decodeStream returned.
func (rd *reader) wait() (*Calendar, error) {
	<-rd.done
	if rd.panic != nil {
		panic(rd.panic)
	}
	return rd.cal, rd.err
}

// errStopped is what a stopped reading reads.
var errStopped = errors.New("the import stopped reading the file")

// stoppable is r, failing once ctx is done or stopped is closed.
type stoppable struct {
	r       io.Reader
	ctx     context.Context
	stopped chan struct{}
}

func (s *stoppable) Read(b []byte) (int, error) {
	select {
	case <-s.stopped:
		return 0, errStopped
	default:
	}
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	return s.r.Read(b)
}

// stoppableSeeker is stoppable of an io.ReadSeeker, which decodeStream
// reads twice rather than hold.
type stoppableSeeker struct {
	stoppable
	rs io.ReadSeeker
}

func (s *stoppableSeeker) Seek(offset int64, whence int) (int64, error) {
	return s.rs.Seek(offset, whence)
}

// flush writes the batch.
func (w *importWriter) flush() error {
	if len(w.batch) == 0 {
		return nil
	}
	err := w.lookup(w.batch)
	if err == nil {
		err = w.plan.applySeries(w.tx, w.rep, w.dry, w.batch, w.live, w.ovs)
	}
	clear(w.batch)
	w.batch = w.batch[:0]
	return err
}

type plannedEvent struct {
	src *Event // the series as decoded, planRows' rules applied
	// event is src as the store keeps it, made by stored when it is
	// compared or written and let go of once written: a large import
	// holds the decoded events and a batch of these, never both in full.
	event     *calendar.Event
	id        int64                // the stored event's, once known
	overrides []*calendar.Override // EventID set as they are written
	// prepared is event's row (store.PrepareEvent) when the reading
	// worked it out, for event without overrides.
	prepared store.PreparedEvent
}

// stored is pe's event as the store keeps it, created at now.
func (pe *plannedEvent) stored(now time.Time) *calendar.Event {
	if pe.event == nil {
		pe.event = storedEvent(pe.src, now)
	}
	return pe.event
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

// planRows turns the decoded calendar into rows of events, event_overrides
// and tasks (their migrations' column names), so the write transaction
// only compares and writes.
func planRows(cal *Calendar, person tz.Zone, now time.Time) planned {
	p := planned{now: now, person: person}
	for i := range cal.Events {
		checkEvent(&cal.Events[i], p.skipper(skipTexts))
	}
	masters := map[string]int{} // uid → index in p.events
	var overrides []*Event
	for i := range cal.Events {
		e := &cal.Events[i]
		if e.RecurrenceID != nil {
			overrides = append(overrides, e)
			continue
		}
		if !planSeries(e, person, p.skipper(skipCancelled)) {
			continue
		}
		masters[e.UID] = len(p.events)
		p.events = append(p.events, plannedEvent{src: e})
	}
	orphan := p.skipper(skipOrphans)
	for _, ov := range overrides {
		mi, ok := masters[ov.UID]
		if !ok {
			orphan(ov.Line, "VEVENT", ov.UID, "a changed occurrence (RECURRENCE-ID) whose series is not in the file is not imported")
			continue
		}
		// The decoder kept one series per UID (finish), the one here.
		pe := &p.events[mi]
		pe.overrides = append(pe.overrides, storedOverride(pe.src, ov, person))
	}
	for i := range cal.Tasks {
		p.tasks = append(p.tasks, planTask(&cal.Tasks[i], person, now, p.skipper(skipTasks), p.loser(skipTasks)))
		p.lines = append(p.lines, cal.Tasks[i].Line)
	}
	return p
}

// checkEvent applies the tools' rules to the texts and the rule of an
// event (a series or an override); skip records what was cut or left out.
func checkEvent(e *Event, skip func(line int, comp, uid, reason string)) {
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

// planSeries reports whether the series e (checked by checkEvent) is
// imported: a cancelled one is not, and skip says so; a floating or
// all-day one takes the person's zone.
func planSeries(e *Event, person tz.Zone, skip func(line int, comp, uid, reason string)) bool {
	if e.Status == "CANCELLED" {
		skip(e.Line, "VEVENT", e.UID, "a cancelled event (STATUS:CANCELLED) is not imported")
		return false
	}
	if e.Floating || e.AllDay {
		e.Zone = person
	}
	return true
}

// planTask applies the tools' rules to an imported to-do (text bounds,
// tags, what a task cannot keep) and gives the task it becomes; skip
// records what was cut or left out, lose what of that its sender would
// miss (its RRULE).
func planTask(t *Task, person tz.Zone, now time.Time, skip func(line int, comp, uid, reason string), lose func(line int, comp, uid, reason, fault string)) task.Task {
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
		lose(cmp.Or(t.RuleLine, t.Line), "VTODO", t.UID, "a repeating task without DUE is imported without repeating (tasks repeat from their due)",
			"a repeating to-do needs a DUE to repeat from (tasks repeat from their due)")
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

// textCut ends the reason of a text that was cut to fit: a loss its
// sender would notice ([Object.Lost]).
const textCut = "the rest is left out"

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
	skip(line, comp, uid, fmt.Sprintf("%s has %d characters, more than the %d an item keeps; its first %d are imported and "+textCut, prop, count, most, most))
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

// storedEvent is the series e as the store keeps it (its bounds, with
// its overrides, are the store's): an all-day DTEND the day after the
// last, reminders as remind_before and one-time remind_once, created now.
func storedEvent(e *Event, now time.Time) *calendar.Event {
	startAt, _ := e.Zone.MomentInstant(e.Start)
	endLocal := e.End
	endAt := startAt.Add(e.Series().Duration)
	if e.AllDay {
		endLocal = tz.DayMoment(e.End.Date.AddDays(1))
		endAt = e.Zone.StartOfDay(endLocal.Date)
	}
	title := strings.TrimSpace(e.Summary)
	if title == "" {
		title = "(no title)"
	}
	rb, once := reminderColumns(e.Alarms)
	return &calendar.Event{UID: e.UID, Title: title, Location: e.Location, Notes: e.Description,
		AllDay: e.AllDay, Zone: e.Zone, Start: e.Start, End: endLocal, StartAt: startAt.UTC(), EndAt: endAt.UTC(),
		Rule: e.Rule, ExDates: e.ExDates, RDates: e.RDates,
		RemindBefore: rb, RemindAt: "[]", RemindOnce: once, CreatedAt: now}
}

// storedOverride is the changed or cancelled occurrence ov of master as
// the store keeps it: keyed by [calendar.OccurrenceKey], with only what
// differs from the series.
func storedOverride(master, ov *Event, person tz.Zone) *calendar.Override {
	o := &calendar.Override{Key: calendar.OccurrenceKey(master.AllDay, master.Zone, *ov.RecurrenceID), Cancel: ov.Status == "CANCELLED"}
	text := func(v, of string) *string {
		if v == of {
			return nil
		}
		return &v
	}
	o.Title, o.Location, o.Notes = text(ov.Summary, master.Summary), text(ov.Location, master.Location), text(ov.Description, master.Description)
	if ov.Floating || ov.AllDay {
		ov.Zone = person
	}
	// The occurrence's own time, when it moved or changed length.
	origAt, _ := master.Zone.MomentInstant(*ov.RecurrenceID)
	startAt, _ := ov.Zone.MomentInstant(ov.Start)
	dur := ov.Duration()
	if !startAt.Equal(origAt) || dur != master.Duration() || ov.AllDay != master.AllDay {
		endLocal := ov.End
		endAt := startAt.Add(dur)
		if ov.AllDay {
			endLocal = tz.DayMoment(ov.End.Date.AddDays(1))
			endAt = ov.Zone.StartOfDay(endLocal.Date)
		}
		o.HasTime, o.Start, o.End, o.Zone = true, ov.Start, endLocal, ov.Zone
		o.StartAt, o.EndAt = startAt.UTC(), endAt.UTC()
	}
	rb, ro := reminderColumns(ov.Alarms)
	mb, mo := reminderColumns(master.Alarms)
	if rb != mb || ro != mo {
		b, a := overrideReminderColumns(ov.Alarms, master.Zone)
		o.RemindBefore, o.RemindAt = &b, &a
	}
	return o
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

// applySeries compares the series pes with the owner's live ones (live,
// by UID; their overrides ovs) and writes the difference (or, dry, only
// counts it) in rep.Events: an update where a live one has the UID, the
// others added flushRows at a time, the journal written after each batch.
// A series' bounds take in its live overrides with the planned ones over
// them. Each planned event gets its stored id (0 for a new one on a dry
// run).
func (p *planned) applySeries(tx *store.Tx, rep *Report, dry bool, pes []plannedEvent, live map[string]store.EventSpan, liveOvs map[int64][]*calendar.Override) error {
	var fresh []int // indexes in pes
	for i := range pes {
		pe := &pes[i]
		have, ok := live[pe.src.UID]
		if !ok {
			fresh = append(fresh, i)
			continue
		}
		ev := pe.stored(p.now)
		ev.ID, pe.id = have.Event.ID, have.Event.ID
		if hr, wr := have.Event.Rule, ev.Rule; hr != nil && wr != nil && hr.String() != wr.String() {
			// The export writes the COUNT of a series off its rule as
			// an UNTIL, and a DATE UNTIL of a timed series as a UTC
			// DATE-TIME (eventComponent): where that is all that
			// differs, the stored rule stays, as a PUT of a GET keeps
			// it.
			keepStoredEvent(have.Event, ev, p.person)
		}
		bounds := map[string]*calendar.Override{}
		for _, o := range liveOvs[have.Event.ID] {
			bounds[o.Key] = o
		}
		for _, o := range pe.overrides {
			bounds[o.Key] = o
		}
		all := make([]*calendar.Override, 0, len(bounds))
		for _, o := range bounds {
			all = append(all, o)
		}
		changed, err := tx.SyncEvent(have, ev, all, dry)
		if err != nil {
			return fmt.Errorf("event %s: %w", ev.UID, err)
		}
		pe.event = nil
		count(&rep.Events, changed)
	}
	rep.Events.Created += len(fresh)
	for start := 0; !dry && start < len(fresh); start += flushRows {
		batch := fresh[start:min(start+flushRows, len(fresh))]
		ps := make([]store.PreparedEvent, len(batch))
		for j, i := range batch {
			pe := &pes[i]
			if ev := pe.stored(p.now); pe.prepared.Event == ev && len(pe.overrides) == 0 {
				ps[j] = pe.prepared
			} else {
				ps[j] = store.PrepareEvent(ev, pe.overrides)
			}
		}
		if err := tx.InsertPrepared(ps); err != nil {
			return fmt.Errorf("the events: %w", err)
		}
		for j, i := range batch {
			pes[i].id, pes[i].event, pes[i].prepared = ps[j].Event.ID, nil, store.PreparedEvent{}
		}
		// The journal's images of these rows go to the database now
		// rather than wait, all 50,000 of them, for the end.
		if err := tx.FlushJournal(); err != nil {
			return err
		}
	}
	return nil
}

// applyOverrides writes the planned overrides of the series pes (whose
// ids applySeries set) against the owner's live ones (or, dry, only
// counts them) in rep.Overrides.
func (p *planned) applyOverrides(tx *store.Tx, rep *Report, dry bool, pes []plannedEvent, liveOvs map[int64][]*calendar.Override) error {
	var freshOv []*calendar.Override
	for _, pe := range pes {
		if len(pe.overrides) == 0 {
			continue
		}
		id := pe.id // 0 for a new event on a dry run
		haveOvs := map[string]*calendar.Override{}
		if id != 0 {
			for _, o := range liveOvs[id] {
				haveOvs[o.Key] = o
			}
		}
		for _, ov := range pe.overrides {
			ov.EventID = id
			have := haveOvs[ov.Key]
			if have == nil {
				freshOv = append(freshOv, ov)
				continue
			}
			ov.ID = have.ID
			changed, err := tx.SyncOverride(have, ov, dry)
			if err != nil {
				return fmt.Errorf("override %s of %s: %w", ov.Key, pe.src.UID, err)
			}
			count(&rep.Overrides, changed)
		}
	}
	rep.Overrides.Created += len(freshOv)
	if !dry && len(freshOv) > 0 {
		if err := tx.InsertOverrides(freshOv, p.now); err != nil {
			return fmt.Errorf("the changed occurrences: %w", err)
		}
	}
	return nil
}

// flushRows is how many new events an import adds between two writes of
// its journal (store.Tx.FlushJournal).
const flushRows = 2048

// count adds one updated or unchanged item to c.
func count(c *Counts, changed bool) {
	if changed {
		c.Updated++
	} else {
		c.Unchanged++
	}
}

// apply compares the planned rows with the owner's live rows and writes
// the difference (or, dry, only counts it); w, when not nil, is the
// writer that streamed the series before (its batch not written yet, its
// live rows already read).
func (p *planned) apply(tx *store.Tx, rep *Report, opts ImportOptions, w *importWriter) error {
	var err error
	if w == nil {
		if w, err = newImportWriter(tx, rep, opts.DryRun, tz.UTC, p.now); err != nil {
			return err
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.lookup(p.events); err != nil {
		return err
	}
	if err := p.applySeries(tx, rep, opts.DryRun, p.events, w.live, w.ovs); err != nil {
		return err
	}
	if err := p.applyOverrides(tx, rep, opts.DryRun, p.events, w.ovs); err != nil {
		return err
	}
	if err := p.applyTasks(tx, rep, opts.DryRun); err != nil {
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
// (or, dry, only counted in rep.Tasks).
//
// A UID of the form "t12@assistant" ([task.MadeUID]) names the task of
// that number with no UID of its own in the database that wrote the file.
// It is this person's task 12 when that one has the same title (the file
// is their own export); otherwise the task is another database's (whose
// tasks are numbered too) or gone, and it is kept under another UID
// ([importedUID]), said in rep.Repaired: stored as written, it would
// share its UID with this database's task 12 in every export and over
// CalDAV.
func (p *planned) applyTasks(tx *store.Tx, rep *Report, dry bool) error {
	c := &rep.Tasks
	uids := make([]string, 0, len(p.tasks))
	var madeIDs []int64
	for _, t := range p.tasks {
		uids = append(uids, t.UID)
		if id, made := task.MadeID(t.UID); made {
			uids = append(uids, importedUID(t.UID, t.Title))
			madeIDs = append(madeIDs, id)
		}
	}
	have, err := tx.TasksOfUIDs(uids)
	if err != nil {
		return err
	}
	made, err := tx.MadeTasks(madeIDs)
	if err != nil {
		return err
	}
	var fresh []task.Task
	seen := map[string]bool{} // the UIDs the file's tasks have, and came to
	for i, t := range p.tasks {
		second := func(uid string) bool {
			if seen[uid] {
				rep.Skipped = append(rep.Skipped, Skipped{Line: p.lines[i], Component: "VTODO", UID: args.Clip(uid), Reason: secondTask})
				return true
			}
			seen[uid] = true
			return false
		}
		// As written in the file first: two "t12@assistant" are one task,
		// whatever their titles would make of them below.
		if second(t.UID) {
			continue
		}
		old, ok := have[t.UID]
		if id, isMade := task.MadeID(t.UID); !ok && isMade {
			if own, found := made[id]; found && own.Title == t.Title {
				old, ok = own, true
				t.UID = ""
			} else {
				uid := importedUID(t.UID, t.Title)
				rep.Repaired = append(rep.Repaired, Skipped{Line: p.lines[i], Component: "VTODO", UID: t.UID,
					Reason: fmt.Sprintf("UID %s names task %s of the database that wrote the file, not this database's task of that number; kept as %s", t.UID, strings.TrimSuffix(t.UID, "@assistant"), uid)})
				if second(uid) {
					continue
				}
				t.UID = uid
				old, ok = have[uid]
			}
		}
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

// secondTask is the report's line for a VTODO left out because an earlier
// one has its UID (or comes to it: see [planned.applyTasks]).
const secondTask = "a second VTODO with the same UID; the first one is kept"

// importedUID is the UID a task another database exported as
// "t12@assistant" ([task.MadeUID]) is kept under:
// "t12.<8 hex digits of the SHA-256 of title>.imported@assistant". Two
// databases number their tasks alike, so the number alone does not tell
// their task 12 apart, nor from what a third database kept of one; with
// the title it does, and it comes out the same each time the file is
// imported. A task whose title changed in the other database is a new
// one here, as it is when a person's own export no longer has the title
// of their task of that number.
func importedUID(uid, title string) string {
	sum := sha256.Sum256([]byte(title))
	return strings.TrimSuffix(uid, "@assistant") + "." + hex.EncodeToString(sum[:4]) + ".imported@assistant"
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
		evZones, err := tx.EventZones(lo, hi)
		if err != nil {
			return err
		}
		open := false // a series or repeating task without end
		for _, z := range evZones {
			note(sql.NullString{String: z.Name, Valid: true}, sql.NullInt64{Int64: z.Min, Valid: true}, sql.NullInt64{Int64: z.Max, Valid: true})
			open = open || z.Open
		}
		for _, z := range taskZones(tks) {
			note(sql.NullString{String: z.name, Valid: true}, sql.NullInt64{Int64: z.first, Valid: true}, sql.NullInt64{Int64: z.last, Valid: true})
		}
		for _, t := range tks {
			open = open || t.Rule != nil && t.HasDue && t.Due.HasTime && !t.Rule.Bounded()
		}
		wr := NewWriter(w, WriterOptions{Zones: zones, FromYear: fromY, ToYear: min(toY, 9998), Open: open, Stamp: tx.Now()})
		ovByEvent, err := tx.AllOverrides()
		if err != nil {
			return err
		}
		err = tx.EachEventOverlapping(lo, hi, func(se *calendar.Event) error {
			e, err := eventFromStore(se, zone)
			if err != nil {
				return err
			}
			if !heldEnd(e) {
				// Kept before such ends were refused; RFC 5545 cannot
				// write the year 10000, so the file goes without it.
				return nil
			}
			var ovs []*Event
			for _, o := range ovByEvent[se.ID] {
				ov, err := overrideFromStore(e, o)
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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

// eventFromStore reads one stored event back into the model: an all-day
// DTEND is the last day again.
func eventFromStore(se *calendar.Event, person tz.Zone) (*Event, error) {
	e := &Event{UID: se.UID, Summary: se.Title, Location: se.Location, Description: se.Notes, Zone: se.Zone,
		AllDay: se.AllDay, Start: se.Start, End: se.End, Rule: se.Rule, ExDates: se.ExDates, RDates: se.RDates}
	if e.AllDay {
		e.End = tz.DayMoment(se.End.Date.AddDays(-1))
		if e.End.Date.Before(e.Start.Date) {
			e.End = e.Start
		}
	}
	var repeatFrom *time.Time
	if e.Rule != nil || len(e.RDates) > 0 {
		base := se.Zone
		if e.AllDay {
			base = person // all-day days begin at 00:00 in the person's zone
		}
		first, _ := base.MomentInstant(e.Start)
		repeatFrom = &first
	}
	var err error
	if e.Alarms, err = alarmsFromColumns(se.RemindBefore, se.RemindAt, se.RemindOnce, se.Zone, repeatFrom); err != nil {
		return nil, fmt.Errorf("event %s cannot be exported: %w", se.Label(), err)
	}
	return e, nil
}

// overrideFromStore builds the VEVENT of one changed or cancelled occurrence:
// its RECURRENCE-ID from the stored key, NULL fields from the series.
func overrideFromStore(master *Event, o *calendar.Override) (*Event, error) {
	key := o.Key
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
	if o.Cancel {
		ov.Status = "CANCELLED"
	}
	if o.Title != nil {
		ov.Summary = *o.Title
	}
	if o.Location != nil {
		ov.Location = *o.Location
	}
	if o.Notes != nil {
		ov.Description = *o.Notes
	}
	if o.HasTime {
		ov.Zone = o.Zone
		ov.Start, ov.End, ov.AllDay = o.Start, o.End, !o.Start.HasTime
		if ov.AllDay {
			ov.End = tz.DayMoment(o.End.Date.AddDays(-1))
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
	if o.RemindBefore != nil || o.RemindAt != nil {
		a, err := alarmsFromColumns(deref(o.RemindBefore), deref(o.RemindAt), "", master.Zone, nil)
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
		t.UID = task.MadeUID(s.ID)
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
