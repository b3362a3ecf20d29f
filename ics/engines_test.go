package ics

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
)

// TestImportSameOnBothEngines imports each shared file for a person of its
// own on each engine: the report, the rows (ids aside), the occurrences of
// each series and the export must be the same on PostgreSQL as on SQLite.
// The sqlite half keeps what it got for the postgres half to compare; run
// alone (-run .../postgres), the postgres half imports into a SQLite file
// itself.
func TestImportSameOnBothEngines(t *testing.T) {
	var onSQLite map[string]string
	storetest.Engines(t, func(t *testing.T) {
		st, _ := openStore(t)
		got := importEach(t, st)
		if storetest.Engine(t) == storetest.SQLite {
			onSQLite = got
			return
		}
		if onSQLite == nil {
			sq, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sq.Close() })
			onSQLite = importEach(t, sq)
		}
		if len(got) != len(onSQLite) || len(got) == 0 {
			t.Fatalf("%d files imported on PostgreSQL, %d on SQLite", len(got), len(onSQLite))
		}
		for f, want := range onSQLite {
			if got[f] != want {
				t.Errorf("%s: the import on PostgreSQL differs from the one on SQLite:\n%s\n--- on SQLite:\n%s", f, got[f], want)
			}
		}
	})
}

// importEach imports every shared file into st, each for a new person, at
// a fixed clock, and gives by file name what came of it: the report's
// counts and lines, the rows of roundTripRows, the occurrences, and the
// export.
func importEach(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st.Now = func() time.Time { return stamp }
	files, _ := filepath.Glob(filepath.Join(testdataICS(t), "*.ics"))
	ctx := context.Background()
	out := map[string]string{}
	for i, f := range files {
		name := filepath.Base(f)
		p := addPerson(t, st, fmt.Sprintf("e%d", i))
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Import(ctx, st, p, bytes.NewReader(data), ImportOptions{Source: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "events %+v\noverrides %+v\ntasks %+v\nskipped %+v\nrepaired %+v\nchange %t\n",
			rep.Events, rep.Overrides, rep.Tasks, rep.Skipped, rep.Repaired, rep.Change != "")
		for _, q := range roundTripRows {
			b.WriteString(dump(t, st, p.ID, q))
		}
		b.WriteString(occurrences(t, st, p.ID))
		if err := Export(ctx, st, p, &b, time.Time{}, time.Time{}); err != nil {
			t.Fatalf("%s: export: %v", name, err)
		}
		out[name] = b.String()
	}
	return out
}
