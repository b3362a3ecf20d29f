package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// maxAddTaskRoundTrips is the most round trips one add_task may make to
// PostgreSQL once the connection has its statements prepared: BEGIN, the
// lock, the look for a task like it, the INSERT, the journal and COMMIT
// in one batch (store.AddTask).
const maxAddTaskRoundTrips = 1

// maxReadRoundTrips is the most round trips of a Read whose function runs
// one statement.
const maxReadRoundTrips = 2

// TestAddTaskRoundTrips counts the round trips to PostgreSQL of one
// add_task through the Registry, and of a Read of one row, (a count, not a timing: the same on any
// machine), after a few calls that prepare the statements on the pool's
// connections.
func TestAddTaskRoundTrips(t *testing.T) {
	storetest.SkipUnlessPostgres(t)
	t.Run(storetest.Postgres, func(t *testing.T) {
		rt := store.CountRoundTrips(t)
		env := tooltest.Open(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), tasks.Register)
		p := env.Person("ada", "Europe/Paris")
		call := func(i int) {
			t.Helper()
			res, _ := env.Call(p, "add_task", fmt.Sprintf(`{"title":"Task %d","due":"2026-12-01T09:00","tags":["bench"],"priority":2}`, i))
			if !res.OK() {
				t.Fatal(res.TextOut())
			}
		}
		for i := range 8 {
			call(i)
		}
		rt.Reset()
		call(100)
		n, sent := rt.N(), rt.Sent()
		t.Logf("add_task: %d round trips; sent:\n%s", n, strings.Join(sent, "\n"))
		if n > maxAddTaskRoundTrips {
			t.Errorf("one add_task took %d round trips to PostgreSQL, want at most %d", n, maxAddTaskRoundTrips)
		}
		// With the person check a stdio session makes before each call,
		// still one: the check rides in the batch, and the INSERT requires
		// the person as checked.
		checked := func(i int) {
			t.Helper()
			ctx, check := store.WithPersonCheck(env.Ctx, p.ID, p.Name, p.Zone.Name())
			_, _, added, err := env.Store.AddTask(ctx, p.ID, "add_task", p.Zone.Name(), task.New(fmt.Sprintf("Checked %d", i), env.Now),
				env.Now.Add(-10*time.Minute), func(ref string) string { return "added " + ref })
			if err != nil || !added || !check.Made() || check.Changed() {
				t.Fatalf("AddTask with a person check: added %v, err %v, check made %v", added, err, check.Made())
			}
		}
		for i := range 8 {
			checked(i)
		}
		rt.Reset()
		checked(100)
		t.Logf("AddTask with a person check: %d round trips; sent:\n%s", rt.N(), strings.Join(rt.Sent(), "\n"))
		if n := rt.N(); n > maxAddTaskRoundTrips {
			t.Errorf("AddTask with a person check took %d round trips to PostgreSQL, want at most %d", n, maxAddTaskRoundTrips)
		}
		// Nor a statement of its own in the batch: the INSERT makes it.
		// Nor BEGIN and COMMIT: the lock and the INSERT are one implicit
		// transaction.
		for _, s := range rt.Sent() {
			if strings.Contains(s, "SELECT name, zone FROM people") {
				t.Errorf("AddTask with a person check read the person on its own:\n%s", s)
			}
			if l := strings.ToLower(s); strings.HasPrefix(l, "begin") || strings.HasPrefix(l, "commit") {
				t.Errorf("AddTask sent %q: the batch is one implicit transaction", s)
			}
		}
		// A read of one row: BEGIN with its SELECT, then ROLLBACK.
		read := func() {
			t.Helper()
			if err := env.Store.Read(env.Ctx, p.ID, func(tx *store.Tx) error { _, err := tx.Task(1); return err }); err != nil {
				t.Fatal(err)
			}
		}
		read()
		rt.Reset()
		read()
		t.Logf("Read of one task: %d round trips; sent:\n%s", rt.N(), strings.Join(rt.Sent(), "\n"))
		if n := rt.N(); n > maxReadRoundTrips {
			t.Errorf("a Read of one task took %d round trips to PostgreSQL, want at most %d", n, maxReadRoundTrips)
		}
		// Over MCP HTTP each request also finds its person by its token
		// (logged, not asserted: the token lookup is not add_task's).
		token, _, err := env.Store.CreateToken(env.Ctx, p.ID, "bench")
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the first stamps last_used, as once a minute
			rt.Reset()
			if _, err := env.Store.PersonByToken(env.Ctx, token); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("PersonByToken: %d round trips; sent:\n%s", rt.N(), strings.Join(rt.Sent(), "\n"))
	})
}
