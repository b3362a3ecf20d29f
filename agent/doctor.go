package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/assistant-dev/assistant/tools"
)

// What `assistant doctor` asks of a model server besides a chat request:
// the model list with the context sizes some servers add to it, one
// request with every tool, and the context window from the server's own
// endpoints (Ollama's /api/show and /api/ps, llama.cpp's /props).

// MaxInfoBody is the most of an answer the doctor's requests read, in
// bytes: an Ollama /api/show with its licence and template is tens of
// kilobytes, a model list of a large provider about a hundred. A longer
// answer is cut there and is then not read as JSON.
const MaxInfoBody = 4 << 20

// ServerModel is one entry of GET {base}/models: OpenAI's fields, and the
// context sizes llama.cpp's server and vLLM add to them.
type ServerModel struct {
	ID      string
	OwnedBy string
	// MaxModelLen is vLLM's max_model_len: the most tokens a request and
	// its answer may have together. 0 when the server did not say.
	MaxModelLen int
	// TrainContext is llama.cpp's meta.n_ctx_train: the context the model
	// was trained for, in tokens, the most -c can usefully give. 0 when the
	// server did not say.
	TrainContext int
}

// ListModels asks GET {base}/models, as Models does, and keeps the
// entries whole; the ids are kept for Models, ChooseModel and the
// sentence of an unknown model, so they ask no second time. timeout
// bounds the request; the answer is read up to MaxInfoBody.
//
// Errors are *Error: KindUnreachable when nothing answers, KindAuth for
// 401 and 403, KindUnavailable for a connection that failed or a timeout,
// KindProtocol for an answer that is not a model list, and for any other
// HTTP status KindRefused with that Status (many servers have no list;
// the chat goes on without one).
func (a *Agent) ListModels(ctx context.Context, timeout time.Duration) ([]ServerModel, error) {
	body, status, err := a.info(ctx, timeout, http.MethodGet, a.baseURL+"/models", nil)
	if err != nil {
		return nil, a.explain(err, 0, 1)
	}
	if status != http.StatusOK {
		e := a.explain(&statusError{status: status, body: body}, status, 1)
		if e.Kind != KindAuth {
			e = &Error{Kind: KindRefused, Status: status, Err: e.Err,
				Sentence: fmt.Sprintf("The model server at %s gave no model list (HTTP %d).", a.baseURL, status)}
		}
		a.keepList(nil, e)
		return nil, e
	}
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			OwnedBy     string `json:"owned_by"`
			MaxModelLen int    `json:"max_model_len"`
			Meta        struct {
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		e := &Error{Kind: KindProtocol, Err: err,
			Sentence: fmt.Sprintf("The answer of the model server at %s to GET /models is not a model list; check that the base URL points at an OpenAI-compatible /v1 endpoint.", a.baseURL)}
		a.keepList(nil, e)
		return nil, e
	}
	var models []ServerModel
	var ids []string
	for _, d := range list.Data {
		id := strings.TrimSpace(d.ID)
		if id == "" {
			continue
		}
		models = append(models, ServerModel{ID: id, OwnedBy: d.OwnedBy, MaxModelLen: d.MaxModelLen, TrainContext: d.Meta.NCtxTrain})
		ids = append(ids, id)
	}
	a.keepList(ids, nil)
	return models, nil
}

// keepList stores what GET /models gave, as Models does.
func (a *Agent) keepList(ids []string, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.models, a.listErr, a.listed = ids, err, true
}

// statusError is an HTTP answer other than 200 to one of the doctor's
// requests; body is the server's, cut to MaxInfoBody.
type statusError struct {
	status int
	body   []byte
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d", e.status) }

// message is the server's words in the body: OpenAI's error.message,
// Ollama's error, vLLM's message; "" when the body has none of them.
func (e *statusError) message() string {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(e.body, &b) != nil {
		return ""
	}
	var inner struct {
		Message string `json:"message"`
	}
	var text string
	switch {
	case json.Unmarshal(b.Error, &inner) == nil && inner.Message != "":
		text = inner.Message
	case json.Unmarshal(b.Error, &text) == nil:
	default:
		text = b.Message
	}
	text = strings.TrimSpace(text)
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return text
}

// info makes one request of the doctor's (not a chat completion) with the
// key, bounded by timeout, and reads at most MaxInfoBody of the answer.
// body, when not nil, is sent as JSON. err is the transport's; any HTTP
// answer is status and body.
func (a *Agent) info(ctx context.Context, timeout time.Duration, method, url string, body any) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+a.cfg.APIKey)
	}
	resp, err := a.doer.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxInfoBody))
	if err != nil {
		return nil, resp.StatusCode, err
	}
	return b, resp.StatusCode, nil
}

// root is the server's address without the /v1 of its OpenAI-compatible
// API: where Ollama's /api and llama.cpp's /props live.
func (a *Agent) root() string {
	return strings.TrimSuffix(a.baseURL, "/v1")
}

// ToolCheck is what one request with every tool brought back (CheckTools).
type ToolCheck struct {
	// RequestBytes is the size of the request's body, compact JSON, in
	// bytes: the system prompt, the message and every tool definition.
	RequestBytes int
	// PromptTokens is usage.prompt_tokens, the request as the server
	// counted it in tokens; 0 when it did not say.
	PromptTokens int
	// Called names the tools the model called, in order; none when it
	// answered in words.
	Called []string
	// Text is the text of the answer.
	Text string
	// Overflow reports that the server refused the request as longer than
	// its context (llama.cpp's exceed_context_size_error, vLLM's "maximum
	// context length"); OverflowTokens and OverflowWindow are the request's
	// tokens and the window as it gave them, 0 when it did not.
	Overflow                       bool
	OverflowTokens, OverflowWindow int
}

// CheckTools sends one request as the first step of a new conversation
// would (the system prompt, message, every tool; not streamed), with the
// agent's retries, and says how the model answered. It runs no tool.
// Bound it with ctx. The error is a Turn's (*Error, or ctx's); the
// ToolCheck holds RequestBytes even then, and Overflow when the server
// said the request did not fit.
func (a *Agent) CheckTools(ctx context.Context, message string) (ToolCheck, error) {
	req := a.chatRequest([]openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: message}})
	var check ToolCheck
	if b, err := json.Marshal(req); err == nil { // what go-openai sends
		check.RequestBytes = len(b)
	}
	resp, err := withRetries(ctx, a, func(ctx context.Context) (openai.ChatCompletionResponse, bool, error) {
		resp, err := a.client.CreateChatCompletion(ctx, req)
		if err != nil {
			return resp, false, err
		}
		if len(resp.Choices) == 0 {
			return resp, false, protocolError("The model server at %s answered without a message; check that it serves chat completions.", a.baseURL)
		}
		return resp, false, nil
	})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			check.Overflow, check.OverflowTokens, check.OverflowWindow = overflow(messageOf(e.Err))
		}
		return check, a.explainNotFound(ctx, err)
	}
	check.PromptTokens = resp.Usage.PromptTokens
	msg := resp.Choices[0].Message
	check.Text = strings.TrimSpace(msg.Content)
	for _, c := range msg.ToolCalls {
		check.Called = append(check.Called, c.Function.Name)
	}
	return check, nil
}

// Words of servers refusing a request longer than their context:
// llama.cpp's "request (5000 tokens) exceeds the available context size
// (4096 tokens), try increasing it" (older: "the request exceeds the
// available context size"), vLLM's "This model's maximum context length
// is 8192 tokens. However, you requested 9000 tokens …" (newer: "…
// However, your request has 9000 input tokens …").
var (
	llamaOverflow = regexp.MustCompile(`request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)`)
	vllmOverflow  = regexp.MustCompile(`maximum context length is (\d+) tokens\. However, (?:you requested|your request has) (\d+)`)
)

// overflow reads a server's refusal of a request longer than its context.
func overflow(msg string) (ok bool, tokens, window int) {
	if m := llamaOverflow.FindStringSubmatch(msg); m != nil {
		tokens, _ = strconv.Atoi(m[1])
		window, _ = strconv.Atoi(m[2])
		return true, tokens, window
	}
	if m := vllmOverflow.FindStringSubmatch(msg); m != nil {
		window, _ = strconv.Atoi(m[1])
		tokens, _ = strconv.Atoi(m[2])
		return true, tokens, window
	}
	l := strings.ToLower(msg)
	if strings.Contains(l, "exceeds the available context size") || strings.Contains(l, "exceed_context_size") ||
		strings.Contains(l, "maximum context length") {
		return true, 0, 0
	}
	return false, 0, 0
}

// Servers a Window can name.
const (
	ServerOllama   = "Ollama"
	ServerLlamaCpp = "llama.cpp"
	ServerVLLM     = "vLLM"
	ServerOpenAI   = "OpenAI"
)

// OllamaDefaultContext is the context Ollama gives a model when neither
// its Modelfile (num_ctx) nor OLLAMA_CONTEXT_LENGTH sets one: 4096 tokens
// since version 0.6 (2048 before; the newest versions give more on a GPU
// with 24 GiB or more). ContextWindow assumes it only when Ollama runs no
// copy of the model to ask.
const OllamaDefaultContext = 4096

// Window is what a server says of the context a chat request gets.
type Window struct {
	// Server is which server it is (ServerOllama, …), "" when unknown.
	Server string
	// Tokens is the context window a request gets, in tokens; 0 unknown.
	Tokens int
	// From says where Tokens was read, for a person: "ollama ps",
	// "num_ctx in the model's parameters", "n_ctx in /props", …
	From string
	// Assumed reports that Tokens is the server's default, not read from it.
	Assumed bool
	// Max is the most context the model takes (what it was trained for),
	// in tokens; 0 unknown.
	Max int
	// Tools is Ollama's word on the model's template: "yes" when its
	// capabilities list "tools", "no" when they do not, "" unknown.
	Tools string
}

// ContextWindow asks the server what context the model gets, from
// models (ListModels' answer, may be nil) and the server's own endpoints:
// vLLM's max_model_len; Ollama's /api/ps (the copy it runs now, which a
// CheckTools just before loaded) and /api/show (num_ctx in the model's
// parameters, the trained <arch>.context_length, the capabilities);
// llama.cpp's /props (n_ctx) and n_ctx_train. Each request is bounded by
// timeout; a server that says nothing gives a Window with Tokens 0.
func (a *Agent) ContextWindow(ctx context.Context, models []ServerModel, timeout time.Duration) Window {
	var entry ServerModel
	for _, m := range models {
		if hasModel([]string{m.ID}, a.cfg.Model) {
			entry = m
			break
		}
	}
	if entry.MaxModelLen > 0 {
		return Window{Server: ServerVLLM, Tokens: entry.MaxModelLen, From: "max_model_len in its model list"}
	}
	if a.isOpenAI() {
		return Window{Server: ServerOpenAI}
	}
	if entry.TrainContext == 0 && entry.OwnedBy != "llamacpp" {
		if w, ok := a.ollamaWindow(ctx, timeout); ok {
			return w
		}
	}
	w := Window{Max: entry.TrainContext}
	if w.Max > 0 || entry.OwnedBy == "llamacpp" {
		w.Server = ServerLlamaCpp
	}
	body, status, err := a.info(ctx, timeout, http.MethodGet, a.root()+"/props", nil)
	if err == nil && status == http.StatusOK {
		var props struct {
			Settings struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
		}
		if json.Unmarshal(body, &props) == nil && props.Settings.NCtx > 0 {
			w.Server, w.Tokens, w.From = ServerLlamaCpp, props.Settings.NCtx, "n_ctx in /props"
		}
	}
	return w
}

// ollamaWindow asks Ollama's own API; ok is false when the server is not
// Ollama (no /api/show answer of Ollama's shape).
func (a *Agent) ollamaWindow(ctx context.Context, timeout time.Duration) (Window, bool) {
	body, status, err := a.info(ctx, timeout, http.MethodPost, a.root()+"/api/show", map[string]string{"model": a.cfg.Model})
	if err != nil || status != http.StatusOK {
		return Window{}, false
	}
	var show struct {
		Parameters   string         `json:"parameters"`
		ModelInfo    map[string]any `json:"model_info"`
		Capabilities []string       `json:"capabilities"`
		Details      map[string]any `json:"details"`
	}
	if json.Unmarshal(body, &show) != nil || (show.ModelInfo == nil && show.Details == nil) {
		return Window{}, false
	}
	w := Window{Server: ServerOllama}
	if arch, _ := show.ModelInfo["general.architecture"].(string); arch != "" {
		if n, ok := show.ModelInfo[arch+".context_length"].(float64); ok {
			w.Max = int(n)
		}
	}
	if show.Capabilities != nil {
		w.Tools = "no"
		for _, c := range show.Capabilities {
			if c == "tools" {
				w.Tools = "yes"
			}
		}
	}
	if n := a.ollamaRunning(ctx, timeout); n > 0 {
		w.Tokens, w.From = n, "ollama ps"
		return w, true
	}
	for _, line := range strings.Split(show.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				w.Tokens, w.From = n, "num_ctx in the model's parameters"
				return w, true
			}
		}
	}
	w.Tokens, w.From, w.Assumed = OllamaDefaultContext, "Ollama's default", true
	return w, true
}

// ollamaRunning is the context of the copy of the model Ollama runs now
// (GET /api/ps, its context_length), 0 when it runs none or does not say.
func (a *Agent) ollamaRunning(ctx context.Context, timeout time.Duration) int {
	body, status, err := a.info(ctx, timeout, http.MethodGet, a.root()+"/api/ps", nil)
	if err != nil || status != http.StatusOK {
		return 0
	}
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if json.Unmarshal(body, &ps) != nil {
		return 0
	}
	for _, m := range ps.Models {
		if hasModel([]string{m.Name, m.Model}, a.cfg.Model) {
			return m.ContextLength
		}
	}
	return 0
}

// HasModel reports whether ids (a server's model list) hold name, as the
// chat reads it: Ollama lists a model pulled without a tag as
// "name:latest", which is what the bare name means.
func HasModel(ids []string, name string) bool { return hasModel(ids, name) }

// SimilarModels returns up to three of ids that look like name (another
// tag of it, one holding it, or a few letters apart), closest first, for
// a sentence about a model the server does not have.
func SimilarModels(ids []string, name string) []string {
	type cand struct {
		id   string
		dist int
	}
	want := strings.ToLower(name)
	base, _, _ := strings.Cut(want, ":")
	var cs []cand
	for _, id := range ids {
		if len(id) > 200 {
			continue // no model name is that long, and the distance costs len²
		}
		l := strings.ToLower(id)
		idBase, _, _ := strings.Cut(l, ":")
		d := tools.EditDistance(want, l)
		switch {
		case idBase == base:
			d = 0
		case strings.Contains(l, base) || strings.Contains(want, idBase):
			d = 1
		case d > max(2, len(want)/3):
			continue
		default:
			d++
		}
		cs = append(cs, cand{id, d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].dist < cs[j].dist })
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].id)
	}
	return out
}
