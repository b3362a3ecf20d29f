package recur

import (
	"strings"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// StartOnRule reports whether DTSTART (s.Start) is one of the times the
// rule itself gives, and known false when that cannot be told (no rule, a
// frequency it does not handle, or a DTSTART near the calendar's start).
// RFC 5545 §3.8.5.3 keeps an off-rule DTSTART as the first occurrence,
// counted by COUNT (a Tuesday start of FREQ=WEEKLY;BYDAY=MO,WE,FR), and
// says such a set is "undefined": readers differ on it, so the export
// writes it so that none has to guess (see ics's eventComponent).
//
// The rule is asked by expanding it from a DTSTART a whole number of its
// periods earlier (the same weekday, day of the month, month and clock
// time, so the parts the rule takes from DTSTART stay the same, and the
// same phase of INTERVAL), without COUNT and UNTIL; the expansion is this
// package's own, so the answer agrees with the occurrences listed. The
// expansion library cannot start before the year 1, and reads BYWEEKNO and
// the first weeks of the year 1 from the year before it, so a DTSTART
// whose earlier one falls before the year 2 is not known.
func (s Series) StartOnRule() (on, known bool) {
	rule := s.Rule
	if rule == nil {
		return false, false
	}
	open, err := ParseRule(withoutEnd(rule.String()))
	if err != nil {
		return false, false
	}
	civil := s.Start.DateTime.AsUTC()
	iv := max(rule.Interval(), 1)
	var earlier time.Time
	switch rule.Freq() {
	case Yearly, Monthly:
		// Four years keep leap days and any monthly or yearly INTERVAL's
		// phase.
		earlier = civil.AddDate(-4*iv, 0, 0)
	case Weekly:
		earlier = civil.AddDate(0, 0, -7*iv)
	case Daily:
		earlier = civil.AddDate(0, 0, -iv)
	case Hourly, Minutely:
	default:
		return false, false
	}
	// The rule gives clock times: a DTSTART kept as the second of two
	// equal readings (Fold) is on the rule when its clock time is.
	clock := tz.Moment{DateTime: s.Start.Clock(), HasTime: s.Start.HasTime}
	var at time.Time
	if clock.HasTime {
		at, _ = s.Zone.Instant(clock.DateTime)
	} else {
		at = s.Zone.StartOfDay(clock.Date)
	}
	var from tz.Moment
	if f := rule.Freq(); f == Hourly || f == Minutely {
		// Sub-daily rules step in elapsed time (RFC 5545 §3.3.10), so
		// the earlier DTSTART is INTERVAL hours or minutes before in
		// elapsed time too, read on the zone's clock: on the clock, a
		// change of offset in between would put it off the rule's phase.
		step := time.Hour
		if f == Minutely {
			step = time.Minute
		}
		back := at.Add(-time.Duration(iv) * step)
		if back.Year() < 2 {
			return false, false
		}
		from = tz.TimeMoment(s.Zone.In(back))
	} else {
		if earlier.Day() != civil.Day() && rule.Freq() <= Monthly || earlier.Year() < 2 {
			return false, false
		}
		from = tz.Moment{DateTime: tz.FromUTCClock(earlier), HasTime: s.Start.HasTime}
	}
	probe := Series{Start: from, Zone: s.Zone, Rule: open, ctx: s.ctx}
	for _, o := range probe.StartsBetween(at, at.Add(time.Minute)) {
		if o.Start.Equal(at) {
			return true, true
		}
	}
	return false, true
}

// LastRuleStart returns the start of the last occurrence a rule with
// COUNT gives (DTSTART counted first, RFC 5545 §3.3.10), EXDATEs and
// RDATEs aside, and false for a series without a rule or without COUNT.
// Like [Series.Bounds] it expands only what COUNT needs, once (cached).
func (s Series) LastRuleStart() (Occurrence, bool) {
	if s.Rule == nil || s.Rule.count <= 0 {
		return Occurrence{}, false
	}
	tail, ok := s.countTail()
	if !ok {
		list := s.countTimes()
		tail = list[max(0, len(list)-2):]
	}
	var last Occurrence
	found := false
	// A gap can reorder the last two civil times by the gap's length.
	for _, c := range tail {
		o := s.place(c)
		if s.Rule.freq > Daily && s.Start.HasTime {
			o = s.placeInstant(c)
		}
		if !found || o.Start.After(last.Start) {
			last, found = o, true
		}
	}
	return last, found
}

// CountUntil returns an UNTIL that gives exactly the occurrences COUNT
// gives, for a series whose rule has COUNT: halfway between the last of
// them ([Series.LastRuleStart]) and the next the rule would give without
// COUNT (a day after the last when there is none). Halfway, not at the
// last: a reader that takes the later reading of a repeated hour, or
// compares UNTIL in DTSTART's offset rather than the occurrence's, still
// keeps the last and leaves out the next. For a timed series it is an
// instant; for an all-day series the last occurrence's day (dates have
// no readings to differ on). false when s has no rule with COUNT.
func (s Series) CountUntil() (until Occurrence, ok bool) {
	last, ok := s.LastRuleStart()
	if !ok {
		return Occurrence{}, false
	}
	if !s.Start.HasTime {
		return last, true
	}
	open, err := ParseRule(withoutEnd(s.Rule.String()))
	if err != nil {
		return Occurrence{}, false
	}
	gap := 24 * time.Hour
	next, found := Series{Start: s.Start, Zone: s.Zone, Rule: open, ctx: s.ctx}.After(last.Start)
	if found {
		gap = next.Start.Sub(last.Start)
	}
	// Original is the same halfway on the clock, for a floating series.
	lastCivil := last.Original.DateTime.AsUTC()
	civilGap := gap
	if found {
		civilGap = next.Original.DateTime.AsUTC().Sub(lastCivil)
	}
	return Occurrence{
		Start:    last.Start.Add(gap / 2).Truncate(time.Second),
		Original: tz.TimeMoment(tz.FromUTCClock(lastCivil.Add(civilGap / 2).Truncate(time.Second))),
	}, true
}

// withoutEnd drops COUNT and UNTIL from an RRULE value.
func withoutEnd(rule string) string {
	parts := strings.Split(rule, ";")
	kept := parts[:0]
	for _, p := range parts {
		if !strings.HasPrefix(p, "COUNT=") && !strings.HasPrefix(p, "UNTIL=") {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ";")
}
