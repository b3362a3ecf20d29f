package events

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// rulePart is one NAME=VALUE part of a canonical RRULE value.
type rulePart struct{ key, val string }

// ruleParts splits r's canonical text (recur.Rule.String) into its parts,
// in order.
func ruleParts(r *recur.Rule) []rulePart {
	var out []rulePart
	for _, p := range strings.Split(r.String(), ";") {
		k, v, _ := strings.Cut(p, "=")
		out = append(out, rulePart{k, v})
	}
	return out
}

func partsText(ps []rulePart) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.key + "=" + p.val
	}
	return strings.Join(s, ";")
}

func hasPart(ps []rulePart, key string) bool {
	for _, p := range ps {
		if p.key == key {
			return true
		}
	}
	return false
}

// partValue is the value of key, "" when the rule has no such part.
func partValue(ps []rulePart, key string) string {
	for _, p := range ps {
		if p.key == key {
			return p.val
		}
	}
	return ""
}

// setPart replaces the value of key, or adds the part when missing.
func setPart(ps []rulePart, key, val string) []rulePart {
	for i, p := range ps {
		if p.key == key {
			ps[i].val = val
			return ps
		}
	}
	return append(ps, rulePart{key, val})
}

// dropParts leaves out the parts named in keys.
func dropParts(ps []rulePart, keys ...string) []rulePart {
	var out []rulePart
	for _, p := range ps {
		if !contains(keys, p.key) {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
func wkstOf(ps []rulePart) time.Weekday {
	for _, p := range ps {
		if p.key == "WKST" {
			for d := time.Sunday; d <= time.Saturday; d++ {
				if weekdayCode(d) == p.val {
					return d
				}
			}
		}
	}
	return time.Monday
}

// moveRule is the rule of a series whose start moves by d civil days, from
// old to start (design §4, scope all and following): the rule's days move
// along, as in other calendars, so that every occurrence keeps its place
// relative to the start. A weekday in BYDAY (without ordinal) moves by d;
// for a WEEKLY rule whose weeks matter (INTERVAL above 1, BYSETPOS) and
// whose days would not all stay in, or all leave, their week, WKST moves
// too, so that the weeks themselves move by d (RFC 5545 §3.3.10). Day
// parts that cannot move soundly (BYMONTHDAY, BYYEARDAY, BYWEEKNO, BYSETPOS
// outside WEEKLY, BYDAY with ordinals, BYMONTH when a day shift can cross a
// month end) give a refusal naming “start” and a rule to write instead.
func moveRule(r *recur.Rule, d int, old, start tz.Moment, label string) (*recur.Rule, error) {
	if r == nil || d == 0 {
		return r, nil
	}
	ps := ruleParts(r)
	freq := r.Freq()
	ordinals := false
	for _, x := range r.ByDays() {
		ordinals = ordinals || x.N != 0
	}
	sound := !ordinals && !hasPart(ps, "BYMONTHDAY") && !hasPart(ps, "BYYEARDAY") && !hasPart(ps, "BYWEEKNO") &&
		(freq == recur.Weekly || !hasPart(ps, "BYSETPOS"))
	if hasPart(ps, "BYMONTH") {
		// The day of a MONTHLY or YEARLY rule without day parts comes
		// from DTSTART, so BYMONTH holds as long as the start keeps its
		// month; any other rule would carry some occurrences over a
		// month end.
		plain := (freq == recur.Monthly || freq == recur.Yearly) && len(r.ByDays()) == 0
		sound = sound && plain && old.Date.Month == start.Date.Month
	}
	if !sound {
		days := fmt.Sprintf("%d days", d)
		if d == 1 || d == -1 {
			days = fmt.Sprintf("%d day", d)
		}
		return nil, invalid("start", fmt.Sprintf("“start” moves %s by %s, but its rule (RRULE:%s) picks days by parts that cannot move along; give the new “rrule” in the same call, such as rrule=\"%s\".",
			label, days, r, exampleRule(r, ps, d, start)))
	}
	if len(r.ByDays()) > 0 {
		ps = setPart(ps, "BYDAY", shiftedDays(r, d))
		if freq == recur.Weekly && (r.Interval() > 1 || hasPart(ps, "BYSETPOS")) {
			wkst := wkstOf(ps)
			rest := ((d % 7) + 7) % 7
			pos := func(w time.Weekday) int { return (int(w) - int(wkst) + 7) % 7 }
			wraps := map[bool]bool{}
			for _, x := range r.ByDays() {
				wraps[pos(x.Day)+rest >= 7] = true
			}
			wraps[pos(old.Date.Weekday())+rest >= 7] = true
			if len(wraps) > 1 {
				ps = setPart(ps, "WKST", weekdayCode(addWeekdays(wkst, d)))
			}
		}
	}
	return recur.ParseRule(partsText(ps))
}

// exampleRule is a rule to suggest when r's days cannot move along with a
// start moved by d days to start: the same rule with its day parts taken
// from the new start.
func exampleRule(r *recur.Rule, ps []rulePart, d int, start tz.Moment) string {
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
		ps = dropParts(ps, "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS", "BYDAY", "WKST")
		if ordinals {
			return partsText(setPart(ps, "BYDAY", byDay))
		}
		return partsText(setPart(ps, "BYMONTHDAY", strconv.Itoa(day.Day)))
	case recur.Yearly:
		ps = dropParts(ps, "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS", "BYDAY", "WKST")
		ps = setPart(ps, "BYMONTH", strconv.Itoa(int(day.Month)))
		if ordinals {
			return partsText(setPart(ps, "BYDAY", byDay))
		}
		return partsText(setPart(ps, "BYMONTHDAY", strconv.Itoa(day.Day)))
	}
	if len(r.ByDays()) > 0 && !ordinals {
		ps = setPart(ps, "BYDAY", shiftedDays(r, d))
	}
	if hasPart(ps, "BYMONTHDAY") {
		ps = setPart(ps, "BYMONTHDAY", strconv.Itoa(day.Day))
	}
	return partsText(ps)
}

// monthEndNote warns that a MONTHLY rule taking its day from a start on
// the 29th to 31st (or a YEARLY one from 29 February) skips the months (or
// years) without that day, as RFC 5545 §3.3.10 asks, and names the rule for
// month ends. "" when it does not apply.
func monthEndNote(r *recur.Rule, start tz.Moment) string {
	if r == nil {
		return ""
	}
	ps := ruleParts(r)
	for _, k := range []string{"BYMONTHDAY", "BYDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS", "BYMONTH"} {
		if k == "BYMONTH" && r.Freq() == recur.Yearly && partValue(ps, k) == "2" {
			continue
		}
		if hasPart(ps, k) {
			return ""
		}
	}
	day := start.Date
	switch {
	case r.Freq() == recur.Monthly && day.Day >= 29:
		return fmt.Sprintf("Note: RFC 5545 skips the months without a %s, so this rule has no occurrence in them; rrule=\"%s\" means the last day of every month instead.",
			ordinalDay(day.Day), partsText(setPart(ps, "BYMONTHDAY", "-1")))
	case r.Freq() == recur.Yearly && day.Month == time.February && day.Day == 29:
		return fmt.Sprintf("Note: RFC 5545 skips the years without a 29 February, so this rule occurs in leap years only; rrule=\"%s\" means the last day of February every year instead.",
			partsText(setPart(setPart(ps, "BYMONTH", "2"), "BYMONTHDAY", "-1")))
	}
	return ""
}

// ordinalDay is "29th", "30th", "31st".
func ordinalDay(n int) string {
	if n == 31 {
		return "31st"
	}
	return strconv.Itoa(n) + "th"
}
