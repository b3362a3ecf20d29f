package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// Two tokens for two people in different zones, served the real catalog
// over HTTP on one store: each token's calls run with its own person's id
// and zone. At 02:00 UTC it is already Monday 04:00 in Paris and still
// Sunday 22:00 in New York, so current_time must answer each in their own
// zone; the same "20:00" in add_task is pinned to each one's zone, and
// each lists only their own task.
func TestHTTPTokensCarryTheirPersonsZone(t *testing.T) {
	storetest.Engines(t, testHTTPTokensCarryTheirPersonsZone)
}

func testHTTPTokensCarryTheirPersonsZone(t *testing.T) {
	env := tooltest.Open(t, time.Date(2026, 10, 5, 2, 0, 0, 0, time.UTC))
	ada := env.Person("ada", "Europe/Paris")
	bob := env.Person("bob", "America/New_York")
	a := &tokenAuth{people: map[string]*tools.ToolContext{
		"tok-ada": env.Context(ada),
		"tok-bob": env.Context(bob),
	}}
	ts := newHTTPServer(t, catalog.New(), a, nil)
	ctx := context.Background()

	cases := []struct {
		token  string
		person tools.Person
		now    map[string]any // current_time's structuredContent
		title  string         // the task this person adds
		dueAt  time.Time      // 20:00 on 2026-10-05 in their zone
	}{
		{"tok-ada", ada, map[string]any{
			"now": "2026-10-05T04:00:00+02:00", "date": "2026-10-05", "time": "04:00", "weekday": "Monday",
			"time_zone": "Europe/Paris", "offset": "+02:00",
		}, "Ada's call", time.Date(2026, 10, 5, 18, 0, 0, 0, time.UTC)},
		{"tok-bob", bob, map[string]any{
			"now": "2026-10-04T22:00:00-04:00", "date": "2026-10-04", "time": "22:00", "weekday": "Sunday",
			"time_zone": "America/New_York", "offset": "-04:00",
		}, "Bob's call", time.Date(2026, 10, 6, 0, 0, 0, 0, time.UTC)},
	}
	sessions := map[string]*mcp.ClientSession{}
	for _, c := range cases {
		cs, err := httpClient(ctx, ts.URL, "Bearer "+c.token)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions[c.token] = cs
	}
	call := func(t *testing.T, token, tool, arguments string) *mcp.CallToolResult {
		t.Helper()
		res, err := sessions[token].CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(arguments)})
		if err != nil {
			t.Fatalf("%s %s as %s: %v", tool, arguments, token, err)
		}
		if res.IsError {
			t.Fatalf("%s %s as %s: isError with %q", tool, arguments, token, text(t, res))
		}
		return res
	}

	// Interleaved, so a context kept from one token's request cannot pass
	// for the next one's.
	for range 2 {
		for _, c := range cases {
			res := call(t, c.token, "current_time", `{}`)
			if !sameJSON(t, res.StructuredContent, c.now) {
				t.Errorf("current_time as %s = %v, want %v", c.token, res.StructuredContent, c.now)
			}
			if got, zone := text(t, res), c.now["time_zone"].(string); !strings.Contains(got, zone) {
				t.Errorf("current_time as %s says %q, which does not name %s", c.token, got, zone)
			}
		}
	}

	for _, c := range cases {
		call(t, c.token, "add_task", `{"title":"`+c.title+`","due":"2026-10-05T20:00"}`)
	}
	for _, c := range cases {
		var zone string
		var at int64
		err := env.Store.DB().QueryRowContext(ctx, `SELECT due_zone, due_at FROM tasks WHERE owner_id = ? AND title = ? AND deleted_at IS NULL`,
			c.person.ID, c.title).Scan(&zone, &at)
		if err != nil {
			t.Fatalf("%s's task %q: %v", c.person.Name, c.title, err)
		}
		if zone != c.person.Zone.Name() || at != c.dueAt.Unix() {
			t.Errorf("%s's task stored in %s at %s, want %s at %s", c.person.Name, zone, time.Unix(at, 0).UTC(), c.person.Zone.Name(), c.dueAt)
		}
		list := text(t, call(t, c.token, "list_tasks", `{}`))
		for _, other := range cases {
			if shows := strings.Contains(list, other.title); shows != (other.token == c.token) {
				t.Errorf("list_tasks as %s shows %q: %t\n%s", c.token, other.title, shows, list)
			}
		}
	}
}
