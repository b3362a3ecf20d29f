package args

import (
	"math"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// TestNewSentences pins the sentences of the checks made before any getter.
func TestNewSentences(t *testing.T) {
	accepted := []string{"a", "b", "c"}
	cases := []struct {
		raw      string
		accepted []string
		required []string
		name     string
		want     string
	}{
		{`[1, 2]`, accepted, nil, "",
			`The arguments must be one JSON object of names and values ({"title": "Call mom"}), not “[1, 2]”.`},
		{`{"a": 1,}`, accepted, nil, "",
			`The arguments must be one JSON object of names and values ({"title": "Call mom"}), not “{"a": 1,}”.`},
		{`["` + strings.Repeat("x", 100) + `"]`, accepted, nil, "",
			`The arguments must be one JSON object of names and values ({"title": "Call mom"}), not “["` + strings.Repeat("x", 58) + `…”.`},
		{`{"title":"Dentist","start":"2026-10-0`, accepted, nil, "",
			`The arguments are cut off: the JSON object stops before its end, after “{"title":"Dentist","start":"2026-10-0”; send the whole object again, complete.`},
		{`{"a": "` + strings.Repeat("x", 100) + `"`, accepted, nil, "",
			`The arguments are cut off: the JSON object stops before its end, after “…` + strings.Repeat("x", 59) + `"”; send the whole object again, complete.`},
		{`{"a": [1, {"b": tr`, accepted, nil, "",
			`The arguments are cut off: the JSON object stops before its end, after “{"a": [1, {"b": tr”; send the whole object again, complete.`},
		{`{"a": "\u00`, accepted, nil, "",
			`The arguments are cut off: the JSON object stops before its end, after “{"a": "\u00”; send the whole object again, complete.`},
		{`{"a": 1.`, accepted, nil, "",
			`The arguments are cut off: the JSON object stops before its end, after “{"a": 1.”; send the whole object again, complete.`},
		{`{"a": "x" `, accepted, nil, "",
			`The arguments are cut off: the JSON object stops before its end, after “{"a": "x" ”; send the whole object again, complete.`},
		{`{"a": "\ud800"}`, accepted, nil, "a",
			`“a” is not valid Unicode text (it has broken UTF-8 or a lone surrogate escape such as \ud800); send it again as valid UTF-8.`},
		{"{\"b\": [\"ok\", \"\xff\"]}", accepted, nil, "b",
			`“b” is not valid Unicode text (it has broken UTF-8 or a lone surrogate escape such as \ud800); send it again as valid UTF-8.`},
		{`{"a": "\udc00\ud83d\ude00"}`, accepted, nil, "a",
			`“a” is not valid Unicode text (it has broken UTF-8 or a lone surrogate escape such as \ud800); send it again as valid UTF-8.`},
		{`{"a": "\ud83d\u0041"}`, accepted, nil, "a",
			`“a” is not valid Unicode text (it has broken UTF-8 or a lone surrogate escape such as \ud800); send it again as valid UTF-8.`},
		{`{"\ud800": 1}`, accepted, nil, "",
			`An argument is not valid Unicode text (it has broken UTF-8 or a lone surrogate escape such as \ud800); send it again as valid UTF-8.`},
		{`{"a": ""}`, accepted, []string{"a"}, "a",
			`“a” must not be empty or only white space.`},
		{`{"colour": "red"}`, accepted, nil, "colour",
			`“colour” is not one of this tool's arguments, which are: a, b, c.`},
		{`{"colour": "red"}`, nil, nil, "colour",
			`“colour” is not one of this tool's arguments; it takes none.`},
		{`{"a": null}`, accepted, []string{"a"}, "a",
			`“a” is required and was not given.`},
	}
	for _, c := range cases {
		_, err := New([]byte(c.raw), c.accepted, c.required)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("New(%s) error = %v, want an *Error", c.raw, err)
			continue
		}
		if e.Sentence != c.want || e.Name != c.name {
			t.Errorf("New(%s):\n got %q %s\nwant %q %s", c.raw, e.Name, e.Sentence, c.name, c.want)
		}
	}
}

// TestGetterSentences pins the sentence of every kind of getter failure.
func TestGetterSentences(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	cases := []struct {
		kind  string
		value string // JSON
		read  func(a *Args)
		want  string
	}{
		{"text type", `42`, func(a *Args) { a.Text("x") },
			`“x” must be text (a JSON string), not “42”.`},
		{"needed blank", `"  "`, func(a *Args) { a.Needed("x") },
			`“x” must not be empty or only white space.`},
		{"needed absent", `null`, func(a *Args) { a.Needed("x") },
			`“x” is required and was not given.`},
		{"line type", `["a"]`, func(a *Args) { a.Line("x") },
			`“x” must be one line of text (a JSON string), not “["a"]”.`},
		{"body type", `{"a": 1}`, func(a *Args) { a.Body("x") },
			`“x” must be text (a JSON string), not “{"a": 1}”.`},
		{"flag", `"yes"`, func(a *Args) { a.Flag("x") },
			`“x” must be true or false, not “yes”.`},
		{"number", `0`, func(a *Args) { a.Number("x", 10, 1, 200) },
			`“x” must be a whole number from 1 to 200, not “0”.`},
		{"number unbounded above", `"1.5"`, func(a *Args) { a.Number("x", 0, 0, math.MaxInt) },
			`“x” must be a whole number of at least 0, not “1.5”.`},
		{"number unbounded below", `true`, func(a *Args) { a.Number("x", 0, math.MinInt, 5) },
			`“x” must be a whole number no more than 5, not “true”.`},
		{"number unbounded", `"many"`, func(a *Args) { a.Number("x", 0, math.MinInt, math.MaxInt) },
			`“x” must be a whole number, not “many”.`},
		{"number with a fraction in text", `"15.5"`, func(a *Args) { a.Number("x", 0, 1, 200) },
			`“x” must be a whole number from 1 to 200, not “15.5”.`},
		{"list", `["a", 3]`, func(a *Args) { a.List("x") },
			`“x” must be a list of texts (["home", "errands"]) or one text, not “["a", 3]”.`},
		{"decimal", `"0,9"`, func(a *Args) { a.Decimal("x", 0, 1) },
			`“x” must be a number from 0 to 1, written with a point for any fraction, not “0,9”.`},
		{"decimal unbounded", `"NaN"`, func(a *Args) { a.Decimal("x", math.Inf(-1), math.Inf(1)) },
			`“x” must be a number, written with a point for any fraction, not “NaN”.`},
		{"date form", `"05/10/2026"`, func(a *Args) { a.Date("x") },
			`“x” must be a day (2026-10-05), not “05/10/2026”.`},
		{"date instant", `"2026-10-05T09:00Z"`, func(a *Args) { a.Date("x") },
			`“x” must be a calendar day (2026-10-05), not an instant with an offset or Z such as “2026-10-05T09:00Z”.`},
		{"moment form", `"next friday"`, func(a *Args) { a.Moment("x", paris) },
			`“x” must be a day (2026-10-05) or a day with a time (2026-10-05T09:00), not “next friday”.`},
		{"moment no such day", `"2026-02-30"`, func(a *Args) { a.Moment("x", paris) },
			`“x” must be a day that exists on the calendar, not “2026-02-30”: February 2026 has 28 days.`},
		{"moment clock", `"2026-10-05T24:00"`, func(a *Args) { a.Moment("x", paris) },
			`“x” must have a time of day from 00:00 to 23:59, not “2026-10-05T24:00”.`},
		{"moment year", `"9999-12-31T23:30-01:00"`, func(a *Args) { a.Moment("x", paris) },
			`“x” must fall in the years 0001 to 9999, not “9999-12-31T23:30-01:00”.`},
		{"moment zone", `"2026-10-05T09:00[Europe/Pari]"`, func(a *Args) { a.Moment("x", paris) },
			`“x” must name an IANA time zone in its brackets, not “Europe/Pari”; the closest real name is Europe/Paris.`},
		{"moment long", `"` + strings.Repeat("é", 70) + `"`, func(a *Args) { a.Moment("x", paris) },
			`“x” must be a day (2026-10-05) or a day with a time (2026-10-05T09:00), not “` + strings.Repeat("é", 60) + `…”.`},
		{"moment zone of", `"2026-10-05T9:00"`, func(a *Args) { a.MomentZone("x") },
			`“x” must be a day (2026-10-05) or a day with a time (2026-10-05T09:00), not “2026-10-05T9:00”.`},
		{"zone name", `"Europe/Pari"`, func(a *Args) { a.Zone("x") },
			`“x” must be an IANA time zone name, not “Europe/Pari”; the closest real name is Europe/Paris.`},
		{"zone offset", `"UTC+2"`, func(a *Args) { a.Zone("x") },
			`“x” must be an IANA time zone name such as Europe/Paris, not “UTC+2”; for that fixed offset write Etc/GMT-2 (POSIX inverts the sign).`},
		{"zone abbreviation", `"CEST"`, func(a *Args) { a.SetHome(paris); a.Zone("x") },
			`“x” must be an IANA time zone name, not the abbreviation “CEST”; write the zone of the place, such as Europe/Paris, Europe/Belgrade, Europe/Berlin or Europe/Brussels (UTC+02:00), or one of the 12 other zones that use CEST.`},
		{"zone abbreviation ambiguous", `"IST"`, func(a *Args) { a.Zone("x") },
			`“x” must be an IANA time zone name, not the abbreviation “IST”; write the zone of the place, such as Asia/Jerusalem (UTC+02:00), Europe/Dublin (UTC+01:00) or Asia/Kolkata (UTC+05:30).`},
		{"zone abbreviation and legacy name", `"EST"`, func(a *Args) { a.SetHome(tz.MustZone("America/New_York")); a.Zone("x") },
			`“x” must be an IANA time zone name, not the abbreviation “EST”; write the zone of the place, such as America/New_York, America/Toronto, America/Panama or America/Indiana/Indianapolis (UTC-05:00), or one of the 13 other zones that use EST.`},
		{"moment zone abbreviation", `"2026-10-05T09:00[bst]"`, func(a *Args) { a.Moment("x", paris) },
			`“x” must name an IANA time zone in its brackets, not the abbreviation “bst”; write the zone of the place, such as Europe/London (UTC+01:00).`},
		{"moment zone abbreviation of", `"2026-10-05T09:00[JST]"`, func(a *Args) { a.MomentZone("x") },
			`“x” must name an IANA time zone in its brackets, not the abbreviation “JST”; write the zone of the place, such as Asia/Tokyo (UTC+09:00).`},
		{"zone far", `"Qqqqqqqqqq"`, func(a *Args) { a.Zone("x") },
			`“x” must be an IANA time zone name such as Europe/Paris or America/New_York, not “Qqqqqqqqqq”.`},
		{"zone characters", `"Europe[Paris]"`, func(a *Args) { a.Zone("x") },
			`“x” must be an IANA time zone name (Europe/Paris), not “Europe[Paris]”.`},
		{"zone type", `1`, func(a *Args) { a.Zone("x") },
			`“x” must be an IANA time zone name (Europe/Paris), not “1”.`},
		{"one of", `"urgent"`, func(a *Args) { a.OneOf("x", "normal", "low", "normal", "high") },
			`“x” must be one of low, normal or high, not “urgent”.`},
		{"number list", `[10, "x"]`, func(a *Args) { a.NumberList("x", 0, 10080) },
			`“x” must be a list of whole numbers from 0 to 10080 ([0, 1]), not “x”.`},
		{"moment list", `["2026-10-05", "tomorrow"]`, func(a *Args) { a.MomentList("x", paris) },
			`“x” must be a day (2026-10-05) or a day with a time (2026-10-05T09:00), not “tomorrow”.`},
		{"moment with a now", `"friday-ish"`, func(a *Args) { a.SetNow(tuesday); a.Moment("x", paris) },
			`“x” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “friday-ish”.`},
		{"date with a now", `"someday"`, func(a *Args) { a.SetNow(tuesday); a.Date("x") },
			`“x” must be a day (2026-10-05) or a word such as tomorrow, not “someday”.`},
		{"time already past", `"8:30am"`, func(a *Args) { a.SetHome(paris); a.SetNow(tuesday); a.When("x", paris) },
			`“x” “8:30am” is already past today (it is Tue 2026-12-01 10:00 in Europe/Paris); write tomorrow 8:30am, or a day and time such as 2026-12-02T09:00.`},
		{"length", `"90 mins and"`, func(a *Args) { a.Minutes("x", 0, 1, 44640) },
			`“x” must be a number of minutes from 1 to 44640 (90) or a length such as 1h30m, 90 min or PT1H30M, not “90 mins and”.`},
		{"lengths", `[15, "1h", "1 fortnight"]`, func(a *Args) { a.MinutesList("x", 0, 40320) },
			`“x” must be a list of lengths from 0 to 40320 minutes, each a number of minutes or a length such as 1h30m, as in [0, 1] or ["15m", "1h"], not “1 fortnight”.`},
		{"value on one line", `"a\nb\u202ec"`, func(a *Args) { a.Flag("x") },
			`“x” must be true or false, not “a bc”.`},
	}
	for _, c := range cases {
		a, err := New([]byte(`{"x": `+c.value+`}`), []string{"x"}, nil)
		if err != nil {
			t.Fatalf("%s: New: %v", c.kind, err)
		}
		c.read(a)
		e, ok := a.Err().(*Error)
		if !ok {
			t.Errorf("%s: Err() = %v, want an *Error", c.kind, a.Err())
			continue
		}
		if e.Name != "x" || e.Sentence != c.want {
			t.Errorf("%s:\n got %q %s\nwant %s", c.kind, e.Name, e.Sentence, c.want)
		}
	}
}

// TestSticky checks that the first failure is kept and later getters give
// zero values.
func TestSticky(t *testing.T) {
	a, err := New([]byte(`{"n": "many", "f": "x", "t": "kept"}`), []string{"n", "f", "t"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := a.Number("n", 5, 1, 10); n != 0 {
		t.Errorf("Number after failure = %d, want 0", n)
	}
	a.Flag("f")
	if s := a.Text("t"); s != "" {
		t.Errorf("Text after failure = %q, want \"\"", s)
	}
	if e := a.Err().(*Error); e.Name != "n" {
		t.Errorf("kept failure names %q, want the first, n", e.Name)
	}
}
