package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// reply is one scripted answer of the fake server.
type reply struct {
	status int
	header map[string]string
	body   string   // a whole JSON body (non-streaming answer or error)
	sse    []string // data payloads of a stream; "data: [DONE]" is added
	wait   bool     // block until the request's context ends (a model that never answers)
	// After the sse payloads: hold blocks until the request's context ends
	// (a model still writing); cut drops the connection without [DONE].
	hold, cut bool
	// whole answers body even to a stream request, as some proxies do,
	// with Content-Type ctype ("" sends application/json; "-" sends none).
	whole bool
	ctype string
}

// seen is one request as the fake server received it.
type seen struct {
	header http.Header
	req    openai.ChatCompletionRequest
	raw    map[string]any
	body   []byte // the request body as it came over the wire
}

// fakeServer replays scripted answers shaped as OpenAI, Ollama and vLLM
// send them, records every request, and checks on each one the rules a
// real server enforces: every tool message has non-empty content and
// answers a call of the assistant message just before it.
type fakeServer struct {
	t   testing.TB
	srv *httptest.Server
	mu  sync.Mutex
	rs  []reply
	got []seen

	// models, when not nil, is served at GET /v1/models as OpenAI lists
	// them; nil answers 404 there, as servers without the endpoint do.
	models     []string
	modelsGets int // GET /v1/models requests received
}

func newFake(t testing.TB, rs ...reply) *fakeServer {
	f := &fakeServer{t: t, rs: rs}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) url() string { return f.srv.URL + "/v1" }

func (f *fakeServer) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.got...)
}

// listModels sets the ids served at GET /v1/models.
func (f *fakeServer) listModels(ids ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.models = append([]string{}, ids...)
}

func (f *fakeServer) modelGets() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.modelsGets
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" && r.Method == http.MethodGet {
		f.mu.Lock()
		f.modelsGets++
		ids := f.models
		f.mu.Unlock()
		if ids == nil {
			http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		var data []string
		for _, id := range ids {
			data = append(data, fmt.Sprintf(`{"id":%q,"object":"model","created":1783958400,"owned_by":"library"}`, id))
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[`+strings.Join(data, ",")+`]}`)
		return
	}
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var s seen
	s.header = r.Header.Clone()
	s.body = body
	if err := json.Unmarshal(body, &s.req); err != nil {
		f.t.Errorf("request body is not a chat request: %v", err)
	}
	if err := json.Unmarshal(body, &s.raw); err != nil {
		f.t.Errorf("request body is not JSON: %v", err)
	}
	checkWellFormed(f.t, s.raw)
	f.mu.Lock()
	f.got = append(f.got, s)
	n := len(f.got)
	var rep reply
	if n <= len(f.rs) {
		rep = f.rs[n-1]
	}
	f.mu.Unlock()
	if n > len(f.rs) {
		f.t.Errorf("request %d was not scripted", n)
		http.Error(w, `{"error":{"message":"unscripted","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	if rep.wait {
		<-r.Context().Done()
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	if rep.sse != nil {
		if !s.req.Stream {
			f.t.Errorf("request %d: a stream was scripted but the request has stream=false", n)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(status)
		fl := w.(http.Flusher)
		for _, d := range rep.sse {
			fmt.Fprintf(w, "data: %s\n\n", d)
			fl.Flush()
		}
		if rep.hold {
			<-r.Context().Done()
			return
		}
		if rep.cut {
			// The server closes the connection mid-body: the client reads
			// an unexpected EOF, as when a proxy or the network drops it.
			panic(http.ErrAbortHandler)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
		fl.Flush()
		return
	}
	if status == http.StatusOK && s.req.Stream && !rep.whole {
		f.t.Errorf("request %d: a whole answer was scripted but the request asks for a stream", n)
	}
	switch rep.ctype {
	case "":
		w.Header().Set("Content-Type", "application/json")
	case "-":
		w.Header()["Content-Type"] = nil // no sniffing either
	default:
		w.Header().Set("Content-Type", rep.ctype)
	}
	w.WriteHeader(status)
	io.WriteString(w, rep.body)
}

// checkWellFormed fails t when a request breaks what servers require of
// the messages: a system prompt first; tool messages with content that
// answer, one each, the calls of the assistant message before them.
func checkWellFormed(t testing.TB, raw map[string]any) {
	t.Helper()
	msgs, _ := raw["messages"].([]any)
	if len(msgs) == 0 {
		t.Errorf("request has no messages")
		return
	}
	if r := msgs[0].(map[string]any)["role"]; r != "system" {
		t.Errorf("first message has role %v, want system", r)
	}
	var open []string // call ids of the last assistant message not yet answered
	for i, m := range msgs {
		mm := m.(map[string]any)
		switch mm["role"] {
		case "system":
			if i != 0 {
				t.Errorf("message %d: a second system message", i)
			}
		case "tool":
			c, _ := mm["content"].(string)
			if strings.TrimSpace(c) == "" {
				t.Errorf("message %d: tool message without content: %v", i, mm)
			}
			id, _ := mm["tool_call_id"].(string)
			if len(open) == 0 || open[0] != id {
				t.Errorf("message %d: tool message for %q, want the answer to %v", i, id, open)
			} else {
				open = open[1:]
			}
		default:
			if len(open) > 0 {
				t.Errorf("message %d: calls %v left unanswered", i, open)
				open = nil
			}
			if tcs, ok := mm["tool_calls"].([]any); ok {
				for _, tc := range tcs {
					tcm := tc.(map[string]any)
					id, _ := tcm["id"].(string)
					if id == "" || tcm["type"] != "function" {
						t.Errorf("message %d: tool call without id or type: %v", i, tcm)
					}
					if _, has := tcm["index"]; has {
						t.Errorf("message %d: tool call sent back with a stream index", i)
					}
					open = append(open, id)
				}
			} else if c, _ := mm["content"].(string); strings.TrimSpace(c) == "" {
				t.Errorf("message %d: %v message without content", i, mm["role"])
			}
		}
	}
	if len(open) > 0 {
		t.Errorf("calls %v left unanswered at the end", open)
	}
}

// Answers shaped as servers send them.

const chunkHead = `{"id":"chatcmpl-9f2","object":"chat.completion.chunk","created":1783958400,"model":"test-model","system_fingerprint":"fp_test","choices":[{"index":0,"delta":`

func chunk(delta string) string {
	return chunkHead + delta + `,"logprobs":null,"finish_reason":null}]}`
}

func finish(reason string) string {
	return chunkHead + `{},"logprobs":null,"finish_reason":"` + reason + `"}]}`
}

type call struct{ id, name, args string }

func textReply(text string) reply {
	c, _ := json.Marshal(text)
	return reply{body: `{"id":"chatcmpl-1","object":"chat.completion","created":1783958400,"model":"test-model",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":` + string(c) + `,"refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`}
}

func callsReply(calls ...call) reply {
	var parts []string
	for _, c := range calls {
		a, _ := json.Marshal(c.args)
		parts = append(parts, fmt.Sprintf(`{"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}`, c.id, c.name, a))
	}
	return reply{body: `{"id":"chatcmpl-2","object":"chat.completion","created":1783958400,"model":"test-model",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` + strings.Join(parts, ",") + `],"refusal":null},"logprobs":null,"finish_reason":"tool_calls"}],` +
		`"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}`}
}

func errorReply(status int, typ, msg string) reply {
	m, _ := json.Marshal(msg)
	return reply{status: status, body: `{"error":{"message":` + string(m) + `,"type":"` + typ + `","param":null,"code":null}}`}
}

// The test registry: notes kept in a map-like list.

type note struct {
	id, text string
	atRaw    string // "at" exactly as the model wrote it
	at       string // "at" as Args read it in the person's zone
}

type notebook struct {
	mu     sync.Mutex
	notes  []note
	onCall func(name string) // called at the start of every handler
}

func (nb *notebook) registry() *tools.Registry {
	r := tools.NewRegistry()
	r.Add(tools.Tool{
		Name:        "add_note",
		Description: "Add a note, optionally for a moment.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("text", "What to note."),
			tools.Str("at", "When: 2026-10-05 or 2026-10-05T09:00 in the person's zone."),
		}, Required: []string{"text"}},
		Handler: nb.add,
	})
	r.Add(tools.Tool{
		Name:        "list_notes",
		Description: "List the notes, or those containing query.",
		ReadOnly:    true,
		Schema:      tools.Schema{Properties: []tools.Property{tools.Str("query", "Words the note contains.")}},
		Handler:     nb.list,
	})
	return r
}

func (nb *notebook) add(ctx context.Context, tc *tools.ToolContext, a *args.Args) tools.ExecResult {
	if nb.onCall != nil {
		nb.onCall("add_note")
	}
	p, err := tools.PersonOf(tc)
	if err != nil {
		return tools.Internal(err)
	}
	text := a.NeededLine("text")
	raw := a.Text("at")
	var at tz.Moment
	if a.Has("at") {
		at, _ = a.Moment("at", p.Zone)
	}
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}
	nb.mu.Lock()
	defer nb.mu.Unlock()
	n := note{id: fmt.Sprintf("n%d", len(nb.notes)+1), text: text, atRaw: raw}
	when := ""
	if raw != "" {
		n.at = at.String()
		when = " for " + n.at + " " + p.Zone.Name()
	}
	nb.notes = append(nb.notes, n)
	return tools.Success(fmt.Sprintf("Added %s “%s”%s.", n.id, text, when))
}

func (nb *notebook) list(ctx context.Context, tc *tools.ToolContext, a *args.Args) tools.ExecResult {
	if nb.onCall != nil {
		nb.onCall("list_notes")
	}
	q := a.Text("query")
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}
	nb.mu.Lock()
	defer nb.mu.Unlock()
	var lines []string
	for _, n := range nb.notes {
		if strings.Contains(n.text, q) {
			lines = append(lines, n.id+" "+n.text)
		}
	}
	// Nothing found is an empty Out on purpose: the agent must put words
	// in the tool message.
	return tools.Success(strings.Join(lines, "\n"))
}

// env is one test's agent setup.
type env struct {
	nb    *notebook
	tc    *tools.ToolContext
	now   time.Time
	out   strings.Builder
	fake  *fakeServer
	cfg   Config
	agent *Agent
}

var paris = tz.MustZone("Europe/Paris")

// newEnv sets up a person Ada in Europe/Paris on Monday 2026-07-13 at
// 18:00 local time (16:00 UTC), a notebook registry, and an agent on the
// fake server.
func newEnv(t testing.TB, stream bool, rs ...reply) *env {
	e := &env{nb: &notebook{}, now: time.Date(2026, 7, 13, 16, 0, 0, 0, time.UTC)}
	e.fake = newFake(t, rs...)
	e.tc = &tools.ToolContext{}
	tools.Insert(e.tc, tools.Person{ID: 1, Name: "Ada", Zone: paris})
	tools.Insert(e.tc, tools.Clock(func() time.Time { return e.now }))
	e.cfg = Config{
		BaseURL:   e.fake.url(),
		Model:     "test-model",
		Registry:  e.nb.registry(),
		Context:   e.tc,
		Stream:    stream,
		Out:       &e.out,
		RetryBase: time.Millisecond,
	}
	e.build(t)
	return e
}

func (e *env) build(t testing.TB) {
	a, err := New(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.agent = a
}

// toolMessages returns the tool messages of a request, in order.
func toolMessages(s seen) []openai.ChatCompletionMessage {
	var out []openai.ChatCompletionMessage
	for _, m := range s.req.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			out = append(out, m)
		}
	}
	return out
}
