package tasks

import (
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
		`SELECT count(*) FROM change_rows`,
		`SELECT count(*) FROM idempotency_keys`,
		`SELECT coalesce(group_concat(id || title || notes || coalesce(due_date, '') || coalesce(due_time, '') ||
			coalesce(due_zone, '') || priority || tags || coalesce(rrule, '') || coalesce(repeat_from, '') || status ||
			remind_before || remind_at || coalesce(deleted_at, '') || coalesce(updated_at, ''), '|'), '') FROM tasks`,
		`SELECT coalesce(group_concat(id || task_id || coalesce(deleted_at, ''), '|'), '') FROM task_completions`,
	} {
		var v string
		if err := h.Store.DB().QueryRow(q).Scan(&v); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, " ")
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
