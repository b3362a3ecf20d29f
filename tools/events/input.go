package events

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Limits on an event's length.
const (
	maxDurationMinutes = 31 * 24 * 60
	maxAllDayDays      = 366
	defaultMinutes     = 60
)

// input is the fields of add_event that a call gave (update_event takes
// the same ones).
type input struct {
	Title, Location, Notes          string
	HasTitle, HasLocation, HasNotes bool

	// Zone is the zone civil times of this call are read in; HasZone when
	// the call named one (time_zone, or a bracketed zone on start).
	Zone    tz.Zone
	HasZone bool

	Start, End          tz.Moment
	HasStart, HasEnd    bool
	StartMoved          bool // start is in a DST gap of Zone
	Duration            int  // minutes; 0 when not given
	Rule                *recur.Rule
	HasRule             bool
	ExDates, RDates     []tz.Moment
	HasExDates, HasRDat bool
	Reminders           item.Reminders
	HasBefore, HasAt    bool
	Clear               []string
}

// given reports whether the call gave any field to set or clear.
func (in *input) given() bool {
	return in.HasTitle || in.HasLocation || in.HasNotes || in.HasZone || in.HasStart || in.HasEnd ||
		in.Duration > 0 || in.HasRule || in.HasExDates || in.HasRDat || in.HasBefore || in.HasAt || len(in.Clear) > 0
}

func (in *input) clears(name string) bool { return slices.Contains(in.Clear, name) }

// clearable are the fields update_event's “clear” may name.
var clearable = []string{"location", "notes", "rrule", "exdates", "rdates", "remind_before", "remind_at"}

// readInput reads the event fields. Plain civil times are read in def
// unless the call names a zone (“time_zone”, or a bracketed zone written
// on “start”). Checks that need no stored event are done here.
func readInput(a *args.Args, def tz.Zone, update bool) input {
	var in input
	if update {
		in.Title = a.Line("title")
	} else {
		in.Title = a.NeededLine("title")
	}
	in.HasTitle = in.Title != ""
	in.Zone = def
	named, hasNamed := a.Zone("time_zone")
	written, hasWritten := a.MomentZone("start")
	switch {
	case hasNamed && hasWritten && named.Name() != written.Name():
		a.Fail("time_zone", fmt.Sprintf("“time_zone” is %s but “start” is written in %s; give the zone once, in one of them.", named.Name(), written.Name()))
	case hasNamed:
		in.Zone, in.HasZone = named, true
	case hasWritten:
		in.Zone, in.HasZone = written, true
	}
	in.Start, in.HasStart = a.Moment("start", in.Zone)
	if in.HasStart && in.Start.HasTime {
		_, in.StartMoved = in.Zone.Instant(in.Start.DateTime)
	}
	in.End, in.HasEnd = a.Moment("end", in.Zone)
	in.Duration = a.Minutes("duration", 0, 1, maxDurationMinutes)
	in.Location = a.Line("location")
	in.HasLocation = in.Location != ""
	in.Notes = a.Body("notes")
	in.HasNotes = in.Notes != ""
	tools.TooLong(a, "title", tools.TitleWhat, in.Title, item.MaxTitle)
	tools.TooLong(a, "location", tools.LocationWhat, in.Location, item.MaxLocation)
	tools.TooLong(a, "notes", tools.NotesWhat, in.Notes, item.MaxNotes)
	if text := a.Text("rrule"); text != "" && a.Err() == nil {
		rule, err := recur.ParseRule(text)
		var re *recur.Error
		switch {
		case errors.As(err, &re):
			a.Fail("rrule", re.Sentence)
		case err != nil:
			a.Fail("rrule", fmt.Sprintf("“rrule” must be an RFC 5545 rule such as FREQ=WEEKLY;BYDAY=MO, not %s.", args.Quote(text)))
		default:
			in.Rule, in.HasRule = rule, true
		}
	}
	// A moment given twice is one EXDATE or RDATE (RFC 5545 §3.8.5.1,
	// §3.8.5.2 make a set of them), stored once.
	in.ExDates = item.Unique(a.MomentList("exdates", in.Zone))
	in.HasExDates = len(in.ExDates) > 0
	in.RDates = item.Unique(a.MomentList("rdates", in.Zone))
	in.HasRDat = len(in.RDates) > 0
	in.Reminders = tools.ReadReminders(a, in.Zone)
	in.HasBefore, in.HasAt = len(in.Reminders.Before) > 0, len(in.Reminders.At) > 0
	if update {
		in.Clear = a.List("clear")
		for _, c := range in.Clear {
			if !slices.Contains(clearable, c) {
				a.Fail("clear", fmt.Sprintf("“clear” may name %s; not %s.", strings.Join(clearable, ", "), args.Quote(c)))
				break
			}
			set := map[string]bool{"location": in.HasLocation, "notes": in.HasNotes, "rrule": in.HasRule,
				"exdates": in.HasExDates, "rdates": in.HasRDat, "remind_before": in.HasBefore, "remind_at": in.HasAt}
			if set[c] {
				a.Fail("clear", fmt.Sprintf("“%s” is both given and named in “clear”; do one or the other.", c))
				break
			}
		}
	}
	if a.Err() != nil {
		return in
	}
	if in.HasEnd && in.Duration > 0 {
		a.Fail("duration", "Give “end” or “duration”, not both.")
	}
	if in.HasStart && !in.Start.HasTime && in.Duration > 0 {
		a.Fail("duration", fmt.Sprintf("“duration” is for timed events; “start” %s is a day, so the event is all-day: give its last day as “end” instead.", in.Start))
	}
	if in.HasStart && in.HasEnd && in.Start.HasTime != in.End.HasTime {
		if in.Start.HasTime {
			a.Fail("end", fmt.Sprintf("“end” must be a day and a time like “start” (such as %s), not the day %s alone.", in.Start.DateTime.AddMinutes(60), in.End))
		} else {
			a.Fail("end", fmt.Sprintf("“start” %s is a day, so “end” must be the last day (such as %s), not a time.", in.Start, in.Start.Date.AddDays(1)))
		}
	}
	return in
}

// times sets e's DTEND and instants from its Start and Zone: end (when
// hasEnd) or a length of dur (timed) or days (all-day). It returns a
// sentence naming the argument when the end is not after the start.
func times(e *event, end tz.Moment, hasEnd bool, dur time.Duration, days int) error {
	if !e.Start.HasTime {
		e.AllDay = true
		last := e.Start.Date.AddDays(max(days, 1) - 1)
		if hasEnd {
			if end.HasTime {
				return tools.RefuseArg("end", fmt.Sprintf("“end” of an all-day event must be its last day (such as %s), not a time.", e.Start.Date.AddDays(1)))
			}
			if end.Date.Before(e.Start.Date) {
				return tools.RefuseArg("end", fmt.Sprintf("“end” %s is before “start” %s; for an all-day event “end” is the last day, such as %s.", end, e.Start, e.Start.Date))
			}
			last = end.Date
		}
		if e.Start.Date.DaysUntil(last) >= maxAllDayDays {
			return tools.RefuseArg("end", fmt.Sprintf("An all-day event may last at most %d days; “end” %s is too far after “start” %s: write an “end” up to %s.", maxAllDayDays, last, e.Start, e.Start.Date.AddDays(maxAllDayDays-1)))
		}
		e.End = tz.DayMoment(last.AddDays(1))
		e.StartAt = e.Zone.StartOfDay(e.Start.Date).UTC()
		e.EndAt = e.Zone.StartOfDay(e.End.Date).UTC()
		return nil
	}
	e.AllDay = false
	start, _ := e.Zone.Instant(e.Start.DateTime)
	e.StartAt = start.UTC()
	if hasEnd {
		if !end.HasTime {
			return tools.RefuseArg("end", fmt.Sprintf("“end” must be a day and a time like “start” (such as %s), not the day %s alone.", e.Start.DateTime.AddMinutes(60), end))
		}
		t, _ := e.Zone.Instant(end.DateTime)
		if !t.After(start) {
			return tools.RefuseArg("end", fmt.Sprintf("“end” %s is not after “start” %s; write a later end, such as %s.", end, e.Start, e.Start.DateTime.AddMinutes(60)))
		}
		dur = t.Sub(start)
		if dur > maxDurationMinutes*time.Minute {
			return tools.RefuseArg("end", fmt.Sprintf("An event may last at most %d days; “end” %s is too far after “start” %s: write an “end” up to %s.", maxDurationMinutes/1440, end, e.Start, e.Start.DateTime.AddMinutes(maxDurationMinutes)))
		}
	}
	if dur <= 0 {
		dur = defaultMinutes * time.Minute
	}
	e.EndAt = start.Add(dur).UTC()
	e.End = tz.TimeMoment(e.Zone.In(e.EndAt))
	return nil
}

// maxRDates is the most RDATEs an event keeps; its EXDATEs may be as many
// as its rule's occurrences ([recur.MaxCount]), which delete_event may
// each leave out.
const maxRDates = 1000

// checkLists refuses EXDATEs and RDATEs that cannot apply to e.
func checkLists(e *event) error {
	if len(e.ExDates) > 0 && !e.Repeats() {
		return tools.RefuseArg("exdates", "“exdates” leaves out occurrences of a repeating event; this event has no “rrule” or “rdates”: give one too (such as “rrule” FREQ=WEEKLY) or leave “exdates” out.")
	}
	if e.AllDay {
		for _, x := range e.ExDates {
			if x.HasTime {
				return tools.RefuseArg("exdates", fmt.Sprintf("“exdates” has the time %s, but this event is all-day; write the day alone (%s).", x, x.Date))
			}
		}
	}
	if len(e.ExDates) > recur.MaxCount {
		return tools.RefuseArg("exdates", fmt.Sprintf("“exdates” may hold at most %d moments, and has %d; split the event in two, or give it an “rrule” with fewer exceptions.", recur.MaxCount, len(e.ExDates)))
	}
	if len(e.RDates) > maxRDates {
		return tools.RefuseArg("rdates", fmt.Sprintf("“rdates” may hold at most %d moments, and has %d; split the event in two, or give it an “rrule” for the regular ones.", maxRDates, len(e.RDates)))
	}
	if err := e.Series(e.Zone).Check(); err != nil {
		return err
	}
	return nil
}

// checkExDatesOccur refuses the first of given, EXDATEs a call wrote for
// e (those of known, which the caller passes when e kept its times, are
// passed over), that leaves out no occurrence of e: a start the series
// does not have (a day off its rule, a time other than its
// occurrences'), or a day on which it has none. Such an EXDATE would be
// kept and listed as left out while the occurrence meant stays. The
// sentence names the occurrence nearest to it that day, or the next one,
// in the form “exdates” takes and in e's zone. Matching is the series'
// own (RFC 5545 §3.8.5.1: a time leaves out the occurrence starting at
// that instant, a date every occurrence starting that day), tried on a
// window of a few minutes for a time and of the day for a date, so a
// MINUTELY series costs no more than a daily one for a time; bounded by
// ctx.
func checkExDatesOccur(ctx context.Context, e *event, given, known []tz.Moment) error {
	if len(given) == 0 || !e.Repeats() {
		return nil
	}
	s := e.Series(e.Zone).WithContext(ctx)
	s.ExDates = nil
	for _, x := range given {
		if slices.Contains(known, x) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		leaves := func(lo, hi time.Time) bool {
			without := s
			without.ExDates = []tz.Moment{x}
			return len(without.StartsBetween(lo, hi)) < len(s.StartsBetween(lo, hi))
		}
		dayLo, dayHi := e.Zone.StartOfDay(x.Date), e.Zone.StartOfDay(x.Date.AddDays(1))
		var t time.Time
		if x.HasTime {
			t, _ = e.Zone.Instant(x.DateTime)
			if leaves(t.Add(-time.Minute), t.Add(time.Minute)) {
				continue
			}
		} else if startsOn(s, x.Date, dayLo, dayHi) {
			continue
		}
		what := "not the start of any occurrence of this event"
		if !x.HasTime {
			what = "a day on which no occurrence of this event starts"
		}
		near := nearestSentence(s, x, t, dayLo, dayHi)
		return tools.RefuseArg("exdates", fmt.Sprintf("“exdates” %s is %s (read in %s), so it would leave nothing out; %s: write the start of an occurrence to leave out (or its day alone), or drop %s.", x, what, e.Zone.Name(), near, x))
	}
	return nil
}

// nearestSentence names the occurrence of s nearest to t on the day
// [dayLo, dayHi) of x when x is a time and the day has one, else the
// first from that day on, for the refusal of x.
func nearestSentence(s recur.Series, x tz.Moment, t, dayLo, dayHi time.Time) string {
	if x.HasTime {
		if day := s.StartsBetween(dayLo, dayHi); len(day) > 0 {
			best := day[0]
			for _, o := range day[1:] {
				if o.Start.Sub(t).Abs() < best.Start.Sub(t).Abs() {
					best = o
				}
			}
			return "its nearest occurrence that day starts " + best.Original.String()
		}
	}
	if o, ok := s.After(dayLo.Add(-time.Nanosecond)); ok {
		return "its next occurrence starts " + o.Original.String()
	}
	return "it has no occurrence from that day on"
}

// startsOn reports whether an occurrence of s starts (by its original
// start) on day d, whose instants are [lo, hi): the day a date EXDATE
// leaves out. It looks in the first ten minutes, then the first two
// hours, then the whole day, so a series that occurs every minute reads
// a few of its occurrences, not the day's 1,440.
func startsOn(s recur.Series, d tz.Date, lo, hi time.Time) bool {
	for _, end := range []time.Time{lo.Add(10 * time.Minute), lo.Add(2 * time.Hour), hi} {
		if end.After(hi) {
			end = hi
		}
		for _, o := range s.StartsBetween(lo, end) {
			if o.Original.Date == d {
				return true
			}
		}
		if !end.Before(hi) {
			break
		}
	}
	return false
}

// inUTCOr names where the calendar's span is read: "in UTC", or "in UTC
// or in Europe/Paris".
func inUTCOr(z tz.Zone) string {
	if z.Name() == "UTC" {
		return "in UTC"
	}
	return "in UTC or in " + z.Name()
}

// gapSentence says that a start in a DST gap was moved.
func gapSentence(m tz.Moment, zone tz.Zone) string {
	t, moved := zone.Instant(m.DateTime)
	if !moved {
		return ""
	}
	return fmt.Sprintf("%s does not exist in %s (the clocks jump forward then), so it starts at %s.",
		m, zone.Name(), t.In(zone.Location()).Format("15:04"))
}
