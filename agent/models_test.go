package agent

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A base URL without http:// or https:// is refused by New at once with
// the setup exit code, before any request could be retried in vain.
func TestBaseURLRefused(t *testing.T) {
	cases := []struct {
		raw  string
		says []string
	}{
		{"localhost:9901", []string{"“localhost:9901”", "http:// or https://", "http://localhost:9901/v1", "--base-url", "OPENAI_BASE_URL"}},
		{"127.0.0.1:8080/v1", []string{"“127.0.0.1:8080/v1”", "http://127.0.0.1:8080/v1;"}},
		{"ftp://models.example/v1", []string{"“ftp://models.example/v1”", "http://localhost:8080/v1"}},
		{"http://", []string{"“http://”", "http:// or https://"}},
		{"http://bad host/v1", []string{"“http://bad host/v1”"}},
	}
	for _, c := range cases {
		t.Run(c.raw, func(t *testing.T) {
			e := newEnv(t, false)
			e.cfg.BaseURL = c.raw
			a, err := New(e.cfg)
			var ae *Error
			if a != nil || !errors.As(err, &ae) || ae.Kind != KindSetup {
				t.Fatalf("New(%q) = %v, %v; want a KindSetup error", c.raw, a, err)
			}
			if ExitCode(err) != ExitConfig {
				t.Errorf("exit code %d, want %d", ExitCode(err), ExitConfig)
			}
			if strings.Count(ae.Sentence, ". ") > 0 || !strings.HasSuffix(ae.Sentence, ".") {
				t.Errorf("not one sentence: %q", ae.Sentence)
			}
			for _, s := range c.says {
				if !strings.Contains(ae.Sentence, s) {
					t.Errorf("%q does not say %q", ae.Sentence, s)
				}
			}
		})
	}
	for _, ok := range []string{"http://localhost:9901/v1", "https://api.example.org/v1/", "http://[::1]:8080/v1"} {
		e := newEnv(t, false)
		e.cfg.BaseURL = ok
		if _, err := New(e.cfg); err != nil {
			t.Errorf("New(%q): %v", ok, err)
		}
	}
}

// redirect is an HTTP client that sends every request to addr whatever
// its URL says, so the default Ollama URL can be tested against a fake.
func redirect(addr string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}}}
}

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// With no model named, a server that is not OpenAI's is asked for its
// models: one is used, the first of several is used and named, and with
// no list the default stays. A named model is never looked up.
func TestChooseModel(t *testing.T) {
	cases := []struct {
		name      string
		model     string   // Config.Model
		listed    []string // nil: GET /models answers 404
		want      string
		wantNote  []string
		wantLists int
	}{
		{name: "one model", listed: []string{"Qwen/Qwen2.5-7B-Instruct"}, want: "Qwen/Qwen2.5-7B-Instruct", wantLists: 1},
		{name: "several", listed: []string{"qwen3:8b", "llama3.1:latest", "mistral-nemo:latest"}, want: "qwen3:8b", wantLists: 1,
			wantNote: []string{"“qwen3:8b”", "first of the 3", "(llama3.1:latest, mistral-nemo:latest)", "--model", "ASSISTANT_MODEL"}},
		{name: "empty list", listed: []string{}, want: DefaultOpenAIModel, wantLists: 1},
		{name: "no /models endpoint", want: DefaultOpenAIModel, wantLists: 1},
		{name: "named", model: "mine", listed: []string{"other"}, want: "mine"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, false, textReply("hi"))
			if c.listed != nil {
				e.fake.listModels(c.listed...)
			}
			e.cfg.Model = c.model
			e.build(t)
			note, err := e.agent.ChooseModel(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if e.agent.Model() != c.want {
				t.Errorf("model %q, want %q", e.agent.Model(), c.want)
			}
			if got := e.fake.modelGets(); got != c.wantLists {
				t.Errorf("%d GET /models, want %d", got, c.wantLists)
			}
			if len(c.wantNote) == 0 && note != "" {
				t.Errorf("note %q, want none", note)
			}
			for _, s := range c.wantNote {
				if !strings.Contains(note, s) {
					t.Errorf("note %q does not say %q", note, s)
				}
			}
			if _, err := e.agent.Turn(context.Background(), NewMemory(), "hello"); err != nil {
				t.Fatal(err)
			}
			if got := e.fake.requests()[0].req.Model; got != c.want {
				t.Errorf("the chat request named %q, want %q", got, c.want)
			}
		})
	}

	// OpenAI's list is not a list of chat models: nothing is asked.
	e := newEnv(t, false)
	e.cfg.BaseURL, e.cfg.Model = OpenAIURL, ""
	e.cfg.HTTPClient = doerFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("a request was made to OpenAI: %s %s", r.Method, r.URL)
		return nil, errors.New("no network in tests")
	})
	e.build(t)
	if note, err := e.agent.ChooseModel(context.Background()); err != nil || note != "" || e.agent.Model() != DefaultOpenAIModel {
		t.Errorf("OpenAI: note %q, err %v, model %q", note, err, e.agent.Model())
	}
}

// A 404 for an unknown model names the models the server lists and
// ASSISTANT_MODEL; without a list the sentence stays the general one.
func TestUnknownModelNamesTheListed(t *testing.T) {
	e := newEnv(t, false, errorReply(404, "invalid_request_error", "The model `nosuch` does not exist."))
	e.fake.listModels("llama-3.1-8b", "qwen2.5-7b")
	e.cfg.Model = "nosuch"
	e.build(t)
	_, err := e.agent.Turn(context.Background(), NewMemory(), "hello")
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindNotFound || ExitCode(err) != ExitConfig {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{"“nosuch”", "llama-3.1-8b, qwen2.5-7b", "ASSISTANT_MODEL", e.fake.url()} {
		if !strings.Contains(ae.Sentence, s) {
			t.Errorf("%q does not say %q", ae.Sentence, s)
		}
	}
	if strings.Count(ae.Sentence, ". ") > 0 || !strings.HasSuffix(ae.Sentence, ".") {
		t.Errorf("not one sentence: %q", ae.Sentence)
	}
	if e.fake.modelGets() != 1 || len(e.fake.requests()) != 1 {
		t.Errorf("%d GET /models and %d chat requests, want 1 and 1", e.fake.modelGets(), len(e.fake.requests()))
	}
}

// Probe fails at once when nothing listens at a local address, with the
// sentence a Turn gives; the default Ollama without the default model
// says to pull it; any HTTP answer lets the chat go on.
func TestProbe(t *testing.T) {
	closed := closedAddr(t)
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io := `{"error":{"message":"Missing bearer token","type":"invalid_request_error"}}`
		w.Write([]byte(io))
	}))
	defer unauthorized.Close()

	withList := func(ids ...string) func(*env) {
		return func(e *env) { e.fake.listModels(ids...) }
	}
	cases := []struct {
		name     string
		base     string // "" : the default Ollama, reached through redirect(dial)
		dial     string // "" : the fake server
		setup    func(*env)
		wantKind Kind
		says     []string
	}{
		{name: "nothing at a local address", base: "http://" + closed + "/v1", wantKind: KindUnreachable,
			says: []string{"Nothing answers at http://" + closed + "/v1", "OPENAI_BASE_URL"}},
		{name: "no Ollama", dial: closed, wantKind: KindUnreachable, says: []string{"`ollama serve`", "`ollama pull qwen2.5`"}},
		{name: "Ollama without the model", setup: withList("llama3.1:latest"), wantKind: KindNotFound,
			says: []string{"“qwen2.5”", "`ollama pull qwen2.5`", "llama3.1:latest", "ASSISTANT_MODEL"}},
		{name: "Ollama with nothing pulled", setup: withList(), wantKind: KindNotFound, says: []string{"`ollama pull qwen2.5`", "lists no models"}},
		{name: "Ollama with the model", setup: withList("qwen2.5:latest", "llama3.1:latest")},
		{name: "a server without /models", base: "fake"},
		{name: "a server wanting a key for /models", base: unauthorized.URL + "/v1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, true)
			if c.setup != nil {
				c.setup(e)
			}
			e.cfg.Model, e.cfg.MaxRetries = "", -1
			switch c.base {
			case "":
				dial := c.dial
				if dial == "" {
					dial = strings.TrimPrefix(e.fake.srv.URL, "http://")
				}
				e.cfg.BaseURL, e.cfg.HTTPClient = "", redirect(dial)
			case "fake":
				e.cfg.Model = "test-model"
			default:
				e.cfg.BaseURL = c.base
			}
			e.build(t)
			note, err := e.agent.Probe(context.Background())
			if c.wantKind == 0 {
				if err != nil || note != "" {
					t.Fatalf("Probe: note %q, err %v; want the chat to go on", note, err)
				}
				return
			}
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind != c.wantKind {
				t.Fatalf("Probe: err %v, want kind %d", err, c.wantKind)
			}
			for _, s := range c.says {
				if !strings.Contains(ae.Sentence, s) {
					t.Errorf("%q does not say %q", ae.Sentence, s)
				}
			}
			if strings.Count(ae.Sentence, ". ") > 0 || !strings.HasSuffix(ae.Sentence, ".") {
				t.Errorf("not one sentence: %q", ae.Sentence)
			}
			if c.wantKind == KindUnreachable {
				// The same advice as the first message would have given.
				_, terr := e.agent.Turn(context.Background(), NewMemory(), "hello")
				if terr == nil || terr.Error() != ae.Sentence {
					t.Errorf("Turn says %v, Probe says %q", terr, ae.Sentence)
				}
			}
		})
	}
}
