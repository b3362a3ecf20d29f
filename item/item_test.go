package item

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFitNotes(t *testing.T) {
	cases := []struct {
		notes      string
		room       int
		head, tail string
	}{
		{"short", 100, "short", "short"},
		{strings.Repeat("𝄞", 10), 9, "𝄞𝄞", "[8 more characters"},
		{"first line\nsecond line that is long", 20, "first line\nsecond\n[", "[18 more characters"},
		{"abc", -5, "\n[", "[3 more characters"},
	}
	for _, c := range cases {
		got := FitNotes(c.notes, c.room)
		if !utf8.ValidString(got) || !strings.HasPrefix(got, c.head) || !strings.Contains(got, c.tail) {
			t.Errorf("FitNotes(%q, %d) = %q, want it to start %q and hold %q", c.notes, c.room, got, c.head, c.tail)
		}
	}
}

func TestFoldText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Buy MILK", "buy milk"},
		{"Crème Brûlée", "creme brulee"},
		{"Straße", "strasse"},
		{"STRAẞE", "strasse"},
		{"ﬁnance ﬂow", "finance flow"},
		{"Ｔｅａｍ", "team"},
		{"x²", "x2"},
		{"ΟΔΟΣ οδος", "οδοσ οδοσ"},
		{"Team\u200b sync", "team sync"},
		{"ǰ", "j"},
		{"Æsir ÆSIR", "aesir aesir"},
		{"Œuvre cœur", "oeuvre coeur"},
		{"ĳs", "ijs"},
		{"İstanbul ISTANBUL", "istanbul istanbul"},
		{"Diyarbakır DIYARBAKIR", "diyarbakir diyarbakir"},
		{"Øre Łódź Đuro Þing", "ore lodz duro thing"},
		{"\u200d\u0301\u2060", ""},
	} {
		if got := FoldText(c.in); got != c.want {
			t.Errorf("FoldText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
