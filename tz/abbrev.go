package tz

import (
	_ "embed" // zone1970.txt
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// zone1970Text lists the zones of the IANA zone1970.tab, one a line: a
// zone's own name for each clock that differs from the others since 1970,
// written by gen_zonenames.go.
//
//go:embed zone1970.txt
var zone1970Text string

// Time zone abbreviations ("CEST", "IST", "PST") are not zone names: one
// stands for many zones, and some for zones on different continents (IST
// is used in India, Ireland and Israel). The index below is read from the
// zone database itself, not written by hand: every zone's clock is walked
// once, from 1970 to a year from now, and each abbreviation it shows is
// noted with the UTC offset it has then. Zones whose clocks agree since
// 1970 (the IANA rule for merging zones; Europe/Oslo and Europe/Berlin)
// form one entry, named by its zone1970.tab name rather than a copy's.

// abbrUse is one clock (a set of zones that agree since 1970) that shows an
// abbreviation.
type abbrUse struct {
	zone    string // the name to show: a zone's own Area/City name
	class   int    // the clock, an index into abbrIndex.classes
	offset  int    // seconds east of UTC under the abbreviation
	names   int    // how many names share the clock
	current bool   // shown within a year of when the index was built
}

type abbrIndex struct {
	uses    map[string][]abbrUse // abbreviation as tzdata writes it → its clocks
	classOf map[string]int       // zone name → clock
}

// abbrWindow is how far before and after now an abbreviation counts as in
// use today; one DST cycle either side.
const abbrWindow = 366 * 24 * time.Hour

// maxPeriods bounds the walk of one zone's clock (Africa/Casablanca, the
// busiest, has about 4 changes a year).
const maxPeriods = 2000

var abbrevs = sync.OnceValue(func() abbrIndex { return buildAbbrevs(time.Now()) })

func buildAbbrevs(now time.Time) abbrIndex {
	own := map[string]bool{}
	for line := range strings.Lines(zone1970Text) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			own[line] = true
		}
	}
	from := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	recent, until := now.Add(-abbrWindow), now.Add(abbrWindow)
	type seen struct {
		offset  int
		current bool
	}
	type class struct {
		names []string
		abbrs map[string]seen
	}
	var classes []*class
	bySig := map[uint64]int{}
	ix := abbrIndex{uses: map[string][]abbrUse{}, classOf: map[string]int{}}
	for _, name := range zoneIndex().names {
		loc, err := time.LoadLocation(name)
		if err != nil {
			continue
		}
		h := fnv.New64a()
		abbrs := map[string]seen{}
		t := from
		for range maxPeriods {
			lt := t.In(loc)
			abbr, off := lt.Zone()
			_, end := lt.ZoneBounds()
			cur := end.IsZero() || end.After(recent)
			if _, ok := abbrs[abbr]; !ok || cur {
				abbrs[abbr] = seen{off, cur} // the offset in use today wins
			}
			fmt.Fprintf(h, "%s %d;", abbr, off)
			if end.IsZero() || !end.Before(until) {
				break
			}
			fmt.Fprintf(h, "%d;", end.Unix())
			t = end
		}
		sig := h.Sum64()
		id, ok := bySig[sig]
		if !ok {
			id = len(classes)
			bySig[sig] = id
			classes = append(classes, &class{abbrs: abbrs})
		}
		classes[id].names = append(classes[id].names, name)
		ix.classOf[name] = id
	}
	for id, c := range classes {
		// the name to show: the zone1970.tab name, else another Area/City
		// name, before links and legacy names (Asia/Kolkata, not
		// Asia/Calcutta or Japan); a clock with no Area/City name is
		// shown by none.
		slices.SortStableFunc(c.names, func(a, b string) int {
			return rank(a, own) - rank(b, own)
		})
		if !continental(c.names[0]) {
			continue
		}
		for abbr, s := range c.abbrs {
			if !isAbbreviation(abbr) {
				continue
			}
			ix.uses[abbr] = append(ix.uses[abbr], abbrUse{zone: c.names[0], class: id, offset: s.offset,
				names: len(c.names), current: s.current})
		}
	}
	for abbr, uses := range ix.uses {
		if slices.ContainsFunc(uses, func(u abbrUse) bool { return u.current }) {
			// in use today: forget the zones that used it once
			uses = slices.DeleteFunc(uses, func(u abbrUse) bool { return !u.current })
		}
		ix.uses[abbr] = uses
	}
	return ix
}

// rank orders a clock's names: its zone1970.tab name first, then other
// Area/City names, then legacy names.
func rank(name string, own map[string]bool) int {
	switch {
	case own[name]:
		return 0
	case continental(name):
		return 1
	}
	return 2
}

// isAbbreviation reports text written as tzdata writes an abbreviation of
// letters (tzdata writes "+03" where a place has none).
func isAbbreviation(s string) bool {
	if len(s) < 2 || len(s) > 6 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// Abbreviation reports whether name (surrounding spaces and case ignored)
// is a time zone abbreviation that the IANA database shows on the clock of
// some Area/City zone, such as "CEST", "IST", "PST" or "AEDT", and returns
// it as the database writes it. Legacy zone names that are also such
// abbreviations ("EST", "CET", "HST") count as abbreviations: a person who
// writes EST means a place, and the zone called EST has no summer time.
// "UTC" and "GMT" are not abbreviations here: they name UTC.
func Abbreviation(name string) (string, bool) {
	s := strings.TrimSpace(name)
	if !isAbbreviation(s) {
		return "", false
	}
	switch u := strings.ToUpper(s); u {
	case "UTC", "GMT", "UT", "Z":
		return "", false
	}
	ix := abbrevs()
	if _, ok := ix.uses[s]; ok {
		return s, true
	}
	for abbr := range ix.uses {
		if strings.EqualFold(abbr, s) {
			return abbr, true
		}
	}
	return "", false
}

// AbbreviationZone is a zone whose clock shows an abbreviation.
type AbbreviationZone struct {
	Name   string // the IANA name, "Europe/Paris"
	Offset int    // seconds east of UTC while the clock shows it
	Names  int    // how many IANA names share this zone's clock since 1970
}

// AbbreviationZones returns the zones whose clocks show the abbreviation
// abbr (as [Abbreviation] returns it): those that use it within a year of
// now, or, for one no zone uses any more, those that used it since 1970.
// Zones that agree since 1970 are one entry, under a zone's own name. The
// order is: home, when its clock shows abbr (the person's own zone); then
// one zone for each UTC offset abbr stands for (CST: America/Chicago at
// −06:00, Asia/Shanghai at +08:00, America/Havana at −05:00), offsets
// shared by more names first; then the rest, by how many names share each
// clock, then by name. Nil when abbr is not an abbreviation.
func AbbreviationZones(abbr string, home Zone) []AbbreviationZone {
	ix := abbrevs()
	uses := slices.Clone(ix.uses[abbr])
	if len(uses) == 0 {
		return nil
	}
	weight := map[int]int{} // offset → names
	for _, u := range uses {
		weight[u.offset] += u.names
	}
	slices.SortFunc(uses, func(a, b abbrUse) int {
		if a.names != b.names {
			return b.names - a.names
		}
		return strings.Compare(a.zone, b.zone)
	})
	var out []AbbreviationZone
	taken := map[int]bool{} // classes listed
	add := func(u abbrUse, name string) {
		out = append(out, AbbreviationZone{Name: name, Offset: u.offset, Names: u.names})
		taken[u.class] = true
	}
	if home.loc != nil {
		if id, ok := ix.classOf[home.Name()]; ok {
			for _, u := range uses {
				if u.class == id {
					add(u, home.Name())
				}
			}
		}
	}
	offsets := make([]int, 0, len(weight))
	for off := range weight {
		offsets = append(offsets, off)
	}
	slices.SortFunc(offsets, func(a, b int) int {
		if weight[a] != weight[b] {
			return weight[b] - weight[a]
		}
		return a - b
	})
	for _, off := range offsets {
		if slices.ContainsFunc(out, func(z AbbreviationZone) bool { return z.Offset == off }) {
			continue
		}
		for _, u := range uses {
			if u.offset == off && !taken[u.class] {
				add(u, u.zone)
				break
			}
		}
	}
	for _, u := range uses {
		if !taken[u.class] {
			add(u, u.zone)
		}
	}
	return out
}

// maxHinted is how many zones [AbbreviationHint] names at least; it names
// more only to give every offset one.
const maxHinted = 4

// AbbreviationHint names the zones abbr stands for, for a sentence that
// says what to write instead: "Europe/Berlin, Europe/Belgrade,
// Europe/Brussels or Europe/Paris (UTC+02:00), or one of the 20 other zones
// that use CEST", "America/Chicago (UTC-06:00), Asia/Shanghai (UTC+08:00)
// or America/Havana (UTC-05:00)". The order is [AbbreviationZones']; home
// comes first when its clock shows abbr. "" when abbr is not one.
func AbbreviationHint(abbr string, home Zone) string {
	zones := AbbreviationZones(abbr, home)
	if len(zones) == 0 {
		return ""
	}
	offsets := map[int]bool{}
	for _, z := range zones {
		offsets[z.Offset] = true
	}
	n := min(len(zones), max(maxHinted, len(offsets)))
	parts := make([]string, n)
	for i, z := range zones[:n] {
		parts[i] = z.Name
		if len(offsets) > 1 {
			parts[i] += " (" + utcOffset(z.Offset) + ")"
		}
	}
	s := parts[0]
	if n > 1 {
		s = strings.Join(parts[:n-1], ", ") + " or " + parts[n-1]
	}
	if len(offsets) == 1 {
		s += " (" + utcOffset(zones[0].Offset) + ")"
	}
	if rest := len(zones) - n; rest > 0 {
		s += ", or one of the " + strconv.Itoa(rest) + " other zones that use " + abbr
	}
	return s
}

// utcOffset writes seconds east of UTC as "UTC+02:00", "UTC-03:30".
func utcOffset(sec int) string {
	sign := '+'
	if sec < 0 {
		sign, sec = '-', -sec
	}
	return fmt.Sprintf("UTC%c%02d:%02d", sign, sec/3600, sec/60%60)
}
