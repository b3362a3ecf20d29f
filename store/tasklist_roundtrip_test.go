package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// TestListTasksRoundTrips counts the round trips to PostgreSQL of one
// list_tasks page with no tag and no text (a count, not a timing): the
// count, the freshness and the page in one statement, which needs no
// transaction (no BEGIN, no ROLLBACK: one round trip); also for an empty
// list, and for a page of status all that goes on from the open tasks to
// the done ones, which are read in the same transaction (BEGIN with the
// first statement, the done ones, ROLLBACK).
func TestListTasksRoundTrips(t *testing.T) {
	storetest.SkipUnlessPostgres(t)
	t.Run(storetest.Postgres, func(t *testing.T) {
		rt := store.CountRoundTrips(t)
		env := tooltest.Open(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), tasks.Register)
		ada, bob := env.Person("ada", "Europe/Paris"), env.Person("bob", "Europe/Paris")
		for i := range 10 {
			if res, _ := env.Call(ada, "add_task", fmt.Sprintf(`{"title":"Task %d","due":"2026-12-0%d","priority":%d}`, i, 1+i%5, 1+i%4)); !res.OK() {
				t.Fatal(res.TextOut())
			}
		}
		if res, _ := env.Call(ada, "complete_task", `{"id":"t1"}`); !res.OK() {
			t.Fatal(res.TextOut())
		}
		for _, c := range []struct {
			who        string
			args, text string
			trips      int
		}{
			{"ada", `{"limit":5}`, "9 open tasks; 1–5 shown:", 1},
			{"bob", `{"limit":5}`, "No open tasks.", 1},
			{"ada", `{"status":"done"}`, "1 done task:", 1},
			{"ada", `{"status":"all","limit":10}`, "10 tasks:", 3},
		} {
			p := ada
			if c.who == "bob" {
				p = bob
			}
			call := func() {
				t.Helper()
				res, _ := env.Call(p, "list_tasks", c.args)
				if !res.OK() || !strings.HasPrefix(res.TextOut(), c.text) {
					t.Fatalf("list_tasks %s: %s, want it to begin %q", c.args, res.TextOut(), c.text)
				}
			}
			for range 3 {
				call()
			}
			rt.Reset()
			call()
			if n := rt.N(); n > c.trips {
				t.Errorf("list_tasks %s for %s took %d round trips to PostgreSQL, want at most %d; sent:\n%s",
					c.args, c.who, n, c.trips, strings.Join(rt.Sent(), "\n"))
			}
		}

		// In a session (MCP stdio, chat) each call checks the kept person:
		// the check rides in the page's own round trip.
		tc := env.Context(ada)
		tools.InsertSession(tc, tools.NewSession(env.Store, ada))
		for i := range 4 {
			rt.Reset()
			res, _ := env.Reg.Call(context.Background(), tc, "list_tasks", []byte(`{"limit":5}`))
			if !res.OK() || !strings.HasPrefix(res.TextOut(), "9 open tasks; 1–5 shown:") {
				t.Fatalf("list_tasks in a session: %s", res.TextOut())
			}
			if i < 3 {
				continue // the first calls of a connection prepare the statements
			}
			if n, sent := rt.N(), strings.Join(rt.Sent(), "\n"); n != 1 || !strings.Contains(sent, "FROM people WHERE id") {
				t.Errorf("list_tasks in a session took %d round trips to PostgreSQL, want 1 with the person's check; sent:\n%s", n, sent)
			}
		}
	})
}
