package tasks

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

// series is the RFC 5545 series of t from its current due.
func (t task) series(person tz.Zone) recur.Series {
	return recur.Series{Start: t.Due.Moment, Zone: t.Due.seriesZone(person), Rule: t.Rule}
}

// advance is what completing a repeating task leads to: the next due and
// the rule from it, or ended when the rule has run out.
type advance struct {
	Next  due
	Rule  *recur.Rule
	Ended bool
}

// nextOccurrence works out where a repeating task goes when it is
// completed at now by a person in zone person.
//
// From the schedule: the first occurrence after both now and the current
// due (so the occurrences missed while overdue are skipped, and completing
// early still moves past the current one). For a floating day "after now"
// means after the person's today: the day it is done on counts as done.
//
// From completion: the day of completion (in the due's zone) plus INTERVAL
// days, weeks, months or years at the due's clock time, a month or year
// step that lands on a missing day (the 31st, Feb 29) taking the month's
// last day; HOURLY and MINUTELY add to the instant of completion.
func nextOccurrence(t task, person tz.Zone, now time.Time) (advance, error) {
	if t.RepeatFrom == "completion" {
		return fromCompletion(t, person, now)
	}
	s := t.series(person)
	dueStart := t.Due.start(person)
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
		return advance{Ended: true}, nil
	}
	next := due{Moment: occ.Original}
	if occ.Original.HasTime {
		next.Zone = s.Zone
		next.At = occ.Start.UTC()
		next.Moved = occ.Moved
	}
	rule := t.Rule
	if n := rule.Count(); n > 0 {
		left := n - len(s.StartsBetween(dueStart, occ.Start))
		if left < 1 {
			return advance{Ended: true}, nil
		}
		var err error
		if rule, err = withCount(rule, left); err != nil {
			return advance{}, err
		}
	}
	return advance{Next: next, Rule: rule}, nil
}

func fromCompletion(t task, person tz.Zone, now time.Time) (advance, error) {
	zone := t.Due.seriesZone(person)
	n := t.Rule.Interval()
	var next due
	switch t.Rule.Freq() {
	case recur.Hourly, recur.Minutely:
		step := time.Hour
		if t.Rule.Freq() == recur.Minutely {
			step = time.Minute
		}
		next = timedDue(zone.In(now.Add(time.Duration(n)*step)), zone)
	default:
		day := zone.Today(now)
		switch t.Rule.Freq() {
		case recur.Daily:
			day = day.AddDays(n)
		case recur.Weekly:
			day = day.AddDays(7 * n)
		case recur.Monthly:
			day = addMonths(day, n)
		case recur.Yearly:
			day = addMonths(day, 12*n)
		}
		if t.Due.HasTime {
			next = timedDue(day.At(t.Due.Hour, t.Due.Minute), zone)
		} else {
			next = due{Moment: tz.DayMoment(day)}
		}
	}
	if pastUntil(t.Rule, next, zone) {
		return advance{Ended: true}, nil
	}
	rule := t.Rule
	if c := rule.Count(); c > 0 {
		if c == 1 {
			return advance{Ended: true}, nil
		}
		var err error
		if rule, err = withCount(rule, c-1); err != nil {
			return advance{}, err
		}
	}
	return advance{Next: next, Rule: rule}, nil
}

// addMonths moves d by n months, keeping the day of the month or, when the
// target month is shorter, taking its last day (Jan 31 + 1 month is Feb 28
// or 29; Feb 29 + 12 months is Feb 28).
func addMonths(d tz.Date, n int) tz.Date {
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
func pastUntil(r *recur.Rule, next due, zone tz.Zone) bool {
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

// plainRule reports whether r has no BYxxx part, as a rule repeated from
// completion must: "every 3 days after I do it" has no weekday to land on.
func plainRule(r *recur.Rule) bool { return !strings.Contains(r.String(), ";BY") }
