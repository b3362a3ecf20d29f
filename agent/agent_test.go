package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/assistant-dev/assistant/tools"
)

// The model writes tomorrow 09:00 Paris as a UTC instant with Z (07:00Z in
// summer). The agent passes the arguments through untouched: the tool
// sees the text as written, Args reads it as 09:00 Paris, and the model
// gets the tool's answer back.
func TestUTCMomentPassedThrough(t *testing.T) {
	e := newEnv(t, false,
		callsReply(call{"call_a1", "add_note", `{"text":"call the plumber","at":"2026-07-14T07:00Z"}`}),
		textReply("Noted n1: call the plumber tomorrow at 09:00."),
	)
	conv := NewMemory()
	answer, err := e.agent.Turn(context.Background(), conv, "remind me to call the plumber tomorrow at 9")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "Noted n1: call the plumber tomorrow at 09:00." {
		t.Errorf("answer = %q", answer)
	}
	if len(e.nb.notes) != 1 {
		t.Fatalf("notes = %v, want one", e.nb.notes)
	}
	n := e.nb.notes[0]
	if n.atRaw != "2026-07-14T07:00Z" || n.at != "2026-07-14T09:00" {
		t.Errorf("tool got at %q read as %q, want 2026-07-14T07:00Z read as 2026-07-14T09:00", n.atRaw, n.at)
	}

	reqs := e.fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	// Tools offered: every registry tool with the registry's schema.
	first := reqs[0]
	if len(first.req.Tools) != 2 {
		t.Fatalf("%d tools offered, want 2", len(first.req.Tools))
	}
	rawTools := first.raw["tools"].([]any)
	for i, want := range e.cfg.Registry.Tools() {
		fn := rawTools[i].(map[string]any)["function"].(map[string]any)
		if fn["name"] != want.Name || fn["description"] != want.Description {
			t.Errorf("tool %d = %v %v, want %s", i, fn["name"], fn["description"], want.Name)
		}
		got, _ := json.Marshal(fn["parameters"])
		var wantMap any
		_ = json.Unmarshal(want.Schema.JSON(), &wantMap)
		wantJSON, _ := json.Marshal(wantMap)
		if string(got) != string(wantJSON) {
			t.Errorf("tool %s parameters = %s, want %s", want.Name, got, wantJSON)
		}
	}
	if first.req.Model != "test-model" || first.req.Stream {
		t.Errorf("model %q stream %v", first.req.Model, first.req.Stream)
	}
	sys := first.req.Messages[0].Content
	for _, want := range []string{"Ada", "Monday 2026-07-13, 18:00, in Europe/Paris (UTC+02:00)", "2026-07-13T09:00", "Event scope: this", "[America/New_York]", "next_cursor", "allow_duplicate", `"clear"`} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if u := first.req.Messages[1]; u.Role != "user" || u.Content != "remind me to call the plumber tomorrow at 9" {
		t.Errorf("second message = %+v", u)
	}
	// The tool's answer went back to the model, on the call's id.
	tm := toolMessages(reqs[1])
	if len(tm) != 1 || tm[0].ToolCallID != "call_a1" || tm[0].Content != "Added n1 “call the plumber” for 2026-07-14T09:00 Europe/Paris." {
		t.Errorf("tool messages = %+v", tm)
	}
	if a := reqs[1].req.Messages[2]; len(a.ToolCalls) != 1 || a.ToolCalls[0].Function.Arguments != `{"text":"call the plumber","at":"2026-07-14T07:00Z"}` {
		t.Errorf("assistant call sent back = %+v", a)
	}
	// No key, no Authorization header.
	for i, r := range reqs {
		if h := r.header.Get("Authorization"); h != "" {
			t.Errorf("request %d has Authorization %q without a key", i, h)
		}
	}
	wantOut := "→ add_note \"call the plumber\" at Tue 2026-07-14 09:00 ✓ n1\nNoted n1: call the plumber tomorrow at 09:00.\n"
	if e.out.String() != wantOut {
		t.Errorf("Out = %q, want %q", e.out.String(), wantOut)
	}
	// Stored: user, assistant with the call, tool result, answer; no system.
	roles := rolesOf(conv.Messages())
	if roles != "user assistant+1 tool assistant" {
		t.Errorf("stored %s", roles)
	}
}

func rolesOf(msgs []openai.ChatCompletionMessage) string {
	var parts []string
	for _, m := range msgs {
		r := m.Role
		if len(m.ToolCalls) > 0 {
			r += "+" + string(rune('0'+len(m.ToolCalls)))
		}
		parts = append(parts, r)
	}
	return strings.Join(parts, " ")
}

// Two calls in one answer both run, in order, and both are answered in
// order on their ids.
func TestParallelCalls(t *testing.T) {
	e := newEnv(t, false,
		callsReply(
			call{"call_1", "add_note", `{"text":"dentist","at":"2026-07-20T15:00"}`},
			call{"call_2", "list_notes", `{}`},
		),
		textReply("Done."),
	)
	if _, err := e.agent.Turn(context.Background(), NewMemory(), "add the dentist and show my notes"); err != nil {
		t.Fatal(err)
	}
	tm := toolMessages(e.fake.requests()[1])
	if len(tm) != 2 {
		t.Fatalf("tool messages = %+v", tm)
	}
	if tm[0].ToolCallID != "call_1" || !strings.HasPrefix(tm[0].Content, "Added n1") {
		t.Errorf("first answer = %+v", tm[0])
	}
	// list_notes ran after add_note, so it sees the new note.
	if tm[1].ToolCallID != "call_2" || tm[1].Content != "n1 dentist" {
		t.Errorf("second answer = %+v", tm[1])
	}
	if !strings.Contains(e.out.String(), "→ add_note \"dentist\" at Mon 2026-07-20 15:00 ✓ n1\n→ list_notes ✓ n1\n") {
		t.Errorf("Out = %q", e.out.String())
	}
}

// Streaming: the model first writes a moment Args refuses; the error
// sentence goes back as the tool message, and the corrected call
// succeeds. Arguments arrive split over several chunks.
func TestMalformedArgumentCorrectedStreaming(t *testing.T) {
	e := newEnv(t, true,
		reply{sse: []string{
			chunk(`{"role":"assistant","content":""}`),
			chunk(`{"content":"Let me "}`),
			chunk(`{"content":"note that."}`),
			chunk(`{"tool_calls":[{"index":0,"id":"call_x1","type":"function","function":{"name":"add_note","arguments":""}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"text\":\"pay"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":" rent\",\"at\":"}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"the friday after\"}"}}]}`),
			finish("tool_calls"),
		}},
		reply{sse: []string{
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_x2","type":"function","function":{"name":"add_note","arguments":"{\"text\":\"pay rent\","}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"at\":\"2026-07-17\"}"}}]}`),
			finish("tool_calls"),
		}},
		reply{sse: []string{
			chunk(`{"role":"assistant","content":"Noted for "}`),
			chunk(`{"content":"Friday."}`),
			finish("stop"),
		}},
	)
	conv := NewMemory()
	answer, err := e.agent.Turn(context.Background(), conv, "note: pay rent next friday")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "Noted for Friday." {
		t.Errorf("answer = %q", answer)
	}
	reqs := e.fake.requests()
	if len(reqs) != 3 || !reqs[0].req.Stream {
		t.Fatalf("%d requests (stream=%v), want 3 streamed", len(reqs), reqs[0].req.Stream)
	}
	bad := toolMessages(reqs[1])
	if len(bad) != 1 || bad[0].ToolCallID != "call_x1" || !strings.Contains(bad[0].Content, "“at”") {
		t.Fatalf("error sentence sent back = %+v", bad)
	}
	if a := reqs[1].req.Messages[2]; a.Content != "Let me note that." || a.ToolCalls[0].Function.Arguments != `{"text":"pay rent","at":"the friday after"}` {
		t.Errorf("assistant message sent back = %+v", a)
	}
	good := toolMessages(reqs[2])
	if len(good) != 2 || good[1].ToolCallID != "call_x2" || !strings.HasPrefix(good[1].Content, "Added n1") {
		t.Errorf("tool messages of the third request = %+v", good)
	}
	if len(e.nb.notes) != 1 || e.nb.notes[0].at != "2026-07-17" {
		t.Errorf("notes = %+v", e.nb.notes)
	}
	out := e.out.String()
	if !strings.HasPrefix(out, "Let me note that.\n→ add_note \"pay rent\" at the friday after ✗ “at”") ||
		!strings.Contains(out, "→ add_note \"pay rent\" at Fri 2026-07-17 ✓ n1\nNoted for Friday.\n") {
		t.Errorf("Out = %q", out)
	}
}

// Ollama streams whole calls and gives every call of a parallel batch
// index 0, and may finish with "stop"; each new id is a new call.
func TestOllamaIndexZeroParallel(t *testing.T) {
	ollama := func(delta string, reason string) string {
		r := "null"
		if reason != "" {
			r = `"` + reason + `"`
		}
		return `{"id":"chatcmpl-274","object":"chat.completion.chunk","created":1783958400,"model":"qwen2.5","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + r + `}]}`
	}
	e := newEnv(t, true,
		reply{sse: []string{
			ollama(`{"role":"assistant","content":"","tool_calls":[{"id":"call_o1","index":0,"type":"function","function":{"name":"add_note","arguments":"{\"text\":\"milk\"}"}}]}`, ""),
			ollama(`{"role":"assistant","content":"","tool_calls":[{"id":"call_o2","index":0,"type":"function","function":{"name":"add_note","arguments":"{\"text\":\"eggs\"}"}}]}`, ""),
			ollama(`{"role":"assistant","content":""}`, "stop"),
		}},
		reply{sse: []string{ollama(`{"role":"assistant","content":"Both noted."}`, ""), ollama(`{"role":"assistant","content":""}`, "stop")}},
	)
	if _, err := e.agent.Turn(context.Background(), NewMemory(), "note milk and eggs"); err != nil {
		t.Fatal(err)
	}
	if len(e.nb.notes) != 2 || e.nb.notes[0].text != "milk" || e.nb.notes[1].text != "eggs" {
		t.Fatalf("notes = %+v", e.nb.notes)
	}
	r := e.fake.requests()[1]
	if calls := r.req.Messages[2].ToolCalls; len(calls) != 2 || calls[0].ID != "call_o1" || calls[1].ID != "call_o2" {
		t.Errorf("calls sent back = %+v", r.req.Messages[2].ToolCalls)
	}
	tm := toolMessages(r)
	if len(tm) != 2 || tm[0].ToolCallID != "call_o1" || tm[1].ToolCallID != "call_o2" {
		t.Errorf("tool messages = %+v", tm)
	}
}

// An empty result is said in words: go-openai drops empty content, and
// servers refuse a tool message without it.
func TestNoEmptyToolMessage(t *testing.T) {
	e := newEnv(t, false,
		callsReply(call{"call_e", "list_notes", `{"query":"nothing like this"}`}),
		callsReply(call{"", "list_notes", ``}), // no id, no arguments
		textReply("You have no notes."),
	)
	if _, err := e.agent.Turn(context.Background(), NewMemory(), "what are my notes?"); err != nil {
		t.Fatal(err)
	}
	reqs := e.fake.requests()
	tm := toolMessages(reqs[2])
	if len(tm) != 2 || tm[0].Content != "(no output)" || tm[1].Content != "(no output)" {
		t.Errorf("tool messages = %+v", tm)
	}
	c := reqs[2].req.Messages[4].ToolCalls[0]
	if !strings.HasPrefix(c.ID, "call_") || len(c.ID) < 10 || c.Function.Arguments != "{}" || tm[1].ToolCallID != c.ID {
		t.Errorf("call without id or arguments sent back as %+v, answered on %q", c, tm[1].ToolCallID)
	}
}

// 500 then success; 429 with Retry-After honoured; errors that retrying
// cannot fix are reported at once in one sentence.
func TestServerErrors(t *testing.T) {
	rate := errorReply(429, "requests", "Rate limit reached for requests")
	rate.header = map[string]string{"Retry-After-Ms": "20"}
	rateSec := errorReply(429, "requests", "Rate limit reached")
	rateSec.header = map[string]string{"Retry-After": "1"}
	tooLong := errorReply(429, "requests", "Slow down")
	tooLong.header = map[string]string{"Retry-After": "3600"}
	quota := reply{status: 429, body: `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`}
	cases := []struct {
		name     string
		rs       []reply
		wantErr  Kind
		wantReqs int
		wantWait string // a Retry-After the log must show
		wantSays []string
	}{
		{name: "500 then success", rs: []reply{errorReply(500, "server_error", "boom"), textReply("hi")}, wantReqs: 2},
		{name: "502 without JSON then success", rs: []reply{{status: 502, body: "<html>Bad Gateway</html>"}, textReply("hi")}, wantReqs: 2},
		{name: "429 retry-after-ms", rs: []reply{rate, textReply("hi")}, wantReqs: 2, wantWait: "wait=20ms"},
		{name: "429 retry-after seconds", rs: []reply{rateSec, textReply("hi")}, wantReqs: 2, wantWait: "wait=1s"},
		{name: "429 asks too long", rs: []reply{tooLong}, wantErr: KindUnavailable, wantReqs: 1, wantSays: []string{"asks to wait 1h0m0s"}},
		{name: "429 quota", rs: []reply{quota}, wantErr: KindRefused, wantReqs: 1, wantSays: []string{"exceeded your current quota"}},
		{name: "500 every time", rs: []reply{errorReply(500, "server_error", "boom"), errorReply(503, "server_error", "boom"), errorReply(500, "server_error", "down")},
			wantErr: KindUnavailable, wantReqs: 3, wantSays: []string{"kept failing", "3 tries", "down"}},
		{name: "401", rs: []reply{errorReply(401, "invalid_request_error", "Incorrect API key provided")}, wantErr: KindAuth, wantReqs: 1,
			wantSays: []string{"refused the API key", "OPENAI_API_KEY"}},
		{name: "404 model", rs: []reply{errorReply(404, "api_error", `model "nosuch" not found, try pulling it first`)}, wantErr: KindNotFound, wantReqs: 1,
			wantSays: []string{"“test-model”", "ASSISTANT_MODEL", "not found"}},
		{name: "400", rs: []reply{errorReply(400, "invalid_request_error", "messages: bad")}, wantErr: KindRefused, wantReqs: 1, wantSays: []string{"HTTP 400", "messages: bad"}},
		{name: "ollama model without tools", rs: []reply{errorReply(400, "api_error", "registry.ollama.ai/library/gemma:2b does not support tools")}, wantErr: KindRefused, wantReqs: 1,
			wantSays: []string{"does not support tool calls", "ASSISTANT_MODEL"}},
		{name: "llama.cpp without --jinja (a 500, not retried)", rs: []reply{errorReply(500, "server_error", "tools param requires --jinja flag")}, wantErr: KindRefused, wantReqs: 1,
			wantSays: []string{"llama-server --jinja"}},
		{name: "vLLM without auto tool choice", rs: []reply{errorReply(400, "BadRequestError", `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`)}, wantErr: KindRefused, wantReqs: 1,
			wantSays: []string{"--enable-auto-tool-choice --tool-call-parser"}},
		{name: "not a chat completion", rs: []reply{{body: `{"object":"list","data":[]}`}}, wantErr: KindProtocol, wantReqs: 1, wantSays: []string{"without a message"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, false, c.rs...)
			var log bytes.Buffer
			e.cfg.Log = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))
			e.cfg.MaxRetries = 2
			e.build(t)
			conv := NewMemory()
			answer, err := e.agent.Turn(context.Background(), conv, "hello")
			if got := len(e.fake.requests()); got != c.wantReqs {
				t.Errorf("%d requests, want %d", got, c.wantReqs)
			}
			if c.wantErr == 0 {
				if err != nil || answer != "hi" {
					t.Fatalf("answer %q, err %v", answer, err)
				}
				if rolesOf(conv.Messages()) != "user assistant" {
					t.Errorf("stored %s", rolesOf(conv.Messages()))
				}
			} else {
				var ae *Error
				if !errors.As(err, &ae) || ae.Kind != c.wantErr {
					t.Fatalf("err = %v (%T), want kind %d", err, err, c.wantErr)
				}
				if ExitCode(err) != ae.ExitCode() || ExitCode(err) <= 1 {
					t.Errorf("exit code %d", ExitCode(err))
				}
				if strings.Count(ae.Sentence, ". ") > 0 || !strings.HasSuffix(ae.Sentence, ".") {
					t.Errorf("not one sentence: %q", ae.Sentence)
				}
				if n := len(conv.Messages()); n != 0 {
					t.Errorf("a failed first request stored %d messages", n)
				}
			}
			for _, s := range c.wantSays {
				if err == nil || !strings.Contains(err.Error(), s) {
					t.Errorf("error %v does not say %q", err, s)
				}
			}
			if c.wantWait != "" && !strings.Contains(log.String(), c.wantWait) {
				t.Errorf("log does not show %s:\n%s", c.wantWait, log.String())
			}
		})
	}
}

// closedAddr returns an address on which nothing listens.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Nothing answering is one sentence saying how to start Ollama (default
// endpoint) or which address to fix (a named one).
func TestUnreachable(t *testing.T) {
	addr := closedAddr(t)
	// Every dial goes to the closed address, so the default Ollama URL can
	// be tested without touching a real one.
	dialer := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}}}
	cases := []struct {
		name, base, model string
		says              []string
	}{
		{"default ollama", "", "", []string{OllamaURL, "`ollama serve`", "`ollama pull qwen2.5`", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ASSISTANT_MODEL"}},
		{"named server", "http://" + addr + "/v1", "m", []string{"http://" + addr + "/v1", "OPENAI_BASE_URL"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, true)
			e.cfg.BaseURL, e.cfg.Model, e.cfg.HTTPClient, e.cfg.MaxRetries = c.base, c.model, dialer, 1
			e.build(t)
			_, err := e.agent.Turn(context.Background(), NewMemory(), "hello")
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind != KindUnreachable || ExitCode(err) != ExitUnreachable {
				t.Fatalf("err = %v", err)
			}
			for _, s := range c.says {
				if !strings.Contains(ae.Sentence, s) {
					t.Errorf("%q does not say %q", ae.Sentence, s)
				}
			}
		})
	}
}

// With a key the header is sent as a bearer token; without, not at all.
func TestAuthorizationHeader(t *testing.T) {
	for _, key := range []string{"", "sk-test-123"} {
		e := newEnv(t, false, textReply("hi"))
		e.cfg.APIKey = key
		e.build(t)
		if _, err := e.agent.Turn(context.Background(), NewMemory(), "hello"); err != nil {
			t.Fatal(err)
		}
		got := e.fake.requests()[0].header.Get("Authorization")
		want := ""
		if key != "" {
			want = "Bearer " + key
		}
		if got != want {
			t.Errorf("key %q: Authorization %q, want %q", key, got, want)
		}
	}
}

// At the step limit the turn ends, says so, and leaves no call
// unanswered.
func TestStepLimit(t *testing.T) {
	loop := callsReply(call{"call_l", "list_notes", `{}`})
	e := newEnv(t, false, loop, loop, loop)
	e.cfg.MaxSteps = 3
	e.build(t)
	conv := NewMemory()
	answer, err := e.agent.Turn(context.Background(), conv, "loop")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer, "stopped after 3 steps") {
		t.Errorf("answer = %q", answer)
	}
	if n := len(e.fake.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if r := rolesOf(conv.Messages()); r != "user assistant+1 tool assistant+1 tool assistant+1 tool assistant" {
		t.Errorf("stored %s", r)
	}
	if !strings.HasSuffix(e.out.String(), answer+"\n") {
		t.Errorf("Out = %q", e.out.String())
	}
}

// A conversation resumed the next day sends the history again, under a
// system prompt rebuilt with the new date (never stored).
func TestResume(t *testing.T) {
	e := newEnv(t, false,
		callsReply(call{"call_r", "add_note", `{"text":"buy bread"}`}),
		textReply("Added n1."),
		textReply("You noted: buy bread."),
	)
	conv := NewMemory()
	if _, err := e.agent.Turn(context.Background(), conv, "note buy bread"); err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(24 * time.Hour) // Tuesday
	// A new agent, as a new run of the binary would make.
	e.build(t)
	if _, err := e.agent.Turn(context.Background(), conv, "what did I note yesterday?"); err != nil {
		t.Fatal(err)
	}
	r := e.fake.requests()[2]
	if got := rolesOf(r.req.Messages); got != "system user assistant+1 tool assistant user" {
		t.Errorf("resumed request has %s", got)
	}
	if !strings.Contains(r.req.Messages[0].Content, "Tuesday 2026-07-14, 18:00") {
		t.Errorf("system prompt not rebuilt for the new day:\n%s", r.req.Messages[0].Content)
	}
	if r.req.Messages[1].Content != "note buy bread" || r.req.Messages[5].Content != "what did I note yesterday?" {
		t.Errorf("history = %+v", r.req.Messages)
	}
	for _, m := range conv.Messages() {
		if m.Role == openai.ChatMessageRoleSystem {
			t.Errorf("a system prompt was stored")
		}
	}
}

// Ctrl-C while the calls of one answer run: the call that ran keeps its
// result, the rest are answered "cancelled", nothing more is asked of the
// model, and the conversation holds no unanswered call.
func TestCancelledTurn(t *testing.T) {
	e := newEnv(t, false, callsReply(
		call{"call_c1", "add_note", `{"text":"first"}`},
		call{"call_c2", "add_note", `{"text":"second"}`},
		call{"call_c3", "list_notes", `{}`},
	))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.nb.onCall = func(string) { cancel() } // interrupted while the first call runs
	conv := NewMemory()
	_, err := e.agent.Turn(ctx, conv, "add two notes")
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrInterrupted) || ExitCode(err) != ExitInterrupted {
		t.Fatalf("err = %v", err)
	}
	if len(e.fake.requests()) != 1 {
		t.Errorf("%d requests after the cancel, want 1", len(e.fake.requests()))
	}
	msgs := conv.Messages()
	if r := rolesOf(msgs); r != "user assistant+3 tool tool tool assistant" {
		t.Fatalf("stored %s", r)
	}
	// The first call ran: the store rolled nothing back here (the notebook
	// ignores ctx), so its result is kept.
	if !strings.HasPrefix(msgs[2].Content, "Added n1") || msgs[3].Content != cancelledText || msgs[4].Content != cancelledText {
		t.Errorf("tool answers = %q, %q, %q", msgs[2].Content, msgs[3].Content, msgs[4].Content)
	}
	if len(e.nb.notes) != 1 {
		t.Errorf("notes = %+v", e.nb.notes)
	}
	checkWellFormed(t, asRaw(t, msgs))
	if !strings.Contains(e.out.String(), "→ add_note \"second\" ✗ cancelled") {
		t.Errorf("Out = %q", e.out.String())
	}
}

// Ctrl-C while waiting for the model: nothing is stored.
func TestCancelledWhileWaiting(t *testing.T) {
	for _, stream := range []bool{false, true} {
		e := newEnv(t, stream, reply{wait: true})
		ctx, cancel := context.WithCancelCause(context.Background())
		sigint := errors.New("interrupt signal")
		go func() {
			for len(e.fake.requests()) == 0 {
				time.Sleep(time.Millisecond)
			}
			cancel(sigint)
		}()
		conv := NewMemory()
		_, err := e.agent.Turn(ctx, conv, "hello")
		if !errors.Is(err, ErrInterrupted) || !errors.Is(err, sigint) || ExitCode(err) != ExitInterrupted {
			t.Errorf("stream %v: err = %v", stream, err)
		}
		if n := len(conv.Messages()); n != 0 {
			t.Errorf("stream %v: stored %d messages", stream, n)
		}
		cancel(nil)
	}
}

// asRaw wraps stored messages as a request, with a system prompt first,
// for checkWellFormed.
func asRaw(t *testing.T, msgs []openai.ChatCompletionMessage) map[string]any {
	all := append([]openai.ChatCompletionMessage{{Role: "system", Content: "s"}}, msgs...)
	b, err := json.Marshal(map[string]any{"messages": all})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func TestNewChecksConfig(t *testing.T) {
	reg := (&notebook{}).registry()
	withPerson := &tools.ToolContext{}
	tools.Insert(withPerson, tools.Person{ID: 1, Name: "Ada", Zone: paris})
	cases := []struct {
		name string
		cfg  Config
		err  string
	}{
		{"no registry", Config{Context: withPerson}, "Registry"},
		{"no context", Config{Registry: reg}, "Context"},
		{"no person", Config{Registry: reg, Context: &tools.ToolContext{}}, "tools.Person"},
	}
	for _, c := range cases {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
	defaults := []struct {
		cfg        Config
		url, model string
	}{
		{Config{}, OllamaURL, DefaultOllamaModel},
		{Config{APIKey: "k"}, OpenAIURL, DefaultOpenAIModel},
		{Config{BaseURL: "http://h:8080/v1/", Model: "x"}, "http://h:8080/v1", "x"},
	}
	for _, d := range defaults {
		d.cfg.Registry, d.cfg.Context = reg, withPerson
		a, err := New(d.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if a.BaseURL() != d.url || a.Model() != d.model {
			t.Errorf("%+v: %s %s, want %s %s", d.cfg, a.BaseURL(), a.Model(), d.url, d.model)
		}
	}
	env := map[string]string{"OPENAI_BASE_URL": " http://x/v1 ", "OPENAI_API_KEY": "k", "ASSISTANT_MODEL": "m"}
	c := ConfigFromEnv(func(k string) string { return env[k] })
	if c.BaseURL != "http://x/v1" || c.APIKey != "k" || c.Model != "m" {
		t.Errorf("ConfigFromEnv = %+v", c)
	}
}

// A message that is not valid UTF-8, or longer than MaxMessage, is
// refused with one sentence saying so, and neither sent nor stored.
func TestMessageRefused(t *testing.T) {
	e := newEnv(t, false)
	for _, msg := range []string{"bo\xffb", strings.Repeat("m", MaxMessage+1)} {
		conv := NewMemory()
		_, err := e.agent.Turn(context.Background(), conv, msg)
		var me *MessageError
		if !errors.As(err, &me) || strings.Contains(me.Sentence, "\n") {
			t.Errorf("%.20q: err = %v, want one sentence", msg, err)
		}
		if past, _ := conv.Load(context.Background()); len(past) != 0 {
			t.Errorf("%.20q was stored", msg)
		}
	}
	if len(e.fake.requests()) != 0 {
		t.Errorf("a refused message was sent")
	}
}

func TestEmptyMessage(t *testing.T) {
	e := newEnv(t, false)
	if _, err := e.agent.Turn(context.Background(), NewMemory(), "  \n"); !errors.Is(err, ErrEmptyMessage) {
		t.Errorf("err = %v", err)
	}
	if len(e.fake.requests()) != 0 {
		t.Errorf("a blank message was sent")
	}
}

// A server failing after a step was stored: the step is kept, the turn is
// closed with a note, and the error says what happened; an error sent
// inside a stream is reported, not retried.
func TestFailureAfterAStep(t *testing.T) {
	e := newEnv(t, true,
		reply{sse: []string{
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_f","type":"function","function":{"name":"add_note","arguments":"{\"text\":\"x\"}"}}]}`),
			finish("tool_calls"),
		}},
		reply{sse: []string{
			chunk(`{"role":"assistant","content":"Sorry"}`),
			`{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","param":null,"code":null}}`,
		}},
	)
	conv := NewMemory()
	answer, err := e.agent.Turn(context.Background(), conv, "note x")
	var ae *Error
	if !errors.As(err, &ae) || !strings.Contains(ae.Sentence, "maximum context length") {
		t.Fatalf("err = %v", err)
	}
	if answer != "Sorry" {
		t.Errorf("answer so far = %q", answer)
	}
	if n := len(e.fake.requests()); n != 2 {
		t.Errorf("%d requests, want 2 (no retry after text was shown)", n)
	}
	msgs := conv.Messages()
	if r := rolesOf(msgs); r != "user assistant+1 tool assistant" || !strings.Contains(msgs[3].Content, "failed before I finished") {
		t.Errorf("stored %s: %+v", r, msgs)
	}
}

// A server that echoes the API key in its refusal never gets it printed:
// not whole, and not its start where the server's words are cut at 200
// bytes.
func TestRefusalHidesTheKey(t *testing.T) {
	const key = "sk-test-0123456789abcdefghij"
	for _, msg := range []string{
		"Incorrect API key provided: " + key + ".",
		strings.Repeat("x", 185) + " key: " + key,
	} {
		e := newEnv(t, false, reply{status: 401, body: `{"error":{"message":"` + msg + `"}}`}, reply{status: 401, body: msg})
		e.cfg.APIKey = key
		e.cfg.MaxRetries = 0
		e.build(t)
		_, err := e.agent.Turn(context.Background(), NewMemory(), "hello")
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != KindAuth {
			t.Fatalf("err = %v, want a refused key", err)
		}
		if strings.Contains(ae.Sentence, key[:8]) {
			t.Errorf("the sentence shows the key: %q", ae.Sentence)
		}
		if !strings.Contains(ae.Sentence, "***") {
			t.Errorf("the sentence does not mark where the key was: %q", ae.Sentence)
		}
	}
}

func TestHideKey(t *testing.T) {
	cases := []struct{ s, key, want string }{
		{"key abcdefgh here", "abcdefgh", "key *** here"},
		{"cut abcdef…", "abcdefgh", "cut ***…"},
		{"cut abc…", "abcdefgh", "cut abc…"}, // too short a start to be the key
		{"short ab", "ab", "short ab"},
	}
	for _, c := range cases {
		if got := HideKey(c.s, c.key); got != c.want {
			t.Errorf("HideKey(%q, %q) = %q, want %q", c.s, c.key, got, c.want)
		}
	}
}
