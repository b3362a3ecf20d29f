package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/tz"
)

// Found cases are kept under testdata/fuzz/<FuzzName>/ and replayed by
// every plain go test run.

var fuzzZones = []tz.Zone{
	tz.MustZone("Europe/Paris"),
	tz.MustZone("America/Santiago"),
	tz.MustZone("Australia/Lord_Howe"),
	tz.MustZone("Pacific/Kiritimati"),
}

// stringArgs makes {"x": s} with s as a JSON string.
func stringArgs(t *testing.T, s string) *Args {
	value, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return one(t, value)
}

func FuzzMoment(f *testing.F) {
	for _, s := range []string{"2026-10-05", "20261005", "+002026-10-05", "2026-10-05T09:00", "2026-10-05t0900",
		"2026-10-05 09", "2026-10-05T23:59:60.5", "2026-10-05T07:00Z", "2026-10-05T09:00-00:00",
		"2026-10-05T09:00+05:00[Europe/Paris]", "2026-10-05T09:00[America/New_York]", "2026-10-05T09:00[+03:00]",
		"2026-03-29T02:30", "0001-01-01T00:00+14:00", "9999-12-31T23:59-14:00", "2026-10-05T09:00[!UTC]",
		"2026-10-05T09:00[CEST]", "2026-10-05T09:00[est]", "2026-10-05T09:00[GMT]", "", "  "} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, zi uint8) {
		zone := fuzzZones[int(zi)%len(fuzzZones)]
		a := stringArgs(t, s)
		m, ok := a.Moment("x", zone)
		if !ok {
			if a.Err() == nil {
				if strings.TrimSpace(CleanLine(s)) == "" {
					return // blank (white space, invisible characters) reads as not given
				}
				t.Fatalf("Moment(%q) = not ok without an error", s)
			}
			checkSentence(t, a.Err(), "x")
			return
		}
		if a.Err() != nil {
			t.Fatalf("Moment(%q) ok with error %v", s, a.Err())
		}
		if d, ok := tz.NewDate(m.Year, m.Month, m.Day); !ok || d != m.Date {
			t.Fatalf("Moment(%q) = %+v: not a valid day", s, m)
		}
		if m.HasTime && (m.Hour < 0 || m.Hour > 23 || m.Minute < 0 || m.Minute > 59) {
			t.Fatalf("Moment(%q) = %+v: not a valid minute", s, m)
		}
		if !m.HasTime && (m.Hour != 0 || m.Minute != 0) {
			t.Fatalf("Moment(%q) = %+v: a day with a clock", s, m)
		}
		// canonical text reads back as itself, in any zone
		text := m.String()
		b := stringArgs(t, text)
		back, ok := b.Moment("x", fuzzZones[(int(zi)+1)%len(fuzzZones)])
		if !ok || back != m || back.String() != text {
			t.Fatalf("Moment(%q) = %s, which reads back as %s (%v)", s, text, back, b.Err())
		}
		// a date-only input stays that day, and Date agrees on plain forms
		if c := stringArgs(t, s); !m.HasTime {
			if d, ok := c.Date("x"); !ok || d != m.Date {
				t.Fatalf("Date(%q) = %v %v, Moment gives %s", s, d, c.Err(), m)
			}
		}
	})
}

func FuzzNumber(f *testing.F) {
	for _, s := range []string{`15`, `15.0`, `"15"`, `" +15 "`, `1e3`, `15.5`, `"15.0"`, `""`, `"1e3"`, `true`, `-0`,
		`99999999999999999999`, `"-9223372036854775808"`, `999999999999999.0`, `1e15`, `"+-1"`, `[1]`, `null`,
		`"15.00"`, `"15."`, `"-0.0"`, `".0"`, `"+15.0"`, `"9223372036854775807.0"`, `"1.0.0"`, `"  "`} {
		f.Add(s, int64(1), int64(200))
	}
	f.Fuzz(func(t *testing.T, value string, least, most int64) {
		a, err := New([]byte(`{"x":`+value+`}`), []string{"x"}, nil)
		if err != nil {
			return
		}
		const def = 7
		n := a.Number("x", def, int(least), int(most))
		if a.Err() != nil {
			checkSentence(t, a.Err(), "x")
			if n != 0 {
				t.Fatalf("Number(%s) = %d with an error", value, n)
			}
			return
		}
		if !a.Has("x") {
			if n != def {
				t.Fatalf("Number(%s) = %d, want the default", value, n)
			}
			return
		}
		if n < int(least) || n > int(most) {
			t.Fatalf("Number(%s) = %d, outside [%d, %d]", value, n, least, most)
		}
		// the value must really be that whole number
		v, _ := a.lookup("x")
		text := v.text
		if v.kind == kindString {
			text = strings.TrimPrefix(strings.TrimSpace(v.str()), "+")
		}
		f, err := json.Number(text).Float64()
		if err != nil || f != float64(n) && math.Abs(f) < 1<<53 {
			t.Fatalf("Number(%s) = %d, but the value reads as %v (%v)", value, n, f, err)
		}
	})
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"Call\nmom\tnow", "a\u0007b\u202e", "\n\t", "a\r\nb", "\u2066x\u2069", "\x00\x01", "é\u0085\u2028\u2029", "\xff",
		"Team\u200b sync", "\ufeffx", "👩\u200d💻", "\u200da\u200d", "a\u200d\u200c\u200db", "क्\u200dष", "🏴\U000E0067\U000E007F", "x\U000E0067",
		"\u0600\u0661", "a\u200d\n\u200db", "\u200d\u200d", "a\u00ad"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := stringArgs(t, s)
		line := a.Line("x")
		if a.Err() != nil {
			t.Fatalf("Line(%q): %v", s, a.Err())
		}
		if !utf8.ValidString(line) {
			t.Fatalf("Line(%q) = %q: not UTF-8", s, line)
		}
		var prev rune
		for i, r := range line {
			if unicode.IsControl(r) || isBidiControl(r) || isSeparator(r) {
				t.Fatalf("Line(%q) = %q keeps %U", s, line, r)
			}
			if unicode.Is(unicode.Cf, r) {
				next, _ := utf8.DecodeRuneInString(line[i+utf8.RuneLen(r):])
				switch {
				case isPrependedMark(r):
				case isJoiner(r) && joinable(prev) && joinable(next):
				case isTag(r) && (prev == 0x1f3f4 || isTag(prev)):
				default:
					t.Fatalf("Line(%q) = %q keeps the format character %U where it joins nothing", s, line, r)
				}
			}
			prev = r
		}
		if line != strings.TrimSpace(line) {
			t.Fatalf("Line(%q) = %q is not trimmed", s, line)
		}
		if again := stringArgs(t, line).Line("x"); again != line {
			t.Fatalf("Line is not stable: %q then %q", line, again)
		}
		needed := stringArgs(t, s)
		if got := needed.NeededLine("x"); got != line || (line == "") != (needed.Err() != nil) {
			t.Fatalf("NeededLine(%q) = %q, %v; Line gives %q", s, got, needed.Err(), line)
		}
		body := stringArgs(t, s).Body("x")
		for _, r := range body {
			if unicode.IsControl(r) && r != '\n' && r != '\t' {
				t.Fatalf("Body(%q) = %q keeps %U", s, body, r)
			}
		}
	})
}

// FuzzNew holds the hand-written JSON reader to encoding/json: the same
// inputs are accepted, with the same names and the same string values.
func FuzzNew(f *testing.F) {
	for _, s := range []string{`{}`, `null`, ``, `{"a":"b","a":null}`, `{"a":[1,{"b":"\u00e9"}],"c":-0.5e+3}`,
		`{"\ud800":"\udc00\ud800"}`, "{\"a\":\"\xff\"}", `[1]`, `{"a":tru}`, `{"a":1}x`, `{"a":"\ud83d\ude00"}`,
		`{"title":"Dentist","start":"2026-10-0`, `{"a":"\u00`, `{"a":[1,{"b":fa`, `{"a":""}`, `{"a":"\ud83d\u0041"}`, `{"a":["\ude00"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want map[string]any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		werr := d.Decode(&want)
		if werr == nil {
			if _, err := d.Token(); err != io.EOF {
				werr = errors.New("data after the value")
			}
		}
		if len(bytes.TrimLeft(raw, " \t\r\n")) == 0 {
			werr, want = nil, nil // empty input reads as {}
		}
		names := make([]string, 0, len(want))
		for k := range want {
			names = append(names, k)
		}
		a, err := New(raw, names, nil)
		if werr == nil && !validUnicode(raw) {
			// encoding/json keeps U+FFFD for these; New refuses them,
			// naming the argument when its name is a real one.
			if e, ok := err.(*Error); !ok || !strings.Contains(e.Sentence, "not valid Unicode") {
				t.Fatalf("New(%q) = %v, want a refusal of text that is not valid Unicode", raw, err)
			}
			return
		}
		if name, ok := twiceByJSON(raw); werr == nil && ok {
			// encoding/json keeps the last value; New refuses the two.
			if e, ok := err.(*Error); !ok || e.Name != name || !strings.Contains(e.Sentence, "is given twice") {
				t.Fatalf("New(%q) = %v, want %q refused as given twice", raw, err, name)
			}
			return
		}
		if (err != nil) != (werr != nil) {
			t.Fatalf("New(%q) error %v; encoding/json: %v", raw, err, werr)
		}
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Name != "" {
				t.Fatalf("New(%q) error %#v: want an *Error for the arguments as a whole", raw, err)
			}
			return
		}
		var present []string
		for k, v := range want {
			if s, ok := v.(string); v != nil && (!ok || strings.TrimSpace(s) != "") {
				present = append(present, k)
			}
			if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
				got, _ := a.lookup(k)
				if got.kind != kindString || got.str() != s {
					t.Fatalf("New(%q)[%q] = %q, encoding/json gives %q", raw, k, got.str(), s)
				}
			}
		}
		slices.Sort(present)
		if got := a.Names(); !slices.Equal(got, present) {
			t.Fatalf("New(%q).Names() = %q, want %q", raw, got, present)
		}
	})
}

// validUnicode reports JSON text (valid for encoding/json) whose strings
// are all valid Unicode: valid UTF-8 and every \u surrogate escape in a
// high-low pair. It is written apart from the reader, to check it.
func validUnicode(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	s := string(raw)
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		i++
		if s[i] != 'u' {
			continue
		}
		r, _ := strconv.ParseUint(s[i+1:i+5], 16, 32)
		i += 4
		switch {
		case r >= 0xdc00 && r <= 0xdfff:
			return false
		case r >= 0xd800 && r <= 0xdbff:
			if i+6 >= len(s) || s[i+1] != '\\' || s[i+2] != 'u' {
				return false
			}
			r2, _ := strconv.ParseUint(s[i+3:i+7], 16, 32)
			if r2 < 0xdc00 || r2 > 0xdfff {
				return false
			}
			i += 6
		}
	}
	return true
}

// twiceByJSON reports the first name of the JSON object raw given a second
// time with another value (another string, or other JSON text), read with
// encoding/json's tokens (JSON alike but for white space is one value);
// ok is false when there is none or raw is no object.
func twiceByJSON(raw []byte) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	seen := map[string]json.RawMessage{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return "", false
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return "", false
		}
		before, ok := seen[name]
		if !ok {
			seen[name] = v
			continue
		}
		var a, b string
		if json.Unmarshal(before, &a) == nil && json.Unmarshal(v, &b) == nil {
			if a != b {
				return name, true
			}
			continue
		}
		var cb, cv bytes.Buffer
		if json.Compact(&cb, before) != nil || json.Compact(&cv, v) != nil || !bytes.Equal(cb.Bytes(), cv.Bytes()) {
			return name, true
		}
	}
	return "", false
}
