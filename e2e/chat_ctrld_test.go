//go:build linux

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
)

// gatedModel streams the start of its first answer, then waits for release
// before it writes the rest; later requests get a whole short answer.
type gatedModel struct {
	mu      sync.Mutex
	n       int
	started chan struct{} // closed once the first answer's start is sent
	release chan struct{} // closed by the test to let the first answer end
}

func (f *gatedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.n++
	n := f.n
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	if n == 1 {
		fmt.Fprintf(w, "data: %s\n\n", sseChunk(`{"role":"assistant","content":"Here is the plan: first"}`, ""))
		w.(http.Flusher).Flush()
		close(f.started)
		select {
		case <-f.release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprintf(w, "data: %s\n\n", sseChunk(`{"content":", then the rest."}`, "stop"))
	} else {
		for _, d := range answerOnce("Second answer.") {
			fmt.Fprintf(w, "data: %s\n\n", d)
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// Ctrl-D typed while an answer is still being written does not freeze the
// chat: the answer ends, and the chat leaves with 0 as Ctrl-D at the
// prompt does.
func TestChatCtrlDWhileAnswering(t *testing.T) { storetest.Engines(t, testChatCtrlDWhileAnswering) }

func testChatCtrlDWhileAnswering(t *testing.T) {
	fake := &gatedModel{started: make(chan struct{}), release: make(chan struct{})}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn"
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"
	s := h.interactive("chat")
	n := s.waitForPrompt("Ctrl-D leaves.", 0)
	s.typeText("plan\r")
	<-fake.started
	s.waitFor("first", n)
	s.typeText("\x04")
	close(fake.release)
	if code := s.wait(); code != 0 {
		t.Fatalf("want exit 0, got %d:\n%s", code, s.output())
	}
	if out := s.output(); !strings.Contains(out, "then the rest.") {
		t.Errorf("the answer was not shown whole:\n%q", out)
	}
}
