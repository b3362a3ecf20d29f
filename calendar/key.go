package calendar

import (
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// KeyStart is where to look for the occurrence with RECURRENCE-ID key
// (as [recur.Occurrence.Key] writes it: "20261005T070000Z", or "20261005"
// for an all-day series, whose days are placed in zone): [lo, hi) holds
// its original start. ok is false for a malformed key, or a time not in
// UTC.
func KeyStart(key string, zone tz.Zone) (lo, hi time.Time, ok bool) {
	m, utc, err := tz.ParseBasic(key)
	if err != nil {
		return lo, hi, false
	}
	if !m.HasTime {
		lo, hi = zone.DayBounds(m.Date)
		return lo, hi, true
	}
	if !utc {
		return lo, hi, false
	}
	lo = m.DateTime.AsUTC()
	return lo, lo.Add(time.Minute), true
}

// ByKey finds the occurrence of s whose RECURRENCE-ID is key; ok is false
// when s has none (the key is malformed, EXDATEd, or was never one).
func ByKey(s recur.Series, key string) (recur.Occurrence, bool) {
	lo, hi, ok := KeyStart(key, s.Zone)
	if !ok {
		return recur.Occurrence{}, false
	}
	for _, r := range s.StartsBetween(lo, hi) {
		if r.Key() == key {
			return r, true
		}
	}
	return recur.Occurrence{}, false
}
