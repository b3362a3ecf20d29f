package recur

import (
	"context"
	"slices"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// Series is one recurring item (an event, a repeating task): its DTSTART,
// the zone it lives in, an optional rule, EXDATEs, RDATEs and the length of
// each occurrence (RFC 5545 §3.8.5).
//
// DTSTART is always the first occurrence (RFC 5545 §3.8.5.3) and counts
// toward COUNT, even when the rule itself would not produce it.
//
// A Series is a plain value; build it from stored fields and call Check
// before keeping it. Its methods never read the process clock or TZ.
type Series struct {
	// Start is DTSTART: a date for an all-day series, or a civil date-time
	// read in Zone (its Fold set when it is the later of two equal clock
	// times, which then holds for DTSTART alone).
	Start tz.Moment
	// Zone is the IANA zone the series repeats in (its TZID). DAILY and
	// coarser rules keep the wall-clock time of Start in this zone across
	// DST changes. All-day occurrences begin at 00:00 of their day here.
	// The zero Zone is UTC.
	Zone tz.Zone
	// Rule is the RRULE, or nil for a single item with optional RDATEs.
	Rule *Rule
	// ExDates are EXDATEs as moments in Zone. A timed one removes the
	// occurrence at that instant; a date removes every occurrence whose
	// original start falls on that day (RFC 5545 §3.8.5.1). An instant
	// written in UTC is converted with Zone.In first.
	ExDates []tz.Moment
	// RDates are RDATEs as moments in Zone (RFC 5545 §3.8.5.2). In a timed
	// series a date-only RDATE takes the clock time of Start. RDATEs are
	// not counted by COUNT and not cut by UNTIL.
	RDates []tz.Moment
	// Duration is the length of each occurrence (DTEND − DTSTART). For an
	// all-day series it is rounded to whole days, at least one, and each
	// occurrence ends at 00:00 of the day after its last day.
	Duration time.Duration

	work *work           // counts (and for After bounds) the iterations of a search
	ctx  context.Context // when done, searches stop (see WithContext)
}

// WithContext returns s whose searches for occurrences (After, All,
// CheckOccurs) stop soon after ctx is done, as if they had found nothing;
// CheckOccurs then returns ctx's error. Listing a window is not stopped:
// it is bounded by the window.
func (s Series) WithContext(ctx context.Context) Series {
	s.ctx = ctx
	return s
}

// newWork gives a search its own iteration budget, stopped by s's context.
func (s Series) newWork() *work { return &work{limit: MaxSearchWork, ctx: s.ctx} }

// Occurrence is one instance of a Series.
type Occurrence struct {
	// Original is the start as the rule (or RDATE) produced it, before any
	// DST adjustment: the RECURRENCE-ID of this occurrence (RFC 5545
	// §3.8.4.4), a date for all-day series. For HOURLY and MINUTELY rules
	// it is the wall-clock reading of Start.
	Original tz.Moment
	// Start and End are instants in the series' zone. End is Start plus
	// the duration (all-day: 00:00 of the day after the last day).
	Start, End time.Time
	// Moved is true when Original does not exist in the zone (a DST gap)
	// and Start was moved forward by the gap's length (RFC 5545 §3.3.5).
	Moved bool
	// AllDay is true for occurrences of an all-day series.
	AllDay bool
}

// Key returns the occurrence's RECURRENCE-ID as the tools quote it in
// occurrence ids (e7@20261005T070000Z): the start instant in RFC 5545 UTC form, "20261005T070000Z",
// or the date, "20261005", for an all-day series.
func (o Occurrence) Key() string {
	if o.AllDay {
		return o.Original.Date.Basic()
	}
	return tz.FromUTCClock(o.Start).Basic() + "Z"
}

// Check reports the first problem that would make the series meaningless,
// as one sentence naming the argument: no start (“start”), a sub-daily rule
// on an all-day series (“rrule”), a timed RDATE on an all-day series
// (“rdates”), a negative duration (“duration”).
func (s Series) Check() error {
	if s.Start.Date.IsZero() {
		return fail("“start” is required: write a day (2026-10-05) or a day and a time (2026-10-05T09:00).")
	}
	if _, ok := tz.NewDate(s.Start.Year, s.Start.Month, s.Start.Day); !ok {
		return fail("“start” is not a real day: %s.", s.Start)
	}
	if s.Duration < 0 {
		return fail("“duration” cannot be negative; give the length in minutes, such as 60.")
	}
	if err := s.checkHeld(); err != nil {
		return err
	}
	if s.Rule != nil && !s.Start.HasTime && s.Rule.freq > Daily {
		return fail("“rrule” repeats %s, but an all-day item can repeat at most DAILY; give “start” a time or use FREQ=DAILY.", s.Rule.freq)
	}
	if !s.Start.HasTime {
		for _, m := range s.RDates {
			if m.HasTime {
				return fail("“rdates” has the time %s, but this item is all-day; write the day alone (%s).", m, m.Date)
			}
		}
	}
	return nil
}

// checkHeld refuses a DTSTART or RDATE whose occurrence starts or ends
// outside the calendar ([tz.FirstInstant] to [tz.LastInstant], in UTC and
// in the series' zone): its text would need a five-digit year.
func (s Series) checkHeld() error {
	first := s.place(civilOf(s.Start))
	if err := s.held("start", s.Start, first); err != nil {
		return err
	}
	for _, m := range s.RDates {
		if _, ok := tz.NewDate(m.Year, m.Month, m.Day); !ok {
			return fail("“rdates” has %s, which is not a real day.", m)
		}
		if err := s.held("rdates", m, s.placeRDate(m)); err != nil {
			return err
		}
	}
	return nil
}

// held gives the sentence for an occurrence o (from argument name's
// moment m) that the calendar cannot hold, or nil.
func (s Series) held(name string, m tz.Moment, o Occurrence) error {
	zone := "UTC or in " + s.Zone.Name()
	if s.Zone.Name() == "UTC" {
		zone = "UTC"
	}
	switch {
	case !s.Zone.Holds(o.Start) && o.Start.Before(tz.FirstInstant.Add(24*time.Hour)):
		return fail("“%s” %s falls before 0001-01-01T00:00 (in %s), the first moment the calendar holds; write a later one.", name, m, zone)
	case !s.Zone.Holds(o.Start):
		return fail("“%s” %s falls after 9999-12-31T23:59:59 (in %s), the last moment the calendar holds; write an earlier one.", name, m, zone)
	case !s.Zone.Holds(o.End) && !m.HasTime && m.Date == (tz.Date{Year: 9999, Month: 12, Day: 31}):
		// A day's end is the next midnight: on the last day the
		// calendar holds, that is in the year 10000.
		return fail("“%s” %s is the calendar's last day: its end, the midnight after it, falls after 9999-12-31T23:59:59 (in %s), the last moment the calendar holds; write an earlier day.", name, m, zone)
	case !s.Zone.Holds(o.End) && !m.HasTime:
		return fail("“%s” %s runs, with its length, through 9999-12-31, the calendar's last day, whose end (the midnight after it) falls after 9999-12-31T23:59:59 (in %s), the last moment the calendar holds; end it by 9999-12-30, or write an earlier day.", name, m, zone)
	case !s.Zone.Holds(o.End):
		return fail("“%s” %s ends after 9999-12-31T23:59:59 (in %s), the last moment the calendar holds; write an earlier one or a shorter length.", name, m, zone)
	}
	return nil
}

// allDayDays is the number of days each all-day occurrence covers.
func (s Series) allDayDays() int {
	return max(1, int((s.Duration+12*time.Hour)/(24*time.Hour)))
}

// span is the longest an occurrence can last, to widen a window's lower
// edge when looking for occurrences that overlap it.
func (s Series) span() time.Duration {
	if !s.Start.HasTime {
		return time.Duration(s.allDayDays())*24*time.Hour + 2*time.Hour
	}
	return s.Duration
}

// civil is a civil time read as UTC (tz.DateTime.AsUTC); the all-day form
// is the date at 00:00.
func civilOf(m tz.Moment) time.Time { return m.DateTime.AsUTC() }

// place turns a civil time of the series into an occurrence.
func (s Series) place(c time.Time) Occurrence {
	if !s.Start.HasTime {
		d := tz.DateOf(c)
		return Occurrence{
			Original: tz.DayMoment(d),
			Start:    s.Zone.StartOfDay(d),
			End:      s.Zone.StartOfDay(d.AddDays(s.allDayDays())),
			AllDay:   true,
		}
	}
	dt := tz.FromUTCClock(c)
	if s.Start.Fold && dt == s.Start.Clock() {
		// DTSTART written as the second of two equal clock times keeps
		// its instant; the rule's later times are read by RFC 5545 §3.3.5.
		dt = s.Start.DateTime
	}
	t, moved := s.Zone.Instant(dt)
	return Occurrence{Original: tz.TimeMoment(dt), Start: t, End: t.Add(s.Duration), Moved: moved}
}

// placeInstant is place for sub-daily rules, which produce instants.
func (s Series) placeInstant(t time.Time) Occurrence {
	t = t.In(s.Zone.Location())
	return Occurrence{Original: tz.TimeMoment(s.Zone.In(t)), Start: t, End: t.Add(s.Duration)}
}

// placeRDate turns an RDATE into an occurrence. In a timed series a
// date-only RDATE takes the clock time of Start; a timed RDATE keeps its
// Fold, so one written as the later of two equal clock times (an instant
// in the repeated hour of a fall-back change) keeps its instant.
func (s Series) placeRDate(m tz.Moment) Occurrence {
	if s.Start.HasTime && !m.HasTime {
		m = tz.TimeMoment(m.Date.At(s.Start.Hour, s.Start.Minute))
	}
	if !s.Start.HasTime || !m.Fold {
		return s.place(civilOf(m))
	}
	t, moved := s.Zone.Instant(m.DateTime)
	return Occurrence{Original: m, Start: t, End: t.Add(s.Duration), Moved: moved}
}

// exclusion is a series' EXDATEs as sets: a date EXDATE removes that
// day's occurrences, a timed one the occurrence at its instant (an
// all-day occurrence, that day's). Read one by one, 10,000 EXDATEs on a
// MINUTELY rule made a day's listing compare each of 1,440 occurrences
// with every one of them (seconds a call).
type exclusion struct {
	days      map[tz.Date]struct{}  // of the EXDATEs without a time
	timedDays map[tz.Date]struct{}  // of those with one, for all-day occurrences
	instants  map[[2]int64]struct{} // of those with one: Unix seconds, nanoseconds
}

// exclusion is s's EXDATEs as an [exclusion], nil when it has none.
func (s Series) exclusion() *exclusion {
	if len(s.ExDates) == 0 {
		return nil
	}
	x := &exclusion{days: map[tz.Date]struct{}{}, timedDays: map[tz.Date]struct{}{}, instants: map[[2]int64]struct{}{}}
	for _, m := range s.ExDates {
		if !m.HasTime {
			x.days[m.Date] = struct{}{}
			continue
		}
		x.timedDays[m.Date] = struct{}{}
		t, _ := s.Zone.Instant(m.DateTime)
		x.instants[[2]int64{t.Unix(), int64(t.Nanosecond())}] = struct{}{}
	}
	return x
}

// has reports whether an EXDATE of the series x was made from removes o.
func (x *exclusion) has(o Occurrence) bool {
	if x == nil {
		return false
	}
	if _, ok := x.days[o.Original.Date]; ok {
		return true
	}
	if o.AllDay {
		_, ok := x.timedDays[o.Original.Date]
		return ok
	}
	_, ok := x.instants[[2]int64{o.Start.Unix(), int64(o.Start.Nanosecond())}]
	return ok
}

// starts returns the occurrences whose start lies in [lo, hi), EXDATEs
// applied, sorted by start, one per instant.
func (s Series) starts(lo, hi time.Time) []Occurrence {
	if !lo.Before(hi) {
		return nil
	}
	var out []Occurrence
	ex := s.exclusion()
	add := func(o Occurrence) {
		// An occurrence reaching past the calendar's end (or before its
		// start) is not given: its id would need a five-digit year.
		if !o.Start.Before(lo) && o.Start.Before(hi) && s.Zone.Holds(o.Start) && s.Zone.Holds(o.End) && !ex.has(o) {
			out = append(out, o)
		}
	}
	first := s.place(civilOf(s.Start))
	add(first)
	if s.Rule != nil {
		if s.Rule.freq > Daily && s.Start.HasTime {
			s.subDaily(lo, hi, first.Start, add)
		} else {
			s.civil(lo, hi, add)
		}
	}
	for _, m := range s.RDates {
		add(s.placeRDate(m))
	}
	if len(out) < 2 {
		return out
	}
	slices.SortStableFunc(out, func(a, b Occurrence) int { return a.Start.Compare(b.Start) })
	return slices.CompactFunc(out, func(a, b Occurrence) bool { return a.Start.Equal(b.Start) })
}

// Between returns the occurrences that overlap the half-open window
// [from, to): Start < to and End > from; an occurrence with no duration
// matches when from ≤ Start < to, as every list's window does
// (docs/design.md, "Time"). Sorted by Start.
func (s Series) Between(from, to time.Time) []Occurrence {
	occ := s.starts(from.Add(-s.span()), to)
	return slices.DeleteFunc(occ, func(o Occurrence) bool {
		return o.Start.Before(from) && !o.End.After(from)
	})
}

// StartsBetween returns the occurrences whose start lies in [from, to),
// sorted by Start.
func (s Series) StartsBetween(from, to time.Time) []Occurrence { return s.starts(from, to) }

// endOfTime is where searches give up: the library does not go past 9999.
var endOfTime = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// maxSpan is the widest window After and All expand at once.
const maxSpan = 100 * 365 * 24 * time.Hour

// After returns the first occurrence that starts strictly after t, and
// false when there is none: the series ended, nothing occurs before the
// year 9999, or none was found within SearchYears (plus one INTERVAL) or
// MaxSearchWork iterations, as for a rule that never occurs.
func (s Series) After(t time.Time) (Occurrence, bool) {
	_, last, bounded := s.Bounds()
	if s.work == nil {
		s.work = s.newWork()
	}
	lo := t.Add(time.Nanosecond)
	if first := s.First(); lo.Before(first) {
		lo = first // nothing starts before it
	}
	end := minTime(endOfTime, s.searchEnd(lo))
	key, empty, known := s.knownEmpty()
	if known && !lo.Before(empty.from) && lo.Before(empty.to) {
		lo = empty.to // searched before, with nothing found
	}
	span := 8 * 24 * time.Hour
	for lo.Before(end) && (!bounded || !lo.After(last)) && s.spend(1) {
		hi := lo.Add(span)
		if occ := s.starts(lo, hi); len(occ) > 0 {
			return occ[0], true
		}
		lo = hi
		// Grown before it is capped: span*4 of the cap would overflow.
		span = min(span, maxSpan/4) * 4
	}
	from := t.Add(time.Nanosecond)
	if known && !from.Before(empty.from) && !from.After(empty.to) {
		from = empty.from
	}
	rememberEmpty(key, emptySpan{from: from, to: lo})
	return Occurrence{}, false
}

// All returns the first limit occurrences (all of them when the series has
// fewer). limit must be positive: a never-ending series has no end. Like
// After, it gives up past SearchYears after the last occurrence found, or
// past MaxSearchWork iterations, plus the work of the occurrences found.
func (s Series) All(limit int) []Occurrence {
	if limit <= 0 {
		return nil
	}
	first, last, bounded := s.Bounds()
	if s.work == nil {
		s.work = s.newWork()
	}
	var out []Occurrence
	lo := first
	end := minTime(endOfTime, s.searchEnd(lo))
	span := 32 * 24 * time.Hour
	for len(out) < limit && lo.Before(end) && (!bounded || !lo.After(last)) && s.spend(1) {
		hi := lo.Add(span)
		if found := s.starts(lo, hi); len(found) > 0 {
			out = append(out, found...)
			// What was found paid its way: the bounds start again from it.
			s.work.n = 0
			end = minTime(endOfTime, s.searchEnd(found[len(found)-1].Start))
		}
		lo = hi
		span = min(span, maxSpan/2) * 2
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// First returns the start of the first possible occurrence: DTSTART's, or
// an earlier RDATE's. Nothing starts before it; a search from further back
// may begin there (a window reaching from 1900 over a MINUTELY series
// otherwise held every minute from its start on).
func (s Series) First() time.Time {
	first := s.place(civilOf(s.Start)).Start
	for _, m := range s.RDates {
		if o := s.placeRDate(m); o.Start.Before(first) {
			first = o.Start
		}
	}
	return first
}

// Bounds returns the start of the first possible occurrence and the end of
// the last possible one, for a store to skip series that cannot touch a
// window: the series can overlap [from, to) only if first < to and, when
// bounded, last > from (last ≥ from for zero-length occurrences).
// A never-ending series is not bounded and last is the zero time. The
// bounds ignore EXDATEs and use UNTIL itself rather than the last
// occurrence before it, so they may be wider than the occurrences, never
// narrower. With COUNT, rules whose periods each give the same number of
// times expand only DTSTART's period and the one holding the COUNT-th
// time; other rules are expanded once in full (and cached).
func (s Series) Bounds() (first, last time.Time, bounded bool) {
	f := s.place(civilOf(s.Start))
	first, last = f.Start, f.End
	for _, m := range s.RDates {
		o := s.placeRDate(m)
		if o.Start.Before(first) {
			first = o.Start
		}
		if o.End.After(last) {
			last = o.End
		}
	}
	if s.Rule == nil {
		return first, last, true
	}
	r := s.Rule
	var ruleLast time.Time
	switch {
	case r.count > 0:
		tail, ok := s.countTail()
		if !ok {
			list := s.countTimes()
			tail = list[max(0, len(list)-2):]
		}
		// A gap can reorder the last two civil times by the gap's length.
		for _, c := range tail {
			o := s.place(c)
			if r.freq > Daily && s.Start.HasTime {
				o = s.placeInstant(c)
			}
			if o.End.After(ruleLast) {
				ruleLast = o.End
			}
		}
	case r.until != untilNone:
		ruleLast = s.untilEnd()
	default:
		return first, time.Time{}, false
	}
	if ruleLast.After(last) {
		last = ruleLast
	}
	return first, last, true
}

// untilEnd is the latest end an occurrence allowed by UNTIL can have.
func (s Series) untilEnd() time.Time {
	r := s.Rule
	var t time.Time
	switch {
	case !s.Start.HasTime:
		d := r.untilCivil.Date
		if r.until == untilUTC {
			d = s.Zone.Today(r.untilTime)
		}
		return s.Zone.StartOfDay(d.AddDays(s.allDayDays()))
	case r.until == untilUTC:
		t = r.untilTime
	case r.until == untilLocal:
		// A gap can move the last occurrence forward by the gap's length.
		t, _ = s.Zone.Instant(r.untilCivil)
		t = t.Add(3 * time.Hour)
	default:
		t = s.Zone.StartOfDay(r.untilCivil.Date.AddDays(1))
	}
	return t.Add(s.Duration)
}

// untilAllows applies UNTIL to an occurrence of the rule.
func (s Series) untilAllows(o Occurrence) bool {
	r := s.Rule
	switch r.until {
	case untilUTC:
		if o.AllDay {
			return !o.Original.Date.After(s.Zone.Today(r.untilTime))
		}
		return !o.Start.After(r.untilTime)
	case untilLocal:
		if o.AllDay {
			return !o.Original.Date.After(r.untilCivil.Date)
		}
		return o.Original.DateTime.Compare(r.untilCivil) <= 0
	case untilDate:
		return !o.Original.Date.After(r.untilCivil.Date)
	}
	return true
}
