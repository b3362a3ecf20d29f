package task

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// A repeating task keeps one due, the occurrence to do next, and the RRULE
// of the series that starts there (DTSTART = the due). Completing it moves
// the due to the next occurrence and re-anchors the series at it; a COUNT
// is lowered by the occurrences left behind, so the stored rule always
// says what remains (RFC 5545 §3.3.10: COUNT counts from DTSTART).

// Advance is what completing a repeating task leads to: the next due and
// the rule from it, or Ended when the rule has run out.
type Advance struct {
	Next  Due
	Rule  *recur.Rule
	Ended bool
}

// Complete is t done at now by a person in zone person: the completion of
// the occurrence due (t's due as it stood), the task after it, and where a
// repeating task went. A task that does not repeat, or whose rule has run
// out, is Done with CompletedAt now (adv.Ended); a repeating one stays
// open at adv.Next with the rule from there, its absolute reminders moved
// along with the due ([ShiftAt]). t must be open; now is UTC, whole
// seconds. An error only when a recounted rule cannot be read back, a bug.
func Complete(t Task, person tz.Zone, now time.Time) (after Task, done Completion, adv Advance, err error) {
	done = Completion{TaskID: t.ID, Due: t.Due, HasDue: t.HasDue, At: now}
	after = t
	adv = Advance{Ended: true}
	if t.Rule != nil {
		if adv, err = Next(t, person, now); err != nil {
			return t, Completion{}, Advance{}, err
		}
	}
	if adv.Ended {
		after.Status, after.CompletedAt = Done, now
		return after, done, adv, nil
	}
	if shifted := ShiftAt(t.Reminders.At, t.Due, adv.Next); len(shifted) > 0 {
		after.Reminders.At = shifted
	}
	after.Due, after.Rule = adv.Next, adv.Rule
	return after, done, adv, nil
}

// Next works out where a repeating task goes when it is completed at now
// by a person in zone person.
//
// From the schedule: the first occurrence after both now and the current
// due (so the occurrences missed while overdue are skipped, and completing
// early still moves past the current one). For a floating day "after now"
// means after the person's today: the day it is done on counts as done.
//
// From completion: the day of completion (in the due's zone) plus INTERVAL
// days, weeks, months or years at the due's clock time, a month or year
// step that lands on a missing day (the 31st, Feb 29) taking the month's
// last day; HOURLY and MINUTELY add to the instant of completion. UNTIL
// (inclusive, RFC 5545 §3.3.10) and COUNT end the series as they would.
func Next(t Task, person tz.Zone, now time.Time) (Advance, error) {
	if t.RepeatFrom == FromCompletion {
		return fromCompletion(t, person, now)
	}
	s := t.Series(person)
	dueStart := t.Due.Start(person)
	var after time.Time
	if t.Due.HasTime {
		after = now
		if dueStart.After(after) {
			after = dueStart
		}
	} else {
		day := person.Today(now)
		if t.Due.Date.After(day) {
			day = t.Due.Date
		}
		after = person.StartOfDay(day)
	}
	occ, ok := s.After(after)
	if !ok {
		return Advance{Ended: true}, nil
	}
	next := Due{Moment: occ.Original}
	if occ.Original.HasTime {
		next.Zone = s.Zone
		next.At = occ.Start.UTC()
		next.Moved = occ.Moved
	}
	rule := t.Rule
	if n := rule.Count(); n > 0 {
		left := n - len(s.StartsBetween(dueStart, occ.Start))
		if left < 1 {
			return Advance{Ended: true}, nil
		}
		var err error
		if rule, err = withCount(rule, left); err != nil {
			return Advance{}, err
		}
	}
	return Advance{Next: next, Rule: rule}, nil
}

func fromCompletion(t Task, person tz.Zone, now time.Time) (Advance, error) {
	zone := t.Due.SeriesZone(person)
	n := t.Rule.Interval()
	var next Due
	switch t.Rule.Freq() {
	case recur.Hourly, recur.Minutely:
		step := time.Hour
		if t.Rule.Freq() == recur.Minutely {
			step = time.Minute
		}
		next = Timed(zone.In(now.Add(time.Duration(n)*step)), zone)
	default:
		day := zone.Today(now)
		switch t.Rule.Freq() {
		case recur.Daily:
			day = day.AddDays(n)
		case recur.Weekly:
			day = day.AddDays(7 * n)
		case recur.Monthly:
			day = AddMonths(day, n)
		case recur.Yearly:
			day = AddMonths(day, 12*n)
		}
		if t.Due.HasTime {
			next = Timed(day.At(t.Due.Hour, t.Due.Minute), zone)
		} else {
			next = Day(day)
		}
	}
	if pastUntil(t.Rule, next, zone) {
		return Advance{Ended: true}, nil
	}
	rule := t.Rule
	if c := rule.Count(); c > 0 {
		if c == 1 {
			return Advance{Ended: true}, nil
		}
		var err error
		if rule, err = withCount(rule, c-1); err != nil {
			return Advance{}, err
		}
	}
	return Advance{Next: next, Rule: rule}, nil
}

// AddMonths moves d by n months, keeping the day of the month or, when the
// target month is shorter, taking its last day (Jan 31 + 1 month is Feb 28
// or 29; Feb 29 + 12 months is Feb 28).
func AddMonths(d tz.Date, n int) tz.Date {
	m := int(d.Month) - 1 + n
	y := d.Year + m/12
	m %= 12
	if m < 0 {
		m += 12
		y--
	}
	for day := d.Day; day >= 28; day-- {
		if out, ok := tz.NewDate(y, time.Month(m+1), day); ok {
			return out
		}
	}
	out, _ := tz.NewDate(y, time.Month(m+1), d.Day)
	return out
}

// pastUntil reports whether next lies after the rule's UNTIL (RFC 5545
// §3.3.10: UNTIL is inclusive). A date UNTIL compares days; a UTC one
// compares instants; a local one compares civil times in zone.
func pastUntil(r *recur.Rule, next Due, zone tz.Zone) bool {
	u, utc, ok := r.Until()
	if !ok {
		return false
	}
	if !u.HasTime || !next.HasTime {
		return next.Date.After(u.Date)
	}
	if utc {
		return next.At.After(u.DateTime.AsUTC())
	}
	at, _ := zone.Instant(u.DateTime)
	return next.At.After(at)
}

var countPart = regexp.MustCompile(`(^|;)COUNT=\d+`)

// withCount returns r with COUNT set to n.
func withCount(r *recur.Rule, n int) (*recur.Rule, error) {
	s := countPart.ReplaceAllString(r.String(), "${1}COUNT="+strconv.Itoa(n))
	out, err := recur.ParseRule(s)
	if err != nil {
		return nil, fmt.Errorf("recount %q: %w", s, err)
	}
	return out, nil
}

// PlainRule reports whether r has no BYxxx part, as a rule repeated from
// completion must: "every 3 days after I do it" has no weekday to land on.
func PlainRule(r *recur.Rule) bool { return !strings.Contains(r.String(), ";BY") }

// ShiftAt moves absolute reminders by as much wall-clock time as the due
// moved from old to next, so that each keeps its offset from the due as a
// task moves: "remind me at 08:00 on the day" stays 08:00 on the new day.
// A date-only due reads as 00:00 of its day; a date-only reminder stays
// date-only when the move is whole days. at is returned as is when the due
// did not move.
func ShiftAt(at []tz.Moment, old, next Due) []tz.Moment {
	if len(at) == 0 {
		return at
	}
	delta := int(next.DateTime.AsUTC().Sub(old.DateTime.AsUTC()).Minutes())
	if delta == 0 {
		return at
	}
	out := make([]tz.Moment, len(at))
	for i, m := range at {
		if !m.HasTime && delta%1440 == 0 {
			out[i] = tz.DayMoment(m.Date.AddDays(delta / 1440))
			continue
		}
		out[i] = tz.TimeMoment(m.DateTime.AddMinutes(delta))
	}
	return out
}
