package catalog_test

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// TestHostileValuesGiveShortSentences sends a megabyte-long value for each
// argument of each tool (as text, as a list item, and as a number) and
// checks that a refusal repeats at most a short, rune-aligned part of it:
// ids, moments, zones, enums, rules, cursors, tags, everything.
func TestHostileValuesGiveShortSentences(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := tooltest.Open(t, time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC), tasks.Register, events.Register, changes.Register)
		p := e.Person("mallory", "Europe/Paris")
		for _, setup := range []struct{ tool, raw string }{
			{"add_task", `{"title":"x"}`},
			{"add_event", `{"title":"x","start":"2026-10-05T09:00"}`},
		} {
			if res, _ := e.Call(p, setup.tool, setup.raw); !res.OK() {
				t.Fatalf("%s: %s", setup.tool, res.Err)
			}
		}
		valid := map[string]any{"title": "x", "id": "t1", "start": "2026-10-05T09:00", "time_zone": "Europe/Paris",
			"duration": 30, "from": "2026-10-05", "to": "2026-10-06"}
		long := strings.Repeat("é", 300000) + strings.Repeat("x", 400000) // about 1 MB, two bytes a rune first
		hostile := []struct {
			kind  string
			value any
		}{
			{"text", long},
			{"list item", []string{long}},
			{"number", json.Number(strings.Repeat("9", 1<<20))},
		}
		tried := 0
		for _, tool := range catalog.New().Tools() {
			for _, prop := range tool.Schema.Properties {
				for _, h := range hostile {
					m := map[string]any{}
					for _, r := range tool.Schema.Required {
						m[r] = valid[r]
					}
					if tool.Name != "add_task" && tool.Name != "update_task" && tool.Name != "get_task" &&
						tool.Name != "complete_task" && tool.Name != "reopen_task" && tool.Name != "delete_task" {
						if _, ok := m["id"]; ok {
							m["id"] = "e1"
						}
					}
					if tool.Name == "add_task" || tool.Name == "add_event" {
						// so that a value taken is stored, not refused as a repeat
						m["allow_duplicate"] = true
					}
					m[prop.Name] = h.value
					raw, err := json.Marshal(m)
					if err != nil {
						t.Fatal(err)
					}
					res, _ := e.Call(p, tool.Name, string(raw))
					tried++
					msg := res.TextOut()
					if res.OK() {
						// taken, it must not come back whole in the answer
						if len(msg) > 4000 || strings.Contains(msg, strings.Repeat("x", 100)) || strings.Contains(msg, strings.Repeat("é", 100)) {
							t.Errorf("%s %s as %s: taken, with an answer of %d bytes: %.300s", tool.Name, prop.Name, h.kind, len(msg), msg)
						}
						continue
					}
					if len(msg) > 800 || !utf8.ValidString(msg) || strings.Contains(msg, strings.Repeat("x", 100)) ||
						strings.Contains(msg, strings.Repeat("é", 100)) {
						t.Errorf("%s %s as %s: a sentence of %d bytes (valid UTF-8: %v): %.300s", tool.Name, prop.Name, h.kind,
							len(msg), utf8.ValidString(msg), msg)
					}
				}
			}
		}
		if tried < 100 {
			t.Fatalf("only %d calls tried", tried)
		}
		// and none of it was stored, in any column of any table
		for table, n := range longestTexts(t, e) {
			if n > 10*1024 {
				t.Errorf("%s holds a value of %d bytes after the hostile calls", table, n)
			}
		}
		// an unknown tool's name is a hostile value too
		if res, _ := e.Call(p, long, `{}`); len(res.TextOut()) > 800 {
			t.Errorf("an unknown tool name gives %d bytes", len(res.TextOut()))
		}
	})
}

// longestTexts is the longest value, in bytes, of each column
// ("tasks.title") of every table of e's store.
func longestTexts(t *testing.T, e *tooltest.Env) map[string]int {
	t.Helper()
	db := e.Store.DB()
	// The catalog of the store's engine: SQLite's sqlite_master and
	// pragma_table_info, or PostgreSQL's information_schema (the tables of
	// the database's own schema), and each value's length in bytes.
	tablesQ, columnsQ := `SELECT name FROM sqlite_master WHERE type = 'table'`, `SELECT name FROM pragma_table_info(?)`
	lengthOf := func(col string) string { return `LENGTH(CAST("` + col + `" AS BLOB))` }
	if e.Store.Engine() == store.Postgres {
		tablesQ = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
		columnsQ = `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`
		lengthOf = func(col string) string { return `octet_length("` + col + `"::text)` }
	}
	rows, err := db.Query(tablesQ)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	out := map[string]int{}
	for _, table := range tables {
		cols, err := db.Query(columnsQ, table)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for cols.Next() {
			var name string
			if err := cols.Scan(&name); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
		cols.Close()
		for _, col := range names {
			var n sql.NullInt64
			if err := db.QueryRow(`SELECT MAX(` + lengthOf(col) + `) FROM "` + table + `"`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			out[table+"."+col] = int(n.Int64)
		}
	}
	return out
}
