package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExportWindowWords: export's --from and --to read a day as the views
// do, a date or words, in the person's zone (--to the day after the last);
// a word that is no day is refused naming the flag.
func TestExportWindowWords(t *testing.T) {
	r := newRunner(t, assistantBinary(t))
	db := filepath.Join(t.TempDir(), "a.db")
	r.ok("--db", db, "person", "add", "ann", "--zone", "Europe/Paris")
	// ASSISTANT_NOW is Monday 2026-10-05.
	for _, day := range []string{"2026-10-08", "2026-10-09", "2026-10-12"} {
		r.ok("--db", db, "--person", "ann", "call", "add_event", "title=On "+day, "start="+day+"T10:00")
	}
	out := r.ok("--db", db, "--person", "ann", "export", "--from", "friday", "--to", "next monday")
	if strings.Contains(out, "On 2026-10-08") || !strings.Contains(out, "On 2026-10-09") || strings.Contains(out, "On 2026-10-12") {
		t.Errorf("export --from friday --to 'next monday' on Monday 2026-10-05 should hold Friday's event alone:\n%s", out)
	}
	code, _, errOut := r.run("--db", db, "--person", "ann", "export", "--from", "fridayx")
	if code != 1 || !strings.Contains(errOut, "“--from”") || strings.Contains(errOut, "“from”") {
		t.Errorf("export --from fridayx: exit %d, %q; want exit 1 naming “--from”", code, errOut)
	}
}
