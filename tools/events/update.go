package events

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/alarm"
	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Scopes of update_event and delete_event.
const (
	scopeThis      = "this"
	scopeFollowing = "following"
	scopeAll       = "all"
)

// readScope reads “scope”: this for an occurrence id and all for a series
// id by default; this and following need an occurrence id.
func readScope(a *args.Args, r ref) string {
	scope := a.OneOf("scope", "", scopeThis, scopeFollowing, scopeAll)
	if a.Err() != nil {
		return ""
	}
	if scope == "" {
		if r.Key != "" {
			return scopeThis
		}
		return scopeAll
	}
	if scope != scopeAll && r.Key == "" {
		a.Fail("scope", fmt.Sprintf("“scope” %s needs an occurrence id such as %s@20261005T070000Z (list_events shows them); %s names the whole series, whose scope is all.", scope, r, r))
	}
	return scope
}

// isFirst reports whether no occurrence of e comes before r, so that
// "following" from r is the whole series.
func isFirst(e *event, r recur.Occurrence, person tz.Zone) bool {
	first, _, _ := e.Series(person).Bounds()
	return len(e.Series(person).StartsBetween(first, r.Start)) == 0
}

// updater applies one update_event or delete_event call inside its
// transaction.
type updater struct {
	tx     *store.Tx
	c      *tools.Env
	e      *event
	ovs    map[string]*override
	in     input
	notes  []string
	items  []string
	person tz.Zone
	ctx    context.Context // the call's; stops the rule's search when done
	// part is what a refusal calls the series when it is the part a
	// “following” edit splits off ("e38 from e38@20260415 on"): its own
	// label names a series the refusal rolls back; "" for e's label.
	part string
}

// subject is what a refusal calls the series being changed.
func (u *updater) subject() string {
	if u.part != "" {
		return u.part
	}
	return u.e.Label()
}

func (u *updater) note(format string, a ...any) { u.notes = append(u.notes, fmt.Sprintf(format, a...)) }

func (u *updater) item(s string) {
	for _, x := range u.items {
		if x == s {
			return
		}
	}
	u.items = append(u.items, s)
}

func updateEvent(ctx context.Context, tc *tools.ToolContext, a *args.Args) tools.ExecResult {
	c, err := tools.NewEnv(ctx, tc, "update_event")
	if err != nil {
		return tools.Internal(err)
	}
	r := readID(a)
	scope := readScope(a, r)
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}
	var (
		u     *updater
		lines []string
		data  any
	)
	change, err := c.Write(func(tx *store.Tx) error {
		t, err := resolve(tx, r, c.Zone)
		if err != nil {
			return err
		}
		ovs, err := tx.Overrides(t.E.ID)
		if err != nil {
			return err
		}
		def := t.E.Zone
		if t.Occ != nil && scope == scopeThis {
			if ov := ovs[t.Occ.Key()]; ov != nil && ov.HasTime {
				def = ov.Zone
			}
		}
		in := readInput(a, def, true)
		if err := a.Err(); err != nil {
			return &tools.Refusal{Result: tools.Invalid(err)}
		}
		if !in.given() {
			return tools.RefuseArg("id", fmt.Sprintf("Nothing to change: give at least one field of %s to set (title, start, end, duration, time_zone, location, notes, rrule, exdates, rdates, remind_before, remind_at) or name one in “clear”.", r))
		}
		u = &updater{tx: tx, c: c, e: t.E, ovs: ovs, in: in, person: c.Zone, ctx: ctx}
		u.item(t.E.Label())
		switch {
		case scope == scopeThis && !t.E.Repeats():
			scope = scopeAll
		case scope == scopeFollowing && isFirst(t.E, *t.Occ, c.Zone):
			u.note("%s is the first occurrence, so “following” changed the whole series.", r)
			scope = scopeAll
		}
		tx.Summarize(fmt.Sprintf("changed %s (%s)", r, scope))
		var show ref
		switch scope {
		case scopeThis:
			err = u.this(*t.Occ)
			show = ref{ID: t.E.ID, Key: t.Occ.Key()}
		case scopeFollowing:
			var n *event
			n, err = u.following(*t.Occ)
			if n != nil {
				show = ref{ID: n.ID}
			}
		default:
			err = u.all(t.Occ)
			show = ref{ID: t.E.ID}
		}
		if err != nil {
			return err
		}
		if in.HasStart || in.HasEnd || in.Duration > 0 || in.HasZone || in.HasRule || in.HasRDat ||
			in.HasBefore || in.HasAt || len(in.Clear) > 0 {
			var past []time.Time
			for _, l := range u.items {
				p, err := alarm.SkipPast(tx, l, c.Zone, c.Now)
				if err != nil {
					return err
				}
				past = append(past, p...)
			}
			if s := item.PastReminders(past, c.Zone); s != "" {
				u.notes = append(u.notes, "Warning: "+s)
			}
		}
		lines, data, err = show.render(tx, c)
		return err
	})
	if err != nil {
		return tools.Fail(err)
	}
	if change == "" {
		return tools.SuccessWithData(fmt.Sprintf("Nothing changed: %s already has those values.\n", r)+strings.Join(lines, "\n"),
			map[string]any{"change": "", "event": data})
	}
	tools.InsertResult(tc, tools.Changed{Change: change, Items: u.items})
	out := append([]string{fmt.Sprintf("Updated %s (change %s; undo %s to put it back).", r, change, change)}, u.notes...)
	out = append(out, lines...)
	return tools.SuccessWithData(strings.Join(out, "\n"), map[string]any{"change": change, "event": data, "notes": orEmpty(u.notes)})
}

// render shows what r names after a change, from inside the transaction.
func (r ref) render(tx *store.Tx, c *tools.Env) ([]string, any, error) {
	t, err := resolve(tx, r, c.Zone)
	if err != nil {
		return nil, nil, err
	}
	ovs, err := tx.Overrides(t.E.ID)
	if err != nil {
		return nil, nil, err
	}
	if t.Occ != nil {
		res := occurrenceResult(t.E, *t.Occ, ovs, c.Zone)
		return []string{res.Out}, res.Data, nil
	}
	lines, d := describe(t.E, ovs, c.Zone, c.Now)
	return lines, d, nil
}

// setFields applies title, location, notes and reminders of u.in to e.
func (u *updater) setFields(e *event) {
	in := u.in
	if in.HasTitle {
		e.Title = in.Title
	}
	if in.HasLocation {
		e.Location = in.Location
	} else if in.clears("location") {
		e.Location = ""
	}
	if in.HasNotes {
		e.Notes = in.Notes
	} else if in.clears("notes") {
		e.Notes = ""
	}
	if in.HasBefore {
		e.RemindBefore = in.Reminders.BeforeJSON()
	} else if in.clears("remind_before") {
		e.RemindBefore = "[]"
	}
	if in.HasAt {
		e.RemindAt = in.Reminders.AtJSON()
	} else if in.clears("remind_at") {
		e.RemindAt = "[]"
	}
}

// all changes the whole series. ref is the occurrence the id named, if
// any: a new “start” moves that occurrence there and every other one by
// the same civil shift. It reads the change from u.in, moves the series
// ([calendar.MoveSeries]), sets what the call gives, checks the result,
// carries the overrides along and saves.
func (u *updater) all(ref *recur.Occurrence) error {
	e, in := u.e, u.in
	from, to, zone := e.Start, e.Start, e.Zone
	if ref != nil {
		from, to = ref.Original, ref.Original
	}
	if in.HasStart {
		to = in.Start
	}
	if in.HasZone {
		zone = in.Zone
		if e.AllDay && !to.HasTime {
			u.note("Note: %s is all-day, and its days are the same in every zone, so “time_zone” %s does not move them.", e.Label(), in.Zone.Name())
		}
	}
	kindChanged := to.HasTime != from.HasTime
	if kindChanged && !calendar.CanChangeKind(e, u.ovs) {
		return tools.RefuseArg("start", fmt.Sprintf("“start” %s would turn %s between all-day and timed, which its changed and deleted occurrences cannot follow; delete it and add it again instead.", in.Start, u.subject()))
	}
	newRule := in.HasRule || in.clears("rrule")
	n, shift, err := calendar.MoveSeries(e, from, to, zone, newRule)
	if far := (*calendar.ShiftError)(nil); errors.As(err, &far) {
		return tools.RefuseArg("start", fmt.Sprintf("“start” %s would move %s by %d days, more than the %d (about 273 years) a move can carry; add the event again at that start (add_event) and delete this one.",
			in.Start, u.subject(), far.Days, calendar.MaxShiftDays))
	}
	if err != nil {
		return daysRefusal(err, e.Rule, from.Date.DaysUntil(to.Date), u.subject())
	}
	u.setFields(n)
	if err := u.setLength(n, to, kindChanged); err != nil {
		return err
	}
	u.setLists(n)
	// Absolute reminders keep their offset from the start as the series
	// moves, unless the call sets or clears them.
	if shift != 0 && !in.HasAt && !in.clears("remind_at") {
		if n.RemindAt, err = calendar.ShiftRemindAt(e.RemindAt, shift, e.Start.DateTime); err != nil {
			return err
		}
	}
	moved := calendar.RecordMove(e, n)
	if err := u.checkSeries(n, to); err != nil {
		return err
	}
	if err := u.followOverrides(n, ref, shift, moved); err != nil {
		return err
	}
	return u.tx.SaveEvent(e, n)
}

// setLength gives n, the series after a move to newRef, its length: kept
// (an hour or a day when it turned between all-day and timed), unless the
// call gives “duration” or “end” (read against newRef).
func (u *updater) setLength(n *event, newRef tz.Moment, kindChanged bool) error {
	e, in := u.e, u.in
	dur, days := e.Duration(), e.Days()
	if kindChanged {
		dur, days = defaultMinutes*time.Minute, 1
		if in.Duration == 0 && !in.HasEnd {
			// As a calendar app does, but said: a model that moved a
			// three-day trip to 10:00 should know it is now an hour.
			if newRef.HasTime {
				u.note("Note: %s was all-day; it now lasts %d minutes, from its start. Give “duration” or “end” for another length.", e.Label(), defaultMinutes)
			} else {
				u.note("Note: %s was timed; it is now all-day, one day. Give “end” for more days.", e.Label())
			}
		}
	}
	if in.Duration > 0 {
		if !n.Start.HasTime {
			return tools.RefuseArg("duration", fmt.Sprintf("“duration” is for timed events; %s is all-day, so give its last day as “end”.", u.subject()))
		}
		dur = time.Duration(in.Duration) * time.Minute
	}
	if in.HasEnd {
		var err error
		if dur, days, err = lengthTo(newRef, in.End, n.Zone); err != nil {
			return err
		}
	}
	if last := max(days, 1) - 1; !n.Start.HasTime && last >= maxAllDayDays {
		return tools.RefuseArg("end", fmt.Sprintf("An all-day event may last at most %d days; “end” %s is too far after “start” %s: write an “end” up to %s.", maxAllDayDays, n.Start.Date.AddDays(last), n.Start, n.Start.Date.AddDays(maxAllDayDays-1)))
	}
	n.SetLength(dur, days)
	return nil
}

// setLists sets the rule, EXDATEs and RDATEs of n that the call gives or
// clears, and notes a rule whose days moved with the start.
func (u *updater) setLists(n *event) {
	e, in := u.e, u.in
	switch {
	case in.HasRule:
		n.Rule = in.Rule
	case in.clears("rrule"):
		n.Rule = nil
	case n.Rule != nil && calendar.WithoutBound(n.Rule) != calendar.WithoutBound(e.Rule):
		u.note("The rule's days moved with the start: RRULE:%s (was RRULE:%s).", n.Rule, e.Rule)
	}
	switch {
	case in.HasExDates:
		n.ExDates = in.ExDates
	case in.clears("exdates"):
		n.ExDates = nil
	}
	switch {
	case in.HasRDat:
		n.RDates = in.RDates
	case in.clears("rdates"):
		n.RDates = nil
	}
}

// checkSeries refuses n, the series after the change, when its lists are
// too long or (after a new start, rule or zone) it never occurs, and notes
// what the person should know of its new time: a DST gap at newRef, a
// start off its rule, months without its day.
func (u *updater) checkSeries(n *event, newRef tz.Moment) error {
	e, in := u.e, u.in
	if err := checkLists(n); err != nil {
		return err
	}
	if in.HasExDates {
		ctx := u.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		// EXDATEs the event had are passed over only when its times stay:
		// a new start, rule or zone reads every one of them anew.
		known := e.ExDates
		if in.HasStart || in.HasRule || in.HasZone {
			known = nil
		}
		if err := checkExDatesOccur(ctx, n, in.ExDates, known); err != nil {
			return err
		}
	}
	if in.HasStart || in.HasRule || in.HasZone {
		s := n.Series(n.Zone)
		if u.ctx != nil {
			s = s.WithContext(u.ctx)
		}
		if err := s.CheckOccurs(); err != nil {
			// A rule the call did not give is the series' own, moved with
			// it: one that a delete of the following occurrences cut down
			// to its first stays so, and moves.
			var re *recur.Error
			if in.HasRule || !errors.As(err, &re) || !re.OnlyStart {
				return err
			}
		}
	}
	if in.HasStart && in.Start.HasTime {
		if s := gapSentence(newRef, n.Zone); s != "" {
			u.note("Note: %s", s)
		}
	}
	if in.HasStart || in.HasRule || in.HasZone {
		if s := tools.OffRule("start", n.Start, n.Zone, n.Rule); s != "" {
			u.notes = append(u.notes, s)
		}
		if s := monthEndNote(n.Rule, n.Start); s != "" && (ruleText(n) != ruleText(e) || n.Start.Date.Day != e.Start.Date.Day) {
			u.notes = append(u.notes, s)
		}
	}
	return nil
}

// followOverrides carries the overrides of u.e over to n, the series
// after the change ([calendar.FollowSeries], shift being the civil shift
// of the change), stores what that gives and names in the answer the
// occurrences re-keyed and those dropped. ref, with a new “start”, is the
// occurrence the call moved, whose own time gives way to the series'.
func (u *updater) followOverrides(n *event, ref *recur.Occurrence, shift time.Duration, moved bool) error {
	e, in := u.e, u.in
	ruleChanged := ruleText(n) != ruleText(e) || in.HasRDat || in.clears("rdates")
	if !moved && !ruleChanged {
		return nil
	}
	var named string
	if ref != nil && in.HasStart {
		named = ref.Key()
	}
	f := calendar.FollowSeries(e, n, u.ovs, shift, named, u.person)
	for _, ed := range f.Edits {
		var err error
		if ed.Delete {
			err = u.tx.DeleteOverride(ed.Before.ID)
		} else {
			err = u.tx.SaveOverride(ed.Before, ed.After)
		}
		if err != nil {
			return err
		}
	}
	var rekeyed, dropped []string
	for _, k := range f.Rekeyed {
		rekeyed = append(rekeyed, fmt.Sprintf("%s@%s is now %s@%s", e.Label(), k[0], e.Label(), k[1]))
	}
	for _, k := range f.Dropped {
		dropped = append(dropped, e.Label()+"@"+k)
	}
	if len(rekeyed) > 0 {
		u.note("Changed occurrences moved with the series and keep their own changes: %s.", strings.Join(rekeyed, ", "))
	}
	if len(dropped) > 0 {
		u.note("The new rule has no such occurrences any more, so their changes were dropped: %s.", strings.Join(dropped, ", "))
	}
	return nil
}

// lengthTo is the length from start to end (a time, or for an all-day
// event the last day), both read in zone.
func lengthTo(start, end tz.Moment, zone tz.Zone) (time.Duration, int, error) {
	if start.HasTime != end.HasTime {
		if start.HasTime {
			return 0, 0, tools.RefuseArg("end", fmt.Sprintf("“end” must be a day and a time like the start (such as %s), not the day %s alone.", start.DateTime.AddMinutes(60), end))
		}
		return 0, 0, tools.RefuseArg("end", fmt.Sprintf("The event is all-day, so “end” must be its last day (such as %s), not a time.", start.Date))
	}
	if !start.HasTime {
		if end.Date.Before(start.Date) {
			return 0, 0, tools.RefuseArg("end", fmt.Sprintf("“end” %s is before the start %s; for an all-day event “end” is the last day, such as %s.", end, start, start.Date))
		}
		if start.Date.DaysUntil(end.Date) >= maxAllDayDays {
			return 0, 0, tools.RefuseArg("end", fmt.Sprintf("An all-day event may last at most %d days; “end” %s is too far after the start %s: write an “end” up to %s.", maxAllDayDays, end, start, start.Date.AddDays(maxAllDayDays-1)))
		}
		return 0, start.Date.DaysUntil(end.Date) + 1, nil
	}
	s, _ := zone.Instant(start.DateTime)
	t, _ := zone.Instant(end.DateTime)
	if !t.After(s) {
		return 0, 0, tools.RefuseArg("end", fmt.Sprintf("“end” %s is not after the start %s; write a later end, such as %s.", end, start, start.DateTime.AddMinutes(60)))
	}
	if t.Sub(s) > maxDurationMinutes*time.Minute {
		return 0, 0, tools.RefuseArg("end", fmt.Sprintf("An event may last at most %d days; “end” %s is too far after the start %s: write an “end” up to %s.", maxDurationMinutes/1440, end, start, start.DateTime.AddMinutes(maxDurationMinutes)))
	}
	return t.Sub(s), 0, nil
}

func sortedKeys(m map[string]*override) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// this changes one occurrence: an override keyed by its RECURRENCE-ID.
func (u *updater) this(r recur.Occurrence) error {
	e, in, tx := u.e, u.in, u.tx
	for _, name := range []string{"rrule", "exdates", "rdates"} {
		given := map[string]bool{"rrule": in.HasRule, "exdates": in.HasExDates, "rdates": in.HasRDat}[name]
		if given || in.clears(name) {
			return tools.RefuseArg(name, fmt.Sprintf("“%s” belongs to the whole series %s; use “scope” all (or following) to change it.", name, e.Label()))
		}
	}
	key := r.Key()
	ov := u.ovs[key]
	isNew := ov == nil
	if isNew {
		ov = &override{EventID: e.ID, Key: key}
	}
	before := *ov
	str := func(s string) *string { return &s }
	if in.HasTitle {
		ov.Title = str(in.Title)
	}
	if in.HasLocation {
		ov.Location = str(in.Location)
	} else if in.clears("location") {
		ov.Location = str("")
	}
	if in.HasNotes {
		ov.Notes = str(in.Notes)
	} else if in.clears("notes") {
		ov.Notes = str("")
	}
	if in.HasBefore {
		ov.RemindBefore = str(in.Reminders.BeforeJSON())
	} else if in.clears("remind_before") {
		ov.RemindBefore = str("[]")
	}
	if in.HasAt {
		ov.RemindAt = str(in.Reminders.AtJSON())
	} else if in.clears("remind_at") {
		ov.RemindAt = str("[]")
	}
	if in.HasStart || in.HasEnd || in.Duration > 0 || in.HasZone {
		if err := u.reschedule(ov, r); err != nil {
			return err
		}
	}
	if isNew {
		if err := tx.InsertOverride(ov, u.c.Now); err != nil {
			return err
		}
		u.ovs[key] = ov
	} else if err := tx.SaveOverride(&before, ov); err != nil {
		return err
	}
	return tx.SaveEvent(e, e)
}

// reschedule gives override ov of occurrence r its own time from u.in.
func (u *updater) reschedule(ov *override, r recur.Occurrence) error {
	e, in := u.e, u.in
	cur := newOcc(e, r)
	if ov.HasTime {
		cur.apply(ov, u.person)
	}
	zone := cur.Zone
	if in.HasZone {
		zone = in.Zone
	}
	if e.AllDay {
		if in.HasStart && in.Start.HasTime {
			return tools.RefuseArg("start", fmt.Sprintf("%s is an all-day series, so one occurrence moves to a day (such as %s), not a time; use “scope” all to make the series timed.", e.Label(), in.Start.Date))
		}
		if in.Duration > 0 {
			return tools.RefuseArg("duration", fmt.Sprintf("“duration” is for timed events; %s is all-day, so give the last day as “end”.", e.Label()))
		}
		first := cur.First
		if in.HasStart {
			first = in.Start.Date
		}
		days := cur.First.DaysUntil(cur.Last) + 1
		if in.HasEnd {
			var err error
			if _, days, err = lengthTo(tz.DayMoment(first), in.End, zone); err != nil {
				return err
			}
		}
		if end := first.AddDays(days); end.Year > 9999 || !e.Zone.Holds(e.Zone.StartOfDay(end)) || !e.Zone.Holds(e.Zone.StartOfDay(first)) {
			return tools.RefuseArg("start", fmt.Sprintf("“start” %s would put the occurrence outside 0001-01-01 to 9999-12-31 (%s), the span the calendar holds; move it to an earlier day.", first, inUTCOr(e.Zone)))
		}
		calendar.MoveOccurrence(e, ov, r, first, days, tz.Moment{}, e.Zone, 0)
		return nil
	}
	if in.HasStart && !in.Start.HasTime {
		return tools.RefuseArg("start", fmt.Sprintf("One occurrence of the timed series %s moves to a day and a time (such as %s), not a day alone; use “scope” all to make the series all-day.", e.Label(), in.Start.Date.At(9, 0)))
	}
	civil := tz.TimeMoment(cur.Zone.In(cur.Start))
	if in.HasStart {
		civil = in.Start
	}
	start, _ := zone.Instant(civil.DateTime)
	dur := cur.End.Sub(cur.Start)
	if in.Duration > 0 {
		dur = time.Duration(in.Duration) * time.Minute
	}
	if in.HasEnd {
		var err error
		if dur, _, err = lengthTo(civil, in.End, zone); err != nil {
			return err
		}
	}
	if s := gapSentence(civil, zone); s != "" && in.HasStart {
		u.note("Note: %s", s)
	}
	if !zone.Holds(start) || !zone.Holds(start.Add(dur)) {
		return tools.RefuseArg("start", fmt.Sprintf("“start” %s would put the occurrence outside 0001-01-01 to 9999-12-31T23:59:59 (%s), the span the calendar holds; move it to an earlier or a later time.", civil, inUTCOr(zone)))
	}
	calendar.MoveOccurrence(e, ov, r, tz.Date{}, 0, civil, zone, dur)
	return nil
}

// endBefore ends e just before r: the head of the split
// ([calendar.SplitEvent]). With keep the rest from r on is stored as a new
// series (returned, with at: r as its occurrence) and the overrides from r
// on are handed to it; without, they are deleted.
func (u *updater) endBefore(r recur.Occurrence, keep bool) (old, rest *event, at recur.Occurrence, err error) {
	e, tx := u.e, u.tx
	old, rest, err = calendar.SplitEvent(e, r, u.person, u.in.HasRule || u.in.clears("rrule"))
	if err != nil {
		return nil, nil, at, err
	}
	if keep {
		var ok bool
		if at, ok = calendar.Find(rest.Series(u.person), r.Original); !ok {
			return nil, nil, at, fmt.Errorf("split %s: %s is not in the rest", e.Label(), r.Key())
		}
		rest.UID, rest.CreatedAt = newUID(), u.c.Now.UTC().Truncate(time.Second)
		if _, err := tx.InsertEvent(rest); err != nil {
			return nil, nil, at, err
		}
		u.item(rest.Label())
	} else {
		rest = nil
	}
	for _, key := range sortedKeys(u.ovs) {
		if !calendar.KeyFrom(key, r) {
			continue
		}
		ov := u.ovs[key]
		if keep {
			handed := *ov
			handed.EventID = rest.ID
			if err := tx.SaveOverride(ov, &handed); err != nil {
				return nil, nil, at, err
			}
		} else if err := tx.DeleteOverride(ov.ID); err != nil {
			return nil, nil, at, err
		}
		delete(u.ovs, key)
	}
	if err := tx.SaveEvent(e, old); err != nil {
		return nil, nil, at, err
	}
	return old, rest, at, nil
}

// following splits the series at r: the old series ends just before r,
// a new one (returned) has r and the rest, and takes the change, read
// from r: a new start moves r there and every later occurrence by the
// same shift.
func (u *updater) following(r recur.Occurrence) (*event, error) {
	e := u.e
	_, n, at, err := u.endBefore(r, true)
	if err != nil {
		return nil, err
	}
	u.note("%s now ends before %s; the rest is the new series %s.", e.Label(), e.Label()+"@"+r.Key(), n.Label())
	ovs, err := u.tx.Overrides(n.ID)
	if err != nil {
		return nil, err
	}
	rest := &updater{tx: u.tx, c: u.c, e: n, ovs: ovs, in: u.in, person: u.person, ctx: u.ctx,
		part: e.Label() + " from " + e.Label() + "@" + r.Key() + " on"}
	if err := rest.all(&at); err != nil {
		return nil, err
	}
	u.notes = append(u.notes, rest.notes...)
	return n, nil
}
