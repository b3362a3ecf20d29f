package view

import (
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// Text in terminal columns, for the grid and the month: a rune takes the
// columns a terminal gives it (two for the East Asian wide and fullwidth
// ones, Unicode UAX #11; none for combining marks and format characters;
// one otherwise), and text from a person (titles) is cleaned of control
// characters first, so a title cannot move the cursor or colour the
// screen (an ESC in a title is shown as a space).

// termClean returns s with every control character (C0, DEL, C1: tab,
// newline, ESC…) replaced by a space, so it prints on one line as text.
func termClean(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// runeCols is the number of terminal columns r takes.
func runeCols(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r < 0x1100:
		return 1
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// termWidth is the number of terminal columns s takes.
func termWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeCols(r)
	}
	return n
}

// termCut returns s cut to at most n columns at a rune boundary, ending
// in "…" when anything was cut; n below 1 gives "".
func termCut(s string, n int) string {
	if n < 1 {
		return ""
	}
	if termWidth(s) <= n {
		return s
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		w := runeCols(r)
		if used+w > n-1 {
			break
		}
		b.WriteRune(r)
		used += w
	}
	return strings.TrimRightFunc(b.String(), unicode.IsSpace) + "…"
}

// termFit returns s cut to n columns and padded with spaces to exactly n.
func termFit(s string, n int) string {
	s = termCut(s, n)
	if pad := n - termWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// ANSI SGR sequences (ECMA-48) the grid and the month use when asked for
// colour.
const (
	sgrReset   = "\x1b[0m"
	sgrBold    = "\x1b[1m"
	sgrToday   = "\x1b[1;7m"  // bold, reverse video
	sgrNow     = "\x1b[1;31m" // bold red
	sgrAllDay  = "\x1b[30;45m"
	sgrOverdue = "\x1b[31m"
	sgrDim     = "\x1b[2m"
)

// sgrLanes colour the lanes of timed events, side by side in turn.
var sgrLanes = [...]string{"\x1b[30;46m", "\x1b[30;43m", "\x1b[30;42m", "\x1b[30;47m"}

// paint wraps s in the SGR sequence code when colour is on.
func paint(colour bool, code, s string) string {
	if !colour || code == "" || s == "" {
		return s
	}
	return code + s + sgrReset
}
