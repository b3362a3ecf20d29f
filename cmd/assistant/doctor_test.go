package main

import (
	"flag"
	"github.com/assistant-dev/assistant/tools/catalog"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/agent"
	"github.com/assistant-dev/assistant/agent/agenttest"
)

// agentDefaultModel is the model the chat uses on a local Ollama when
// none is named.
const agentDefaultModel = agent.DefaultOllamaModel

// doctorLines are the check lines of a doctor run, each "status check"
// (the fix lines as "fix"), and its last line, the summary.
func doctorLines(out string) (checks []string, summary string) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "ok", "warn", "fail":
			checks = append(checks, f[0]+" "+f[1])
		case "fix":
			checks = append(checks, "fix")
		}
	}
	return checks, lines[len(lines)-1]
}

// number reads the number written before word in line ("20,412 bytes").
func number(t *testing.T, line, word string) int {
	t.Helper()
	m := regexp.MustCompile(`([0-9][0-9,]*) ` + regexp.QuoteMeta(word)).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no number before %q in %q", word, line)
	}
	n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// lineOf is the line of out that starts with status and check.
func lineOf(t *testing.T, out, status, check string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == status && f[1] == check {
			return l
		}
	}
	t.Fatalf("no %q line for %q in:\n%s", status, check, out)
	return ""
}

// closedURL is a base URL on which nothing listens.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

// The doctor against scripted servers answering as OpenAI, Ollama,
// llama.cpp's server and vLLM do: which checks pass, the exit code, and
// the words that say what to set.
func TestDoctorAgainstScriptedServers(t *testing.T) {
	cases := []struct {
		name   string
		srv    *agenttest.Server // nil: nothing listens
		model  string
		args   []string
		code   int
		checks []string
		says   []string // in the output, in any line
		chats  int      // chat requests the server must have had
	}{
		{name: "ollama fits", srv: &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest", "llama3.1:8b"}, Trained: 32768, Context: 32768},
			model: "qwen2.5", code: 0, checks: []string{"ok model", "ok tools", "ok context"},
			says: []string{"2 models", "call of list_tasks", "as the server counted them", "32,768 tokens (ollama ps)", "Ready: “qwen2.5”"}, chats: 1},
		{name: "ollama fits the request, not the history budget", srv: &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest"}, Trained: 32768, Context: 16384},
			model: "qwen2.5", code: 0, checks: []string{"ok model", "ok tools", "warn context", "fix"},
			says: []string{"16,384 tokens (ollama ps)", "up to 60,000 characters of the conversation", "Chat with `--history-budget ", "a context of 32,768 tokens", "Usable"}, chats: 1},
		{name: "a history budget that fits", srv: &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest"}, Trained: 32768, Context: 16384},
			model: "qwen2.5", args: []string{"--history-budget", "30000"}, code: 0, checks: []string{"ok model", "ok tools", "ok context"},
			says: []string{"Ready"}, chats: 1},
		{name: "fewer tools already", srv: &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest"}, Trained: 32768},
			model: "qwen2.5", args: []string{"--tools", "tasks"}, code: 0, checks: []string{"ok model", "ok tools", "warn context", "fix"},
			says: []string{"fewer tools still", "--history-budget 9000"}, chats: 1},
		{name: "ollama default context cuts the request", srv: &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest"}, Trained: 32768},
			model: "qwen2.5", code: 78, checks: []string{"ok model", "ok tools", "fail context", "fix"},
			says: []string{"4,096 tokens as the server counted them, all of a context window of 4,096 tokens (ollama ps)", "cut the request",
				"OLLAMA_CONTEXT_LENGTH=8192 ollama serve", "PARAMETER num_ctx 8192", "fewer tools (`--tools tasks`", "Not ready: 1 check failed"}, chats: 1},
		{name: "ollama num_ctx in the Modelfile, model unloaded", srv: &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest"}, NumCtx: 8192, Trained: 32768, Unloaded: true},
			model: "qwen2.5", code: 0, checks: []string{"ok model", "ok tools", "warn context", "fix"},
			says: []string{"8,192 tokens (num_ctx in the model's parameters)", "tokens are left", "PARAMETER num_ctx 16384", "Usable"}, chats: 1},
		{name: "ollama model without tools", srv: &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"gemma3:4b"}, Answer: agenttest.Refuses, Trained: 131072},
			model: "gemma3:4b", code: 78, checks: []string{"ok model", "fail tools", "fix", "warn context", "fix"},
			says: []string{"does not support tool calls", "qwen2.5", "Ollama's default, assumed", "tokens are left"}, chats: 1},
		{name: "ollama template without tools answers in words", srv: &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"phi3:latest"}, Answer: agenttest.Writes, Context: 32768, Trained: 131072},
			model: "phi3", code: 78, checks: []string{"ok model", "fail tools", "fix", "ok context"},
			says: []string{"answered in words", "“tools” under Capabilities; for “phi3” it does not"}, chats: 1},
		{name: "ollama wrong model name", srv: &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:7b", "llama3.1:8b", "mistral-nemo:latest"}},
			model: "qwen2.5", code: 78, checks: []string{"fail model"},
			says: []string{"does not list “qwen2.5” (3 models)", "Did you mean “qwen2.5:7b”?", "--model or ASSISTANT_MODEL"}, chats: 0},
		{name: "llama.cpp fits", srv: &agenttest.Server{Kind: agenttest.LlamaCpp, Models: []string{"qwen2.5-7b-instruct-q4_k_m.gguf"}, Trained: 32768, Context: 32768},
			model: "qwen2.5-7b-instruct-q4_k_m.gguf", code: 0, checks: []string{"ok model", "ok tools", "ok context"},
			says: []string{"32,768 tokens (n_ctx in /props)"}, chats: 1},
		{name: "llama.cpp context too small", srv: &agenttest.Server{Kind: agenttest.LlamaCpp, Models: []string{"m.gguf"}, Trained: 32768, Context: 4096},
			model: "m.gguf", code: 78, checks: []string{"ok model", "warn tools", "fail context", "fix"},
			says: []string{"refused the request as longer", "against a context window of 4,096 tokens (n_ctx in /props)", "restart llama-server with `-c 16384`"}, chats: 1},
		{name: "llama.cpp context smaller than the model takes", srv: &agenttest.Server{Kind: agenttest.LlamaCpp, Models: []string{"m.gguf"}, Trained: 8192, Context: 4096},
			model: "m.gguf", code: 78, checks: []string{"ok model", "warn tools", "fail context", "fix"},
			says: []string{"The model takes at most 8,192 tokens", "fewer tools (`--tools tasks`"}, chats: 1},
		{name: "llama.cpp without --jinja", srv: &agenttest.Server{Kind: agenttest.LlamaCpp, Models: []string{"m.gguf"}, Answer: agenttest.Refuses, Context: 32768},
			model: "m.gguf", code: 78, checks: []string{"ok model", "fail tools", "fix", "ok context"},
			says: []string{"needs --jinja for tool calls.", "Start llama-server with --jinja"}, chats: 1},
		{name: "llama.cpp call written as text", srv: &agenttest.Server{Kind: agenttest.LlamaCpp, Models: []string{"m.gguf"}, Answer: agenttest.WritesCall, Context: 32768},
			model: "m.gguf", code: 78, checks: []string{"ok model", "fail tools", "fix", "ok context"},
			says: []string{"wrote the call of list_tasks as text", "Start llama-server with --jinja"}, chats: 1},
		{name: "vLLM fits", srv: &agenttest.Server{Kind: agenttest.VLLM, Models: []string{"Qwen/Qwen2.5-7B-Instruct"}, Context: 32768},
			model: "Qwen/Qwen2.5-7B-Instruct", code: 0, checks: []string{"ok model", "ok tools", "ok context"},
			says: []string{"32,768 tokens (max_model_len in its model list)"}, chats: 1},
		{name: "vLLM max_model_len too small", srv: &agenttest.Server{Kind: agenttest.VLLM, Models: []string{"Qwen/Qwen2.5-7B-Instruct"}, Context: 4096},
			model: "Qwen/Qwen2.5-7B-Instruct", code: 78, checks: []string{"ok model", "warn tools", "fail context", "fix"},
			says: []string{"--max-model-len 16384"}, chats: 1},
		{name: "vLLM without tool choice", srv: &agenttest.Server{Kind: agenttest.VLLM, Models: []string{"Qwen/Qwen2.5-7B-Instruct"}, Context: 32768, Answer: agenttest.Refuses},
			model: "Qwen/Qwen2.5-7B-Instruct", code: 78, checks: []string{"ok model", "fail tools", "fix", "ok context"},
			says: []string{"--enable-auto-tool-choice"}, chats: 1},
		{name: "OpenAI-shaped server", srv: &agenttest.Server{Kind: agenttest.OpenAI, Models: []string{"gpt-4.1-mini", "gpt-4.1"}, Key: "sk-right-key-1234"},
			model: "gpt-4.1-mini", code: 0, checks: []string{"ok model", "ok tools", "warn context"},
			says: []string{"does not say the model's context window", "Usable"}, chats: 1},
		{name: "a model that writes instead of calling", srv: &agenttest.Server{Kind: agenttest.OpenAI, Models: []string{"chat-only"}, Answer: agenttest.Writes},
			model: "chat-only", code: 78, checks: []string{"ok model", "fail tools", "fix", "warn context"},
			says: []string{"answered in words (“I cannot see your list"}, chats: 1},
		{name: "no model list", srv: &agenttest.Server{Kind: agenttest.OpenAI, Models: nil},
			model: "m", code: 0, checks: []string{"warn model", "ok tools", "warn context"},
			says: []string{"gave no model list (HTTP 404)"}, chats: 1},
		{name: "no answer in time", srv: &agenttest.Server{Kind: agenttest.OpenAI, Models: []string{"m"}, Hangs: true},
			model: "m", args: []string{"--timeout", "300ms"}, code: 75, checks: []string{"ok model", "fail tools"},
			says: []string{"No answer within 300ms", "--timeout"}, chats: 1},
		{name: "no model named, several listed", srv: &agenttest.Server{Kind: agenttest.VLLM, Models: []string{"Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"}, Context: 32768},
			code: 0, checks: []string{"ok model", "ok tools", "ok context"},
			says: []string{"Checking the model “Qwen/Qwen2.5-7B-Instruct”", "Using the model “Qwen/Qwen2.5-7B-Instruct”, the first of the 2"}, chats: 1},
		{name: "llama.cpp under another name", srv: &agenttest.Server{Kind: agenttest.LlamaCpp, Models: []string{"m.gguf"}, Trained: 32768, Context: 32768},
			model: "gpt-4o", code: 0, checks: []string{"warn model", "fix", "ok tools", "ok context"},
			says: []string{"llama-server serves one model whatever the name: the chat will use “m.gguf”", "--model m.gguf"}, chats: 1},
		{name: "wrong model, none alike", srv: &agenttest.Server{Kind: agenttest.OpenAI, Models: []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"}},
			model: "zulu-9000", code: 78, checks: []string{"fail model"},
			says: []string{"(7 models). It has “alpha”, “bravo”, “charlie”, “delta”, “echo” and 2 more."}, chats: 0},
		{name: "a call of a tool not offered", srv: &agenttest.Server{Kind: agenttest.OpenAI, Models: []string{"m"}, Calls: "list_tasks"},
			model: "m", args: []string{"--tools", "add_event"}, code: 78, checks: []string{"ok model", "fail tools", "fix", "warn context"},
			says: []string{"The model called list_tasks, a tool it was not given (it was asked for add_event)"}, chats: 1},
		{name: "no model set, no list", srv: &agenttest.Server{Kind: agenttest.OpenAI, Models: nil},
			code: 0, checks: []string{"warn model", "ok tools", "warn context"},
			says: []string{"no model is set, and the chat takes the first the server lists"}, chats: 1},
		{name: "server down", model: "m", code: 69, checks: []string{"fail model"}, says: []string{"Nothing answers at"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			url := closedURL(t)
			if c.srv != nil {
				url = c.srv.Start(t)
			}
			t.Setenv(envAPIKey, "")
			t.Setenv(envModel, "")
			if c.srv != nil && c.srv.Key != "" {
				t.Setenv(envAPIKey, c.srv.Key)
			}
			argv := []string{"doctor", "--base-url", url}
			if c.model != "" {
				argv = append(argv, "--model", c.model)
			}
			r := runArgs(append(argv, c.args...)...)
			checks, summary := doctorLines(r.out)
			if r.code != c.code || strings.Join(checks, "; ") != strings.Join(c.checks, "; ") {
				t.Fatalf("exit %d with checks %q, want exit %d with %q\n%s%s", r.code, checks, c.code, c.checks, r.out, r.stderr)
			}
			for _, s := range c.says {
				if !strings.Contains(r.out, s) {
					t.Errorf("the output lacks %q:\n%s", s, r.out)
				}
			}
			if !strings.HasPrefix(summary, "Ready") && !strings.HasPrefix(summary, "Usable") && !strings.HasPrefix(summary, "Not ready") {
				t.Errorf("the last line is no summary: %q", summary)
			}
			if (c.code == 0) == strings.HasPrefix(summary, "Not ready") {
				t.Errorf("exit %d with the summary %q", c.code, summary)
			}
			if c.srv == nil {
				return
			}
			chats := c.srv.Chats()
			if len(chats) != c.chats {
				t.Fatalf("%d chat requests, want %d", len(chats), c.chats)
			}
			if c.chats == 0 || c.code == 75 {
				return
			}
			// The size said is the request's as the server got it, and a
			// count is the server's own (agenttest's tokenizer), not the
			// estimate.
			ctxLine := ""
			for _, l := range strings.Split(r.out, "\n") {
				if f := strings.Fields(l); len(f) > 1 && f[1] == "context" {
					ctxLine = l
				}
			}
			if got := number(t, ctxLine, "bytes"); got != len(chats[0]) {
				t.Errorf("the line says %d bytes, the server got %d: %s", got, len(chats[0]), ctxLine)
			}
			if strings.Contains(ctxLine, "as the server counted them") && !strings.Contains(ctxLine, "all of") {
				if got, want := number(t, ctxLine, "tokens as the server"), agenttest.Tokens(chats[0]); got != want {
					t.Errorf("the line says %d tokens, the server counted %d: %s", got, want, ctxLine)
				}
			}
		})
	}
}

// The request the doctor sends is the chat's: its system prompt, the
// message naming a tool, every tool, not streamed.
func TestDoctorSendsTheChatsRequest(t *testing.T) {
	isolate(t)
	srv := &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest"}, Context: 32768}
	url := srv.Start(t)
	r := runArgs("doctor", "--base-url", url, "--model", "qwen2.5")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s%s", r.code, r.out, r.stderr)
	}
	body := string(srv.Chats()[0])
	for _, want := range []string{`"role":"system"`, `Use the list_tasks tool.`, `"model":"qwen2.5"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %s", want)
		}
	}
	if strings.Contains(body, `"stream":true`) {
		t.Error("the request asks for a stream")
	}
	if n, want := strings.Count(body, `"type":"function"`), len(newRegistry().Names()); n != want {
		t.Errorf("%d tools offered, want every one of the chat's %d", n, want)
	}
	paths := strings.Join(srv.Paths(), ", ")
	for _, want := range []string{"GET /v1/models", "POST /v1/chat/completions", "POST /api/show", "GET /api/ps"} {
		if !strings.Contains(paths, want) {
			t.Errorf("the doctor did not ask %s; it asked %s", want, paths)
		}
	}
}

// `doctor --tools` checks the request a chat with that choice sends: only
// those tools go to the server, and the size said is that request's.
func TestDoctorTakesTheChatsToolChoice(t *testing.T) {
	isolate(t)
	srv := &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest"}, Context: 32768}
	url := srv.Start(t)
	all := runArgs("doctor", "--base-url", url, "--model", "qwen2.5")
	t.Setenv(envChatTools, "tasks")
	few := runArgs("doctor", "--base-url", url, "--model", "qwen2.5")
	if all.code != 0 || few.code != 0 {
		t.Fatalf("exits %d and %d:\n%s%s\n%s%s", all.code, few.code, all.out, all.stderr, few.out, few.stderr)
	}
	chats := srv.Chats()
	if len(chats) != 2 {
		t.Fatalf("%d chat requests, want 2", len(chats))
	}
	want, _ := catalog.Select(newRegistry(), []string{"tasks"}, false)
	if n := strings.Count(string(chats[1]), `"type":"function"`); n != len(want.Names()) {
		t.Errorf("with ASSISTANT_CHAT_TOOLS=tasks, %d tools offered, want the %d of tasks", n, len(want.Names()))
	}
	if strings.Contains(string(chats[1]), `"add_event"`) {
		t.Error("add_event offered though tasks leaves it out")
	}
	size := func(b []byte) string { return thousands(len(b)) + " bytes" }
	if !strings.Contains(all.out, size(chats[0])) || !strings.Contains(few.out, size(chats[1])) {
		t.Errorf("the sizes said are not the requests' (%s, %s):\n%s\n%s", size(chats[0]), size(chats[1]), all.out, few.out)
	}
}

// The API key is sent, and never written, even when a server repeats it
// in its error.
func TestDoctorNeverPrintsTheKey(t *testing.T) {
	isolate(t)
	srv := &agenttest.Server{Kind: agenttest.OpenAI, Models: []string{"gpt-4.1-mini"}, Key: "sk-the-right-one"}
	url := srv.Start(t)
	t.Setenv(envAPIKey, "sk-proj-wrong-9f8e7d")
	r := runArgs("doctor", "--base-url", url, "--model", "gpt-4.1-mini")
	if r.code != 77 {
		t.Fatalf("exit %d, want 77:\n%s%s", r.code, r.out, r.stderr)
	}
	line := lineOf(t, r.out, "fail", "model")
	if !strings.Contains(line, "Incorrect API key provided: ***") {
		t.Errorf("the server's words are not there with the key hidden: %s", line)
	}
	if strings.Contains(r.out+r.stderr, "sk-proj-wrong-9f8e7d") {
		t.Errorf("the key was written:\n%s%s", r.out, r.stderr)
	}
}

// A --timeout that is no duration above 0 is refused before anything is
// asked.
func TestDoctorTimeoutRefused(t *testing.T) {
	isolate(t)
	for _, v := range []string{"0s", "-1m"} {
		r := runArgs("doctor", "--base-url", closedURL(t), "--timeout", v)
		r.want(t, "--timeout "+v, exitInvalid, "“--timeout” must be a duration above 0")
	}
	r := runArgs("doctor", "--timeout", "soon")
	if r.code != exitUsage {
		t.Errorf("--timeout soon: exit %d, want %d", r.code, exitUsage)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 20412: "20,412", 1234567: "1,234,567", -4096: "-4,096"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the doctor's run in docs/chat.md")

// The run shown in docs/chat.md is a real one: the doctor against a
// scripted Ollama at its default context, with the chat's defaults
// (the scripted server's address written as Ollama's). Rewrite it with
// -update after a change to the tools, the system prompt or the lines.
func TestDoctorOutputInTheDocs(t *testing.T) {
	isolate(t)
	t.Setenv(envNow, "2026-10-05T09:00:00+02:00")
	t.Setenv(envAPIKey, "")
	srv := &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"qwen2.5:latest", "llama3.1:8b"}, Trained: 32768}
	url := srv.Start(t)
	r := runArgs("doctor", "--base-url", url, "--model", agentDefaultModel)
	if r.code != 78 {
		t.Fatalf("exit %d, want 78:\n%s%s", r.code, r.out, r.stderr)
	}
	run := "$ assistant doctor\n" + strings.ReplaceAll(r.out, url, "http://localhost:11434/v1") + "$ echo $?\n78\n"

	const path = "../../docs/chat.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	open := strings.Index(doc, "<!-- doctor:")
	end := strings.Index(doc, "<!-- /doctor -->")
	if open < 0 || end < open {
		t.Fatal("docs/chat.md has no <!-- doctor: … --> … <!-- /doctor --> block")
	}
	head := doc[open:]
	head = head[:strings.Index(head, "\n")+1]
	want := head + "```text\n" + run + "```\n"
	if *update {
		doc = doc[:open] + want + doc[end:]
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		end = open + len(want)
	}
	if got := doc[open:end]; got != want {
		t.Errorf("docs/chat.md shows another run of the doctor than it gives now; run: go test ./cmd/assistant -run TestDoctorOutputInTheDocs -update\nthe docs:\n%s\nnow:\n%s", got, want)
	}
}

// An answer without end is read up to a limit, then told as an answer
// that is no chat completion (exit 76), not read until --timeout (75).
func TestDoctorReadsAnAnswerUpToALimit(t *testing.T) {
	isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","owned_by":"x"}]}`)
			return
		}
		io.WriteString(w, `{"id":"`)
		chunk := strings.Repeat("a", 64<<10)
		for { // until the client stops reading
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	r := runArgs("doctor", "--base-url", srv.URL+"/v1", "--model", "m", "--timeout", "1m")
	if r.code != agent.ExitProtocol {
		t.Fatalf("exit %d, want %d:\n%s%s", r.code, agent.ExitProtocol, r.out, r.stderr)
	}
	lineOf(t, r.out, "fail", "tools")
}

// A server that keeps failing is one fail line; the agent's retry warnings
// do not mix into the checks (they show with --log-level debug only).
func TestDoctorKeepsRetryLogsOut(t *testing.T) {
	isolate(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error"}}`)
	}))
	defer srv.Close()
	r := runArgs("doctor", "--base-url", srv.URL+"/v1", "--model", "m")
	if r.code == 0 || !strings.Contains(r.out, "kept failing") {
		t.Fatalf("exit %d:\n%s%s", r.code, r.out, r.stderr)
	}
	if strings.Contains(r.stderr, "level=WARN") || strings.Contains(r.out, "level=WARN") {
		t.Errorf("retry warnings mixed into the doctor's output:\n%s%s", r.out, r.stderr)
	}
}
