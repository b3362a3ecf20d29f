package args

import (
	"math"
	"strconv"
	"strings"
)

// maxExact is the bound under which a JSON number with no fraction (15.0,
// 1e3) is taken as an integer: well inside float64's exact integers (2^53).
const maxExact = 1e15

// Number returns a whole-number argument: def when absent (or ""); a JSON
// integer, a JSON number with no fraction under 1e15 in magnitude (15.0,
// 1e3), or a text of a plain integer with an optional sign and an optional
// fraction of zeros (" +15 ", "15.0"). Not 15.5, "15.5", "15.", "1e3" as
// text. The value must be within [least, most]; every failure has one
// sentence giving the range.
func (a *Args) Number(name string, def, least, most int) int {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	n, ok := wholeNumber(v)
	if !ok || n < least || n > most {
		a.fail(name, "“"+name+"” must be "+wholeRange(least, most, false)+", not "+shown(v)+".")
		return 0
	}
	return n
}

// wholeNumber reads v by Number's rules, without the range.
func wholeNumber(v value) (int, bool) {
	switch v.kind {
	case kindNumber:
		if !strings.ContainsAny(v.text, ".eE") {
			n, err := strconv.Atoi(v.text)
			return n, err == nil
		}
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) >= maxExact {
			return 0, false
		}
		return int(f), true
	case kindString:
		s := v.word()
		if whole, frac, ok := strings.Cut(s, "."); ok {
			// "15.0": a zero fraction, as models write a JSON number's text
			if frac == "" || strings.Trim(frac, "0") != "" {
				return 0, false
			}
			s = whole
		}
		digits := strings.TrimLeft(s, "+-")
		if len(s)-len(digits) > 1 || digits == "" {
			return 0, false
		}
		for i := 0; i < len(digits); i++ {
			if digits[i] < '0' || digits[i] > '9' {
				return 0, false
			}
		}
		n, err := strconv.Atoi(s) // takes the sign; reports overflow
		return n, err == nil
	}
	return 0, false
}

// wholeRange describes [least, most]; math.MinInt and math.MaxInt mean no
// bound.
func wholeRange(least, most int, plural bool) string {
	what := "a whole number"
	if plural {
		what = "whole numbers"
	}
	switch {
	case least == math.MinInt && most == math.MaxInt:
		return what
	case least == math.MinInt:
		return what + " no more than " + strconv.Itoa(most)
	case most == math.MaxInt:
		return what + " of at least " + strconv.Itoa(least)
	}
	return what + " from " + strconv.Itoa(least) + " to " + strconv.Itoa(most)
}

// NumberList returns a list of whole numbers, each read as Number reads one
// and within [least, most]: empty when absent; a JSON array, or one number
// (or number text) alone as a list of one. Blank text items are dropped. An
// item of any other form is an error quoting that item.
func (a *Args) NumberList(name string, least, most int) []int {
	v, ok := a.get(name)
	if !ok {
		return nil
	}
	if v.kind != kindArray {
		if n, ok := wholeNumber(v); ok && n >= least && n <= most {
			return []int{n}
		}
		a.fail(name, "“"+name+"” must be a list of "+wholeRange(least, most, true)+" ("+exampleList(least, most)+"), not "+shown(v)+".")
		return nil
	}
	var list []int
	var bad value
	failed := false
	items(v.text, func(it value) bool {
		if it.blank() {
			return true // a blank item is no item, as for List
		}
		n, ok := wholeNumber(it)
		if !ok || n < least || n > most {
			bad, failed = it, true
			return false
		}
		if list == nil {
			list = make([]int, 0, 4)
		}
		list = append(list, n)
		return true
	})
	if failed {
		a.fail(name, "“"+name+"” must be a list of "+wholeRange(least, most, true)+" ("+exampleList(least, most)+"), not "+shown(bad)+".")
		return nil
	}
	return list
}

// exampleList is a JSON array of two numbers inside [least, most].
func exampleList(least, most int) string {
	lo := max(least, min(most, 0))
	if least == math.MinInt {
		lo = min(most, 0)
	}
	hi := lo + 1
	if hi > most || hi < lo {
		return "[" + strconv.Itoa(lo) + "]"
	}
	return "[" + strconv.Itoa(lo) + ", " + strconv.Itoa(hi) + "]"
}

// Decimal returns a number argument that may have a fraction, and whether it
// was given: absent gives (0, false); a JSON number, or a text in plain
// decimal form ("0.9", ".9", "-2", "1e3"; not "0,9", "0x1p-2", "1_0",
// "NaN", "Inf"); finite and within [least, most].
func (a *Args) Decimal(name string, least, most float64) (float64, bool) {
	v, ok := a.get(name)
	if !ok {
		return 0, false
	}
	text := v.text
	if v.kind == kindString {
		text = v.word()
		if !plainDecimal(text) {
			text = ""
		}
	} else if v.kind != kindNumber {
		text = ""
	}
	f, err := strconv.ParseFloat(text, 64)
	if text == "" || err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f < least || f > most {
		a.fail(name, "“"+name+"” must be "+decimalRange(least, most)+", written with a point for any fraction, not "+shown(v)+".")
		return 0, false
	}
	return f, true
}

// decimalRange describes [least, most]; infinities mean no bound.
func decimalRange(least, most float64) string {
	switch {
	case math.IsInf(least, -1) && math.IsInf(most, 1):
		return "a number"
	case math.IsInf(least, -1):
		return "a number no more than " + formatFloat(most)
	case math.IsInf(most, 1):
		return "a number of at least " + formatFloat(least)
	}
	return "a number from " + formatFloat(least) + " to " + formatFloat(most)
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// plainDecimal reports [+-]? (digits (. digits?)? | . digits) ([eE] [+-]? digits)?
func plainDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := countDigits(s[i:])
	i += intDigits
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		fracDigits = countDigits(s[i:])
		i += fracDigits
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		n := countDigits(s[i:])
		if n == 0 {
			return false
		}
		i += n
	}
	return i == len(s)
}

func countDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
