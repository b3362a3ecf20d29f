package tasks

import "github.com/assistant-dev/assistant/tz"

// shiftAt moves absolute reminders by as much wall-clock time as the due
// moved from old to next, so that each keeps its offset from the due as a
// task moves (design §5): "remind me at 08:00 on the day" stays 08:00 on
// the new day. A date-only due reads as 00:00 of its day; a date-only
// reminder stays date-only when the move is whole days.
func shiftAt(at []tz.Moment, old, next due) []tz.Moment {
	if len(at) == 0 {
		return at
	}
	delta := int(next.DateTime.AsUTC().Sub(old.DateTime.AsUTC()).Minutes())
	if delta == 0 {
		return at
	}
	out := make([]tz.Moment, len(at))
	for i, m := range at {
		if !m.HasTime && delta%1440 == 0 {
			out[i] = tz.DayMoment(m.Date.AddDays(delta / 1440))
			continue
		}
		out[i] = tz.TimeMoment(m.DateTime.AddMinutes(delta))
	}
	return out
}
