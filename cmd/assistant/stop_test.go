package main

import (
	"context"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestSignalBeforeTheStoreOpens: a SIGINT or SIGTERM that comes while a
// command is still opening the database (a PostgreSQL connection under
// way, a migration) is a stop, not a broken database. The services (the
// remind loop, serve, mcp) end with 0, as they do when stopped later; a
// one-shot command ends with exitCancelled; neither prints a Go error
// such as "context canceled".
func TestSignalBeforeTheStoreOpens(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		isolate(t)
		loc := storetest.Location(t)
		runArgs("--db", loc, "person", "add", "bob", "--zone", "Europe/Paris").want(t, "person add", 0)
		cases := []struct {
			argv []string
			code int
		}{
			{[]string{"remind", "--every", "1s"}, exitOK},
			{[]string{"serve", "--http", "127.0.0.1:0"}, exitOK},
			{[]string{"mcp", "--person", "bob"}, exitOK},
			{[]string{"remind", "--once"}, exitCancelled},
			{[]string{"call", "--person", "bob", "list_tasks"}, exitCancelled},
		}
		for _, c := range cases {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // the signal came first
			r := runIn(ctx, strings.NewReader(""), append([]string{"--db", loc}, c.argv...)...)
			what := strings.Join(c.argv, " ")
			if r.code != c.code {
				t.Errorf("%s: exit %d, want %d\nstderr: %s", what, r.code, c.code, r.stderr)
			}
			if strings.Contains(r.stderr, "context canceled") {
				t.Errorf("%s: the person reads Go's error:\n%s", what, r.stderr)
			}
		}
	})
}
