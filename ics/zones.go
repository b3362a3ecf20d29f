package ics

import (
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// windowsZonesTSV maps Windows zone names (as Outlook and Exchange write
// them in TZID) to IANA zones. Generated from Unicode CLDR's
// windowsZones.xml by ics/internal/genzones; see the file's header.
//
//go:embed windowszones.tsv
var windowsZonesTSV string

type windowsTables struct {
	byName    map[string]string // lower-cased Windows name → IANA
	byDisplay map[string]string // lower-cased display name after "(UTC±hh:mm) " → IANA
	golden    []string          // the territory-001 IANA zones, in CLDR order, no repeats
}

var windows = sync.OnceValue(func() windowsTables {
	t := windowsTables{byName: map[string]string{}, byDisplay: map[string]string{}}
	seen := map[string]bool{}
	for _, line := range strings.Split(windowsZonesTSV, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			continue
		}
		t.byName[strings.ToLower(f[0])] = f[1]
		if _, rest, ok := splitDisplayOffset(f[2]); ok {
			t.byDisplay[strings.ToLower(rest)] = f[1]
		}
		if !seen[f[1]] {
			seen[f[1]] = true
			t.golden = append(t.golden, f[1])
		}
	}
	return t
})

// splitDisplayOffset splits a Windows display name such as
// "(UTC-05:00) Eastern Time (US & Canada)" or the older
// "(GMT+10:00) Canberra, Melbourne, Sydney" into its offset in seconds and
// the rest.
func splitDisplayOffset(s string) (int, string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "(UTC") && !strings.HasPrefix(s, "(GMT") {
		return 0, "", false
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		return 0, "", false
	}
	off := s[4:end]
	rest := strings.TrimSpace(s[end+1:])
	if off == "" {
		return 0, rest, true
	}
	sign := 1
	switch off[0] {
	case '-':
		sign = -1
	case '+':
	default:
		return 0, "", false
	}
	h, m, ok := strings.Cut(off[1:], ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil {
		return 0, "", false
	}
	return sign * (hh*3600 + mm*60), rest, true
}

// zoneResolver reads the TZIDs of one file.
type zoneResolver struct {
	vtz        map[string]*node // by TZID as written (unescaped)
	cache      map[string]resolved
	fromY, toY int // the years the file's items span, for rule matching
	// matched counts the VTIMEZONEs whose rules were read and compared
	// with IANA zones (at most maxMatched a file), compared the sampled
	// offsets compared so far (at most about maxCompared a file).
	matched, compared int
}

// maxCompared bounds the offsets a file's VTIMEZONEs have compared with
// IANA zones' (about 0.1 µs each): a zone that matches none compares its
// samples (two at each onset, two a month) with each of 600 zones, and
// 64 such zones would take seconds. Once it is spent, the zone compared
// is the closest of those compared so far.
const maxCompared = 4_000_000

// maxOnsetsPerYear bounds a VTIMEZONE's onsets over the years compared:
// a real zone changes its offset at most a few times a year, and a rule
// that repeats every minute made a zone of 360 bytes take minutes.
const maxOnsetsPerYear = 8

// maxMatched is how many VTIMEZONEs of one file are matched to an IANA
// zone by their rules, the costly way (a tenth of a millisecond or more
// each): real files define a few zones, and a file of thousands, each
// used by an event, would hold a core for seconds. A VTIMEZONE past
// that is read by its hints alone (X-LIC-LOCATION, a Windows name).
const maxMatched = 64

type resolved struct {
	zone tz.Zone
	how  string
	err  error
}

// normTZID canonicalises a TZID for lookup: text escapes removed, so the
// escaped commas of a VTIMEZONE's TZID property and the plain ones of a
// quoted parameter name the same zone.
func normTZID(s string) string { return unescapeText(s) }

func (zr *zoneResolver) vtimezone(tzid string) *node {
	if n := zr.vtz[tzid]; n != nil {
		return n
	}
	return zr.vtz[strings.TrimSpace(tzid)]
}

// resolve returns the IANA zone a TZID stands for, trying in order: the
// name itself as an IANA zone (also the tail of a prefixed name such as
// "/mozilla.org/20050126_1/America/New_York"), a Windows zone name or
// display name (CLDR windowsZones), and the rules of the file's VTIMEZONE
// of that TZID compared with IANA zones over the years the file covers.
func (zr *zoneResolver) resolve(tzid string) (tz.Zone, string, error) {
	tzid = normTZID(tzid)
	if r, ok := zr.cache[tzid]; ok {
		return r.zone, r.how, r.err
	}
	z, how, err := zr.resolveUncached(tzid)
	zr.cache[tzid] = resolved{z, how, err}
	return z, how, err
}

func (zr *zoneResolver) resolveUncached(tzid string) (tz.Zone, string, error) {
	name := strings.TrimSpace(tzid)
	if z, ok := ianaName(name); ok {
		return z, "IANA name", nil
	}
	var hints []string
	how := ""
	w := windows()
	if iana, ok := w.byName[strings.ToLower(name)]; ok {
		hints = append(hints, iana)
		how = "Windows zone name (CLDR windowsZones)"
	}
	offset, rest, isDisplay := splitDisplayOffset(name)
	if isDisplay {
		if iana, ok := w.byDisplay[strings.ToLower(rest)]; ok {
			hints = append(hints, iana)
			how = "Windows display name (CLDR windowsZones)"
		}
	}
	vt := zr.vtimezone(tzid)
	if vt == nil {
		if len(hints) > 0 {
			return tz.MustZone(hints[0]), how, nil
		}
		if isDisplay && offset%3600 == 0 && offset >= -12*3600 && offset <= 14*3600 {
			// Etc/GMT signs are inverted (POSIX): UTC+7 is Etc/GMT-7.
			n := "Etc/GMT"
			if offset != 0 {
				n = fmt.Sprintf("Etc/GMT%+d", -offset/3600)
			}
			return tz.MustZone(n), "fixed offset of a Windows display name", nil
		}
		return tz.Zone{}, "", fmt.Errorf("TZID %s is not an IANA zone, a Windows zone, or defined by a VTIMEZONE in the file", quote(tzid))
	}
	if loc, err := vt.Props.Text("X-LIC-LOCATION"); err == nil && loc != "" {
		hints = append([]string{loc}, hints...)
	}
	if strings.Contains(name, "_") {
		hints = append(hints, strings.Replace(name, "_", "/", 1))
	}
	if zr.matched >= maxMatched {
		for _, h := range hints {
			if z, ok := ianaName(h); ok {
				return z, how, nil
			}
		}
		return tz.Zone{}, "", fmt.Errorf("the VTIMEZONE of TZID %s is not read: the file defines more than %d time zones known only by their rules", quote(tzid), maxMatched)
	}
	zr.matched++
	if s, ok := tz.SuggestZone(name); ok {
		hints = append(hints, s)
	}
	rules, err := parseVTimezone(vt, zr.fromY, zr.toY)
	if err != nil {
		if len(hints) > 0 {
			if z, ok := ianaName(hints[0]); ok {
				return z, how, nil
			}
		}
		return tz.Zone{}, "", fmt.Errorf("the VTIMEZONE of TZID %s cannot be read: %v", quote(tzid), err)
	}
	best, bestMiss := "", -1
	try := func(name string) bool {
		z, ok := ianaName(name)
		if !ok || zr.compared >= maxCompared {
			return false
		}
		zr.compared += len(rules.samples)
		miss := rules.mismatches(z.Location(), bestMiss)
		if bestMiss < 0 || miss < bestMiss {
			best, bestMiss = z.Name(), miss
		}
		return miss == 0
	}
	for _, h := range hints {
		if try(h) {
			return tz.MustZone(best), "VTIMEZONE rules (matched " + best + ")", nil
		}
	}
	for _, g := range w.golden {
		if try(g) {
			return tz.MustZone(best), "VTIMEZONE rules (matched " + best + ")", nil
		}
	}
	for _, n := range tz.ZoneNames() {
		if try(n) {
			return tz.MustZone(best), "VTIMEZONE rules (matched " + best + ")", nil
		}
	}
	if best == "" || bestMiss*2 > len(rules.samples) {
		// Wrong at most sampled instants, the nearest zone is no reading
		// of the file's, only the first of many as far off.
		return tz.Zone{}, "", fmt.Errorf("the VTIMEZONE of TZID %s matches no IANA zone", quote(tzid))
	}
	return tz.MustZone(best), fmt.Sprintf("%s%s, %d of %d sampled offsets differ)", closestRules, best, bestMiss, len(rules.samples)), nil
}

// closestRules begins the how of a zone matched by its VTIMEZONE's rules
// only in part.
const closestRules = "VTIMEZONE rules (closest: "

// ianaName loads name as an IANA zone, also when it is the tail of a
// prefixed name ("/mozilla.org/20050126_1/America/New_York").
func ianaName(name string) (tz.Zone, bool) {
	if name == "" {
		return tz.Zone{}, false
	}
	if z, ok := tz.ZoneNamed(name); ok {
		return z, true
	}
	if strings.EqualFold(name, "UTC") || strings.EqualFold(name, "GMT") || name == "Z" {
		return tz.UTC, true
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' && i+1 < len(name) {
			if z, ok := tz.ZoneNamed(name[i+1:]); ok && strings.Contains(name[i+1:], "/") {
				return z, true
			}
		}
	}
	return tz.Zone{}, false
}

// vtzRules are the transitions of one VTIMEZONE over a span of years.
type vtzRules struct {
	onsets  []onset // sorted by instant
	initial int     // offset before the first onset, seconds
	samples []time.Time
}

type onset struct {
	at     time.Time
	offset int // seconds east of UTC after the onset
}

func (r *vtzRules) offsetAt(t time.Time) int {
	i := sort.Search(len(r.onsets), func(i int) bool { return r.onsets[i].at.After(t) })
	if i == 0 {
		return r.initial
	}
	return r.onsets[i-1].offset
}

// mismatches counts the sample instants at which loc's offset differs
// from the VTIMEZONE's, stopping early once it exceeds limit (when ≥ 0).
func (r *vtzRules) mismatches(loc *time.Location, limit int) int {
	miss := 0
	for _, t := range r.samples {
		_, off := t.In(loc).Zone()
		if off != r.offsetAt(t) {
			miss++
			if limit >= 0 && miss > limit {
				return miss
			}
		}
	}
	return miss
}

// parseVTimezone reads the STANDARD and DAYLIGHT observances of a
// VTIMEZONE (RFC 5545 §3.6.5): each onset's DTSTART is a local time in
// TZOFFSETFROM, repeated by RRULE and RDATE. It expands them over the years
// fromY..toY and picks sample instants around every transition and twice a
// month.
func parseVTimezone(n *node, fromY, toY int) (r *vtzRules, err error) {
	defer func() {
		// A rule the recurrence library chokes on makes the VTIMEZONE
		// unreadable, not the import.
		if recover() != nil {
			r, err = nil, fmt.Errorf("one of its RRULEs cannot be expanded")
		}
	}()
	from := time.Date(fromY, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(toY+1, 1, 1, 0, 0, 0, 0, time.UTC)
	r = &vtzRules{}
	first := time.Time{}
	for _, c := range n.Children {
		if c.Name != "STANDARD" && c.Name != "DAYLIGHT" {
			continue
		}
		dtstart := c.Props.Get("DTSTART")
		offFrom, err1 := parseUTCOffset(propValue(c.Props.Get("TZOFFSETFROM")))
		offTo, err2 := parseUTCOffset(propValue(c.Props.Get("TZOFFSETTO")))
		if dtstart == nil || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s lacks a readable DTSTART, TZOFFSETFROM or TZOFFSETTO", c.Name)
		}
		m, _, err := tz.ParseBasic(dtstart.Value)
		if err != nil {
			return nil, fmt.Errorf("%s DTSTART: %v", c.Name, err)
		}
		add := func(local tz.DateTime) {
			at := local.AsUTC().Add(-time.Duration(offFrom) * time.Second)
			r.onsets = append(r.onsets, onset{at, offTo})
			if first.IsZero() || at.Before(first) {
				first, r.initial = at, offFrom
			}
		}
		add(m.DateTime)
		if rr := c.Props.Get("RRULE"); rr != nil {
			rule, err := recur.ParseRule(rr.Value)
			if err == nil && rule.Freq() > recur.Monthly {
				return nil, fmt.Errorf("%s repeats more often than monthly (%s); a zone's offset changes a few times a year", c.Name, quote(rr.Value))
			}
			if err == nil {
				s := recur.Series{Start: tz.TimeMoment(m.DateTime), Zone: tz.UTC, Rule: rule}
				// Two years of margin so the offset in force when the
				// span starts comes from a real onset.
				for _, o := range s.StartsBetween(from.AddDate(-2, 0, 0), to) {
					add(o.Original.DateTime)
				}
			}
		}
		for _, rd := range c.Props.Values("RDATE") {
			for _, v := range strings.Split(rd.Value, ",") {
				if v, _, _ = strings.Cut(v, "/"); v == "" {
					continue
				}
				if m, _, err := tz.ParseBasic(v); err == nil {
					add(m.DateTime)
				}
			}
		}
	}
	if len(r.onsets) == 0 {
		return nil, fmt.Errorf("it has no STANDARD or DAYLIGHT observance")
	}
	if most := maxOnsetsPerYear * (toY - fromY + 4); len(r.onsets) > most {
		return nil, fmt.Errorf("its offset changes more than %d times in the years %d to %d", most, fromY-2, toY)
	}
	sort.Slice(r.onsets, func(i, j int) bool { return r.onsets[i].at.Before(r.onsets[j].at) })
	for _, o := range r.onsets {
		if !o.at.Before(from) && o.at.Before(to) {
			// Three hours either side: producers disagree on whether an
			// onset's DTSTART is the wall time before or after the jump.
			r.samples = append(r.samples, o.at.Add(-3*time.Hour), o.at.Add(3*time.Hour))
		}
	}
	for t := from; t.Before(to); t = t.AddDate(0, 0, 14) {
		r.samples = append(r.samples, t.Add(12*time.Hour))
	}
	return r, nil
}

// parseUTCOffset reads a UTC-OFFSET value (RFC 5545 §3.3.14): "+0100",
// "-0500", "+034152".
func parseUTCOffset(s string) (int, error) {
	s = strings.TrimSpace(s)
	if len(s) != 5 && len(s) != 7 || (s[0] != '+' && s[0] != '-') {
		return 0, fmt.Errorf("bad UTC offset %q", s)
	}
	n := 0
	parts := []int{}
	for i := 1; i+2 <= len(s); i += 2 {
		v, err := strconv.Atoi(s[i : i+2])
		if err != nil {
			return 0, fmt.Errorf("bad UTC offset %q", s)
		}
		parts = append(parts, v)
	}
	if parts[0] > 23 || parts[1] > 59 || len(parts) == 3 && parts[2] > 59 {
		// time-hour 00-23, time-minute and time-second 00-59: "+9959"
		// is no offset, and as 100 hours it matched some zone or other.
		return 0, fmt.Errorf("UTC offset %q is out of range (hours 00-23, minutes 00-59)", s)
	}
	n = parts[0]*3600 + parts[1]*60
	if len(parts) == 3 {
		n += parts[2]
	}
	if s[0] == '-' {
		n = -n
	}
	return n, nil
}

func propValue(p *ical.Prop) string {
	if p == nil {
		return ""
	}
	return p.Value
}
