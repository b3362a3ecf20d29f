package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// agendaHome is a home whose person has a day to show at the fixed clock
// (Monday 2026-10-05 09:00 in Europe/Paris), and a second person whose
// items must never show in it.
func agendaHome(t *testing.T) *home {
	h := newHome(t)
	h.must("call", "add_task", "title=Pay the rent", "due=2026-10-02", "priority=1")
	h.must("call", "add_event", "title=Standup", "start=2026-10-05T08:45", "duration=30")
	h.must("call", "add_event", "title=Lunch with Bea", "start=2026-10-05T12:30", "location=Chez Marcel")
	h.must("call", "add_task", "title=Post the letter", "due=2026-10-05T17:00")
	h.must("call", "add_event", "title=Concert", "start=2026-10-06T20:00", "duration=150")
	h.must("person", "add", "zed", "--zone", "Asia/Tokyo")
	h.must("--person", "zed", "call", "add_event", "title=Zed's secret", "start=2026-10-05T10:00")
	h.must("--person", "zed", "call", "add_task", "title=Zed's chore", "due=2026-10-01")
	return h
}

// `assistant today` through the binary, its standard output a pipe: the
// day at 80 plain columns, overdue on top, the event on now marked, and
// only the person's own items.
func TestTodayThroughTheBinary(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) { todayThroughTheBinary(t) })
}

func todayThroughTheBinary(t *testing.T) {
	h := agendaHome(t)
	r := h.must("today")
	want := `Overdue
  Fri 2 Oct    ☐ Pay the rent (urgent)  3 days overdue                        t1

Monday 5 October 2026 · Today
▶ 08:45–09:15  Standup                                       e1@20261005T064500Z
  12:30–13:30  Lunch with Bea · Chez Marcel                  e2@20261005T103000Z
  due 17:00    ☐ Post the letter                                              t2
`
	if r.stdout != want {
		t.Errorf("assistant today:\n%s\nwant:\n%s", r.stdout, want)
	}
	if r.stderr != "" {
		t.Errorf("stderr: %s", r.stderr)
	}

	// Zed sees his own day in his zone (17:00 in Tokyo), and nothing of the first person's.
	z := h.must("--person", "zed", "agenda", "--days", "2")
	if !strings.Contains(z.stdout, "Zed's secret") || !strings.Contains(z.stdout, "Zed's chore") ||
		strings.Contains(z.stdout, "Standup") || strings.Contains(z.stdout, "rent") || strings.Contains(z.stdout, "Concert") {
		t.Errorf("zed's agenda:\n%s", z.stdout)
	}

	// The next two days, from words.
	r = h.must("agenda", "--from", "tomorrow", "--days", "2")
	if !strings.Contains(r.stdout, "Tuesday 6 October 2026 · Tomorrow\n  20:00–22:30  Concert") ||
		!strings.Contains(r.stdout, "Wednesday 7 October 2026\n  nothing planned\n") || strings.Contains(r.stdout, "Monday") {
		t.Errorf("agenda --from tomorrow:\n%s", r.stdout)
	}

	bad := h.run("agenda", "--days", "100")
	if bad.code != 1 || bad.stdout != "" || !strings.Contains(bad.stderr, "“--days” takes 1 to 42 days, not 100; write a number in that range") {
		t.Errorf("--days 100: %s", bad)
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// On a terminal the agenda is coloured and as wide as the terminal (100
// columns); NO_COLOR turns the colour off and keeps the width.
func TestTodayOnATerminal(t *testing.T) {
	h := agendaHome(t)
	s := h.interactive("today")
	if code := s.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, s.output())
	}
	out := strings.ReplaceAll(s.output(), "\r\n", "\n")
	if !ansi.MatchString(out) {
		t.Errorf("no colour on a terminal:\n%q", out)
	}
	plain := ansi.ReplaceAllString(out, "")
	line := "▶ 08:45–09:15  Standup" + strings.Repeat(" ", 100-22-19) + "e1@20261005T064500Z\n"
	if !strings.Contains(plain, line) {
		t.Errorf("not laid out for 100 columns; want %q in:\n%s", line, plain)
	}

	h.env["NO_COLOR"] = "1"
	s = h.interactive("today")
	if code := s.wait(); code != 0 {
		t.Fatalf("NO_COLOR: exit %d:\n%s", code, s.output())
	}
	out = strings.ReplaceAll(s.output(), "\r\n", "\n")
	if strings.Contains(out, "\x1b[") || !strings.Contains(out, line) {
		t.Errorf("NO_COLOR: escapes, or not 100 columns:\n%q", out)
	}
}
