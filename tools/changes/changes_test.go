package changes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// notes is a journaled table only these tests create, so the tools are
// tested without the tasks package.
func init() { store.RegisterTable("notes") }

// env is alice (Europe/Paris) and bob (America/New_York) with the journal
// tools and the notes table on a fresh store.
type env struct {
	*tooltest.Env
	alice tools.Person
	bob   tools.Person
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{Env: tooltest.Open(t, time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC), Register)}
	if _, err := e.Store.DB().Exec(notesDDL(e.Store, `CREATE TABLE notes (id INTEGER PRIMARY KEY,
		owner_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
		title TEXT NOT NULL, deleted_at TEXT, updated_at TEXT)`)); err != nil {
		t.Fatal(err)
	}
	e.alice = e.Person("alice", "Europe/Paris")
	e.bob = e.Person("bob", "America/New_York")
	return e
}

func (e *env) call(t *testing.T, who tools.Person, name, raw string) (tools.ExecResult, *tools.ToolContext) {
	t.Helper()
	return e.Call(who, name, raw)
}

func (e *env) write(t *testing.T, who tools.Person, tool string, fn func(tx *store.Tx) error) string {
	t.Helper()
	c, err := e.Store.Write(e.Ctx, who.ID, tool, fn)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (e *env) title(t *testing.T, who tools.Person, id int64) string {
	t.Helper()
	var title string
	err := e.Store.Read(e.Ctx, who.ID, func(tx *store.Tx) error {
		r, err := tx.Get("notes", id)
		if err != nil {
			return err
		}
		title, _ = r["title"].(string)
		return nil
	})
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return title
}

func TestUndoTool(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		var id int64
		c1 := e.write(t, e.alice, "add_note", func(tx *store.Tx) error {
			var err error
			id, err = tx.Insert("notes", store.Row{"title": "milk"})
			return err
		})
		c2 := e.write(t, e.alice, "update_note", func(tx *store.Tx) error {
			return tx.Update("notes", id, store.Row{"title": "oat milk"})
		})
		bobC := e.write(t, e.bob, "add_note", func(tx *store.Tx) error {
			_, err := tx.Insert("notes", store.Row{"title": "bob's"})
			return err
		})

		cases := []struct {
			name     string
			who      tools.Person
			raw      string
			code     int
			contains string
			title    string // alice's note afterwards
		}{
			{"bad id", e.alice, `{"change":"yesterday"}`, tools.CodeInvalid, "“change” must be a change id such as “c31”", "oat milk"},
			{"no change is c0", e.alice, `{"change":"c00"}`, tools.CodeInvalid, "“change” must be a change id such as “c31” (list_changes shows them), not “c00”", "oat milk"},
			{"other person's change", e.alice, `{"change":"` + bobC + `"}`, tools.CodeNotFound, bobC + " is not one of your changes", "oat milk"},
			{"over a later change", e.alice, `{"change":"` + c1 + `"}`, tools.CodeConflict, "n1 was changed since by " + c2 + " (update_note); undo " + c2 + " first.", "oat milk"},
			{"latest by default", e.alice, `{}`, tools.CodeOK, "Undid " + c2 + " (update_note): changed n1.", "milk"},
			{"already undone", e.alice, `{"change":"` + c2 + `"}`, tools.CodeConflict, c2 + " was already undone by c4; undo c4 to redo it.", "milk"},
			{"redo", e.alice, `{"change":"c4"}`, tools.CodeOK, "Undid c4 (undo)", "oat milk"},
			{"bob cannot undo alice's", e.bob, `{"change":"c5"}`, tools.CodeNotFound, "c5 is not one of your changes", "oat milk"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res, _ := e.call(t, tc.who, "undo", tc.raw)
				if res.Code != tc.code || !strings.Contains(res.TextOut(), tc.contains) {
					t.Fatalf("undo %s = %d %q; want %d containing %q", tc.raw, res.Code, res.TextOut(), tc.code, tc.contains)
				}
				if got := e.title(t, e.alice, id); got != tc.title {
					t.Fatalf("alice's note = %q, want %q", got, tc.title)
				}
			})
		}
		res, call := e.call(t, e.alice, "undo", `{}`)
		if !res.OK() {
			t.Fatal(res.TextOut())
		}
		ch, ok := tools.Result[tools.Changed](call)
		if !ok || ch.Change == "" || len(ch.Items) != 1 || ch.Items[0] != "n1" {
			t.Fatalf("Changed = %+v, %v", ch, ok)
		}
		var data struct {
			Change, Undid string
			Rows          []struct{ ID, Action string }
		}
		if err := json.Unmarshal(res.Data, &data); err != nil || data.Change != ch.Change || data.Rows[0].Action != "changed" {
			t.Fatalf("data = %s (%v)", res.Data, err)
		}
	})
}

func TestListChangesTool(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		for _, title := range []string{"a", "b", "c"} {
			e.write(t, e.alice, "add_note", func(tx *store.Tx) error {
				_, err := tx.Insert("notes", store.Row{"title": title})
				return err
			})
		}
		e.write(t, e.bob, "add_note", func(tx *store.Tx) error {
			_, err := tx.Insert("notes", store.Row{"title": "secret"})
			return err
		})
		cases := []struct {
			raw   string
			code  int
			lines []string
		}{
			{`{}`, tools.CodeOK, []string{
				"c3  Mon 2026-10-05 09:00  add_note: added n3",
				"c2  Mon 2026-10-05 09:00  add_note: added n2",
				"c1  Mon 2026-10-05 09:00  add_note: added n1",
			}},
			{`{"limit":1}`, tools.CodeOK, []string{"c3  Mon 2026-10-05 09:00  add_note: added n3",
				"Older changes: call list_changes with before=c3."}},
			{`{"limit":"2"}`, tools.CodeOK, []string{
				"c3  Mon 2026-10-05 09:00  add_note: added n3",
				"c2  Mon 2026-10-05 09:00  add_note: added n2",
				"Older changes: call list_changes with before=c2.",
			}},
			// The pages go on by “before”, to the first change, whatever
			// limit allows at once.
			{`{"limit":2,"before":"c2"}`, tools.CodeOK, []string{"c1  Mon 2026-10-05 09:00  add_note: added n1"}},
			{`{"limit":1,"before":"c3"}`, tools.CodeOK, []string{"c2  Mon 2026-10-05 09:00  add_note: added n2",
				"Older changes: call list_changes with before=c2."}},
			{`{"before":"c1"}`, tools.CodeOK, []string{"No changes yet."}},
			{`{"limit":3}`, tools.CodeOK, []string{
				"c3  Mon 2026-10-05 09:00  add_note: added n3",
				"c2  Mon 2026-10-05 09:00  add_note: added n2",
				"c1  Mon 2026-10-05 09:00  add_note: added n1",
			}},
			{`{"limit":0}`, tools.CodeInvalid, []string{"“limit” must be a whole number from 1 to 200, not “0”."}},
			{`{"before":"31"}`, tools.CodeInvalid, []string{"“before” must be a change id such as “c31” (the “more_before” of the last page), not “31”."}},
		}
		for _, tc := range cases {
			res, _ := e.call(t, e.alice, "list_changes", tc.raw)
			if res.Code != tc.code {
				t.Fatalf("list_changes %s = %d %q", tc.raw, res.Code, res.TextOut())
			}
			if got := res.TextOut(); got != strings.Join(tc.lines, "\n") {
				t.Errorf("list_changes %s =\n%s\nwant\n%s", tc.raw, got, strings.Join(tc.lines, "\n"))
			}
		}
		res, _ := e.call(t, e.bob, "list_changes", `{}`)
		if strings.Contains(res.TextOut(), "n1") || !strings.Contains(res.TextOut(), "c4") {
			t.Fatalf("bob sees %q", res.TextOut())
		}
	})
}

// notesDDL is ddl, written for SQLite, in the words of s's engine: on
// PostgreSQL the id is an identity column (SQLite's INTEGER PRIMARY KEY
// numbers rows by itself).
func notesDDL(s *store.Store, ddl string) string {
	if s.Engine() == store.Postgres {
		return strings.Replace(ddl, "id INTEGER PRIMARY KEY", "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", 1)
	}
	return ddl
}

// A change of more rows than [store.ChangeRowsRead]: list_changes and the
// undo's answer read only its first rows, and say how many it touched.
func TestLargeChangeIsReadInPart(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		n := store.ChangeRowsRead*2 + 7
		e.write(t, e.alice, "add_note", func(tx *store.Tx) error {
			for i := range n {
				if _, err := tx.Insert("notes", store.Row{"title": fmt.Sprintf("note %d", i)}); err != nil {
					return err
				}
			}
			return nil
		})
		list, err := e.Store.Changes(context.Background(), e.alice.ID, 5)
		if err != nil || len(list) != 1 || len(list[0].Rows) != store.ChangeRowsRead || list[0].RowsTotal != n {
			t.Fatalf("Changes: %d rows of %d read (%v)", len(list[0].Rows), list[0].RowsTotal, err)
		}
		res, _ := e.call(t, e.alice, "undo", `{}`)
		if want := fmt.Sprintf("and more, %d rows in all", n); !res.OK() || !strings.Contains(res.TextOut(), want) || strings.Contains(res.TextOut(), " more, and") {
			t.Fatalf("undo = %q; want it to say %q", res.TextOut(), want)
		}
		var data struct {
			Changes []struct{ Rows []struct{ ID string } }
		}
		res, _ = e.call(t, e.alice, "list_changes", `{"limit":2}`)
		if err := json.Unmarshal(res.Data, &data); err != nil || len(data.Changes) != 2 || len(data.Changes[0].Rows) != store.ChangeRowsRead {
			t.Fatalf("list_changes data: %v %s", err, res.Data[:min(len(res.Data), 300)])
		}
		// a change of one row, kept inline, is still read
		e.write(t, e.alice, "add_note", func(tx *store.Tx) error {
			_, err := tx.Insert("notes", store.Row{"title": "one"})
			return err
		})
		list, err = e.Store.Changes(context.Background(), e.alice.ID, 1)
		if err != nil || len(list[0].Rows) != 1 || list[0].RowsTotal != 1 || list[0].Rows[0].Action != "added" {
			t.Fatalf("a one-row change reads %+v (%v)", list, err)
		}
	})
}

// A call stopped after its write was saved (out of time, or cancelled) says so, with the
// change to undo, never "nothing was changed" (a retry would do it twice).
func TestTimeoutAfterTheCommitNamesTheChange(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		// The call is stopped by its caller right after the write: no
		// deadline that a slow machine could reach before the commit.
		ctx, cancel := context.WithCancel(context.Background())
		e.Env.Ctx = ctx
		e.Reg.Add(tools.Define(tools.Tool{Name: "slow_note", Title: "Slow note", Description: "Adds a note, then waits out the call.",
			Schema: tools.Schema{Properties: []tools.Property{tools.Str("title", "The title.")}}},
			func(a *args.Args, _ *tools.Env) string { return a.Line("title") },
			func(env *tools.Env, title string) tools.ExecResult {
				if _, err := env.Write(func(tx *store.Tx) error {
					_, err := tx.Insert("notes", store.Row{"title": title})
					return err
				}); err != nil {
					return tools.Fail(err)
				}
				cancel()
				<-env.Ctx.Done() // the answer is made too late
				return tools.Fail(env.Ctx.Err())
			}))
		res, _ := e.call(t, e.alice, "slow_note", `{"title":"kept"}`)
		list, err := e.Store.Changes(context.Background(), e.alice.ID, 1)
		if err != nil || len(list) != 1 {
			t.Fatalf("the write was not saved: %v %v", list, err)
		}
		c := list[0].ID
		if res.OK() || strings.Contains(res.TextOut(), "nothing was changed") || !strings.Contains(res.TextOut(), "after its change "+c+" was saved") {
			t.Fatalf("answer %q; want it to name the saved change %s", res.TextOut(), c)
		}
		// a call stopped before it wrote still says nothing was changed
		ctx, cancel = context.WithCancel(context.Background())
		e.Env.Ctx = ctx
		e.Reg.Add(tools.Define(tools.Tool{Name: "slow_read", Title: "Slow read", Description: "Waits out the call.",
			Schema: tools.Schema{Properties: []tools.Property{}}},
			func(*args.Args, *tools.Env) struct{} { return struct{}{} },
			func(env *tools.Env, _ struct{}) tools.ExecResult {
				cancel()
				<-env.Ctx.Done()
				return tools.Fail(env.Ctx.Err())
			}))
		if res, _ := e.call(t, e.alice, "slow_read", `{}`); res.OK() || !strings.Contains(res.TextOut(), "nothing was changed") {
			t.Fatalf("slow_read: %q", res.TextOut())
		}
	})
}
