package tasks

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tz"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files under testdata/")

// harness is a real store file in a temp folder, a registry with the task
// tools (and undo), a settable clock and two people in different zones.
type harness struct {
	ctx   context.Context
	s     *store.Store
	reg   *tools.Registry
	now   time.Time
	paris tools.Person
	ny    tools.Person
}

func newHarness(t testing.TB, now time.Time) *harness {
	t.Helper()
	h := &harness{ctx: context.Background(), now: now}
	s, err := store.Open(h.ctx, filepath.Join(t.TempDir(), "assistant.db"), &store.Options{Now: func() time.Time { return h.now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	h.s = s
	h.reg = tools.NewRegistry()
	Register(h.reg)
	changes.Register(h.reg)
	h.paris = h.person(t, "ada", "Europe/Paris")
	h.ny = h.person(t, "bob", "America/New_York")
	return h
}

func (h *harness) person(t testing.TB, name, zone string) tools.Person {
	t.Helper()
	p, err := h.s.EnsurePerson(h.ctx, name, zone)
	if err != nil {
		t.Fatal(err)
	}
	return tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)}
}

// at sets the clock to a civil time in zone.
func (h *harness) at(zone, civil string) {
	dt, err := tz.ParseDateTime(civil)
	if err != nil {
		panic(err)
	}
	h.now, _ = tz.MustZone(zone).Instant(dt)
}

func (h *harness) call(who tools.Person, name, raw string) (tools.ExecResult, *tools.ToolContext) {
	tc := &tools.ToolContext{}
	tools.Insert(tc, who)
	tools.Insert(tc, h.s)
	tools.Insert(tc, tools.Clock(func() time.Time { return h.now }))
	return h.reg.Call(h.ctx, tc, name, []byte(raw))
}

// ok calls and fails the test unless the call succeeded; it returns Out.
func (h *harness) ok(t testing.TB, who tools.Person, name, raw string) string {
	t.Helper()
	res, _ := h.call(who, name, raw)
	if !res.OK() {
		t.Fatalf("%s %s: code %d: %s", name, raw, res.Code, res.TextOut())
	}
	return res.TextOut()
}

// data calls and decodes Data into v.
func (h *harness) data(t testing.TB, who tools.Person, name, raw string, v any) string {
	t.Helper()
	res, _ := h.call(who, name, raw)
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
		if err := h.s.DB().QueryRow(q).Scan(&v); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, " ")
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to accept):\n--- want\n%s\n--- got\n%s", name, want, got)
	}
}

// write calls a writing tool and returns its Data, decoded fresh.
func (h *harness) write(t testing.TB, who tools.Person, name, raw string) (written, string) {
	t.Helper()
	var d written
	out := h.data(t, who, name, raw, &d)
	return d, out
}
