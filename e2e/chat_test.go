package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/catalog"
)

// fakeModel is an OpenAI-compatible server that streams one fixed answer
// and keeps the request bodies it got.
type fakeModel struct {
	mu       sync.Mutex
	requests []map[string]any
	auth     []string
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	for i, part := range []string{"Nothing is ", "planned yet."} {
		delta := map[string]any{"content": part}
		if i == 0 {
			delta["role"] = "assistant"
		}
		chunk := map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": req["model"],
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprintf(w, "data: %s\n\n", `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func TestChatOneMessageAgainstAFakeServer(t *testing.T) {
	storetest.Engines(t, testChatOneMessageAgainstAFakeServer)
}

func testChatOneMessageAgainstAFakeServer(t *testing.T) {
	fake := &fakeModel{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h := newHome(t)
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"

	r := h.must("chat", "-m", "What is planned?")
	if strings.TrimSpace(r.stdout) != "Nothing is planned yet." {
		t.Fatalf("want the streamed answer on stdout, got %s", r)
	}
	// Standard input that is not a terminal is one message too, and the
	// conversation resumes: the second request carries the first exchange.
	r = h.runIn("And tomorrow?", "chat")
	if r.code != 0 {
		t.Fatalf("chat from standard input: %s", r)
	}
	fake.mu.Lock()
	requests, auth := fake.requests, fake.auth
	fake.mu.Unlock()
	if len(requests) != 2 {
		t.Fatalf("want 2 requests, got %d", len(requests))
	}
	first, second := requests[0], requests[1]
	if first["model"] != "test-model" {
		t.Errorf("model: got %v, want test-model from ASSISTANT_MODEL", first["model"])
	}
	if auth[0] != "" {
		t.Errorf("no key was set, yet an Authorization header was sent: %q", auth[0])
	}
	toolsOffered, _ := first["tools"].([]any)
	if len(toolsOffered) != len(catalog.New().Names()) {
		t.Errorf("want every tool offered (%d), got %d", len(catalog.New().Names()), len(toolsOffered))
	}
	msgs, _ := second["messages"].([]any)
	var text []string
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		c, _ := mm["content"].(string)
		text = append(text, fmt.Sprint(mm["role"])+": "+c)
	}
	joined := strings.Join(text, "\n")
	for _, want := range []string{"user: What is planned?", "assistant: Nothing is planned yet.", "user: And tomorrow?"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the second request does not carry %q; messages:\n%s", want, joined)
		}
	}
	// The system prompt is built with the fixed clock and the person's zone.
	if !strings.Contains(joined, "2026-10-05") || !strings.Contains(joined, "Europe/Paris") {
		t.Errorf("the system prompt lacks today's date or the zone:\n%s", joined)
	}

	// --new starts afresh: only the system prompt and the new message.
	h.must("chat", "--new", "-m", "Hello")
	fake.mu.Lock()
	last := fake.requests[len(fake.requests)-1]
	fake.mu.Unlock()
	if n := len(last["messages"].([]any)); n != 2 {
		t.Errorf("--new: want 2 messages (system, user), got %d", n)
	}
}

func TestChatRefusedKeyExitsWithTheAgentsCode(t *testing.T) {
	storetest.Engines(t, testChatRefusedKeyExitsWithTheAgentsCode)
}

func testChatRefusedKeyExitsWithTheAgentsCode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	defer srv.Close()
	h := newHome(t)
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["OPENAI_API_KEY"] = "sk-wrong"
	r := h.run("chat", "-m", "hi")
	if r.code != 77 {
		t.Fatalf("a refused key: want exit 77, got %s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "assistant: ") {
		t.Errorf("want one sentence on stderr, got %q", r.stderr)
	}
	if r = h.run("chat", "--new", "--conversation", "1", "-m", "x"); r.code != 2 {
		t.Errorf("--new with --conversation: want exit 2, got %s", r)
	}
	if r = h.run("chat", "-m", "  "); r.code != 2 {
		t.Errorf("an empty message: want exit 2, got %s", r)
	}
	if r = h.run("chat", "--conversation", "999", "-m", "x"); r.code != 4 {
		t.Errorf("an unknown conversation: want exit 4, got %s", r)
	}
}
