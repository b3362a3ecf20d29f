package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A database location someone wrote (--db, ASSISTANT_DB, db copy --to)
// whose folder is missing is refused with exit 10 and a sentence naming
// the setting and the folder, and nothing is made; the default location
// still has its folder made (every other test's first run). A folder, or
// a file that is not a database, named as the database is refused with
// one sentence, for every kind of command, without SQLite's or Go's words.
func TestDatabaseLocationWords(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "error"
	missing := filepath.Join(h.dir, "no", "such", "folder", "x.db")
	h.must("call", "current_time") // the default database, made with its folder, to copy from
	for _, c := range []struct {
		name string
		env  string
		args []string
		from string
	}{
		{"flag", "", []string{"--db", missing, "call", "current_time"}, "“--db”"},
		{"variable", missing, []string{"call", "current_time"}, "ASSISTANT_DB"},
		{"copy target", "", []string{"db", "copy", "--to", missing}, "“--to”"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				h.env["ASSISTANT_DB"] = c.env
				defer delete(h.env, "ASSISTANT_DB")
			}
			r := h.run(c.args...)
			if r.code != 10 || !strings.Contains(r.stderr, c.from+" is wrong: there is no folder “"+filepath.Dir(missing)+"”") {
				t.Errorf("want exit 10 and a sentence naming %s and the folder, got %s", c.from, r)
			}
			if _, err := os.Stat(filepath.Join(h.dir, "no")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a folder was made for the database (%v)", err)
			}
		})
	}

	folder := filepath.Join(h.dir, "folder.db")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(h.dir, "notes.txt")
	if err := os.WriteFile(text, []byte("some notes, not a database\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ics := filepath.Join(h.dir, "one.ics")
	if err := os.WriteFile(ics, []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:a@t\r\n"+
		"DTSTAMP:20261001T000000Z\r\nDTSTART:20261005T090000Z\r\nSUMMARY:One\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{folder, "“" + folder + "” is a folder, not a database file"},
		{text, "“" + text + "” is not a database file"},
	} {
		for _, args := range [][]string{
			{"call", "current_time"},
			{"--db-read-only", "call", "list_tasks"},
			{"migrate", "status"},
			{"remind", "--once"},
			{"import", ics},
		} {
			r := h.run(append([]string{"--db", c.path}, args...)...)
			said := strings.TrimSpace(r.stderr)
			if r.code != 8 || !strings.Contains(said, c.want) || strings.Count(said, "\n") > 0 {
				t.Errorf("%s %v: want exit 8 and one line saying %q, got %s", filepath.Base(c.path), args, c.want, r)
			}
			for _, bad := range []string{"(26)", "is a directory", "disk"} {
				if strings.Contains(said, bad) {
					t.Errorf("%s %v shows %q: %s", filepath.Base(c.path), args, bad, said)
				}
			}
		}
	}
	if b, _ := os.ReadFile(text); string(b) != "some notes, not a database\n" {
		t.Errorf("the file that is not a database was changed: %q", b)
	}
}
