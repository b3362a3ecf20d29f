package recur

import (
	"time"

	"github.com/teambition/rrule-go"

	"github.com/assistant-dev/assistant/internal/bounded"
)

// A rule with COUNT must be counted from DTSTART, which in general means
// expanding every occurrence (countTimes). Most rules people write give the
// same number k of times in every period (every week of a WEEKLY rule with
// BYDAY=MO,WE gives two), so the COUNT-th time lies in a period found by
// arithmetic, and only DTSTART's period and that one need expanding. This
// keeps creating a series with a large COUNT cheap (under 50 µs, as
// BenchmarkCreateCount measures).

// perPeriod returns k, the number of civil times each period (one FREQ
// unit, INTERVAL aside) of a DAILY or coarser rule gives from DTSTART's
// fields start (a civil time read as UTC), when every period gives the
// same k; 0 when periods differ or it is not worth proving. Distinct BYxxx
// values give distinct civil times (they are de-duplicated sets; month
// days and numbered weekdays are only accepted all of one sign, where they
// cannot coincide), and a time a gap moves still counts, as in countTimes.
func (r *Rule) perPeriod(start time.Time) int {
	if r.freq > Daily || len(r.bySetPos)+len(r.byWeekNo)+len(r.byYearDay) > 0 {
		return 0
	}
	perDay := max(1, len(r.byHour)) * max(1, len(r.byMinute))
	switch r.freq {
	case Daily:
		if len(r.byMonth)+len(r.byMonthDay)+len(r.byDay) > 0 {
			return 0
		}
		return perDay
	case Weekly:
		if len(r.byMonth) > 0 {
			return 0
		}
		return max(1, len(r.byDay)) * perDay // BYDAY is plain under WEEKLY
	case Monthly:
		if len(r.byMonth) > 0 {
			return 0
		}
		if n := r.fixedDays(28, start); n > 0 {
			return n * perDay
		}
		return 0
	}
	// YEARLY: within the listed months (or DTSTART's month when no BYxxx
	// day part is written, or every month under a bare BYMONTHDAY).
	months := len(r.byMonth)
	shortest := 31
	for _, m := range r.byMonth {
		shortest = min(shortest, monthFloor[m-1])
	}
	switch {
	case months > 0:
	case len(r.byDay) > 0:
		return 0 // numbered within the year: 52 or 53 of a weekday
	case len(r.byMonthDay) > 0:
		months, shortest = 12, 28
	default:
		months, shortest = 1, monthFloor[start.Month()-1]
	}
	if n := r.fixedDays(shortest, start); n > 0 {
		return months * n * perDay
	}
	return 0
}

// monthFloor is each month's fewest days (February in a common year).
var monthFloor = [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// fixedDays returns how many days of each month a MONTHLY (or YEARLY with
// months) rule picks when that number is the same in every month of at
// least shortest days, or 0: month days all within ±shortest and of one
// sign (DTSTART's day when none is written), or numbered weekdays all
// within ±4 and of one sign (every month has at least four of each).
func (r *Rule) fixedDays(shortest int, start time.Time) int {
	switch {
	case len(r.byDay) > 0 && len(r.byMonthDay) > 0:
		return 0
	case len(r.byDay) > 0:
		neg := r.byDay[0].N < 0
		for _, d := range r.byDay {
			if d.N == 0 || d.N > 4 || d.N < -4 || (d.N < 0) != neg {
				return 0
			}
		}
		return len(r.byDay)
	case len(r.byMonthDay) > 0:
		neg := r.byMonthDay[0] < 0
		for _, d := range r.byMonthDay {
			if d > shortest || -d > shortest || (d < 0) != neg {
				return 0
			}
		}
		return len(r.byMonthDay)
	}
	if start.Day() > shortest {
		return 0
	}
	return 1
}

// period returns the civil start (00:00, read as UTC) of the j-th period
// of the rule after DTSTART's own (j = 0), INTERVAL units apart and aligned
// as jump aligns them, and the start of the unit after it.
func (r *Rule) period(start time.Time, j int) (from, to time.Time) {
	y, m, d := start.Date()
	switch r.freq {
	case Daily:
		from = time.Date(y, m, d+j*r.interval, 0, 0, 0, 0, time.UTC)
		return from, from.AddDate(0, 0, 1)
	case Weekly:
		back := (int(start.Weekday()) - int(r.wkst) + 7) % 7
		from = time.Date(y, m, d-back+7*j*r.interval, 0, 0, 0, 0, time.UTC)
		return from, from.AddDate(0, 0, 7)
	case Monthly:
		from = time.Date(y, m+time.Month(j*r.interval), 1, 0, 0, 0, 0, time.UTC)
		return from, from.AddDate(0, 1, 0)
	}
	from = time.Date(y+j*r.interval, time.January, 1, 0, 0, 0, 0, time.UTC)
	return from, from.AddDate(1, 0, 0)
}

// civilTimes expands the rule (no COUNT) from the period starting at from
// until before to, keeping the times at or after start (DTSTART's civil
// time, whose fields fill the implicit BYxxx values).
func (r *Rule) civilTimes(start, from, to time.Time) []time.Time {
	opt := r.options(start)
	opt.Dtstart = from
	opt.Until = to.Add(-time.Second)
	rr, err := rrule.NewRRule(opt)
	if err != nil {
		return nil
	}
	list := rr.All()
	i := 0
	for i < len(list) && list[i].Before(start) {
		i++
	}
	return list[i:]
}

// smallCount is the COUNT up to which the full list is cheaper: one
// short expansion, after which expanding near any window is a binary
// search, where the fast path costs two expansions and then one per month
// a window touches.
const smallCount = 64

// tailCache keeps countTail's tails (nil where there is none).
var tailCache = bounded.New[countKey, []time.Time](countCacheMax)

// countTail returns the last one or two times of countTimes (the same
// values, civil or instants) without expanding the whole list, when the
// rule has a COUNT above smallCount and periods of a fixed size
// (perPeriod), or a sub-daily
// rule with no BYxxx part, whose times are evenly spaced instants. ok is
// false otherwise, and also when the last period lies past the year 9999,
// where the library stops and the full list is shorter than COUNT.
func (s Series) countTail() (tail []time.Time, ok bool) {
	r := s.Rule
	if r == nil || r.count <= smallCount {
		return nil, false
	}
	key := countKey{rule: r, start: s.Start, zone: s.Zone.Name()}
	if tail, ok := tailCache.Get(key); ok {
		return tail, tail != nil
	}
	tail = s.computeTail()
	tailCache.Put(key, tail)
	return tail, tail != nil
}

func (s Series) computeTail() []time.Time {
	r := s.Rule
	if r.freq > Daily && s.Start.HasTime {
		if len(r.byMonth)+len(r.byMonthDay)+len(r.byYearDay)+len(r.byDay)+len(r.byHour)+len(r.byMinute) > 0 {
			return nil
		}
		t0, _ := s.Zone.Instant(s.Start.DateTime)
		last := r.stepAt(t0, r.count-1)
		if r.count == 1 {
			return []time.Time{last}
		}
		return []time.Time{r.stepAt(t0, r.count-2), last}
	}
	start := civilOf(s.Start)
	k := r.perPeriod(start)
	if k == 0 {
		return nil
	}
	_, end0 := r.period(start, 0)
	own := r.civilTimes(start, start, end0)
	if len(own) == 0 || !own[0].Equal(start) {
		own = append([]time.Time{start}, own...)
	}
	if r.count <= len(own) {
		return own[max(0, r.count-2):r.count]
	}
	rest := r.count - len(own)
	j := (rest + k - 1) / k // the period holding the COUNT-th time
	at := rest - (j-1)*k    // its position there, from 1
	from, to := r.period(start, j)
	if to.Year() > 9999 {
		return nil
	}
	want := k
	if at == 1 && j > 1 {
		// The time before the last is the previous period's last.
		from, _ = r.period(start, j-1)
		at, want = k+1, 2*k
	}
	list := r.civilTimes(start, from, to)
	if len(list) != want {
		return nil // not as fixed as perPeriod claimed: expand in full
	}
	if at == 1 {
		return []time.Time{own[len(own)-1], list[0]}
	}
	return list[at-2 : at]
}
