package changes

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// TestUndoSpeaksOfItems runs the real task tools: undoing a completion
// says what happened to the task, and no answer or data names the
// completion row (tc1) or a derived column.
func TestUndoSpeaksOfItems(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := tooltest.Open(t, time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC), Register, tasks.Register)
		alice := e.Person("alice", "Europe/Paris")
		call := func(name, raw string) tools.ExecResult {
			t.Helper()
			res, _ := e.Call(alice, name, raw)
			if !res.OK() {
				t.Fatalf("%s %s = %d %q", name, raw, res.Code, res.TextOut())
			}
			return res
		}
		call("add_task", `{"title":"Buy milk","due":"2026-10-06"}`)
		call("complete_task", `{"id":"t1"}`)

		steps := []struct {
			tool, raw string
			want      string // in the text answer
		}{
			{"undo", `{}`, "Undid c2 (complete_task): changed t1 (1 completion removed). This undo is c3"},
			{"undo", `{"change":"c3"}`, "Undid c3 (undo): changed t1 (1 completion brought back)."},
			{"list_changes", `{}`, "c1  Mon 2026-10-05 09:00  add_task: added t1 “Buy milk”"},
		}
		for _, st := range steps {
			res := call(st.tool, st.raw)
			out := res.TextOut()
			if !strings.Contains(out, st.want) {
				t.Errorf("%s %s = %q, want it to contain %q", st.tool, st.raw, out, st.want)
			}
			for _, internal := range []string{"tc1", "task_completions", "title_norm"} {
				if strings.Contains(out, internal) || strings.Contains(string(res.Data), internal) {
					t.Errorf("%s %s names %q: %s\n%s", st.tool, st.raw, internal, out, res.Data)
				}
			}
		}
		var data struct {
			Rows []rowData `json:"rows"`
		}
		res := call("undo", `{}`) // the redo (c4) is the latest not undone; undo it again
		if err := json.Unmarshal(res.Data, &data); err != nil {
			t.Fatal(err)
		}
		want := []rowData{{ID: "t1", Action: "deleted", Part: "completion"}, {ID: "t1", Action: "changed"}}
		if len(data.Rows) != 2 || (data.Rows[0] != want[0] && data.Rows[0] != want[1]) {
			t.Errorf("undo data rows = %+v, want %+v in some order", data.Rows, want)
		}
		for range 3 {
			e.Call(alice, "undo", `{}`)
		}
		if res, _ := e.Call(alice, "undo", `{}`); res.Code != tools.CodeNotFound || res.TextOut() != "There is no change left to undo." {
			t.Errorf("undo with nothing left = %d %q, want 4 and a capitalised sentence", res.Code, res.TextOut())
		}
	})
}

// An undo refused because a completion was changed since names the task
// it belongs to, not the completion's own row (tc1).
func TestUndoConflictNamesTheItem(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := tooltest.Open(t, time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC), Register, tasks.Register)
		alice := e.Person("alice", "Europe/Paris")
		for _, c := range [][2]string{{"add_task", `{"title":"Buy milk","due":"2026-10-06"}`}, {"complete_task", `{"id":"t1"}`}} {
			if res, _ := e.Call(alice, c[0], c[1]); !res.OK() {
				t.Fatalf("%s: %s", c[0], res.TextOut())
			}
		}
		if _, err := e.Store.Write(context.Background(), alice.ID, "fix_completion", func(tx *store.Tx) error {
			return tx.Update("task_completions", 1, store.Row{"completed_at": int64(1791100000)})
		}); err != nil {
			t.Fatal(err)
		}
		res, _ := e.Call(alice, "undo", `{"change":"c2"}`)
		if want := "A completion of t1 was changed since by c3 (fix_completion); undo c3 first."; res.Code != tools.CodeConflict || res.TextOut() != want {
			t.Errorf("undo c2 = %d %q, want %d %q", res.Code, res.TextOut(), tools.CodeConflict, want)
		}
	})
}
