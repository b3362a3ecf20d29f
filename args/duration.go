package args

import (
	"strconv"
	"strings"
)

// The lengths of time [Args.Minutes] reads, as a number of whole minutes:
//
//	length = minutes                      ; 90: a whole number, minutes
//	       | iso                          ; PT1H30M, P1D, P1W (ISO 8601, RFC 5545 §3.3.6)
//	       | 1*( amount unit ["and"] )    ; 1h30m, 1h 30min, 90 min, 1.5h, 1 hour 30 minutes
//	iso    = "P" ( n "W" | [n "D"] [ "T" [n "H"] [n "M"] [n "S"] ] )
//	amount = 1*6DIGIT [ "." 1*2DIGIT ] | "a" | "an"
//	unit   = m | min | mins | minute | minutes | h | hr | hrs | hour | hours
//	       | d | day | days | w | wk | wks | week | weeks
//
// Letters are matched without regard to case, spaces are free between the
// parts of a human length (not inside an ISO one). Each part must come to
// whole minutes (1.5h is 90, 1.33h is refused; PT90S is refused, PT120S is
// 2); a duration is a length, so there is no sign.

// unitMinutes is the length of each unit in minutes.
var unitMinutes = map[unit]int{minutes: 1, hours: 60, days: 24 * 60, weeks: 7 * 24 * 60}

// parseMinutes reads s (trimmed) by the grammar above.
func parseMinutes(s string) (int, bool) {
	if s == "" || len(s) > maxRelative {
		return 0, false
	}
	if n, ok := wholeNumber(value{kind: kindString, text: s}); ok {
		return n, true
	}
	if s[0] == 'P' || s[0] == 'p' {
		return isoMinutes(strings.ToUpper(s[1:]))
	}
	words, ok := relWords(s)
	if !ok {
		return 0, false
	}
	total := 0
	for i := 0; i < len(words); {
		if words[i] == "and" && i > 0 && i+1 < len(words) && units[words[i-1]] != noUnit {
			i++
			continue
		}
		if i+1 >= len(words) {
			return 0, false
		}
		hundredths, ok := amount(words[i])
		u := units[words[i+1]]
		if !ok || u == noUnit {
			return 0, false
		}
		m := hundredths * unitMinutes[u]
		if m%100 != 0 {
			return 0, false // not whole minutes
		}
		total += m / 100
		i += 2
	}
	return total, true
}

// amount reads 1–6 digits with an optional fraction of 1–2 digits, in
// hundredths.
func amount(w string) (int, bool) {
	whole, frac, dot := strings.Cut(w, ".")
	n, ok := count(whole)
	if !ok || (whole == "a" || whole == "an") && dot || strings.Contains(w, ":") {
		return 0, false
	}
	n *= 100
	if dot {
		if len(frac) == 0 || len(frac) > 2 {
			return 0, false
		}
		f, ok := count(frac)
		if !ok {
			return 0, false
		}
		if len(frac) == 1 {
			f *= 10
		}
		n += f
	}
	return n, true
}

// isoMinutes reads the part of an ISO 8601 duration after "P", in upper
// case: weeks alone, or days and a time part of hours, minutes and
// seconds, each at most once and in that order.
func isoMinutes(s string) (int, bool) {
	datePart, timePart, hasT := strings.Cut(s, "T")
	if hasT && timePart == "" || datePart == "" && !hasT {
		return 0, false
	}
	if n, ok := strings.CutSuffix(datePart, "W"); ok {
		w, ok := isoDigits(n)
		return w * unitMinutes[weeks], ok && !hasT // RFC 5545: weeks stand alone
	}
	total := 0
	if datePart != "" {
		n, ok := strings.CutSuffix(datePart, "D")
		d, ok2 := isoDigits(n)
		if !ok || !ok2 {
			return 0, false
		}
		total = d * unitMinutes[days]
	}
	seconds, order := 0, "HMS"
	for rest := timePart; rest != ""; {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		n, ok := isoDigits(rest[:i])
		if !ok || i == len(rest) {
			return 0, false
		}
		k := strings.IndexByte(order, rest[i])
		if k < 0 {
			return 0, false
		}
		switch order[k] {
		case 'H':
			total += n * 60
		case 'M':
			total += n
		case 'S':
			seconds = n
		}
		order, rest = order[k+1:], rest[i+1:]
	}
	if seconds%60 != 0 {
		return 0, false
	}
	return total + seconds/60, true
}

// isoDigits reads 1 to 6 ASCII digits (a count of a relative moment, or a
// number of an ISO 8601 duration).
func isoDigits(s string) (int, bool) {
	if s == "" || len(s) > 6 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// minutesValue reads v, a JSON number of minutes or a text by the grammar
// above.
func minutesValue(v value) (int, bool) {
	switch v.kind {
	case kindNumber:
		return wholeNumber(v)
	case kindString:
		return parseMinutes(v.word())
	}
	return 0, false
}

// minutesSentence is the sentence for a length that is not one, or not
// within [least, most] minutes.
func minutesSentence(name string, v value, n int, read bool, least, most int) string {
	lengths := "a number of minutes from " + strconv.Itoa(least) + " to " + strconv.Itoa(most) +
		" (90) or a length such as 1h30m, 90 min or PT1H30M"
	got := shown(v)
	if read && v.kind == kindString {
		if _, plain := wholeNumber(v); !plain {
			got += " (" + strconv.Itoa(n) + " minutes)"
		}
	}
	return "“" + name + "” must be " + lengths + ", not " + got + "."
}

// Minutes returns a length of time in whole minutes: def when absent (or
// ""); a JSON whole number of minutes as [Args.Number] reads it (90), or a
// text by the grammar above (90, 1h30m, "1h 30min", PT1H30M, "90 min",
// 1.5h). It must be within [least, most] minutes; every failure has one
// sentence giving the range and examples.
func (a *Args) Minutes(name string, def, least, most int) int {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	n, read := minutesValue(v)
	if !read || n < least || n > most {
		a.fail(name, minutesSentence(name, v, n, read, least, most))
		return 0
	}
	return n
}

// MinutesList returns a list of lengths, each read as [Args.Minutes]
// reads one and within [least, most] minutes: empty when absent; a JSON
// array, or one length alone as a list of one. Blank text items are
// dropped. The first refused item fails, quoted.
func (a *Args) MinutesList(name string, least, most int) []int {
	v, ok := a.get(name)
	if !ok {
		return nil
	}
	if v.kind != kindArray {
		n, read := minutesValue(v)
		if read && n >= least && n <= most {
			return []int{n}
		}
		a.fail(name, listSentence(name, v, n, read, least, most))
		return nil
	}
	var list []int
	items(v.text, func(it value) bool {
		if it.blank() {
			return true
		}
		n, read := minutesValue(it)
		if !read || n < least || n > most {
			a.fail(name, listSentence(name, it, n, read, least, most))
			return false
		}
		list = append(list, n)
		return true
	})
	if a.err != nil {
		return nil
	}
	return list
}

// listSentence is [minutesSentence] for one item of a list.
func listSentence(name string, v value, n int, read bool, least, most int) string {
	got := shown(v)
	if read && v.kind == kindString {
		if _, plain := wholeNumber(v); !plain {
			got += " (" + strconv.Itoa(n) + " minutes)"
		}
	}
	example := exampleList(least, most)
	if least <= 15 && most >= 60 {
		example += ` or ["15m", "1h"]`
	}
	return "“" + name + "” must be a list of lengths from " + strconv.Itoa(least) + " to " + strconv.Itoa(most) +
		" minutes, each a number of minutes or a length such as 1h30m, as in " + example + ", not " + got + "."
}
