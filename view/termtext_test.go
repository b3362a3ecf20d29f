package view

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTermCut(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"Standup", 9, "Standup"},
		{"Design review", 9, "Design r…"},
		{"Design review", 7, "Design…"}, // no space before the ellipsis
		{"東京オフィス", 9, "東京オフ…"},          // 8 columns and the ellipsis
		{"東京オフィス", 8, "東京オ…"},           // a wide rune never half shown
		{"Zoë", 3, "Zoë"},
		{"Zoe\u0301 and Ana", 4, "Zoe\u0301…"}, // a combining accent takes no column
		{"abc", 1, "…"},
		{"abc", 0, ""},
	}
	for _, c := range cases {
		got := termCut(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) || termWidth(got) > max(c.n, 0) {
			t.Errorf("termCut(%q, %d) = %q (%d columns), want %q", c.in, c.n, got, termWidth(got), c.want)
		}
	}
	if got := termClean("a\tb\nc\x1b[31md\u009b"); got != "a b c [31md " {
		t.Errorf("termClean = %q", got)
	}
}

// At every width from far too narrow to wide, no line of the week or the
// month passes the width (or MinGridWidth, the narrowest grid).
func TestWeekAndMonthFitEveryWidth(t *testing.T) {
	specs := weekSpecs(t)
	for _, name := range []string{"overlap", "long-title", "dst-spring"} {
		w := specs[name].window(t)
		for width := 10; width <= 200; width++ {
			for _, colour := range []bool{false, true} {
				out := Week(w, GridOptions{Width: width, Colour: colour})
				limit := max(width, MinGridWidth)
				for i, line := range strings.Split(out, "\n") {
					if n := termWidth(stripSGR(line)); n > limit {
						t.Fatalf("%s at %d columns: line %d is %d columns: %q", name, width, i+1, n, line)
					}
				}
			}
		}
	}
	from, to := MonthOf(date(t, "2026-03-10"))
	m := winSpec{zone: "Europe/Paris", from: from.String(), days: from.DaysUntil(to) + 1, now: "2026-03-25T10:20:00+01:00", events: specs["long-title"].events}.window(t)
	for width := 10; width <= 200; width++ {
		for i, line := range strings.Split(Month(m, GridOptions{Width: width}), "\n") {
			if n := termWidth(line); n > max(width, MinMonthWidth) {
				t.Fatalf("month at %d columns: line %d is %d columns: %q", width, i+1, n, line)
			}
		}
	}
}

// stripSGR removes the colour sequences the views write.
func stripSGR(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return b.String() + s
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return b.String()
		}
		s = s[i+j+1:]
	}
}

// A window of no days, or of three, is drawn without a fault.
func TestWeekOfOddWindows(t *testing.T) {
	if out := Week(Window{}, GridOptions{Width: 80}); !strings.Contains(out, "Nothing this week.") {
		t.Errorf("an empty window:\n%s", out)
	}
	if out := Month(Window{}, GridOptions{Width: 80}); out != "" {
		t.Errorf("an empty month: %q", out)
	}
	spec := weekSpecs(t)["overlap"]
	spec.days = 3
	out := Week(spec.window(t), GridOptions{Width: 80})
	if !strings.Contains(out, "│Rev…╎+1  │") && !strings.Contains(out, "Review") {
		t.Errorf("three days at 80 columns:\n%s", out)
	}
	if strings.Contains(out, "Thu 10") {
		t.Errorf("three days show a fourth:\n%s", out)
	}
}
