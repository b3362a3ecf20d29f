//go:build linux

package e2e

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// An interactive chat with nothing listening at a local base URL says so
// and exits before it shows a prompt, with the code and sentence the
// first message would have got.
func TestChatInteractiveNoServerBeforeThePrompt(t *testing.T) {
	storetest.Engines(t, testChatInteractiveNoServerBeforeThePrompt)
}

func testChatInteractiveNoServerBeforeThePrompt(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn" // no note about the local person made on first run
	base := "http://" + closedAddr(t) + "/v1"
	h.env["OPENAI_BASE_URL"] = base
	h.env["ASSISTANT_MODEL"] = "test-model"
	s := h.interactive("chat")
	code := s.wait()
	out := s.output()
	if code != 69 {
		t.Fatalf("want exit 69, got %d:\n%s", code, out)
	}
	want := "assistant: Nothing answers at " + base + ": start the model server there, or set OPENAI_BASE_URL to its address (it usually ends in /v1)."
	if strings.TrimSpace(out) != want {
		t.Errorf("terminal shows %q, want only %q", out, want)
	}
	// The same sentence as a one-shot message gets from its request.
	if r := h.run("chat", "-m", "hi"); r.code != 69 || strings.TrimSpace(r.stderr) != want {
		t.Errorf("chat -m: want exit 69 and %q, got %s", want, r)
	}
}

// A server that answers GET /models with an HTTP error still gets its
// chat; each person's typed lines go to a file of their own, readable by
// them alone; --no-history writes none. SQLite only: the history files
// live beside the database file (on PostgreSQL there is none to put them
// beside; see cmd/assistant's chatHistoryPath).
func TestChatInteractiveHistoryPerPerson(t *testing.T) {
	fake := &scriptedModel{t: t, answers: [][]string{answerOnce("Planned."), answerOnce("Kept to myself.")}}
	srv := httptest.NewServer(fake) // GET /v1/models: HTTP 400
	defer srv.Close()
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn" // no note about the local person made on first run
	db := filepath.Join(h.dir, "chat.db")
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"
	h.env["ASSISTANT_DB"] = db

	talk := func(line, answer string, args ...string) {
		t.Helper()
		s := h.interactive(append([]string{"chat"}, args...)...)
		n := s.waitForPrompt("Ctrl-D leaves.", 0)
		if line != "" {
			s.typeText(line + "\r")
			s.waitForPrompt(answer, n)
		}
		s.typeText("\x04") // Ctrl-D leaves
		if code := s.wait(); code != 0 {
			t.Fatalf("chat %v: want exit 0, got %d:\n%s", args, code, s.output())
		}
	}
	talk("plan my week", "Planned.")
	h.must("person", "add", "bob")
	talk("", "", "--person", "bob")
	talk("my secret", "Kept to myself.", "--person", "bob", "--no-history")

	files, _ := filepath.Glob(db + ".chat_history.*")
	if len(files) != 2 {
		t.Fatalf("want one history file per person who chatted with history, got %v", files)
	}
	var tester, bob string
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, fi.Mode().Perm())
		}
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), "plan my week") {
			tester = f
		} else {
			bob = string(b)
		}
	}
	if tester == "" {
		t.Errorf("no history holds the line typed: %v", files)
	}
	if strings.Contains(bob, "my secret") {
		t.Errorf("--no-history wrote the line typed: %q", bob)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "chat_history")); err == nil {
		t.Errorf("a shared chat_history file was written")
	}
	if n := len(fake.requests()); n != 2 {
		t.Errorf("want 2 chat requests, got %d", n)
	}
}
