package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// listing serves GET /v1/models with ids, as OpenAI-compatible servers
// list their models, and hands every other request to chat.
func listing(chat http.Handler, ids ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			chat.ServeHTTP(w, r)
			return
		}
		var data []map[string]any
		for _, id := range ids {
			data = append(data, map[string]any{"id": id, "object": "model", "created": 1791190800, "owned_by": "test"})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	})
}

// answerOnce is a scripted stream answering one message with text.
func answerOnce(text string) []string {
	c, _ := json.Marshal(text)
	return []string{sseChunk(`{"role":"assistant","content":`+string(c)+`}`, ""), sseChunk(`{}`, "stop")}
}

// A base URL without http:// is refused at once with the setup code, not
// retried for seconds as a connection failure.
func TestChatBaseURLWithoutSchemeFailsAtOnce(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn" // no note about the local person made on first run
	for _, c := range []struct{ flag, env string }{{flag: "localhost:9901"}, {env: "localhost:9901"}} {
		args := []string{"chat", "-m", "hi"}
		if c.flag != "" {
			args = append(args, "--base-url", c.flag)
		}
		h.env["OPENAI_BASE_URL"] = c.env
		r := h.run(args...)
		if r.code != 78 {
			t.Fatalf("%v with OPENAI_BASE_URL=%q: want exit 78, got %s", args, c.env, r)
		}
		want := "assistant: The base URL “localhost:9901” must start with http:// or https://, such as http://localhost:9901/v1; fix --base-url or OPENAI_BASE_URL.\n"
		if r.stderr != want {
			t.Errorf("stderr = %q, want only %q", r.stderr, want)
		}
	}
}

// --max-steps outside 1 to 100 is a wrong value (exit 1) named in the
// sentence; nothing is sent.
func TestChatMaxStepsOutOfRange(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "warn" // no note about the local person made on first run
	h.env["OPENAI_BASE_URL"] = "http://" + closedAddr(t) + "/v1"
	for _, v := range []string{"0", "-5", "101", "100000"} {
		r := h.run("chat", "--max-steps="+v, "-m", "hi")
		want := fmt.Sprintf("assistant: “--max-steps” must be a number from 1 to 100, not “%s”\n", v)
		if r.code != 1 || r.stderr != want {
			t.Errorf("--max-steps=%s: want exit 1 and %q, got %s", v, want, r)
		}
	}
}

// closedAddr returns a loopback address on which nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// With no model named, the one the server lists is used; of several the
// first is used and named on standard error; a named model the server
// does not know gets a sentence listing those it has.
func TestChatTakesTheModelTheServerLists(t *testing.T) {
	storetest.Engines(t, testChatTakesTheModelTheServerLists)
}

func testChatTakesTheModelTheServerLists(t *testing.T) {
	cases := []struct {
		name      string
		model     string // ASSISTANT_MODEL
		listed    []string
		want      string // the model the chat request names
		wantNote  string // on standard error
		wantCode  int
		wantError []string
	}{
		{name: "one", listed: []string{"Qwen/Qwen2.5-7B-Instruct"}, want: "Qwen/Qwen2.5-7B-Instruct"},
		{name: "several", listed: []string{"qwen3-8b", "llama-3.1-8b"}, want: "qwen3-8b",
			wantNote: "Using the model “qwen3-8b”, the first of the 2 the server at %s lists (llama-3.1-8b); name another with --model or ASSISTANT_MODEL.\n"},
		{name: "unknown named model", model: "gpt-4.1-mini", listed: []string{"qwen3-8b", "llama-3.1-8b"}, wantCode: 78,
			wantError: []string{"“gpt-4.1-mini”", "qwen3-8b, llama-3.1-8b", "ASSISTANT_MODEL"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := &scriptedModel{t: t, answers: [][]string{answerOnce("Hello.")}}
			var chat http.Handler = fake
			if c.wantCode != 0 {
				chat = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, `{"error":{"message":"The model `+"`gpt-4.1-mini`"+` does not exist.","type":"NotFoundError","param":null,"code":404}}`)
				})
			}
			srv := httptest.NewServer(listing(chat, c.listed...))
			defer srv.Close()
			h := newHome(t)
			h.env["ASSISTANT_LOG"] = "warn" // no note about the local person made on first run
			h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
			h.env["ASSISTANT_MODEL"] = c.model
			r := h.run("chat", "-m", "hi")
			if r.code != c.wantCode {
				t.Fatalf("want exit %d, got %s", c.wantCode, r)
			}
			for _, s := range c.wantError {
				if !strings.Contains(r.stderr, s) || strings.Count(r.stderr, "\n") != 1 {
					t.Errorf("stderr is not one line saying %q: %q", s, r.stderr)
				}
			}
			if c.wantCode != 0 {
				return
			}
			// The note on the model, then the conversation the message went to.
			if want := strings.ReplaceAll(c.wantNote, "%s", srv.URL+"/v1") + "conversation 1\n"; r.stderr != want {
				t.Errorf("stderr = %q, want %q", r.stderr, want)
			}
			reqs := fake.requests()
			if len(reqs) != 1 || reqs[0]["model"] != c.want {
				t.Errorf("want one request for %q, got %d (%v)", c.want, len(reqs), reqs)
			}
		})
	}
}
