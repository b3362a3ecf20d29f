package calendar

import (
	"fmt"
	"slices"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// Shift moves the series s so that its occurrence whose original start is
// from starts at to, read in zone (s.Zone for a move alone), and every
// other occurrence by the same civil shift (returned): DTSTART, the rule's
// weekdays ([MoveRule], by the days from from to to), its UNTIL
// ([MoveUntil]; a COUNT moves by itself), EXDATEs and RDATEs all move
// along, a day-only EXDATE of a timed series as the occurrences it removes
// ([ConcreteExDates]). A zone change with from equal to to keeps every
// occurrence's wall time in the new zone. from and to are both dates (an
// all-day series) or both times; a DTSTART that lands on to takes its
// Fold. The error is a [*DaysError] when the rule's days cannot follow
// (pass s with a nil Rule when the caller sets a new rule anyway), or a
// rule that no longer reads.
func Shift(s recur.Series, from, to tz.Moment, zone tz.Zone) (recur.Series, time.Duration, error) {
	if days := from.Date.DaysUntil(to.Date); days > MaxShiftDays || days < -MaxShiftDays {
		return s, 0, &ShiftError{Days: days}
	}
	shift := to.DateTime.AsUTC().Sub(from.DateTime.AsUTC())
	if !s.Start.HasTime {
		shift = time.Duration(from.Date.DaysUntil(to.Date)) * 24 * time.Hour
	}
	n := s
	n.Start = ShiftMoment(s.Start, shift, s.Start.DateTime)
	if s.Start.HasTime {
		n.Start.Fold = false
		if n.Start.Clock() == to.Clock() {
			// The first occurrence lands on the reading asked for: keep
			// which of two equal readings it is.
			n.Start.Fold = to.Fold
		}
	}
	if s.Start.HasTime {
		n.Zone = zone
	}
	var err error
	if n.Rule, err = MoveRule(s.Rule, from.Date.DaysUntil(to.Date), s.Start, n.Start); err != nil {
		return s, 0, err
	}
	fromZone, toZone := s.Zone, n.Zone
	if !s.Start.HasTime {
		fromZone, toZone = tz.UTC, tz.UTC
	}
	if n.Rule, err = MoveUntil(n.Rule, fromZone, toZone, shift, s.Start.DateTime); err != nil {
		return s, 0, err
	}
	n.ExDates = ShiftMoments(ConcreteExDates(s), shift, s.Start.DateTime)
	n.RDates = ShiftMoments(s.RDates, shift, s.Start.DateTime)
	return n, shift, nil
}

// MaxShiftDays is the farthest [Shift] moves a series, in days (about 273
// years): the civil shift is a time.Duration, which holds about 292
// years, and a longer one would be cut short without a word.
const MaxShiftDays = 100_000

// ShiftError is [Shift]'s refusal of a move of more than [MaxShiftDays];
// Days is the move asked for.
type ShiftError struct{ Days int }

func (e *ShiftError) Error() string {
	return fmt.Sprintf("a series cannot move by %d days, more than %d", e.Days, MaxShiftDays)
}

// ChangeZone is s in zone with every occurrence at the wall time it had:
// [Shift] from DTSTART to itself. An all-day series has no zone of its own
// and is returned as it is.
func ChangeZone(s recur.Series, zone tz.Zone) (recur.Series, error) {
	n, _, err := Shift(s, s.Start, s.Start, zone)
	return n, err
}

// ConcreteExDates is the EXDATEs of s with each day-only one of a timed
// series replaced by the date-time (its Original, Fold kept) of every
// occurrence it removes: the series reads such an EXDATE as "every
// occurrence of that day" (RFC 5545 §3.8.5.1 lets EXDATE be a DATE), a
// meaning that does not survive a shift of the clock, which can carry an
// occurrence over midnight, nor most readers of a DATE-TIME DTSTART. A
// day-only EXDATE that removes nothing is left out; timed ones, and those
// of an all-day series, are kept as they are. The result is a new slice
// (nil when empty).
func ConcreteExDates(s recur.Series) []tz.Moment {
	if !s.Start.HasTime {
		return slices.Clone(s.ExDates)
	}
	all := s
	all.ExDates = nil
	var out []tz.Moment
	for _, x := range s.ExDates {
		if x.HasTime {
			out = append(out, x)
			continue
		}
		lo, hi := s.Zone.DayBounds(x.Date)
		for _, o := range all.StartsBetween(lo.Add(-6*time.Hour), hi.Add(6*time.Hour)) {
			if o.Original.HasTime && o.Original.Date == x.Date {
				out = append(out, o.Original)
			}
		}
	}
	return out
}
