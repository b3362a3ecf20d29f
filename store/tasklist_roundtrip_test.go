package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// TestListTasksRoundTrips counts the round trips to PostgreSQL of one
// list_tasks page with no tag and no text (a count, not a timing): BEGIN
// with the count, the freshness and the page in one statement, then
// ROLLBACK; also for an empty list, and for a page of status all that
// goes on from the open tasks to the done ones (one more, for the done
// ones).
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
			{"ada", `{"limit":5}`, "9 open tasks; 1–5 shown:", 2},
			{"bob", `{"limit":5}`, "No open tasks.", 2},
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
	})
}
