package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/agent"
	"github.com/assistant-dev/assistant/tools"
)

// Bounds of `assistant doctor`'s requests.
const (
	// doctorTimeout is --timeout's default: the one tool-call request may
	// load a local model first and read a few thousand tokens on a CPU.
	doctorTimeout = 2 * time.Minute
	// doctorInfoTimeout bounds each of the other requests (the model
	// list, Ollama's /api/show and /api/ps, llama.cpp's /props), which
	// a server answers at once.
	doctorInfoTimeout = 10 * time.Second
	// bytesPerToken is the estimate of a request's tokens from its bytes
	// when the server does not count them: about 4 for English text and
	// JSON with the usual tokenizers.
	bytesPerToken = 4
	// roomWanted is how many tokens of the context a request should leave
	// for the conversation and the answer: a few turns and one answer.
	roomWanted = 4096
)

// doctorMessage is the message that should make any model that calls
// tools call one: it names a tool that only reads.
func doctorMessage(reg *tools.Registry) string {
	return fmt.Sprintf("What is on my list? Use the %s tool.", doctorTool(reg))
}

// doctorTool is the tool doctorMessage asks for: list_tasks, else the
// first list_ tool offered, else the first tool offered.
func doctorTool(reg *tools.Registry) string {
	name := ""
	for _, t := range reg.Tools() {
		if t.Name == "list_tasks" {
			name = t.Name
			break
		}
		if name == "" && strings.HasPrefix(t.Name, "list_") {
			name = t.Name
		}
	}
	if name == "" && len(reg.Tools()) > 0 {
		name = reg.Tools()[0].Name
	}
	return name
}

func newDoctorCmd(a *app) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that the chat's model server and model can work on your tasks",
		Long: `Check the model server the chat would use, with the chat's settings
(--base-url or OPENAI_BASE_URL, --model or ASSISTANT_MODEL, OPENAI_API_KEY,
--tools or ASSISTANT_CHAT_TOOLS, the config file's [chat] table): whether the server lists the model,
whether the model answers a request with a call of a tool it was given
(one request with the chat's own system prompt and tools, which runs no
tool), and how large that request is against the model's context window,
when the server says it (Ollama, llama.cpp's server, vLLM), with room for
the conversation the chat's --history-budget lets it send. Each check is one line (ok, warn or
fail), with what to set when it fails, then a summary.

Exit 0 when the model calls tools and the request fits; otherwise the
chat's codes: 69 nothing answers, 75 no answer in time or the server kept
failing, 76 not an OpenAI-compatible answer, 77 the key was refused, 78 the
setup must change (an unknown model, no tool calls, too small a context).`,
		Example: `  assistant doctor
  assistant doctor --model qwen3 --base-url http://localhost:8080/v1
  assistant doctor --timeout 5m   # a large model on a CPU
  assistant doctor --tools tasks  # the request a chat with fewer tools sends`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.chatSettings(cmd)
			if err != nil {
				return err
			}
			if timeout <= 0 {
				return failf(exitInvalid, "“--timeout” must be a duration above 0, such as 2m or 90s, not “%s”", timeout)
			}
			return runDoctor(cmd.Context(), a, s, timeout)
		},
	}
	f := cmd.Flags()
	f.String("model", "", "the model name (env ASSISTANT_MODEL)")
	f.String("base-url", "", "an OpenAI-compatible endpoint ending in /v1 (env OPENAI_BASE_URL)")
	f.StringSlice("tools", nil, "check with only these tools, as the chat's --tools: groups (all, tasks, calendar, read-only) or tool names, comma-separated or the flag repeated (env ASSISTANT_CHAT_TOOLS)")
	_ = cmd.RegisterFlagCompletionFunc("tools", completeTools)
	f.String("history-budget", "", fmt.Sprintf("check with the chat's history budget of `N` characters (default %d; env ASSISTANT_HISTORY_BUDGET)", agent.DefaultHistoryBudget))
	f.DurationVar(&timeout, "timeout", doctorTimeout, "how long to wait for the model's answer to the tool-call request")
	return cmd
}

// doctorReport writes the checks' lines and keeps the exit code of the
// first that failed.
type doctorReport struct {
	w                 io.Writer
	key               string // the API key, never written
	oks, warns, fails int
	code              int
}

// line writes one check: status (ok, warn, fail), the check's name, the
// sentence.
func (r *doctorReport) line(status, check, text string) {
	switch status {
	case "ok":
		r.oks++
	case "warn":
		r.warns++
	case "fail":
		r.fails++
	}
	r.print(fmt.Sprintf("%-5s %-8s %s", status, check, text))
}

// fix writes what to do about the check above.
func (r *doctorReport) fix(text string) { r.print(fmt.Sprintf("%-5s %-8s %s", "", "fix", text)) }

// fail writes a failed check and keeps code when it is the first.
func (r *doctorReport) fail(code int, check, text string) {
	r.line("fail", check, text)
	if r.code == 0 {
		r.code = code
	}
}

func (r *doctorReport) print(s string) {
	fmt.Fprintln(r.w, agent.HideKey(s, r.key)) // the server may echo the key
}

// runDoctor runs the checks against the chat's model server and prints
// them; see newDoctorCmd.
func runDoctor(ctx context.Context, a *app, s chatSettings, timeout time.Duration) error {
	st, p, err := a.session(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	reg := s.Tools // the chat's --tools choice, so the size is the chat's
	ag, err := agent.New(agent.Config{
		BaseURL:    s.BaseURL,
		APIKey:     s.APIKey,
		Model:      s.Model,
		Registry:   reg,
		Context:    a.toolContext(st, p),
		HTTPClient: cappedClient{next: &http.Client{}, limit: agent.MaxInfoBody},
		// the checks' lines say what went wrong; the agent's retry
		// warnings would only mix into them, so they show at debug only
		Log: slog.New(debugOnly{a.log.Handler()}),
	})
	if err != nil {
		var ae *agent.Error
		if errors.As(err, &ae) {
			return chatFail(err)
		}
		return fail(exitInternal, err)
	}
	r := &doctorReport{w: a.stdout, key: s.APIKey}
	info := min(timeout, doctorInfoTimeout)

	// 1. The model list.
	models, lerr := ag.ListModels(ctx, info)
	var note string
	var cerr error
	if lerr == nil {
		note, cerr = ag.ChooseModel(ctx) // the model the chat would take, from the list just read
	}
	model := ag.Model()
	switch {
	case s.Model == "" && lerr != nil && !isOpenAIURL(ag.BaseURL()) && ag.BaseURL() != agent.OllamaURL:
		// the chat takes the first model the server lists; it listed none
		r.print(fmt.Sprintf("Checking the server at %s, as `assistant chat` would use it: no model is set, and the chat takes the first the server lists; without a list it asks for “%s”.", ag.BaseURL(), model))
	case s.Model == "" && !isOpenAIURL(ag.BaseURL()) && ag.BaseURL() != agent.OllamaURL:
		r.print(fmt.Sprintf("Checking the model “%s” at %s, as `assistant chat` would use it: no model is set, and the chat takes the first the server lists.", model, ag.BaseURL()))
	default:
		r.print(fmt.Sprintf("Checking the model “%s” at %s, as `assistant chat` would use it.", model, ag.BaseURL()))
	}
	var le *agent.Error
	switch {
	case ctx.Err() != nil:
		return quietExit(exitCancelled)
	case errors.As(lerr, &le) && (le.Kind == agent.KindRefused || le.Kind == agent.KindProtocol):
		r.line("warn", "model", le.Sentence+" The next check asks for the model by name.")
	case lerr != nil:
		r.fail(agent.ExitCode(lerr), "model", lerr.Error())
		return r.summary(model)
	case cerr != nil:
		r.fail(agent.ExitCode(cerr), "model", cerr.Error())
		return r.summary(model)
	default:
		ids := make([]string, len(models))
		for i, m := range models {
			ids[i] = m.ID
		}
		if !agent.HasModel(ids, model) {
			if w := ag.ContextWindow(ctx, models, info); len(ids) > 0 && (w.Server == agent.ServerLlamaCpp || models[0].TrainContext > 0) {
				// llama-server answers with its one model whatever the name
				r.line("warn", "model", fmt.Sprintf("The server does not list “%s”, but llama-server serves one model whatever the name: the chat will use “%s”.", model, ids[0]))
				r.fix(fmt.Sprintf("Name it with --model %s to say what is served.", ids[0]))
				break
			}
			r.fail(agent.ExitConfig, "model", missingModel(ag, ids, model))
			return r.summary(model)
		}
		if note != "" {
			r.line("ok", "model", note)
		} else {
			r.line("ok", "model", fmt.Sprintf("The server lists it (%s).", countOf(len(ids), "model")))
		}
	}

	// 2. One request with every tool.
	tctx, cancel := context.WithTimeout(ctx, timeout)
	check, terr := ag.CheckTools(tctx, doctorMessage(reg))
	cancel()
	if ctx.Err() != nil {
		return quietExit(exitCancelled)
	}
	var window agent.Window
	sized := true
	var te *agent.Error
	switch {
	case terr == nil && len(notOffered(check.Called, reg)) > 0:
		bad := notOffered(check.Called, reg)
		r.fail(agent.ExitConfig, "tools", fmt.Sprintf("The model called %s, a tool it was not given (it was asked for %s); the chat answers such a call with the names it has, and a small model may keep trying.", strings.Join(bad, ", "), doctorTool(reg)))
		r.fix("Pick a model that keeps to the tools it is given, or offer the tools it reaches for (`--tools` with " + strings.Join(bad, ",") + ").")
		window = ag.ContextWindow(ctx, models, info)
	case terr == nil && len(check.Called) > 0:
		r.line("ok", "tools", fmt.Sprintf("The model answered with a call of %s, as the chat needs.", strings.Join(check.Called, ", ")))
		window = ag.ContextWindow(ctx, models, info)
	case terr == nil:
		window = ag.ContextWindow(ctx, models, info)
		r.fail(agent.ExitConfig, "tools", wordsNotCalls(check.Text, reg))
		r.fix(toolsFix(window, model))
	case errors.Is(terr, context.DeadlineExceeded):
		r.fail(agent.ExitUnavailable, "tools", fmt.Sprintf("No answer within %s; a local model may still be loading, or reads slowly on a CPU: run it again, or give more time with --timeout.", timeout))
		sized = false
	case check.Overflow:
		window = ag.ContextWindow(ctx, models, info)
		r.line("warn", "tools", "Not known: the server refused the request as longer than the model's context, before the model saw it.")
	case errors.As(terr, &te) && te.Kind == agent.KindRefused:
		window = ag.ContextWindow(ctx, models, info)
		sentence, fix := splitFix(te.Sentence)
		r.fail(agent.ExitConfig, "tools", sentence)
		if fix != "" {
			r.fix(toolsFix(window, model))
		}
	default:
		r.fail(agent.ExitCode(terr), "tools", terr.Error())
		sized = false
	}

	// 3. The request's size against the context window.
	if sized {
		budget := s.HistoryBudget
		if budget <= 0 {
			budget = agent.DefaultHistoryBudget
		}
		r.context(check, window, model, len(reg.Names()) < len(newRegistry().Names()), budget)
	}
	return r.summary(model)
}

// missingModel is the sentence for a model the server does not list,
// with the names that look like it.
func missingModel(ag *agent.Agent, ids []string, model string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The server does not list “%s”", model)
	if len(ids) == 0 {
		b.WriteString("; it lists no models.")
	} else {
		fmt.Fprintf(&b, " (%s).", countOf(len(ids), "model"))
		if like := agent.SimilarModels(ids, model); len(like) > 0 {
			fmt.Fprintf(&b, " Did you mean %s?", "“"+strings.Join(like, "”, “")+"”")
		} else {
			fmt.Fprintf(&b, " It has %s.", someNames(ids, 5))
		}
	}
	b.WriteString(" Name one it has with --model or ASSISTANT_MODEL")
	if ag.BaseURL() == agent.OllamaURL {
		fmt.Fprintf(&b, ", or fetch it with `ollama pull %s`", model)
	}
	b.WriteString(".")
	return b.String()
}

// splitFix splits a sentence of a server that cannot use tools ("… cannot
// use tools: llama.cpp's server needs --jinja for tool calls; restart it
// as …") into what is wrong and whether it held a fix, which the doctor
// writes on its own line.
func splitFix(s string) (sentence, fix string) {
	i := strings.Index(s, " cannot use tools: ")
	if i < 0 {
		return s, ""
	}
	j := strings.Index(s[i:], "; ")
	if j < 0 {
		return s, ""
	}
	return s[:i+j] + ".", strings.TrimSuffix(s[i+j+2:], ".")
}

// someNames writes up to most names, quoted, then how many more there are.
func someNames(ids []string, most int) string {
	if len(ids) <= most {
		return "“" + strings.Join(ids, "”, “") + "”"
	}
	return "“" + strings.Join(ids[:most], "”, “") + "” and " + strconv.Itoa(len(ids)-most) + " more"
}

// isOpenAIURL reports whether base is OpenAI's own API, whose default
// model the chat names when none is set.
func isOpenAIURL(base string) bool {
	u, err := url.Parse(base)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// notOffered are the tools in called that reg does not hold.
func notOffered(called []string, reg *tools.Registry) []string {
	var out []string
	for _, name := range called {
		if !slices.Contains(reg.Names(), name) {
			out = append(out, name)
		}
	}
	return out
}

// debugOnly passes a handler's debug records and drops the rest.
type debugOnly struct{ slog.Handler }

func (h debugOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l <= slog.LevelDebug && h.Handler.Enabled(ctx, l)
}
func (h debugOnly) WithAttrs(as []slog.Attr) slog.Handler {
	return debugOnly{h.Handler.WithAttrs(as)}
}
func (h debugOnly) WithGroup(name string) slog.Handler { return debugOnly{h.Handler.WithGroup(name)} }

// wordsNotCalls is the sentence for a model that answered in words.
func wordsNotCalls(text string, reg *tools.Registry) string {
	for _, name := range reg.Names() {
		if strings.Contains(text, name) {
			return fmt.Sprintf("The model wrote the call of %s as text (“%s”), which the server did not read as a tool call.", name, clipLine(text, 60))
		}
	}
	if text == "" {
		return "The model answered with neither text nor a tool call."
	}
	return fmt.Sprintf("The model answered in words (“%s”) instead of calling a tool: as served, it does not call tools.", clipLine(text, 60))
}

// toolsFix says how to get tool calls from the server w names.
func toolsFix(w agent.Window, model string) string {
	switch w.Server {
	case agent.ServerOllama:
		s := "Use a model whose template has tools (qwen2.5, qwen3, llama3.1, mistral-nemo): `ollama show MODEL` lists “tools” under Capabilities"
		if w.Tools == "no" {
			s += fmt.Sprintf("; for “%s” it does not", model)
		}
		return s + "."
	case agent.ServerLlamaCpp:
		return "Start llama-server with --jinja (its tool calls need the model's own chat template), and a model whose template has tools."
	case agent.ServerVLLM:
		return "Start vLLM with --enable-auto-tool-choice and the --tool-call-parser of the model's family (hermes for Qwen, llama3_json for Llama 3.1)."
	}
	return "Name a model that calls tools with --model or ASSISTANT_MODEL; on llama.cpp's server start it with --jinja, on Ollama pick a model whose template has tools."
}

// context writes the check of the request's size against the window.
// subset says the run already offers fewer tools than all, so fewer is
// not suggested again; budget is the chat's history budget in characters.
func (r *doctorReport) context(check agent.ToolCheck, w agent.Window, model string, subset bool, budget int) {
	fix := func(tokens int) string { return contextFix(w, tokens, model, subset, budget) }
	estimate := (check.RequestBytes + bytesPerToken - 1) / bytesPerToken
	tokens, counted := estimate, false
	// A count under half the estimate leaves out what the server had
	// cached (some Ollama versions count only the new tokens).
	if check.PromptTokens > 0 && 2*check.PromptTokens >= estimate {
		tokens, counted = check.PromptTokens, true
	}
	if check.Overflow && check.OverflowTokens > 0 {
		tokens, counted = check.OverflowTokens, true
	}
	size := fmt.Sprintf("The request is %s bytes, about %s tokens (estimated at %d bytes a token)", thousands(check.RequestBytes), thousands(estimate), bytesPerToken)
	if counted {
		size = fmt.Sprintf("The request is %s bytes, %s tokens as the server counted them", thousands(check.RequestBytes), thousands(tokens))
	}
	tokensWindow := w.Tokens
	if check.Overflow && check.OverflowWindow > 0 {
		tokensWindow = check.OverflowWindow
	}
	if tokensWindow == 0 {
		if w.Server == agent.ServerOpenAI {
			r.line("ok", "context", size+"; OpenAI does not say a model's context window, and its models that call tools take far more.")
			return
		}
		if check.Overflow {
			r.fail(agent.ExitConfig, "context", size+"; the server refused it as longer than the model's context.")
			r.fix(fix(tokens))
			return
		}
		r.line("warn", "context", size+"; the server does not say the model's context window: give it "+thousands(need(tokens, 0))+" tokens or more.")
		return
	}
	where := fmt.Sprintf("a context window of %s tokens (%s)", thousands(tokensWindow), w.From)
	if w.Assumed {
		where = fmt.Sprintf("a context window of %s tokens (%s, assumed: Ollama runs no copy of the model to ask)", thousands(tokensWindow), w.From)
	}
	if w.From == "" {
		said := w.Server
		if said == "" {
			said = "the server" // only its refusal gave the window
		}
		where = fmt.Sprintf("a context window of %s tokens (as %s said)", thousands(tokensWindow), said)
	}
	room := tokensWindow - tokens
	switch {
	case check.Overflow:
		r.fail(agent.ExitConfig, "context", fmt.Sprintf("%s, against %s: the server refused it as too long.", size, where))
	case counted && check.PromptTokens >= tokensWindow:
		r.fail(agent.ExitConfig, "context", fmt.Sprintf("%s, all of %s: the server cut the request, dropping its start without a word.", size, where))
		// The count is of what was kept; the estimate says what was sent.
		tokens = max(tokens, estimate)
	case tokens >= tokensWindow && w.Assumed:
		r.line("warn", "context", fmt.Sprintf("%s, more than %s: it likely does not fit.", size, where))
	case tokens >= tokensWindow:
		r.fail(agent.ExitConfig, "context", fmt.Sprintf("%s, more than %s: it does not fit.", size, where))
	case room < roomWanted:
		r.line("warn", "context", fmt.Sprintf("%s, against %s: only %s tokens are left for the conversation and the answer.", size, where, thousands(room)))
	case tokens+budget/charsPerToken > tokensWindow:
		r.line("warn", "context", fmt.Sprintf("%s, against %s: %s tokens are left, but the chat sends up to %s characters of the conversation (--history-budget, about %s tokens), so a long conversation will not fit.",
			size, where, thousands(room), thousands(budget), thousands(budget/charsPerToken)))
		bigger := need(tokens+budget/charsPerToken, w.Max)
		switch fits := budgetFor(tokensWindow, tokens); {
		case fits > 0 && bigger > tokensWindow:
			r.fix(fmt.Sprintf("Chat with `--history-budget %d` (history_budget in the config file's [chat]), or give the model a context of %s tokens, which the budget of %s characters fits.", fits, thousands(bigger), thousands(budget)))
		case fits > 0:
			r.fix(fmt.Sprintf("Chat with `--history-budget %d` (history_budget in the config file's [chat]).", fits))
		default:
			r.fix(fix(tokens))
		}
		return
	default:
		r.line("ok", "context", fmt.Sprintf("%s, against %s: %s tokens are left for the conversation and the answer.", size, where, thousands(room)))
		return
	}
	r.fix(fix(tokens))
}

// charsPerToken is the chat's estimate of a conversation's characters
// per token (docs/chat.md, "Long conversations").
const charsPerToken = 3

// budgetFor is the history budget, in characters, that fits a context
// window of window tokens beside a request of tokens (the tools and the
// system prompt) and room for the answer: docs/chat.md's rule of three
// characters a token beyond the first 5,000 tokens, rounded down to a
// thousand (8,192 tokens → 9000); 0 when nothing is left.
func budgetFor(window, tokens int) int {
	n := charsPerToken * (window - max(5000, tokens+1000))
	return max(0, n/1000*1000)
}

// need is the context to ask for: the request and roomWanted, rounded up
// to a power of two from 8192, at most max when the model's limit is
// known.
func need(tokens, max int) int {
	n := 8192
	// a server's count may be absurd: compare without adding to it, and
	// stop doubling before n overflows (it then went to 0 and looped)
	for n-roomWanted < tokens && n <= math.MaxInt/2 {
		n *= 2
	}
	if max > 0 && n > max {
		n = max
	}
	return n
}

// contextFix says what to set for a larger context on the server w
// names, and that a smaller tool set makes every request smaller.
func contextFix(w agent.Window, tokens int, model string, subset bool, budget int) string {
	n := need(tokens, w.Max)
	fewer := "or offer the chat fewer tools (`--tools tasks`, `calendar` or `read-only`; see `assistant doctor --tools tasks`), which makes every request smaller."
	if subset {
		// the run already offers a subset: name no group that may be larger
		fewer = "or offer the chat fewer tools still, which makes every request smaller."
	}
	if fits := budgetFor(n, tokens); tokens+budget/charsPerToken > n && fits > 0 {
		fewer = fmt.Sprintf("with %s tokens, chat with `--history-budget %d` so a long conversation fits; %s", thousands(n), fits, fewer)
	}
	if w.Max > 0 && n < tokens+roomWanted {
		return fmt.Sprintf("The model takes at most %s tokens: give it all of them, %s", thousands(w.Max), fewer)
	}
	num := strconv.Itoa(n)
	switch w.Server {
	case agent.ServerOllama:
		return fmt.Sprintf("Give it %s tokens: `OLLAMA_CONTEXT_LENGTH=%s ollama serve`, or a Modelfile of `FROM %s` and `PARAMETER num_ctx %s` made with `ollama create`; %s", thousands(n), num, model, num, fewer)
	case agent.ServerLlamaCpp:
		return fmt.Sprintf("Give it %s tokens: restart llama-server with `-c %s`; %s", thousands(n), num, fewer)
	case agent.ServerVLLM:
		return fmt.Sprintf("Give it %s tokens: restart vLLM with `--max-model-len %s`; %s", thousands(n), num, fewer)
	}
	return fmt.Sprintf("Give the model a context of %s tokens or more, %s", thousands(n), fewer)
}

// summary writes the last line and returns the exit.
func (r *doctorReport) summary(model string) error {
	switch {
	case r.fails > 0:
		r.print(fmt.Sprintf("Not ready: %s failed; do what it says and run `assistant doctor` again.", countOf(r.fails, "check")))
	case r.warns > 0:
		r.print(fmt.Sprintf("Usable: “%s” calls tools; mind the %s above.", model, countOf(r.warns, "warning")))
	default:
		r.print(fmt.Sprintf("Ready: “%s” calls tools and the chat's requests fit its context.", model))
	}
	return quietExit(r.code)
}

// countOf writes n things: "1 check", "2 checks".
func countOf(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// cappedClient is an HTTP client whose answers end with an error past
// limit bytes, so a server sending without end cannot fill the memory.
type cappedClient struct {
	next  agent.HTTPDoer
	limit int64
}

func (c cappedClient) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(req)
	if err == nil {
		resp.Body = &cappedBody{rc: resp.Body, left: c.limit}
	}
	return resp, err
}

// cappedBody reads rc up to left bytes, then fails.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.rc.Read(one[:]); n == 0 && err != nil {
			return 0, err // the answer ended right at the limit
		}
		return 0, errors.New("the answer is longer than the doctor reads")
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
