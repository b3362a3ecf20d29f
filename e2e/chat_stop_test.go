//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// holdingModel streams the start of an answer to its first request and
// then writes nothing more until the client goes away, as a model still
// writing; later requests get a whole short answer. Request bodies are
// kept.
type holdingModel struct {
	mu      sync.Mutex
	got     []map[string]any
	started chan struct{} // closed once the first answer's start is sent
}

func (f *holdingModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	w.Header().Set("Content-Type", "text/event-stream")
	if n > 1 {
		for _, d := range answerOnce("Second, rest.") {
			fmt.Fprintf(w, "data: %s\n\n", d)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	fmt.Fprintf(w, "data: %s\n\n", sseChunk(`{"role":"assistant","content":"Here is the plan: first"}`, ""))
	w.(http.Flusher).Flush()
	close(f.started)
	<-r.Context().Done()
}

// lockedBuffer is a buffer a test may read while a subprocess writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (f *holdingModel) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.got...)
}

// Ctrl-C during chat -m ends the half-written line, says "(stopped)" and
// exits 130; the question and the text shown are kept, marked [stopped],
// so the next message can go on from them.
func TestChatOneMessageStopped(t *testing.T) { storetest.Engines(t, testChatOneMessageStopped) }

func testChatOneMessageStopped(t *testing.T) {
	fake := &holdingModel{started: make(chan struct{})}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn"
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"

	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, h.argv("chat", "-m", "plan my week")...)
	cmd.Dir, cmd.Env = h.dir, h.environ()
	var out, errb lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-fake.started:
	case <-time.After(runLimit):
		t.Fatal("the model was never asked")
	}
	// Ctrl-C once the person has seen the answer's start.
	for deadline := time.Now().Add(runLimit); !strings.Contains(out.String(), "first"); {
		if time.Now().After(deadline) {
			t.Fatalf("the answer's start never showed: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("want exit 130, got %v\nstdout %q\nstderr %q", err, out.String(), errb.String())
	}
	if out.String() != "Here is the plan: first\n" {
		t.Errorf("stdout %q, want the text shown, its line ended", out.String())
	}
	if errb.String() != "(stopped)\nconversation 1\n" {
		t.Errorf("stderr %q, want (stopped) and the conversation", errb.String())
	}

	r := h.must("chat", "-m", "go on")
	if r.stdout != "Second, rest.\n" {
		t.Errorf("go on: %s", r)
	}
	reqs := fake.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	b, _ := json.Marshal(reqs[1]["messages"])
	for _, want := range []string{`"plan my week"`, `"Here is the plan: first [stopped]"`, `"go on"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the second request lacks %s: %s", want, b)
		}
	}
}

// At an empty prompt one Ctrl-C only shows how to leave; a second one in a
// row leaves with 130; Ctrl-D leaves with 0.
func TestChatInteractiveCtrlCAtThePrompt(t *testing.T) {
	storetest.Engines(t, testChatInteractiveCtrlCAtThePrompt)
}

func testChatInteractiveCtrlCAtThePrompt(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn"
	srv := httptest.NewServer(&scriptedModel{t: t})
	defer srv.Close()
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"
	const hint = "(press Ctrl-C again or Ctrl-D to leave)"

	s := h.interactive("chat")
	n := s.waitForPrompt("Ctrl-D leaves.", 0)
	s.typeText("\x03")
	s.waitForPrompt(hint, n)
	s.typeText("\x03")
	if code := s.wait(); code != 130 {
		t.Errorf("two Ctrl-C: want exit 130, got %d:\n%s", code, s.output())
	}
	if strings.Count(s.output(), hint) != 1 {
		t.Errorf("the hint shows %d times:\n%s", strings.Count(s.output(), hint), s.output())
	}

	// A line typed in between starts the count again; Ctrl-D leaves.
	s = h.interactive("chat")
	n = s.waitForPrompt("Ctrl-D leaves.", 0)
	s.typeText("\x03")
	n = s.waitForPrompt(hint, n)
	s.typeText("half a line\x03")
	n = s.waitForPrompt("^C", n)
	s.typeText("\x03")
	s.waitForPrompt(hint, n)
	s.typeText("\x04")
	if code := s.wait(); code != 0 {
		t.Errorf("Ctrl-D: want exit 0, got %d:\n%s", code, s.output())
	}
}
