package args

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

func TestNewAccepts(t *testing.T) {
	cases := []struct {
		raw   string
		names []string
	}{
		{``, nil},
		{"  \n", nil},
		{`null`, nil},
		{` {} `, nil},
		{`{"b": 1, "a": null}`, []string{"b"}},
		{`{"a": 1, "a": 1}`, []string{"a"}}, // the same value twice counts once
		{`{"a": "x", "a": "\u0078"}`, []string{"a"}},
		{`{"\u0061": "x", "c": [1, {"d": [true]}]}`, []string{"a", "c"}},
	}
	for _, c := range cases {
		a, err := New([]byte(c.raw), []string{"a", "b", "c"}, nil)
		if err != nil {
			t.Errorf("New(%q): %v", c.raw, err)
			continue
		}
		if got := a.Names(); !reflect.DeepEqual(got, c.names) {
			t.Errorf("New(%q).Names() = %v, want %v", c.raw, got, c.names)
		}
	}
	for _, raw := range []string{`nul`, `{"a":1} x`, `"a"`, `{"a":01}`, `{"a":"\x"}`, `{"a":[1,]}`, `{a:1}`, "{\"a\":\"\x01\"}"} {
		if _, err := New([]byte(raw), []string{"a"}, nil); err == nil {
			t.Errorf("New(%q) accepted invalid arguments", raw)
		}
	}
}

func TestGetters(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	cases := []struct {
		value string // JSON
		read  func(a *Args) any
		want  any
	}{
		{`"a\r\nb\u2028c\u0085d\u2066e"`, func(a *Args) any { return a.Line("x") }, "a b c de"},
		{`"  plain  "`, func(a *Args) any { return a.Line("x") }, "plain"},
		{`"a\rb\u0085c\u0000d\t \n"`, func(a *Args) any { return a.Body("x") }, "a\nb\ncd"},
		{`"\n\n  x"`, func(a *Args) any { return a.Body("x") }, "\n\n  x"},
		{`"caf\u00e9 \ud83d\ude00"`, func(a *Args) any { return a.Text("x") }, "café 😀"},
		{`"   "`, func(a *Args) any { return a.List("x") }, []string(nil)},
		{`"HIGH"`, func(a *Args) any { return a.OneOf("x", "normal", "low", "normal", "high") }, "high"},
		{`" "`, func(a *Args) any { return a.OneOf("x", "normal", "low", "normal", "high") }, "normal"},
		{`null`, func(a *Args) any { return a.OneOf("x", "normal", "low", "normal", "high") }, "normal"},
		{`[10, "60", 1e3]`, func(a *Args) any { return a.NumberList("x", 0, 10080) }, []int{10, 60, 1000}},
		{`" 15 "`, func(a *Args) any { return a.NumberList("x", 0, 10080) }, []int{15}},
		{`[]`, func(a *Args) any { return a.NumberList("x", 0, 10080) }, []int(nil)},
		{`["", 5, " "]`, func(a *Args) any { return a.NumberList("x", 0, 10080) }, []int{5}},
		{`["", "2026-10-05"]`, func(a *Args) any { return moments(a.MomentList("x", paris)) }, "2026-10-05"},
		{`-7`, func(a *Args) any { return a.Number("x", 0, -10, 10) }, -7},
		{`"-7"`, func(a *Args) any { return a.Number("x", 0, -10, 10) }, -7},
		{`-0.0`, func(a *Args) any { return a.Number("x", 5, -10, 10) }, 0},
		{`"1e3"`, func(a *Args) any { f, _ := a.Decimal("x", 0, 5000); return f }, 1000.0},
		{`-2.5e-1`, func(a *Args) any { f, _ := a.Decimal("x", -1, 1); return f }, -0.25},
		{`"9."`, func(a *Args) any { f, _ := a.Decimal("x", 0, 10); return f }, 9.0},
		{`null`, func(a *Args) any { _, ok := a.Decimal("x", 0, 10); return ok }, false},
		{`"Asia/Tokyo"`, func(a *Args) any { z, _ := a.Zone("x"); return z.Name() }, "Asia/Tokyo"},
		{`""`, func(a *Args) any { _, ok := a.Zone("x"); return ok }, false},
		{`"2026-10-05T09:00[America/New_York]"`, func(a *Args) any { z, _ := a.MomentZone("x"); return z.Name() }, "America/New_York"},
		{`"2026-10-05T09:00[!Asia/Tokyo]"`, func(a *Args) any { z, _ := a.MomentZone("x"); return z.Name() }, "Asia/Tokyo"},
		{`"2026-10-05T09:00[+03:00]"`, func(a *Args) any { _, ok := a.MomentZone("x"); return ok }, false},
		{`"2026-10-05T09:00"`, func(a *Args) any { _, ok := a.MomentZone("x"); return ok }, false},
		{`"2026-10-05T23:30[America/New_York]"`, func(a *Args) any { d, _ := a.Date("x"); return d.String() }, "2026-10-05"},
		{`"+0020261005"`, func(a *Args) any { d, _ := a.Date("x"); return d.String() }, "2026-10-05"},
		{`["2026-10-05", "2026-10-05T07:00Z"]`, func(a *Args) any { return moments(a.MomentList("x", paris)) }, "2026-10-05 2026-10-05T09:00"},
		{`"20261005T070000Z"`, func(a *Args) any { return moments(a.MomentList("x", paris)) }, "2026-10-05T09:00"},
		{`"2026-03-29T02:30[Europe/Paris]"`, func(a *Args) any { m, _ := a.Moment("x", paris); return m.String() }, "2026-03-29T03:30"},
		{`"2026-10-25T02:30[Europe/Paris]"`, func(a *Args) any { m, _ := a.Moment("x", tz.UTC); return m.String() }, "2026-10-25T00:30"},
		{`"2026-10-05T09:00-0530"`, func(a *Args) any { m, _ := a.Moment("x", tz.UTC); return m.String() }, "2026-10-05T14:30"},
		{`"2026-10-05[+05:00]"`, func(a *Args) any { m, _ := a.Moment("x", paris); return m.String() }, "2026-10-05"},
	}
	for _, c := range cases {
		a := oneOf(t, c.value)
		got := c.read(a)
		if a.Err() != nil {
			t.Errorf("%s: %v", c.value, a.Err())
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.value, got, c.want)
		}
	}
}

func TestMomentRefused(t *testing.T) {
	for _, s := range []string{"2026-10-05T", "2026-10-05Z", "2026-10-05T09:00+24:00", "2026-10-05T09:00[]",
		"2026-10-05T09:00[Europe/Paris", "2026-10-05T09:00[Europe/Paris][u-ca=iso8601]", "2026-10-05T09:00:00.1234567890",
		"2026-10-05T09:0", "202610-05", "2026-1005", "-000000-10-05", "0000-01-01", "2026-10-05T09:60",
		"2026-10-05T09:00[../etc/passwd]", "2026-10-05T09:00+02:00:00"} {
		value := `"` + s + `"`
		a := oneOf(t, value)
		if m, ok := a.Moment("x", tz.UTC); ok || a.Err() == nil {
			t.Errorf("Moment(%q) = %v, want an error", s, m)
		}
	}
}

func moments(list []tz.Moment) string {
	s := ""
	for i, m := range list {
		if i > 0 {
			s += " "
		}
		s += m.String()
	}
	return s
}

func oneOf(t *testing.T, value string) *Args {
	t.Helper()
	return one(t, []byte(value))
}

// TestBlankIsNotGiven checks that "" (or only white space) reads as an
// argument not given, for every getter, Has and Names.
func TestBlankIsNotGiven(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	for _, value := range []string{`""`, `"  "`, `"\n\t"`, `"\u0020"`} {
		a := oneOf(t, value)
		if a.Has("x") || len(a.Names()) != 0 {
			t.Errorf("%s: Has %v, Names %v; want not given", value, a.Has("x"), a.Names())
		}
		reads := []struct {
			name string
			got  any
			want any
		}{
			{"Number", a.Number("x", 7, 1, 10), 7},
			{"NumberList", a.NumberList("x", 1, 10), []int(nil)},
			{"Flag", a.Flag("x"), false},
			{"Decimal", func() bool { _, ok := a.Decimal("x", 0, 1); return ok }(), false},
			{"Moment", func() bool { _, ok := a.Moment("x", paris); return ok }(), false},
			{"MomentZone", func() bool { _, ok := a.MomentZone("x"); return ok }(), false},
			{"MomentList", a.MomentList("x", paris), []tz.Moment(nil)},
			{"Date", func() bool { _, ok := a.Date("x"); return ok }(), false},
			{"Zone", func() bool { _, ok := a.Zone("x"); return ok }(), false},
			{"Line", a.Line("x"), ""},
			{"Body", a.Body("x"), ""},
			{"List", a.List("x"), []string(nil)},
			{"OneOf", a.OneOf("x", "b", "a", "b"), "b"},
		}
		for _, r := range reads {
			if !reflect.DeepEqual(r.got, r.want) {
				t.Errorf("%s of %s = %#v, want %#v", r.name, value, r.got, r.want)
			}
		}
		if a.Err() != nil {
			t.Errorf("%s: %v", value, a.Err())
		}
		if b := oneOf(t, value); b.NeededLine("x") != "" || b.Err() == nil || b.Err().Error() != "“x” must not be empty or only white space." {
			t.Errorf("NeededLine of %s: %v", value, b.Err())
		}
	}
}

// TestWholeNumberText checks that a whole number written as text with a
// zero fraction ("15.0") reads as that number, and a real fraction does not.
func TestWholeNumberText(t *testing.T) {
	for value, want := range map[string]int{`"15.0"`: 15, `" +15.00 "`: 15, `"-3.0"`: -3, `"0.0"`: 0, `"100.000000"`: 100} {
		a := oneOf(t, value)
		if got := a.Number("x", 7, -10, 200); got != want || a.Err() != nil {
			t.Errorf("Number(%s) = %d, %v; want %d", value, got, a.Err(), want)
		}
	}
	for _, value := range []string{`"15.5"`, `"15."`, `".0"`, `"15.0.0"`, `"1e3"`, `"15,0"`, `"15.0x"`, `"+-15.0"`, `"15.000000000000001"`} {
		a := oneOf(t, value)
		if got := a.Number("x", 7, -10, 2000); a.Err() == nil {
			t.Errorf("Number(%s) = %d, want an error", value, got)
		}
	}
}

// TestInvisibleCharacters checks that Line drops the format characters
// (Unicode Cf) a text can hide, keeps the joiners where they join, and that
// Body drops only a leading byte order mark.
func TestInvisibleCharacters(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Team\u200b sync", "Team sync"},
		{"\ufeffTeam sync\u2060", "Team sync"},
		{"co\u00adoperate", "cooperate"},
		{"a\u180eb\u200ec\u200fd\u061ce", "abcde"},
		{"\u202aLRE\u202c \u2067RLI\u2069", "LRE RLI"},
		{"x\ufff9y\ufffaz\ufffb", "xyz"},
		{"👩\u200d💻 pairing", "👩\u200d💻 pairing"},           // ZWJ sequence
		{"👨🏽\u200d🚀", "👨🏽\u200d🚀"},                         // after an emoji modifier
		{"❤\ufe0f\u200d🔥", "❤\ufe0f\u200d🔥"},               // after a variation selector
		{"क्\u200dष", "क्\u200dष"},                         // Devanagari half form
		{"می\u200cخواهم", "می\u200cخواهم"},                 // Persian ZWNJ
		{"\u200dTeam\u200d \u200csync\u200c", "Team sync"}, // joining nothing
		{"a\u200d\u200db", "a\u200db"},                     // one joiner between two letters
		{"1\u200d2", "12"},                                 // digits are not joined
		{"🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", "🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"},
		{"tag\U000E0067 here", "tag here"},           // a tag outside a flag
		{"\u0600\u0661\u0662", "\u0600\u0661\u0662"}, // Arabic number sign is drawn
	}
	for _, c := range cases {
		if got := stringArgs(t, c.in).Line("x"); got != c.want {
			t.Errorf("Line(%+q) = %+q, want %+q", c.in, got, c.want)
		}
	}
	if got := stringArgs(t, "\ufeffline one\n\u200bkept").Body("x"); got != "line one\n\u200bkept" {
		t.Errorf("Body = %+q, want the BOM dropped and the rest kept", got)
	}
}

// A time with an offset or Z is one instant, kept in the repeated hour of
// a fall-back change: the reading carries Fold, so the zone gives back the
// instant written; a plain time, or one with only a bracketed zone, is the
// first of the two (RFC 5545 §3.3.5).
func TestMomentKeepsTheInstantInTheRepeatedHour(t *testing.T) {
	paris, ny := tz.MustZone("Europe/Paris"), tz.MustZone("America/New_York")
	cases := []struct {
		in   string
		zone tz.Zone
		want time.Time
	}{
		{"2026-10-25T01:30Z", paris, time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC)},
		{"2026-10-25T02:30+01:00", paris, time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC)},
		{"2026-10-25T02:30[+01:00]", paris, time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC)},
		{"2026-10-25T02:30+02:00", paris, time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)},
		{"2026-10-25T02:30", paris, time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)},
		{"2026-10-25T02:30[Europe/Paris]", paris, time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)},
		{"2026-11-01T06:30Z", ny, time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC)},
		{"2026-10-25T01:30Z", ny, time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		a := oneOf(t, `"`+c.in+`"`)
		m, ok := a.Moment("x", c.zone)
		if !ok {
			t.Fatalf("Moment(%q): %v", c.in, a.Err())
		}
		if got, _ := c.zone.Instant(m.DateTime); !got.Equal(c.want) {
			t.Errorf("Moment(%q) in %s = %s (fold %v), the instant %s, want %s", c.in, c.zone, m, m.Fold, got.UTC(), c.want)
		}
	}
}

// A value with an invisible character pasted in (U+200B, U+FEFF, U+2060)
// reads as the value it looks like, for every getter of one value, and a
// value of nothing but such characters is absent.
func TestInvisibleCharactersInValues(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	for _, inv := range []string{"\u200b", "\ufeff", "\u2060", "\u00ad"} {
		if m, ok := stringArgs(t, inv+"2026-10-05"+inv).Moment("x", paris); !ok || m.String() != "2026-10-05" {
			t.Errorf("Moment with %+q: %v %v", inv, m, ok)
		}
		if z, ok := stringArgs(t, inv+"Europe/Paris").Zone("x"); !ok || z.Name() != "Europe/Paris" {
			t.Errorf("Zone with %+q: %v %v", inv, z.Name(), ok)
		}
		if n := stringArgs(t, inv+"15").Number("x", 0, 1, 100); n != 15 {
			t.Errorf("Number with %+q: %d", inv, n)
		}
		if f := stringArgs(t, "true"+inv).Flag("x"); !f {
			t.Errorf("Flag with %+q: false", inv)
		}
		if c := stringArgs(t, inv+"done").OneOf("x", "open", "open", "done"); c != "done" {
			t.Errorf("OneOf with %+q: %q", inv, c)
		}
		if a := stringArgs(t, inv+" "+inv); a.Has("x") || a.Text("x") != "" || a.Err() != nil {
			t.Errorf("a value of only %+q is not absent", inv)
		}
	}
}

// An offset that contradicts a bracketed zone or offset marked critical
// ("!") is refused in one sentence (RFC 9557 §3.4: it must be acted on);
// without "!" the offset wins; Z with a zone, and an offset the zone has
// then, are kept.
func TestMomentOffsetContradictsZone(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2026-10-25T02:30+05:00[!Europe/Paris]", "“x” has the offset +05:00, but Europe/Paris is at +02:00 then; write 2026-10-25T02:30+02:00[Europe/Paris], or leave out the offset or the zone."},
		{"2026-10-05T09:00-04:00[!Europe/Paris]", "Europe/Paris is at +02:00"},
		{"2026-10-05T09:00-04:00[Europe/Paris]", ""},
		{"2026-10-05T09:00+02:00[!+03:00]", "“x” has the offset +02:00 and, in brackets, the offset +03:00; write one of them."},
		{"2026-10-25T02:30+01:00[Europe/Paris]", ""},
		{"2026-10-25T02:30+02:00[!Europe/Paris]", ""},
		{"2026-10-25T02:30Z[Europe/Paris]", ""},
	} {
		a := oneOf(t, `"`+c.in+`"`)
		_, ok := a.Moment("x", tz.UTC)
		switch {
		case c.want == "" && !ok:
			t.Errorf("%s: refused: %v", c.in, a.Err())
		case c.want != "" && (ok || a.Err() == nil || !strings.Contains(a.Err().Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.in, a.Err(), c.want)
		}
	}
}

// A zone made only of invisible characters is blank, as if not given,
// not a name to suggest a zone for.
func TestZoneOnlyInvisibleIsBlank(t *testing.T) {
	for _, s := range []string{`"\u200b"`, `"\ufeff\u00ad"`, `" \u2060 "`} {
		a := oneOf(t, s)
		if z, ok := a.Zone("x"); ok || a.Err() != nil {
			t.Errorf("Zone(%s) = %v, %v; want blank", s, z, a.Err())
		}
	}
}

// TestGivenTwice: a name given twice is refused naming both values unless
// they are one value (the same text, or JSON alike but for white space);
// CheckNames says the same for a front that decodes with encoding/json.
func TestGivenTwice(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"a":"x","a":"y"}`, "“a” is given twice, as “x” and as “y”; give it once, with the value you mean."},
		{`{"a":1,"a":"1"}`, "“a” is given twice, as “1” and as “\"1\"”; give it once, with the value you mean."},
		{`{"a":1,"a":1.0}`, "“a” is given twice, as “1” and as “1.0”; give it once, with the value you mean."},
		{`{"a":["x","y"],"a":["y","x"]}`, "“a” is given twice"},
		{`{"a":["x","y"],"a":[ "x" , "y" ]}`, ""},
		{`{"a":"x","a":"\u0078"}`, ""},
		{`{"a":{"b":1},"a":{ "b": 1 }}`, ""},
	} {
		_, err := New([]byte(c.raw), []string{"a"}, nil)
		checked := CheckNames([]byte(c.raw))
		for _, got := range []error{err, checked} {
			switch {
			case c.want == "" && got != nil:
				t.Errorf("%s: %v, want it taken", c.raw, got)
			case c.want != "" && (got == nil || !strings.Contains(got.Error(), c.want)):
				t.Errorf("%s: %v, want %q", c.raw, got, c.want)
			}
		}
	}
}
