package item

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/assistant-dev/assistant/args"
)

// FoldText is text as a search compares it: [args.CleanLine]'s rules (the
// invisible format characters dropped, line breaks and tabs as spaces),
// lower case, then Unicode full case folding ("ß" and "ẞ" read "ss", "ς"
// reads "σ"), compatibility decomposition (the ligature "ﬁ" reads "fi",
// full-width "Ａ" reads "a", "²" reads "2") with the combining marks dropped
// (accents), composed again. Letters that Unicode does not decompose but
// a person types without their stroke or as two letters read as the
// letters they are written with ([latinLetters]: "æ" reads "ae", "œ"
// "oe", "ø" "o", "ł" "l", dotless "ı" "i"). So "Crème Brûlée" and
// "creme brulee" read alike, and so do "Straße" and "STRASSE", "Æsir" and
// "aesir", "İstanbul" and "istanbul". A query matches an item when its
// folded form is a substring of the folded title or notes. ASCII text
// only changes case.
func FoldText(s string) string {
	s = strings.ToLower(args.CleanLine(s))
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	// Folding first: a folded rune may decompose (U+01F0 folds to j and a
	// combining caron), and the marks are dropped after.
	d := norm.NFKD.String(cases.Fold().String(s))
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		switch {
		case unicode.Is(unicode.Mn, r):
		case latinLetters[r] != "":
			b.WriteString(latinLetters[r])
		default:
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// latinLetters are the lower-case letters (after case folding) with no
// Unicode decomposition that are written with other letters on a keyboard
// without them: the ligatures "æ" and "œ" as two letters (as "ß" folds to
// "ss" and "ĳ" decomposes to "ij"), the letters with a stroke or bar
// without it, dotless "ı" as "i" (dotted "İ" already folds to "i"), and
// "þ" as "th". A change here changes search_fold: it needs a migration
// that has every row's worked out again (see migrations 00022, 00027).
var latinLetters = map[rune]string{
	'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ð': "d", 'ł': "l", 'ħ': "h",
	'ŧ': "t", 'ı': "i", 'ȷ': "j", 'þ': "th", 'ƀ': "b", 'ƶ': "z", 'ǥ': "g",
}

// FoldTag is a tag as tags are compared ([strings.EqualFold] of the tag
// through [args.CleanLine], trimmed): each rune replaced by the smallest of
// its simple case-folding orbit, so two tags fold to the same text exactly
// when EqualFold says they are equal.
func FoldTag(tag string) string { return FoldCase(strings.TrimSpace(args.CleanLine(tag))) }

// FoldCase replaces each rune of s by the smallest of its simple
// case-folding orbit: FoldCase(a) == FoldCase(b) exactly when
// strings.EqualFold(a, b), for valid UTF-8.
func FoldCase(s string) string {
	return strings.Map(func(r rune) rune {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		return m
	}, s)
}
