// Package recur expands RFC 5545 recurrence (RRULE, EXDATE, RDATE) for
// events, repeating tasks, reminders and iCalendar import and export.
//
// A [Rule] is an RRULE read by [ParseRule] and told in words by
// [Rule.Describe]; a [Series] is one recurring item (DTSTART in its zone,
// the rule, EXDATEs, RDATEs, the length of each occurrence), checked by
// [Series.Check] and [Series.CheckOccurs] and expanded into [Occurrence]
// values by [Series.Between], [Series.After] and [Series.All].
//
// It is the one place that talks to github.com/teambition/rrule-go, and it
// works around that library's gaps:
//   - DAILY and coarser rules are expanded by the library on civil
//     (wall-clock) times only, read as if in UTC; each civil time is then
//     placed in the series' zone with [tz.Zone.Instant], so a nonexistent time
//     moves forward by the gap and an ambiguous one takes the earlier
//     instant (RFC 5545 §3.3.5). UNTIL, EXDATE and RDATE are applied here.
//   - HOURLY and MINUTELY rules step on the instant timeline, so no
//     occurrence is lost or doubled at a DST change.
//   - Parsing accepts CRLF, a trailing ";", lowercase text and an
//     "RRULE:" prefix, and refuses what RFC 5545 §3.3.10 forbids.
//   - Expansion never depends on the process clock, always ends, and starts
//     near the asked window instead of at DTSTART when the rule allows.
package recur

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/internal/bounded"
	"github.com/assistant-dev/assistant/tz"
	"github.com/teambition/rrule-go"
)

// Frequency is an RRULE FREQ value (RFC 5545 §3.3.10).
type Frequency = rrule.Frequency

// The frequencies a Rule may have. SECONDLY is refused: moments have minute
// precision.
const (
	Yearly   = rrule.YEARLY
	Monthly  = rrule.MONTHLY
	Weekly   = rrule.WEEKLY
	Daily    = rrule.DAILY
	Hourly   = rrule.HOURLY
	Minutely = rrule.MINUTELY
)

// MaxCount is the largest COUNT a rule may have; larger counts are refused
// so that a series' last occurrence can always be computed at write time.
const MaxCount = 10000

// MaxInterval is the largest INTERVAL a rule may have.
const MaxInterval = 1000

// untilKind says how UNTIL was written, which decides how it is compared
// (RFC 5545 §3.3.10): a UTC time as an instant, a local time or a date as a
// civil value in the series' zone.
type untilKind uint8

const (
	untilNone  untilKind = iota
	untilDate            // 20261231
	untilLocal           // 20261231T235900
	untilUTC             // 20261231T225900Z
)

// ByDay is one BYDAY item: a weekday with an optional ordinal (N is 0 for
// every such weekday, 1 for the first, -1 for the last; RFC 5545 §3.3.10).
type ByDay struct {
	N   int
	Day time.Weekday
}

// Rule is a parsed RRULE value (RFC 5545 §3.3.10). It holds no DTSTART: a
// Series supplies it. Rules are immutable and safe to share.
type Rule struct {
	freq     Frequency
	interval int
	count    int

	until      untilKind
	untilCivil tz.DateTime // date or local form (date: 00:00)
	untilTime  time.Time   // UTC form, to the second
	untilSec   int         // the seconds of a local UNTIL, kept for its text

	bySetPos, byMonth, byMonthDay, byYearDay, byWeekNo, byHour, byMinute []int
	byDay                                                                []ByDay
	wkst                                                                 time.Weekday

	text string
}

// Freq returns the rule's FREQ.
func (r *Rule) Freq() Frequency { return r.freq }

// Interval returns INTERVAL (1 when not written).
func (r *Rule) Interval() int { return r.interval }

// Count returns COUNT, or 0 when the rule has none.
func (r *Rule) Count() int { return r.count }

// Until returns UNTIL as it was written: a date (HasTime false) or a civil
// date-time, with utc true when it was written in UTC ("…Z"); ok is false
// when the rule has no UNTIL.
func (r *Rule) Until() (m tz.Moment, utc bool, ok bool) {
	switch r.until {
	case untilDate:
		return tz.DayMoment(r.untilCivil.Date), false, true
	case untilLocal:
		return tz.TimeMoment(r.untilCivil), false, true
	case untilUTC:
		return tz.TimeMoment(tz.FromUTCClock(r.untilTime)), true, true
	}
	return tz.Moment{}, false, false
}

// Bounded reports whether the rule ends by itself (COUNT or UNTIL).
func (r *Rule) Bounded() bool { return r.count > 0 || r.until != untilNone }

// ByDays returns the BYDAY items, in canonical order.
func (r *Rule) ByDays() []ByDay { return slices.Clone(r.byDay) }

// String returns the canonical RRULE value, without the "RRULE:" prefix:
// FREQ first, then INTERVAL (when not 1), COUNT, UNTIL, the BYxxx parts in
// a fixed order with sorted, de-duplicated values, and WKST when not MO.
// ParseRule(r.String()) gives an equal rule.
func (r *Rule) String() string { return r.text }

// ruleCache maps rule text (as given and canonical) to its parsed Rule, so
// that listing many series parses each distinct rule once. It is bounded
// at 50,000 texts; when that is reached it is dropped, which costs only
// parsing again.
var ruleCache = bounded.New[string, *Rule](50000)

// ParseRule reads an RRULE value such as "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10"
// (RFC 5545 §3.3.10). An "RRULE:" prefix, CR and LF line ends, folded lines,
// spaces around parts, a trailing ";" and lowercase text are accepted.
// Parts RFC 5545 forbids in a combination (BYWEEKNO outside YEARLY, COUNT
// with UNTIL, …), rules that can never occur (BYMONTH=2;BYMONTHDAY=30, or
// BYDAY=6MO counted within a month), FREQ=SECONDLY and seconds other than
// 0 are refused. The error is one sentence naming “rrule” and the bad
// part. Parsed rules are cached by text, so parsing a known rule costs a
// map lookup.
func ParseRule(s string) (*Rule, error) {
	if r, ok := ruleCache.Get(s); ok {
		return r, nil
	}
	r, err := parseRule(s)
	if err != nil {
		return nil, err
	}
	if known, ok := ruleCache.Get(r.text); ok {
		r = known
	}
	ruleCache.Put(s, r)
	ruleCache.Put(r.text, r)
	return r, nil
}

// MustRule is ParseRule for rules known to be valid (tests, constants); it
// panics on a bad rule.
func MustRule(s string) *Rule {
	r, err := ParseRule(s)
	if err != nil {
		panic(err)
	}
	return r
}

const ruleExample = "FREQ=WEEKLY;BYDAY=MO,WE"

func ruleErr(format string, a ...any) error {
	return fail("“rrule” "+format, a...)
}

// unfold joins folded lines (RFC 5545 §3.1) and drops line ends.
func unfold(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\n ", "")
	s = strings.ReplaceAll(s, "\n\t", "")
	return strings.ReplaceAll(s, "\n", "")
}

func parseRule(s string) (*Rule, error) {
	v := strings.TrimSpace(unfold(s))
	if len(v) >= 6 && strings.EqualFold(v[:6], "RRULE:") {
		v = strings.TrimSpace(v[6:])
	}
	if v == "" {
		return nil, ruleErr("is empty; write a rule such as %s.", ruleExample)
	}
	r := &Rule{interval: 1, wkst: time.Monday}
	seen := map[string]bool{}
	freqSet := false
	for part := range strings.SplitSeq(v, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, ok := strings.Cut(part, "=")
		key = strings.ToUpper(strings.TrimSpace(key))
		val = strings.ToUpper(strings.TrimSpace(val))
		if !ok || key == "" {
			return nil, ruleErr("has a part “%s” that is not KEY=VALUE; write a rule such as %s.", clip(part), ruleExample)
		}
		if val == "" {
			return nil, ruleErr("has an empty %s; give it a value or leave it out, as in %s.", key, ruleExample)
		}
		if seen[key] {
			return nil, ruleErr("gives %s twice; write it once.", key)
		}
		seen[key] = true
		var err error
		switch key {
		case "FREQ":
			freqSet = true
			switch val {
			case "YEARLY":
				r.freq = Yearly
			case "MONTHLY":
				r.freq = Monthly
			case "WEEKLY":
				r.freq = Weekly
			case "DAILY":
				r.freq = Daily
			case "HOURLY":
				r.freq = Hourly
			case "MINUTELY":
				r.freq = Minutely
			case "SECONDLY":
				return nil, ruleErr("cannot repeat SECONDLY (times have minute precision); use MINUTELY or coarser.")
			default:
				return nil, ruleErr("has FREQ=%s; FREQ must be one of YEARLY, MONTHLY, WEEKLY, DAILY, HOURLY or MINUTELY.", clip(val))
			}
		case "INTERVAL":
			r.interval, err = number(key, val, 1, MaxInterval)
		case "COUNT":
			r.count, err = number(key, val, 1, MaxCount)
		case "UNTIL":
			err = r.parseUntil(val)
		case "BYSECOND":
			var secs []int
			secs, err = numbers(key, val, 0, 59, false)
			if err == nil && (len(secs) != 1 || secs[0] != 0) {
				err = ruleErr("has BYSECOND=%s, but times have minute precision; leave BYSECOND out.", clip(val))
			}
		case "BYMINUTE":
			r.byMinute, err = numbers(key, val, 0, 59, false)
		case "BYHOUR":
			r.byHour, err = numbers(key, val, 0, 23, false)
		case "BYMONTHDAY":
			r.byMonthDay, err = numbers(key, val, 1, 31, true)
		case "BYYEARDAY":
			r.byYearDay, err = numbers(key, val, 1, 366, true)
		case "BYWEEKNO":
			r.byWeekNo, err = numbers(key, val, 1, 53, true)
		case "BYMONTH":
			r.byMonth, err = numbers(key, val, 1, 12, false)
		case "BYSETPOS":
			r.bySetPos, err = numbers(key, val, 1, 366, true)
		case "BYDAY":
			r.byDay, err = byDays(val)
		case "WKST":
			var d ByDay
			d, err = byDay(val)
			if err == nil && d.N != 0 {
				err = ruleErr("has WKST=%s; WKST is a plain weekday such as MO or SU.", clip(val))
			}
			r.wkst = d.Day
		default:
			return nil, ruleErr("has an unknown part “%s”; the parts are FREQ, INTERVAL, COUNT, UNTIL, BYMONTH, BYWEEKNO, BYYEARDAY, BYMONTHDAY, BYDAY, BYHOUR, BYMINUTE, BYSETPOS and WKST, as in %s.", clip(key), ruleExample)
		}
		if err != nil {
			return nil, err
		}
	}
	if !freqSet {
		return nil, ruleErr("needs FREQ (YEARLY, MONTHLY, WEEKLY, DAILY, HOURLY or MINUTELY), as in %s.", ruleExample)
	}
	// Sets first: a repeated BYDAY value must not count twice toward the
	// times BYSETPOS can pick from, or the canonical text would be refused.
	r.canonicalize()
	if err := r.check(); err != nil {
		return nil, err
	}
	return r, nil
}

// check refuses the combinations RFC 5545 §3.3.10 forbids, and the few this
// package does not expand (BYSETPOS and BYWEEKNO below DAILY).
func (r *Rule) check() error {
	f := r.freq
	switch {
	case r.count > 0 && r.until != untilNone:
		return ruleErr("has both COUNT and UNTIL; keep one of them.")
	case len(r.byWeekNo) > 0 && f != Yearly:
		return ruleErr("uses BYWEEKNO, which only works with FREQ=YEARLY.")
	case len(r.byYearDay) > 0 && (f == Daily || f == Weekly || f == Monthly):
		return ruleErr("uses BYYEARDAY, which does not work with FREQ=%s; use FREQ=YEARLY.", f)
	case len(r.byMonthDay) > 0 && f == Weekly:
		return ruleErr("uses BYMONTHDAY, which does not work with FREQ=WEEKLY; use FREQ=MONTHLY.")
	case len(r.bySetPos) > 0 && f > Daily:
		return ruleErr("uses BYSETPOS with FREQ=%s; BYSETPOS works with DAILY or coarser rules.", f)
	case len(r.bySetPos) > 0 && len(r.byMonth)+len(r.byWeekNo)+len(r.byYearDay)+len(r.byMonthDay)+len(r.byDay)+len(r.byHour)+len(r.byMinute) == 0:
		return ruleErr("uses BYSETPOS without another BY part to pick from, as in FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1.")
	}
	for _, d := range r.byDay {
		if d.N == 0 {
			continue
		}
		switch {
		case f != Monthly && f != Yearly:
			if d.N < -5 || d.N > 5 {
				return ruleErr("has BYDAY=%s, but a numbered weekday needs FREQ=MONTHLY or FREQ=YEARLY; write BYDAY=%s for every %s.", d, ByDay{Day: d.Day}, d.Day)
			}
			// "2WE" under WEEKLY is most likely the second Wednesday of
			// each month, which is MONTHLY's.
			return ruleErr("has BYDAY=%s, but a numbered weekday needs FREQ=MONTHLY or FREQ=YEARLY; write FREQ=MONTHLY;BYDAY=%s for %s of each month, or BYDAY=%s for every %s.",
				d, d, ordinalDay(d), ByDay{Day: d.Day}, d.Day)
		case f == Yearly && len(r.byWeekNo) > 0:
			return ruleErr("has a numbered BYDAY=%s with BYWEEKNO; write the weekday without a number.", d)
		case f == Monthly && (d.N > 5 || d.N < -5):
			return ruleErr("has BYDAY=%s, but a month has at most 5 of each weekday.", d)
		case f == Yearly && len(r.byMonth) > 0 && (d.N > 5 || d.N < -5):
			// With BYMONTH the number counts within each month (RFC 5545
			// §3.3.10), so the item can never occur; rrule-go would also
			// index past its year masks and panic.
			return ruleErr("has BYDAY=%s with BYMONTH, where the number counts within the month and a month has at most 5 of each weekday; write 1%s to 5%s or -1%s to -5%s.", d, weekdayCodes[d.Day], weekdayCodes[d.Day], weekdayCodes[d.Day], weekdayCodes[d.Day])
		}
	}
	if !r.canOccur() {
		return ruleErr("can never occur: no month in BYMONTH has the days in BYMONTHDAY; for the last day of a month write BYMONTHDAY=-1, or pick days every listed month has (1 to 28).")
	}
	if !r.ordinalsMeetMonthDays() {
		return ruleErr("can never occur: the numbered weekdays in BYDAY never fall on the days in BYMONTHDAY (1MO is always one of days 1 to 7, 2MO of days 8 to 14, -1MO of the last 7); write one of the two, or days that match, such as BYMONTHDAY=8,9,10,11,12,13,14;BYDAY=2MO.")
	}
	if len(r.bySetPos) > 0 {
		most := r.mostPerPeriod()
		if !slices.ContainsFunc(r.bySetPos, func(p int) bool { return p <= most && -p <= most }) {
			return ruleErr("has BYSETPOS=%d, but each %s gives at most %d times to pick from, so it can never occur; pick a position from 1 to %d or -1 to -%d.",
				r.bySetPos[0], periodName[r.freq], most, most, most)
		}
	}
	return nil
}

var periodName = map[Frequency]string{Yearly: "year", Monthly: "month", Weekly: "week", Daily: "day"}

// mostPerPeriod bounds how many times one period (INTERVAL aside) gives
// BYSETPOS to pick from (RFC 5545 §3.3.10): its days, narrowed by BYMONTH
// and by a BYDAY that alone picks the days, times the BYHOUR and BYMINUTE
// values. A BYSETPOS past it can never select anything, and the library
// would search until year 9999 for it.
func (r *Rule) mostPerPeriod() int {
	days := map[Frequency]int{Yearly: 366, Monthly: 31, Weekly: 7, Daily: 1}[r.freq]
	months := 1
	if r.freq == Yearly && len(r.byMonth) > 0 && len(r.byWeekNo)+len(r.byYearDay) == 0 {
		months = len(r.byMonth)
		days = 31 * months
	}
	if len(r.byDay) > 0 && len(r.byMonthDay)+len(r.byYearDay)+len(r.byWeekNo) == 0 && r.freq != Daily {
		perDay := map[Frequency]int{Yearly: 53, Monthly: 5, Weekly: 1}[r.freq]
		if r.freq == Yearly && len(r.byMonth) > 0 {
			perDay = 5 * months
		}
		n := 0
		for _, d := range r.byDay {
			if d.N == 0 {
				n += perDay
			} else if r.freq == Yearly && len(r.byMonth) > 0 {
				n += months
			} else {
				n++
			}
		}
		days = min(days, n)
	}
	return days * max(1, len(r.byHour)) * max(1, len(r.byMinute))
}

// canOccur catches the one common way to write a rule with no occurrence at
// all (FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30), which would otherwise make the
// library search until year 9999.
func (r *Rule) canOccur() bool {
	if len(r.byMonth) == 0 || len(r.byMonthDay) == 0 {
		return true
	}
	for _, m := range r.byMonth {
		most := [...]int{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
		for _, d := range r.byMonthDay {
			if d <= most && -d <= most {
				return true
			}
		}
	}
	return false
}

// ordinalsMeetMonthDays reports whether a day of BYMONTHDAY can be one of
// the numbered weekdays of BYDAY counted within its month (FREQ=MONTHLY,
// or FREQ=YEARLY with BYMONTH, RFC 5545 §3.3.10), in a month of some
// length allowed by BYMONTH. It is false for
// BYMONTHDAY=8,…,14;BYDAY=1MO,…,1SU, which the library would search to
// the year 9999 without stopping at UNTIL. A plain weekday in BYDAY meets
// every day in some year, so it makes the rule able to occur.
func (r *Rule) ordinalsMeetMonthDays() bool {
	if len(r.byMonthDay) == 0 || len(r.byDay) == 0 || !(r.freq == Monthly || r.freq == Yearly && len(r.byMonth) > 0) {
		return true
	}
	for _, d := range r.byDay {
		if d.N == 0 {
			return true
		}
	}
	lengths := []int{28, 29, 30, 31}
	if len(r.byMonth) > 0 {
		lengths = lengths[:0]
		for _, m := range r.byMonth {
			for _, year := range []int{2025, 2028} {
				if n := daysIn(year, time.Month(m)); !slices.Contains(lengths, n) {
					lengths = append(lengths, n)
				}
			}
		}
	}
	for _, dim := range lengths {
		for day := 1; day <= dim; day++ {
			if !slices.Contains(r.byMonthDay, day) && !slices.Contains(r.byMonthDay, day-dim-1) {
				continue
			}
			for _, d := range r.byDay {
				if d.N > 0 && (day-1)/7+1 == d.N || d.N < 0 && (dim-day)/7+1 == -d.N {
					return true
				}
			}
		}
	}
	return false
}

func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }

// yearDaysInMonths reports whether some BYYEARDAY day can fall in a
// BYMONTH month, in a common or a leap year (FREQ=YEARLY;BYYEARDAY=366;
// BYMONTH=2 cannot, and would make every search run to the year 9999).
func (r *Rule) yearDaysInMonths() bool {
	if len(r.byMonth) == 0 || len(r.byYearDay) == 0 {
		return true
	}
	for _, year := range []int{2025, 2028} { // common, leap
		days := time.Date(year, 12, 31, 0, 0, 0, 0, time.UTC).YearDay()
		for _, yd := range r.byYearDay {
			n := yd
			if n < 0 {
				n = days + 1 + n
			}
			if n < 1 || n > days {
				continue
			}
			m := int(time.Date(year, 1, n, 0, 0, 0, 0, time.UTC).Month())
			if slices.Contains(r.byMonth, m) {
				return true
			}
		}
	}
	return false
}

func (r *Rule) parseUntil(val string) error {
	bad := ruleErr("has UNTIL=%s; write a date (20261231), a local time (20261231T235900) or a UTC time (20261231T225900Z).", clip(val))
	switch len(val) {
	case 8:
		d, ok := basicDate(val)
		if !ok {
			return bad
		}
		r.until, r.untilCivil = untilDate, d.At(0, 0)
	case 15, 16:
		if len(val) == 16 && val[15] != 'Z' {
			return bad
		}
		dt, ok := basicDateTime(val[:15])
		if !ok {
			return bad
		}
		// UNTIL keeps its seconds as written (a leap second reads as :59):
		// occurrences start on whole minutes, so they decide nothing, but
		// the rule is given back as it came.
		sec, _ := strconv.Atoi(val[13:15])
		sec = min(sec, 59)
		if len(val) == 16 {
			r.until, r.untilTime = untilUTC, dt.AsUTC().Add(time.Duration(sec)*time.Second)
		} else {
			r.until, r.untilCivil, r.untilSec = untilLocal, dt, sec
		}
	default:
		return bad
	}
	return nil
}

// basicDate reads an RFC 5545 DATE, "20261005".
func basicDate(s string) (tz.Date, bool) {
	if len(s) != 8 || !digits(s) {
		return tz.Date{}, false
	}
	y, _ := strconv.Atoi(s[:4])
	m, _ := strconv.Atoi(s[4:6])
	d, _ := strconv.Atoi(s[6:])
	return tz.NewDate(y, time.Month(m), d)
}

// basicDateTime reads an RFC 5545 local DATE-TIME, "20261005T090000";
// seconds are cut (moments have minute precision).
func basicDateTime(s string) (tz.DateTime, bool) {
	if len(s) != 15 || s[8] != 'T' || !digits(s[9:]) {
		return tz.DateTime{}, false
	}
	d, ok := basicDate(s[:8])
	if !ok {
		return tz.DateTime{}, false
	}
	h, _ := strconv.Atoi(s[9:11])
	mi, _ := strconv.Atoi(s[11:13])
	sec, _ := strconv.Atoi(s[13:15])
	if h > 23 || mi > 59 || sec > 60 {
		return tz.DateTime{}, false
	}
	return d.At(h, mi), true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// clip keeps quoted input short in error sentences.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func number(key, val string, least, most int) (int, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n < least || n > most || strings.HasPrefix(val, "+") || strings.HasPrefix(val, "-") {
		return 0, ruleErr("has %s=%s; %s must be a whole number from %d to %d.", key, clip(val), key, least, most)
	}
	return n, nil
}

// numbers reads a BYxxx list; signed allows -most…-least as well
// (counting from the end).
func numbers(key, val string, least, most int, signed bool) ([]int, error) {
	var out []int
	for item := range strings.SplitSeq(val, ",") {
		item = strings.TrimSpace(item)
		n, err := strconv.Atoi(item)
		abs := n
		if signed && n < 0 {
			abs = -n
		}
		if err != nil || abs < least || abs > most || item == "" || item[0] == '+' && item[1:] == "" {
			rng := fmt.Sprintf("%d to %d", least, most)
			if signed {
				rng += fmt.Sprintf(" or -%d to -%d", least, most)
			}
			return nil, ruleErr("has %s=%s; each value must be a whole number from %s, separated by commas.", key, clip(val), rng)
		}
		out = append(out, n)
	}
	return out, nil
}

var weekdayCodes = [...]string{"SU", "MO", "TU", "WE", "TH", "FR", "SA"}

func byDays(val string) ([]ByDay, error) {
	var out []ByDay
	for item := range strings.SplitSeq(val, ",") {
		d, err := byDay(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func byDay(item string) (ByDay, error) {
	bad := ruleErr("has a weekday “%s”; write MO, TU, WE, TH, FR, SA or SU, with an optional number such as 1MO or -1FR.", clip(item))
	if len(item) < 2 {
		return ByDay{}, bad
	}
	code, num := item[len(item)-2:], item[:len(item)-2]
	day := slices.Index(weekdayCodes[:], code)
	if day < 0 {
		return ByDay{}, bad
	}
	d := ByDay{Day: time.Weekday(day)}
	if num != "" {
		n, err := strconv.Atoi(num)
		if err != nil || n == 0 || n > 53 || n < -53 || strings.HasPrefix(num, "+-") || num == "+" || num == "-" {
			return ByDay{}, bad
		}
		d.N = n
	}
	return d, nil
}

// String gives the RRULE form of d: "MO", "1FR", "-1SU".
func (d ByDay) String() string {
	if d.N == 0 {
		return weekdayCodes[d.Day]
	}
	return strconv.Itoa(d.N) + weekdayCodes[d.Day]
}

func sortedSet(v []int) []int {
	slices.Sort(v)
	return slices.Compact(v)
}

// canonicalize sorts and de-duplicates the BYxxx values (they are sets) and
// builds the canonical text.
func (r *Rule) canonicalize() {
	for _, p := range []*[]int{&r.bySetPos, &r.byMonth, &r.byMonthDay, &r.byYearDay, &r.byWeekNo, &r.byHour, &r.byMinute} {
		*p = sortedSet(*p)
	}
	wd := func(d time.Weekday) int { return (int(d) + 6) % 7 } // MO first
	slices.SortFunc(r.byDay, func(a, b ByDay) int {
		if a.N != b.N {
			return a.N - b.N
		}
		return wd(a.Day) - wd(b.Day)
	})
	r.byDay = slices.Compact(r.byDay)

	var b strings.Builder
	b.WriteString("FREQ=" + r.freq.String())
	if r.interval != 1 {
		fmt.Fprintf(&b, ";INTERVAL=%d", r.interval)
	}
	if r.count > 0 {
		fmt.Fprintf(&b, ";COUNT=%d", r.count)
	}
	switch r.until {
	case untilDate:
		b.WriteString(";UNTIL=" + r.untilCivil.Date.Basic())
	case untilLocal, untilUTC:
		b.WriteString(";UNTIL=" + r.untilText())
	}
	ints := func(key string, v []int) {
		if len(v) == 0 {
			return
		}
		s := make([]string, len(v))
		for i, n := range v {
			s[i] = strconv.Itoa(n)
		}
		b.WriteString(";" + key + "=" + strings.Join(s, ","))
	}
	ints("BYMONTH", r.byMonth)
	ints("BYWEEKNO", r.byWeekNo)
	ints("BYYEARDAY", r.byYearDay)
	ints("BYMONTHDAY", r.byMonthDay)
	if len(r.byDay) > 0 {
		s := make([]string, len(r.byDay))
		for i, d := range r.byDay {
			s[i] = d.String()
		}
		b.WriteString(";BYDAY=" + strings.Join(s, ","))
	}
	ints("BYHOUR", r.byHour)
	ints("BYMINUTE", r.byMinute)
	ints("BYSETPOS", r.bySetPos)
	if r.wkst != time.Monday {
		b.WriteString(";WKST=" + weekdayCodes[r.wkst])
	}
	r.text = b.String()
}

// mixedByDay reports whether BYDAY has both plain and numbered weekdays
// (numbered ones only pass check under MONTHLY and YEARLY).
func (r *Rule) mixedByDay() bool {
	plain := slices.ContainsFunc(r.byDay, func(d ByDay) bool { return d.N == 0 })
	numbered := slices.ContainsFunc(r.byDay, func(d ByDay) bool { return d.N != 0 })
	return plain && numbered
}

// pyWeekday converts to rrule-go's weekday (Monday = 0).
func pyWeekday(d time.Weekday) rrule.Weekday {
	return [...]rrule.Weekday{rrule.SU, rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR, rrule.SA}[d]
}

// options returns the rule as rrule-go options with the library's implicit
// defaults made explicit from start (a civil time read as UTC): BYMONTHDAY,
// BYMONTH, BYDAY, BYHOUR and BYMINUTE that the library would take from
// DTSTART. Made explicit, they stay right when expansion starts at a later
// period than DTSTART. COUNT and UNTIL are left out: this package applies
// them.
func (r *Rule) options(start time.Time) rrule.ROption {
	o := rrule.ROption{
		Freq:       r.freq,
		Interval:   r.interval,
		Wkst:       pyWeekday(r.wkst),
		Bysetpos:   r.bySetPos,
		Bymonth:    r.byMonth,
		Bymonthday: r.byMonthDay,
		Byyearday:  r.byYearDay,
		Byweekno:   r.byWeekNo,
		Byhour:     r.byHour,
		Byminute:   r.byMinute,
		Bysecond:   []int{0},
	}
	for _, d := range r.byDay {
		w := pyWeekday(d.Day)
		o.Byweekday = append(o.Byweekday, w.Nth(d.N))
	}
	if r.mixedByDay() {
		// rrule-go, like python-dateutil, makes a day match the plain AND
		// the numbered BYDAY items, so FREQ=MONTHLY;BYDAY=TU,4WE gave no
		// occurrence at all; RFC 5545 §3.3.10 means their union. A plain
		// weekday is each numbered one of its period, so it is written
		// out as 1…5 (a month) or 1…53 (a year), which the library unites.
		most := 53
		if r.freq == Monthly || len(r.byMonth) > 0 {
			most = 5
		}
		o.Byweekday = o.Byweekday[:0]
		for _, d := range r.byDay {
			w := pyWeekday(d.Day)
			if d.N != 0 {
				o.Byweekday = append(o.Byweekday, w.Nth(d.N))
				continue
			}
			for n := 1; n <= most; n++ {
				o.Byweekday = append(o.Byweekday, w.Nth(n))
			}
		}
	}
	if len(r.byWeekNo)+len(r.byYearDay)+len(r.byMonthDay)+len(r.byDay) == 0 {
		switch r.freq {
		case Yearly:
			if len(o.Bymonth) == 0 {
				o.Bymonth = []int{int(start.Month())}
			}
			o.Bymonthday = []int{start.Day()}
		case Monthly:
			o.Bymonthday = []int{start.Day()}
		case Weekly:
			o.Byweekday = []rrule.Weekday{pyWeekday(start.Weekday())}
		}
	}
	if len(o.Byhour) == 0 && r.freq < Hourly {
		o.Byhour = []int{start.Hour()}
	}
	if len(o.Byminute) == 0 && r.freq < Minutely {
		o.Byminute = []int{start.Minute()}
	}
	return o
}

// FixedClock reports whether every occurrence of the rule starts at
// DTSTART's wall-clock time in the series' zone (before a DST gap moves a
// nonexistent one forward, RFC 5545 §3.3.5): DAILY or coarser, with no
// BYHOUR or BYMINUTE (a BYSECOND other than 0 is refused at parse). Callers
// may then compare clock times instead of expanding.
func (r *Rule) FixedClock() bool {
	return r.freq <= Daily && len(r.byHour) == 0 && len(r.byMinute) == 0
}
