package tz

import (
	"fmt"
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

// LoadZone returns the IANA zone called name. Loaded zones are cached, so a
// repeated load costs a map lookup. An unknown name is an error whose
// sentence suggests the closest real name ("Europe/Pari" → "Europe/Paris").
// "Local" and "" are refused: a zone must be named.
func LoadZone(name string) (Zone, error) {
	if z, ok := zoneCache.Load(name); ok {
		return z.(Zone), nil
	}
	if name == "" || name == "Local" {
		return Zone{}, fmt.Errorf("a time zone must be an IANA name such as Europe/Paris, not %q", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return Zone{}, unknownZoneError(name)
	}
	z := Zone{name: name, loc: loc}
	zoneCache.Store(name, z)
	return z, nil
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

// In returns the civil date-time that instant t reads in z.
func (z Zone) In(t time.Time) DateTime { return DateTimeOf(t.In(z.Location())) }

// Today returns the civil day that instant t falls on in z.
func (z Zone) Today(t time.Time) Date { return DateOf(t.In(z.Location())) }

func (z Zone) offsetAt(t time.Time) int {
	_, off := t.In(z.Location()).Zone()
	return off
}

// Instant returns the instant at which the wall clock of z reads dt, with
// the rules of RFC 5545 §3.3.5 (the "compatible" disambiguation of RFC 9557):
//   - a time that does not exist (a DST gap, 02:30 on a spring-forward day)
//     is moved forward by the length of the gap (02:30 → 03:30) and moved
//     is true;
//   - a time that exists twice (the fall-back overlap) is the earlier of
//     the two instants.
//
// Go's time.Date guarantees neither, so this is computed from offsets.
func (z Zone) Instant(dt DateTime) (t time.Time, moved bool) {
	u := dt.asUTC()
	var best time.Time
	found := false
	for _, probe := range [...]time.Duration{-36 * time.Hour, 0, 36 * time.Hour} {
		off := z.offsetAt(u.Add(probe))
		cand := u.Add(-time.Duration(off) * time.Second)
		if z.offsetAt(cand) != off {
			continue
		}
		if !found || cand.Before(best) {
			best, found = cand, true
		}
	}
	if found {
		return best.In(z.Location()), false
	}
	// In a gap: read dt with the offset in force before the transition; the
	// instant lands after it, forward by the gap length.
	before := z.offsetAt(u.Add(-36 * time.Hour))
	t = u.Add(-time.Duration(before) * time.Second)
	return t.In(z.Location()), true
}

// StartOfDay returns the first instant of day d in z: 00:00, or the first
// minute that exists when midnight falls in a gap (America/Santiago).
func (z Zone) StartOfDay(d Date) time.Time {
	t, _ := z.Instant(d.At(0, 0))
	return t
}

// MomentInstant returns the instant of m in z: a timed moment by Instant, an
// all-day moment at the start of its day.
func (z Zone) MomentInstant(m Moment) (time.Time, bool) {
	if !m.HasTime {
		return z.StartOfDay(m.Date), false
	}
	return z.Instant(m.DateTime)
}
