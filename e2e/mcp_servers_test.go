package e2e

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/store/storetest"
)

// taskID finds the task id (t12) an add_task answer names.
var taskID = regexp.MustCompile(`\bt\d+\b`)

// Two `assistant mcp --http` processes on one PostgreSQL database, as
// behind a load balancer, started together on an empty database (both
// bring it up to date as they open it): a token made with `assistant token
// create` after they started works on both; a change made through one is
// in the very next list of the other (whose listing was read before the
// change, so a cached one would be stale), tasks and events alike; undo
// through the other server undoes it; and a token revoked with `assistant
// token revoke` is refused by both. PostgreSQL only: two processes
// writing one SQLite file is not the deployment this is about.
func TestTwoHTTPServersOnOneDatabase(t *testing.T) {
	t.Run(storetest.Postgres, func(t *testing.T) {
		storetest.SkipUnlessPostgres(t)
		h := newMCPHome(t)
		h.db = storetest.Location(t) // empty: the servers bring it up to date as they start
		servers := []*httpServer{h.startHTTP(t), h.startHTTP(t)}
		for _, s := range servers {
			s.wait(t)
		}
		h.run(t, "person", "add", "alice", "--zone", "Europe/Paris")
		aliceToken := strings.TrimSpace(h.run(t, "token", "create", "--person", "alice", "--label", "laptop"))
		ctx := context.Background()

		// connect is a go-sdk client of server i with token.
		connect := func(t *testing.T, i int, token string) *mcp.ClientSession {
			t.Helper()
			cs, err := httpClient(ctx, servers[i].url, "Bearer "+token)
			if err != nil {
				t.Fatalf("connect to server %d: %v\n%s", i+1, err, servers[i].stderr.String())
			}
			t.Cleanup(func() { cs.Close() })
			return cs
		}
		alice := []*mcp.ClientSession{connect(t, 0, aliceToken), connect(t, 1, aliceToken)}

		t.Run("another person's token works on both", func(t *testing.T) {
			h.run(t, "person", "add", "bob", "--zone", "America/New_York")
			bobToken := strings.TrimSpace(h.run(t, "token", "create", "--person", "bob", "--label", "phone"))
			for i := range servers {
				bob := connect(t, i, bobToken)
				if got := succeed(t, bob, "current_time", `{}`); !strings.Contains(got, "America/New_York") {
					t.Errorf("bob's current_time on server %d: %q, want his zone America/New_York", i+1, got)
				}
			}
		})

		// Each way round: the list of the other server is read first, then
		// the add goes to one, then the other lists at once.
		for _, c := range []struct{ from, to int }{{0, 1}, {1, 0}} {
			title := []string{"Written on one, read on two", "Written on two, read on one"}[c.from]
			t.Run(title, func(t *testing.T) {
				if got := succeed(t, alice[c.to], "list_tasks", `{}`); strings.Contains(got, title) {
					t.Fatalf("server %d lists %q before it was added:\n%s", c.to+1, title, got)
				}
				added := succeed(t, alice[c.from], "add_task", `{"title":"`+title+`"}`)
				id := taskID.FindString(added)
				if id == "" {
					t.Fatalf("add_task on server %d answered %q, which names no task id", c.from+1, added)
				}
				if got := succeed(t, alice[c.to], "list_tasks", `{}`); !strings.Contains(got, title) || !strings.Contains(got, id) {
					t.Errorf("list_tasks on server %d right after add_task on server %d lacks %s %q:\n%s", c.to+1, c.from+1, id, title, got)
				}
				if got := succeed(t, alice[c.to], "get_task", `{"id":"`+id+`"}`); !strings.Contains(got, title) {
					t.Errorf("get_task %s on server %d: %q", id, c.to+1, got)
				}
			})
		}

		t.Run("an event written on one is in the other's next week", func(t *testing.T) {
			const week = `{"from":"2026-10-05","to":"2026-10-11"}`
			if got := succeed(t, alice[1], "list_events", week); strings.Contains(got, "Standup") {
				t.Fatalf("server 2 lists the standup before it was added:\n%s", got)
			}
			succeed(t, alice[0], "add_event", `{"title":"Standup","start":"2026-10-06T09:30","duration":15,"rrule":"FREQ=DAILY;COUNT=3"}`)
			if got := succeed(t, alice[1], "list_events", week); strings.Count(got, "Standup") != 3 {
				t.Errorf("list_events on server 2 right after add_event on server 1: want the 3 standups:\n%s", got)
			}
			succeed(t, alice[1], "delete_event", `{"id":"e1"}`)
			if got := succeed(t, alice[0], "list_events", week); strings.Contains(got, "Standup") {
				t.Errorf("list_events on server 1 right after delete_event on server 2 still shows the standup:\n%s", got)
			}
		})

		t.Run("undo through the other server", func(t *testing.T) {
			const title = "Undone elsewhere"
			succeed(t, alice[1], "list_tasks", `{}`) // read before the change
			added := succeed(t, alice[0], "add_task", `{"title":"`+title+`"}`)
			change := regexp.MustCompile(`\bc\d+\b`).FindString(added)
			if change == "" {
				t.Fatalf("add_task on server 1 answered %q, which names no change", added)
			}
			undone := succeed(t, alice[1], "undo", `{}`)
			if !strings.Contains(undone, change) {
				t.Errorf("undo on server 2 answered %q, want it to undo %s, made on server 1", undone, change)
			}
			for i, cs := range alice {
				if got := succeed(t, cs, "list_tasks", `{}`); strings.Contains(got, title) {
					t.Errorf("list_tasks on server %d after the undo still shows %q:\n%s", i+1, title, got)
				}
			}
			if got := succeed(t, alice[0], "list_changes", `{}`); !strings.Contains(got, "undid "+change) {
				t.Errorf("list_changes on server 1 does not show the undo of %s made on server 2:\n%s", change, got)
			}
		})

		t.Run("a token revoked is refused by both", func(t *testing.T) {
			h.run(t, "token", "revoke", aliceToken[:12])
			for i, s := range servers {
				resp, body := rawCall(t, s.url, "Bearer "+aliceToken, "list_tasks", `{}`)
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("alice's revoked token on server %d: status %d, want 401; body %q", i+1, resp.StatusCode, body)
				}
			}
		})
	})
}
