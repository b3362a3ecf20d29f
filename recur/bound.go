package recur

import (
	"context"
	"fmt"
	"time"

	"github.com/assistant-dev/assistant/internal/bounded"
	"github.com/assistant-dev/assistant/tz"
)

// MaxSearchWork bounds one search for the next occurrence (Series.After):
// the iterations it may spend, counted as the days of the periods the
// expansion walks through plus the times it looks at, and for HOURLY and MINUTELY rules
// every step (two million minutes are under four years). A
// rule whose next occurrence is not found within it, or within
// SearchYears, is treated as having none: a rule that can never occur
// ("FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2", which the tools refuse but an
// older database may hold) ends the search instead of holding it forever.
const MaxSearchWork = 2_000_000

// SearchYears bounds how far after its starting point a search for the
// next occurrence looks, beyond one INTERVAL of the rule: the Gregorian
// calendar repeats every 400 years, so a rule that gives nothing in that
// time (with INTERVAL=1) never will.
const SearchYears = 400

// searchEnd is where a search for the next occurrence after t gives up.
func (s Series) searchEnd(t time.Time) time.Time {
	from := s.place(civilOf(s.Start)).Start
	if t.After(from) {
		from = t
	}
	years := SearchYears
	if s.Rule != nil {
		switch s.Rule.freq {
		case Yearly:
			years += s.Rule.interval
		case Monthly:
			years += s.Rule.interval/12 + 1
		}
	}
	if from.Year()+years > 9999 {
		return endOfTime
	}
	return from.AddDate(years, 0, 0)
}

// work counts the iterations spent by one search; limit 0 only counts.
type work struct {
	n, limit int64
	over     bool            // a spend was refused: the search gives up
	ctx      context.Context // when done, every spend is refused
	calls    int             // spends since ctx was last looked at
}

// done reports whether the search's context (Series.WithContext) is done.
func (s Series) done() bool { return s.ctxErr() != nil }

// ctxErr is the error of the search's context, nil while it runs.
func (s Series) ctxErr() error {
	switch {
	case s.ctx != nil:
		return s.ctx.Err()
	case s.work != nil && s.work.ctx != nil:
		return s.work.ctx.Err()
	}
	return nil
}

// ctxEvery is how many spends pass between looks at a search's context.
const ctxEvery = 64

// spend reports whether s may spend n more iterations and counts them; a
// refusal ends the search (every later spend is refused too).
func (s Series) spend(n int64) bool {
	w := s.work
	if w == nil {
		return true
	}
	if w.over || w.limit > 0 && w.n+n > w.limit {
		w.over = true
		return false
	}
	if w.ctx != nil {
		if w.calls%ctxEvery == 0 && w.ctx.Err() != nil {
			w.over = true
			return false
		}
		w.calls++
	}
	w.n += n
	return true
}

// charge counts n iterations already spent on work that is cached for
// every caller and so is never cut short (bounded on its own).
func (s Series) charge(n int64) {
	if s.work != nil {
		s.work.n += n
	}
}

// walk is the work rrule-go's own loop does from a to b (civil times read
// as UTC) for a DAILY or coarser rule, at least one: it visits each period
// (INTERVAL × FREQ) and builds the set of its days, whether or not any day
// gives a time, so each period counts its days.
func (r *Rule) walk(a, b time.Time) int64 {
	if !b.After(a) {
		return 1
	}
	var periods, size int64
	switch r.freq {
	case Yearly:
		periods, size = int64(b.Year()-a.Year()), 366
	case Monthly:
		periods, size = int64((b.Year()-a.Year())*12+int(b.Month())-int(a.Month())), 31
	case Weekly:
		periods, size = (b.Unix()-a.Unix())/(7*86400), 7
	default:
		periods, size = (b.Unix()-a.Unix())/86400, 1
	}
	return (periods/int64(r.interval) + 1) * size
}

// CheckOccurs refuses, as one sentence naming “rrule” with what to write
// instead, a rule that gives nothing after DTSTART, which RFC 5545 keeps
// as a series of one but a person never means: an UNTIL before DTSTART,
// a COUNT the rule cannot reach before the year 9999, and a rule whose
// parts never meet after DTSTART (within MaxSearchWork). It judges the
// rule alone: EXDATEs that remove every later occurrence leave a rule
// that repeats (the export of a series whose later occurrences were
// deleted one by one is such a series), and RDATEs add none to it. Tools
// call it when a rule is written, after Check; stored and imported
// series are not refused but end where their occurrences do.
func (s Series) CheckOccurs() error { return s.checkOccurs(true) }

// checkOccurs is CheckOccurs; fast false leaves out its shortcuts (the
// next occurrence taken without a search), for the test that compares
// them with the search.
func (s Series) checkOccurs(fast bool) error {
	r := s.Rule
	if r == nil {
		return nil
	}
	s.ExDates, s.RDates = nil, nil
	if !r.yearDaysInMonths() {
		return ruleErr("can never occur: no day in BYYEARDAY falls in the months of BYMONTH; write the days of those months (BYMONTHDAY) instead, or leave BYMONTH out (the last day of a year is BYYEARDAY=-1).")
	}
	first := s.place(civilOf(s.Start))
	if r.until != untilNone {
		ends := false
		switch {
		case r.until == untilUTC && s.Start.HasTime:
			ends = r.untilTime.Before(first.Start)
		case r.until == untilUTC:
			ends = s.Zone.Today(r.untilTime).Before(s.Start.Date)
		case r.until == untilDate || !s.Start.HasTime:
			ends = r.untilCivil.Date.Before(s.Start.Date)
		default:
			ends = r.untilCivil.Compare(s.Start.DateTime) < 0
		}
		if ends {
			return onlyStart(fail("“rrule” ends (UNTIL=%s) before its start %s, so it never repeats; write an UNTIL on or after the start, such as UNTIL=%s, or leave “rrule” out for a single item.",
				r.untilText(), s.Start, s.suggestUntil()))
		}
	}
	if r.count > 1 {
		if _, ok := s.countTail(); !ok {
			list := s.countTimes()
			got := len(list)
			if err := s.ctxErr(); err != nil {
				return err
			}
			if got < r.count && got > 1 {
				// (With DTSTART alone, the checks below say why the rule
				// gives nothing after it.)
				return fail("“rrule” has COUNT=%d, but only %d occurrences fall before the year 10000; write COUNT=%d or less, or a smaller INTERVAL.", r.count, got, max(got, 1))
			}
			if got >= 2 && list[1].Sub(list[0]) < nearNext && list[1].Year() < 9999 && fast {
				// COUNT's second time is the next occurrence, near
				// enough that the search below would find it at once
				// (and not in the calendar's last year, where an
				// occurrence may end past it and not be kept).
				return nil
			}
		}
	}
	if r.count == 1 {
		return nil
	}
	if next, ok := s.plainNext(); ok && fast && next.Start.Sub(first.Start) < nearNext && s.untilAllows(next) {
		// The same occurrence the search below would find first.
		return nil
	}
	// The same bounded search that finds the next occurrence for the
	// tools and reminders decides, so the check never disagrees with it;
	// a rule that never meets gives nothing to any search, and is told
	// without one.
	never := s.neverMeets()
	if !never {
		if _, ok := s.After(first.Start); ok {
			return nil
		}
	}
	if err := s.ctxErr(); err != nil {
		return err
	}
	if r.until != untilNone {
		suggest := s.suggestUntil()
		open := *r
		open.until = untilNone
		o := s
		o.Rule, o.work = &open, nil // a search of its own, stopped by the same context
		if next, ok := o.afterUnlessNever(first.Start, never); ok {
			return onlyStart(fail("“rrule” ends (UNTIL=%s) before its second occurrence (%s), so it never repeats; write a later UNTIL, such as UNTIL=%s, or leave “rrule” out for a single item.",
				r.untilText(), next.Original, suggest))
		}
	}
	if !never && s.Start.Year > 9999-SearchYears {
		// The search ran into the calendar's end, not into BY parts
		// that never meet nor an INTERVAL that skips them. The first
		// occurrence is a task's due or an event's start.
		if err := s.ctxErr(); err != nil {
			return err
		}
		return onlyStart(fail("“rrule” %s gives no occurrence after its first, %s, before the calendar ends on 9999-12-31; write an earlier first occurrence, or leave “rrule” out for a single item.",
			r.String(), s.Start))
	}
	if r.interval > 1 {
		one := *r
		one.interval, one.count, one.until = 1, 0, untilNone
		o := s
		o.Rule, o.work = &one, nil
		if next, ok := o.afterUnlessNever(first.Start, o.neverMeets()); ok {
			return fail("“rrule” %s gives no occurrence within %d years after its start %s: its INTERVAL=%d skips every period that holds a day meeting its BY parts (with INTERVAL=1 the next is %s); write a smaller INTERVAL, or a start in a period that has such a day.",
				r.String(), SearchYears, s.Start, r.interval, next.Original)
		}
	}
	if err := s.ctxErr(); err != nil {
		return err
	}
	return fail("“rrule” %s gives no occurrence within %d years after its start %s: no day meets all of its BY parts together; write fewer of them (for the last day of a month BYMONTHDAY=-1, for the last day of a year BYYEARDAY=-1 without BYMONTH).",
		r.String(), SearchYears, s.Start)
}

// nearNext is how far after DTSTART the next occurrence may be for
// CheckOccurs to take it without a search: far below SearchYears, so the
// search that finds the next occurrence for the tools finds it too.
const nearNext = 366 * 24 * time.Hour

// plainNext is the occurrence after DTSTART of a DAILY or WEEKLY rule
// with no BYxxx part, which is DTSTART's civil time INTERVAL days or weeks
// on (RFC 5545 §3.3.10: the parts left out take DTSTART's values), UNTIL
// and COUNT aside; false for any other rule, or near the calendar's end.
func (s Series) plainNext() (Occurrence, bool) {
	r := s.Rule
	if r.freq != Daily && r.freq != Weekly || len(r.byDay) > 0 ||
		len(r.bySetPos)+len(r.byMonth)+len(r.byMonthDay)+len(r.byYearDay)+len(r.byWeekNo)+len(r.byHour)+len(r.byMinute) > 0 {
		return Occurrence{}, false
	}
	days := r.interval
	if r.freq == Weekly {
		days *= 7
	}
	next := civilOf(s.Start).AddDate(0, 0, days)
	if next.Year() > 9998 {
		return Occurrence{}, false
	}
	return s.place(next), true
}

// afterUnlessNever is After(t), without a search when never says the
// rule never meets ([Series.neverMeets]).
func (s Series) afterUnlessNever(t time.Time, never bool) (Occurrence, bool) {
	if never {
		return Occurrence{}, false
	}
	return s.After(t)
}

// onlyStart marks err (an [*Error]) as [Error.OnlyStart].
func onlyStart(err error) error {
	err.(*Error).OnlyStart = true
	return err
}

// untilText is UNTIL as the canonical text writes it.
func (r *Rule) untilText() string {
	switch r.until {
	case untilDate:
		return r.untilCivil.Date.Basic()
	case untilLocal:
		return r.untilCivil.Basic()[:13] + fmt.Sprintf("%02d", r.untilSec)
	}
	return r.untilTime.Format("20060102T150405Z")
}

// suggestUntil is an UNTIL a year after DTSTART, in the form the rule
// wrote its own.
func (s Series) suggestUntil() string {
	d := s.Start.Date
	next, ok := tz.NewDate(d.Year+1, d.Month, d.Day)
	if !ok {
		next = d.AddDays(365)
	}
	switch {
	case s.Rule.until == untilDate || !s.Start.HasTime:
		return next.Basic()
	case s.Rule.until == untilLocal:
		return next.At(23, 59).Basic()
	}
	t, _ := s.Zone.Instant(next.At(23, 59))
	return t.UTC().Format("20060102T150405Z")
}

// emptyKey identifies the occurrences of a series for emptyCache.
type emptyKey struct {
	rule  *Rule
	start tz.Moment
	zone  string
	lists string // RDATEs and EXDATEs, which add and remove occurrences
}

// emptySpan is a stretch [from, to) of instants in which a series has no
// occurrence start.
type emptySpan struct{ from, to time.Time }

// emptyCache keeps the stretches searches found empty.
var emptyCache = bounded.New[emptyKey, emptySpan](countCacheMax)

// knownEmpty returns the stretch a search of s found empty before, so
// that a rule which never occurs costs its long search once per process,
// not once per reminders pass.
func (s Series) knownEmpty() (emptyKey, emptySpan, bool) {
	key := emptyKey{rule: s.Rule, start: s.Start, zone: s.Zone.Name()}
	if len(s.RDates)+len(s.ExDates) > 0 {
		key.lists = tz.MomentsJSON(s.RDates) + tz.MomentsJSON(s.ExDates)
	}
	e, ok := emptyCache.Get(key)
	return key, e, ok
}

// rememberEmpty keeps a stretch a search found empty, when it is long
// enough to be worth keeping (a search that ran past a few years).
func rememberEmpty(key emptyKey, e emptySpan) {
	if e.to.Sub(e.from) < 4*365*day {
		return
	}
	emptyCache.Put(key, e)
}
