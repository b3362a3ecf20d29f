package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/agent/agenttest"
	"github.com/assistant-dev/assistant/tools/catalog"
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

// --tools given more than once offers the union of the lists, in chat and
// doctor alike, as mcp's does; a single value kept only the last one.
func TestToolsFlagRepeated(t *testing.T) {
	isolate(t)
	srv := &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest"}, Context: 32768}
	url := srv.Start(t)
	want, err := catalog.Select(newRegistry(), []string{"tasks", "list_events"}, false)
	if err != nil {
		t.Fatal(err)
	}
	runs := [][]string{
		{"doctor", "--base-url", url, "--model", "qwen2.5", "--tools", "tasks", "--tools", "list_events"},
		{"chat", "--base-url", url, "--model", "qwen2.5", "--tools", "tasks", "--tools", "list_events", "-m", "What is due?"},
	}
	for _, args := range runs {
		before := len(srv.Chats())
		r := runArgs(args...)
		chats := srv.Chats()
		if len(chats) == before {
			t.Fatalf("%s sent no request: exit %d\n%s%s", args[0], r.code, r.out, r.stderr)
		}
		body := string(chats[before])
		if n := strings.Count(body, `"type":"function"`); n != len(want.Names()) {
			t.Errorf("%s --tools tasks --tools list_events offered %d tools, want the %d of both", args[0], n, len(want.Names()))
		}
		for _, name := range []string{`"list_events"`, `"add_task"`} {
			if !strings.Contains(body, name) {
				t.Errorf("%s --tools tasks --tools list_events did not offer %s", args[0], name)
			}
		}
	}
}

// A [chat] tools value that is not text, or a list holding something
// else, is refused in one sentence (exit 10) rather than read in Go's
// own print form ("map[a:1]").
func TestChatToolsConfigNotText(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"tools = {a = 1}", "must be names as text, such as tools = \"tasks\""},
		{`tools = [["tasks"]]`, "item 1 is not text"},
		{`tools = ["tasks", 5]`, "item 2 is not text"},
	} {
		dir := isolate(t)
		conf := filepath.Join(dir, "config", "assistant", "config.toml")
		if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(conf, []byte("[chat]\n"+c.line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runArgs("doctor", "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
		if r.code != exitConfig || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "map[") {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", c.line, r.code, r.stderr, exitConfig, c.want)
		}
	}
}
