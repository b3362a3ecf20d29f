package events

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// monday is the fixed clock of the tests: Mon 2026-10-05 09:00 in Paris.
var monday = time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)

// env is alice (Europe/Paris) and bob (America/New_York) with the event
// tools and undo on a fresh store at monday.
type env struct {
	*tooltest.Env
	t     *testing.T
	alice tools.Person
	bob   tools.Person
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{Env: tooltest.Open(t, monday, Register, changes.Register), t: t}
	e.alice = e.Person("alice", "Europe/Paris")
	e.bob = e.Person("bob", "America/New_York")
	return e
}

// call runs a tool as who with the env's clock.
func (e *env) call(who tools.Person, name, raw string) (tools.ExecResult, *tools.ToolContext) {
	e.t.Helper()
	return e.Call(who, name, raw)
}

// ok runs a call that must succeed and returns its text.
func (e *env) ok(who tools.Person, name, raw string) tools.ExecResult {
	e.t.Helper()
	res, _ := e.call(who, name, raw)
	if res.Code != tools.CodeOK {
		e.t.Fatalf("%s %s: code %d: %s", name, raw, res.Code, res.TextOut())
	}
	return res
}

// fail runs a call that must fail with code and a sentence containing want.
func (e *env) fail(who tools.Person, name, raw string, code int, want string) string {
	e.t.Helper()
	res, _ := e.call(who, name, raw)
	if res.Code != code || !strings.Contains(res.Err, want) {
		e.t.Fatalf("%s %s:\n got code %d: %s\nwant code %d containing: %s", name, raw, res.Code, res.TextOut(), code, want)
	}
	return res.Err
}

// data decodes a result's Data.
func data(t *testing.T, res tools.ExecResult) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(res.Data, &m); err != nil {
		t.Fatalf("data %s: %v", res.Data, err)
	}
	return m
}

// occurrences lists the ids and starts of list_events' Data.
func occurrences(t *testing.T, res tools.ExecResult) (ids, starts []string) {
	t.Helper()
	for _, o := range data(t, res)["events"].([]any) {
		m := o.(map[string]any)
		ids = append(ids, m["id"].(string))
		starts = append(starts, m["start"].(string))
	}
	return ids, starts
}

// snapshot is the content of every table a tool may write, to check that
// a refused call stored nothing.
func (e *env) snapshot() string {
	e.t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT * FROM events ORDER BY id`, `SELECT * FROM event_overrides ORDER BY id`,
		`SELECT id, owner_id, tool FROM changes ORDER BY id`, `SELECT owner_id, tool, key FROM idempotency_keys ORDER BY key`,
		`SELECT id, zone FROM people ORDER BY id`,
	} {
		rows, err := e.Store.DB().Query(q)
		if err != nil {
			e.t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				e.t.Fatal(err)
			}
			j, _ := json.Marshal(vals)
			b.Write(j)
			b.WriteByte('\n')
		}
		rows.Close()
	}
	return b.String()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	tooltest.Golden(t, name, got, *update)
}
