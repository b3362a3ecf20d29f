package caldav

import (
	"context"
	"slices"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/tz"
)

// instance is one occurrence of an event, as its overrides leave it.
type instance struct {
	key        string    // its RECURRENCE-ID ([calendar.OccurrenceKey])
	original   tz.Moment // the start the rule gave it
	start, end time.Time
	ov         *calendar.Override // the override that changed it, or nil
}

// instances lists the occurrences of res (an event) that overlap [from,
// to), sorted by start, overrides applied (cancelled ones left out, moved
// ones at their new time), at most limit of them; cut is true when there
// were more. The work follows the occurrences listed, not the span: the
// window is walked in pieces that double from one day, so a series of one
// occurrence a minute costs what 1,000 minutes cost, and a far override
// costs nothing. A cancelled request stops it with its error.
func instances(ctx context.Context, res *resource, person tz.Zone, from, to time.Time, limit int) (out []instance, cut bool, err error) {
	e := res.event
	series := e.Series(person).WithContext(ctx)
	seen := map[string]bool{}
	add := func(in instance) bool {
		if len(out) == limit {
			cut = true
			return false
		}
		out = append(out, in)
		return true
	}
	lo, step := from, 24*time.Hour
	if first := series.First(); lo.Before(first) {
		// Nothing starts before the series' first start: a window from
		// 1900 would otherwise have grown to decades by then, holding
		// every occurrence of a MINUTELY series in them at once.
		lo = first
	}
	for lo.Before(to) && !cut {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		hi := lo.Add(step)
		if hi.After(to) || hi.Before(lo) {
			hi = to
		}
		for _, occ := range series.Between(lo, hi) {
			if lo != from && occ.Start.Before(lo) {
				continue // listed by the piece before
			}
			key := calendar.OccurrenceKey(e.AllDay, e.Zone, occ.Original)
			if seen[key] {
				continue
			}
			seen[key] = true
			in := instance{key: key, original: occ.Original, start: occ.Start, end: occ.End, ov: res.ovs[key]}
			if in.ov != nil && in.ov.Cancel {
				continue
			}
			if in.ov != nil && in.ov.HasTime {
				continue // at its own time: added below when in the window
			}
			if !add(in) {
				break
			}
		}
		lo, step = hi, step*2
	}
	// Occurrences moved into the window from anywhere.
	for key, o := range res.ovs {
		if cut || o.Cancel || !o.HasTime || !o.StartAt.Before(to) || !(o.EndAt.After(from) || (o.EndAt.Equal(o.StartAt) && !o.StartAt.Before(from))) {
			continue
		}
		orig, ok := originalOf(e, key)
		if !ok {
			continue
		}
		add(instance{key: key, original: orig, start: o.StartAt, end: o.EndAt, ov: o})
	}
	slices.SortFunc(out, func(a, b instance) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		return compareKeys(a.key, b.key)
	})
	return out, cut, nil
}

func compareKeys(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// originalOf reads an override key back into the original start, in the
// series' zone (a date for an all-day series).
func originalOf(e *calendar.Event, key string) (tz.Moment, bool) {
	if e.AllDay {
		t, err := time.Parse("20060102", key)
		if err != nil {
			return tz.Moment{}, false
		}
		return tz.DayMoment(tz.Date{Year: t.Year(), Month: t.Month(), Day: t.Day()}), true
	}
	t, err := time.Parse("20060102T150405Z", key)
	if err != nil {
		return tz.Moment{}, false
	}
	return tz.TimeMoment(e.Zone.In(t)), true
}
