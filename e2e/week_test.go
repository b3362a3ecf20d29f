package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/store/storetest"
)

// `assistant week` through the binary, at ASSISTANT_NOW (Mon 2026-10-05
// 09:00 in Paris) and a fixed COLUMNS: an event sits in its day's column
// on the row of its hour in the person's zone, an event kept in New York's
// zone on the row of its Paris hour, the grid fits the width, and output
// that is no terminal has no colour codes.
func TestWeekGridPlacesEventsAtTheirHours(t *testing.T) { storetest.Engines(t, testWeekGrid) }

func testWeekGrid(t *testing.T) {
	h := newHome(t)
	h.env["COLUMNS"] = "100"
	h.must("call", "add_event", "title=Dentist", "start=2026-10-07T14:00", "duration=60")
	h.must("call", "add_event", "title=NY sync", "start=2026-10-09T09:00", "time_zone=America/New_York", "duration=30")
	h.must("call", "add_task", "title=Buy milk", "due=2026-10-06")
	r := h.must("week")
	if strings.Contains(r.stdout, "\x1b") {
		t.Errorf("colour codes in output that is not a terminal:\n%s", r.stdout)
	}
	// cell is the text of day (0 Monday) on the row of hour ("14:00").
	cell := func(hour string, day int) string {
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(line, hour) {
				fields := strings.Split(line, "│")
				if len(fields) != 9 {
					t.Fatalf("the row of %s has %d fields: %q", hour, len(fields), line)
				}
				return strings.TrimSpace(fields[1+day])
			}
		}
		t.Fatalf("no row for %s in\n%s", hour, r.stdout)
		return ""
	}
	if got := cell("14:00", 2); got != "Dentist" {
		t.Errorf("Wednesday 14:00 holds %q, want Dentist:\n%s", got, r.stdout)
	}
	if got := cell("15:00", 4); got != "NY sync" { // 09:00 EDT is 15:00 CEST
		t.Errorf("Friday 15:00 holds %q, want NY sync:\n%s", got, r.stdout)
	}
	if n := strings.Count(r.stdout, "Dentist"); n != 1 {
		t.Errorf("Dentist shows %d times:\n%s", n, r.stdout)
	}
	for _, want := range []string{"Week 41 · Mon 5 – Sun 11 October 2026 · Europe/Paris", "[Mon 5]", "Tue 6 Oct  ☐ Buy milk t1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("want %q in\n%s", want, r.stdout)
		}
	}
	for i, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("line %d is %d columns, past COLUMNS=100: %q", i+1, n, line)
		}
	}

	// The week of a day in words, and the month with its busy days.
	r = h.must("week", "--from", "next week", "--width", "80")
	if !strings.Contains(r.stdout, "Week 42 · Mon 12 – Sun 18 October 2026") || strings.Contains(r.stdout, "Dentist") {
		t.Errorf("week --from 'next week':\n%s", r.stdout)
	}
	r = h.must("month")
	for _, want := range []string{"October 2026 · Europe/Paris", "41 [ 5 ]  6•   7•   8    9•", "Wed  7  14:00 Dentist", "Fri  9  15:00 NY sync"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("month: want %q in\n%s", want, r.stdout)
		}
	}

	// --json: the same days for scripts, the month's six weeks at most.
	for _, c := range []struct {
		cmd, from, to string
		days, wed     int // the days, and the index of Wed 7 October
	}{{"week", "2026-10-05", "2026-10-11", 7, 2}, {"month", "2026-09-28", "2026-11-01", 35, 9}} {
		r = h.must(c.cmd, "--json")
		var got struct {
			From, To string
			Days     []struct {
				Date   string
				Events []struct{ Title string }
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%s --json: %v\n%s", c.cmd, err, r.stdout)
		}
		if got.From != c.from || got.To != c.to || len(got.Days) != c.days || len(got.Days[c.wed].Events) != 1 || got.Days[c.wed].Events[0].Title != "Dentist" {
			t.Errorf("%s --json: %s..%s, %d days:\n%s", c.cmd, got.From, got.To, len(got.Days), r.stdout)
		}
	}

	if r := h.run("week", "--from", "2026-02-30"); r.code != exitInvalid || r.stdout != "" ||
		!strings.Contains(r.stderr, "“--from” must be a day that exists on the calendar") {
		t.Errorf("week --from 2026-02-30: %s", r)
	}
	if r := h.run("month", "extra"); r.code != 2 {
		t.Errorf("month extra: %s", r)
	}
}

// On a terminal (a pseudo-terminal 100 columns wide) the grid takes the
// terminal's width, not $COLUMNS, and is coloured, unless NO_COLOR is set.
func TestWeekOnATerminal(t *testing.T) {
	h := newHome(t)
	h.env["COLUMNS"] = "60"
	h.must("call", "add_event", "title=Dentist", "start=2026-10-07T14:00", "duration=60")
	for _, noColor := range []string{"", "1"} {
		h.env["NO_COLOR"] = noColor
		s := h.interactive("week")
		if code := s.wait(); code != 0 {
			t.Fatalf("week on a terminal: exit %d\n%s", code, s.output())
		}
		out := strings.ReplaceAll(s.output(), "\r\n", "\n")
		coloured := strings.Contains(out, "\x1b[")
		if coloured != (noColor == "") {
			t.Errorf("NO_COLOR=%q: coloured %v:\n%q", noColor, coloured, out)
		}
		plain := ansi.ReplaceAllString(out, "")
		if !strings.Contains(plain, "│[Mon 5]     │Tue 6       │Wed 7       │") {
			t.Errorf("NO_COLOR=%q: the grid is not laid out for 100 columns:\n%s", noColor, plain)
		}
		for i, line := range strings.Split(plain, "\n") {
			if n := utf8.RuneCountInString(line); n > 100 {
				t.Errorf("line %d is %d columns on a 100-column terminal: %q", i+1, n, line)
			}
		}
	}
}
