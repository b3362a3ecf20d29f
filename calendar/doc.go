// Package calendar holds the arithmetic of editing a recurring event as
// pure functions over [recur.Series] and [recur.Rule]: moving a series by
// a wall-clock shift (its UNTIL, EXDATEs, RDATEs and the keys of its
// changed occurrences along), changing its zone, splitting it at an
// occurrence, and deleting an occurrence and those that follow.
//
// The functions read no clock, no process time zone and no database; the
// tools store and render what they return.
//
// A shift is civil: the difference of two wall-clock readings, each read
// as if it were UTC ([tz.DateTime.AsUTC]). Every occurrence an edit covers
// moves by the same shift of its wall-clock time in the series' zone, so
// that 10:00 every Monday moved by two hours is 12:00 every Monday on
// both sides of a DST change (RFC 5545 §3.3.10 keeps the clock time of
// DTSTART).
package calendar
