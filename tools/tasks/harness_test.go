package tasks

import (
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files under testdata/")

// harness is a real store file in a temp folder, a registry with the task
// tools (and undo), a settable clock and two people in different zones.
type harness struct {
	*tooltest.Env
	paris tools.Person
	ny    tools.Person
}

func newHarness(t testing.TB, now time.Time) *harness {
	t.Helper()
	h := &harness{Env: tooltest.Open(t, now, Register, changes.Register)}
	h.paris = h.Person("ada", "Europe/Paris")
	h.ny = h.Person("bob", "America/New_York")
	return h
}

// ok calls and fails the test unless the call succeeded; it returns Out.
func (h *harness) ok(t testing.TB, who tools.Person, name, raw string) string {
	t.Helper()
	res, _ := h.Call(who, name, raw)
	if !res.OK() {
		t.Fatalf("%s %s: code %d: %s", name, raw, res.Code, res.TextOut())
	}
	return res.TextOut()
}

// data calls and decodes Data into v.
func (h *harness) data(t testing.TB, who tools.Person, name, raw string, v any) string {
	t.Helper()
	res, _ := h.Call(who, name, raw)
	if !res.OK() {
		t.Fatalf("%s %s: code %d: %s", name, raw, res.Code, res.TextOut())
	}
	if err := json.Unmarshal(res.Data, v); err != nil {
		t.Fatalf("%s: Data %s: %v", name, res.Data, err)
	}
	return res.TextOut()
}

// taskOf returns the task in a write's or get's Data.
func (h *harness) task(t testing.TB, who tools.Person, id string) taskData {
	t.Helper()
	var d struct{ Task taskData }
	h.data(t, who, "get_task", fmt.Sprintf(`{"id":%q}`, id), &d)
	return d.Task
}

// add adds a task and returns its id.
func (h *harness) add(t testing.TB, who tools.Person, raw string) string {
	t.Helper()
	var d written
	h.data(t, who, "add_task", raw, &d)
	return d.Task.ID
}

// counts sums up everything a call could have written: the number of rows
// of the task tables (live or not), the journal and the idempotency keys,
// and the content of every task and completion row.
func (h *harness) counts(t testing.TB) string {
	t.Helper()
	var parts []string
	for _, q := range []string{
		`SELECT count(*) FROM tasks`,
		`SELECT count(*) FROM task_completions`,
		`SELECT count(*) FROM changes`,
		`SELECT count(*) FROM journal_rows`,
		`SELECT count(*) FROM idempotency_keys`,
	} {
		var v string
		if err := h.Store.DB().QueryRow(q).Scan(&v); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, v)
	}
	parts = append(parts,
		h.rows(t, "tasks", "id", "title", "notes", "due_date", "due_time", "due_zone", "priority", "tags", "rrule",
			"repeat_from", "status", "remind_before", "remind_at", "deleted_at", "updated_at"),
		h.rows(t, "task_completions", "id", "task_id", "deleted_at"))
	return strings.Join(parts, " ")
}

// rows is the content of table's columns cols, one row after another in
// the order of id, each row its values run together ("" for NULL), the
// rows joined by "|"; in the same words on both engines.
func (h *harness) rows(t testing.TB, table string, cols ...string) string {
	t.Helper()
	rs, err := h.Store.DB().Query(`SELECT ` + strings.Join(cols, ", ") + ` FROM ` + table + ` ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, v := range vals {
			b.WriteString(v.String)
		}
		out = append(out, b.String())
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "|")
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	tooltest.Golden(t, name, got, *updateGolden)
}

// write calls a writing tool and returns its Data, decoded fresh.
func (h *harness) write(t testing.TB, who tools.Person, name, raw string) (written, string) {
	t.Helper()
	var d written
	out := h.data(t, who, name, raw, &d)
	return d, out
}
