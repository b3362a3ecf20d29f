package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// icsLines joins iCalendar lines with CRLF.
func icsLines(lines ...string) string { return strings.Join(lines, "\r\n") + "\r\n" }

// sampleICS has two events and three tasks around the fixed clock
// (Mon 2026-10-05 09:00 in Paris): one event and one task in the first
// week, one of each later, and a task with no due; the to-do "rent" has
// a DTSTART, which the store does not keep.
var sampleICS = icsLines(
	"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN",
	"BEGIN:VEVENT", "UID:dentist", "SUMMARY:Dentist",
	"DTSTART;TZID=Europe/Paris:20261006T100000", "DTEND;TZID=Europe/Paris:20261006T110000", "END:VEVENT",
	"BEGIN:VEVENT", "UID:concert", "SUMMARY:Concert",
	"DTSTART;TZID=Europe/Paris:20261020T200000", "DTEND;TZID=Europe/Paris:20261020T220000", "END:VEVENT",
	"BEGIN:VTODO", "UID:rent", "SUMMARY:Pay rent",
	"DTSTART;VALUE=DATE:20261001", // line 19
	"DUE;VALUE=DATE:20261006", "END:VTODO",
	"BEGIN:VTODO", "UID:taxes", "SUMMARY:File taxes", "DUE;VALUE=DATE:20261030", "END:VTODO",
	"BEGIN:VTODO", "UID:someday", "SUMMARY:Learn the cello", "END:VTODO",
	"END:VCALENDAR",
)

const sampleNew = "events 2 new, 0 updated, 0 unchanged; changed occurrences 0 new, 0 updated, 0 unchanged; tasks 3 new, 0 updated, 0 unchanged."

// TestImportCLI: --dry-run says what would be imported and writes nothing
// (the list tools show nothing and a second dry run says the same); the
// import from standard input writes it as one change and lists the
// to-do's DTSTART as not kept; importing the file again changes nothing.
func TestImportCLI(t *testing.T) { storetest.Engines(t, testImportCLI) }

func testImportCLI(t *testing.T) {
	h := newHome(t)
	file := filepath.Join(h.dir, "cal.ics")
	if err := os.WriteFile(file, []byte(sampleICS), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := h.must("import", "--dry-run", file)
		if want := "Would import cal.ics: " + sampleNew + "\n"; !strings.HasPrefix(r.stdout, want) || strings.Contains(r.stdout, "This is change") {
			t.Fatalf("dry run: want %q first and no change, got %s", want, r)
		}
	}
	if r := h.must("call", "list_events"); !strings.Contains(r.stdout, "No events") {
		t.Fatalf("a dry run wrote events:\n%s", r.stdout)
	}
	if r := h.must("call", "list_tasks"); !strings.Contains(r.stdout, "No open tasks") {
		t.Fatalf("a dry run wrote tasks:\n%s", r.stdout)
	}

	r := h.runIn(sampleICS, "import", "-")
	wantLines := []string{
		"Imported standard input: " + sampleNew,
		"This is change c1: `assistant call undo change=c1` takes the whole import back.",
		"Skipped (1):",
		"  line 19 (VTODO rent): DTSTART of a to-do is not kept",
	}
	if r.code != 0 {
		t.Fatalf("import -: %s", r)
	}
	for _, w := range wantLines {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("import - does not say %q:\n%s", w, r.stdout)
		}
	}
	if r := h.must("call", "list_events"); !strings.Contains(r.stdout, "Dentist") || strings.Contains(r.stdout, "Concert") {
		t.Errorf("list_events of this week after the import:\n%s", r.stdout)
	}
	if r := h.must("call", "list_tasks"); !strings.Contains(r.stdout, "Pay rent") || !strings.Contains(r.stdout, "Learn the cello") {
		t.Errorf("list_tasks after the import:\n%s", r.stdout)
	}

	r = h.must("import", file)
	if want := "Imported cal.ics: events 0 new, 0 updated, 2 unchanged; changed occurrences 0 new, 0 updated, 0 unchanged; tasks 0 new, 0 updated, 3 unchanged.\nNothing changed.\n"; !strings.HasPrefix(r.stdout, want) {
		t.Errorf("a second import: want %q first, got %s", want, r)
	}
}

// TestExportCLI: export --from/--to writes the items of those days (--to
// is the day after the last) and the tasks with no due, to standard output
// or to a file, the same bytes both ways; the file imports into an empty
// database. Wrong flags and days are refused with their exit codes.
func TestExportCLI(t *testing.T) { storetest.Engines(t, testExportCLI) }

func testExportCLI(t *testing.T) {
	h := newHome(t)
	h.runIn(sampleICS, "import", "-")

	out := h.must("export", "--from", "2026-10-06", "--to", "2026-10-07")
	if !strings.HasPrefix(out.stdout, "BEGIN:VCALENDAR\r\n") || !strings.HasSuffix(out.stdout, "END:VCALENDAR\r\n") {
		t.Fatalf("export to standard output is not one CRLF calendar:\n%s", out.stdout)
	}
	for uid, want := range map[string]bool{"dentist": true, "rent": true, "someday": true, "concert": false, "taxes": false} {
		if got := strings.Contains(out.stdout, "UID:"+uid+"\r\n"); got != want {
			t.Errorf("UID %s exported: %v, want %v", uid, got, want)
		}
	}
	if !strings.Contains(out.stdout, "BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\n") {
		t.Errorf("the export has no VTIMEZONE for Europe/Paris:\n%s", out.stdout)
	}

	file := filepath.Join(h.dir, "week.ics")
	r := h.must("export", "--from", "2026-10-06", "--to", "2026-10-07", file)
	if r.stdout != "" {
		t.Errorf("export to a file printed %q", r.stdout)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != out.stdout {
		t.Errorf("the file differs from standard output:\n%s\n---\n%s", data, out.stdout)
	}

	all := h.must("export")
	if !strings.Contains(all.stdout, "UID:concert\r\n") || !strings.Contains(all.stdout, "UID:taxes\r\n") {
		t.Errorf("an export without --from and --to left items out:\n%s", all.stdout)
	}

	other := newHome(t)
	r = other.must("import", file)
	if want := "Imported week.ics: events 1 new, 0 updated, 0 unchanged; changed occurrences 0 new, 0 updated, 0 unchanged; tasks 2 new, 0 updated, 0 unchanged.\n"; !strings.HasPrefix(r.stdout, want) || strings.Contains(r.stdout, "Skipped") {
		t.Errorf("importing the export: want %q and nothing skipped, got %s", want, r)
	}

	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "--from", "someday"}, 1, "“--from” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “someday”"},
		{[]string{"export", "--to", "2026-13-01"}, 1, "“--to” must be a day"},
		{[]string{"export", "--from", "2026-10-07", "--to", "2026-10-07"}, 1, "“--to” must be after “--from”"},
		{[]string{"export", filepath.Join(h.dir, "no", "such", "folder", "x.ics")}, 1, "cannot write"},
		{[]string{"export", "a.ics", "b.ics"}, 2, "takes at most one file"},
		{[]string{"export", "--since", "2026-01-01"}, 2, "--since"},
		{[]string{"import"}, 2, "takes one file"},
		{[]string{"import", "a.ics", "b.ics"}, 2, "takes one file"},
	}
	for _, c := range cases {
		r := h.run(c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("assistant %s: want exit %d and %q, got %s", strings.Join(c.args, " "), c.code, c.want, r)
		}
	}
}

// vtimezoneOf returns the lines of the VTIMEZONE of zone in an exported
// file, unfolded.
func vtimezoneOf(t *testing.T, ics, zone string) []string {
	t.Helper()
	ics = strings.ReplaceAll(ics, "\r\n ", "")
	var lines []string
	in := false
	for _, l := range strings.Split(ics, "\r\n") {
		switch {
		case l == "BEGIN:VTIMEZONE":
			in, lines = true, nil
		case in && l == "END:VTIMEZONE":
			if len(lines) > 0 && lines[0] == "TZID:"+zone {
				return lines
			}
			in = false
		case in:
			lines = append(lines, l)
		}
	}
	t.Fatalf("no VTIMEZONE for %s in:\n%s", zone, ics)
	return nil
}

// A series some years ahead in a zone with DST exports (it used to run
// out of memory building the VTIMEZONE), and the VTIMEZONE starts at or
// before the first DTSTART (RFC 5545 erratum 3740) and holds the changes
// of the years the series needs, as Paris's yearly rule for a series that
// never ends; so for Chatham's 45-minute offsets, two days before its DST
// ends. Each run has runLimit as its deadline.
func TestExportVTimezoneAhead(t *testing.T) { storetest.Engines(t, testExportVTimezoneAhead) }

func testExportVTimezoneAhead(t *testing.T) {
	for _, c := range []struct {
		zone, start string
		first       string // the DTSTART the VTIMEZONE must start at or before
		holds       []string
	}{
		{"Europe/Paris", "2031-03-03T10:00", "20310303T100000", []string{"DTSTART:20310330T020000", "20311026T030000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU"}},
		{"Pacific/Chatham", "2027-04-02T02:45", "20270402T024500", []string{"TZOFFSETTO:+1345", "TZOFFSETTO:+1245", "20270404T034500"}},
		// Started before the United States' rule of 2007: the changes up
		// to it, then the rule (ten years from the start ended in 2005).
		{"America/New_York", "1995-01-05T10:00", "19950105T100000", []string{"20061029T020000", "DTSTART:20070311T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU"}},
	} {
		t.Run(c.zone, func(t *testing.T) {
			h := newHome(t)
			h.env["ASSISTANT_NOW"] = "2025-12-01T09:00:00Z"
			h.must("person", "set-zone", c.zone)
			h.must("call", "add_event", "title=S", "start="+c.start, "rrule=FREQ=WEEKLY")
			r := h.must("export")
			vt := vtimezoneOf(t, r.stdout, c.zone)
			var starts []string
			for _, l := range vt {
				if v, ok := strings.CutPrefix(l, "DTSTART:"); ok {
					starts = append(starts, v)
				}
			}
			if len(starts) == 0 || slices.Min(starts) > c.first {
				t.Errorf("the VTIMEZONE starts at %v, after the first DTSTART %s:\n%s", starts, c.first, strings.Join(vt, "\n"))
			}
			all := strings.Join(vt, "\n")
			for _, want := range c.holds {
				if !strings.Contains(all, want) {
					t.Errorf("the VTIMEZONE lacks %s:\n%s", want, all)
				}
			}
		})
	}
}

// export FILE makes a new file 0600, as the database is, since a calendar
// holds private data; a file that exists keeps its mode.
func TestExportFileMode(t *testing.T) {
	h := newHome(t)
	h.must("call", "add_task", "title=Milk")
	file := filepath.Join(h.dir, "all.ics")
	h.must("export", file)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("a new export file: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}
	if err := os.Chmod(file, 0o640); err != nil {
		t.Fatal(err)
	}
	h.must("export", file)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("an export over a 0640 file: %v, mode %v, want it kept", err, fi.Mode().Perm())
	}
}
