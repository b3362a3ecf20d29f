package agent

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/agent/agenttest"
)

func TestSimilarModels(t *testing.T) {
	ids := []string{"qwen2.5:7b", "qwen2.5-coder:7b", "llama3.1:8b", "mistral-nemo:latest", "qwen3:8b", "phi3:latest"}
	cases := []struct {
		name string
		want []string
	}{
		{"qwen2.5", []string{"qwen2.5:7b", "qwen2.5-coder:7b"}},
		{"qwen3", []string{"qwen3:8b"}},
		{"llama3.1", []string{"llama3.1:8b"}},
		{"lama3.1:8b", []string{"llama3.1:8b"}},
		{"mistral-nemo", []string{"mistral-nemo:latest"}},
		{"gpt-4.1-mini", nil},
	}
	for _, c := range cases {
		if got := SimilarModels(ids, c.name); !slices.Equal(got, c.want) {
			t.Errorf("SimilarModels(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// The servers' words for a request longer than the context are read with
// their numbers; other refusals are not taken for one.
func TestOverflow(t *testing.T) {
	cases := []struct {
		msg            string
		ok             bool
		tokens, window int
	}{
		{"request (5012 tokens) exceeds the available context size (4096 tokens), try increasing it", true, 5012, 4096},
		{"the request exceeds the available context size, try increasing it", true, 0, 0},
		{"This model's maximum context length is 8192 tokens. However, you requested 9100 tokens (9100 in the messages, 0 in the completion). Please reduce the length of the messages or completion.", true, 9100, 8192},
		{"This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.", true, 5000, 4096},
		{"registry.ollama.ai/library/gemma3:4b does not support tools", false, 0, 0},
		{"tools param requires --jinja flag", false, 0, 0},
	}
	for _, c := range cases {
		ok, tokens, window := overflow(c.msg)
		if ok != c.ok || tokens != c.tokens || window != c.window {
			t.Errorf("overflow(%q) = %v, %d, %d; want %v, %d, %d", c.msg, ok, tokens, window, c.ok, c.tokens, c.window)
		}
	}
}

// CheckTools sends the first step of a chat, not streamed, says the size
// the server received and the server's count, and reads an overflow.
func TestCheckTools(t *testing.T) {
	srv := &agenttest.Server{Kind: agenttest.LlamaCpp, Models: []string{"m.gguf"}, Context: 100000}
	e := newEnv(t, false)
	e.cfg.BaseURL = srv.Start(t)
	e.cfg.Model = "m.gguf"
	a, err := New(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	check, err := a.CheckTools(context.Background(), "What is on my list? Use the list_notes tool.")
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Chats()[0]
	if check.RequestBytes != len(body) || check.PromptTokens != agenttest.Tokens(body) || !slices.Equal(check.Called, []string{"list_notes"}) {
		t.Errorf("check = %+v; the server got %d bytes, counted %d tokens, was asked for list_notes", check, len(body), agenttest.Tokens(body))
	}

	srv.Context = 100
	check, err = a.CheckTools(context.Background(), "What is on my list?")
	var ae *Error
	if !errors.As(err, &ae) || ae.Kind != KindRefused || !check.Overflow || check.OverflowWindow != 100 || check.OverflowTokens != agenttest.Tokens(srv.Chats()[1]) {
		t.Errorf("a request longer than the context: %+v, %v", check, err)
	}
}

// ContextWindow reads each server's own word on the context, and says
// nothing for a server that gives none.
func TestContextWindow(t *testing.T) {
	cases := []struct {
		name string
		srv  *agenttest.Server
		chat bool // a chat request first (Ollama then runs the model)
		want Window
	}{
		{"ollama running", &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"m:latest"}, Context: 8192, Trained: 32768}, true,
			Window{Server: ServerOllama, Tokens: 8192, From: "ollama ps", Max: 32768, Tools: "yes"}},
		{"ollama num_ctx, not running", &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"m:latest"}, NumCtx: 6144, Trained: 32768}, false,
			Window{Server: ServerOllama, Tokens: 6144, From: "num_ctx in the model's parameters", Max: 32768, Tools: "yes"}},
		{"ollama default", &agenttest.Server{Kind: agenttest.Ollama, Models: []string{"m:latest"}, Trained: 2048, Answer: agenttest.Writes}, false,
			Window{Server: ServerOllama, Tokens: OllamaDefaultContext, From: "Ollama's default", Assumed: true, Max: 2048, Tools: "no"}},
		{"llama.cpp", &agenttest.Server{Kind: agenttest.LlamaCpp, Models: []string{"m"}, Context: 4096, Trained: 32768}, false,
			Window{Server: ServerLlamaCpp, Tokens: 4096, From: "n_ctx in /props", Max: 32768}},
		{"vLLM", &agenttest.Server{Kind: agenttest.VLLM, Models: []string{"m"}, Context: 16384}, false,
			Window{Server: ServerVLLM, Tokens: 16384, From: "max_model_len in its model list"}},
		{"says nothing", &agenttest.Server{Kind: agenttest.OpenAI, Models: []string{"m"}}, false, Window{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, false)
			e.cfg.BaseURL = c.srv.Start(t)
			e.cfg.Model = "m"
			a, err := New(e.cfg)
			if err != nil {
				t.Fatal(err)
			}
			models, err := a.ListModels(context.Background(), time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if c.chat {
				if _, err := a.CheckTools(context.Background(), "hi"); err != nil {
					t.Fatal(err)
				}
			}
			if got := a.ContextWindow(context.Background(), models, time.Minute); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
