package tz

import (
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // zones work on machines without a zoneinfo database
)

// Zone is an IANA time zone ("Europe/Paris") with its loaded rules. The zero
// Zone is UTC. Keep the name, not an offset: offsets change with DST.
type Zone struct {
	name string
	loc  *time.Location
}

// UTC is the zone "UTC".
var UTC = Zone{name: "UTC", loc: time.UTC}

var zoneCache sync.Map // name → Zone

// LoadZone returns the IANA zone called name, spelled exactly as the IANA
// database does ("Europe/Paris"; legacy names Go loads, such as
// "US/Eastern" and "EST5EDT", are accepted too). Loaded zones are cached,
// so a repeated load costs a map lookup. An unknown or miscased name is a
// *ZoneError whose sentence suggests the closest real name ("Europe/Pari"
// → "Europe/Paris"); so is a name the host's zoneinfo has but the
// embedded IANA database (time/tzdata, listed by [ZoneNames]) has not,
// such as "localtime", "posixrules" or "posix/Europe/Paris". "Local", "" and tzdata's placeholder "Factory" are
// refused: a zone must be named.
// For text a person typed, use LoadZoneLoose.
func LoadZone(name string) (Zone, error) {
	if z, ok := zoneCache.Load(name); ok {
		return z.(Zone), nil
	}
	if name == "" || name == "Local" {
		return Zone{}, &ZoneError{Name: name}
	}
	if name == "Factory" {
		// tzdata's "zone not yet set" placeholder (abbreviation "-00").
		return Zone{}, &ZoneError{Name: name}
	}
	// On a case-insensitive file system (macOS) time.LoadLocation would
	// take "europe/paris" and keep that spelling as the zone's name.
	real, ok := zoneIndex().folded[strings.ToLower(name)]
	if ok && real != name {
		return Zone{}, &ZoneError{Name: name, Suggestion: real}
	}
	if !ok {
		// Only names of the embedded IANA database: the host's zoneinfo
		// also has files that are no zone name ("localtime", "posixrules",
		// "posix/Europe/Paris", "right/UTC", "./UTC"), which would stop
		// loading on a machine without them.
		return Zone{}, unknownZoneError(name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return Zone{}, unknownZoneError(name)
	}
	z := Zone{name: name, loc: loc}
	zoneCache.Store(name, z)
	return z, nil
}

// LoadZoneLoose is LoadZone for names a person typed: surrounding spaces
// are ignored, case is ignored ("europe/paris" is Europe/Paris), and "UTC",
// "Z" and "GMT" in any case are the zone UTC. A time zone abbreviation is
// refused, even one that is also a legacy zone name ("EST", "CET", "HST"):
// its *ZoneError has the Abbreviation set, so that the sentence names the
// zones it stands for. Anything else is LoadZone's *ZoneError, with its
// suggestion; near misses ("Paris") are suggested, not guessed.
func LoadZoneLoose(name string) (Zone, error) {
	s := strings.TrimSpace(name)
	switch strings.ToUpper(s) {
	case "UTC", "Z", "GMT":
		return UTC, nil
	}
	if abbr, ok := Abbreviation(s); ok {
		return Zone{}, &ZoneError{Name: name, Abbreviation: abbr}
	}
	if real, ok := zoneIndex().folded[strings.ToLower(s)]; ok {
		s = real
	}
	return LoadZone(s)
}

// ZoneNamed is LoadZone for a name that may well be no zone (a TZID
// read from a file): ok is false, with no error worded and no
// suggestion looked for, when name is not an IANA zone name as written.
func ZoneNamed(name string) (z Zone, ok bool) {
	if z, ok := zoneCache.Load(name); ok {
		return z.(Zone), true
	}
	if real, ok := zoneIndex().folded[strings.ToLower(name)]; !ok || real != name {
		return Zone{}, false
	}
	z, err := LoadZone(name)
	return z, err == nil
}

// MustZone is LoadZone for names known to exist (tests, constants); it
// panics on an unknown name.
func MustZone(name string) Zone {
	z, err := LoadZone(name)
	if err != nil {
		panic(err)
	}
	return z
}

// Name returns the IANA name ("UTC" for the zero Zone).
func (z Zone) Name() string {
	if z.loc == nil {
		return "UTC"
	}
	return z.name
}

// Location returns the zone's *time.Location (time.UTC for the zero Zone).
func (z Zone) Location() *time.Location {
	if z.loc == nil {
		return time.UTC
	}
	return z.loc
}

// String returns the IANA name.
func (z Zone) String() string { return z.Name() }

// In returns the civil date-time that instant t reads in z, with Fold set
// when z's clock read the same minute once before (t lies in the repeated
// hour of a fall-back change), so that Instant(In(t)) is t to the minute.
func (z Zone) In(t time.Time) DateTime {
	lt := t.In(z.Location())
	dt := DateTimeOf(lt)
	start, _ := lt.ZoneBounds()
	if start.IsZero() || t.Sub(start) >= 24*time.Hour {
		return dt
	}
	_, off := lt.Zone()
	_, prevOff := start.Add(-time.Second).In(z.Location()).Zone()
	// The clock went back by prevOff−off at start: the readings of the
	// first prevOff−off after start were shown before it too.
	if back := time.Duration(prevOff-off) * time.Second; back > 0 && t.Sub(start) < back {
		dt.Fold = true
	}
	return dt
}

// Reading returns the reading dt of z's clock that is the instant at: dt
// with Fold set when at is the later of the two instants at which z's
// clock reads dt, without Fold otherwise. Stored civil text drops Fold;
// this restores it from the instant kept beside the text.
func (z Zone) Reading(dt DateTime, at time.Time) DateTime {
	dt.Fold = false
	if r := z.In(at); r.Fold && r.Clock() == dt {
		return r
	}
	return dt
}

// Today returns the civil day that instant t falls on in z.
func (z Zone) Today(t time.Time) Date { return DateOf(t.In(z.Location())) }

// offsetReach bounds every UTC offset in the IANA database, past and
// present (the widest are local mean times near ±15:57), so any instant
// whose wall clock reads a given civil time lies within this distance of
// that civil time read as UTC.
const offsetReach = 17 * time.Hour

// Instant returns the instant at which the wall clock of z reads dt, with
// the rules of RFC 5545 §3.3.5 (the "compatible" disambiguation of
// RFC 9557 §5):
//   - a time that does not exist (a DST gap, 02:30 on a spring-forward day)
//     is moved forward by the length of the gap (02:30 → 03:30 for a one-hour
//     gap, 02:15 → 02:45 for Australia/Lord_Howe's half hour) and moved is
//     true;
//   - a time that exists twice (the fall-back overlap) is the earlier of
//     the two instants, or the later when dt.Fold is set (an instant
//     written with its offset, read back by In), and moved is false.
//
// The result is in z's location. Fields of dt out of range are normalised
// as time.Date does (minute 60 is the next hour); callers validate first.
//
// Go's time.Date guarantees neither rule (it gives 01:30 EST for New York
// 02:30 on 2026-03-08, and the later 02:30 on Paris's 2026-10-25), so this
// walks the zone's periods itself with time.Time.ZoneBounds.
func (z Zone) Instant(dt DateTime) (t time.Time, moved bool) {
	loc := z.Location()
	u := dt.asUTC()
	at := u.Add(-offsetReach)
	limit := u.Add(offsetReach)
	prevOff := 0
	for i := 0; i < 64 && !at.After(limit); i++ {
		lt := at.In(loc)
		_, off := lt.Zone()
		start, end := lt.ZoneBounds()
		cand := u.Add(-time.Duration(off) * time.Second)
		if i > 0 && cand.Before(start) {
			// The previous period ended before its clock reached dt and this
			// one starts after it: dt is in the gap between them. Reading dt
			// with the earlier offset lands forward by the gap length.
			return u.Add(-time.Duration(prevOff) * time.Second).In(loc), true
		}
		if end.IsZero() || cand.Before(end) {
			// Periods are visited in time order, so the first match is the
			// earlier instant of a fold; Fold asks for a later one.
			if dt.Fold {
				if later, ok := z.later(u, end, limit); ok {
					return later, false
				}
			}
			return cand.In(loc), false
		}
		prevOff, at = off, end
	}
	// Unreachable with real zone data; fall back to Go's own choice rather
	// than fail.
	return time.Date(dt.Year, dt.Month, dt.Day, dt.Hour, dt.Minute, 0, 0, loc), false
}

// later returns the instant after end at which z's clock reads u (a civil
// time read as UTC) again, if a later period of z reaches it by limit.
func (z Zone) later(u, end, limit time.Time) (time.Time, bool) {
	loc := z.Location()
	for at, i := end, 0; i < 4 && !end.IsZero() && !at.After(limit); i++ {
		lt := at.In(loc)
		_, off := lt.Zone()
		start, next := lt.ZoneBounds()
		cand := u.Add(-time.Duration(off) * time.Second)
		if !cand.Before(start) && (next.IsZero() || cand.Before(next)) {
			return cand.In(loc), true
		}
		if next.IsZero() {
			break
		}
		at = next
	}
	return time.Time{}, false
}

// StartOfDay returns the first instant of day d in z: 00:00, or, when
// midnight falls in a gap (America/Santiago springs from 00:00 to 01:00),
// the instant the gap ends, which is the first minute of d that exists. For
// a day the zone skipped entirely (Pacific/Apia, 2011-12-30) it is the
// start of the next day, so [StartOfDay(d), StartOfDay(d+1)) is empty.
func (z Zone) StartOfDay(d Date) time.Time {
	t, moved := z.Instant(d.At(0, 0))
	if !moved {
		return t
	}
	// t lies in the period after the gap; that period starts at the
	// transition. Instant's "forward by the gap" is not enough here: a gap
	// from 23:30 to 00:30 would put the day's start at 01:00.
	start, _ := t.ZoneBounds()
	if start.IsZero() {
		return t
	}
	return start.In(z.Location())
}

// DayBounds returns the half-open interval [start, end) of instants whose
// civil day in z is d: StartOfDay(d) and StartOfDay(d+1). It lasts 24 h
// except on transition days (23 h, 25 h, 23.5 h on Australia/Lord_Howe).
func (z Zone) DayBounds(d Date) (start, end time.Time) {
	return z.StartOfDay(d), z.StartOfDay(d.AddDays(1))
}

// MomentInstant returns the instant of m in z: a timed moment by Instant, an
// all-day moment at the start of its day.
func (z Zone) MomentInstant(m Moment) (time.Time, bool) {
	if !m.HasTime {
		return z.StartOfDay(m.Date), false
	}
	return z.Instant(m.DateTime)
}

// Calendar bounds: the first and last instants an item may start, end or
// be due at, 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z. Stored civil
// text and RFC 5545 DATE-TIMEs have four-digit years (ISO 8601 without
// expansion), so an instant is kept only when both its UTC reading and
// its reading in the item's zone fall in the years 0001–9999 (see
// [Zone.Holds]).
var (
	FirstInstant = time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)
	LastInstant  = time.Date(9999, time.December, 31, 23, 59, 59, 0, time.UTC)
)

// LastHeld is the last second z [Zone.Holds]: the last second of
// 9999-12-31 in UTC or on z's clock, whichever comes first.
func (z Zone) LastHeld() time.Time {
	if end := z.StartOfDay(Date{Year: 10000, Month: time.January, Day: 1}).Add(-time.Second); end.Before(LastInstant) {
		return end
	}
	return LastInstant
}

// Holds reports whether instant t reads in the years 0001–9999 both in UTC
// and on z's clock, so that it can be stored and written with a four-digit
// year ([FirstInstant], [LastInstant]).
func (z Zone) Holds(t time.Time) bool {
	u := t.UTC().Year()
	l := t.In(z.Location()).Year()
	return u >= 1 && u <= 9999 && l >= 1 && l <= 9999
}
