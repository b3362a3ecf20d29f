package tz

import (
	_ "embed" // zonenames.txt
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:generate go run gen_zonenames.go

// zoneNamesText is every zone name in the Go toolchain's copy of the IANA
// database, one a line, written by gen_zonenames.go.
//
//go:embed zonenames.txt
var zoneNamesText string

type nameIndex struct {
	names  []string          // sorted, as IANA spells them
	keys   []string          // foldKey of each name
	cities []string          // foldKey of each name's last part
	folded map[string]string // strings.ToLower(name) → name
}

var zoneIndex = sync.OnceValue(func() nameIndex {
	ix := nameIndex{folded: map[string]string{}}
	for line := range strings.Lines(zoneNamesText) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ix.names = append(ix.names, line)
		ix.keys = append(ix.keys, foldKey(line))
		ix.cities = append(ix.cities, foldKey(lastPart(line)))
		ix.folded[strings.ToLower(line)] = line
	}
	return ix
})

// ZoneNames returns the IANA zone names this build knows, sorted
// ("Africa/Abidjan" … "Zulu"), legacy aliases such as "US/Eastern" and
// "EST5EDT" included. The slice is a fresh copy.
func ZoneNames() []string { return slices.Clone(zoneIndex().names) }

// maxSuggestLen bounds the names SuggestZone compares (the longest real
// one, America/Argentina/ComodRivadavia, has 32 bytes), so that its cost
// stays small whatever is typed.
const maxSuggestLen = 64

// ZoneError is the error of LoadZone and LoadZoneLoose for a name that is
// not an IANA zone. Suggestion is the closest real name ("" when nothing is
// close), so a caller that knows the argument's name can build its own
// sentence. When the name is a time zone abbreviation ("CEST", "IST"),
// Abbreviation holds it as the database writes it and Suggestion is "":
// [AbbreviationHint] names the zones it stands for, never a name that is
// merely spelt alike.
type ZoneError struct {
	Name         string // as written
	Suggestion   string // an IANA name, or ""
	Abbreviation string // "CEST", or ""
	// Home is listed first among the zones of Abbreviation when its clock
	// shows it: set it to the person's zone before printing the error.
	Home Zone
}

// maxQuotedName is how many runes of a rejected name an error repeats.
const maxQuotedName = 60

// Error is one sentence naming the rejected value and what to write.
func (e *ZoneError) Error() string {
	name := quoteName(e.Name)
	switch {
	case e.Name == "" || e.Name == "Local":
		return fmt.Sprintf("a time zone must be an IANA name such as Europe/Paris, not %s", name)
	case e.Abbreviation != "":
		return fmt.Sprintf("%s is a time zone abbreviation, not an IANA time zone; write the zone of the place, such as %s",
			name, AbbreviationHint(e.Abbreviation, e.Home))
	case strings.HasPrefix(e.Suggestion, "Etc/GMT"):
		return fmt.Sprintf("%s is not an IANA time zone; write a city zone such as Europe/Paris, "+
			"or %s for that fixed offset (POSIX inverts the sign)", name, e.Suggestion)
	case e.Suggestion != "":
		return fmt.Sprintf("%s is not an IANA time zone; write %s, the closest real name", name, e.Suggestion)
	}
	return fmt.Sprintf("%s is not an IANA time zone; write an Area/City name such as Europe/Paris or America/New_York", name)
}

// quoteName is name for an error: Go-quoted, cut to maxQuotedName runes
// with "…" when longer, so a hostile value gives a short error.
func quoteName(name string) string {
	n := 0
	for i := range name {
		if n == maxQuotedName {
			return strconv.Quote(name[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(name)
}

func unknownZoneError(name string) error {
	if abbr, ok := Abbreviation(name); ok {
		return &ZoneError{Name: name, Abbreviation: abbr}
	}
	s, _ := SuggestZone(name)
	return &ZoneError{Name: name, Suggestion: s}
}

// etcOffset matches the names of the Etc/GMT±N zones, whatever N.
var etcOffset = regexp.MustCompile(`(?i)^(etc/)?gmt[+-][0-9]+$`)

// SuggestZone returns the real IANA name closest to name and whether one is
// close enough to offer. It tries, in order: the same name up to case and
// the separators " ", "_" and "-" ("america/new york" → "America/New_York");
// the city part alone ("Paris" → "Europe/Paris", "Asia/Paris" too); a fixed
// offset ("UTC+2" → "Etc/GMT-2"); then the smallest edit distance (optimal
// string alignment) over whole names and city parts, within about a third
// of the name's length ("Europe/Pari" → "Europe/Paris"). Among equals,
// names under the continental areas (Europe/…, America/…) win over legacy
// aliases. A time zone abbreviation ("CEST") gets no suggestion: it is not
// a misspelt name (see [Abbreviation]). Nor does a name longer than any
// real one could be written.
func SuggestZone(name string) (string, bool) {
	ix := zoneIndex()
	if len(name) > maxSuggestLen {
		return "", false
	}
	key := foldKey(name)
	if key == "" {
		return "", false
	}
	if _, ok := Abbreviation(name); ok {
		return "", false
	}
	if strings.EqualFold(strings.TrimSpace(name), "Z") {
		return "UTC", true // ISO 8601's designator, not a zone name
	}
	if s, ok := ix.folded[strings.ToLower(strings.TrimSpace(name))]; ok {
		return s, true
	}
	city := foldKey(lastPart(name))
	var byName, byCity []string
	for i, n := range ix.names {
		if ix.keys[i] == key {
			byName = append(byName, n)
		}
		if city != "" && ix.cities[i] == city {
			byCity = append(byCity, n)
		}
	}
	if s, ok := preferred(byName); ok {
		return s, true
	}
	if s, ok := preferred(byCity); ok {
		return s, true
	}
	if s, ok := fixedOffsetZone(name); ok {
		return s, true
	}
	if etcOffset.MatchString(strings.TrimSpace(name)) {
		// An Etc/GMT±N past the table (Etc/GMT+14): one edit away is
		// another offset altogether (Etc/GMT+1), never a misspelling.
		return "", false
	}
	// Only a distance of at most three is ever offered (below), so each
	// is worked out only that far: names further apart in length are
	// not compared at all.
	best, bestD := "", -1
	for i, n := range ix.names {
		d := min(distanceWithin(key, ix.keys[i], 3), distanceWithin(city, ix.cities[i], 3))
		if bestD < 0 || d < bestD || d == bestD && continental(n) && !continental(best) {
			best, bestD = n, d
		}
	}
	// Short names are too close to too much ("Z" is one edit from "NZ").
	if bestD >= 0 && len(city) >= 4 && bestD <= max(1, min(3, len(city)/3)) {
		return best, true
	}
	return "", false
}

// preferred picks one of several equally good names: a continental one
// if any, else the first.
func preferred(names []string) (string, bool) {
	if len(names) == 0 {
		return "", false
	}
	for _, n := range names {
		if continental(n) {
			return n, true
		}
	}
	return names[0], true
}

// continental reports whether n is under one of the geographic areas of
// the IANA database rather than a legacy alias ("US/Eastern", "Japan").
func continental(n string) bool {
	area, _, ok := strings.Cut(n, "/")
	if !ok {
		return false
	}
	switch area {
	case "Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific":
		return true
	}
	return false
}

func lastPart(name string) string {
	name = strings.TrimSpace(name)
	return name[strings.LastIndexByte(name, '/')+1:]
}

// foldKey is name lowercased without the separators people vary on, so
// "New York", "new_york" and "NewYork" meet.
func foldKey(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r == ' ' || r == '_' || r == '-' || unicode.IsControl(r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fixedOffsetZone maps "UTC+2", "GMT-05", "UTC+02:00" to the IANA
// fixed-offset zone, whose POSIX-style name has the sign inverted
// ("Etc/GMT-2" is two hours ahead of UTC). Only whole hours exist there.
func fixedOffsetZone(name string) (string, bool) {
	s := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(name), " ", ""))
	s, ok := strings.CutPrefix(s, "UTC")
	if !ok {
		if s, ok = strings.CutPrefix(s, "GMT"); !ok {
			return "", false
		}
	}
	if len(s) < 2 || s[0] != '+' && s[0] != '-' {
		return "", false
	}
	sign, rest := s[0], s[1:]
	hh, mm, colon := strings.Cut(rest, ":")
	if !colon && len(rest) == 4 {
		hh, mm = rest[:2], rest[2:]
	}
	if mm != "" && mm != "00" || len(hh) == 0 || len(hh) > 2 {
		return "", false
	}
	if strings.Trim(hh, "0123456789") != "" {
		return "", false
	}
	h, err := strconv.Atoi(hh)
	if err != nil || h > 14 {
		return "", false
	}
	if h == 0 {
		return "Etc/UTC", true
	}
	inverted := map[byte]string{'+': "-", '-': "+"}[sign]
	n := "Etc/GMT" + inverted + strconv.Itoa(h)
	_, ok = zoneIndex().folded[strings.ToLower(n)]
	return n, ok
}

// distanceWithin is distance(a, b) when that is at most limit, else
// limit+1. It stops as soon as the lengths, or a row of the table, show
// the distance is larger, and for names of ASCII (as IANA names are)
// compares bytes with the table's rows on the stack: suggesting a zone
// compares a name with every one of them.
func distanceWithin(a, b string, limit int) int {
	if isASCII(a) && isASCII(b) {
		return osa([]byte(a), []byte(b), limit)
	}
	return osa([]rune(a), []rune(b), limit)
}

// distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours each cost 1.
func distance(a, b string) int { return distanceWithin(a, b, math.MaxInt-1) }

// osa is distanceWithin of x and y.
func osa[E byte | rune](x, y []E, limit int) int {
	if len(x)-len(y) > limit || len(y)-len(x) > limit {
		return limit + 1
	}
	if len(x) == 0 || len(y) == 0 {
		return max(len(x), len(y))
	}
	var room [3][65]int
	prev2, prev, cur := room[0][:0], room[1][:0], room[2][:0]
	if len(y) >= len(room[0]) {
		prev2, prev, cur = make([]int, 0, len(y)+1), make([]int, 0, len(y)+1), make([]int, 0, len(y)+1)
	}
	prev2, prev, cur = prev2[:len(y)+1], prev[:len(y)+1], cur[:len(y)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		least := i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			least = min(least, cur[j])
		}
		// A swap reaches back two rows, so a row is final only when the
		// one before it is beyond the limit too.
		if least > limit && i > 1 && minOf(prev) > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(y)], limit+1)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func minOf(v []int) int {
	m := v[0]
	for _, x := range v[1:] {
		m = min(m, x)
	}
	return m
}
