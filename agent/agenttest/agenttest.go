// Package agenttest is a scripted model server for tests of the chat's
// checks (`assistant doctor`): it answers GET /v1/models, POST
// /v1/chat/completions and the servers' own endpoints in the shapes
// OpenAI, Ollama, llama.cpp's server and vLLM use, and refuses what each
// refuses in its own words (a model without tool support, a server
// started without tool calls, a request longer than the context). No
// model runs: the answers are scripted, the token counts come from a
// stand-in tokenizer (Tokens). Only tests import it.
package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Kind is the server a Server answers as.
type Kind int

// Servers a Server can answer as.
const (
	OpenAI Kind = iota
	Ollama
	LlamaCpp
	VLLM
)

// Answer is how a Server answers a chat request.
type Answer int

// Answers of a Server's model.
const (
	// CallsTool: one call of the tool the user's message names ("Use the
	// list_tasks tool."), else of the first tool offered.
	CallsTool Answer = iota
	// Writes: text, no call, as a model whose template has no tools does.
	Writes
	// WritesCall: the call written out as text in the model's own markup,
	// which a server that does not parse calls hands on as it is.
	WritesCall
	// Refuses: the server's own refusal of tools: Ollama's 400 "… does not
	// support tools", llama.cpp's 500 "tools param requires --jinja flag",
	// vLLM's 400 asking for --enable-auto-tool-choice, OpenAI's 400.
	Refuses
)

// Server is a scripted model server. Set its fields, then Start it.
type Server struct {
	Kind   Kind
	Answer Answer
	// Models are listed at GET /v1/models; nil answers 404 there. A chat
	// request for a model not listed (when Models is not nil) gets the
	// server's 404, except llama.cpp's, which serves its one model
	// whatever the name.
	Models []string
	// Context is the window a request gets, in tokens: Ollama's running
	// context (GET /api/ps, once a chat request loaded the model),
	// llama.cpp's n_ctx (GET /props), vLLM's max_model_len; 0 leaves it
	// unsaid (and Ollama at its default, 4096). A longer request is cut
	// (Ollama: usage.prompt_tokens is the window) or refused (llama.cpp,
	// vLLM), each in its own words.
	Context int
	// NumCtx is Ollama's PARAMETER num_ctx in /api/show; 0: none.
	NumCtx int
	// Trained is the model's trained context: Ollama's
	// <arch>.context_length in /api/show, llama.cpp's meta.n_ctx_train.
	Trained int
	// Unloaded: Ollama's /api/ps lists nothing (keep_alive 0).
	Unloaded bool
	// Hangs: a chat request gets no answer until the client gives up, as
	// a model still loading.
	Hangs bool
	// Calls, when set, is the tool a CallsTool model calls whatever it
	// was asked for or offered, as a model reaching for a tool it knows.
	Calls string
	// Key, when set, is the only bearer key taken; any other is refused
	// with 401 and a message that repeats the key given, whole.
	Key string

	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
	loaded bool
}

// Tokens is the stand-in tokenizer: a third of the bytes of a request
// body, more than the doctor's estimate (a quarter), so a test can tell
// the server's count from the estimate.
func Tokens(body []byte) int { return len(body) / 3 }

// Start serves s until the test ends and returns its base URL, ending in
// /v1.
func (s *Server) Start(t testing.TB) string {
	t.Helper()
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s.srv.URL + "/v1"
}

// Chats returns the bodies of the chat requests received, in order.
func (s *Server) Chats() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// Paths returns "METHOD /path" of every request received, in order.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	if s.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.Key {
		given := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		writeJSON(w, http.StatusUnauthorized, `{"error":{"message":`+quote("Incorrect API key provided: "+given)+`,"type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.list(w)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r, body)
	case s.Kind == Ollama && r.Method == http.MethodPost && r.URL.Path == "/api/show":
		s.show(w, body)
	case s.Kind == Ollama && r.Method == http.MethodGet && r.URL.Path == "/api/ps":
		s.ps(w)
	case s.Kind == LlamaCpp && r.Method == http.MethodGet && r.URL.Path == "/props":
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"default_generation_settings":{"id":0,"id_task":-1,"n_ctx":%d,"speculative":false,"is_processing":false,"params":{"n_predict":-1,"temperature":0.8}},"total_slots":1,"model_path":"/models/model.gguf","chat_template":"{%%- if tools %%}…","build_info":"b5000-0123abcd"}`, s.context()))
	case s.Kind == Ollama:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "404 page not found")
	case s.Kind == LlamaCpp:
		writeJSON(w, http.StatusNotFound, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`)
	default:
		writeJSON(w, http.StatusNotFound, `{"detail":"Not Found"}`)
	}
}

// context is the window a request gets, with Ollama's default.
func (s *Server) context() int {
	if s.Kind == Ollama && s.Context == 0 {
		if s.NumCtx > 0 {
			return s.NumCtx
		}
		return 4096
	}
	return s.Context
}

func (s *Server) list(w http.ResponseWriter) {
	if s.Models == nil {
		writeJSON(w, http.StatusNotFound, `{"error":{"message":"Not found","type":"invalid_request_error"}}`)
		return
	}
	var data []string
	for _, id := range s.Models {
		switch s.Kind {
		case Ollama:
			data = append(data, fmt.Sprintf(`{"id":%s,"object":"model","created":1790000000,"owned_by":"library"}`, quote(id)))
		case LlamaCpp:
			data = append(data, fmt.Sprintf(`{"id":%s,"object":"model","created":1790000000,"owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":151936,"n_ctx_train":%d,"n_embd":3584,"n_params":7615616512,"size":4677120000}}`, quote(id), s.Trained))
		case VLLM:
			data = append(data, fmt.Sprintf(`{"id":%s,"object":"model","created":1790000000,"owned_by":"vllm","root":%s,"parent":null,"max_model_len":%d,"permission":[]}`, quote(id), quote(id), s.Context))
		default:
			data = append(data, fmt.Sprintf(`{"id":%s,"object":"model","created":1790000000,"owned_by":"system"}`, quote(id)))
		}
	}
	writeJSON(w, http.StatusOK, `{"object":"list","data":[`+strings.Join(data, ",")+`]}`)
}

// has reports whether the server has model (Ollama's bare name is
// name:latest).
func (s *Server) has(model string) bool {
	if s.Models == nil {
		return true
	}
	for _, id := range s.Models {
		if id == model || (!strings.Contains(model, ":") && id == model+":latest") {
			return true
		}
	}
	return false
}

func (s *Server) show(w http.ResponseWriter, body []byte) {
	var req struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &req)
	if !s.has(req.Model) {
		writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"error":"model '%s' not found"}`, req.Model))
		return
	}
	params := "stop                           \"<|im_start|>\"\nstop                           \"<|im_end|>\""
	if s.NumCtx > 0 {
		params = fmt.Sprintf("num_ctx                        %d\n", s.NumCtx) + params
	}
	caps := `["completion","tools"]`
	if s.Answer != CallsTool {
		caps = `["completion"]`
	}
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"license":"Apache License…","modelfile":"# Modelfile generated by \"ollama show\"\nFROM /models/blobs/sha256-2bada8a7\n","parameters":%s,"template":"{{- if .Messages }}…","details":{"parent_model":"","format":"gguf","family":"qwen2","families":["qwen2"],"parameter_size":"7.6B","quantization_level":"Q4_K_M"},"model_info":{"general.architecture":"qwen2","general.parameter_count":7615616512,"qwen2.block_count":28,"qwen2.context_length":%d,"qwen2.embedding_length":3584},"capabilities":%s,"modified_at":"2026-11-30T10:00:00+01:00"}`, quote(params), s.Trained, caps))
}

func (s *Server) ps(w http.ResponseWriter) {
	s.mu.Lock()
	loaded := s.loaded && !s.Unloaded
	s.mu.Unlock()
	if !loaded || len(s.Models) == 0 {
		writeJSON(w, http.StatusOK, `{"models":[]}`)
		return
	}
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"models":[{"name":%s,"model":%s,"size":6654289920,"digest":"845dbda0ea48ed749caafd9e6037047aa19acfcfd82e704d7ca97d631a0b697e","details":{"format":"gguf","family":"qwen2"},"expires_at":"2026-12-06T02:05:00+01:00","size_vram":6654289920,"context_length":%d}]}`, quote(s.Models[0]), quote(s.Models[0]), s.context()))
}

var namedTool = regexp.MustCompile(`Use the (\w+) tool`)

func (s *Server) chat(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, `{"error":{"message":"invalid JSON","type":"invalid_request_error"}}`)
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	if s.Hangs {
		<-r.Context().Done()
		return
	}
	if !s.has(req.Model) && s.Kind != LlamaCpp { // llama-server answers with its one model whatever the name
		switch s.Kind {
		case Ollama:
			writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"error":{"message":"model \"%s\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`, req.Model))
		default:
			writeJSON(w, http.StatusNotFound, fmt.Sprintf(`{"error":{"message":"The model '%s' does not exist","type":"NotFoundError","param":"model","code":404}}`, req.Model))
		}
		return
	}
	if s.Answer == Refuses && len(req.Tools) > 0 {
		switch s.Kind {
		case Ollama:
			writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"error":{"message":"registry.ollama.ai/library/%s does not support tools","type":"api_error","param":null,"code":null}}`, req.Model))
		case LlamaCpp:
			writeJSON(w, http.StatusInternalServerError, `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`)
		case VLLM:
			writeJSON(w, http.StatusBadRequest, `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`)
		default:
			writeJSON(w, http.StatusBadRequest, `{"error":{"message":"tools is not supported in this model.","type":"invalid_request_error","param":"tools","code":"unsupported_parameter"}}`)
		}
		return
	}
	tokens := Tokens(body)
	if window := s.context(); window > 0 && tokens > window {
		switch s.Kind {
		case Ollama:
			tokens = window // it drops the start of the prompt without a word
		case LlamaCpp:
			writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"error":{"code":400,"message":"request (%d tokens) exceeds the available context size (%d tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":%d,"n_ctx":%d}}`, tokens, window, tokens, window))
			return
		case VLLM:
			writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"object":"error","message":"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, 0 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, window, tokens, tokens))
			return
		}
	}
	s.mu.Lock()
	s.loaded = true
	s.mu.Unlock()
	tool := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			if g := namedTool.FindStringSubmatch(m.Content); g != nil {
				tool = g[1]
			}
		}
	}
	if tool == "" && len(req.Tools) > 0 {
		tool = req.Tools[0].Function.Name
	}
	if s.Calls != "" {
		tool = s.Calls
	}
	usage := fmt.Sprintf(`"usage":{"prompt_tokens":%d,"completion_tokens":18,"total_tokens":%d}`, tokens, tokens+18)
	var message, finish string
	switch {
	case s.Answer == CallsTool && tool != "":
		message = fmt.Sprintf(`{"role":"assistant","content":"","tool_calls":[{"id":"call_k3f9","index":0,"type":"function","function":{"name":%s,"arguments":"{}"}}]}`, quote(tool))
		finish = "tool_calls"
	case s.Answer == WritesCall:
		message = `{"role":"assistant","content":` + quote(`<tool_call>{"name": "`+tool+`", "arguments": {}}</tool_call>`) + `}`
		finish = "stop"
	default:
		message = `{"role":"assistant","content":"I cannot see your list, but I can help you plan your day."}`
		finish = "stop"
	}
	writeJSON(w, http.StatusOK, fmt.Sprintf(`{"id":"chatcmpl-413","object":"chat.completion","created":1790000000,"model":%s,"system_fingerprint":"fp_test","choices":[{"index":0,"message":%s,"finish_reason":%q}],%s}`, quote(req.Model), message, finish, usage))
}
