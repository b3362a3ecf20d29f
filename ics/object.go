package ics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// This file is the calendar object resource of CalDAV (RFC 4791 §4.1): one
// VCALENDAR holding the components of one UID, a VEVENT series with its
// changed occurrences or one VTODO, read from a client's PUT
// ([ParseObject], [PutObject]) and written for its GET ([WriteEventObject],
// [WriteTaskObject]).

// The CalDAV preconditions an [ObjectError] names (RFC 4791 §5.3.2.1), in
// the CALDAV: namespace; a server answers 403 (or 409) with the one named.
const (
	// ValidCalendarData: the body is no iCalendar object at all.
	ValidCalendarData = "valid-calendar-data"
	// ValidCalendarObjectResource: an iCalendar object that breaks the
	// rules of a calendar object resource (one UID, one kind of
	// component, every component with a UID, the series itself present).
	ValidCalendarObjectResource = "valid-calendar-object-resource"
	// SupportedCalendarComponent: a component assistant does not keep
	// (VJOURNAL, VFREEBUSY, …).
	SupportedCalendarComponent = "supported-calendar-component"
)

// ObjectError is why [ParseObject] refuses a body: Error is one sentence a
// person can act on, Precondition the CalDAV precondition it breaks
// ([ValidCalendarData], [ValidCalendarObjectResource] or
// [SupportedCalendarComponent]).
type ObjectError struct {
	Precondition string
	Reason       string
}

func (e *ObjectError) Error() string { return e.Reason }

func objectErr(pre, format string, a ...any) *ObjectError {
	return &ObjectError{Precondition: pre, Reason: fmt.Sprintf(format, a...)}
}

// Object is one calendar object resource as the store keeps it.
type Object struct {
	// Kind is "VEVENT" or "VTODO".
	Kind string
	// UID is the UID every component of the object shares.
	UID string
	// Event (Kind VEVENT) is the series as Import would store it, ID 0
	// and CreatedAt the now given to ParseObject; Overrides are its
	// changed and cancelled occurrences, keyed ([calendar.OccurrenceKey]),
	// EventID 0, in the order of the body.
	Event     *calendar.Event
	Overrides []*calendar.Override
	// Task (Kind VTODO) is the task as Import would store it, ID 0.
	Task task.Task
	// Skipped lists, by line, what of the body could not be kept (as
	// Import's report does); Repaired what was read in spite of a fault.
	Skipped, Repaired []Skipped
	// Extra is every property of the components that assistant does not
	// model (subcomponents other than VALARM, which RFC 5545 does not
	// define and go-ical will not write, are not kept), as iCalendar text
	// opaque to callers: keep it with the item and hand it to
	// WriteEventObject or WriteTaskObject, which put it back. "" when
	// there is none.
	Extra string

	// What only the stored state decides, for PutObject: the components
	// and the key each one's extra goes under (by line; none for one not
	// kept), the changed occurrences whose RECURRENCE-ID matches no
	// occurrence of the series, and the to-do's changed occurrences.
	comps    []*node
	keys     map[int]string
	orphans  []orphan
	todoOccs []todoOccurrence
}

// orphan is a changed occurrence whose RECURRENCE-ID matches no
// occurrence of the series in the body, kept aside (and listed in
// Skipped) in case it is one of the stored series before a move.
type orphan struct {
	ov    *calendar.Override // keyed in the body's series
	line  int
	notes []Skipped // what the mapping cut from it, reported if it is kept
}

// eventModelled are the VEVENT properties assistant keeps in its own
// columns or writes itself; every other one is extra. STATUS is kept only
// as CANCELLED, on a changed occurrence.
var eventModelled = map[string]bool{
	"UID": true, "DTSTAMP": true, "DTSTART": true, "DTEND": true, "DURATION": true,
	"SUMMARY": true, "DESCRIPTION": true, "LOCATION": true,
	"RRULE": true, "EXDATE": true, "RDATE": true, "RECURRENCE-ID": true,
}

// todoModelled are the VTODO properties assistant keeps or writes itself.
// STATUS is kept as COMPLETED or NEEDS-ACTION; any other (IN-PROCESS,
// CANCELLED) is extra. DTSTART is extra: a task has no start.
var todoModelled = map[string]bool{
	"UID": true, "DTSTAMP": true, "SUMMARY": true, "DESCRIPTION": true, "DUE": true, "DURATION": true,
	"PRIORITY": true, "COMPLETED": true, "CATEGORIES": true, "RRULE": true, "X-ASSISTANT-REPEAT-FROM": true,
}

// modelled reports whether property p of a component of kind is one
// assistant keeps, so it is not extra.
func modelled(kind string, p *ical.Prop) bool {
	if p.Name == "STATUS" {
		v := strings.ToUpper(strings.TrimSpace(p.Value))
		if kind == ical.CompToDo {
			return v == "" || v == "COMPLETED" || v == "NEEDS-ACTION"
		}
		return v == "CANCELLED"
	}
	if strings.HasPrefix(p.Name, "X-ASSISTANT-") {
		return true
	}
	if kind == ical.CompToDo {
		return todoModelled[p.Name]
	}
	return eventModelled[p.Name]
}

// ParseObject reads one calendar object resource (RFC 4791 §4.1), the
// body of a CalDAV PUT: one VCALENDAR whose components (VTIMEZONEs aside)
// are all VEVENTs or all VTODOs of one UID: a series with its changed
// occurrences (RECURRENCE-ID), or one to-do (with changed occurrences,
// of which [PutObject] reads only the completion of the current one). A
// changed occurrence whose RECURRENCE-ID matches no occurrence of the
// series is listed in Object.Skipped, and PutObject may still place it
// on the stored series. A TZID that names an IANA
// zone needs no VTIMEZONE (RFC 7809). Floating times and all-day days are
// read in person; absolute alarms before now are dropped and new rows are
// created now, as Import does, whose mapping it shares. A body that is no
// such object is refused with an [*ObjectError]; what of an accepted one
// cannot be kept is listed in Object.Skipped.
func ParseObject(data []byte, person tz.Zone, now time.Time) (*Object, error) {
	p := parser{maxProps: maxObjectProps}
	roots := p.parse(data)
	switch {
	case p.tooMany:
		return nil, objectErr(ValidCalendarObjectResource, "The body holds more than %d properties; a calendar object is one event or to-do with its changed occurrences, so send less.", maxObjectProps)
	case len(roots) == 0 && len(bytes.TrimSpace(data)) == 0:
		return nil, objectErr(ValidCalendarData, "The body is empty; send one VCALENDAR holding one VEVENT or one VTODO.")
	case len(roots) == 0:
		return nil, objectErr(ValidCalendarData, "The body is not iCalendar data: it has no BEGIN:VCALENDAR … END:VCALENDAR; send one VCALENDAR holding one VEVENT or one VTODO.")
	case len(roots) > 1:
		return nil, objectErr(ValidCalendarObjectResource, "The body holds %d VCALENDAR objects; a calendar object is one VCALENDAR (RFC 4791 §4.1), so send each in a PUT of its own.", len(roots))
	}
	var comps []*node
	kind := ""
	for _, c := range roots[0].children {
		switch c.Name {
		case ical.CompTimezone:
		case ical.CompEvent, ical.CompToDo:
			if kind != "" && kind != c.Name {
				return nil, objectErr(ValidCalendarObjectResource, "The body mixes VEVENT and VTODO components; a calendar object holds one kind (RFC 4791 §4.1), so send the event and the to-do in separate PUTs.")
			}
			kind = c.Name
			comps = append(comps, c)
		default:
			return nil, objectErr(SupportedCalendarComponent, "A %s component cannot be stored: this calendar keeps events (VEVENT) and to-dos (VTODO) only.", args.Clip(c.Name))
		}
	}
	if len(comps) == 0 {
		return nil, objectErr(ValidCalendarObjectResource, "The VCALENDAR holds no VEVENT or VTODO; send one event or one to-do.")
	}
	uid := ""
	masters := 0
	for _, c := range comps {
		u := ""
		if up := c.Props.Get("UID"); up != nil {
			u = strings.TrimSpace(unescapeText(up.Value))
		}
		switch {
		case u == "":
			return nil, objectErr(ValidCalendarObjectResource, "The %s at line %d has no UID; every component of a calendar object needs one (RFC 4791 §4.1), so add a UID line.", c.Name, c.line)
		case strings.ContainsFunc(u, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			return nil, objectErr(ValidCalendarData, "The UID of the %s at line %d holds a control character (a line break or a tab); use a UID of visible characters.", c.Name, c.line)
		case len(u) > maxUID:
			return nil, objectErr(ValidCalendarObjectResource, "The UID has %d bytes, more than the %d kept; use a shorter UID.", len(u), maxUID)
		case uid != "" && u != uid:
			return nil, objectErr(ValidCalendarObjectResource, "The body holds two UIDs, “%s” and “%s”; a calendar object holds the components of one UID (RFC 4791 §4.1), so send each in a PUT of its own.", args.Clip(uid), args.Clip(u))
		}
		uid = u
		if c.Props.Get("RECURRENCE-ID") == nil {
			masters++
		}
	}
	switch {
	case masters == 0:
		return nil, objectErr(ValidCalendarObjectResource, "The body holds only changed occurrences (RECURRENCE-ID) of “%s”, not the series itself; send the %s without RECURRENCE-ID along with them.", args.Clip(uid), kind)
	case masters > 1:
		return nil, objectErr(ValidCalendarObjectResource, "The body holds %d %ss with UID “%s” and no RECURRENCE-ID; a calendar object holds one, with its changed occurrences.", masters, kind, args.Clip(uid))
	}

	cal := DecodeBytes(data, DecodeOptions{Zone: person, Now: now})
	for _, sk := range cal.Skipped {
		// An import keeps one of the two; a client sends the object
		// again.
		if sk.Reason != secondOverride {
			continue
		}
		rid := ""
		for _, c := range comps {
			if p := c.Props.Get("RECURRENCE-ID"); c.line == sk.Line && p != nil {
				rid = strings.TrimSpace(p.Value)
			}
		}
		return nil, refuseTwoOverrides(args.Clip(rid), uid)
	}
	plan := planRows(cal, person, now)
	obj := &Object{Kind: kind, UID: uid, Skipped: append(cal.Skipped, plan.skipped()...), Repaired: cal.Repaired}
	if kind == ical.CompToDo {
		if len(plan.tasks) != 1 {
			return nil, notKept(obj.Skipped, "to-do", comps[0].line)
		}
		obj.Task = plan.tasks[0]
		// A changed occurrence of a to-do is not kept (PutObject reads
		// one that completes the current occurrence), nor is its extra.
		obj.comps, obj.keys, obj.todoOccs = comps, map[int]string{}, cal.todoOccs
		for _, c := range comps {
			if c.Props.Get("RECURRENCE-ID") == nil {
				obj.keys[c.line] = ""
			}
		}
		obj.Extra = fitTaskExtra(obj.extraText(), obj.Task.Status == task.Done)
		return obj, nil
	}
	if len(plan.events) != 1 {
		line := 0
		for _, c := range comps {
			if c.Props.Get("RECURRENCE-ID") == nil {
				line = c.line
				if st := c.Props.Get("STATUS"); st != nil && strings.EqualFold(strings.TrimSpace(st.Value), "CANCELLED") {
					return nil, objectErr(ValidCalendarObjectResource, "A cancelled event (STATUS:CANCELLED) is not kept; to cancel the event, delete its resource instead.")
				}
			}
		}
		return nil, notKept(obj.Skipped, "event", line)
	}
	pe := plan.events[0]
	seen := map[string]bool{}
	for _, o := range pe.overrides {
		if seen[o.Key] {
			return nil, refuseTwoOverrides(o.Key, uid)
		}
		seen[o.Key] = true
	}
	obj.Event, obj.Overrides = pe.stored(plan.now), pe.overrides
	// Each component's extra goes with the key of what it became: "" for
	// the series, the occurrence key of a changed occurrence (its master's
	// zone as planRows left it, which storedOverride keyed it in).
	var master *Event
	for i := range cal.Events {
		if cal.Events[i].RecurrenceID == nil {
			master = &cal.Events[i]
		}
	}
	if master.Rule != nil {
		// The RRULE as the object is written back (a local UNTIL in UTC,
		// RFC 5545 §3.3.10), the same occurrences, so the PUT of its GET
		// changes nothing.
		obj.Event.Rule = exportRule(master, master.Rule)
	}
	keys := map[int]string{} // line of the component → key
	for i := range cal.Events {
		e := &cal.Events[i]
		switch {
		case e.RecurrenceID == nil:
			keys[e.Line] = ""
		case seen[calendar.OccurrenceKey(master.AllDay, master.Zone, *e.RecurrenceID)]:
			keys[e.Line] = calendar.OccurrenceKey(master.AllDay, master.Zone, *e.RecurrenceID)
		}
	}
	obj.comps, obj.keys = comps, keys
	obj.Extra = obj.extraText()
	for _, ov := range cal.orphans {
		var notes []Skipped
		skip := func(line int, comp, uid, reason string) {
			notes = append(notes, Skipped{Line: line, Component: comp, UID: args.Clip(uid), Reason: reason})
		}
		ov.Summary = fitText(skip, ov.Line, "VEVENT", ov.UID, "SUMMARY", ov.Summary, item.MaxTitle, true)
		ov.Location = fitText(skip, ov.Line, "VEVENT", ov.UID, "LOCATION", ov.Location, item.MaxLocation, true)
		ov.Description = fitText(skip, ov.Line, "VEVENT", ov.UID, "DESCRIPTION", ov.Description, item.MaxNotes, false)
		obj.orphans = append(obj.orphans, orphan{ov: storedOverride(master, &ov, person), line: ov.Line, notes: notes})
	}
	return obj, nil
}

// extraText is [extraText] of the object's components under the keys it
// has for them.
func (obj *Object) extraText() string {
	return extraText(obj.Kind, obj.comps, func(n *node) (string, bool) { k, ok := obj.keys[n.line]; return k, ok })
}

// notKept is the refusal of an object whose one item the mapping left out,
// with the first reason it gave.
// The reason given at line (the component's BEGIN) goes first.
func notKept(skipped []Skipped, what string, line int) error {
	skipped = slices.Clone(skipped)
	slices.SortStableFunc(skipped, func(a, b Skipped) int {
		switch {
		case a.Line == line && b.Line != line:
			return -1
		case b.Line == line && a.Line != line:
			return 1
		}
		return 0
	})
	for _, s := range skipped {
		if s.Component == ical.CompEvent || s.Component == ical.CompToDo {
			return objectErr(ValidCalendarObjectResource, "The %s cannot be stored: %s", what, strings.TrimSuffix(s.Reason, ".")+".")
		}
	}
	return objectErr(ValidCalendarObjectResource, "The %s cannot be stored: it holds nothing that can be read as one.", what)
}

// extraText gathers what of comps is extra (modelled), each component's
// under the key keyOf gives it (ok false: the component was not kept,
// and neither is its extra): a VCALENDAR of VEVENTs or VTODOs, one per
// key that has any, in order of key, a changed occurrence's carrying its
// key as RECURRENCE-ID.
func extraText(kind string, comps []*node, keyOf func(*node) (string, bool)) string {
	type keyed struct {
		key string
		c   *ical.Component
	}
	var out []keyed
	for _, n := range comps {
		key, ok := keyOf(n)
		if !ok {
			continue
		}
		c := ical.NewComponent(kind)
		for name, ps := range n.Props {
			for i := range ps {
				if !modelled(kind, &ps[i]) {
					c.Props[name] = append(c.Props[name], ps[i])
				}
			}
		}
		if len(c.Props) == 0 {
			continue
		}
		if key != "" {
			c.Props.Set(&ical.Prop{Name: "RECURRENCE-ID", Params: ical.Params{}, Value: key})
		}
		out = append(out, keyed{key, c})
	}
	if len(out) == 0 {
		return ""
	}
	// By key, the series first, so the text depends on the components,
	// not on their order in the body.
	slices.SortStableFunc(out, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	var b bytes.Buffer
	b.WriteString("BEGIN:VCALENDAR\r\n")
	for _, k := range out {
		writeRaw(&b, k.c)
	}
	b.WriteString("END:VCALENDAR\r\n")
	return b.String()
}

// maxObjectProps is the most properties ParseObject reads in a body: an
// event with a few thousand attendees or changed occurrences holds far
// fewer, and each property read costs some hundred bytes, so a 4 MB body
// of short properties held 600 MB.
const maxObjectProps = 20_000

// noBreaks drops CR and LF from a value: made once, not once a property
// (a replacer builds a table of kilobytes).
var noBreaks = strings.NewReplacer("\r", "", "\n", "")

// writeRaw writes c as iCalendar lines, unfolded, its properties in order
// of name (each name's in their order) and their parameters by name, so
// the same properties give the same text. go-ical's encoder is not used:
// it refuses a component that lacks what RFC 5545 requires of it (a
// VEVENT's DTSTAMP), and extra holds only part of one. What a content
// line cannot hold is dropped: CR and LF in a value, DQUOTE in a
// parameter value (RFC 5545 §3.1 forbids it there).
func writeRaw(b *bytes.Buffer, c *ical.Component) {
	b.WriteString("BEGIN:" + c.Name + "\r\n")
	names := make([]string, 0, len(c.Props))
	for name := range c.Props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, p := range c.Props[name] {
			b.WriteString(p.Name)
			pnames := make([]string, 0, len(p.Params))
			for k := range p.Params {
				pnames = append(pnames, k)
			}
			slices.Sort(pnames)
			for _, k := range pnames {
				b.WriteString(";" + k + "=")
				for i, v := range p.Params[k] {
					if i > 0 {
						b.WriteString(",")
					}
					v = strings.ReplaceAll(v, `"`, "")
					if strings.ContainsAny(v, ";:,") {
						v = `"` + v + `"`
					}
					b.WriteString(v)
				}
			}
			b.WriteString(":" + noBreaks.Replace(p.Value) + "\r\n")
		}
	}
	for _, ch := range c.Children {
		writeRaw(b, ch)
	}
	b.WriteString("END:" + c.Name + "\r\n")
}

// extraByKey reads Extra back: each component's properties by key ("" for the series or the to-do). Text it cannot
// read gives nothing.
func extraByKey(extra string) map[string]*ical.Component {
	out := map[string]*ical.Component{}
	if extra == "" {
		return out
	}
	var p parser
	for _, root := range p.parse([]byte(extra)) {
		for _, c := range root.children {
			key := ""
			if r := c.Props.Get("RECURRENCE-ID"); r != nil {
				key = r.Value
				delete(c.Props, "RECURRENCE-ID")
			}
			out[key] = c.Component
		}
	}
	return out
}

// putBack adds the extra properties of x to c. A
// property c already has is c's, except a to-do's STATUS, where the extra
// one (IN-PROCESS, CANCELLED) stands for the NEEDS-ACTION written.
func putBack(c, x *ical.Component) {
	if x == nil {
		return
	}
	enc := ical.NewEncoder(io.Discard)
	for name, ps := range x.Props {
		if _, has := c.Props[name]; has {
			if !(c.Name == ical.CompToDo && name == "STATUS" && c.Props.Get("STATUS").Value == "NEEDS-ACTION") {
				continue
			}
		}
		var keep []ical.Prop
		for _, p := range ps {
			// what go-ical's encoder would refuse is left out, so the
			// object is still written
			if enc.Encode(&ical.Calendar{Component: &ical.Component{Name: "X-TEST", Props: ical.Props{name: {p}}}}) == nil {
				keep = append(keep, p)
			}
		}
		if len(keep) > 0 {
			c.Props[name] = keep
		}
	}
}

// fitTaskExtra is the extra of a to-do (an [Object.Extra]) made to agree
// with the task being done or open: its completion-state properties are
// assistant's to say. A done task's PERCENT-COMPLETE reads 100 and it has
// no extra STATUS (its STATUS is COMPLETED); an open task's
// PERCENT-COMPLETE of 100 (or more) is dropped, a lower one kept (RFC
// 5545 §3.8.1.8), and an extra STATUS stands for NEEDS-ACTION only when
// it is not COMPLETED or NEEDS-ACTION. Text that needs no change is
// returned as it is.
func fitTaskExtra(extra string, done bool) string {
	if extra == "" {
		return ""
	}
	var p parser
	var comps []*ical.Component
	changed := false
	for _, root := range p.parse([]byte(extra)) {
		for _, c := range root.children {
			if fitTaskState(c.Component, done) {
				changed = true
			}
			if len(c.Props) > 0 {
				comps = append(comps, c.Component)
			}
		}
	}
	if !changed {
		return extra
	}
	if len(comps) == 0 {
		return ""
	}
	var b bytes.Buffer
	b.WriteString("BEGIN:VCALENDAR\r\n")
	for _, c := range comps {
		writeRaw(&b, c)
	}
	b.WriteString("END:VCALENDAR\r\n")
	return b.String()
}

// fitTaskState is [fitTaskExtra] for the extra properties of one
// component; it reports whether it changed any.
func fitTaskState(c *ical.Component, done bool) bool {
	changed := false
	if ps, ok := c.Props["PERCENT-COMPLETE"]; ok {
		var keep []ical.Prop
		for _, p := range ps {
			n, err := strconv.Atoi(strings.TrimSpace(p.Value))
			switch {
			case done:
				if err != nil || n != 100 || len(keep) > 0 {
					changed = true
				}
				if len(keep) == 0 {
					p.Value = "100"
					keep = append(keep, p)
				}
			case err == nil && n >= 100:
				changed = true
			default:
				keep = append(keep, p)
			}
		}
		c.Props["PERCENT-COMPLETE"] = keep
		if len(keep) == 0 {
			delete(c.Props, "PERCENT-COMPLETE")
		}
	}
	if ps, ok := c.Props["STATUS"]; ok {
		var keep []ical.Prop
		for _, p := range ps {
			v := strings.ToUpper(strings.TrimSpace(p.Value))
			if done || v == "COMPLETED" || v == "NEEDS-ACTION" {
				changed = true
				continue
			}
			keep = append(keep, p)
		}
		c.Props["STATUS"] = keep
		if len(keep) == 0 {
			delete(c.Props, "STATUS")
		}
	}
	return changed
}

// objectStamp is the DTSTAMP of an object: a stored time of the item,
// never the clock, so the same rows give the same bytes (a CalDAV ETag is
// a hash of them).
func objectStamp(times ...time.Time) time.Time {
	for _, t := range times {
		if !t.IsZero() {
			return t
		}
	}
	return time.Unix(0, 0).UTC()
}

// WriteEventObject writes the calendar object resource of the stored
// series e with its overrides ovs (any order) to w: one VCALENDAR with a
// VTIMEZONE for each zone it uses over the years it spans, the series'
// VEVENT and one per override (by key), each with its part of extra (an
// [Object.Extra]) put back. The bytes depend only on the arguments: DTSTAMP
// is e.CreatedAt. person is the zone all-day days begin in.
func WriteEventObject(w io.Writer, e *calendar.Event, ovs []*calendar.Override, extra string, person tz.Zone) error {
	me, err := eventFromStore(e, person)
	if err != nil {
		return err
	}
	sorted := slices.Clone(ovs)
	slices.SortFunc(sorted, func(a, b *calendar.Override) int { return strings.Compare(a.Key, b.Key) })
	cal := &Calendar{Events: []Event{*me}}
	for _, o := range sorted {
		ov, err := overrideFromStore(me, o)
		if err != nil {
			return err
		}
		cal.Events = append(cal.Events, *ov)
	}
	zones, fromY, toY, open := spanOf(cal)
	wr := NewWriter(w, WriterOptions{Zones: zones, FromYear: fromY, ToYear: min(toY, 9998), Open: open, Stamp: objectStamp(e.CreatedAt)})
	x := extraByKey(extra)
	for i := range cal.Events {
		c := wr.eventComponent(&cal.Events[i])
		key := ""
		if i > 0 {
			key = sorted[i-1].Key
		}
		putBack(c, x[key])
		wr.component(c)
	}
	return wr.Close()
}

// WriteTaskObject writes the calendar object resource of the stored task t
// to w: one VCALENDAR with the VTIMEZONE of its due's zone and its VTODO
// (UID "t<ID>@assistant" when it has none of its own), with extra (an
// [Object.Extra]) put back, its completion-state properties made to agree
// with t's status (an open task is never served PERCENT-COMPLETE:100, a
// done one PERCENT-COMPLETE:100 when extra has one; see fitTaskExtra).
// The bytes depend only on the arguments: DTSTAMP is t.UpdatedAt
// (t.CreatedAt when unset). person is the zone of a floating due.
func WriteTaskObject(w io.Writer, t task.Task, extra string, person tz.Zone) error {
	mt, err := exportedTask(t, person)
	if err != nil {
		return err
	}
	x := extraByKey(fitTaskExtra(extra, t.Status == task.Done))
	zones, fromY, toY, open := spanOf(&Calendar{Tasks: []Task{*mt}})
	wr := NewWriter(w, WriterOptions{Zones: zones, FromYear: fromY, ToYear: min(toY, 9998), Open: open, Stamp: objectStamp(t.UpdatedAt, t.CreatedAt)})
	c := wr.taskComponent(mt)
	putBack(c, x[""])
	wr.component(c)
	return wr.Close()
}

// PutObject writes obj for tx's owner inside the caller's store.Write,
// replacing what the store holds for its UID: the live event of that UID
// is updated in place (same id, creation time and split) or a new one
// inserted; the object's overrides are saved or inserted and the live
// ones it does not hold are deleted; a task is updated (a made task found
// by "t<ID>@assistant" keeps having no UID of its own) or inserted. When
// the series' DTSTART moves, the old one is kept in PrevStarts
// ([calendar.RecordMove]) so occurrence ids from before still resolve,
// and a changed occurrence whose RECURRENCE-ID is one of the stored series
// before the move, not of the moved one, is re-keyed along with it (see
// followMove) instead of dropped. A repeating to-do whose STATUS goes
// from open to COMPLETED, or whose changed occurrence at the current due
// is COMPLETED, has its current occurrence completed as complete_task
// does ([task.Complete]: it stays open at its next due, and the
// completion is recorded); a to-do's other changed occurrences are not
// kept. obj is brought to what was stored: Overrides, Skipped, Repaired
// and Extra (whose completion-state properties follow the stored task,
// see fitTaskExtra), so the caller keeps obj.Extra after the call. id
// is the event's or task's; created says it is new; changed that a row
// was written (a PUT of what is stored writes nothing, and the change
// records nothing; nor does the PUT of an object's own GET, whose row may
// be kept in a form served alike, such as an EXDATE as a day served as the
// date-time of its occurrence: each part of a row that the body leaves
// served as it was keeps its stored form). person is the owner's zone, as
// ParseObject had it.
func PutObject(tx *store.Tx, person tz.Zone, obj *Object) (id int64, created, changed bool, err error) {
	before := tx.Touched()
	switch obj.Kind {
	case ical.CompEvent:
		id, created, err = putEvent(tx, person, obj)
	case ical.CompToDo:
		id, created, err = putTask(tx, person, obj)
	default:
		return 0, false, false, fmt.Errorf("an object of kind %q cannot be stored", obj.Kind)
	}
	if err != nil {
		return 0, false, false, err
	}
	return id, created, tx.Touched() > before, nil
}

func putEvent(tx *store.Tx, person tz.Zone, obj *Object) (int64, bool, error) {
	want := obj.Event.Clone()
	have, err := tx.EventByUID(obj.UID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return 0, false, err
	}
	var from map[string]string // new key → the stored key it was
	if err == nil {
		from = obj.followMove(have, person)
	}
	ovs := make([]*calendar.Override, len(obj.Overrides))
	for i, o := range obj.Overrides {
		c := *o
		ovs[i] = &c
	}
	if errors.Is(err, store.ErrNotFound) {
		want.ID = 0
		if err := tx.InsertEvents([]*calendar.Event{want}, [][]*calendar.Override{ovs}); err != nil {
			return 0, false, err
		}
		for _, o := range ovs {
			o.ID, o.EventID = 0, want.ID
		}
		if len(ovs) > 0 {
			if err := tx.InsertOverrides(ovs, want.CreatedAt); err != nil {
				return 0, false, err
			}
		}
		return want.ID, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	live, err := tx.Overrides(have.ID)
	if err != nil {
		return 0, false, err
	}
	now := want.CreatedAt
	want.ID, want.CreatedAt, want.SplitFrom, want.PrevStarts = have.ID, have.CreatedAt, have.SplitFrom, have.PrevStarts
	keepStoredEvent(have, want, person)
	keep := map[string]bool{}
	for _, o := range ovs {
		keep[o.Key] = true
	}
	// A stored override re-keyed by the move is saved under its new key,
	// the same row, as the tools' move does.
	reuse := map[string]*calendar.Override{}
	for _, o := range ovs {
		if old, ok := from[o.Key]; ok && live[o.Key] == nil && live[old] != nil && !keep[old] {
			reuse[o.Key] = live[old]
			keep[old] = true
		}
	}
	gone := make([]string, 0, len(live))
	for k := range live {
		if !keep[k] {
			gone = append(gone, k)
		}
	}
	slices.Sort(gone)
	for _, k := range gone {
		if err := tx.DeleteOverride(live[k].ID); err != nil {
			return 0, false, err
		}
	}
	for _, o := range ovs {
		o.EventID = have.ID
		h := live[o.Key]
		if h == nil {
			h = reuse[o.Key]
		}
		if h != nil {
			o.ID = h.ID
			if h.Key == o.Key {
				keepStoredOverride(want, h, o, person)
			}
			if err := tx.SaveOverride(h, o); err != nil {
				return 0, false, err
			}
			continue
		}
		o.ID = 0
		if err := tx.InsertOverride(o, now); err != nil {
			return 0, false, err
		}
	}
	calendar.RecordMove(have, want)
	if err := tx.SaveEvent(have, want); err != nil {
		return 0, false, err
	}
	return have.ID, false, nil
}

// followMove places the changed occurrences of obj whose RECURRENCE-ID
// matches no occurrence of its series (obj.orphans) when the series is
// have, the stored one, moved by a civil shift of its DTSTART (and
// perhaps into another zone): a client that moves a series without
// moving the RECURRENCE-IDs of its changed occurrences (a hand-edited
// file, vdirsyncer) means the same occurrences, moved along. Each one
// that is an occurrence of have is re-keyed as the tools re-key on a
// series move ([calendar.FollowSeries]): it joins obj.Overrides under
// its new key, keeps its own time unless that is now the series' (then
// it is an ordinary occurrence again, and dropped when it changes
// nothing else), its extra follows it and its line leaves Skipped for
// Repaired. One that is no occurrence of have either, or whose new
// key another changed occurrence of the body has, stays skipped. The
// result maps each new key to the key it had.
func (obj *Object) followMove(have *calendar.Event, person tz.Zone) map[string]string {
	want := obj.Event
	if len(obj.orphans) == 0 || have.AllDay != want.AllDay || (have.Start == want.Start && have.Zone.Name() == want.Zone.Name()) {
		return nil
	}
	shift := want.Start.DateTime.AsUTC().Sub(have.Start.DateTime.AsUTC())
	if want.AllDay {
		shift = time.Duration(have.Start.Date.DaysUntil(want.Start.Date)) * 24 * time.Hour
	}
	taken := map[string]bool{}
	for _, o := range obj.Overrides {
		taken[o.Key] = true
	}
	byKey := map[string]*orphan{}
	ovs := map[string]*calendar.Override{}
	for i := range obj.orphans {
		o := &obj.orphans[i]
		if byKey[o.ov.Key] == nil {
			byKey[o.ov.Key], ovs[o.ov.Key] = o, o.ov
		}
	}
	from := map[string]string{}
	f := calendar.FollowSeries(have, want, ovs, shift, "", person)
	dropped := map[string]bool{}
	for _, k := range f.Dropped {
		dropped[k] = true
	}
	for _, ed := range f.Edits {
		old := ed.Before.Key
		o := byKey[old]
		switch {
		case dropped[old]:
			continue
		case ed.Delete:
			obj.adopt(o, "", fmt.Sprintf("RECURRENCE-ID %s is an occurrence of the series before its start moved; moved along, it changes nothing of its occurrence, which is kept as the series has it", old))
		case taken[ed.After.Key]:
			continue
		default:
			taken[ed.After.Key] = true
			after := *ed.After
			obj.Overrides = append(obj.Overrides, &after)
			from[after.Key] = old
			obj.adopt(o, after.Key, fmt.Sprintf("RECURRENCE-ID %s is an occurrence of the series before its start moved, so it is kept moved along with the series, as RECURRENCE-ID %s", old, after.Key))
		}
	}
	if len(from) > 0 {
		obj.Extra = obj.extraText()
	}
	return from
}

// adopt takes orphan o out of Skipped into Repaired (saying why) with
// what the mapping cut from it; key is the key its extra now goes under,
// "" for none.
func (obj *Object) adopt(o *orphan, key, why string) {
	obj.Skipped = slices.DeleteFunc(obj.Skipped, func(s Skipped) bool {
		return s.Line == o.line && s.Component == ical.CompEvent && strings.Contains(s.Reason, "matches no occurrence")
	})
	obj.Skipped = append(obj.Skipped, o.notes...)
	obj.Repaired = append(obj.Repaired, Skipped{Line: o.line, Component: ical.CompEvent, UID: args.Clip(obj.UID), Reason: why})
	if key != "" {
		obj.keys[o.line] = key
	}
}

func putTask(tx *store.Tx, person tz.Zone, obj *Object) (int64, bool, error) {
	want := obj.Task
	have, err := tx.TaskByUID(obj.UID)
	if errors.Is(err, store.ErrNotFound) {
		id, err := tx.InsertTask(want)
		return id, true, err
	}
	if err != nil {
		return 0, false, err
	}
	want.ID, want.CreatedAt, want.UpdatedAt = have.ID, have.CreatedAt, have.UpdatedAt
	if have.UID == "" && want.UID == task.MadeUID(have.ID) {
		want.UID = ""
	}
	if want.Status == task.Done && have.Status == task.Done && want.CompletedAt.Equal(obj.Task.CreatedAt) {
		// Done without a COMPLETED time in the body: it stays done when it
		// was.
		want.CompletedAt = have.CompletedAt
	}
	if at, ok := obj.completes(have); ok {
		open := want
		open.Status, open.CompletedAt = task.Open, time.Time{}
		after, done, _, err := task.Complete(open, person, at.UTC().Truncate(time.Second))
		if err != nil {
			return 0, false, err
		}
		again, err := doneBefore(tx, have, done)
		if err != nil {
			return 0, false, err
		}
		if !again {
			if _, err := tx.InsertCompletion(done); err != nil {
				return 0, false, err
			}
		}
		want = after
	}
	keepStoredTask(have, &want, person)
	obj.Extra = fitTaskExtra(obj.Extra, want.Status == task.Done)
	if _, err := tx.SaveTask(have, want); err != nil {
		return 0, false, err
	}
	return have.ID, false, nil
}

// completes reports whether obj completes an occurrence of have, the
// stored task, open and repeating, and when: the to-do repeats and its
// STATUS went to COMPLETED (as todoman and python caldav's complete()
// send it), or a changed occurrence (RECURRENCE-ID) whose RECURRENCE-ID is
// have's due is COMPLETED (as Thunderbird sends it), which then leaves
// Skipped. The time is the body's COMPLETED, else when it was read. As
// complete_task does, this completes the current occurrence
// ([task.Complete]) rather than end the series (Todoist does the same).
func (obj *Object) completes(have task.Task) (time.Time, bool) {
	if have.Status != task.Open {
		return time.Time{}, false
	}
	if obj.Task.Status == task.Done {
		return obj.Task.CompletedAt, obj.Task.Rule != nil
	}
	if have.Rule == nil || !have.HasDue || obj.Task.Rule == nil {
		return time.Time{}, false
	}
	for _, o := range obj.todoOccs {
		if !o.Done || !isDue(have.Due, o) {
			continue
		}
		obj.Skipped = slices.DeleteFunc(obj.Skipped, func(s Skipped) bool {
			return s.Line == o.Line && s.Component == ical.CompToDo && strings.Contains(s.Reason, "RECURRENCE-ID")
		})
		if o.Completed.IsZero() {
			return obj.Task.CreatedAt, true
		}
		return o.Completed, true
	}
	return time.Time{}, false
}

// isDue reports whether the RECURRENCE-ID of o names the occurrence due d:
// the same instant for a timed due, the same day for a day.
func isDue(d task.Due, o todoOccurrence) bool {
	if d.HasTime {
		return o.RecurrenceID.HasTime && o.At.Equal(d.At)
	}
	return !o.RecurrenceID.HasTime && o.RecurrenceID.Date == d.Date
}

// doneBefore reports whether done, the completion a PUT makes of have,
// repeats the last one recorded: the body's due is no longer the stored
// one but the due of the last completion, so the body is a completion
// already applied (a client sending it again), which is not recorded
// twice.
func doneBefore(tx *store.Tx, have task.Task, done task.Completion) (bool, error) {
	if !done.HasDue || (have.HasDue && sameDue(have.Due, done.Due)) {
		return false, nil
	}
	last, _, err := tx.Completions(have.ID, 1)
	if err != nil || len(last) == 0 {
		return false, err
	}
	return last[0].HasDue && sameDue(last[0].Due, done.Due), nil
}

func sameDue(a, b task.Due) bool { return a.Moment == b.Moment && a.At.Equal(b.At) }

// Lost lists what of the object could not be read or kept that its sender
// would miss in what is stored: a line that is no iCalendar, a component
// left out or read without its END, a rule or a recurrence date dropped,
// a text cut to fit. A server that stores
// objects as they are sent (CalDAV's PUT) refuses an object with any
// (RFC 4791 §5.3.2.1, valid-calendar-object-resource), rather than keep
// less than it was given; reminders it cannot keep and the like are not
// in it.
func (o *Object) Lost() []Skipped {
	var out []Skipped
	for _, s := range o.Skipped {
		if s.grave || strings.HasSuffix(s.Reason, textCut) {
			out = append(out, s)
		}
	}
	for _, s := range o.Repaired {
		if s.grave {
			out = append(out, s)
		}
	}
	return out
}

// refuseTwoOverrides refuses an object with two VEVENTs changing the occurrence
// rid of the series uid.
func refuseTwoOverrides(rid, uid string) error {
	return objectErr(ValidCalendarObjectResource, "Two VEVENTs change the same occurrence (RECURRENCE-ID %s) of “%s”; send one.", rid, args.Clip(uid))
}
