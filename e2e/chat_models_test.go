//go:build linux

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// An interactive chat asks the server for its models once per start, for
// the check before the prompt and the choice of the model together; a
// server that answers GET /models with an error is not asked again, not
// even to name its models when it then refuses the model (404).
func TestChatAsksForTheModelsOncePerStart(t *testing.T) {
	storetest.Engines(t, testChatAsksForTheModelsOncePerStart)
}

func testChatAsksForTheModelsOncePerStart(t *testing.T) {
	for _, c := range []struct {
		name   string
		model  string
		listed []string // nil: GET /v1/models answers 400
		gone   bool     // the chat request answers 404: no such model
	}{
		{name: "named model, listed", model: "test-model", listed: []string{"test-model"}},
		{name: "no model named, listed", listed: []string{"test-model"}},
		{name: "named model, no list", model: "test-model"},
		{name: "no model named, no list"},
		{name: "unknown model, no list", model: "nosuch", gone: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var gets atomic.Int32
			fake := &scriptedModel{t: t, answers: [][]string{answerOnce("Hello.")}}
			var chat http.Handler = fake // answers 400 to GET /v1/models
			if c.gone {
				chat = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, `{"error":{"message":"model not found","type":"NotFoundError"}}`)
				})
			}
			models := chat
			if c.listed != nil {
				models = listing(chat, c.listed...)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/models" {
					gets.Add(1)
				}
				models.ServeHTTP(w, r)
			}))
			defer srv.Close()
			h := newHome(t)
			h.env["ASSISTANT_LOG"] = "warn"
			h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
			h.env["ASSISTANT_MODEL"] = c.model
			s := h.interactive("chat")
			n := s.waitForPrompt("Ctrl-D leaves.", 0)
			s.typeText("hi\r")
			want := 0
			if c.gone {
				s.waitFor("“nosuch”", n)
				want = 78
			} else {
				s.waitForPrompt("Hello.", n)
				s.typeText("\x04")
			}
			if code := s.wait(); code != want {
				t.Fatalf("want exit %d, got %d:\n%s", want, code, s.output())
			}
			if got := gets.Load(); got != 1 {
				t.Errorf("%d GET /v1/models in one start, want 1:\n%s", got, s.output())
			}
		})
	}
}
