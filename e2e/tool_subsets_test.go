package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tool lists the groups give, in the order the chat sends them
// (docs/tools.md, "Tool groups").
var (
	everyTool = []string{"add_task", "list_tasks", "get_task", "update_task", "complete_task", "reopen_task", "delete_task",
		"add_event", "list_events", "get_event", "update_event", "delete_event", "find_free_time", "current_time", "set_time_zone",
		"snooze", "undo", "list_changes"}
	tasksTools = []string{"add_task", "list_tasks", "get_task", "update_task", "complete_task", "reopen_task", "delete_task",
		"current_time", "snooze", "undo", "list_changes"}
	calendarTools = []string{"add_event", "list_events", "get_event", "update_event", "delete_event", "find_free_time",
		"current_time", "set_time_zone", "snooze", "undo", "list_changes"}
	readOnlyTools      = []string{"list_tasks", "get_task", "list_events", "get_event", "find_free_time", "current_time", "list_changes"}
	tasksReadOnlyTools = []string{"list_tasks", "get_task", "current_time", "list_changes"}
)

// sentTools lists the names in a chat request's tools array, in order.
func sentTools(t *testing.T, req map[string]any) []string {
	t.Helper()
	list, _ := req["tools"].([]any)
	var out []string
	for _, item := range list {
		fn, _ := item.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		out = append(out, name)
	}
	return out
}

// systemText is the system message of a chat request.
func systemText(req map[string]any) string {
	for _, m := range req["messages"].([]any) {
		if mm := m.(map[string]any); mm["role"] == "system" {
			s, _ := mm["content"].(string)
			return s
		}
	}
	return ""
}

// writeChatConfig writes the home's config file with a [chat] table of
// the given lines.
func writeChatConfig(t *testing.T, h *home, lines string) string {
	t.Helper()
	conf := filepath.Join(h.dir, "config", "assistant", "config.toml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte("[chat]\n"+lines+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return conf
}

// `assistant chat` sends exactly the tools the setting chooses, in the
// catalog's order, from the flag, ASSISTANT_CHAT_TOOLS or the config
// file's [chat] tools (a string or a list), the flag first, then the
// variable; the system prompt speaks of undo only when undo is sent.
func TestChatToolSubsetsThroughTheBinary(t *testing.T) {
	cases := []struct {
		name         string
		flag, env    string
		config       string // the [chat] table's tools line, when not ""
		want         []string
		noFlagOption bool
	}{
		{name: "default", want: everyTool},
		{name: "all", flag: "all", want: everyTool},
		{name: "flag tasks", flag: "tasks", want: tasksTools},
		{name: "environment calendar", env: "calendar", want: calendarTools},
		{name: "config file read-only", config: `tools = "read-only"`, want: readOnlyTools},
		{name: "config file list", config: `tools = ["tasks", "list_events"]`,
			want: []string{"add_task", "list_tasks", "get_task", "update_task", "complete_task", "reopen_task", "delete_task",
				"list_events", "current_time", "snooze", "undo", "list_changes"}},
		{name: "a mixed list", flag: " tasks, list_events ,undo", want: []string{"add_task", "list_tasks", "get_task", "update_task",
			"complete_task", "reopen_task", "delete_task", "list_events", "current_time", "snooze", "undo", "list_changes"}},
		{name: "tool names alone", flag: "list_changes,add_task", want: []string{"add_task", "list_changes"}},
		{name: "flag over environment", flag: "tasks", env: "nonsense", want: tasksTools},
		{name: "environment over config file", env: "calendar", config: `tools = "nonsense"`, want: calendarTools},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := &scriptedModel{t: t, answers: [][]string{answerOnce("fine")}}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			h := newHome(t)
			h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
			h.env["ASSISTANT_MODEL"] = "test-model"
			if c.env != "" {
				h.env["ASSISTANT_CHAT_TOOLS"] = c.env
			}
			if c.config != "" {
				writeChatConfig(t, h, c.config)
			}
			args := []string{"chat", "-m", "hello"}
			if c.flag != "" {
				args = append(args, "--tools", c.flag)
			}
			h.must(args...)
			reqs := fake.requests()
			if len(reqs) != 1 {
				t.Fatalf("want 1 request, got %d", len(reqs))
			}
			if got := sentTools(t, reqs[0]); !slices.Equal(got, c.want) {
				t.Errorf("tools sent:\n got %q\nwant %q", got, c.want)
			}
			system := systemText(reqs[0])
			if strings.Contains(system, "undo") != slices.Contains(c.want, "undo") {
				t.Errorf("undo offered: %v, but the system prompt says otherwise:\n%s", slices.Contains(c.want, "undo"), system)
			}
		})
	}
}

// A model that calls a tool the setting left out is answered, in the
// tool message, that there is no such tool and which it has; nothing is
// made, and the turn goes on.
func TestChatToolLeftOutThroughTheBinary(t *testing.T) {
	fake := &scriptedModel{t: t, answers: [][]string{
		{
			sseChunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_left_out","type":"function","function":{"name":"add_event","arguments":"{\"title\":\"Dentist\",\"start\":\"2026-10-06T09:00\"}"}}]}`, ""),
			sseChunk(`{}`, "tool_calls"),
		},
		answerOnce("I cannot add events here."),
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h := newHome(t)
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"
	h.must("chat", "--tools", "tasks", "-m", "add the dentist tomorrow at 9")
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("want 2 requests, got %d", len(reqs))
	}
	var answer string
	for _, m := range reqs[1]["messages"].([]any) {
		if mm := m.(map[string]any); mm["role"] == "tool" {
			answer, _ = mm["content"].(string)
		}
	}
	if !strings.Contains(answer, "There is no tool “add_event”") || !strings.Contains(answer, "add_task") || strings.Contains(answer, "list_events") {
		t.Errorf("the tool message is %q, want the sentence saying add_event is not there, naming the task tools only", answer)
	}
	if out := h.must("call", "list_events", "from=2026-10-01", "to=2026-10-31").stdout; strings.Contains(out, "Dentist") {
		t.Errorf("the event was made although add_event was not offered:\n%s", out)
	}
}

// A tool choice that names no group or tool is a wrong setting (exit 10),
// named with where it came from, before any request is made.
func TestChatToolSubsetRefused(t *testing.T) {
	const rest = "; write a group (all, tasks, calendar, read-only) or tool names (" +
		"add_task, list_tasks, get_task, update_task, complete_task, reopen_task, delete_task, add_event, list_events, get_event, " +
		"update_event, delete_event, find_free_time, current_time, set_time_zone, snooze, undo, list_changes), separated by commas\n"
	cases := []struct {
		flag, env, config string
		from              string // %s: the config file
		sentence          string
	}{
		{flag: "task", from: "“--tools”", sentence: "there is no tool or group “task” (did you mean “tasks”?)"},
		{flag: "tasks,calender", from: "“--tools”", sentence: "there is no tool or group “calender” (did you mean “calendar”?)"},
		{env: "everything", from: "ASSISTANT_CHAT_TOOLS", sentence: "there is no tool or group “everything”"},
		{config: `tools = "readonly"`, from: "“chat.tools” in the config file “%s”", sentence: "there is no tool or group “readonly” (did you mean “read-only”?)"},
		{config: `tools = ["tasks", "lists"]`, from: "“chat.tools” in the config file “%s”", sentence: "there is no tool or group “lists”"},
	}
	for _, c := range cases {
		h := newHome(t)
		h.env["ASSISTANT_LOG"] = "warn"
		h.env["OPENAI_BASE_URL"] = "http://" + closedAddr(t) + "/v1"
		from := c.from
		if c.config != "" {
			from = fmt.Sprintf(c.from, writeChatConfig(t, h, c.config))
		}
		if c.env != "" {
			h.env["ASSISTANT_CHAT_TOOLS"] = c.env
		}
		args := []string{"chat", "-m", "hi"}
		if c.flag != "" {
			args = append(args, "--tools", c.flag)
		}
		r := h.run(args...)
		want := "assistant: " + from + " is wrong: " + c.sentence + rest
		if r.code != 10 || r.stderr != want {
			t.Errorf("flag %q env %q config %q:\nwant exit 10 and %q\ngot %s", c.flag, c.env, c.config, want, r)
		}
	}
}

// servedTools is the names a server's tools/list gives, sorted (the SDK's
// order), and its instructions.
func servedTools(t *testing.T, cs *mcp.ClientSession) ([]string, string) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names, cs.InitializeResult().Instructions
}

func sorted(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return out
}

// `assistant mcp --tools` takes the chat's names and `--read-only`
// intersects them, over stdio and HTTP; a tool left out cannot be called,
// and the instructions speak only of tools served.
func TestMCPToolSubsetsThroughTheBinary(t *testing.T) {
	cases := []struct {
		flags []string
		want  []string
	}{
		{[]string{"--tools", "tasks"}, tasksTools},
		{[]string{"--tools", "calendar"}, calendarTools},
		{[]string{"--tools", "read-only"}, readOnlyTools},
		{[]string{"--read-only"}, readOnlyTools},
		{[]string{"--tools", "tasks", "--read-only"}, tasksReadOnlyTools},
		{[]string{"--tools", "tasks,list_events"}, append(slices.Clone(tasksTools), "list_events")},
		{[]string{"--tools", "list_tasks,add_task"}, []string{"add_task", "list_tasks"}},
	}
	h := newMCPHome(t)
	for _, c := range cases {
		t.Run(strings.Join(c.flags, " "), func(t *testing.T) {
			cs := h.stdioClient(t, io.Discard, c.flags...)
			names, instructions := servedTools(t, cs)
			if !slices.Equal(names, sorted(c.want)) {
				t.Errorf("tools/list:\n got %q\nwant %q", names, sorted(c.want))
			}
			for _, tool := range []string{"current_time", "undo"} {
				if served := slices.Contains(c.want, tool); strings.Contains(instructions, " "+tool+" ") != served {
					t.Errorf("%s served: %v, but the instructions say otherwise:\n%s", tool, served, instructions)
				}
			}
			for _, tool := range everyTool {
				if slices.Contains(c.want, tool) {
					continue
				}
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}}); err == nil {
					t.Errorf("calling %s, which is not served, was not refused", tool)
				}
				break // one is enough: the SDK refuses any name it does not serve
			}
		})
	}

	t.Run("HTTP", func(t *testing.T) {
		h.run(t, "person", "add", "alice", "--zone", "Europe/Paris")
		token := strings.TrimSpace(h.run(t, "token", "create", "--person", "alice"))
		s := h.serveHTTP(t, "--tools", "tasks", "--read-only")
		cs, err := httpClient(context.Background(), s.url, "Bearer "+token)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, s.stderr.String())
		}
		defer cs.Close()
		if names, _ := servedTools(t, cs); !slices.Equal(names, sorted(tasksReadOnlyTools)) {
			t.Errorf("tools/list over HTTP:\n got %q\nwant %q", names, sorted(tasksReadOnlyTools))
		}
	})
}

// A name that is no group or tool, or a writing tool named with
// --read-only, stops `assistant mcp` before it serves (exit 2), with one
// sentence.
func TestMCPToolSubsetRefused(t *testing.T) {
	h := newHome(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--tools", "tasks,calender"}, "assistant: “--tools” is wrong: there is no tool or group “calender” (did you mean “calendar”?); write a group (all, tasks, calendar, read-only) or tool names (add_task, "},
		{[]string{"mcp", "--tools", "tasks,add_event", "--read-only"}, "assistant: “--tools” is wrong: the tool “add_event” changes data, so it cannot be offered read-only; leave it out of the list or drop the read-only option (see “assistant mcp --help”)\n"},
		{[]string{"serve", "--tools", "everything"}, "assistant: “--tools” is wrong: there is no tool or group “everything”; write a group"},
	} {
		r := h.run(c.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: want exit 2 and one line starting %q, got %s", c.args, c.want, r)
		}
	}
}
