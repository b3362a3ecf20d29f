// Package agent is the chat front: it runs a conversation with any
// OpenAI-compatible Chat Completions server (OpenAI, Ollama, llama.cpp's
// server, vLLM) and lets the model work on the person's tasks and calendar
// through the tools of a [tools.Registry] (docs/design.md, "Fronts").
//
// One Turn sends the person's message with the history and every tool,
// runs the tool calls the model makes (parallel ones too, in order) through
// Registry.Call, sends the results back, and repeats until the model
// answers in words or the step limit is reached. Text streams to
// Config.Out as it comes, with one line per tool call. Each finished step
// is appended to the Conversation at once, so a cancelled or failed turn
// keeps what it did and never leaves a tool call unanswered.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/assistant-dev/assistant/tools"
)

// Endpoint defaults.
const (
	// OllamaURL is where a local Ollama serves its OpenAI-compatible API;
	// used when neither a key nor a base URL is given.
	OllamaURL = "http://localhost:11434/v1"
	// OpenAIURL is OpenAI's API; used when a key is given without a base URL.
	OpenAIURL = "https://api.openai.com/v1"
	// DefaultOllamaModel is the model used on a local Ollama when none is
	// named: small, and trained for tool calls.
	DefaultOllamaModel = "qwen2.5"
	// DefaultOpenAIModel is the model used on OpenAI when none is named.
	DefaultOpenAIModel = "gpt-4.1-mini"
)

// Defaults of Config's numbers.
const (
	DefaultMaxSteps      = 12
	DefaultHistoryBudget = 60000 // characters, about 15,000 tokens
	DefaultMaxRetries    = 4
	DefaultRetryBase     = 500 * time.Millisecond
	DefaultMaxRetryWait  = time.Minute
)

// Config sets up an Agent. Registry and Context are required; every other
// field has a default.
type Config struct {
	// BaseURL is the server's OpenAI-compatible root, ending in /v1
	// ("http://localhost:8080/v1"). Empty: OpenAIURL when APIKey is set,
	// else OllamaURL.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer …"; empty sends no
	// Authorization header at all (local servers need none).
	APIKey string
	// Model is the model name the server knows ("gpt-4.1-mini",
	// "qwen2.5:7b"). Empty: DefaultOllamaModel on Ollama, else
	// DefaultOpenAIModel, unless ChooseModel or Probe takes it from the
	// server's list.
	Model string

	// Registry holds the tools offered to the model, each with its schema.
	Registry *tools.Registry
	// Context is the host's ToolContext for every call: it must hold a
	// tools.Person (id, name, IANA zone), and usually a tools.Clock and the
	// store. The system prompt takes the person's name and zone and the
	// clock's now from it.
	Context *tools.ToolContext

	// MaxSteps is the most model requests one turn makes (default 12;
	// fronts keep it within 1 to MaxStepsLimit); at the limit the turn
	// ends with an answer saying so.
	MaxSteps int
	// HistoryBudget is the most history sent with a request, in units of
	// Measure (default 60000 characters). Older turns are dropped from what
	// is sent, whole; the conversation itself keeps them.
	HistoryBudget int
	// Measure sizes a text for HistoryBudget; nil counts characters. Set a
	// tokenizer's count to budget in tokens.
	Measure func(string) int

	// HTTPClient sends the requests; nil uses a plain *http.Client (no
	// overall timeout: a local model may take minutes to load; cancel the
	// context instead).
	HTTPClient HTTPDoer
	// Stream asks for server-sent events, so text shows as it is written.
	Stream bool
	// Out receives the answer's text (streamed, or whole when not
	// streaming) and one line per tool call; nil discards.
	Out io.Writer
	// Log receives requests, retries and tool calls at Debug and Warn; nil
	// discards.
	Log *slog.Logger

	// MaxRetries is how many times a request failing with 408, 409, 429,
	// 5xx or a connection error is retried (default 4; negative: never).
	MaxRetries int
	// RetryBase is the first backoff interval (default 500ms); each retry
	// doubles it, with ±50% jitter. Tests set it small.
	RetryBase time.Duration
	// MaxRetryWait is the longest Retry-After honoured (default 1 minute);
	// a server asking for more ends the turn with a sentence instead.
	MaxRetryWait time.Duration
}

// ConfigFromEnv returns a Config with BaseURL, APIKey and Model read from
// OPENAI_BASE_URL, OPENAI_API_KEY and ASSISTANT_MODEL through getenv
// (os.Getenv in the binary). Flags override the fields afterwards.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{
		BaseURL: strings.TrimSpace(getenv("OPENAI_BASE_URL")),
		APIKey:  strings.TrimSpace(getenv("OPENAI_API_KEY")),
		Model:   strings.TrimSpace(getenv("ASSISTANT_MODEL")),
	}
}

// Agent runs turns of a chat. It holds no conversation state, so one Agent
// serves any number of conversations, one turn at a time each.
type Agent struct {
	cfg     Config
	client  *openai.Client
	doer    HTTPDoer // the caller's HTTP client, for the requests go-openai does not make (see doctor.go)
	tools   []openai.Tool
	person  tools.Person
	baseURL string
	local   bool // the default local Ollama: errors say how to start it
	named   bool // Config.Model was given, so it is never taken from the server's list
	undo    bool // the registry has the undo tool
	log     *slog.Logger

	mu      sync.Mutex
	models  []string // the server's GET /models answer, once listed
	listErr error    // why GET /models failed, once it did
	listed  bool     // GET /models was asked (models or listErr holds the answer)
}

// New checks cfg, fills in its defaults and returns an Agent. It fails
// when the Registry or the Context is missing or the Context holds no
// tools.Person, and with an *Error of KindSetup (exit 78) when BaseURL is
// not an http:// or https:// URL with a host, which no retry could mend.
// It makes no request: a server that does not answer is found by Probe or
// the first Turn.
func New(cfg Config) (*Agent, error) {
	if cfg.Registry == nil {
		return nil, errors.New("agent: Config.Registry is nil: give the registry of tools to offer")
	}
	if cfg.Context == nil {
		return nil, errors.New("agent: Config.Context is nil: give the ToolContext with the person, clock and store")
	}
	person, err := tools.PersonOf(cfg.Context)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	a := &Agent{cfg: cfg, person: person}
	a.baseURL = strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if a.baseURL == "" {
		if cfg.APIKey == "" {
			a.baseURL, a.local = OllamaURL, true
		} else {
			a.baseURL = OpenAIURL
		}
	}
	if raw := strings.TrimSpace(cfg.BaseURL); raw != "" {
		if err := checkBaseURL(raw); err != nil {
			return nil, err
		}
	}
	a.cfg.Model = strings.TrimSpace(a.cfg.Model)
	a.named = a.cfg.Model != ""
	if a.cfg.Model == "" {
		if a.local {
			a.cfg.Model = DefaultOllamaModel
		} else {
			a.cfg.Model = DefaultOpenAIModel
		}
	}
	if a.cfg.MaxSteps <= 0 {
		a.cfg.MaxSteps = DefaultMaxSteps
	}
	if a.cfg.HistoryBudget <= 0 {
		a.cfg.HistoryBudget = DefaultHistoryBudget
	}
	if a.cfg.Measure == nil {
		a.cfg.Measure = countRunes
	}
	switch {
	case a.cfg.MaxRetries == 0:
		a.cfg.MaxRetries = DefaultMaxRetries
	case a.cfg.MaxRetries < 0:
		a.cfg.MaxRetries = 0
	}
	if a.cfg.RetryBase <= 0 {
		a.cfg.RetryBase = DefaultRetryBase
	}
	if a.cfg.MaxRetryWait <= 0 {
		a.cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	a.log = cfg.Log
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	var doer HTTPDoer = &http.Client{}
	if cfg.HTTPClient != nil {
		doer = cfg.HTTPClient
	}
	// go-openai sends "Authorization: Bearer <key>" only for a non-empty
	// key, so a local server gets no header at all.
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = a.baseURL
	oc.HTTPClient = recorder{next: doer}
	a.client = openai.NewClientWithConfig(oc)
	a.doer = doer

	_, a.undo = cfg.Registry.Get("undo")
	for _, t := range cfg.Registry.Tools() {
		a.tools = append(a.tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  t.Schema.JSON(),
			},
		})
	}
	return a, nil
}

// Model returns the model name requests use, after defaults.
func (a *Agent) Model() string { return a.cfg.Model }

// BaseURL returns the server root requests go to, after defaults.
func (a *Agent) BaseURL() string { return a.baseURL }

// SystemPrompt returns the system prompt as the next request would send
// it: the person's name, and now (from the Context's clock) in their zone.
func (a *Agent) SystemPrompt() string {
	return systemPrompt(a.currentPerson(context.Background()), tools.Now(a.cfg.Context), a.undo)
}

// currentPerson is the person as the store has them now (a set_time_zone
// earlier in the chat, or its undo, moves them), through the Context's
// tools.PersonSource when the host gave one; the person read at New
// otherwise, or when the source fails.
func (a *Agent) currentPerson(ctx context.Context) tools.Person {
	p, err := tools.CurrentPerson(ctx, a.cfg.Context)
	if err != nil {
		a.log.Warn("reading the person again failed; keeping the zone read at start", "err", err)
		return a.person
	}
	return p
}

// Turn sends the person's message userText in conv and runs the loop to
// the model's answer, which it returns (it has also been written to Out).
//
// Every step is appended to conv as soon as it is done: the user's message
// with the first step, each assistant message with its tool calls
// together with the tool messages answering all of them, and the final
// answer. When the step limit is reached the answer says so plainly and
// err is nil.
//
// Errors: ErrEmptyMessage for a blank message; a *MessageError for one
// that is not valid UTF-8 or is over MaxMessage characters (nothing is
// sent or stored); an *Error (with a sentence
// for the person and an exit code) when the model server cannot be
// reached, refuses the request or keeps failing; an error wrapping
// ErrInterrupted and the context's cause when ctx is cancelled, with
// the text written so far as answer — calls that ran keep their results,
// calls not yet run are answered "cancelled", and conv never holds an
// unanswered tool call; an error from conv's Load or Append. Text the
// person saw of an answer that was stopped or failed is stored with the
// question, marked " [stopped]" or " [cut off: …]", so a later "go on"
// refers to it.
func (a *Agent) Turn(ctx context.Context, conv Conversation, userText string) (answer string, err error) {
	text := strings.TrimSpace(userText)
	if text == "" {
		return "", ErrEmptyMessage
	}
	if err := checkMessage(text); err != nil {
		return "", err
	}
	if conv == nil {
		conv = NewMemory()
	}
	past, err := conv.Load(ctx)
	if err != nil {
		return "", fmt.Errorf("agent: reading the conversation: %w", err)
	}
	t := &turn{
		a:       a,
		conv:    conv,
		past:    past,
		pending: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: text}},
		out:     &lineWriter{w: a.cfg.Out},
	}
	return t.run(ctx)
}

// turn is the state of one Turn.
type turn struct {
	a       *Agent
	conv    Conversation
	past    []openai.ChatCompletionMessage // stored before this step
	pending []openai.ChatCompletionMessage // this step's messages, not yet stored
	stored  bool                           // something of this turn is stored
	out     *lineWriter
	said    strings.Builder // all text the model wrote this turn
	partial strings.Builder // text of the step being answered, shown but not yet stored
}

// Marks ending a partial answer kept in the conversation, so the model
// later knows the text stops there and why ("go on" then has something to
// go on from).
const (
	stoppedMark = " [stopped]"
	failedMark  = " [cut off: the model server failed before I finished]"
)

func (t *turn) run(ctx context.Context) (string, error) {
	a := t.a
	for step := 1; step <= a.cfg.MaxSteps; step++ {
		if ctx.Err() != nil {
			return t.cancelled(ctx)
		}
		t.partial.Reset()
		msg, err := t.request(ctx, step)
		if err != nil {
			if ctx.Err() != nil {
				return t.cancelled(ctx)
			}
			t.out.end()
			if serr := t.close(ctx, failedMark, "(The model server failed before I finished; the tool calls above that ran are done.)"); serr != nil {
				err = errors.Join(err, serr)
			}
			return t.said.String(), err
		}
		t.partial.Reset() // its text is in msg now
		if len(msg.ToolCalls) == 0 {
			if strings.TrimSpace(msg.Content) == "" {
				// An assistant message with neither text nor calls is
				// refused by servers when sent back; say what happened.
				msg.Content = "(The model gave an empty answer.)"
				t.out.text(msg.Content)
			}
			t.out.end()
			t.pending = append(t.pending, msg)
			if err := t.save(ctx); err != nil {
				return msg.Content, err
			}
			return msg.Content, nil
		}
		t.pending = append(t.pending, msg)
		t.pending = append(t.pending, t.runTools(ctx, msg.ToolCalls)...)
		if err := t.save(ctx); err != nil {
			return t.said.String(), err
		}
	}
	note := fmt.Sprintf("I stopped after %d steps without finishing; what the tool lines above show is done. Tell me to go on, or ask for less at once.", a.cfg.MaxSteps)
	t.out.text(note)
	t.out.end()
	t.pending = append(t.pending, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: note})
	if err := t.save(ctx); err != nil {
		return note, err
	}
	return note, nil
}

// save appends this step's messages to the conversation. It runs even
// when ctx was cancelled: what the tools did must be remembered.
func (t *turn) save(ctx context.Context) error {
	if len(t.pending) == 0 {
		return nil
	}
	if err := t.conv.Append(context.WithoutCancel(ctx), t.pending...); err != nil {
		return fmt.Errorf("agent: saving the conversation: %w", err)
	}
	t.past = append(t.past, t.pending...)
	t.pending = t.pending[:0]
	t.stored = true
	return nil
}

// cancelled ends a turn stopped by ctx, closing it with a note when steps
// of it were stored.
func (t *turn) cancelled(ctx context.Context) (string, error) {
	t.out.end()
	cause := context.Cause(ctx)
	if err := t.close(ctx, stoppedMark, "(Interrupted by the person; the tool calls above that ran are done, the others were not made.)"); err != nil {
		return t.said.String(), errors.Join(err, cause)
	}
	return t.said.String(), fmt.Errorf("%w (%w)", ErrInterrupted, cause)
}

// close ends a turn cut short with an assistant message, so the stored
// history reads as a finished exchange (templates that want user and
// assistant to alternate take it) and the model later knows why the turn
// stopped. When the person saw part of an answer, that text is stored
// with mark after it, together with the question when it was not stored
// yet; otherwise a turn with stored steps gets note, and a turn that
// stored nothing and showed nothing stores nothing.
func (t *turn) close(ctx context.Context, mark, note string) error {
	if shown := strings.TrimRight(t.partial.String(), " \t\r\n"); shown != "" {
		t.partial.Reset()
		t.pending = append(t.pending, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: shown + mark})
		return t.save(ctx)
	}
	if !t.stored {
		return nil
	}
	t.pending = append(t.pending[:0], openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: note})
	return t.save(ctx)
}

// runTools runs the calls in order, each through the registry, and
// returns one tool message per call in the same order. Once ctx is
// cancelled the calls not yet run are answered "cancelled".
func (t *turn) runTools(ctx context.Context, calls []openai.ToolCall) []openai.ChatCompletionMessage {
	a := t.a
	msgs := make([]openai.ChatCompletionMessage, len(calls))
	for i, tc := range calls {
		if ctx.Err() != nil {
			msgs[i] = toolMessage(tc.ID, cancelledText)
			t.out.line(toolLine(tc.Function.Name, tc.Function.Arguments, tools.Failure(tools.CodeInternal, "cancelled"), a.person.Zone))
			continue
		}
		start := time.Now()
		res, call := a.cfg.Registry.Call(ctx, a.cfg.Context, tc.Function.Name, []byte(tc.Function.Arguments))
		res = res.Spill(tools.ModelLimit)
		a.log.Debug("tool call", "tool", tc.Function.Name, "code", res.Code, "took", time.Since(start))
		text := res.TextOut()
		if strings.TrimSpace(text) == "" {
			// go-openai drops an empty content field, and servers refuse a
			// tool message without one.
			if res.OK() {
				text = "(no output)"
			} else {
				text = fmt.Sprintf("(the call failed with code %d and no message)", res.Code)
			}
		}
		msgs[i] = toolMessage(tc.ID, text)
		// The call's context holds the person as the registry read them for
		// this call; reading them again would cost another query.
		zone := a.person.Zone
		if p, err := tools.PersonOf(call); err == nil {
			zone = p.Zone
		}
		t.out.line(toolLine(tc.Function.Name, tc.Function.Arguments, res, zone))
	}
	return msgs
}

// request makes one model request (with retries) for the history so far
// and returns the assistant message, cleaned for storing.
func (t *turn) request(ctx context.Context, step int) (openai.ChatCompletionMessage, error) {
	a := t.a
	history := make([]openai.ChatCompletionMessage, 0, len(t.past)+len(t.pending))
	history = append(append(history, t.past...), t.pending...)
	history, dropped := fit(repair(history), a.cfg.HistoryBudget, a.cfg.Measure)
	req := a.chatRequest(history)
	a.log.Debug("model request", "step", step, "messages", len(req.Messages), "dropped", dropped, "stream", a.cfg.Stream)

	var msg openai.ChatCompletionMessage
	var err error
	if a.cfg.Stream {
		msg, err = withRetries(ctx, a, func(ctx context.Context) (openai.ChatCompletionMessage, bool, error) {
			return t.streamOnce(ctx, req)
		})
	} else {
		msg, err = withRetries(ctx, a, func(ctx context.Context) (openai.ChatCompletionMessage, bool, error) {
			resp, err := a.client.CreateChatCompletion(ctx, req)
			if err != nil {
				return openai.ChatCompletionMessage{}, false, err
			}
			if len(resp.Choices) == 0 {
				return openai.ChatCompletionMessage{}, false, protocolError("The model server at %s answered without a message; check that it serves chat completions.", a.baseURL)
			}
			return resp.Choices[0].Message, false, nil
		})
		if err == nil {
			t.out.text(msg.Content)
			t.said.WriteString(msg.Content)
		}
	}
	if err != nil {
		return msg, a.explainNotFound(ctx, err)
	}
	return clean(msg), nil
}

// chatRequest is the request of one step: the system prompt, then
// history, with every tool. `assistant doctor` (CheckTools) sends the same,
// so the size it reports is the chat's.
func (a *Agent) chatRequest(history []openai.ChatCompletionMessage) openai.ChatCompletionRequest {
	msgs := make([]openai.ChatCompletionMessage, 0, len(history)+1)
	msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: a.SystemPrompt()})
	msgs = append(msgs, history...)
	return openai.ChatCompletionRequest{Model: a.cfg.Model, Messages: msgs, Tools: a.tools}
}

// streamOnce reads one streamed answer, writing text to Out as it comes.
// emitted reports whether any text reached Out, after which the request
// is not retried.
func (t *turn) streamOnce(ctx context.Context, req openai.ChatCompletionRequest) (msg openai.ChatCompletionMessage, emitted bool, err error) {
	stream, err := t.a.client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return msg, false, err
	}
	defer stream.Close()
	var text strings.Builder
	var acc calls
	chunks := 0
	for {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return msg, emitted, err
		}
		// Decoded here rather than by go-openai's Recv, so tool-call
		// arguments sent as a JSON object are taken and a chunk that is
		// not one gets a sentence of ours, not the decoder's Go words.
		var chunk openai.ChatCompletionStreamResponse
		if err := json.Unmarshal(argumentsAsText(raw), &chunk); err != nil {
			return msg, emitted, &Error{Kind: KindProtocol, Err: err,
				Sentence: fmt.Sprintf("The model server at %s sent a stream chunk that is not a chat completion chunk; check that OPENAI_BASE_URL points at an OpenAI-compatible /v1 endpoint.", t.a.baseURL)}
		}
		chunks++
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.Delta.Content != "" {
				text.WriteString(ch.Delta.Content)
				t.out.text(ch.Delta.Content)
				t.said.WriteString(ch.Delta.Content)
				t.partial.WriteString(ch.Delta.Content)
				emitted = true
			}
			acc.add(ch.Delta.ToolCalls)
		}
	}
	if chunks == 0 {
		return msg, false, protocolError("The model server at %s ended its stream without a message; check that it serves chat completions.", t.a.baseURL)
	}
	return openai.ChatCompletionMessage{
		Role:      openai.ChatMessageRoleAssistant,
		Content:   text.String(),
		ToolCalls: acc.toolCalls(),
	}, emitted, nil
}

// clean keeps of an assistant message what is sent back later: the role,
// the text and the tool calls (normalised). Reasoning text is dropped:
// DeepSeek-style servers refuse it in later requests, and it is not
// meant to be kept.
func clean(m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{
		Role:      openai.ChatMessageRoleAssistant,
		Content:   m.Content,
		ToolCalls: normalizeCalls(m.ToolCalls),
	}
}
