package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/catalog"
)

// scriptedModel is an OpenAI-compatible server that streams one scripted
// answer per request, in order, as server-sent events, and keeps every
// request body.
type scriptedModel struct {
	t       *testing.T
	mu      sync.Mutex
	answers [][]string // per request: the data payloads of its stream
	got     []map[string]any
}

func (f *scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.got = append(f.got, req)
	n := len(f.got)
	f.mu.Unlock()
	if n > len(f.answers) {
		f.t.Errorf("request %d was not scripted", n)
		http.Error(w, `{"error":{"message":"unscripted","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, d := range f.answers[n-1] {
		fmt.Fprintf(w, "data: %s\n\n", d)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (f *scriptedModel) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.got...)
}

// sseChunk is one chat.completion.chunk as OpenAI streams it.
func sseChunk(delta, finish string) string {
	reason := "null"
	if finish != "" {
		reason = `"` + finish + `"`
	}
	return `{"id":"chatcmpl-e2e","object":"chat.completion.chunk","created":1791190800,"model":"test-model","system_fingerprint":"fp_e2e",` +
		`"choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + reason + `}]}`
}

// The built binary, one message, a fake model that writes tomorrow 09:00
// Paris as 07:00Z in pieces: the task is stored and `assistant call
// list_tasks` shows it at 09:00, the person's time.
func TestChatE2EPlumberThroughTheBinary(t *testing.T) {
	storetest.Engines(t, testChatE2EPlumberThroughTheBinary)
}

func testChatE2EPlumberThroughTheBinary(t *testing.T) {
	fake := &scriptedModel{t: t, answers: [][]string{
		{
			sseChunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_e2e","type":"function","function":{"name":"add_task","arguments":""}}]}`, ""),
			sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"title\":\"Call the plumber\","}}]}`, ""),
			sseChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"due\":\"2026-10-06T07:00Z\"}"}}]}`, ""),
			sseChunk(`{}`, "tool_calls"),
		},
		{
			sseChunk(`{"role":"assistant","content":"Done: t1, "}`, ""),
			sseChunk(`{"content":"tomorrow at 09:00."}`, ""),
			sseChunk(`{}`, "stop"),
		},
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h := newHome(t)
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"
	h.env["ASSISTANT_DB"] = filepath.Join(h.dir, "chat.db")

	r := h.must("chat", "-m", "remind me to call the plumber tomorrow at 9")
	wantOut := "→ add_task \"Call the plumber\" due Tue 2026-10-06 09:00 ✓ t1\nDone: t1, tomorrow at 09:00.\n"
	if r.stdout != wantOut {
		t.Errorf("stdout = %q, want %q\n%s", r.stdout, wantOut, r)
	}
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("want 2 requests, got %d", len(reqs))
	}
	if offered, _ := reqs[0]["tools"].([]any); len(offered) != len(catalog.New().Names()) {
		t.Errorf("want every tool offered (%d), got %d", len(catalog.New().Names()), len(offered))
	}
	var toolMsgs []string
	for _, m := range reqs[1]["messages"].([]any) {
		if mm := m.(map[string]any); mm["role"] == "tool" {
			if mm["tool_call_id"] != "call_e2e" {
				t.Errorf("tool message answers %v, want call_e2e", mm["tool_call_id"])
			}
			toolMsgs = append(toolMsgs, fmt.Sprint(mm["content"]))
		}
	}
	if len(toolMsgs) != 1 || !strings.HasPrefix(toolMsgs[0], "Added t1 “Call the plumber”") || !strings.Contains(toolMsgs[0], "Tue 2026-10-06 09:00 (+02:00)") {
		t.Errorf("tool messages sent back = %q, want t1 at Tue 2026-10-06 09:00 (+02:00)", toolMsgs)
	}

	// The shell's view of the same database.
	list := h.must("call", "list_tasks")
	if !strings.Contains(list.stdout, "t1 · tomorrow 09:00 · Call the plumber") {
		t.Errorf("list_tasks does not show t1 tomorrow at 09:00:\n%s", list)
	}
	var res struct {
		Code int
		Data struct {
			Task struct {
				ID, Title, Due string
				DueZone        string `json:"due_zone"`
				DueAt          string `json:"due_at"`
			}
		}
	}
	js := h.must("call", "--json", "get_task", "id=t1")
	if err := json.Unmarshal([]byte(js.stdout), &res); err != nil {
		t.Fatalf("get_task --json: %v\n%s", err, js)
	}
	if d := res.Data.Task; res.Code != 0 || d.Title != "Call the plumber" || d.Due != "2026-10-06T09:00" || d.DueZone != "Europe/Paris" || d.DueAt != "2026-10-06T09:00:00+02:00" {
		t.Errorf("t1 stored as %+v (code %d), want due 2026-10-06T09:00 Europe/Paris", d, res.Code)
	}
}
