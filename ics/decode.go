package ics

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// DecodeOptions tunes Decode.
type DecodeOptions struct {
	// Zone is the person's IANA zone: floating times (no TZID, no "Z") are
	// read in it, and all-day items begin at 00:00 in it.
	// The zero Zone is UTC.
	Zone tz.Zone
	// Now, when set, drops absolute alarms (TRIGGER;VALUE=DATE-TIME) whose
	// instant is before it: such an alarm fires once, at its instant (RFC
	// 5545 §3.8.6.3), so one already past would never fire. Each is named
	// in Calendar.Skipped.
	Now time.Time
	// MoveMadeEventUIDs keeps a VEVENT whose UID has the form this
	// database gives its tasks ("t12@assistant", [task.MadeUID]) under
	// "t12.imported@assistant", said in Calendar.Repaired, so the event
	// shares no UID with task t12 in an export. The import sets it; CalDAV,
	// which may not change a client's UID, refuses such an object instead.
	MoveMadeEventUIDs bool
}

// maxRemindMinutes is the largest remind_before the tools take (4 weeks).
const maxRemindMinutes = 40320

// ErrNotCalendar is what Decode and Import return for input that holds no
// VCALENDAR at all (RFC 5545 §3.4: an iCalendar stream is one or more
// BEGIN:VCALENDAR … END:VCALENDAR objects): an empty file, or some other
// kind of file named by mistake. Importing it would "succeed" with nothing
// imported and every line skipped, which hides the mistake.
var ErrNotCalendar = errors.New("not an iCalendar file")

// Decode reads an iCalendar stream (RFC 5545) into a Calendar. It returns an
// error when r cannot be read, and a *NotCalendarError (ErrNotCalendar) when the stream is empty or has no BEGIN:VCALENDAR line;
// everything else in the stream that cannot be imported is listed in
// Calendar.Skipped, by line. The stream is read component by component,
// twice when r is an io.ReadSeeker (a file): once for the time zones it
// defines and the years it spans, once for its items; any other reader is
// read into memory first.
func Decode(r io.Reader, opts DecodeOptions) (*Calendar, error) {
	return decodeStream(r, opts, nil)
}

// decodeStream is Decode; with stream set, each series (a VEVENT without
// RECURRENCE-ID) that no VEVENT of the stream changes an occurrence of
// (none has its UID and a RECURRENCE-ID) is handed to stream as soon as
// it is read, and not kept in the Calendar, so the events of a large file
// are never held all at once. The others, and the tasks, are kept as
// Decode keeps them.
func decodeStream(r io.Reader, opts DecodeOptions, stream func(*Event)) (*Calendar, error) {
	rs, ok := r.(io.ReadSeeker)
	if ok {
		if _, err := rs.Seek(0, io.SeekCurrent); err != nil {
			ok = false // a pipe or a terminal
		}
	}
	if !ok {
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("the calendar could not be read: %w", err)
		}
		rs = bytes.NewReader(data)
	}
	from, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("the calendar could not be read: %w", err)
	}
	d := newDecoder(opts)
	if err := d.prescan(rs); err != nil {
		return nil, fmt.Errorf("the calendar could not be read: %w", err)
	}
	if _, err := rs.Seek(from, io.SeekStart); err != nil {
		return nil, fmt.Errorf("the calendar could not be read: %w", err)
	}
	d.stream = stream
	cr := &countingReader{r: rs}
	roots, err := d.p.parseReader(cr)
	if err != nil {
		return nil, fmt.Errorf("the calendar could not be read: %w", err)
	}
	d.end(roots, cr.blank)
	if d.cal.roots == 0 {
		why := "it has no BEGIN:VCALENDAR line"
		if cr.blank {
			why = "it is empty"
		}
		return d.cal, &NotCalendarError{Source: "the input", Why: why}
	}
	return d.cal, nil
}

// countingReader notes whether everything read through it is white space.
type countingReader struct {
	r     io.Reader
	blank bool
	seen  bool
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if !c.seen {
		c.blank, c.seen = true, true
	}
	if c.blank && len(bytes.TrimSpace(b[:n])) > 0 {
		c.blank = false
	}
	return n, err
}

// NotCalendarError is the sentence of ErrNotCalendar: what was read (a file
// name, or "the input") and why it is no iCalendar stream.
type NotCalendarError struct {
	Source string // "SOURCES.md"
	Why    string // "it has no BEGIN:VCALENDAR line", "it is empty"
}

func (e *NotCalendarError) Error() string {
	return fmt.Sprintf("%s is not an iCalendar file: %s", e.Source, e.Why)
}

// Unwrap makes errors.Is(err, ErrNotCalendar) true.
func (e *NotCalendarError) Unwrap() error { return ErrNotCalendar }

// DecodeBytes is Decode for a file already in memory.
func DecodeBytes(data []byte, opts DecodeOptions) *Calendar {
	d := newDecoder(opts)
	d.prescan(bytes.NewReader(data))
	roots := d.p.parse(data)
	d.end(roots, len(bytes.TrimSpace(data)) == 0)
	return d.cal
}

func newDecoder(opts DecodeOptions) *decoder {
	d := &decoder{opts: opts, cal: &Calendar{Counts: map[string]int{}, Zones: map[string]ZoneMatch{}, Props: map[string]string{}}}
	d.zr = &zoneResolver{vtz: map[string]*node{}, cache: map[string]resolved{}}
	d.p.emit = d.component
	return d
}

// component reads one component of a VCALENDAR as the parser closes it.
func (d *decoder) component(c *node) {
	d.count(c)
	switch c.Name {
	case "VEVENT":
		d.event(c)
	case "VTODO":
		d.task(c)
	case "VTIMEZONE":
		if id := c.Props.Get("TZID"); id == nil || strings.TrimSpace(id.Value) == "" {
			d.p.skip(c.line, c.Name, "a VTIMEZONE without TZID is of no use and is left out")
		}
	default:
		d.p.skip(c.line, c.Name, args.Clip(c.Name)+" components are not imported")
	}
	if n := len(d.cal.Events); d.stream != nil && c.Name == "VEVENT" && n > 0 && d.cal.Events[n-1].Line == c.line {
		e := d.cal.Events[n-1]
		if e.RecurrenceID == nil && !d.overridden[e.UID] {
			d.cal.Events[n-1] = Event{}
			d.cal.Events = d.cal.Events[:n-1]
			if d.streamed[e.UID] {
				d.cal.Skipped = append(d.cal.Skipped, Skipped{Line: e.Line, Component: "VEVENT", UID: e.UID, Reason: secondSeries})
				return
			}
			if d.streamed == nil {
				d.streamed = map[string]bool{}
			}
			d.streamed[e.UID] = true
			d.stream(&e)
		}
	}
}

// secondSeries is the report's line for a VEVENT left out because an
// earlier one has its UID.
const secondSeries = "a second VEVENT with the same UID and no RECURRENCE-ID; the first one is kept"

// end completes the calendar once the stream is read: the calendars'
// properties, the overrides placed in their series, the lists sorted by
// line. blank is whether the stream held only white space.
func (d *decoder) end(roots []*node, blank bool) {
	d.cal.roots = len(roots)
	if len(roots) == 0 && !blank {
		d.p.skip(1, "", "no BEGIN:VCALENDAR … END:VCALENDAR in the file")
	}
	for _, root := range roots {
		for name, ps := range root.Props {
			if _, ok := d.cal.Props[name]; !ok && len(ps) > 0 {
				d.cal.Props[name] = unescapeText(ps[0].Value)
			}
		}
	}
	d.finish()
	d.cal.Skipped = append(d.p.skipped, d.cal.Skipped...)
	d.cal.Repaired = append(d.p.repaired, d.cal.Repaired...)
	for _, list := range [][]Skipped{d.cal.Skipped, d.cal.Repaired} {
		for i := range list {
			// a component name or UID of any length is named in a line
			// of the report, so it is cut as a quoted value is
			list[i].Component, list[i].UID = args.Clip(list[i].Component), args.Clip(list[i].UID)
		}
	}
	sort.SliceStable(d.cal.Skipped, func(i, j int) bool { return d.cal.Skipped[i].Line < d.cal.Skipped[j].Line })
	sort.SliceStable(d.cal.Repaired, func(i, j int) bool { return d.cal.Repaired[i].Line < d.cal.Repaired[j].Line })
}

type decoder struct {
	opts DecodeOptions
	cal  *Calendar
	p    parser
	zr   *zoneResolver
	// rids keeps each override's RECURRENCE-ID as written until its master
	// (which may come later in the file) is known.
	rids map[int]timeVal // index in cal.Events → raw RECURRENCE-ID
	// stream, when set, takes the series no override names (see
	// decodeStream); streamed holds their UIDs, overridden the UIDs of
	// the VEVENTs with a RECURRENCE-ID, which prescan finds.
	stream     func(*Event)
	streamed   map[string]bool
	madeUIDs   map[string]int // how many items without UID made each UID
	overridden map[string]bool
}

func (d *decoder) count(n *node) {
	d.cal.Counts[n.Name]++
	for _, c := range n.children {
		d.count(c)
	}
}

func (d *decoder) skip(n *node, uid, prop string, i int, reason string) {
	line := n.line
	if prop != "" {
		line = n.propLine(prop, i)
	}
	d.cal.Skipped = append(d.cal.Skipped, Skipped{Line: line, Component: n.Name, UID: uid, Reason: reason})
}

// lose is skip for a loss a sender would notice (see [Skipped]).
func (d *decoder) lose(n *node, uid, prop string, i int, reason string) {
	d.skip(n, uid, prop, i, reason)
	d.cal.Skipped[len(d.cal.Skipped)-1].grave = true
}

// loseRule is lose of a rule the item is imported without: reason says
// so, fault is what is wrong with the rule alone ([Skipped.Fault]).
func (d *decoder) loseRule(n *node, uid string, reason, fault string) {
	d.lose(n, uid, "RRULE", 0, reason)
	d.cal.Skipped[len(d.cal.Skipped)-1].fault = strings.TrimSuffix(fault, ".")
}

func (d *decoder) repaired(n *node, uid, prop string, i int, reason string) {
	line := n.line
	if prop != "" {
		line = n.propLine(prop, i)
	}
	d.cal.Repaired = append(d.cal.Repaired, Skipped{Line: line, Component: n.Name, UID: uid, Reason: reason})
}

// timeVal is one DATE or DATE-TIME value as written.
type timeVal struct {
	m        tz.Moment // civil, in zone
	zone     tz.Zone
	utc      bool
	floating bool
}

// keptZone is the zone [ZoneProp] gives back to an event that is no
// series (no RRULE, no RDATE) whose DTSTART start is in UTC; ok is false
// for any other event or a name that is no IANA zone.
func keptZone(n *node, start timeVal) (tz.Zone, bool) {
	p := n.Props.Get(ZoneProp)
	if p == nil || !start.utc || !start.m.HasTime || n.Props.Get("RRULE") != nil || n.Props.Get("RDATE") != nil {
		return tz.Zone{}, false
	}
	z, err := tz.LoadZone(strings.TrimSpace(p.Value))
	return z, err == nil
}

// instant is the value's instant (all-day: 00:00 in zone).
func (v timeVal) instant() time.Time {
	t, _ := v.zone.MomentInstant(v.m)
	return t
}

// in returns the value as a civil moment in z: dates stay dates; a floating
// time keeps its clock reading; a zoned time is converted.
func (v timeVal) in(z tz.Zone) tz.Moment {
	if !v.m.HasTime || v.floating || v.zone.Name() == z.Name() {
		return v.m
	}
	return tz.TimeMoment(z.In(v.instant()))
}

// timeValue reads one DATE or DATE-TIME value of prop (RFC 5545 §3.3.4,
// §3.3.5). Lenient where real files are wrong: eight digits without
// VALUE=DATE are a date, a TZID on a date is ignored, and "20210527Z" is
// read as a date.
func (d *decoder) timeValue(n *node, uid string, prop *ical.Prop, pi int, v string) (timeVal, error) {
	v = strings.TrimSpace(v)
	if len(v) == 9 && v[8] == 'Z' && !strings.Contains(v, "T") {
		d.repaired(n, uid, prop.Name, pi, fmt.Sprintf("%s %s is a date with a “Z”; read as the date %s", prop.Name, quote(v), v[:8]))
		v = v[:8]
	}
	m, utc, err := tz.ParseBasic(v)
	if err != nil {
		return timeVal{}, fmt.Errorf("%s %s is not a date (20261005) or a date-time (20261005T090000)", prop.Name, quote(v))
	}
	if !m.HasTime {
		return timeVal{m: m, zone: d.opts.Zone}, nil
	}
	if strings.EqualFold(prop.Params.Get("VALUE"), "DATE") {
		return timeVal{m: tz.DayMoment(m.Date), zone: d.opts.Zone}, nil
	}
	if utc {
		return timeVal{m: m, zone: tz.UTC, utc: true}, nil
	}
	if id := prop.Params.Get("TZID"); id != "" {
		z, how, err := d.zr.resolve(id)
		if err != nil {
			d.repaired(n, uid, prop.Name, pi, err.Error()+"; read in "+d.opts.Zone.Name()+" instead")
			return timeVal{m: m, zone: d.opts.Zone, floating: true}, nil
		}
		if _, said := d.cal.Zones[normTZID(id)]; !said && strings.HasPrefix(how, closestRules) {
			// A guess: said once, where the TZID is first used.
			_, differ, _ := strings.Cut(strings.TrimSuffix(how, ")"), ", ")
			d.repaired(n, uid, prop.Name, pi, fmt.Sprintf("TZID %s is read as %s, the IANA zone nearest its VTIMEZONE: %s", quote(id), z.Name(), differ))
		}
		d.cal.Zones[normTZID(id)] = ZoneMatch{Zone: z, How: how}
		return timeVal{m: m, zone: z}, nil
	}
	return timeVal{m: m, zone: d.opts.Zone, floating: true}, nil
}

// timeProp reads the first property called name; ok is false when it is
// absent or unreadable (then listed in Skipped).
func (d *decoder) timeProp(n *node, uid, name string) (timeVal, bool) {
	p := n.Props.Get(name)
	if p == nil {
		return timeVal{}, false
	}
	v, err := d.timeValue(n, uid, p, 0, p.Value)
	if err != nil {
		d.lose(n, uid, name, 0, err.Error())
		return timeVal{}, false
	}
	return v, true
}

// timeList reads every value of every property called name (EXDATE,
// RDATE), as moments in z; a PERIOD keeps its start, and the line is
// listed under Repaired: RFC 5545 §3.8.5.2 gives that occurrence the
// period's length, the store every occurrence the event's. CalDAV stores
// it without, as docs/caldav.md says.
func (d *decoder) timeList(n *node, uid, name string, z tz.Zone, allDay bool) []tz.Moment {
	var out []tz.Moment
	for i := range n.Props[name] {
		p := &n.Props[name][i]
		if strings.EqualFold(p.Params.Get("VALUE"), "PERIOD") || strings.Contains(p.Value, "/") {
			d.repaired(n, uid, name, i, name+" holds periods (start/end), whose own ends are not kept: each of those occurrences lasts as long as the event; add a changed occurrence (RECURRENCE-ID) for another length")
		}
		for _, v := range strings.Split(p.Value, ",") {
			if s, _, ok := strings.Cut(v, "/"); ok {
				v = s
			}
			if strings.TrimSpace(v) == "" {
				continue
			}
			tv, err := d.timeValue(n, uid, p, i, v)
			if err != nil {
				d.lose(n, uid, name, i, err.Error())
				continue
			}
			if allDay {
				// A date-time against an all-day series names the day it
				// reads as where it was written.
				out = append(out, tz.DayMoment(tv.m.Date))
				continue
			}
			out = append(out, tv.in(z))
		}
	}
	return out
}

func (d *decoder) text(n *node, name string) string {
	if p := n.Props.Get(name); p != nil {
		return unescapeText(p.Value)
	}
	return ""
}

func (d *decoder) rule(n *node, uid string) *recur.Rule {
	rules := n.Props["RRULE"]
	if len(rules) == 0 {
		return nil
	}
	for i := 1; i < len(rules); i++ {
		d.skip(n, uid, "RRULE", i, "only the first RRULE of a component is kept (RFC 5545 deprecates several)")
	}
	r, err := recur.ParseRule(rules[0].Value)
	if err != nil {
		d.loseRule(n, uid, err.Error()+" The item is imported without repeating.", err.Error())
		return nil
	}
	return r
}

// maxUID is the longest UID kept as written, in bytes; RFC 5545 sets no
// bound, and calendar clients write a few dozen characters.
const maxUID = 1000

// uidOf is the UID a UID value is kept as: unescaped and trimmed; one
// longer than maxUID, or holding a control character (NUL, a line break:
// PostgreSQL refuses NUL in text, and an export would write it raw, which
// RFC 5545 §3.1 forbids), is replaced by a stable stand-in, and why says
// what was wrong with it ("" when nothing was).
func uidOf(v string) (uid, why string) {
	uid = strings.TrimSpace(unescapeText(v))
	switch {
	case len(uid) > maxUID:
		why = fmt.Sprintf("UID has %d bytes, more than the %d kept", len(uid), maxUID)
	case strings.ContainsFunc(uid, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		why = "UID holds a control character, which a UID cannot keep"
	default:
		return uid, ""
	}
	// a stable stand-in, so importing the file again finds the item
	sum := sha256.Sum256([]byte(uid))
	return "assistant-" + hex.EncodeToString(sum[:])[:24], why
}

func (d *decoder) uid(n *node) string {
	if p := n.Props.Get("UID"); p != nil && strings.TrimSpace(p.Value) != "" {
		uid, why := uidOf(p.Value)
		if why != "" {
			d.repaired(n, "", "UID", 0, why+"; given "+uid)
		}
		return uid
	}
	// A stable UID made from what the item says, so importing the same
	// file again finds the same items; the second of identical items gets
	// "-2", the third "-3", in the order of the file.
	h := sha256.New()
	for _, name := range []string{"DTSTART", "DTEND", "DUE", "DURATION", "SUMMARY", "RRULE", "RECURRENCE-ID"} {
		for _, p := range n.Props[name] {
			fmt.Fprintf(h, "%s;%v:%s\n", name, p.Params.Get("TZID"), p.Value)
		}
	}
	uid := "assistant-" + hex.EncodeToString(h.Sum(nil))[:24]
	if d.madeUIDs == nil {
		d.madeUIDs = map[string]int{}
	}
	d.madeUIDs[uid]++
	if k := d.madeUIDs[uid]; k > 1 {
		uid += "-" + strconv.Itoa(k)
	}
	d.repaired(n, "", "", 0, n.Name+" has no UID; given "+uid)
	return uid
}

// eventUID is the UID a VEVENT of UID uid is kept under: uid, or with
// DecodeOptions.MoveMadeEventUIDs, "t12.imported@assistant" for
// "t12@assistant".
func (d *decoder) eventUID(uid string) string {
	if _, made := task.MadeID(uid); made && d.opts.MoveMadeEventUIDs {
		return strings.TrimSuffix(uid, "@assistant") + ".imported@assistant"
	}
	return uid
}

func (d *decoder) event(n *node) {
	uid := d.uid(n)
	if moved := d.eventUID(uid); moved != uid {
		d.repaired(n, uid, "UID", 0, fmt.Sprintf("UID %s has the form of the UIDs this database gives its tasks; the VEVENT is kept as %s", uid, moved))
		uid = moved
	}
	e := Event{UID: uid, Line: n.line,
		Summary: d.text(n, "SUMMARY"), Description: d.text(n, "DESCRIPTION"), Location: d.text(n, "LOCATION"),
		Status: strings.ToUpper(strings.TrimSpace(d.text(n, "STATUS")))}
	if p := n.Props.Get("SEQUENCE"); p != nil {
		e.Sequence, _ = strconv.Atoi(strings.TrimSpace(p.Value))
	}
	start, ok := d.timeProp(n, uid, "DTSTART")
	if !ok {
		if n.Props.Get("DTSTART") == nil {
			d.lose(n, uid, "", 0, "VEVENT has no DTSTART, so it has no time to be imported at")
		} else {
			d.lose(n, uid, "", 0, "VEVENT left out because its DTSTART cannot be read")
		}
		return
	}
	e.AllDay = !start.m.HasTime
	e.Start, e.Zone, e.Floating = start.m, start.zone, start.floating
	if e.AllDay {
		e.Zone = d.opts.Zone
	}
	startAt := start.instant()
	if z, ok := keptZone(n, start); ok {
		e.Zone, e.Start = z, tz.TimeMoment(z.In(startAt))
	}
	end, hasEnd := d.timeProp(n, uid, "DTEND")
	var dur time.Duration
	hasDur := false
	if p := n.Props.Get("DURATION"); p != nil && !hasEnd {
		if v, err := (&ical.Prop{Name: "DURATION", Params: ical.Params{}, Value: strings.TrimSpace(p.Value)}).Duration(); err == nil && v >= 0 {
			dur, hasDur = v, true
		} else {
			d.skip(n, uid, "DURATION", 0, "DURATION "+quote(p.Value)+" is not a length such as PT1H or P1D")
		}
	}
	switch {
	case e.AllDay:
		last := e.Start.Date
		if hasEnd {
			ed := end.m.Date
			if end.m.HasTime && (end.m.Hour != 0 || end.m.Minute != 0) {
				ed = ed.AddDays(1)
			}
			// DTEND is exclusive (RFC 5545 §3.6.1); the model keeps the
			// last day, inclusive.
			if ed.After(e.Start.Date) {
				last = ed.AddDays(-1)
			}
		} else if hasDur {
			days := int((dur + 24*time.Hour - 1) / (24 * time.Hour))
			last = e.Start.Date.AddDays(max(days, 1) - 1)
		}
		e.End = tz.DayMoment(last)
	case hasEnd:
		endAt := end.instant()
		if end.floating && !e.Floating {
			endAt, _ = e.Zone.Instant(end.m.DateTime)
		}
		if endAt.Before(startAt) {
			d.repaired(n, uid, "DTEND", 0, "DTEND is before DTSTART; the event is read as lasting no time")
			endAt = startAt
		}
		e.End = tz.TimeMoment(e.Zone.In(endAt))
	case hasDur:
		e.End = tz.TimeMoment(e.Zone.In(startAt.Add(dur)))
	default:
		e.End = e.Start
	}
	e.Rule = d.rule(n, uid)
	e.ExDates = d.timeList(n, uid, "EXDATE", e.Zone, e.AllDay)
	e.RDates = d.timeList(n, uid, "RDATE", e.Zone, e.AllDay)
	// An RDATE of DTSTART's own occurrence names the first one again
	// (RFC 5545 §3.8.5.2 counts it once), as the export writes it for a
	// DTSTART its rule does not give. It is not kept: a series moved
	// later would keep an occurrence where DTSTART was.
	e.RDates = slices.DeleteFunc(e.RDates, func(m tz.Moment) bool {
		switch {
		case !e.Start.HasTime:
			return !m.HasTime && m.Date == e.Start.Date
		case !m.HasTime:
			// a day's RDATE takes DTSTART's clock time
			return m.Date == e.Start.Date
		}
		if m.DateTime == e.Start.DateTime {
			return true
		}
		at, _ := e.Zone.MomentInstant(m)
		return !e.Floating && at.Equal(startAt)
	})
	if e.Rule != nil && e.AllDay && e.Rule.Freq() > recur.Daily {
		d.loseRule(n, uid, "an hourly or minutely RRULE on an all-day event is not imported; the event is kept without it",
			"an all-day event cannot repeat hourly or minutely; give it a DTSTART with a time, or a DAILY or coarser RRULE")
		e.Rule = nil
	}
	s := e.Series()
	if err := s.Check(); err != nil {
		d.lose(n, uid, "", 0, "VEVENT left out: "+err.Error())
		return
	}
	base, baseEnd := startAt, startAt.Add(s.Duration)
	if e.AllDay {
		base = d.opts.Zone.StartOfDay(e.Start.Date)
		baseEnd = d.opts.Zone.StartOfDay(e.End.Date.AddDays(1))
	}
	e.Alarms = d.alarms(n, uid, base, baseEnd, base)
	if p := n.Props.Get("RECURRENCE-ID"); p != nil {
		rid, err := d.timeValue(n, uid, p, 0, p.Value)
		if err != nil {
			d.lose(n, uid, "", 0, "VEVENT left out: its RECURRENCE-ID cannot be read: "+err.Error())
			return
		}
		if d.rids == nil {
			d.rids = map[int]timeVal{}
		}
		d.rids[len(d.cal.Events)] = rid
		m := rid.m
		e.RecurrenceID = &m
	}
	d.cal.Events = append(d.cal.Events, e)
}

// alarms maps VALARMs to reminders: a relative trigger counts
// from base (RELATED=END: from end) and becomes minutes before ref (the
// start of an event, the due of a task); an absolute one an instant.
func (d *decoder) alarms(n *node, uid string, base, end, ref time.Time) Alarms {
	var a Alarms
	for _, c := range n.children {
		if c.Name != "VALARM" {
			continue
		}
		trig := c.Props.Get("TRIGGER")
		if trig == nil {
			d.skip(c, uid, "", 0, "VALARM has no TRIGGER, so there is no time to remind at")
			continue
		}
		if c.Props.Get("ACTION") == nil {
			d.repaired(c, uid, "", 0, "VALARM has no ACTION; read as DISPLAY")
		}
		v := strings.TrimSpace(trig.Value)
		if strings.EqualFold(trig.Params.Get("VALUE"), "DATE-TIME") || (len(v) > 0 && v[0] >= '0' && v[0] <= '9') {
			tv, err := d.timeValue(c, uid, trig, 0, v)
			if err != nil {
				d.skip(c, uid, "TRIGGER", 0, err.Error())
				continue
			}
			at := tv.instant()
			if !d.opts.Now.IsZero() && at.Before(d.opts.Now) {
				d.skip(c, uid, "TRIGGER", 0, "TRIGGER "+quote(v)+" is an absolute alarm, which fires once at its instant, and "+
					at.UTC().Format("2006-01-02 15:04Z")+" has passed")
				continue
			}
			a.RemindAt = append(a.RemindAt, at)
			continue
		}
		dur, err := (&ical.Prop{Name: "TRIGGER", Params: ical.Params{}, Value: v}).Duration()
		if err != nil {
			d.skip(c, uid, "TRIGGER", 0, "TRIGGER "+quote(v)+" is neither a length such as -PT15M nor a date-time")
			continue
		}
		fire := base.Add(dur)
		if strings.EqualFold(trig.Params.Get("RELATED"), "END") {
			fire = end.Add(dur)
		}
		before := ref.Sub(fire)
		if before < 0 {
			d.skip(c, uid, "TRIGGER", 0, "TRIGGER "+quote(v)+" fires after the start or due; reminders can only come before it")
			continue
		}
		mins := int(before / time.Minute)
		if mins > maxRemindMinutes {
			d.skip(c, uid, "TRIGGER", 0, fmt.Sprintf("TRIGGER %s is %d minutes before; reminders go back at most %d minutes (4 weeks)", quote(v), mins, maxRemindMinutes))
			continue
		}
		a.RemindBefore = append(a.RemindBefore, mins)
	}
	a.RemindBefore = uniqueInts(a.RemindBefore)
	a.RemindAt = uniqueTimes(a.RemindAt)
	return a
}

func uniqueInts(v []int) []int {
	if len(v) < 2 {
		return v
	}
	sort.Ints(v)
	out := v[:1]
	for _, x := range v[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

func uniqueTimes(v []time.Time) []time.Time {
	if len(v) < 2 {
		return v
	}
	sort.Slice(v, func(i, j int) bool { return v[i].Before(v[j]) })
	out := v[:1]
	for _, x := range v[1:] {
		if !x.Equal(out[len(out)-1]) {
			out = append(out, x)
		}
	}
	return out
}

// withSeconds is at, an instant read to the minute, with the seconds of
// p's value when p is a UTC DATE-TIME (COMPLETED is, RFC 5545 §3.8.2.1):
// the export writes a completion's seconds, and they come back.
func withSeconds(at time.Time, p *ical.Prop) time.Time {
	if p == nil {
		return at
	}
	exact, err := time.Parse("20060102T150405Z", strings.TrimSpace(p.Value))
	if err != nil || !exact.Truncate(time.Minute).Equal(at) {
		return at
	}
	return exact
}

func (d *decoder) task(n *node) {
	uid := d.uid(n)
	t := Task{UID: uid, Line: n.line, Summary: d.text(n, "SUMMARY"), Description: d.text(n, "DESCRIPTION"),
		Status: strings.ToUpper(strings.TrimSpace(d.text(n, "STATUS"))), Zone: d.opts.Zone}
	if p := n.Props.Get("RECURRENCE-ID"); p != nil {
		d.skip(n, uid, "", 0, "a changed occurrence of a repeating task (VTODO with RECURRENCE-ID) is not imported")
		if rid, err := d.timeValue(n, uid, p, 0, p.Value); err == nil {
			o := todoOccurrence{Line: n.line, RecurrenceID: rid.m, Zone: rid.zone, At: rid.instant().UTC()}
			if c, ok := d.timeProp(n, uid, "COMPLETED"); ok {
				o.Completed = withSeconds(c.instant().UTC(), n.Props.Get("COMPLETED"))
			}
			o.Done = t.Status == "COMPLETED" || (t.Status == "" && !o.Completed.IsZero())
			d.cal.todoOccs = append(d.cal.todoOccs, o)
		}
		return
	}
	due, hasDue := d.timeProp(n, uid, "DUE")
	start, hasStart := d.timeProp(n, uid, "DTSTART")
	if !hasDue && hasStart {
		if p := n.Props.Get("DURATION"); p != nil {
			if v, err := (&ical.Prop{Name: "DURATION", Params: ical.Params{}, Value: strings.TrimSpace(p.Value)}).Duration(); err == nil && v >= 0 {
				due, hasDue = start, true
				if start.m.HasTime {
					due.m = tz.TimeMoment(start.zone.In(start.instant().Add(v)))
				} else {
					due.m = tz.DayMoment(start.m.Date.AddDays(int(v / (24 * time.Hour))))
				}
			}
		}
	}
	switch {
	case hasDue && due.m.HasTime:
		t.Zone, t.Floating = due.zone, due.floating
	case hasStart && start.m.HasTime:
		t.Zone, t.Floating = start.zone, start.floating
	}
	if hasDue {
		t.Due, t.HasDue = due.in(t.Zone), true
		if at, _ := t.Zone.MomentInstant(t.Due); t.Due.HasTime && !t.Zone.Holds(at) {
			d.lose(n, uid, "", 0, fmt.Sprintf("VTODO left out: its DUE %s falls outside the years 0001 to 9999 in UTC, the span the calendar holds", t.Due))
			return
		}
	}
	if hasStart {
		t.Start, t.HasStart = start.in(t.Zone), true
		t.StartLine = n.propLine("DTSTART", 0)
	}
	if p := n.Props.Get("PRIORITY"); p != nil {
		v, err := strconv.Atoi(strings.TrimSpace(p.Value))
		if err != nil || v < 0 || v > 9 {
			d.skip(n, uid, "PRIORITY", 0, "PRIORITY "+quote(p.Value)+" is not a number from 0 to 9; read as none")
		}
		t.Priority = PriorityFromICal(v)
	} else {
		t.Priority = PriorityFromICal(0)
	}
	if c, ok := d.timeProp(n, uid, "COMPLETED"); ok {
		t.Completed = withSeconds(c.instant().UTC(), n.Props.Get("COMPLETED"))
	}
	t.Done = t.Status == "COMPLETED" || (t.Status == "" && !t.Completed.IsZero())
	seen := map[string]bool{}
	for _, p := range n.Props["CATEGORIES"] {
		for _, tag := range splitTextList(p.Value) {
			if tag = strings.TrimSpace(tag); tag != "" && !seen[strings.ToLower(tag)] {
				seen[strings.ToLower(tag)] = true
				t.Tags = append(t.Tags, tag)
			}
		}
	}
	t.Rule = d.rule(n, uid)
	if t.Rule != nil {
		t.RuleLine = n.propLine("RRULE", 0)
	}
	t.FromCompletion = strings.EqualFold(strings.TrimSpace(d.text(n, "X-ASSISTANT-REPEAT-FROM")), "COMPLETION")
	if t.Rule != nil && !t.HasDue && !t.HasStart {
		d.loseRule(n, uid, "a repeating task needs a DUE to repeat from; imported without repeating",
			"a repeating to-do needs a DUE to repeat from (tasks repeat from their due)")
		t.Rule = nil
	}
	if t.Rule != nil {
		if err := t.Series().Check(); err != nil {
			d.loseRule(n, uid, err.Error()+" Imported without repeating.", err.Error())
			t.Rule = nil
		}
	}
	// RFC 5545 §3.8.6.3: a VTODO's relative trigger is from DTSTART (or DUE
	// with RELATED=END); reminders count back from the due, so both are
	// expressed against it. Without a DTSTART the start is the due.
	var base, end time.Time
	switch {
	case hasDue:
		end = d.baseOf(due)
		base = end
		if hasStart {
			base = d.baseOf(start)
		}
	case hasStart:
		base = d.baseOf(start)
		end = base
	}
	if !base.IsZero() {
		t.Alarms = d.alarms(n, uid, base, end, end)
	} else if len(n.children) > 0 {
		for _, c := range n.children {
			if c.Name == "VALARM" {
				d.skip(c, uid, "", 0, "VALARM on a task with neither DUE nor DTSTART has nothing to count from")
			}
		}
	}
	d.cal.Tasks = append(d.cal.Tasks, t)
}

// baseOf is the instant a reminder counts from: the time itself, or 00:00
// of a date in the person's zone, as for every reminder.
func (d *decoder) baseOf(v timeVal) time.Time {
	if !v.m.HasTime {
		return d.opts.Zone.StartOfDay(v.m.Date)
	}
	return v.instant()
}

// finish places each override's RECURRENCE-ID in its master's zone and
// gives identical UID-less items distinct UIDs.
func (d *decoder) finish() {
	masters := map[string]Event{}
	for i := range d.cal.Events {
		if d.cal.Events[i].RecurrenceID == nil {
			if _, dup := masters[d.cal.Events[i].UID]; dup {
				d.cal.Skipped = append(d.cal.Skipped, Skipped{Line: d.cal.Events[i].Line, Component: "VEVENT", UID: d.cal.Events[i].UID,
					Reason: secondSeries})
				d.cal.Events[i].UID = "" // dropped below
				continue
			}
			masters[d.cal.Events[i].UID] = d.cal.Events[i]
		}
	}
	kept := d.cal.Events[:0]
	near := map[string]*nearDates{} // by master UID, for long lists
	occurrence := map[string]int{}  // by UID and RECURRENCE-ID: its override's place in kept
	for i, e := range d.cal.Events {
		if e.UID == "" {
			continue
		}
		if rid, ok := d.rids[i]; ok {
			if m, ok := masters[e.UID]; ok {
				var r tz.Moment
				switch {
				case m.AllDay:
					// The day as written where it was written: a midnight
					// in Berlin is that day, not the UTC day before.
					r = tz.DayMoment(rid.m.Date)
				case !rid.m.HasTime:
					r = tz.TimeMoment(rid.m.Date.At(m.Start.Hour, m.Start.Minute))
				default:
					r = rid.in(m.Zone)
				}
				e.RecurrenceID = &r
				e.RecurrenceZone = m.Zone
				nd, ok := near[e.UID]
				if !ok && len(m.RDates)+len(m.ExDates) > nearFrom {
					nd = newNearDates(&m)
					near[e.UID] = nd
				}
				if !matchesOccurrence(&m, r, nd) {
					d.cal.Skipped = append(d.cal.Skipped, Skipped{Line: e.Line, Component: "VEVENT", UID: e.UID,
						Reason: "RECURRENCE-ID " + r.String() + " matches no occurrence of the series, so this override is left out"})
					d.cal.orphans = append(d.cal.orphans, e)
					continue
				}
			}
		}
		if e.RecurrenceID != nil {
			key := e.UID + "\x00" + e.RecurrenceID.String()
			if j, ok := occurrence[key]; ok {
				// RFC 5545 §3.8.7.4: the higher SEQUENCE is the later
				// revision of the occurrence.
				drop := e
				if e.Sequence > kept[j].Sequence {
					drop, kept[j] = kept[j], e
				}
				d.cal.Skipped = append(d.cal.Skipped, Skipped{Line: drop.Line, Component: "VEVENT", UID: drop.UID,
					Reason: secondOverride})
				continue
			}
			occurrence[key] = len(kept)
		}
		kept = append(kept, e)
	}
	d.cal.Events = kept
}

// secondOverride is the report of a VEVENT that changes an occurrence
// another VEVENT of the file changes too.
const secondOverride = "a second VEVENT for the same occurrence (same UID and RECURRENCE-ID); the one with the higher SEQUENCE, or else the first, is kept"

// matchesOccurrence reports whether the series of master has an occurrence
// whose original start is r.
func matchesOccurrence(master *Event, r tz.Moment, near *nearDates) bool {
	t, _ := master.Zone.MomentInstant(r)
	s := master.Series()
	if near != nil {
		s.RDates, s.ExDates = near.rdates.around(t), near.exdates.around(t)
	}
	for _, o := range s.StartsBetween(t.Add(-3*time.Hour), t.Add(3*time.Hour)) {
		if o.Original == r {
			return true
		}
	}
	return false
}

// nearFrom is how many RDATEs and EXDATEs a series may have before its
// overrides are matched with only those near each one (nearDates): the
// series' expansion places every RDATE and checks every EXDATE, so
// thousands of overrides of a series of thousands of dates cost their
// product (16,000 RDATEs and 4,000 overrides took 10 s).
const nearFrom = 16

// nearDates are a series' RDATEs and EXDATEs ordered by instant, so the
// ones that can bear on an occurrence at an instant are found without
// going through all of them.
type nearDates struct{ rdates, exdates datesByInstant }

func newNearDates(master *Event) *nearDates {
	return &nearDates{byInstant(master.RDates, master.Zone), byInstant(master.ExDates, master.Zone)}
}

type datesByInstant struct {
	at []time.Time
	m  []tz.Moment
}

func byInstant(ms []tz.Moment, z tz.Zone) datesByInstant {
	idx := make([]int, len(ms))
	at := make([]time.Time, len(ms))
	for i, m := range ms {
		idx[i] = i
		at[i], _ = z.MomentInstant(m)
	}
	sort.Slice(idx, func(a, b int) bool { return at[idx[a]].Before(at[idx[b]]) })
	d := datesByInstant{at: make([]time.Time, len(ms)), m: make([]tz.Moment, len(ms))}
	for i, j := range idx {
		d.at[i], d.m[i] = at[j], ms[j]
	}
	return d
}

// around is the dates within two days of t: every one that can place or
// exclude an occurrence within three hours of t, whatever the zone.
func (d datesByInstant) around(t time.Time) []tz.Moment {
	lo := sort.Search(len(d.at), func(i int) bool { return !d.at[i].Before(t.Add(-48 * time.Hour)) })
	hi := sort.Search(len(d.at), func(i int) bool { return d.at[i].After(t.Add(48 * time.Hour)) })
	if lo >= hi {
		return nil
	}
	return d.m[lo:hi:hi]
}
