package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// chat -m names the conversation it used on standard error; --list shows
// the person's conversations, newest first, with times in their zone;
// --conversation with a listed id resumes that one.
func TestChatListAndConversationIDs(t *testing.T) {
	storetest.Engines(t, testChatListAndConversationIDs)
}

func testChatListAndConversationIDs(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn" // no note about the local person made on first run
	r := h.must("chat", "--list")
	if r.stdout != "No conversations yet; `assistant chat` starts one.\n" || r.stderr != "" {
		t.Fatalf("empty list: %s", r)
	}

	fake := &scriptedModel{t: t, answers: [][]string{answerOnce("Week planned."), answerOnce("Milk noted."), answerOnce("Next week is free.")}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"

	r = h.must("chat", "-m", "plan my week\nwith care")
	if r.stderr != "conversation 1\n" || r.stdout != "Week planned.\n" {
		t.Fatalf("first message: %s", r)
	}
	h.env["ASSISTANT_NOW"] = "2026-10-05T10:30:00+02:00"
	r = h.runIn("note milk", "chat", "--new")
	if r.code != 0 || r.stderr != "conversation 2\n" {
		t.Fatalf("piped message in a new conversation: %s", r)
	}

	r = h.must("chat", "--list")
	want := strings.Join([]string{
		"ID  STARTED               LAST MESSAGE          MESSAGES  FIRST LINE",
		"2   Mon 2026-10-05 10:30  Mon 2026-10-05 10:30  2         note milk",
		"1   Mon 2026-10-05 09:00  Mon 2026-10-05 09:00  2         plan my week",
		"Times in Europe/Paris. Resume one with `assistant chat --conversation ID`.",
		""}, "\n")
	if r.stdout != want {
		t.Errorf("--list stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	if len(fake.requests()) != 2 {
		t.Errorf("--list asked the model server: %d requests", len(fake.requests()))
	}

	// The README's --conversation ID resumes the one listed.
	r = h.must("chat", "--conversation", "1", "-m", "and next week?")
	if r.stderr != "conversation 1\n" {
		t.Errorf("resumed: %s", r)
	}
	reqs := fake.requests()
	msgs, _ := reqs[2]["messages"].([]any)
	if len(msgs) != 4 || !strings.Contains(fmt.Sprint(msgs[1]), "plan my week") {
		t.Errorf("conversation 1 was not resumed: %v", msgs)
	}

	for _, args := range [][]string{{"chat", "--list", "-m", "hi"}, {"chat", "--list", "--new"}, {"chat", "--list", "--conversation", "1"}} {
		if r := h.run(args...); r.code != 2 || !strings.Contains(r.stderr, "--list") {
			t.Errorf("%v: want exit 2 naming --list, got %s", args, r)
		}
	}
	// Another person sees none of them.
	h.must("person", "add", "bob")
	if r := h.must("chat", "--list", "--person", "bob"); !strings.HasPrefix(r.stdout, "No conversations yet") {
		t.Errorf("bob's list: %s", r)
	}
}

// A proxy that answers the streamed request with one whole JSON chat
// completion still gets its answer shown.
func TestChatWholeJSONAnswer(t *testing.T) { storetest.Engines(t, testChatWholeJSONAnswer) }

func testChatWholeJSONAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"chatcmpl-p","object":"chat.completion","created":1791190800,"model":"test-model",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":"Nothing is planned."},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn"
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"
	r := h.must("chat", "-m", "what is planned?")
	if r.stdout != "Nothing is planned.\n" {
		t.Errorf("stdout %q, want the whole answer", r.stdout)
	}
}
