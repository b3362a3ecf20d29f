package recur

import (
	"strings"

	"github.com/assistant-dev/assistant/tz"
)

// ParseSeries reads the recurrence properties of one iCalendar component,
// one per line: DTSTART (needed), RRULE, EXDATE and RDATE (RFC 5545
// §3.8.2.4, §3.8.5). Lines may end in CRLF or LF and may be folded; names
// and parameters may be lowercase. DTSTART may be a date (VALUE=DATE, or
// eight digits), a local time with TZID, a floating local time (read in
// zone) or a UTC time ("…Z", which makes the series repeat in UTC). EXDATE
// and RDATE values in another zone or in UTC are converted to the series'
// zone. Duration is left zero for the caller to set. The error is one
// sentence naming the property.
func ParseSeries(text string, zone tz.Zone) (Series, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	text = strings.ReplaceAll(text, "\n ", "")
	text = strings.ReplaceAll(text, "\n\t", "")
	type prop struct {
		name   string
		params map[string]string
		value  string
	}
	var props []prop
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		p, err := splitProperty(line)
		if err != nil {
			return Series{}, err
		}
		props = append(props, prop(p))
	}
	var s Series
	seenStart := false
	for _, p := range props {
		if p.name != "DTSTART" {
			continue
		}
		if seenStart {
			return Series{}, fail("“DTSTART” is given twice; give it once.")
		}
		seenStart = true
		vals, z, err := readMoments("DTSTART", p.params, p.value, zone)
		if err != nil {
			return Series{}, err
		}
		if len(vals) != 1 {
			return Series{}, fail("“DTSTART” must hold one value, not %d.", len(vals))
		}
		s.Start, s.Zone = vals[0].m, z
		if vals[0].utc {
			s.Zone = tz.UTC
		}
	}
	if !seenStart {
		return Series{}, fail("“DTSTART” is missing; start with a line such as DTSTART;TZID=Europe/Paris:20261005T090000.")
	}
	for _, p := range props {
		switch p.name {
		case "DTSTART":
		case "RRULE":
			if s.Rule != nil {
				return Series{}, fail("“RRULE” is given twice; join the rules or keep one.")
			}
			r, err := ParseRule(p.value)
			if err != nil {
				return Series{}, err
			}
			s.Rule = r
		case "EXDATE", "RDATE":
			if strings.EqualFold(p.params["VALUE"], "PERIOD") {
				return Series{}, fail("“RDATE” periods (VALUE=PERIOD) are not supported; give start times instead.")
			}
			vals, z, err := readMoments(p.name, p.params, p.value, s.Zone)
			if err != nil {
				return Series{}, err
			}
			for _, v := range vals {
				m := v.m
				if m.HasTime && (v.utc || z.Name() != s.Zone.Name()) {
					t, _ := z.Instant(m.DateTime)
					if v.utc {
						t = m.DateTime.AsUTC()
					}
					m = tz.TimeMoment(s.Zone.In(t))
				}
				if p.name == "EXDATE" {
					s.ExDates = append(s.ExDates, m)
				} else {
					s.RDates = append(s.RDates, m)
				}
			}
		default:
			return Series{}, fail("“%s” is not a recurrence property; give DTSTART, RRULE, EXDATE and RDATE lines only.", clip(p.name))
		}
	}
	return s, s.Check()
}

type property struct {
	name   string
	params map[string]string
	value  string
}

// splitProperty splits "NAME;PARAM=v;PARAM=\"v\":value" (RFC 5545 §3.1).
func splitProperty(line string) (property, error) {
	p := property{params: map[string]string{}}
	i := strings.IndexAny(line, ";:")
	if i <= 0 {
		return p, fail("“%s” is not an iCalendar property line; write NAME:VALUE, as in RRULE:FREQ=DAILY.", clip(line))
	}
	p.name = strings.ToUpper(line[:i])
	rest := line[i:]
	for strings.HasPrefix(rest, ";") {
		rest = rest[1:]
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return p, fail("“%s” has a parameter without a value; write NAME;PARAM=VALUE:….", p.name)
		}
		key := strings.ToUpper(rest[:eq])
		rest = rest[eq+1:]
		var val string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return p, fail("“%s” has an unclosed quote in %s.", p.name, key)
			}
			val, rest = rest[1:end+1], rest[end+2:]
		} else {
			end := strings.IndexAny(rest, ";:")
			if end < 0 {
				return p, fail("“%s” has no value; write NAME:VALUE.", p.name)
			}
			val, rest = rest[:end], rest[end:]
		}
		p.params[key] = val
	}
	if !strings.HasPrefix(rest, ":") {
		return p, fail("“%s” has no value; write NAME:VALUE.", p.name)
	}
	p.value = strings.TrimSpace(rest[1:])
	return p, nil
}

type moment struct {
	m   tz.Moment
	utc bool
}

// readMoments reads a DATE or DATE-TIME list with its TZID and VALUE
// parameters; the zone returned is the TZID's, or def.
func readMoments(name string, params map[string]string, value string, def tz.Zone) ([]moment, tz.Zone, error) {
	z := def
	if id, ok := params["TZID"]; ok {
		var err error
		if z, err = tz.LoadZone(strings.TrimPrefix(id, "/")); err != nil {
			return nil, z, fail("“%s” has TZID=%s, which is not an IANA time zone such as Europe/Paris.", name, clip(id))
		}
	}
	dateOnly := strings.EqualFold(params["VALUE"], "DATE")
	var out []moment
	for v := range strings.SplitSeq(value, ",") {
		v = strings.ToUpper(strings.TrimSpace(v))
		bad := fail("“%s” has the value “%s”; write a date (20261005) or a date and time (20261005T090000, or …Z for UTC).", name, clip(v))
		switch {
		case len(v) == 8:
			d, ok := basicDate(v)
			if !ok {
				return nil, z, bad
			}
			out = append(out, moment{m: tz.DayMoment(d)})
		case dateOnly:
			return nil, z, fail("“%s” says VALUE=DATE but holds “%s”; write a date such as 20261005.", name, clip(v))
		case len(v) == 15 || len(v) == 16 && v[15] == 'Z':
			dt, ok := basicDateTime(v[:15])
			if !ok {
				return nil, z, bad
			}
			out = append(out, moment{m: tz.TimeMoment(dt), utc: len(v) == 16})
		default:
			return nil, z, bad
		}
	}
	return out, z, nil
}

// Lines returns the series as iCalendar property lines, without line
// ends: DTSTART, then RRULE, EXDATE and RDATE when present (RFC 5545
// §3.8.2.4, §3.8.5). Timed values carry the series' TZID, or the UTC form
// when the zone is UTC; dates carry VALUE=DATE. ParseSeries reads them
// back to an equal series (Duration aside).
func (s Series) Lines() []string {
	timed := func(name string, ms []tz.Moment) string {
		if s.Zone.Name() == "UTC" {
			parts := make([]string, len(ms))
			for i, m := range ms {
				parts[i] = m.DateTime.Basic() + "Z"
			}
			return name + ":" + strings.Join(parts, ",")
		}
		parts := make([]string, len(ms))
		for i, m := range ms {
			parts[i] = m.DateTime.Basic()
		}
		return name + ";TZID=" + s.Zone.Name() + ":" + strings.Join(parts, ",")
	}
	dates := func(name string, ms []tz.Moment) string {
		parts := make([]string, len(ms))
		for i, m := range ms {
			parts[i] = m.Date.Basic()
		}
		return name + ";VALUE=DATE:" + strings.Join(parts, ",")
	}
	group := func(name string, ms []tz.Moment) []string {
		var d, t []tz.Moment
		for _, m := range ms {
			if m.HasTime {
				t = append(t, m)
			} else {
				d = append(d, m)
			}
		}
		var out []string
		if len(t) > 0 {
			out = append(out, timed(name, t))
		}
		if len(d) > 0 {
			out = append(out, dates(name, d))
		}
		return out
	}
	var out []string
	if s.Start.HasTime {
		out = append(out, timed("DTSTART", []tz.Moment{s.Start}))
	} else {
		out = append(out, dates("DTSTART", []tz.Moment{s.Start}))
	}
	if s.Rule != nil {
		out = append(out, "RRULE:"+s.Rule.String())
	}
	out = append(out, group("EXDATE", s.ExDates)...)
	return append(out, group("RDATE", s.RDates)...)
}
