package e2e

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A zone abbreviation is answered with the zones it stands for, the
// person's own first, wherever a zone is read: a tool's time_zone, a
// bracketed zone on a moment, --tz and person add --zone.
func TestZoneAbbreviationAnswered(t *testing.T) { storetest.Engines(t, testZoneAbbreviationAnswered) }

func testZoneAbbreviationAnswered(t *testing.T) {
	h := newHome(t) // the local person is in Europe/Paris
	h.must("call", "current_time")
	checks := []struct {
		args []string
		code int
		has  []string
	}{
		{[]string{"call", "set_time_zone", "time_zone=CEST"}, exitInvalid,
			[]string{"“time_zone” must be an IANA time zone name, not the abbreviation “CEST”; write the zone of the place, such as Europe/Paris, "}},
		{[]string{"call", "add_event", "title=Dentist", "start=2026-10-05T09:00", "time_zone=CST"}, exitInvalid,
			[]string{"America/Chicago (UTC-06:00)", "Asia/Shanghai (UTC+08:00)", "America/Havana (UTC-05:00)"}},
		{[]string{"call", "add_task", "title=Call", "due=2026-10-05T09:00[IST]"}, exitInvalid,
			[]string{"“due” must name an IANA time zone in its brackets", "Asia/Kolkata (UTC+05:30)", "Europe/Dublin (UTC+01:00)", "Asia/Jerusalem (UTC+02:00)"}},
		{[]string{"--tz", "cet", "call", "current_time"}, exitConfig,
			[]string{`"cet" is a time zone abbreviation`, "such as Europe/Paris, "}},
		{[]string{"person", "add", "bob", "--zone", "EST"}, exitInvalid,
			[]string{`"EST" is a time zone abbreviation`, "America/New_York"}},
		{[]string{"person", "set-zone", "PDT"}, exitInvalid,
			[]string{`"PDT" is a time zone abbreviation`, "America/Los_Angeles"}},
	}
	for _, c := range checks {
		r := h.run(c.args...)
		if r.code != c.code {
			t.Errorf("%q: exit %d, want %d: %s", c.args, r.code, c.code, r)
			continue
		}
		for _, s := range c.has {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("%q: %s\nwant it to contain %s", c.args, r.stderr, s)
			}
		}
		if strings.Contains(r.stderr, "closest") || strings.Contains(r.stderr, "Australia/West") {
			t.Errorf("%q: answered by spelling: %s", c.args, r.stderr)
		}
	}
	if r := h.must("person", "list"); strings.Contains(r.stdout, "bob") || strings.Contains(r.stdout, "PDT") {
		t.Errorf("a refused zone was stored:\n%s", r.stdout)
	}
}

// Text that is not valid UTF-8 in a name=value pair (argv is bytes) or in
// --args is refused naming the argument, never stored as U+FFFD; "" for an
// optional argument reads as not given.
func TestCallArgumentText(t *testing.T) { storetest.Engines(t, testCallArgumentText) }

func testCallArgumentText(t *testing.T) {
	h := newHome(t)
	for _, args := range [][]string{
		{"call", "add_task", "title=Caf\xe9"},
		{"call", "add_task", "--args", `{"title": "\ud800 sync"}`},
		{"call", "add_task", "--args", "{\"title\": \"ok\", \"notes\": \"\xff\"}"},
	} {
		r := h.run(args...)
		if r.code != exitInvalid || !strings.Contains(r.stderr, "is not valid Unicode text") || strings.Contains(r.stderr, "\ufffd") {
			t.Errorf("%q: want exit 1 naming the argument, got %s", args, r)
		}
	}
	if r := h.must("call", "list_tasks", "status=all"); strings.Contains(r.stdout, "sync") || strings.Contains(r.stdout, "Caf") {
		t.Errorf("refused text was stored:\n%s", r.stdout)
	}
	if r := h.run("call", "add_task", "title=Plain", "due=", "priority=", "remind_before="); r.code != 0 {
		t.Errorf("empty optional arguments: %s", r)
	}
	if r := h.run("call", "list_tasks", "from=", "to=", "limit=", "query="); r.code != 0 || !strings.Contains(r.stdout, "Plain") {
		t.Errorf("list_tasks with empty arguments: %s", r)
	}
}

// What a person reads never holds a decoder's or strconv's words: JSON
// on standard input that is too deep or not text, and a flag number out
// of range, each get a sentence naming what to write.
func TestNoDecoderWords(t *testing.T) { storetest.Engines(t, testNoDecoderWords) }

func testNoDecoderWords(t *testing.T) {
	h := newHome(t)
	deep := `{"title":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	for _, c := range []struct {
		name, stdin string
		args        []string
		has         string
	}{
		{"too deep", deep, []string{"call", "add_task", "-"}, "nests arrays or objects more than 10000 deep"},
		{"not text", "\xfd\xff{\x00\x81", []string{"call", "add_task", "-"}, "is not UTF-8 text"},
		{"not JSON", "title=Milk", []string{"call", "add_task", "-"}, "must be one JSON object"},
		{"a number out of range", "", []string{"chat", "--conversation", "99999999999999999999"}, "“--conversation” must be a whole number of at most 19 digits"},
	} {
		r := h.runIn(c.stdin, c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.has) {
			t.Errorf("%s: want a failure saying %q, got %s", c.name, c.has, r)
		}
		for _, bad := range []string{"invalid character", "exceeded max depth", "strconv", "looking for beginning"} {
			if strings.Contains(r.stderr, bad) {
				t.Errorf("%s: shows %q: %s", c.name, bad, r.stderr)
			}
		}
	}
}
