package tools_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// TestCallWaitingForAnotherWriter: add_task in a session (as MCP runs it)
// while a longer write of the same person holds the database (the write
// lock on SQLite, the person's advisory lock on PostgreSQL) until the
// call's CallTimeout is answered with CodeUnavailable and the sentence of
// a wait for another writer, not the one that asks for less; nothing of
// it is stored, and the same call made again once the other write ended
// is.
func TestCallWaitingForAnotherWriter(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := tooltest.Open(t, time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC), tasks.Register)
		e.Reg.Log = slog.New(slog.DiscardHandler)
		ctx := context.Background()
		ada := e.Person("ada", "Europe/Paris")
		tc := e.Context(ada)
		tools.InsertSession(tc, tools.NewSession(e.Store, ada))
		if res, _ := e.Reg.Call(ctx, tc, "add_task", []byte(`{"title":"First"}`)); res.Code != tools.CodeOK {
			t.Fatalf("add_task: %+v", res)
		}

		holding, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			_, err := e.Store.Write(ctx, ada.ID, "import", func(tx *store.Tx) error {
				// A first statement: on PostgreSQL the lock rides with it.
				_, err := tx.Get("tasks", 1)
				close(holding)
				<-release
				return err
			})
			done <- err
		}()
		<-holding
		e.Reg.CallTimeout = time.Second
		res, _ := e.Reg.Call(ctx, tc, "add_task", []byte(`{"title":"Blocked"}`))
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("the longer write: %v", err)
		}
		if res.Code != tools.CodeUnavailable || !strings.Contains(res.Err, "waited for another writer") || strings.Contains(res.Err, "ask for less") {
			t.Errorf("add_task while another write held the database: %d %q, want CodeUnavailable and a wait for another writer", res.Code, res.Err)
		}
		e.Reg.CallTimeout = 0
		if res, _ := e.Reg.Call(ctx, tc, "add_task", []byte(`{"title":"Blocked"}`)); res.Code != tools.CodeOK {
			t.Fatalf("add_task again: %+v", res)
		}
		res, _ = e.Reg.Call(ctx, tc, "list_tasks", []byte(`{}`))
		if n := strings.Count(res.Out, "Blocked"); n != 1 || !strings.Contains(res.Out, "First") {
			t.Errorf("list_tasks after the wait (want First and one Blocked):\n%s", res.Out)
		}
	})
}
