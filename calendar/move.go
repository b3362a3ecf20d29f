package calendar

import (
	"strings"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// ShiftMoment moves m (a DTSTART, EXDATE, RDATE or reminder moment) by
// the civil shift. A date in a timed series is read at clock (DTSTART's
// time of day) so that it lands on the right day; a date stays a date.
func ShiftMoment(m tz.Moment, shift time.Duration, clock tz.DateTime) tz.Moment {
	if m.HasTime {
		return tz.TimeMoment(tz.FromUTCClock(m.DateTime.AsUTC().Add(shift)))
	}
	dt := m.Date.At(clock.Hour, clock.Minute)
	return tz.DayMoment(tz.FromUTCClock(dt.AsUTC().Add(shift)).Date)
}

// ShiftMoments is [ShiftMoment] over a list, in a new slice (nil for an
// empty list).
func ShiftMoments(list []tz.Moment, shift time.Duration, clock tz.DateTime) []tz.Moment {
	if len(list) == 0 {
		return nil
	}
	out := make([]tz.Moment, len(list))
	for i, m := range list {
		out[i] = ShiftMoment(m, shift, clock)
	}
	return out
}

// MoveUntil is r with its UNTIL moved as the occurrences move when a
// series goes from zone from to zone to and by the civil shift: the
// wall-clock reading of UNTIL in from, plus shift, read in to, and written
// in the form it had (RFC 5545 §3.3.10: UTC for a zoned DTSTART, a date for
// an all-day one). clock is the time of day of the old DTSTART, at which a
// date UNTIL of a timed series is read. A rule without UNTIL (open, or
// bounded by COUNT, which moves by itself) is returned as it is, as is a
// nil rule. For an all-day series pass UTC as both zones: its days float.
func MoveUntil(r *recur.Rule, from, to tz.Zone, shift time.Duration, clock tz.DateTime) (*recur.Rule, error) {
	if r == nil {
		return nil, nil
	}
	m, utc, ok := r.Until()
	if !ok || (shift == 0 && (!utc || from.Name() == to.Name())) {
		return r, nil
	}
	sec, val := untilSeconds(r), ""
	switch {
	case !m.HasTime:
		val = ShiftMoment(m, shift, clock).Date.Basic()
	case utc:
		civil := from.In(m.DateTime.AsUTC())
		t, _ := to.Instant(tz.FromUTCClock(civil.AsUTC().Add(shift)))
		if !to.Holds(t) && t.After(tz.LastInstant.AddDate(-1, 0, 0)) {
			// Moved past the calendar's end, which holds no occurrence.
			t, sec = to.LastHeld(), "59"
		}
		val = tz.FromUTCClock(t).Basic()[:13] + sec + "Z"
	default:
		val = tz.FromUTCClock(m.DateTime.AsUTC().Add(shift)).Basic()[:13] + sec
	}
	return withUntil(r, val)
}

// kindUntil is moved, the rule old of a series that turns between
// all-day and timed with its days moved (MoveRule), with an UNTIL that is
// a date: the day of the last occurrence old's UNTIL lets through, moved
// by days, the days by which the occurrences move. That day is UNTIL's
// own for a date; for a date-time (read in zone: as an instant when it
// is UTC, RFC 5545 §3.3.10, else as a wall time there) its day, or the
// day before when old, started at start (the DTSTART before the turn),
// has an occurrence later on that day, which UNTIL cuts off. A date UNTIL
// bounds a timed series through the end of that day, so no occurrence is
// lost or gained, whichever kind the series turns into. A rule without
// UNTIL (open, or bounded by COUNT, which moves by itself), or nil, is
// returned as it is.
func kindUntil(moved, old *recur.Rule, zone tz.Zone, start tz.Moment, days int) (*recur.Rule, error) {
	if moved == nil || old == nil {
		return moved, nil
	}
	m, utc, ok := old.Until()
	if !ok {
		return moved, nil
	}
	last := m.Date
	if m.HasTime {
		until, _ := zone.Instant(m.DateTime)
		if utc {
			until = m.DateTime.AsUTC()
		}
		last = zone.Today(until)
		if start.HasTime {
			open, err := recur.ParseRule(WithoutBound(old))
			if err != nil {
				return nil, err
			}
			s := recur.Series{Start: start, Zone: zone, Rule: open}
			if len(s.StartsBetween(until.Add(time.Minute), zone.StartOfDay(last.AddDays(1)))) > 0 {
				last = last.AddDays(-1)
			}
		}
	}
	return withUntil(moved, last.AddDays(days).Basic())
}

// kindDays is the RDATEs list, of a series that turns between all-day
// and timed, each as its day moved by days: a date RDATE of a timed
// series reads at DTSTART's clock, as the rule's own occurrences do. A
// new slice, nil for an empty list.
func kindDays(list []tz.Moment, days int) []tz.Moment {
	if len(list) == 0 {
		return nil
	}
	out := make([]tz.Moment, len(list))
	for i, m := range list {
		out[i] = tz.DayMoment(m.Date.AddDays(days))
	}
	return out
}

// untilSeconds is the seconds of r's UNTIL as written ("00" for a date
// or none), which [recur.Rule.Until] leaves out.
func untilSeconds(r *recur.Rule) string {
	for _, p := range strings.Split(r.String(), ";") {
		if v, ok := strings.CutPrefix(p, "UNTIL="); ok && len(v) >= 15 {
			return v[13:15]
		}
	}
	return "00"
}

// withUntil is r with UNTIL set to val (COUNT, which RFC 5545 forbids
// beside UNTIL, taken out). An UNTIL moved past the calendar's last day
// (a series moved on near 9999-12-31) is that day's end instead, in
// val's form: the calendar holds no occurrence after it (docs/time.md).
func withUntil(r *recur.Rule, val string) (*recur.Rule, error) {
	if date, _, _ := strings.Cut(val, "T"); len(date) > 8 {
		switch {
		case !strings.Contains(val, "T"):
			val = "99991231"
		case strings.HasSuffix(val, "Z"):
			val = "99991231T235959Z"
		default:
			val = "99991231T235959"
		}
	}
	return recur.ParseRule(WithoutBound(r) + ";UNTIL=" + val)
}

// WithoutBound is the rule's text with COUNT and UNTIL taken out.
func WithoutBound(r *recur.Rule) string {
	var parts []string
	for _, p := range strings.Split(r.String(), ";") {
		if !strings.HasPrefix(p, "COUNT=") && !strings.HasPrefix(p, "UNTIL=") {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ";")
}

// Find is the occurrence of s whose Original (its RECURRENCE-ID as the
// rule or an RDATE made it) is m; ok is false when s has none there. A
// time that falls in a DST gap is found by its Original all the same.
func Find(s recur.Series, m tz.Moment) (recur.Occurrence, bool) {
	var lo, hi time.Time
	if !s.Start.HasTime {
		lo, hi = s.Zone.DayBounds(m.Date)
		lo, hi = lo.Add(-time.Minute), hi.Add(time.Minute)
	} else {
		if !m.HasTime {
			m = tz.TimeMoment(m.Date.At(s.Start.Hour, s.Start.Minute))
		}
		t, _ := s.Zone.Instant(m.DateTime)
		lo, hi = t.Add(-4*time.Hour), t.Add(4*time.Hour)
	}
	for _, o := range s.StartsBetween(lo, hi) {
		if o.AllDay {
			if o.Original.Date == m.Date {
				return o, true
			}
		} else if o.Original.DateTime.Clock() == m.DateTime.Clock() {
			return o, true
		}
	}
	return recur.Occurrence{}, false
}

// Rekey maps the RECURRENCE-ID keys ([ByKey]) of changed occurrences of
// old to the occurrences they are in moved, the series after a civil
// shift (and perhaps a new zone or rule): the occurrence old gives for a
// key, its Original moved by shift ([ShiftMoment] at old's time of day),
// and the occurrence of moved with that Original ([Find]). This is the
// rule the occurrences themselves follow, so a key whose time fell in a
// DST gap moves with its occurrence. A key missing from the result has no
// occurrence any more (not in old, or not in moved).
func Rekey(old, moved recur.Series, shift time.Duration, keys []string) map[string]recur.Occurrence {
	out := map[string]recur.Occurrence{}
	for _, k := range keys {
		o, ok := ByKey(old, k)
		if !ok {
			continue
		}
		if n, ok := Find(moved, ShiftMoment(o.Original, shift, old.Start.DateTime)); ok {
			out[k] = n
		}
	}
	return out
}
