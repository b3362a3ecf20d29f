package calendar

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// DaysError is [MoveRule]'s answer when the rule picks its days by parts
// that cannot move along with the start: Days is the move in days, Rule
// the rule as it is, Example the same rule with its day parts taken from
// the new start, for a person to give instead.
type DaysError struct {
	Days    int
	Rule    *recur.Rule
	Example string
	// FromStart is set when the rule has no day parts of its own but
	// takes its day of the month (MONTHLY, or YEARLY in February) from
	// DTSTART, and months of other lengths would move by other days.
	FromStart bool
}

func (e *DaysError) Error() string {
	return fmt.Sprintf("RRULE:%s cannot move by %d days; RRULE:%s could", e.Rule, e.Days, e.Example)
}

// Part is one NAME=VALUE part of a canonical RRULE value (RFC 5545
// §3.3.10): Key "BYDAY", Val "MO,WE".
type Part struct{ Key, Val string }

// Parts is a rule's parts, in the order [recur.Rule.String] gives them.
type Parts []Part

// PartsOf splits r's canonical text into its parts, in order.
func PartsOf(r *recur.Rule) Parts {
	var out Parts
	for _, p := range strings.Split(r.String(), ";") {
		k, v, _ := strings.Cut(p, "=")
		out = append(out, Part{k, v})
	}
	return out
}

// String is the rule text of ps: "FREQ=WEEKLY;BYDAY=MO".
func (ps Parts) String() string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Key + "=" + p.Val
	}
	return strings.Join(s, ";")
}

// Has reports whether ps has a part named key.
func (ps Parts) Has(key string) bool {
	for _, p := range ps {
		if p.Key == key {
			return true
		}
	}
	return false
}

// Value is the value of key, "" when there is no such part.
func (ps Parts) Value(key string) string {
	for _, p := range ps {
		if p.Key == key {
			return p.Val
		}
	}
	return ""
}

// Set replaces the value of key, or adds the part at the end when
// missing; ps itself may change.
func (ps Parts) Set(key, val string) Parts {
	for i, p := range ps {
		if p.Key == key {
			ps[i].Val = val
			return ps
		}
	}
	return append(ps, Part{key, val})
}

// Drop is ps without the parts named in keys.
func (ps Parts) Drop(keys ...string) Parts {
	var out Parts
	for _, p := range ps {
		if !slices.Contains(keys, p.Key) {
			out = append(out, p)
		}
	}
	return out
}

// weekdayCode is the RFC 5545 two-letter code of d: "MO".
func weekdayCode(d time.Weekday) string { return recur.ByDay{Day: d}.String() }

// addWeekdays moves d by n days of the week (n may be negative).
func addWeekdays(d time.Weekday, n int) time.Weekday { return time.Weekday(((int(d)+n)%7 + 7) % 7) }

// shiftedDays is BYDAY with every (ordinal-free) weekday moved by d days.
func shiftedDays(r *recur.Rule, d int) string {
	days := r.ByDays()
	s := make([]string, len(days))
	for i, x := range days {
		s[i] = weekdayCode(addWeekdays(x.Day, d))
	}
	return strings.Join(s, ",")
}

// wkstOf is the rule's WKST (MO when not written).
func wkstOf(ps Parts) time.Weekday {
	for _, p := range ps {
		if p.Key == "WKST" {
			for d := time.Sunday; d <= time.Saturday; d++ {
				if weekdayCode(d) == p.Val {
					return d
				}
			}
		}
	}
	return time.Monday
}

// MoveRule is the rule of a series whose start moves by d civil days, from
// old to start: the rule's days move along, as in other calendars, so that
// every occurrence keeps its place relative to the start. A weekday in BYDAY (without ordinal) moves by d;
// for a WEEKLY rule whose weeks matter (INTERVAL above 1, BYSETPOS) and
// whose days would not all stay in, or all leave, their week, WKST moves
// too, so that the weeks themselves move by d (RFC 5545 §3.3.10). Day
// parts that cannot move soundly (BYMONTHDAY, BYYEARDAY, BYWEEKNO, BYSETPOS
// outside WEEKLY, BYDAY with ordinals, BYMONTH when a day shift can cross a
// month end) give a [*DaysError] with a rule to write instead.
func MoveRule(r *recur.Rule, d int, old, start tz.Moment) (*recur.Rule, error) {
	if r == nil || d == 0 {
		return r, nil
	}
	ps := PartsOf(r)
	freq := r.Freq()
	ordinals := false
	for _, x := range r.ByDays() {
		ordinals = ordinals || x.N != 0
	}
	sound := !ordinals && !ps.Has("BYMONTHDAY") && !ps.Has("BYYEARDAY") && !ps.Has("BYWEEKNO") &&
		(freq == recur.Weekly || !ps.Has("BYSETPOS"))
	plain := (freq == recur.Monthly || freq == recur.Yearly) && len(r.ByDays()) == 0
	if ps.Has("BYMONTH") {
		// The day of a MONTHLY or YEARLY rule without day parts comes
		// from DTSTART, so BYMONTH holds as long as the start keeps its
		// month; any other rule would carry some occurrences over a
		// month end.
		sound = sound && plain && old.Date.Month == start.Date.Month
	}
	fromStart := false
	if sound && plain {
		// Such a rule repeats on DTSTART's day of the month (and month,
		// for YEARLY): every occurrence moves by d days only when no
		// month's length tells them apart.
		sound = sameDaysEverywhere(freq, old.Date, start.Date, d)
		fromStart = !sound
	}
	if !sound {
		return nil, &DaysError{Days: d, Rule: r, Example: exampleRule(r, ps, d, start), FromStart: fromStart}
	}
	if len(r.ByDays()) > 0 {
		ps = ps.Set("BYDAY", shiftedDays(r, d))
		if freq == recur.Weekly && (r.Interval() > 1 || ps.Has("BYSETPOS")) {
			wkst := wkstOf(ps)
			rest := ((d % 7) + 7) % 7
			pos := func(w time.Weekday) int { return (int(w) - int(wkst) + 7) % 7 }
			wraps := map[bool]bool{}
			for _, x := range r.ByDays() {
				wraps[pos(x.Day)+rest >= 7] = true
			}
			wraps[pos(old.Date.Weekday())+rest >= 7] = true
			if len(wraps) > 1 {
				ps = ps.Set("WKST", weekdayCode(addWeekdays(wkst, d)))
			}
		}
	}
	return recur.ParseRule((ps).String())
}

// sameDaysEverywhere reports whether moving a MONTHLY (or YEARLY) rule
// that takes its day from DTSTART from old to start, d days, moves each of
// its occurrences by d days, whatever the length of its month (or year):
// for MONTHLY when both days are in one month and neither is past the
// 28th; for YEARLY when the same move holds from every year of a leap
// cycle.
func sameDaysEverywhere(freq recur.Frequency, old, start tz.Date, d int) bool {
	if freq == recur.Monthly {
		return old.Year == start.Year && old.Month == start.Month && old.Day <= 28 && start.Day <= 28
	}
	years := start.Year - old.Year
	for y := 2025; y <= 2028; y++ {
		a, ok1 := tz.NewDate(y, old.Month, old.Day)
		b, ok2 := tz.NewDate(y+years, start.Month, start.Day)
		if !ok1 || !ok2 || a.DaysUntil(b) != d {
			return false
		}
	}
	return true
}

// exampleRule is a rule to suggest when r's days cannot move along with a
// start moved by d days to start: the same rule with its day parts taken
// from the new start.
func exampleRule(r *recur.Rule, ps Parts, d int, start tz.Moment) string {
	day := start.Date
	nth := (day.Day-1)/7 + 1
	if day.AddDays(7).Month != day.Month && nth > 4 {
		nth = -1
	}
	byDay := strconv.Itoa(nth) + weekdayCode(day.Weekday())
	ordinals := false
	for _, x := range r.ByDays() {
		ordinals = ordinals || x.N != 0
	}
	switch r.Freq() {
	case recur.Monthly:
		ps = ps.Drop("BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS", "BYDAY", "WKST")
		if ordinals {
			return ps.Set("BYDAY", byDay).String()
		}
		return ps.Set("BYMONTHDAY", strconv.Itoa(day.Day)).String()
	case recur.Yearly:
		ps = ps.Drop("BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS", "BYDAY", "WKST")
		ps = ps.Set("BYMONTH", strconv.Itoa(int(day.Month)))
		if ordinals {
			return ps.Set("BYDAY", byDay).String()
		}
		return ps.Set("BYMONTHDAY", strconv.Itoa(day.Day)).String()
	}
	if len(r.ByDays()) > 0 && !ordinals {
		ps = ps.Set("BYDAY", shiftedDays(r, d))
	}
	if ps.Has("BYMONTHDAY") {
		ps = ps.Set("BYMONTHDAY", strconv.Itoa(day.Day))
	}
	return (ps).String()
}
