package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// agendaDemo fills the local person's store (Europe/Paris) with the days
// the docs show, at Monday 2026-10-05 10:15.
func agendaDemo(t *testing.T) {
	t.Helper()
	isolate(t)
	t.Setenv("TZ", "Europe/Paris")
	t.Setenv(envNow, "2026-10-05T10:15:00+02:00")
	for _, c := range [][]string{
		{"add_task", "title=Renew the passport", "due=2026-10-01", "priority=2"},
		{"add_event", "title=Standup", "start=2026-09-28T09:30", "duration=15", "rrule=FREQ=WEEKLY;BYDAY=MO,WE,FR"},
		{"add_event", "title=Dentist", "start=2026-10-05T10:00", "duration=45", "location=12 rue Oberkampf"},
		{"add_task", "title=Buy milk", "due=2026-10-05"},
		{"add_event", "title=Call with Ana", "start=2026-10-06T11:00", "duration=30", "time_zone=America/New_York"},
		{"add_task", "title=Send the invoice", "due=2026-10-06T12:00", "priority=1"},
		{"add_event", "title=Lyon trip", "start=2026-10-07", "end=2026-10-08"},
		{"add_event", "title=Night train to Lyon", "start=2026-10-06T23:10", "end=2026-10-07T06:40"},
	} {
		if r := runArgs(append([]string{"call"}, c...)...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s%s", c, r.code, r.out, r.stderr)
		}
	}
}

// docBlock keeps the block between "<!-- name:" and "<!-- /name -->" of
// the file at path equal to a ```text block of run (or writes it there
// with -update).
func docBlock(t *testing.T, path, name, run string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	open := strings.Index(doc, "<!-- "+name+":")
	end := strings.Index(doc, "<!-- /"+name+" -->")
	if open < 0 || end < open {
		t.Fatalf("%s has no <!-- %s: … --> … <!-- /%s --> block", path, name, name)
	}
	head := doc[open:]
	head = head[:strings.Index(head, "\n")+1]
	want := head + "```text\n" + run + "```\n"
	if *update {
		doc = doc[:open] + want + doc[end:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		end = open + len(want)
	}
	if got := doc[open:end]; got != want {
		t.Errorf("%s shows another run than the binary gives now; run: go test ./cmd/assistant -run TestAgendaOutputInTheDocs -update\nthe page:\n%s\nnow:\n%s", path, got, want)
	}
}

// The agenda docs/views.md and the README show is what the command prints.
func TestAgendaOutputInTheDocs(t *testing.T) {
	agendaDemo(t)
	agenda := runArgs("agenda", "--days", "3")
	today := runArgs("today")
	for _, r := range []ran{agenda, today} {
		if r.code != 0 || r.stderr != "" || strings.Contains(r.out, "\x1b") {
			t.Fatalf("exit %d, stderr %q, or colour where standard output is no terminal:\n%s", r.code, r.stderr, r.out)
		}
	}
	// What the page says of it, checked so an -update cannot lose it.
	for _, want := range []string{
		"Monday 5 October 2026 · Today",
		"Tuesday 6 October 2026 · Tomorrow",
		"☐ Renew the passport (high)  4 days overdue",
		"▶ 10:00–10:45  Dentist · 12 rue Oberkampf",
		"17:00–17:30  Call with Ana (11:00–11:30 New York)",
		"23:10–…      Night train to Lyon (until Wed 06:40)",
		"…–06:40      Night train to Lyon (since Tue 23:10)",
		"all day      Lyon trip",
		"due 12:00    ☐ Send the invoice (urgent)",
	} {
		if !strings.Contains(agenda.out, want) {
			t.Errorf("the agenda lacks %q:\n%s", want, agenda.out)
		}
	}
	if strings.Contains(today.out, "Tuesday") || !strings.HasPrefix(agenda.out, today.out+"\nTuesday") {
		t.Errorf("today shows more than today:\n%s", today.out)
	}
	docBlock(t, "../../docs/views.md", "agenda", "$ assistant agenda --days 3\n"+agenda.out)
	docBlock(t, "../../README.md", "today", "$ assistant today\n"+today.out)
}

func TestAgendaFlags(t *testing.T) {
	agendaDemo(t)
	runArgs("agenda", "--days", "0").want(t, "--days 0", exitInvalid, "“--days” takes 1 to 42 days, not 0")
	runArgs("agenda", "--days", "43").want(t, "--days 43", exitInvalid, "“--days” takes 1 to 42 days, not 43")
	runArgs("agenda", "--from", "blursday").want(t, "--from blursday", exitInvalid, "“--from” must be a day")
	// The calendar's end: one sentence and exit 1, for the grids too.
	runArgs("agenda", "--from", "9999-12-30", "--days", "5").want(t, "agenda past 9999", exitInvalid, "the calendar ends on 9999-12-31, and this view would run to 10000-01-03")
	runArgs("week", "--from", "9999-12-31").want(t, "week of 9999-12-31", exitInvalid, "the calendar ends on 9999-12-31")
	runArgs("month", "--from", "9999-12-31").want(t, "month of 9999-12-31", exitInvalid, "the calendar ends on 9999-12-31")
	runArgs("today", "extra").want(t, "today extra", exitUsage)

	// --from reads words at the run's clock (Monday 5 October).
	r := runArgs("agenda", "--from", "wednesday", "--days", "1")
	if r.code != 0 || !strings.Contains(r.out, "Wednesday 7 October 2026\n") || strings.Contains(r.out, "Tuesday") {
		t.Errorf("--from wednesday: exit %d\n%s%s", r.code, r.out, r.stderr)
	}
	r = runArgs("agenda", "--from", "tomorrow", "--days", "1")
	if r.code != 0 || !strings.HasPrefix(r.out, "Overdue\n") || !strings.Contains(r.out, "Tuesday 6 October 2026 · Tomorrow\n") || strings.Contains(r.out, "Monday") {
		t.Errorf("--from tomorrow: exit %d\n%s%s", r.code, r.out, r.stderr)
	}

	// --json: the documented names, one day.
	r = runArgs("today", "--json")
	var got struct {
		TimeZone string `json:"time_zone"`
		From     string `json:"from"`
		To       string `json:"to"`
		Overdue  []struct {
			Title string `json:"title"`
		} `json:"overdue"`
		Days []struct {
			Events []struct {
				Title string `json:"title"`
				Now   bool   `json:"now"`
			} `json:"events"`
			Tasks []struct {
				ID string `json:"id"`
			} `json:"tasks"`
		} `json:"days"`
	}
	if err := json.Unmarshal([]byte(r.out), &got); err != nil || r.code != 0 {
		t.Fatalf("today --json: exit %d, %v:\n%s", r.code, err, r.out)
	}
	if got.TimeZone != "Europe/Paris" || got.From != "2026-10-05" || got.To != "2026-10-05" || len(got.Overdue) != 1 ||
		len(got.Days) != 1 || len(got.Days[0].Events) != 2 || !got.Days[0].Events[1].Now || len(got.Days[0].Tasks) != 1 {
		t.Errorf("today --json:\n%s", r.out)
	}
}
