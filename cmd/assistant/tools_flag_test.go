package main

import (
	"slices"
	"strings"
	"testing"
)

// The shell completes the last name of a --tools list, for chat, mcp and
// serve alike, with the groups and the tools' names.
func TestToolsFlagCompletion(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"chat", "--tools", "tasks,li"}, []string{"tasks,list_tasks", "tasks,list_events", "tasks,list_changes"}},
		{[]string{"mcp", "--tools", "re"}, []string{"read-only", "reopen_task"}},
		{[]string{"serve", "--tools", "cal"}, []string{"calendar"}},
		{[]string{"mcp", "--tools", "tasks,nothing"}, nil},
	} {
		r := runArgs(append([]string{"__complete"}, c.args...)...)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
			if line != "" && !strings.HasPrefix(line, ":") {
				got = append(got, line)
			}
		}
		if r.code != 0 || !slices.Equal(got, c.want) {
			t.Errorf("%q: exit %d, completions %q, want %q\n%s", c.args, r.code, got, c.want, r.stderr)
		}
	}
}
