package e2e

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Running `assistant mcp` servers (stdio and HTTP) whose PostgreSQL
// database stops taking connections, its open ones cut, as when the server
// restarts or fails over: every call answers with a failure in one
// sentence that says to try again, with nothing of SQL, pgx or the server
// in it, and writes nothing; once the database takes connections again the
// same servers, not restarted, work on. PostgreSQL only: a SQLite file has
// no server to lose.
func TestMCPDatabaseGoneAndBack(t *testing.T) {
	t.Run(storetest.Postgres, func(t *testing.T) {
		storetest.SkipUnlessPostgres(t)
		h := newMCPHome(t)
		h.db = storetest.Location(t) // empty: the first run brings it up to date
		h.run(t, "person", "add", "alice", "--zone", "Europe/Paris")
		token := strings.TrimSpace(h.run(t, "token", "create", "--person", "alice"))
		var stderr lockedBuffer
		cs := h.stdioClient(t, &stderr, "--person", "alice")
		s := h.serveHTTP(t)
		succeed(t, cs, "add_task", `{"title":"Before the outage"}`)

		u, err := url.Parse(h.db)
		if err != nil {
			t.Fatal(err)
		}
		dbname := strings.TrimPrefix(u.Path, "/")
		name := pgx.Identifier{dbname}.Sanitize()
		ctx := context.Background()
		admin, err := pgx.Connect(ctx, storetest.PostgresDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(ctx)
		exec := func(sql string, args ...any) {
			t.Helper()
			if _, err := admin.Exec(ctx, sql, args...); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
		exec("ALTER DATABASE " + name + " ALLOW_CONNECTIONS false")
		back := false
		defer func() {
			if !back {
				admin.Exec(ctx, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS true")
			}
		}()
		exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", dbname)

		// sentence fails the test unless text is one sentence a person can
		// act on, free of what only the program knows.
		sentence := func(what, text string) {
			t.Helper()
			text = strings.TrimSpace(text)
			if text == "" || strings.Contains(text, "\n") || !strings.HasSuffix(text, ".") || !strings.Contains(strings.ToLower(text), "try again") {
				t.Errorf("%s: %q, want one sentence saying to try again", what, text)
			}
			for _, word := range []string{"SQLSTATE", "pgx", "FATAL", "failed to connect", "sql:", "pq:", "postgres://", "*"} {
				if strings.Contains(text, word) {
					t.Errorf("%s: %q shows %q to a person or a model", what, text, word)
				}
			}
		}
		for _, c := range []struct{ tool, arguments string }{
			{"list_tasks", `{}`},
			{"add_task", `{"title":"During the outage"}`},
			{"undo", `{}`},
		} {
			res := call(t, cs, c.tool, c.arguments)
			if !res.IsError {
				t.Errorf("%s over stdio with the database gone: a success, %q", c.tool, text(t, res))
				continue
			}
			sentence(c.tool+" over stdio with the database gone", text(t, res))
		}
		resp, body := rawCall(t, s.url, "Bearer "+token, "add_task", `{"title":"During the outage, over HTTP"}`)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("add_task over HTTP with the database gone: status %d (Retry-After %q), want 503 with Retry-After; body %q", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		sentence("add_task over HTTP with the database gone", body)

		exec("ALTER DATABASE " + name + " ALLOW_CONNECTIONS true")
		back = true
		succeed(t, cs, "add_task", `{"title":"After the outage"}`)
		resp, body = rawCall(t, s.url, "Bearer "+token, "add_task", `{"title":"After the outage, over HTTP"}`)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "After the outage, over HTTP") {
			t.Errorf("add_task over HTTP once the database is back: status %d, body %q", resp.StatusCode, body)
		}
		listed := succeed(t, cs, "list_tasks", `{}`)
		for _, title := range []string{"Before the outage", "After the outage", "After the outage, over HTTP"} {
			if !strings.Contains(listed, title) {
				t.Errorf("list_tasks once the database is back lacks %q:\n%s", title, listed)
			}
		}
		if strings.Contains(listed, "During") {
			t.Errorf("a call refused during the outage wrote its task:\n%s", listed)
		}
		if got := succeed(t, cs, "list_changes", `{}`); strings.Count(got, "add_task") != 3 {
			t.Errorf("list_changes once the database is back: want the 3 add_task changes made outside the outage:\n%s", got)
		}
	})
}
