package calendar

import (
	"slices"
	"strconv"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// ruleOnly is s without its EXDATEs and RDATEs: what COUNT and UNTIL
// count over (RFC 5545 §3.8.5.2: RDATEs are not counted by COUNT).
func ruleOnly(s recur.Series) recur.Series {
	return recur.Series{Start: s.Start, Zone: s.Zone, Rule: s.Rule, Duration: s.Duration}
}

// IsRuleOccurrence reports whether o comes from DTSTART or the rule of s,
// rather than from an RDATE alone.
func IsRuleOccurrence(s recur.Series, o recur.Occurrence) bool {
	r, ok := Find(ruleOnly(s), o.Original)
	return ok && r.Start.Equal(o.Start)
}

// atOrAfter reports whether moment m of s (an EXDATE or RDATE) lies at or
// after occurrence o: by date in an all-day series or for a date, by
// instant otherwise.
func atOrAfter(s recur.Series, m tz.Moment, o recur.Occurrence) bool {
	if !m.HasTime || !s.Start.HasTime {
		return !m.Date.Before(o.Original.Date)
	}
	t, _ := s.Zone.Instant(m.DateTime)
	return !t.Before(o.Start)
}

// Split cuts s at its occurrence at into the part before (head) and the
// rest from at on (tail), which together have the occurrences of s:
//   - head keeps DTSTART and ends just before at: its rule gets UNTIL one
//     minute before at's start, in UTC as RFC 5545 §3.3.10 asks of a zoned
//     DTSTART (for an all-day series the day before), unless the rule
//     already ends before at, when it is kept as it is, COUNT included.
//     When no occurrence of the rule comes before at (at is DTSTART, with
//     RDATEs before it) head has no rule and its first RDATE becomes its
//     DTSTART.
//   - tail starts at at when at comes from the rule; when at is an RDATE,
//     tail keeps that RDATE and starts at the rule's first occurrence from
//     at on, so the rule keeps its days. tail's rule has the COUNT that
//     remains, or the UNTIL it had; it is nil when no occurrence of the
//     rule remains.
//
// EXDATEs and RDATEs go to the part they fall in (a day-only EXDATE of a
// timed series as the occurrences it removes, [ConcreteExDates]). ok is false when head
// would have no occurrence (at is the first): split nothing then.
func Split(s recur.Series, at recur.Occurrence) (head, tail recur.Series, ok bool, err error) {
	s.ExDates = ConcreteExDates(s)
	head, tail = s, s
	head.ExDates, head.RDates, tail.ExDates, tail.RDates = nil, nil, nil, nil
	for _, x := range s.ExDates {
		if atOrAfter(s, x, at) {
			tail.ExDates = append(tail.ExDates, x)
		} else {
			head.ExDates = append(head.ExDates, x)
		}
	}
	fromRule := s.Rule != nil && IsRuleOccurrence(s, at)
	if s.Rule == nil {
		fromRule = at.Original == s.Start
	}
	for _, x := range s.RDates {
		switch {
		case !atOrAfter(s, x, at):
			head.RDates = append(head.RDates, x)
		default:
			tail.RDates = append(tail.RDates, x)
		}
	}
	rule := ruleOnly(s)
	startsBefore := firstStart(rule).Before(at.Start)
	if !s.Start.HasTime {
		startsBefore = s.Start.Date.Before(at.Original.Date)
	}
	if !startsBefore {
		if len(head.RDates) == 0 {
			return s, recur.Series{}, false, nil
		}
		slices.SortFunc(head.RDates, func(a, b tz.Moment) int { return a.DateTime.Compare(b.DateTime) })
		head.Start, head.RDates, head.Rule = head.RDates[0], head.RDates[1:], nil
		if s.Start.HasTime && !head.Start.HasTime {
			head.Start = tz.TimeMoment(head.Start.Date.At(s.Start.Hour, s.Start.Minute))
		}
	} else if s.Rule != nil && ruleReaches(rule, at) {
		until := "UNTIL=" + tz.FromUTCClock(at.Start.Add(-time.Minute)).Basic() + "Z"
		if !s.Start.HasTime {
			until = "UNTIL=" + at.Original.Date.AddDays(-1).Basic()
		}
		if head.Rule, err = recur.ParseRule(WithoutBound(s.Rule) + ";" + until); err != nil {
			return s, recur.Series{}, false, err
		}
	}
	if tail.Start, tail.Rule, err = rest(s, at, fromRule); err != nil {
		return s, recur.Series{}, false, err
	}
	var others []tz.Moment
	for _, x := range tail.RDates {
		if !sameMoment(s, x, tail.Start) {
			others = append(others, x)
		}
	}
	tail.RDates = dedupe(s, others)
	return head, tail, true, nil
}

// rest is the DTSTART and rule of the part of s from at on: at and the
// rule's remaining COUNT (or its UNTIL) when at comes from the rule; the
// rule's first occurrence from at on when at is an RDATE (fromRule false),
// or at with no rule when none of the rule's occurrences remains.
func rest(s recur.Series, at recur.Occurrence, fromRule bool) (tz.Moment, *recur.Rule, error) {
	if s.Rule == nil {
		return at.Original, nil, nil
	}
	rule := ruleOnly(s)
	first, found := at, fromRule
	if !fromRule {
		first, found = rule.After(at.Start.Add(-time.Nanosecond))
		if !s.Start.HasTime {
			first, found = firstOnOrAfter(rule, at.Original.Date)
		}
	}
	if !found {
		return at.Original, nil, nil
	}
	count := s.Rule.Count()
	if count == 0 {
		return first.Original, s.Rule, nil
	}
	before := 0
	for _, o := range rule.All(count) {
		if o.Start.Before(first.Start) {
			before++
		}
	}
	if count-before <= 0 {
		return at.Original, nil, nil
	}
	r, err := recur.ParseRule(WithoutBound(s.Rule) + ";COUNT=" + strconv.Itoa(count-before))
	return first.Original, r, err
}

// DeleteFollowing is s without at and every occurrence after it: the head
// of [Split], which never extends the rule. ok is false when at is the
// first occurrence, so that nothing of s remains.
func DeleteFollowing(s recur.Series, at recur.Occurrence) (recur.Series, bool, error) {
	head, _, ok, err := Split(s, at)
	return head, ok, err
}

// firstStart is the instant of the first occurrence of s (its DTSTART).
func firstStart(s recur.Series) time.Time {
	f, _, _ := s.Bounds()
	return f
}

// ruleReaches reports whether the rule of s (EXDATEs and RDATEs aside)
// has an occurrence at or after at, so that head needs a new bound.
func ruleReaches(s recur.Series, at recur.Occurrence) bool {
	if !s.Rule.Bounded() {
		return true
	}
	if o, ok := Find(s, at.Original); ok && o.Start.Equal(at.Start) {
		// at is the rule's own occurrence (a search for the next one
		// may end short of it, at the year 9999).
		return true
	}
	if !s.Start.HasTime {
		_, ok := firstOnOrAfter(s, at.Original.Date)
		return ok
	}
	_, ok := s.After(at.Start.Add(-time.Nanosecond))
	return ok
}

// firstOnOrAfter is the first occurrence of the all-day series s on day d
// or later.
func firstOnOrAfter(s recur.Series, d tz.Date) (recur.Occurrence, bool) {
	lo, _ := s.Zone.DayBounds(d)
	for {
		o, ok := s.After(lo.Add(-time.Nanosecond))
		if !ok || !o.Original.Date.Before(d) {
			return o, ok
		}
		lo = o.Start.Add(time.Nanosecond)
	}
}

// sameMoment reports whether the RDATE x of s names the civil time m.
func sameMoment(s recur.Series, x, m tz.Moment) bool {
	if s.Start.HasTime && !x.HasTime {
		x = tz.TimeMoment(x.Date.At(s.Start.Hour, s.Start.Minute))
	}
	if !s.Start.HasTime || !m.HasTime {
		return x.Date == m.Date
	}
	return x.DateTime.Clock() == m.DateTime.Clock()
}

// dedupe keeps the first of RDATEs that name the same time.
func dedupe(s recur.Series, list []tz.Moment) []tz.Moment {
	var out []tz.Moment
	for _, x := range list {
		dup := false
		for _, y := range out {
			dup = dup || sameMoment(s, y, x)
		}
		if !dup {
			out = append(out, x)
		}
	}
	return out
}
