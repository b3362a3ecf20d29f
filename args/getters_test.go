package args

import (
	"reflect"
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
		{`{"a": 1, "a": null}`, nil}, // the last value counts
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
		{`"\ud800x"`, func(a *Args) any { return a.Text("x") }, "\uFFFDx"},
		{`"   "`, func(a *Args) any { return a.List("x") }, []string(nil)},
		{`"HIGH"`, func(a *Args) any { return a.OneOf("x", "normal", "low", "normal", "high") }, "high"},
		{`" "`, func(a *Args) any { return a.OneOf("x", "normal", "low", "normal", "high") }, "normal"},
		{`null`, func(a *Args) any { return a.OneOf("x", "normal", "low", "normal", "high") }, "normal"},
		{`[10, "60", 1e3]`, func(a *Args) any { return a.NumberList("x", 0, 10080) }, []int{10, 60, 1000}},
		{`" 15 "`, func(a *Args) any { return a.NumberList("x", 0, 10080) }, []int{15}},
		{`[]`, func(a *Args) any { return a.NumberList("x", 0, 10080) }, []int(nil)},
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
	for _, s := range []string{"", "2026-10-05T", "2026-10-05Z", "2026-10-05T09:00+24:00", "2026-10-05T09:00[]",
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
