package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/ics/icstest"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
)

// TestImportLargeCalendar imports a generated calendar of 50,000 events
// (icstest.Calendar) with the binary: every event is stored, the import
// is one change of 50,000 rows, and one undo takes every event back (a dry
// run then finds every event new again). Its
// speed and peak memory are BenchmarkScaleImport's (package ics).
func TestImportLargeCalendar(t *testing.T) { storetest.Engines(t, testImportLargeCalendar) }

func testImportLargeCalendar(t *testing.T) {
	if testing.Short() {
		t.Skip("50,000 events; skipped under -short")
	}
	const n = 50000
	h := newHome(t)
	file := filepath.Join(h.dir, "large.ics")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := icstest.Calendar(f, n, 21); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r := h.must("import", file)
	for _, want := range []string{
		"Imported large.ics: events 50000 new, 0 updated, 0 unchanged;",
		"This is change c1: `assistant call undo change=c1` takes the whole import back.",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("the import does not say %q:\n%s", want, r)
		}
	}
	loc := h.db
	if loc == "" {
		loc = h.dbPath()
	}
	st, err := store.Open(context.Background(), loc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	count := func(q string) int {
		t.Helper()
		var c int
		if err := st.DB().QueryRow(q).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if got := count(`SELECT COUNT(*) FROM events WHERE deleted_at IS NULL`); got != n {
		t.Fatalf("%d live events after the import, want %d", got, n)
	}
	if got := count(`SELECT COUNT(DISTINCT uid) FROM events WHERE deleted_at IS NULL`); got != n {
		t.Fatalf("%d distinct UIDs after the import, want %d", got, n)
	}
	if got := count(`SELECT COUNT(*) FROM changes`); got != 1 {
		t.Fatalf("%d changes after the import, want 1", got)
	}
	if got := count(`SELECT COUNT(*) FROM change_rows`); got != n {
		t.Fatalf("the import's change has %d rows, want %d", got, n)
	}
	if got := count(`SELECT COUNT(DISTINCT seq) FROM change_rows`); got != n {
		t.Fatalf("the import's change has %d distinct places, want %d", got, n)
	}
	if r := h.must("call", "list_changes"); !strings.Contains(r.stdout, "imported large.ics: 50000 events") {
		t.Fatalf("list_changes does not name the import:\n%s", r)
	}
	// The undo through the store, as `assistant call undo` runs it but
	// without a tool call's 30 s deadline, which a loaded machine can
	// reach for 50,000 rows (a few seconds of CPU).
	owner := int64(count(`SELECT owner_id FROM changes`))
	if _, err := st.Undo(context.Background(), owner, "c1"); err != nil {
		t.Fatalf("undo of the import: %v", err)
	}
	if got := count(`SELECT COUNT(*) FROM events WHERE deleted_at IS NULL`); got != 0 {
		t.Fatalf("%d live events after the undo, want 0", got)
	}
	r = h.must("import", "--dry-run", file)
	if !strings.Contains(r.stdout, "Would import large.ics: events 50000 new, 0 updated, 0 unchanged;") {
		t.Fatalf("after the undo a dry run does not find every event new:\n%s", r)
	}
}
