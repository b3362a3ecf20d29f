package ics

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/internal/bounded"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// ProdID is the PRODID assistant writes (RFC 5545 §3.7.3).
const ProdID = "-//assistant//assistant ics//EN"

// Writer streams an iCalendar file (RFC 5545): the VCALENDAR header and the
// VTIMEZONEs given to NewWriter first, then each Event and Task as it comes,
// then END:VCALENDAR on Close. Components are built as go-ical components
// and written by go-ical's encoder; lines are folded at 75 octets without
// splitting a UTF-8 sequence and end in CRLF (RFC 5545 §3.1).
type Writer struct {
	fold  *folder
	enc   *ical.Encoder
	stamp string
	err   error
}

// WriterOptions tunes NewWriter.
type WriterOptions struct {
	// Zones are the IANA zones the items use; a VTIMEZONE is written for
	// each (UTC needs none), with its transitions from FromYear through
	// ToYear taken from Go's zone data.
	Zones            []tz.Zone
	FromYear, ToYear int
	// Open says an item repeats without end: each VTIMEZONE then carries
	// its zone's rule in force after ToYear too (see vtimezone).
	Open bool
	// Stamp is DTSTAMP for every component (RFC 5545 §3.8.7.2); zero means
	// the current time.
	Stamp time.Time
	// Name is X-WR-CALNAME, when not empty.
	Name string
}

// NewWriter writes the calendar header and VTIMEZONEs to w.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	f := &folder{w: bufio.NewWriterSize(w, 64<<10)}
	stamp := opts.Stamp
	if stamp.IsZero() {
		stamp = time.Now()
	}
	wr := &Writer{fold: f, enc: ical.NewEncoder(f), stamp: stamp.UTC().Format("20060102T150405Z")}
	head := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:" + ProdID + "\r\nCALSCALE:GREGORIAN\r\n"
	if opts.Name != "" {
		p := ical.NewProp("X-WR-CALNAME")
		p.SetText(opts.Name)
		head += "X-WR-CALNAME:" + p.Value + "\r\n"
	}
	_, wr.err = f.Write([]byte(head))
	names := map[string]bool{}
	for _, z := range opts.Zones {
		if z.Name() == "UTC" || names[z.Name()] {
			continue
		}
		names[z.Name()] = true
		wr.component(cachedVTimezone(z, opts.FromYear, opts.ToYear, opts.Open))
	}
	return wr
}

func (w *Writer) component(c *ical.Component) {
	if w.err != nil {
		return
	}
	w.err = w.enc.Encode(&ical.Calendar{Component: c})
}

// Close writes END:VCALENDAR and flushes; it returns the first error met.
func (w *Writer) Close() error {
	if w.err == nil {
		_, w.err = w.fold.Write([]byte("END:VCALENDAR\r\n"))
	}
	if w.err == nil {
		w.err = w.fold.w.Flush()
	}
	return w.err
}

// timeProp builds a DATE or DATE-TIME property: VALUE=DATE for dates, the
// UTC form for UTC, no zone for floating times, TZID otherwise.
func timeProp(name string, m tz.Moment, z tz.Zone, floating bool) *ical.Prop {
	p := ical.NewProp(name)
	switch {
	case !m.HasTime:
		p.Params.Set("VALUE", "DATE")
		p.Value = m.Date.Basic()
	case floating:
		p.Value = m.DateTime.Basic()
	case z.Name() == "UTC":
		p.Value = m.DateTime.Basic() + "Z"
	default:
		p.Params.Set("TZID", z.Name())
		p.Value = m.DateTime.Basic()
	}
	return p
}

// ZoneProp names the IANA zone of an event that is no series and whose
// DTSTART the export writes in UTC because it falls in a repeated hour
// (which a local time with TZID names for some readers only): other
// readers take the instant from UTC and leave the property alone, and
// Decode gives the event its zone back from it, so an export imported
// again keeps an event of Europe/Berlin in Europe/Berlin, not in UTC.
const ZoneProp = "X-ASSISTANT-ZONE"

// repeated reports whether z's clock reads dt twice (the repeated hour of
// a fall-back change), so that a local time with TZID names an instant
// only by RFC 5545 §3.3.5's rule, which not every reader follows.
func repeated(z tz.Zone, dt tz.DateTime) bool {
	dt.Fold = false
	first, _ := z.Instant(dt)
	dt.Fold = true
	later, _ := z.Instant(dt)
	return !first.Equal(later)
}

// listProps writes EXDATE or RDATE values (RFC 5545 §3.8.5.1, §3.8.5.2)
// as one property per value type, since a property's values share its
// parameters: dates (VALUE=DATE), local times with TZID, and in UTC the
// times of a repeated hour, which a local time names only by RFC 5545
// §3.3.5's rule (the earlier reading), and never the later one.
func listProps(name string, ms []tz.Moment, z tz.Zone, floating bool) []*ical.Prop {
	var dates, local, utc []string
	for _, m := range ms {
		switch {
		case !m.HasTime:
			dates = append(dates, m.Date.Basic())
		case !floating && z.Name() != "UTC" && repeated(z, m.DateTime):
			at, _ := z.Instant(m.DateTime)
			utc = append(utc, tz.FromUTCClock(at).Basic()+"Z")
		default:
			local = append(local, timeProp(name, m, z, floating).Value)
		}
	}
	// Two moments that write the same (a day and that day's occurrence
	// on a timed series, both made date-times) are one value.
	dates, local, utc = item.Unique(dates), item.Unique(local), item.Unique(utc)
	var out []*ical.Prop
	if len(dates) > 0 {
		p := timeProp(name, tz.DayMoment(ms[0].Date), z, floating)
		p.Value = strings.Join(dates, ",")
		out = append(out, p)
	}
	if len(local) > 0 {
		p := timeProp(name, tz.TimeMoment(ms[0].DateTime), z, floating)
		p.Value = strings.Join(local, ",")
		out = append(out, p)
	}
	if len(utc) > 0 {
		out = append(out, &ical.Prop{Name: name, Params: ical.Params{}, Value: strings.Join(utc, ",")})
	}
	return out
}

// exportExDates are e's EXDATEs as the file writes them. On a timed
// series a day-only EXDATE (which the series reads as "every occurrence
// of that day", and most readers ignore on a DATE-TIME DTSTART) becomes
// the date-time of each occurrence of that day ([calendar.ConcreteExDates]).
// One that removes nothing is left out, on an all-day series too.
func exportExDates(e *Event) []tz.Moment {
	var out []tz.Moment
	s := e.Series()
	all := s
	all.ExDates = nil
	for _, x := range calendar.ConcreteExDates(s) {
		// One is kept only when it removes an occurrence: ical.js skips
		// the EXDATE after one that matches none.
		if e.AllDay || !e.Start.HasTime {
			lo, hi := e.Zone.DayBounds(x.Date)
			for _, o := range all.StartsBetween(lo.Add(-time.Minute), hi) {
				if o.Original.Date == x.Date {
					out = append(out, x)
					break
				}
			}
			continue
		}
		t, _ := e.Zone.Instant(x.DateTime)
		if os := all.StartsBetween(t, t.Add(time.Minute)); len(os) > 0 && os[0].Start.Equal(t) {
			out = append(out, x)
		}
	}
	return out
}

// exportRDates are e's RDATEs as the file writes them: on a timed series
// a day-only RDATE takes the clock time of DTSTART, as the series reads
// it, written as a date-time (RFC 5545 §3.8.5.2 allows a DATE, but
// readers make an all-day occurrence of it). An RDATE that is also an
// occurrence of the rule is left out.
func exportRDates(e *Event) []tz.Moment {
	if e.AllDay || !e.Start.HasTime {
		var out []tz.Moment
		rule := e.Series()
		rule.RDates, rule.ExDates = nil, nil
		for _, m := range e.RDates {
			if !rdateRepeats(rule, m) {
				out = append(out, m)
			}
		}
		return out
	}
	var out []tz.Moment
	rule := e.Series()
	rule.RDates, rule.ExDates = nil, nil
	for _, m := range e.RDates {
		if !m.HasTime {
			m = tz.TimeMoment(m.Date.At(e.Start.Hour, e.Start.Minute))
		}
		if !rdateRepeats(rule, m) {
			out = append(out, m)
		}
	}
	return out
}

// rdateRepeats reports whether the RDATE m is also an occurrence of the
// rule s (RFC 5545 §3.8.5.3 counts it once; ical.js twice), so it can be
// left out of the file. All-day RDATEs are days, timed ones instants.
func rdateRepeats(s recur.Series, m tz.Moment) bool {
	if s.Rule == nil {
		return false
	}
	t, _ := s.Zone.MomentInstant(m)
	for _, o := range s.StartsBetween(t.Add(-26*time.Hour), t.Add(26*time.Hour)) {
		if (!m.HasTime && o.AllDay && o.Original.Date == m.Date) || (m.HasTime && o.Start.Equal(t)) {
			return true
		}
	}
	return false
}

// countAsUntil is r, e's rule with COUNT, with COUNT written as an UNTIL
// that gives the same occurrences ([recur.Series.CountUntil]): a date for
// an all-day series, a local time for a floating one, else UTC (RFC 5545
// §3.3.10). r as it is when it has no COUNT.
func countAsUntil(e *Event, r *recur.Rule) *recur.Rule {
	if r.Count() == 0 {
		return r
	}
	s := e.Series()
	s.ExDates, s.RDates = nil, nil
	last, ok := s.CountUntil()
	if !ok {
		return r
	}
	var val string
	switch {
	case e.AllDay || !e.Start.HasTime:
		val = last.Original.Date.Basic()
	case e.Floating:
		val = last.Original.DateTime.Basic()
	default:
		val = last.Start.UTC().Format("20060102T150405Z")
	}
	return untilFor(r, "COUNT", val)
}

// untilFor is r with its part name (COUNT or UNTIL) written as UNTIL=val
// in its place; r as it is when that does not read as a rule.
func untilFor(r *recur.Rule, name, val string) *recur.Rule {
	parts := strings.Split(r.String(), ";")
	for i, p := range parts {
		if strings.HasPrefix(p, name+"=") {
			parts[i] = "UNTIL=" + val
		}
	}
	nr, err := recur.ParseRule(strings.Join(parts, ";"))
	if err != nil {
		return r
	}
	return nr
}

// startMoved says whether r expands DTSTART's period into times other
// than DTSTART's own (RFC 5545 §3.3.10's table: BYDAY under WEEKLY,
// MONTHLY or YEARLY; BYMONTHDAY, BYMONTH and the like under MONTHLY and
// YEARLY; BYHOUR or BYMINUTE under DAILY; BYMINUTE under HOURLY). There a
// reader that starts from the rule's first candidate (ical.js) never
// meets a DTSTART the rule does not give; elsewhere DTSTART is its first
// candidate, and such a reader keeps it.
func startMoved(r *recur.Rule) bool {
	text := ";" + r.String() + ";"
	has := func(part string) bool { return strings.Contains(text, ";"+part+"=") }
	switch r.Freq() {
	case recur.Yearly, recur.Monthly, recur.Weekly:
		return true
	case recur.Daily:
		return has("BYHOUR") || has("BYMINUTE")
	case recur.Hourly:
		return has("BYMINUTE")
	}
	return false
}

// exportRule is r, e's RRULE, as the file writes it: UNTIL of the same
// value type as DTSTART, in UTC when DTSTART has a zone (RFC 5545
// §3.3.10). A local or date UNTIL is read as the series reads it: a local
// one allows every occurrence whose clock time is not after it (so the
// later reading of a repeated hour), a date one every occurrence of that
// day.
func exportRule(e *Event, r *recur.Rule) *recur.Rule {
	u, utc, ok := r.Until()
	if !ok || e.Floating {
		return r
	}
	var val string
	switch {
	case e.AllDay || !e.Start.HasTime:
		d := u.Date
		if utc {
			d = e.Zone.Today(u.DateTime.AsUTC())
		}
		val = d.Basic()
		if !u.HasTime {
			return r
		}
	case utc:
		return r
	case !u.HasTime:
		_, end := e.Zone.DayBounds(u.Date)
		val = end.Add(-time.Second).UTC().Format("20060102T150405Z")
	default:
		dt := u.DateTime
		dt.Fold = true
		at, _ := e.Zone.Instant(dt)
		val = at.UTC().Format("20060102T150405Z")
	}
	return untilFor(r, "UNTIL", val)
}

func textProp(c *ical.Component, name, v string) {
	if v == "" {
		return
	}
	p := ical.NewProp(name)
	p.SetText(v)
	c.Props.Set(p)
}

// Event writes one VEVENT.
func (w *Writer) Event(e *Event) error {
	w.component(w.eventComponent(e))
	return w.err
}

// eventComponent is the VEVENT of e, stamped with w's DTSTAMP.
func (w *Writer) eventComponent(e *Event) *ical.Component {
	c := ical.NewComponent(ical.CompEvent)
	c.Props.SetText("UID", e.UID)
	c.Props.Set(&ical.Prop{Name: "DTSTAMP", Params: ical.Params{}, Value: w.stamp})
	textProp(c, "SUMMARY", e.Summary)
	textProp(c, "DESCRIPTION", e.Description)
	textProp(c, "LOCATION", e.Location)
	if e.Status != "" {
		c.Props.Set(&ical.Prop{Name: "STATUS", Params: ical.Params{}, Value: e.Status})
	}
	if e.Sequence > 0 {
		c.Props.Set(&ical.Prop{Name: "SEQUENCE", Params: ical.Params{}, Value: strconv.Itoa(e.Sequence)})
	}
	zoned := !e.AllDay && !e.Floating
	start, startZone := e.Start, e.Zone
	exdates, rdates := exportExDates(e), exportRDates(e)
	byDuration := false
	var dtstartEx *ical.Prop // the EXDATE of DTSTART's own reading
	if zoned && e.Rule == nil && len(e.RDates) == 0 && repeated(e.Zone, e.Start.DateTime) {
		// A single item (or a changed occurrence) starting in a repeated
		// hour: UTC names its instant for every reader, whichever
		// reading (ical.js takes the later of the two where RFC 5545
		// §3.3.5 says the earlier).
		at, _ := e.Zone.Instant(e.Start.DateTime)
		start, startZone = tz.TimeMoment(tz.FromUTCClock(at)), tz.UTC
		if e.RecurrenceID == nil && e.Zone.Name() != "UTC" {
			// The zone UTC leaves out, for Decode to give it back.
			c.Props.Set(&ical.Prop{Name: ZoneProp, Params: ical.Params{}, Value: e.Zone.Name()})
		}
	} else if zoned && repeated(e.Zone, e.Start.DateTime) {
		// A series starting in a repeated hour, which a local time with
		// TZID names only by RFC 5545 §3.3.5's rule (the first reading),
		// and never the second; readers differ (ical.js and pytz take the
		// later one).
		if e.Rule == nil || e.Rule.Freq() > recur.Daily {
			// RDATEs alone, or a rule that steps by instants: the UTC
			// form names the instant, and hourly steps stay the same.
			at, _ := e.Zone.Instant(e.Start.DateTime)
			start, startZone = tz.TimeMoment(tz.FromUTCClock(at)), tz.UTC
		} else {
			// A daily or coarser rule keeps its wall-clock time, which it
			// would lose in UTC terms, so DTSTART stays local. When it is
			// the second reading, DTSTART is left out by an EXDATE written
			// the same way (so each reader leaves out its own reading of
			// it) and the real first instant is an RDATE in UTC; COUNT
			// still counts DTSTART, so the total is kept.
			if e.Start.Fold {
				start.Fold = false
				dtstartEx = timeProp("EXDATE", start, e.Zone, false)
				rdates = append(rdates, e.Start)
			}
			// The first reading is what RFC 5545 names; readers that take
			// the later one place only the first occurrence an hour late,
			// and an exact DURATION keeps every occurrence's length.
			byDuration = true
		}
	}
	rule := e.Rule
	var startAgain *ical.Prop // DTSTART as an RDATE too
	if e.Rule != nil && e.RecurrenceID == nil {
		if on, known := e.Series().StartOnRule(); known && !on {
			// A DTSTART the rule does not give: RFC 5545 §3.8.5.3 keeps
			// it as the first occurrence, counted by COUNT, but calls the
			// set undefined, and readers differ. python's
			// recurring-ical-events adds DTSTART to the COUNT the rule
			// gives, so COUNT is written as an UNTIL that gives the same
			// occurrences. ical.js drops DTSTART where the rule moves its
			// first candidate off it (startMoved), and keeps it, showing
			// an RDATE of it twice, elsewhere; where it drops it, DTSTART
			// is an RDATE too, written as DTSTART is, which a reader that
			// keeps DTSTART reads as the same instance (§3.8.5.2).
			rule = countAsUntil(e, rule)
			if startMoved(e.Rule) && dtstartEx == nil {
				startAgain = timeProp("RDATE", start, startZone, e.Floating)
			}
		}
	}
	if _, gap := e.Zone.Instant(e.Start.DateTime); zoned && gap {
		// DTSTART in a gap of the clock, which readers place on either
		// side of it (RFC 5545 §3.3.5 says the later one); its DTEND would
		// give a different length to each, and an exact DURATION gives
		// every reader the occurrence's real length.
		byDuration = true
	}
	c.Props.Set(timeProp("DTSTART", start, startZone, e.Floating))
	switch {
	case e.AllDay:
		// RFC 5545 §3.6.1: DTEND is the day after the last.
		c.Props.Set(timeProp("DTEND", tz.DayMoment(e.End.Date.AddDays(1)), e.Zone, false))
	case byDuration:
		// DTSTART is not the first instant: the length goes as an exact
		// DURATION (RFC 5545 §3.8.2.5), which DTEND − DTSTART would not be.
		c.Props.Set(&ical.Prop{Name: "DURATION", Params: ical.Params{}, Value: exactDuration(e.Duration())})
	case zoned && (repeated(e.Zone, e.End.DateTime) || startZone.Name() != e.Zone.Name()):
		// An end in the repeated hour, or after a UTC start, is written
		// in UTC: the local form would name the earlier instant.
		at, _ := e.Zone.Instant(e.End.DateTime)
		c.Props.Set(timeProp("DTEND", tz.TimeMoment(tz.FromUTCClock(at)), tz.UTC, false))
	default:
		c.Props.Set(timeProp("DTEND", e.End, e.Zone, e.Floating))
	}
	if rule != nil {
		c.Props.Set(&ical.Prop{Name: "RRULE", Params: ical.Params{}, Value: exportRule(e, rule).String()})
	}
	for _, p := range listProps("EXDATE", exdates, e.Zone, e.Floating) {
		c.Props.Add(p)
	}
	if dtstartEx != nil {
		c.Props.Add(dtstartEx)
	}
	for _, p := range listProps("RDATE", rdates, e.Zone, e.Floating) {
		c.Props.Add(p)
	}
	if startAgain != nil {
		c.Props.Add(startAgain)
	}
	if e.RecurrenceID != nil {
		z := e.RecurrenceZone
		if z.Name() == "UTC" && e.RecurrenceZone == (tz.Zone{}) {
			z = e.Zone
		}
		rid := *e.RecurrenceID
		if rid.HasTime && !e.Floating && repeated(z, rid.DateTime) {
			at, _ := z.Instant(rid.DateTime)
			rid, z = tz.TimeMoment(tz.FromUTCClock(at)), tz.UTC
		}
		c.Props.Set(timeProp("RECURRENCE-ID", rid, z, e.Floating))
	}
	w.alarms(c, e.Alarms, false)
	return c
}

// Task writes one VTODO.
func (w *Writer) Task(t *Task) error {
	w.component(w.taskComponent(t))
	return w.err
}

// taskComponent is the VTODO of t, stamped with w's DTSTAMP.
func (w *Writer) taskComponent(t *Task) *ical.Component {
	c := ical.NewComponent(ical.CompToDo)
	c.Props.SetText("UID", t.UID)
	c.Props.Set(&ical.Prop{Name: "DTSTAMP", Params: ical.Params{}, Value: w.stamp})
	textProp(c, "SUMMARY", t.Summary)
	textProp(c, "DESCRIPTION", t.Description)
	if t.HasDue {
		c.Props.Set(timeProp("DUE", t.Due, t.Zone, t.Floating))
	}
	if t.HasStart {
		c.Props.Set(timeProp("DTSTART", t.Start, t.Zone, t.Floating))
	}
	if p := PriorityToICal(t.Priority); p != 0 {
		c.Props.Set(&ical.Prop{Name: "PRIORITY", Params: ical.Params{}, Value: strconv.Itoa(p)})
	}
	status := t.Status
	if t.Done {
		status = "COMPLETED"
	} else if status == "" || status == "COMPLETED" {
		status = "NEEDS-ACTION"
	}
	c.Props.Set(&ical.Prop{Name: "STATUS", Params: ical.Params{}, Value: status})
	if t.Done && !t.Completed.IsZero() {
		c.Props.Set(&ical.Prop{Name: "COMPLETED", Params: ical.Params{}, Value: t.Completed.UTC().Format("20060102T150405Z")})
	}
	if len(t.Tags) > 0 {
		p := ical.NewProp("CATEGORIES")
		p.SetTextList(t.Tags)
		c.Props.Set(p)
	}
	if t.Rule != nil {
		c.Props.Set(&ical.Prop{Name: "RRULE", Params: ical.Params{}, Value: t.Rule.String()})
	}
	if t.FromCompletion {
		c.Props.Set(&ical.Prop{Name: "X-ASSISTANT-REPEAT-FROM", Params: ical.Params{}, Value: "COMPLETION"})
	}
	// A task's reminders count back from its due: RELATED=END (RFC 5545
	// §3.8.6.3), since a VTODO's START is its DTSTART.
	w.alarms(c, t.Alarms, t.HasDue)
	return c
}

// alarms adds c's VALARMs: ACTION:DISPLAY, whose DESCRIPTION RFC 5545
// §3.6.6 asks for, is "Reminder" rather than the item's title: a client
// that renames the item sends its VALARMs back as it read them, and a
// DESCRIPTION following the title would make the stored object differ from
// the one sent (a sync client such as vdirsyncer then sees both sides
// changed at its next edit). Calendars show the item's title with the
// reminder.
func (w *Writer) alarms(c *ical.Component, a Alarms, relatedEnd bool) {
	const summary = "Reminder"
	for _, m := range a.RemindBefore {
		al := ical.NewComponent(ical.CompAlarm)
		al.Props.Set(&ical.Prop{Name: "ACTION", Params: ical.Params{}, Value: "DISPLAY"})
		al.Props.SetText("DESCRIPTION", summary)
		trig := &ical.Prop{Name: "TRIGGER", Params: ical.Params{}, Value: "-PT" + strconv.Itoa(m) + "M"}
		if m == 0 {
			trig.Value = "PT0M"
		}
		if relatedEnd {
			trig.Params.Set("RELATED", "END")
		}
		al.Props.Set(trig)
		c.Children = append(c.Children, al)
	}
	for _, at := range a.RemindAt {
		al := ical.NewComponent(ical.CompAlarm)
		al.Props.Set(&ical.Prop{Name: "ACTION", Params: ical.Params{}, Value: "DISPLAY"})
		al.Props.SetText("DESCRIPTION", summary)
		trig := &ical.Prop{Name: "TRIGGER", Params: ical.Params{"VALUE": {"DATE-TIME"}}, Value: at.UTC().Format("20060102T150405Z")}
		al.Props.Set(trig)
		c.Children = append(c.Children, al)
	}
}

// MaxZoneYears bounds the years a VTIMEZONE covers past 1970 (or past the
// earliest year the file needs, when that is later): at most this many. A
// reader keeps the last offset written for times after it. Years before
// 1970 are covered back to the earliest DTSTART, however far: they cost
// only the zone's real changes, which Go's zone table lists, never a step
// a year.
const MaxZoneYears = 200

// vtimezone builds the VTIMEZONE of z (RFC 5545 §3.6.5) from Go's zone
// data: every change of offset, name or DST from fromY through toY (at
// most MaxZoneYears years), grouped into one STANDARD or DAYLIGHT
// observance per (kind, offsets, name) with an RDATE for each repeat. The
// first onset is the one in force on 1 January of fromY, so the
// VTIMEZONE starts at or before every DTSTART it serves (RFC 5545 erratum
// 3740); a zone with no change at all gets that offset from then on.
//
// Where the zone keeps a yearly rule to the end of the span (the two
// changes of most zones with DST, checked for [zoneRuleYears] years
// more; when open, the rule in force from [ruleYear], with the onsets up
// to its first year written however far past toY that is), the onsets of
// the years the rule holds are written as that rule instead: an
// observance with RRULE:FREQ=YEARLY;BYMONTH=…;BYDAY=… each, so a reader
// that takes the VTIMEZONE as written (ical.js, Outlook) keeps the right
// offsets after the span too, for a series that never ends or an export
// read decades later. A bounded span whose rule holds in its last year
// alone keeps that year's onsets as they are: the rule would only add
// its lines. A zone whose changes follow no such rule (Casablanca's,
// moved for Ramadan; Cairo's, whose autumn change can fall in November)
// keeps its RDATEs, and a reader its last offset after them.
//
// The work is bounded by the years, whatever the dates: Go reports year
// boundaries after its table as zone bounds (one a day early in leap
// years), which change nothing and are skipped.
func vtimezone(z tz.Zone, fromY, toY int, open bool) *ical.Component {
	if fromY == 0 {
		fromY = 1970
	}
	if toY < fromY {
		toY = fromY
	}
	toY = min(toY, max(fromY, 1970)+MaxZoneYears-1)
	loc := z.Location()
	c := ical.NewComponent(ical.CompTimezone)
	c.Props.SetText("TZID", z.Name())
	type group struct {
		onsetKey
		locals []string
	}
	var order []onsetKey
	groups := map[onsetKey]*group{}
	add := func(o zoneOnset) {
		g := groups[o.key]
		if g == nil {
			g = &group{onsetKey: o.key}
			groups[o.key] = g
			order = append(order, o.key)
		}
		g.locals = append(g.locals, o.local.Format("20060102T150405"))
	}
	t := time.Date(fromY, 1, 1, 0, 0, 0, 0, loc)
	// The onset in force at the start: the last real change before it.
	for back, i := t, 0; i < 8; i++ {
		first, _ := back.ZoneBounds()
		if first.IsZero() || !first.Before(back.Add(time.Second)) {
			break
		}
		if o, ok := onsetAt(first); ok {
			add(o)
			break
		}
		back = first.Add(-time.Second)
	}
	if len(order) == 0 {
		name, off := t.Zone()
		add(zoneOnset{key: onsetKey{t.IsDST(), off, off, name}, local: time.Date(fromY, 1, 1, 0, 0, 0, 0, time.UTC)})
	}
	// For items without end, the rule is the one in force from ruleYear
	// on, and the onsets up to its first year are written, even past
	// toY: a series of 1995 in New York needs the rule of 2007.
	tail := toY
	if open {
		tail = max(toY, min(ruleYear, max(fromY, 1970)+MaxZoneYears-1))
	}
	onsets := onsetsIn(loc, fromY, tail+zoneRuleYears)
	rules, ruleFrom := yearlyRules(onsets, fromY, tail)
	if !open && ruleFrom >= toY {
		// A rule for the span's last year alone would add its RRULE
		// lines to the same onsets.
		rules = nil
	}
	// Past toY: up to the rule, or, for items without end in a zone
	// with none, every change up to ruleYear (Istanbul's permanent +03 of
	// 2016 for a series of 1995), after which a reader keeps the last.
	last := toY
	if rules != nil || open {
		last = tail
	}
	var ruled []zoneOnset // the first onset of each rule
	for _, o := range onsets {
		switch {
		case o.local.Year() > last:
		case rules != nil && o.local.Year() >= ruleFrom:
			if len(ruled) < len(rules) {
				ruled = append(ruled, o)
			}
		default:
			add(o)
		}
	}
	type observance struct {
		onsetKey
		locals []string
		rule   string
	}
	var obs []observance
	for _, k := range order {
		obs = append(obs, observance{onsetKey: k, locals: groups[k].locals})
	}
	for i, o := range ruled {
		obs = append(obs, observance{onsetKey: o.key, locals: []string{o.local.Format("20060102T150405")}, rule: rules[i].String()})
	}
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].locals[0] < obs[j].locals[0] })
	for _, g := range obs {
		kind := ical.CompTimezoneStandard
		if g.dst {
			kind = ical.CompTimezoneDaylight
		}
		o := ical.NewComponent(kind)
		o.Props.Set(&ical.Prop{Name: "DTSTART", Params: ical.Params{}, Value: g.locals[0]})
		o.Props.Set(&ical.Prop{Name: "TZOFFSETFROM", Params: ical.Params{}, Value: formatUTCOffset(g.from)})
		o.Props.Set(&ical.Prop{Name: "TZOFFSETTO", Params: ical.Params{}, Value: formatUTCOffset(g.to)})
		if g.rule != "" {
			o.Props.Set(&ical.Prop{Name: "RRULE", Params: ical.Params{}, Value: g.rule})
		}
		if g.name != "" && g.name[0] != '+' && g.name[0] != '-' {
			o.Props.SetText("TZNAME", g.name)
		}
		// One RDATE per onset, DTSTART's too when there are more: RFC 5545
		// allows a list and counts DTSTART as the first onset, but ical.js
		// reads only the first value of each RDATE of a VTIMEZONE, and
		// skips DTSTART when an observance has RDATEs.
		if len(g.locals) > 1 {
			for _, l := range g.locals {
				o.Props.Add(&ical.Prop{Name: "RDATE", Params: ical.Params{}, Value: l})
			}
		}
		c.Children = append(c.Children, o)
	}
	return c
}

// vtzCache keeps the VTIMEZONEs made, by zone and span: a CalDAV sync
// writes one per object, and most objects share their zone and years.
// Never changed once made (only encoded); up to 4,096 are kept.
var vtzCache = bounded.New[vtzKey, *ical.Component](4096)

type vtzKey struct {
	zone       string
	fromY, toY int
	open       bool
}

// cachedVTimezone is [vtimezone], made once per zone and span.
func cachedVTimezone(z tz.Zone, fromY, toY int, open bool) *ical.Component {
	k := vtzKey{z.Name(), fromY, toY, open}
	if c, ok := vtzCache.Get(k); ok {
		return c
	}
	c := vtimezone(z, fromY, toY, open)
	vtzCache.Put(k, c)
	return c
}

// onsetKey is what a VTIMEZONE observance says of the onsets it lists:
// DAYLIGHT or STANDARD, TZOFFSETFROM and TZOFFSETTO in seconds, TZNAME.
type onsetKey struct {
	dst      bool
	from, to int
	name     string
}

// zoneOnset is one change of a zone: its instant, and its time on the
// clock before it (local, in a UTC time.Time), which DTSTART and RDATE of
// an onset are written in.
type zoneOnset struct {
	key   onsetKey
	at    time.Time
	local time.Time
}

// onsetAt is the change of its zone at next (a zone bound of Go's), false
// when it changes nothing.
func onsetAt(next time.Time) (zoneOnset, bool) {
	before := next.Add(-time.Second)
	nameFrom, offFrom := before.Zone()
	name, offTo := next.Zone()
	if offFrom == offTo && nameFrom == name && before.IsDST() == next.IsDST() {
		return zoneOnset{}, false
	}
	local := next.UTC().Add(time.Duration(offFrom) * time.Second)
	return zoneOnset{key: onsetKey{next.IsDST(), offFrom, offTo, name}, at: next, local: local}, true
}

// onsetsIn lists the changes of loc from 1 January of fromY to the end of
// toY, in order: a handful of changes a year at most, and one step over
// each of Go's year boundaries.
func onsetsIn(loc *time.Location, fromY, toY int) []zoneOnset {
	var out []zoneOnset
	t := time.Date(fromY, 1, 1, 0, 0, 0, 0, loc)
	end := time.Date(toY+1, 1, 1, 0, 0, 0, 0, loc)
	for steps := 0; t.Before(end) && steps < 16*(toY-fromY+2); steps++ {
		_, next := t.ZoneBounds()
		if next.IsZero() {
			break
		}
		if !next.After(t) {
			t = t.Add(24 * time.Hour)
			continue
		}
		if !next.Before(end) {
			break
		}
		if o, ok := onsetAt(next); ok {
			out = append(out, o)
		}
		t = next
	}
	return out
}

// zoneRuleYears is how many years past the span a zone's yearly rule must
// hold for a VTIMEZONE to write it as an RRULE.
const zoneRuleYears = 40

// ruleYear is the last year the zone files list a zone's changes one by
// one (TZif's 32-bit table ends in 2037): after it every zone follows the
// rule in force, its TZ string. A VTIMEZONE for items without end takes
// its rule from there.
const ruleYear = 2037

// yearRule is one yearly change of a zone: in Month, on the Nth (1 to 4,
// or -1 for the last) Weekday of it, or when Nth is 0 on the first
// Weekday on or after day After (tzdata's "Sun>=8"), at Clock on the
// clock before it.
type yearRule struct {
	Month   time.Month
	Nth     int
	After   int
	Weekday time.Weekday
	Clock   time.Duration
	key     onsetKey
}

// String is the rule as a VTIMEZONE's RRULE (RFC 5545 §3.3.10): "on or
// after day 23" is BYMONTHDAY=23,…,29 with BYDAY.
func (r yearRule) String() string {
	day := strings.ToUpper(r.Weekday.String()[:2])
	if r.Nth == 0 {
		days := make([]string, 7)
		for i := range days {
			days[i] = strconv.Itoa(r.After + i)
		}
		return fmt.Sprintf("FREQ=YEARLY;BYMONTH=%d;BYDAY=%s;BYMONTHDAY=%s", int(r.Month), day, strings.Join(days, ","))
	}
	return fmt.Sprintf("FREQ=YEARLY;BYMONTH=%d;BYDAY=%d%s", int(r.Month), r.Nth, day)
}

// on is the local time (on the clock before it) of r's change in year.
func (r yearRule) on(year int) time.Time {
	if r.Nth == 0 {
		from := time.Date(year, r.Month, r.After, 0, 0, 0, 0, time.UTC)
		ahead := (int(r.Weekday) - int(from.Weekday()) + 7) % 7
		return from.AddDate(0, 0, ahead).Add(r.Clock)
	}
	if r.Nth < 0 {
		last := time.Date(year, r.Month+1, 0, 0, 0, 0, 0, time.UTC)
		back := (int(last.Weekday()) - int(r.Weekday) + 7) % 7
		return last.AddDate(0, 0, -back).Add(r.Clock)
	}
	first := time.Date(year, r.Month, 1, 0, 0, 0, 0, time.UTC)
	ahead := (int(r.Weekday) - int(first.Weekday()) + 7) % 7
	return first.AddDate(0, 0, ahead+7*(r.Nth-1)).Add(r.Clock)
}

// yearlyRules finds the yearly rule the onsets (every change of one zone
// from fromY on, in order) keep from some year to the end of toY and for
// the years after it they cover: the rules of toY's changes, and the
// first year they hold in, no earlier than fromY. Nil when toY has not
// exactly two changes, or they follow no rule of a weekday of a month
// (a zone without DST needs none: a reader keeps its last offset). The
// nth or last weekday is tried before "on or after", which says the same
// in more words.
func yearlyRules(onsets []zoneOnset, fromY, toY int) ([]yearRule, int) {
	byYear := map[int][]zoneOnset{}
	lastY := toY
	for _, o := range onsets {
		y := o.local.Year()
		byYear[y] = append(byYear[y], o)
		lastY = max(lastY, y)
	}
	tail := byYear[toY]
	if len(tail) != 2 {
		return nil, 0
	}
	// The candidates of each change: the nth of its weekday, and the last
	// one when no later one is in the month.
	var cands [2][]yearRule
	for i, o := range tail {
		l := o.local
		clock := l.Sub(time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC))
		r := yearRule{Month: l.Month(), Weekday: l.Weekday(), Clock: clock, key: o.key}
		if n := (l.Day()-1)/7 + 1; n <= 4 {
			r.Nth = n
			cands[i] = append(cands[i], r)
		}
		if l.AddDate(0, 0, 7).Month() != l.Month() {
			r.Nth = -1
			cands[i] = append(cands[i], r)
		}
		r.Nth = 0
		for after := max(1, l.Day()-6); after <= l.Day(); after++ {
			if time.Date(l.Year(), l.Month(), after+6, 0, 0, 0, 0, time.UTC).Month() == l.Month() {
				r.After = after
				cands[i] = append(cands[i], r)
			}
		}
	}
	holds := func(rules []yearRule, y int) bool {
		got := byYear[y]
		if len(got) != len(rules) {
			return false
		}
		for i, r := range rules {
			if got[i].key != r.key || !got[i].local.Equal(r.on(y)) {
				return false
			}
		}
		return true
	}
	for _, a := range cands[0] {
		for _, b := range cands[1] {
			rules := []yearRule{a, b}
			ok := true
			for y := toY; y <= lastY && ok; y++ {
				ok = holds(rules, y)
			}
			if !ok || lastY < toY+zoneRuleYears {
				continue
			}
			from := toY
			for from > fromY && holds(rules, from-1) {
				from--
			}
			return rules, from
		}
	}
	return nil, 0
}

// exactDuration writes d as an RFC 5545 dur-time (§3.3.6) in whole
// minutes, "PT0M" for none.
func exactDuration(d time.Duration) string {
	m := int(d / time.Minute)
	switch {
	case m%60 == 0 && m > 0:
		return "PT" + strconv.Itoa(m/60) + "H"
	case m > 60:
		return "PT" + strconv.Itoa(m/60) + "H" + strconv.Itoa(m%60) + "M"
	}
	return "PT" + strconv.Itoa(m) + "M"
}

// formatUTCOffset writes a UTC-OFFSET (RFC 5545 §3.3.14), with seconds
// only when there are some.
func formatUTCOffset(sec int) string {
	sign := '+'
	if sec < 0 {
		sign, sec = '-', -sec
	}
	s := fmt.Sprintf("%c%02d%02d", sign, sec/3600, sec/60%60)
	if sec%60 != 0 {
		s += fmt.Sprintf("%02d", sec%60)
	}
	return s
}

// folder folds the lines written through it at 75 octets (RFC 5545 §3.1):
// a continuation starts with one space, and a fold never splits a UTF-8
// sequence. Lines must arrive whole or in pieces ending in CRLF.
type folder struct {
	w    *bufio.Writer
	line []byte
}

func (f *folder) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := strings.Index(string(p), "\r\n")
		if i < 0 {
			f.line = append(f.line, p...)
			break
		}
		f.line = append(f.line, p[:i]...)
		p = p[i+2:]
		if err := f.flushLine(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (f *folder) flushLine() error {
	b := f.line
	limit := 75
	for len(b) > limit {
		cut := limit
		for cut > 0 && b[cut]&0xC0 == 0x80 {
			cut--
		}
		f.w.Write(b[:cut])
		f.w.WriteString("\r\n ")
		b = b[cut:]
		limit = 74 // the leading space counts
	}
	f.w.Write(b)
	_, err := f.w.WriteString("\r\n")
	f.line = f.line[:0]
	return err
}

// Encode writes cal as one iCalendar file: VTIMEZONEs for the zones its
// items use over the years they span, then its events and tasks.
func Encode(w io.Writer, cal *Calendar, stamp time.Time) error {
	zones, fromY, toY, open := spanOf(cal)
	wr := NewWriter(w, WriterOptions{Zones: zones, FromYear: fromY, ToYear: toY, Open: open, Stamp: stamp})
	for i := range cal.Events {
		wr.Event(&cal.Events[i])
	}
	for i := range cal.Tasks {
		wr.Task(&cal.Tasks[i])
	}
	return wr.Close()
}

// spanOf lists the zones of cal's timed, zoned items and the years they
// span; a series that never ends extends the span by ten years and makes
// it open, so each VTIMEZONE carries its zone's rule after it.
func spanOf(cal *Calendar) (zones []tz.Zone, fromY, toY int, open bool) {
	seen := map[string]bool{}
	note := func(z tz.Zone, floating bool, ms ...tz.Moment) {
		for _, m := range ms {
			if fromY == 0 || m.Year < fromY {
				fromY = m.Year
			}
			toY = max(toY, m.Year)
		}
		if !floating && z.Name() != "UTC" && !seen[z.Name()] {
			seen[z.Name()] = true
			zones = append(zones, z)
		}
	}
	for _, e := range cal.Events {
		if e.AllDay {
			continue
		}
		note(e.Zone, e.Floating, append([]tz.Moment{e.Start, e.End}, e.RDates...)...)
		if e.Rule != nil {
			if u, _, ok := e.Rule.Until(); ok {
				note(e.Zone, e.Floating, u)
			} else if !e.Rule.Bounded() {
				toY, open = max(toY, e.Start.Year+10), true
			}
		}
	}
	for _, t := range cal.Tasks {
		if (t.HasDue && t.Due.HasTime) || (t.HasStart && t.Start.HasTime) {
			ms := []tz.Moment{}
			if t.HasDue {
				ms = append(ms, t.Due)
			}
			if t.HasStart {
				ms = append(ms, t.Start)
			}
			note(t.Zone, t.Floating, ms...)
			if t.Rule != nil && !t.Rule.Bounded() {
				toY, open = max(toY, ms[0].Year+10), true
			}
		}
	}
	sort.Slice(zones, func(i, j int) bool { return zones[i].Name() < zones[j].Name() })
	return zones, fromY, toY, open
}
