package tools

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSniff(t *testing.T) {
	cases := []struct {
		code int
		text string
		want string // "" = no data
	}{
		{CodeOK, `{"a":1}`, `{"a":1}`},
		{CodeOK, "  [1,2] \n", `[1,2]`},
		{CodeOK, `"x"`, `"x"`},
		{CodeOK, `42`, `42`},
		{CodeOK, `true`, `true`},
		{CodeOK, `null`, `null`},
		{CodeOK, `{"a":1} trailing`, ``},
		{CodeOK, `Added t12 "Milk".`, ``},
		{CodeOK, ``, ``},
		{CodeOK, `{"a":1}{"b":2}`, ``},
		{CodeInvalid, `{"a":1}`, ``},
	}
	for _, c := range cases {
		got := string(Sniff(c.code, c.text))
		if got != c.want {
			t.Errorf("Sniff(%d, %q) = %q, want %q", c.code, c.text, got, c.want)
		}
	}
}

func TestConstructors(t *testing.T) {
	type row struct {
		ID string `json:"id"`
	}
	cases := []struct {
		name     string
		r        ExecResult
		code     int
		ok       bool
		text     string
		data     string
		hasCause bool
	}{
		{"success", Success("Added t1."), 0, true, "Added t1.", "", false},
		{"success json", Success(`{"id":"t1"}`), 0, true, `{"id":"t1"}`, `{"id":"t1"}`, false},
		{"success data", SuccessData(row{"t2"}), 0, true, `{"id":"t2"}`, `{"id":"t2"}`, false},
		{"with data", SuccessWithData("Added t3.", row{"t3"}), 0, true, "Added t3.", `{"id":"t3"}`, false},
		{"failure", Failure(CodeNotFound, "There is no task t9."), 4, false, "There is no task t9.", "", false},
		{"failure zero code", Failure(0, "bad"), CodeInternal, false, "bad", "", false},
		{"from output ok", FromOutput(0, "[1]", ""), 0, true, "[1]", "[1]", false},
		{"from output fail", FromOutput(5, "{}", "changed"), 5, false, "changed", "", false},
		{"invalid", Invalid(errors.New("“x” is required.")), 1, false, "“x” is required.", "", false},
		{"internal", Internal(errors.New("disk full")), 6, false, InternalSentence, "", true},
		{"output", WithOutput(&Output{Heading: "2 tasks", Rows: []string{"t1 a", "t2 b"}}), 0, true, "2 tasks\nt1 a\nt2 b", "", false},
		{"output and text", WithOutputAndText(&Output{Rows: []string{"x"}}, "short"), 0, true, "short", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.r.Code != c.code || c.r.OK() != c.ok || c.r.TextOut() != c.text || string(c.r.Data) != c.data {
				t.Errorf("got code %d ok %v text %q data %q; want %d %v %q %q", c.r.Code, c.r.OK(), c.r.TextOut(), c.r.Data, c.code, c.ok, c.text, c.data)
			}
			if (c.r.Cause() != nil) != c.hasCause {
				t.Errorf("Cause() = %v", c.r.Cause())
			}
			if strings.Contains(c.r.TextOut(), "disk full") {
				t.Error("an internal cause leaked into the text")
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := SuccessWithData("Added t3.", map[string]any{"id": "t3"})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back ExecResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Code != r.Code || back.Out != r.Out || string(back.Data) != string(r.Data) {
		t.Fatalf("round trip: %s → %+v", b, back)
	}
	// Output is materialised into out.
	b, _ = json.Marshal(WithOutput(&Output{Rows: []string{"a", "b"}}))
	if !strings.Contains(string(b), `"out":"a\nb"`) {
		t.Fatalf("output not materialised: %s", b)
	}
}

func TestField(t *testing.T) {
	r := SuccessWithData("hi", map[string]int{"n": 2})
	for name, want := range map[string]any{"code": 0, "ok": true, "out": "hi", "err": ""} {
		got, ok := r.Field(name)
		if !ok || got != want {
			t.Errorf("Field(%q) = %v, %v; want %v", name, got, ok, want)
		}
	}
	d, ok := r.Field("data")
	if m, _ := d.(map[string]any); !ok || m["n"] != float64(2) {
		t.Errorf("Field(data) = %v", d)
	}
	if _, ok := r.Field("nope"); ok {
		t.Error("Field(nope) should not exist")
	}
}

func TestSpill(t *testing.T) {
	small := Success("short")
	if s := small.Spill(100); s.DidSpill || s.Code != 0 || s.Out != "short" {
		t.Fatalf("small result changed: %+v", s)
	}
	// Multi-byte text so that naive cuts would split runes; it starts and
	// ends with its own marks, so a head or tail taken from elsewhere shows.
	big := "START " + strings.Repeat("é€😀", 2000) + " 🎉END" // 9 bytes a round
	cases := []struct {
		name  string
		r     ExecResult
		limit int
		orig  int
		ok    bool
	}{
		{"success", Success(big), 1024, 0, true},
		{"failure", Failure(CodeNotFound, big), 1024, 4, false},
		{"model limit", Success(strings.Repeat("x", ModelLimit*3)), ModelLimit, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			total := len(c.r.TextOut())
			s := c.r.Spill(c.limit)
			text := s.TextOut()
			if !s.DidSpill || s.Code != CodeSpill || s.OriginalCode != c.orig || s.OK() != c.ok {
				t.Fatalf("spill flags: %+v", s)
			}
			if len(text) > c.limit {
				t.Errorf("spilled text is %d bytes, limit %d", len(text), c.limit)
			}
			if !utf8.ValidString(text) {
				t.Error("spilled text is not valid UTF-8")
			}
			if !strings.Contains(text, "bytes cut of "+itoa(total)) {
				t.Errorf("no size note in %q", text[len(text)/2-100:len(text)/2+100])
			}
			checkCuts(t, c.r.TextOut(), text)
			again := s.Spill(c.limit)
			if again.TextOut() != text || again.OriginalCode != c.orig {
				t.Error("spilling twice changed the result")
			}
		})
	}
}

// Every cut point is tried: limits a byte apart move both cuts across
// every byte of the 2-, 3- and 4-byte runes.
func TestSpillCutsOnRunes(t *testing.T) {
	text := "é€😀" + strings.Repeat("aé€😀", 300) + "😀€é"
	for limit := 400; limit < 420; limit++ {
		s := Success(text).Spill(limit)
		if len(s.Out) > limit {
			t.Errorf("limit %d: %d bytes", limit, len(s.Out))
		}
		checkCuts(t, text, s.Out)
	}
}

// spillNoteRE matches the note Spill puts between head and tail.
var spillNoteRE = regexp.MustCompile(`\n… \[(\d+) bytes cut of (\d+); [^\]]*\] …\n`)

// checkCuts checks that spilled is a head of orig, the note, and a tail of
// orig: the head a prefix and the tail a suffix of orig, each cut on a
// rune boundary (so each is valid UTF-8), none empty, and the note's counts
// adding up to orig's length.
func checkCuts(t *testing.T, orig, spilled string) {
	t.Helper()
	loc := spillNoteRE.FindStringSubmatchIndex(spilled)
	if loc == nil {
		t.Fatalf("no spill note in %q", spilled)
	}
	head, tail := spilled[:loc[0]], spilled[loc[1]:]
	cut, _ := strconv.Atoi(spilled[loc[2]:loc[3]])
	total, _ := strconv.Atoi(spilled[loc[4]:loc[5]])
	if head == "" || tail == "" {
		t.Errorf("head %d bytes, tail %d bytes; both must be kept", len(head), len(tail))
	}
	if !strings.HasPrefix(orig, head) || !utf8.ValidString(head) || !utf8.RuneStart(orig[len(head)]) {
		t.Errorf("the head (%d bytes) is not a prefix of the original cut on a rune boundary: ends %q", len(head), head[max(0, len(head)-12):])
	}
	if !strings.HasSuffix(orig, tail) || !utf8.ValidString(tail) || !utf8.RuneStart(orig[len(orig)-len(tail)]) {
		t.Errorf("the tail (%d bytes) is not a suffix of the original cut on a rune boundary: starts %q", len(tail), tail[:min(len(tail), 12)])
	}
	if total != len(orig) || cut != len(orig)-len(head)-len(tail) {
		t.Errorf("note says %d bytes cut of %d; head %d + tail %d of %d", cut, total, len(head), len(tail), len(orig))
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestDataValid: Data made by the constructors is known valid without a
// second read; Data set or replaced afterwards is read again, so a bad
// value is never passed on as JSON.
func TestDataValid(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    ExecResult
		want bool
	}{
		{"SuccessWithData", SuccessWithData("x", map[string]int{"a": 1}), true},
		{"SuccessData", SuccessData([]int{1}), true},
		{"Success sniffed", Success(`{"a":1}`), true},
		{"Success not JSON", Success("Done."), false},
		{"FromOutput", FromOutput(CodeOK, `[1,2]`, ""), true},
		{"set by hand", ExecResult{Code: CodeOK, Data: json.RawMessage(`{"a":1}`)}, true},
		{"set by hand, bad", ExecResult{Code: CodeOK, Data: json.RawMessage(`{bad`)}, false},
		{"none", ExecResult{Code: CodeOK}, false},
		{"blank", ExecResult{Code: CodeOK, Data: json.RawMessage("  ")}, false},
	} {
		if got := tc.r.DataValid(); got != tc.want {
			t.Errorf("%s: DataValid() = %v, want %v", tc.name, got, tc.want)
		}
	}
	r := SuccessWithData("x", map[string]int{"a": 1})
	r.Data = json.RawMessage(`{"a":`) // replaced: read again
	if r.DataValid() {
		t.Error("Data replaced by bad JSON after the constructor: DataValid() = true")
	}
	r = SuccessWithData("x", map[string]int{"a": 1})
	r.Data = r.Data[:len(r.Data)-1] // cut: the same start, another length
	if r.DataValid() {
		t.Error("Data cut after the constructor: DataValid() = true")
	}
}

// TestSerializedMatchesJSON: serialized counts what json.Marshal writes,
// character for character, for every kind of byte and rune it escapes.
func TestSerializedMatchesJSON(t *testing.T) {
	cases := []string{"", "plain", "a\"b\\c", "\b\f\n\r\t\x00\x01\x1f\x7f", "<a & b>", "é·“”…\u2028\u2029\ufffd",
		"bad \xff\xfe utf-8 \xc3", "\xe2\x80", "tail \xf0\x9f\x98"}
	rng := uint64(7)
	for range 2000 {
		b := make([]byte, int(rng%40))
		for i := range b {
			rng = rng*6364136223846793005 + 1442695040888963407
			b[i] = byte(rng >> 56)
			if rng>>40&3 == 0 {
				b[i] = "é<\"\\\n\xe2\x80\xa8"[rng>>32%9]
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		j, _ := json.Marshal(s)
		if got, want := serialized(s), utf8.RuneCount(j); got != want {
			t.Errorf("serialized(%q) = %d, json.Marshal writes %d characters: %s", s, got, want, j)
		}
	}
}

// TestDataMarshaled: only Data json.Marshal wrote, still as it was
// written, is reported as marshaled.
func TestDataMarshaled(t *testing.T) {
	r := SuccessWithData("x", map[string]string{"a": "<b>"})
	if !r.DataMarshaled() || !SuccessData([]int{1}).DataMarshaled() {
		t.Error("Data of SuccessWithData or SuccessData not reported as marshaled")
	}
	if Success(`{"a": "<b>"}`).DataMarshaled() || FromOutput(CodeOK, `[1]`, "").DataMarshaled() {
		t.Error("Data sniffed from text reported as marshaled")
	}
	r.Data = json.RawMessage(`{"a": "<b>"}`)
	if r.DataMarshaled() {
		t.Error("Data replaced after SuccessWithData reported as marshaled")
	}
	if (ExecResult{Code: CodeOK, Data: json.RawMessage(`{}`)}).DataMarshaled() {
		t.Error("Data set by hand reported as marshaled")
	}
}
