package recur

import (
	"slices"
	"sort"
	"time"

	"github.com/assistant-dev/assistant/internal/bounded"
	"github.com/assistant-dev/assistant/tz"
	"github.com/teambition/rrule-go"
)

const day = 24 * time.Hour

// civilPad widens a civil window on both sides: a civil time and its
// instant differ by the zone's offset, and a gap can move a time forward,
// both well under two days.
const civilPad = 2 * day

// civil expands a DAILY or coarser rule (and any rule of an all-day series)
// on wall-clock times and hands each occurrence to add; add keeps those in
// [lo, hi). rrule-go sees only civil times read as UTC, so its own DST
// handling never comes into play.
func (s Series) civil(lo, hi time.Time, add func(Occurrence)) {
	r := s.Rule
	start := civilOf(s.Start)
	cLo := s.Zone.In(lo).AsUTC().Add(-civilPad)
	cHi := s.Zone.In(hi).AsUTC().Add(civilPad)
	if r.count > 0 {
		// Up to its COUNT-th time the rule gives what it gives without
		// COUNT, so when that time is known the expansion below may start
		// near the window like any other; else use the full list.
		tail, ok := s.countTail()
		if !ok {
			list := s.countTimes()
			i := sort.Search(len(list), func(i int) bool { return !list[i].Before(cLo) })
			for ; i < len(list) && list[i].Before(cHi); i++ {
				add(s.place(list[i]))
			}
			return
		}
		cHi = minTime(cHi, tail[len(tail)-1].Add(time.Nanosecond))
	}
	switch r.until {
	case untilLocal:
		cHi = minTime(cHi, r.untilCivil.AsUTC().Add(time.Minute))
	case untilDate:
		cHi = minTime(cHi, r.untilCivil.AsUTC().Add(day))
	case untilUTC:
		cHi = minTime(cHi, s.Zone.In(r.untilTime).AsUTC().Add(civilPad))
	}
	if cHi.Before(start) {
		return
	}
	if cHi.Sub(cLo) > 100*day {
		// Long searches (After, All) expand straight through. The library
		// is not stopped by Until while no day matches, so rules whose
		// parts never meet are refused when written (Rule.check).
		opt := r.options(start)
		opt.Dtstart = r.jump(start, cLo)
		opt.Until = cHi
		if !s.spend(r.walk(opt.Dtstart, cHi)) {
			return
		}
		if rr, err := rrule.NewRRule(opt); err == nil {
			next := rr.Iterator()
			for c, ok := next(); ok && s.spend(1); c, ok = next() {
				if c.Before(start) || c.Before(cLo) || !c.Before(cHi) {
					continue
				}
				if o := s.place(c); s.untilAllows(o) {
					add(o)
				}
			}
		}
		return
	}
	// Listing windows expand whole civil months, each once (cached), and
	// keep what falls in [cLo, cHi); listing again costs a lookup and a
	// binary search per series.
	m := time.Date(cLo.Year(), cLo.Month(), 1, 0, 0, 0, 0, time.UTC)
	for ; m.Before(cHi) && s.spend(1); m = m.AddDate(0, 1, 0) {
		chunk := s.monthChunk(m)
		i := sort.Search(len(chunk), func(i int) bool { return !chunk[i].Before(cLo) })
		for ; i < len(chunk) && chunk[i].Before(cHi); i++ {
			if o := s.place(chunk[i]); s.untilAllows(o) {
				add(o)
			}
		}
	}
}

// chunkKey identifies the civil times one rule gives from one DTSTART in
// one civil month.
type chunkKey struct {
	rule  *Rule
	start tz.Moment
	month time.Time
}

// chunkCache keeps monthChunk's lists. It is bounded at 200,000 months (a
// few hundred bytes each); when full it is dropped and rebuilt on demand.
var chunkCache = bounded.New[chunkKey, []time.Time](200000)

// monthChunk returns the civil times (read as UTC) the rule gives from
// DTSTART during the civil month starting at m, ignoring UNTIL (applied by
// the caller, as it may depend on the zone). Expansion starts at the
// latest whole period before m (Rule.jump), not at DTSTART.
func (s Series) monthChunk(m time.Time) []time.Time {
	key := chunkKey{rule: s.Rule, start: s.Start, month: m}
	if v, ok := chunkCache.Get(key); ok {
		return v
	}
	r := s.Rule
	start := civilOf(s.Start)
	end := m.AddDate(0, 1, 0)
	var list []time.Time
	if end.After(start) {
		opt := r.options(start)
		opt.Dtstart = r.jump(start, m)
		opt.Until = end.Add(-time.Second)
		s.charge(r.walk(opt.Dtstart, end))
		if rr, err := rrule.NewRRule(opt); err == nil {
			next := rr.Iterator()
			for c, ok := next(); ok; c, ok = next() {
				if !c.Before(start) && !c.Before(m) {
					list = append(list, c)
				}
			}
		}
	}
	chunkCache.Put(key, list)
	return list
}

// lastCivil is the last civil time the library can give (it stops after
// the year 9999).
var lastCivil = time.Date(9999, 12, 31, 23, 59, 0, 0, time.UTC)

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// jump returns where expansion may start so that it still gives every
// occurrence from target on: the first day of the latest whole period
// (INTERVAL × FREQ, aligned as rrule-go aligns them: by day, by WKST week,
// by month, by year) that begins at or before target, or start itself when
// that period is start's own. It is used with the implicit BYxxx values
// made explicit (Rule.options), so the periods after the jump produce what
// they would have produced from DTSTART, and for a COUNT rule only up to
// its COUNT-th time (countTail), below which COUNT removes nothing.
func (r *Rule) jump(start, target time.Time) time.Time {
	if !target.After(start) {
		return start
	}
	sd, td := tz.DateOf(start), tz.DateOf(target)
	var k int
	var first tz.Date
	switch r.freq {
	case Daily:
		k = sd.DaysUntil(td) / r.interval
		first = sd.AddDays(k * r.interval)
	case Weekly:
		ws := sd.AddDays(-((int(sd.Weekday()) - int(r.wkst) + 7) % 7))
		k = ws.DaysUntil(td) / (7 * r.interval)
		first = ws.AddDays(7 * k * r.interval)
	case Monthly:
		months := (td.Year-sd.Year)*12 + int(td.Month) - int(sd.Month)
		k = months / r.interval
		first = tz.DateOf(time.Date(sd.Year, sd.Month+time.Month(k*r.interval), 1, 0, 0, 0, 0, time.UTC))
	case Yearly:
		k = (td.Year - sd.Year) / r.interval
		first = tz.Date{Year: sd.Year + k*r.interval, Month: time.January, Day: 1}
	default:
		return start
	}
	if k <= 0 {
		return start
	}
	return first.At(0, 0).AsUTC()
}

// subDaily expands an HOURLY or MINUTELY rule on the instant timeline from
// t0 (DTSTART's instant): every INTERVAL hours or minutes really pass, so
// none is lost or doubled at a DST change (rrule-go issue #63). The BYxxx
// parts are read on the wall clock of the series' zone: BYMINUTE expands an
// HOURLY rule within each local hour, the others limit (RFC 5545 §3.3.10).
func (s Series) subDaily(lo, hi, t0 time.Time, add func(Occurrence)) {
	r := s.Rule
	if r.count > 0 {
		tail, ok := s.countTail()
		if !ok {
			list := s.countTimes()
			i := sort.Search(len(list), func(i int) bool { return !list[i].Before(lo) })
			for ; i < len(list) && list[i].Before(hi); i++ {
				add(s.placeInstant(list[i]))
			}
			return
		}
		hi = minTime(hi, tail[len(tail)-1].Add(time.Nanosecond))
	}
	if r.until == untilUTC {
		hi = minTime(hi, r.untilTime.Add(time.Nanosecond))
	}
	step := r.step()
	n := 0
	if lo.After(t0) {
		n = max(0, int((lo.Unix()-t0.Unix())/int64(step/time.Second))-1)
	}
	end := hi.Add(time.Hour)
	for steps := 0; steps < maxSteps && s.spend(1); steps++ {
		t := r.stepAt(t0, n)
		if !t.Before(end) {
			return
		}
		if next, ok := s.skip(t0, t, n); ok {
			n = next
			continue
		}
		n++
		for _, c := range s.candidates(t) {
			if c.Before(t0) || c.Before(lo) || !c.Before(hi) || !s.matches(c) {
				continue
			}
			o := s.placeInstant(c)
			if !s.untilAllows(o) {
				return
			}
			add(o)
		}
	}
}

// stepAt returns the instant n steps after t0. A time.Duration holds only
// about 292 years, which n steps of a long INTERVAL exceed, so whole days
// are added on the UTC calendar (exact there) and the rest as a duration.
func (r *Rule) stepAt(t0 time.Time, n int) time.Time {
	minutes := int64(n) * int64(r.step()/time.Minute)
	if minutes < 100*365*1440 {
		return t0.Add(time.Duration(minutes) * time.Minute)
	}
	return t0.UTC().AddDate(0, 0, int(minutes/1440)).Add(time.Duration(minutes%1440) * time.Minute).In(t0.Location())
}

// maxSteps bounds one sub-daily scan, so a rule whose BYxxx parts never
// match cannot run for long.
const maxSteps = 2_000_000

func (r *Rule) step() time.Duration {
	if r.freq == Hourly {
		return time.Duration(r.interval) * time.Hour
	}
	return time.Duration(r.interval) * time.Minute
}

// candidates are the instants one sub-daily step yields before the limits:
// the step itself, or for HOURLY with BYMINUTE each listed minute of the
// step's local hour (zones with half-hour offsets included).
func (s Series) candidates(t time.Time) []time.Time {
	r := s.Rule
	if r.freq != Hourly || len(r.byMinute) == 0 {
		return []time.Time{t}
	}
	base := t.Add(-time.Duration(t.In(s.Zone.Location()).Minute()) * time.Minute)
	out := make([]time.Time, len(r.byMinute))
	for i, m := range r.byMinute {
		out[i] = base.Add(time.Duration(m) * time.Minute)
	}
	return out
}

// skip returns the index of the first step after step n (at t) that can
// match, when the local month, day or hour of t cannot: the step at or
// after the start of the next local month, day or hour. It makes a
// MINUTELY rule with day parts cost a step per day rather than per
// minute, so a search over SearchYears stays within MaxSearchWork.
func (s Series) skip(t0, t time.Time, n int) (int, bool) {
	r := s.Rule
	l := t.In(s.Zone.Location())
	var next time.Time
	switch {
	case len(r.byMonth) > 0 && !slices.Contains(r.byMonth, int(l.Month())):
		d := tz.DateOf(l)
		first := tz.Date{Year: d.Year, Month: d.Month, Day: 1}
		next = s.Zone.StartOfDay(first.AddDays(daysIn(d.Year, d.Month)))
	case !s.dayMatches(l):
		next = s.Zone.StartOfDay(tz.DateOf(l).AddDays(1))
	case len(r.byHour) > 0 && !slices.Contains(r.byHour, l.Hour()):
		// The next local :00 (zones with half-hour offsets included).
		next = t.Truncate(time.Minute).Add(time.Duration(60-l.Minute()) * time.Minute)
	default:
		return 0, false
	}
	stepSec := int64(r.step() / time.Second)
	k := int((next.Unix() - t0.Unix() + stepSec - 1) / stepSec)
	return max(k, n+1), true
}

// dayMatches applies the day parts of a sub-daily rule (BYMONTHDAY,
// BYYEARDAY, BYDAY) to the local reading l.
func (s Series) dayMatches(l time.Time) bool {
	r := s.Rule
	if len(r.byMonthDay) > 0 {
		dim := daysIn(l.Year(), l.Month())
		if !slices.Contains(r.byMonthDay, l.Day()) && !slices.Contains(r.byMonthDay, l.Day()-dim-1) {
			return false
		}
	}
	if len(r.byYearDay) > 0 {
		yl := time.Date(l.Year(), 12, 31, 0, 0, 0, 0, time.UTC).YearDay()
		if !slices.Contains(r.byYearDay, l.YearDay()) && !slices.Contains(r.byYearDay, l.YearDay()-yl-1) {
			return false
		}
	}
	if len(r.byDay) > 0 && !slices.ContainsFunc(r.byDay, func(d ByDay) bool { return d.Day == l.Weekday() }) {
		return false
	}
	return true
}

// matches applies the limiting BYxxx parts of a sub-daily rule to the wall
// clock of c in the series' zone.
func (s Series) matches(c time.Time) bool {
	r := s.Rule
	l := c.In(s.Zone.Location())
	if len(r.byMonth) > 0 && !slices.Contains(r.byMonth, int(l.Month())) {
		return false
	}
	if len(r.byMonthDay) > 0 {
		dim := time.Date(l.Year(), l.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
		if !slices.Contains(r.byMonthDay, l.Day()) && !slices.Contains(r.byMonthDay, l.Day()-dim-1) {
			return false
		}
	}
	if len(r.byYearDay) > 0 {
		yl := time.Date(l.Year(), 12, 31, 0, 0, 0, 0, time.UTC).YearDay()
		if !slices.Contains(r.byYearDay, l.YearDay()) && !slices.Contains(r.byYearDay, l.YearDay()-yl-1) {
			return false
		}
	}
	if len(r.byDay) > 0 && !slices.ContainsFunc(r.byDay, func(d ByDay) bool { return d.Day == l.Weekday() }) {
		return false
	}
	if len(r.byHour) > 0 && !slices.Contains(r.byHour, l.Hour()) {
		return false
	}
	if r.freq == Minutely && len(r.byMinute) > 0 && !slices.Contains(r.byMinute, l.Minute()) {
		return false
	}
	return true
}

// countKey identifies one COUNT expansion; the zone matters only for
// sub-daily rules, which step on instants.
type countKey struct {
	rule  *Rule
	start tz.Moment
	zone  string
}

// countCacheMax bounds countCache, tailCache and emptyCache.
const countCacheMax = 20000

// countCache keeps countTimes' lists.
var countCache = bounded.New[countKey, []time.Time](countCacheMax)

// countTimes returns every time a rule with COUNT produces, DTSTART first
// (it counts as the first occurrence, RFC 5545 §3.3.10): civil times read
// as UTC for DAILY and coarser rules, instants for sub-daily ones. COUNT
// must be counted from DTSTART, so the list is computed once and cached.
func (s Series) countTimes() []time.Time {
	r := s.Rule
	key := countKey{rule: r, start: s.Start}
	sub := r.freq > Daily && s.Start.HasTime
	if sub {
		key.zone = s.Zone.Name()
	}
	if v, ok := countCache.Get(key); ok {
		return v
	}
	var list []time.Time
	if sub {
		t0, _ := s.Zone.Instant(s.Start.DateTime)
		list = append(list, t0)
		never := s.neverMeets() // then the walk would find nothing in maxSteps
	scan:
		for n, steps := 0, 0; !never && steps < maxSteps && len(list) < r.count; n, steps = n+1, steps+1 {
			s.charge(1)
			if steps%ctxEvery == 0 && s.done() {
				// Cut short: the partial list is not cached.
				return list
			}
			t := r.stepAt(t0, n)
			if t.Year() > 9999 {
				break
			}
			if next, ok := s.skip(t0, t, n); ok {
				n = next - 1
				continue
			}
			for _, c := range s.candidates(t) {
				if c.After(t0) && s.matches(c) {
					list = append(list, c)
					if len(list) == r.count {
						break scan
					}
				}
			}
		}
	} else {
		start := civilOf(s.Start)
		list = s.countCivil(start)
		if len(list) == 0 || !list[0].Equal(start) {
			list = append([]time.Time{start}, list...)
			list = list[:min(len(list), r.count)]
		}
	}
	countCache.Put(key, list)
	return list
}

// countCivil returns the civil times (read as UTC) a DAILY or coarser rule
// with COUNT gives from start, at most COUNT and none after the year
// 9999, as rrule-go expands them; DTSTART is among them only when the
// rule itself gives it.
//
// The Gregorian calendar repeats every 400 years: 146,097 days, a whole
// number of weeks, with the same month lengths, weekdays and ISO weeks
// (RFC 5545 §3.3.10's BYxxx parts read nothing else). When a whole number
// of the rule's periods spans cycleYears, the times of each later span are
// the first span's moved on by that many years, so only the first span is
// expanded. A rule whose COUNT is reached late or never (FREQ=DAILY;
// BYMONTH=2;BYMONTHDAY=29;COUNT=3000 stops at the year 9999 with 1,934)
// then costs one span, 400 years for INTERVAL=1, instead of every period
// up to the year 9999: under 1 ms where it took 69 (BenchmarkCountSparse).
func (s Series) countCivil(start time.Time) []time.Time {
	r := s.Rule.asYearly()
	opt := r.options(start)
	opt.Count = r.count
	// Without UNTIL the library stops 2^63 ns (about 292 years) after
	// DTSTART, which would cut a long COUNT short.
	opt.Dtstart, opt.Until = start, lastCivil
	years, k := r.frame(start)
	if years > 0 {
		// The first span is expanded k spans later, near the year 9999:
		// the library walks on past UNTIL while no day matches, and stops
		// at the year 9999, so a rule that never matches costs at most
		// two spans.
		opt.Dtstart = start.AddDate(k*years, 0, 0)
		opt.Until = opt.Dtstart.AddDate(years, 0, 0).Add(-time.Nanosecond) // UNTIL is inclusive
	}
	var list []time.Time
	if rr, err := rrule.NewRRule(opt); err == nil {
		list = rr.All()
	}
	if k > 0 {
		for i, t := range list {
			list[i] = t.AddDate(-k*years, 0, 0)
		}
	}
	if len(list) == r.count {
		s.charge(r.walk(start, list[len(list)-1]) + int64(len(list)))
		return list
	}
	s.charge(r.walk(opt.Dtstart, lastCivil) + int64(len(list)))
	if years == 0 || len(list) == 0 {
		return list
	}
	out := make([]time.Time, len(list), r.count)
	copy(out, list)
	for n := years; ; n += years {
		for _, t := range list {
			t = t.AddDate(n, 0, 0)
			if t.After(lastCivil) {
				return out
			}
			out = append(out, t)
			if len(out) == r.count {
				return out
			}
		}
	}
}

// frame gives the span of a DAILY or coarser r's times that repeats
// (cycleYears) and how many spans after start the last whole one before
// the year 10000 begins: start moved on by k×years years gives the same
// times, moved on as much. years is 0 when no whole span fits.
func (r *Rule) frame(start time.Time) (years, k int) {
	years = r.cycleYears()
	if years == 0 || start.AddDate(years, 0, 0).After(lastCivil) {
		return 0, 0
	}
	k = (lastCivil.Year() - years - start.Year()) / years
	return years, k
}

// neverMeets reports whether the rule of s, UNTIL and COUNT aside, gives
// no time after DTSTART ever: its parts never meet on a day after it
// (FREQ=YEARLY;BYWEEKNO=1;BYMONTH=12;BYMONTHDAY=1, which no month-day
// check catches). The library walks on to the year 9999 while no day
// matches, so this looks from DTSTART's place in the last whole span
// before then: at most two spans (800 years), where a search from DTSTART
// walked 8,000 years for each window it tried; an HOURLY or MINUTELY rule
// is [Series.subDailyNeverMeets]'s. false when it cannot tell (no whole
// span fits before the year 10000), and without a look for a
// rule of INTERVAL=1 with at most one part that picks days (BYMONTH,
// BYWEEKNO, BYYEARDAY, BYMONTHDAY, BYDAY, or the day of DTSTART's month
// that a MONTHLY or YEARLY rule without a day part takes) and no
// BYSETPOS: each alone meets in some period (a 31st, a 366th day, a 53rd
// week), and most rules people write are such, so their check costs
// nothing more.
func (s Series) neverMeets() bool {
	r := s.Rule
	if r == nil || s.done() {
		return false // a done search tells nothing, and then stops at once
	}
	if r.freq > Daily && s.Start.HasTime {
		return s.subDailyNeverMeets()
	}
	parts := 0
	for _, n := range []int{len(r.byMonth), len(r.byWeekNo), len(r.byYearDay), len(r.byMonthDay), len(r.byDay)} {
		parts += min(n, 1)
	}
	if (r.freq == Monthly || r.freq == Yearly) && len(r.byWeekNo)+len(r.byYearDay)+len(r.byMonthDay)+len(r.byDay) == 0 {
		parts++ // the day of DTSTART's month (FREQ=YEARLY;BYMONTH=4 from a 31st never meets)
	}
	if r.interval == 1 && parts <= 1 && len(r.bySetPos) == 0 {
		return false
	}
	start := civilOf(s.Start)
	y := r.asYearly()
	years, k := y.frame(start)
	if years == 0 {
		return false
	}
	opt := y.options(start)
	from := start.AddDate(k*years, 0, 0)
	opt.Dtstart = from
	opt.Until = lastCivil // without it the library stops 292 years on
	rr, err := rrule.NewRRule(opt)
	if err != nil {
		return false
	}
	next := rr.Iterator()
	for c, ok := next(); ok; c, ok = next() {
		if c.After(from) {
			s.charge(y.walk(from, c))
			return false
		}
	}
	s.charge(y.walk(from, lastCivil))
	return true
}

// asYearly returns r, or for a DAILY or WEEKLY rule of INTERVAL=1 that
// picks its days with BYDAY (or, DAILY, BYMONTHDAY), and maybe BYMONTH,
// without BYSETPOS, the same rule as FREQ=YEARLY: it gives the same
// times (every day of the year passing the same filters, at the same
// hours), and the library finds them a year at a time, about ten times
// faster than a day or a week at a time. BYSETPOS would pick within a
// year instead of within a day or week, a YEARLY rule with no day part
// takes DTSTART's day, and INTERVAL counts days or weeks, so those stay.
func (r *Rule) asYearly() *Rule {
	if r.interval != 1 || len(r.bySetPos) > 0 {
		return r
	}
	if !(r.freq == Daily && len(r.byMonthDay)+len(r.byDay) > 0) && !(r.freq == Weekly && len(r.byDay) > 0) {
		return r
	}
	y := *r
	y.freq = Yearly
	return &y
}

// cycleYears is the number of years, a multiple of 400, that a whole
// number of r's periods (INTERVAL × FREQ, FREQ DAILY or coarser) spans:
// 400 × INTERVAL / gcd(INTERVAL, periods in 400 years). 0 when that is
// past any year a rule can reach, or for a sub-daily FREQ.
func (r *Rule) cycleYears() int {
	var per int // periods of the FREQ in 400 years
	switch r.freq {
	case Yearly:
		per = 400
	case Monthly:
		per = 4800
	case Weekly:
		per = 146097 / 7
	case Daily:
		per = 146097
	default:
		return 0
	}
	if k := r.interval / int(gcd(int64(r.interval), int64(per))); k <= 25 {
		return 400 * k
	}
	return 0
}

// subDailyNeverMeets is neverMeets for an HOURLY or MINUTELY rule, which
// steps on instants: true when its day parts never meet on a day after
// DTSTART's (as a DAILY rule of those parts), or when no step can read
// an hour (BYHOUR) and minute (MINUTELY's BYMINUTE) the rule asks for on
// the wall clock: FREQ=MINUTELY;INTERVAL=60;BYMINUTE=30 from 09:00 reads
// :00 at every step. The steps fall on a few instants of the UTC day
// (every gcd(step, 86400)th second from DTSTART's), read at each offset
// (in seconds, as old offsets such as −0:44:30 have them) the zone takes
// from DTSTART to the end of a search (SearchYears on); a pair of them
// that is allowed means it may meet. A search that never meets walked
// MaxSearchWork steps, about 300 ms, for nothing.
func (s Series) subDailyNeverMeets() bool {
	r := s.Rule
	if len(r.bySetPos) > 0 {
		return false
	}
	t0, _ := s.Zone.Instant(s.Start.DateTime)
	if len(r.byMonth)+len(r.byMonthDay)+len(r.byYearDay)+len(r.byDay) > 0 {
		days := &Rule{freq: Daily, interval: 1, wkst: r.wkst, byMonth: r.byMonth, byMonthDay: r.byMonthDay, byYearDay: r.byYearDay, byDay: r.byDay}
		d := Series{Start: tz.DayMoment(s.Start.Date), Zone: s.Zone, Rule: days, work: s.work}
		if d.neverMeets() { // DTSTART's day too: it would recur 400 years on
			return true
		}
	}
	minutes := r.freq == Minutely && len(r.byMinute) > 0
	if (len(r.byHour) == 0 && !minutes) || (r.freq == Hourly && len(r.byMinute) > 0) {
		// An HOURLY step with BYMINUTE gives times of its local hour,
		// whose hour a change of offset within it may move.
		return false
	}
	// In seconds, with floor division: before 1970 instants are negative,
	// and old offsets have seconds (Monrovia's −0:44:30).
	g := gcd(int64(r.step()/time.Second), 86400)
	if g == 60 || (g == 3600 && !minutes) {
		return false // every minute, or every hour, of the day is stepped on
	}
	offsets, ok := s.offsetsFrom(t0, s.searchEnd(t0))
	if !ok {
		return false
	}
	first := floorMod(t0.Unix(), g)
	for _, o := range offsets {
		for at := first; at < 86400; at += g {
			local := floorMod(at+o, 86400)
			if len(r.byHour) > 0 && !slices.Contains(r.byHour, int(local/3600)) {
				continue
			}
			if minutes && !slices.Contains(r.byMinute, int(local%3600/60)) {
				continue
			}
			return false
		}
	}
	return true
}

// gcd is the greatest common divisor of a and b (Euclid's algorithm).
func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// floorMod is a mod m in [0, m), for negative a too.
func floorMod(a, m int64) int64 { return (a%m + m) % m }

// offsetsFrom gives the offsets from UTC, in seconds, that s's zone takes
// from t to end; ok is false past 4,096 periods (Go's ZoneBounds; past
// the zone's table, each year is at least one).
func (s Series) offsetsFrom(t, end time.Time) (offsets []int64, ok bool) {
	loc := s.Zone.Location()
	for range 4096 {
		_, off := t.In(loc).Zone()
		if !slices.Contains(offsets, int64(off)) {
			offsets = append(offsets, int64(off))
		}
		_, next := t.In(loc).ZoneBounds()
		if next.IsZero() || next.After(end) {
			return offsets, true
		}
		if !next.After(t) {
			// Past its table Go reads a zone's rule a year at a time, and
			// near the turn of the table's last year it gives the instant
			// itself as the end. No zone changes offset twice in a day.
			next = t.Add(24 * time.Hour)
		}
		t = next
	}
	return nil, false
}
