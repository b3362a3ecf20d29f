package events

import (
	"context"
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
	"github.com/assistant-dev/assistant/tools/fields"
	"github.com/assistant-dev/assistant/tz"
)

// Scopes of update_event and delete_event (design §4).
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
	first, _, _ := e.series(person).Bounds()
	return len(e.series(person).StartsBetween(first, r.Start)) == 0
}

// updater applies one update_event or delete_event call inside its
// transaction.
type updater struct {
	tx     *store.Tx
	c      *call
	e      *event
	ovs    map[string]*override
	in     input
	notes  []string
	items  []string
	person tz.Zone
	ctx    context.Context // the call's; stops the rule's search when done
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
	c, err := host(ctx, tc)
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
	change, err := c.s.Write(ctx, c.person.ID, "update_event", func(tx *store.Tx) error {
		t, err := resolve(tx, r, c.zone)
		if err != nil {
			return err
		}
		ovs, err := overridesOf(tx, t.E.ID)
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
			return &refusal{tools.Invalid(err)}
		}
		if !in.given() {
			return invalid("id", fmt.Sprintf("Nothing to change: give at least one field of %s to set (title, start, end, duration, time_zone, location, notes, rrule, exdates, rdates, remind_before, remind_at) or name one in “clear”.", r))
		}
		u = &updater{tx: tx, c: c, e: t.E, ovs: ovs, in: in, person: c.zone, ctx: ctx}
		u.item(t.E.label())
		switch {
		case scope == scopeThis && !t.E.repeats():
			scope = scopeAll
		case scope == scopeFollowing && isFirst(t.E, *t.Occ, c.zone):
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
				p, err := alarm.SkipPast(tx, l, c.zone, c.now)
				if err != nil {
					return err
				}
				past = append(past, p...)
			}
			if s := item.PastReminders(past, c.zone); s != "" {
				u.notes = append(u.notes, "Warning: "+s)
			}
		}
		lines, data, err = show.render(tx, c)
		return err
	})
	if err != nil {
		return result(err)
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
func (r ref) render(tx *store.Tx, c *call) ([]string, any, error) {
	t, err := resolve(tx, r, c.zone)
	if err != nil {
		return nil, nil, err
	}
	ovs, err := overridesOf(tx, t.E.ID)
	if err != nil {
		return nil, nil, err
	}
	if t.Occ != nil {
		res := occurrenceResult(t.E, *t.Occ, ovs, c.zone)
		return []string{res.Out}, res.Data, nil
	}
	lines, d := describe(t.E, ovs, c.zone, c.now)
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
		e.remindBefore = in.Reminders.BeforeJSON()
	} else if in.clears("remind_before") {
		e.remindBefore = "[]"
	}
	if in.HasAt {
		e.remindAt = in.Reminders.AtJSON()
	} else if in.clears("remind_at") {
		e.remindAt = "[]"
	}
}

// all changes the whole series. ref is the occurrence the id named, if
// any: a new “start” moves that occurrence there and every other one by
// the same civil shift.
func (u *updater) all(ref *recur.Occurrence) error {
	e, in, tx := u.e, u.in, u.tx
	n := e.clone()
	u.setFields(n)
	refStart := e.Start
	if ref != nil {
		refStart = ref.Original
	}
	if in.HasZone {
		n.Zone = in.Zone
	}
	newRef := refStart
	if in.HasStart {
		newRef = in.Start
	}
	kindChanged := newRef.HasTime != refStart.HasTime
	if kindChanged && e.repeats() && (len(u.ovs) > 0 || len(e.ExDates) > 0) {
		return invalid("start", fmt.Sprintf("“start” %s would turn %s between all-day and timed, which its changed and deleted occurrences cannot follow; delete it and add it again instead.", in.Start, e.label()))
	}
	var shift time.Duration
	newRule := in.HasRule || in.clears("rrule")
	if kindChanged {
		d := e.Start.Date.AddDays(refStart.Date.DaysUntil(newRef.Date))
		n.Start = tz.DayMoment(d)
		if newRef.HasTime {
			n.Start = tz.TimeMoment(d.At(newRef.Hour, newRef.Minute))
		}
		if !newRule {
			var err error
			if n.Rule, err = moveRule(e.Rule, refStart.Date.DaysUntil(newRef.Date), e.Start, n.Start, e.label()); err != nil {
				return err
			}
		}
	} else {
		// Every occurrence moves by the same civil shift: DTSTART, the
		// rule's days and UNTIL, EXDATEs and RDATEs (calendar.Shift).
		old := e.series(e.Zone)
		if newRule {
			old.Rule = nil
		}
		mv, sh, err := calendar.Shift(old, refStart, newRef, n.Zone)
		if err != nil {
			return daysRefusal(err, e.Rule, refStart.Date.DaysUntil(newRef.Date), e.label())
		}
		shift, n.Start, n.ExDates, n.RDates = sh, mv.Start, mv.ExDates, mv.RDates
		if !newRule {
			n.Rule = mv.Rule
		}
	}
	// The length: kept, unless the call gives duration or end (read
	// against the new time of the occurrence it named).
	dur, days := e.duration(), e.days()
	if kindChanged {
		dur, days = defaultMinutes*time.Minute, 1
	}
	if in.Duration > 0 {
		if !n.Start.HasTime {
			return invalid("duration", fmt.Sprintf("“duration” is for timed events; %s is all-day, so give its last day as “end”.", e.label()))
		}
		dur = time.Duration(in.Duration) * time.Minute
	}
	if in.HasEnd {
		var err error
		if dur, days, err = lengthTo(newRef, in.End, n.Zone); err != nil {
			return err
		}
	}
	if err := times(n, tz.Moment{}, false, dur, days); err != nil {
		return err
	}
	switch {
	case in.HasRule:
		n.Rule = in.Rule
	case in.clears("rrule"):
		n.Rule = nil
	case n.Rule != nil && calendar.WithoutBound(n.Rule) != calendar.WithoutBound(e.Rule):
		// A move to another day took the rule's days along.
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
	// Absolute reminders keep their offset from the start as the series
	// moves (design §5), unless the call sets or clears them.
	if shift != 0 && !in.HasAt && !in.clears("remind_at") {
		at, err := tz.ParseMomentsJSON(e.remindAt)
		if err != nil {
			return err
		}
		n.remindAt = tz.MomentsJSON(calendar.ShiftMoments(at, shift, e.Start.DateTime))
	}
	zoneChanged := n.Zone.Name() != e.Zone.Name()
	moved := n.Start != e.Start || zoneChanged
	if moved {
		n.PrevStarts = append(n.PrevStarts, prevStart{Start: e.Start.String(), TZID: e.Zone.Name()})
		if len(n.PrevStarts) > maxPrevStarts {
			n.PrevStarts = n.PrevStarts[len(n.PrevStarts)-maxPrevStarts:]
		}
	}
	if err := u.checkSeries(n, newRef); err != nil {
		return err
	}
	if err := u.followOverrides(n, ref, shift, moved); err != nil {
		return err
	}
	return saveEvent(tx, e, n)
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
	if in.HasStart || in.HasRule || in.HasZone {
		s := n.series(n.Zone)
		if u.ctx != nil {
			s = s.WithContext(u.ctx)
		}
		if err := s.CheckOccurs(); err != nil {
			return err
		}
	}
	if in.HasStart && in.Start.HasTime {
		if s := gapSentence(newRef, n.Zone); s != "" {
			u.note("Note: %s", s)
		}
	}
	if in.HasStart || in.HasRule || in.HasZone {
		if s := fields.OffRule("start", n.Start, n.Zone, n.Rule); s != "" {
			u.notes = append(u.notes, s)
		}
		if s := monthEndNote(n.Rule, n.Start); s != "" && (ruleText(n) != ruleText(e) || n.Start.Date.Day != e.Start.Date.Day) {
			u.notes = append(u.notes, s)
		}
	}
	return nil
}

// followOverrides carries the overrides of u.e over to n, the series
// after the change: re-keyed by the rule the occurrences follow
// ([calendar.Rekey], shift being the civil shift of the change), dropped
// when the new rule no longer gives their occurrence (the answer names
// them). A changed occurrence keeps its own time unless the call named it
// (ref, with a new “start”), and one whose own time is now the series'
// time is an ordinary occurrence again.
func (u *updater) followOverrides(n *event, ref *recur.Occurrence, shift time.Duration, moved bool) error {
	e, in, tx := u.e, u.in, u.tx
	ruleChanged := ruleText(n) != ruleText(e) || in.HasRDat || in.clears("rdates")
	if !moved && !ruleChanged {
		return nil
	}
	s := n.series(u.person)
	var dropped, rekeyed []string
	var named string
	if ref != nil && in.HasStart {
		named = ref.Key()
	}
	keys := sortedKeys(u.ovs)
	moves := calendar.Rekey(e.series(u.person), s, shift, keys)
	for _, key := range keys {
		ov := u.ovs[key]
		o, ok := moves[key]
		if !ok {
			if err := tx.Delete(overridesTable, ov.ID); err != nil {
				return err
			}
			dropped = append(dropped, e.label()+"@"+key)
			continue
		}
		before := ov.columns()
		ov.Key = o.Key()
		if ov.HasTime && (key == named || atOwnTime(n, ov, o)) {
			ov.HasTime = false
			if ov.empty() {
				if err := tx.Delete(overridesTable, ov.ID); err != nil {
					return err
				}
				delete(u.ovs, key)
				continue
			}
		}
		set := store.Row{}
		for k, v := range ov.columns() {
			if fmt.Sprint(before[k]) != fmt.Sprint(v) {
				set[k] = v
			}
		}
		if len(set) > 0 {
			if err := tx.Update(overridesTable, ov.ID, set); err != nil {
				return err
			}
		}
		if ov.Key != key {
			rekeyed = append(rekeyed, fmt.Sprintf("%s@%s is now %s@%s", e.label(), key, e.label(), ov.Key))
		}
	}
	if len(rekeyed) > 0 {
		u.note("Changed occurrences moved with the series and keep their own changes: %s.", strings.Join(rekeyed, ", "))
	}
	if len(dropped) > 0 {
		u.note("The new rule has no such occurrences any more, so their changes were dropped: %s.", strings.Join(dropped, ", "))
	}
	return nil
}

// empty reports whether ov changes nothing of its occurrence.
func (ov *override) empty() bool {
	return !ov.Cancel && !ov.HasTime && ov.Title == nil && ov.Location == nil && ov.Notes == nil &&
		ov.remindBefore == nil && ov.remindAt == nil
}

// atOwnTime reports whether the own time of override ov is that of its
// occurrence o in series n: the override no longer moves it.
func atOwnTime(n *event, ov *override, o recur.Occurrence) bool {
	if n.AllDay {
		return ov.Start.Date == o.Original.Date && ov.Start.Date.DaysUntil(ov.End.Date) == n.days()
	}
	return ov.StartAt.Equal(o.Start) && ov.EndAt.Equal(o.End) && ov.Zone.Name() == n.Zone.Name()
}

// lengthTo is the length from start to end (a time, or for an all-day
// event the last day), both read in zone.
func lengthTo(start, end tz.Moment, zone tz.Zone) (time.Duration, int, error) {
	if start.HasTime != end.HasTime {
		if start.HasTime {
			return 0, 0, invalid("end", fmt.Sprintf("“end” must be a day and a time like the start (such as %s), not the day %s alone.", start.DateTime.AddMinutes(60), end))
		}
		return 0, 0, invalid("end", fmt.Sprintf("The event is all-day, so “end” must be its last day (such as %s), not a time.", start.Date))
	}
	if !start.HasTime {
		if end.Date.Before(start.Date) {
			return 0, 0, invalid("end", fmt.Sprintf("“end” %s is before the start %s; for an all-day event “end” is the last day.", end, start))
		}
		if start.Date.DaysUntil(end.Date) >= maxAllDayDays {
			return 0, 0, invalid("end", fmt.Sprintf("An all-day event may last at most %d days; “end” %s is too far after the start %s.", maxAllDayDays, end, start))
		}
		return 0, start.Date.DaysUntil(end.Date) + 1, nil
	}
	s, _ := zone.Instant(start.DateTime)
	t, _ := zone.Instant(end.DateTime)
	if !t.After(s) {
		return 0, 0, invalid("end", fmt.Sprintf("“end” %s is not after the start %s; write a later end, such as %s.", end, start, start.DateTime.AddMinutes(60)))
	}
	if t.Sub(s) > maxDurationMinutes*time.Minute {
		return 0, 0, invalid("end", fmt.Sprintf("An event may last at most %d days; “end” %s is too far after the start %s.", maxDurationMinutes/1440, end, start))
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
			return invalid(name, fmt.Sprintf("“%s” belongs to the whole series %s; use “scope” all (or following) to change it.", name, e.label()))
		}
	}
	key := r.Key()
	ov := u.ovs[key]
	isNew := ov == nil
	if isNew {
		ov = &override{EventID: e.ID, Key: key}
	}
	before := ov.columns()
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
		ov.remindBefore = str(in.Reminders.BeforeJSON())
	} else if in.clears("remind_before") {
		ov.remindBefore = str("[]")
	}
	if in.HasAt {
		ov.remindAt = str(in.Reminders.AtJSON())
	} else if in.clears("remind_at") {
		ov.remindAt = str("[]")
	}
	if in.HasStart || in.HasEnd || in.Duration > 0 || in.HasZone {
		if err := u.reschedule(ov, r); err != nil {
			return err
		}
	}
	after := ov.columns()
	if isNew {
		after["created_at"] = u.c.now.Unix()
		id, err := tx.Insert(overridesTable, after)
		if err != nil {
			return err
		}
		ov.ID = id
		u.ovs[key] = ov
	} else {
		set := store.Row{}
		for k, v := range after {
			if fmt.Sprint(before[k]) != fmt.Sprint(v) {
				set[k] = v
			}
		}
		if len(set) > 0 {
			if err := tx.Update(overridesTable, ov.ID, set); err != nil {
				return err
			}
		}
	}
	return saveEvent(tx, e, e)
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
			return invalid("start", fmt.Sprintf("%s is an all-day series, so one occurrence moves to a day (such as %s), not a time; use “scope” all to make the series timed.", e.label(), in.Start.Date))
		}
		if in.Duration > 0 {
			return invalid("duration", fmt.Sprintf("“duration” is for timed events; %s is all-day, so give the last day as “end”.", e.label()))
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
			return invalid("start", fmt.Sprintf("“start” %s would put the occurrence outside 0001-01-01 to 9999-12-31 (%s), the span the calendar holds; move it to an earlier day.", first, inUTCOr(e.Zone)))
		}
		ov.HasTime = true
		ov.Start, ov.End, ov.Zone = tz.DayMoment(first), tz.DayMoment(first.AddDays(days)), e.Zone
		ov.StartAt, ov.EndAt = e.Zone.StartOfDay(first).UTC(), e.Zone.StartOfDay(first.AddDays(days)).UTC()
		if first == r.Original.Date && days == e.days() {
			ov.HasTime = false
		}
		return nil
	}
	if in.HasStart && !in.Start.HasTime {
		return invalid("start", fmt.Sprintf("One occurrence of the timed series %s moves to a day and a time (such as %s), not a day alone; use “scope” all to make the series all-day.", e.label(), in.Start.Date.At(9, 0)))
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
		return invalid("start", fmt.Sprintf("“start” %s would put the occurrence outside 0001-01-01 to 9999-12-31T23:59:59 (%s), the span the calendar holds; move it to an earlier or a later time.", civil, inUTCOr(zone)))
	}
	ov.HasTime = true
	ov.Start, ov.Zone = civil, zone
	ov.StartAt, ov.EndAt = start.UTC(), start.Add(dur).UTC()
	ov.End = tz.TimeMoment(zone.In(ov.EndAt))
	if ov.StartAt.Equal(r.Start) && ov.EndAt.Equal(r.End) && zone.Name() == e.Zone.Name() {
		ov.HasTime = false // back to the rule's own time
	}
	return nil
}

// keyAfter reports whether the override key is at or after r.
func keyAfter(key string, r recur.Occurrence) bool {
	m, _, err := tz.ParseBasic(key)
	if err != nil {
		return false
	}
	if !m.HasTime {
		return !m.Date.Before(r.Original.Date)
	}
	return !m.DateTime.AsUTC().Before(r.Start)
}

// endBefore ends e just before r: the head of the split
// ([calendar.Split]). With keep non-nil the rest from r on is stored as
// keep, a new series, and the overrides from r on are handed to it (with
// keep nil, deleted). at is r as an occurrence of keep.
func (u *updater) endBefore(r recur.Occurrence, keep *event) (old *event, at recur.Occurrence, err error) {
	e, tx := u.e, u.tx
	head, tail, ok, err := calendar.Split(e.series(u.person), r)
	if err != nil {
		return nil, at, err
	}
	if !ok {
		return nil, at, fmt.Errorf("split %s at its first occurrence %s", e.label(), r.Key())
	}
	old = e.clone()
	old.Rule, old.ExDates, old.RDates = head.Rule, head.ExDates, head.RDates
	if old.Start != head.Start {
		old.Start = head.Start
		if err := times(old, tz.Moment{}, false, e.duration(), e.days()); err != nil {
			return nil, at, err
		}
	}
	if keep != nil {
		if u.in.HasRule || u.in.clears("rrule") {
			// A new rule starts at r itself, whatever the old rule's days.
			var rest []tz.Moment
			for _, x := range tail.RDates {
				if x != r.Original {
					rest = append(rest, x)
				}
			}
			tail.Start, tail.RDates = r.Original, rest
		}
		keep.Start, keep.Rule, keep.ExDates, keep.RDates = tail.Start, tail.Rule, tail.ExDates, tail.RDates
		if err := times(keep, tz.Moment{}, false, e.duration(), e.days()); err != nil {
			return nil, at, err
		}
		if at, ok = calendar.Find(keep.series(u.person), r.Original); !ok {
			return nil, at, fmt.Errorf("split %s: %s is not in the rest", e.label(), r.Key())
		}
		if _, err := insertEvent(tx, keep); err != nil {
			return nil, at, err
		}
		u.item(keep.label())
	}
	for _, key := range sortedKeys(u.ovs) {
		if !keyAfter(key, r) {
			continue
		}
		ov := u.ovs[key]
		if keep != nil {
			if err := tx.Update(overridesTable, ov.ID, store.Row{"event_id": keep.ID}); err != nil {
				return nil, at, err
			}
		} else if err := tx.Delete(overridesTable, ov.ID); err != nil {
			return nil, at, err
		}
		delete(u.ovs, key)
	}
	if err := saveEvent(tx, e, old); err != nil {
		return nil, at, err
	}
	return old, at, nil
}

// following splits the series at r: the old series ends just before r,
// a new one (returned) has r and the rest, and takes the change, read
// from r: a new start moves r there and every later occurrence by the
// same shift.
func (u *updater) following(r recur.Occurrence) (*event, error) {
	e := u.e
	n := e.clone()
	n.ID, n.UID, n.SplitFrom, n.PrevStarts = 0, newUID(), e.ID, nil
	n.CreatedAt = u.c.now.UTC().Truncate(time.Second)
	_, at, err := u.endBefore(r, n)
	if err != nil {
		return nil, err
	}
	u.note("%s now ends before %s; the rest is the new series %s.", e.label(), e.label()+"@"+r.Key(), n.label())
	ovs, err := overridesOf(u.tx, n.ID)
	if err != nil {
		return nil, err
	}
	rest := &updater{tx: u.tx, c: u.c, e: n, ovs: ovs, in: u.in, person: u.person, ctx: u.ctx}
	if err := rest.all(&at); err != nil {
		return nil, err
	}
	u.notes = append(u.notes, rest.notes...)
	return n, nil
}
