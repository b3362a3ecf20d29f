package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cenkalti/backoff/v5"
	openai "github.com/sashabaranov/go-openai"
)

// HTTPDoer sends one HTTP request; *http.Client is one.
type HTTPDoer interface {
	Do(req *http.Request) (*http.Response, error)
}

// attempt records what one HTTP exchange said beyond what go-openai's
// errors carry: its errors keep the status but drop the headers, and
// Retry-After lives in a header.
type attempt struct {
	status     int
	retryAfter time.Duration // 0 when the server named no wait
}

type attemptKey struct{}

// recorder wraps the caller's HTTP client and notes the status and
// Retry-After of every failed response in the attempt riding in the
// request's context. It also hands a whole answer to a streamed request
// on as a stream (wholeAsStream).
type recorder struct{ next HTTPDoer }

func (r recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.next.Do(req)
	if err == nil {
		resp = wholeAsStream(req, resp)
	}
	if resp != nil && resp.StatusCode >= 400 {
		if at, ok := req.Context().Value(attemptKey{}).(*attempt); ok {
			at.status = resp.StatusCode
			at.retryAfter = retryAfter(resp.Header, time.Now())
		}
	}
	return resp, err
}

// retryAfter reads how long the server asks to wait: retry-after-ms
// (OpenAI, Azure), then Retry-After as seconds or an HTTP date (RFC 9110
// §10.2.3). 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// retryable is a failure worth another try; it unwraps to the cause and,
// when the server named a wait, to backoff's RetryAfterError so Retry
// waits exactly that long instead of its own interval.
type retryable struct {
	err  error
	wait time.Duration
}

func (r *retryable) Error() string { return r.err.Error() }

func (r *retryable) Unwrap() []error {
	if r.wait > 0 {
		return []error{r.err, &backoff.RetryAfterError{Duration: r.wait}}
	}
	return []error{r.err}
}

// withRetries runs op until it succeeds, fails for good, or the retries
// run out, then turns what failed into an *Error sentence. op gets a
// context carrying a fresh attempt for the recorder.
func withRetries[T any](ctx context.Context, a *Agent, op func(ctx context.Context) (T, bool, error)) (T, error) {
	b := &backoff.ExponentialBackOff{
		InitialInterval:     a.cfg.RetryBase,
		RandomizationFactor: 0.5,
		Multiplier:          2,
		MaxInterval:         30 * a.cfg.RetryBase,
	}
	tries := 0
	res, err := backoff.Retry(ctx, func() (T, error) {
		tries++
		at := &attempt{}
		v, emitted, err := op(context.WithValue(ctx, attemptKey{}, at))
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			return v, backoff.Permanent(ctx.Err())
		}
		// Text already shown to the person cannot be taken back, so a
		// stream that broke after it started is not replayed.
		if emitted && at.status == 0 && isConnError(err) {
			return v, backoff.Permanent(&Error{Kind: KindUnavailable, Err: err,
				Sentence: fmt.Sprintf("The connection to the model server at %s dropped after the answer had started; ask again.", a.baseURL)})
		}
		if emitted || !shouldRetry(err, at.status) || (at.status == 0 && isNoServer(err) && a.localServer()) {
			return v, backoff.Permanent(a.explain(err, at.status, tries))
		}
		if at.retryAfter > a.cfg.MaxRetryWait {
			return v, backoff.Permanent(&Error{Kind: KindUnavailable, Status: at.status, Err: err,
				Sentence: fmt.Sprintf("The model server at %s is busy and asks to wait %s; try again later.", a.baseURL, at.retryAfter.Round(time.Second))})
		}
		return v, &retryable{err: err, wait: at.retryAfter}
	},
		backoff.WithBackOff(b),
		backoff.WithMaxTries(uint(a.cfg.MaxRetries)+1),
		backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(err error, wait time.Duration) {
			a.log.Warn("model request failed; retrying", "err", err, "wait", wait)
		}),
	)
	if err == nil {
		return res, nil
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var e *Error
	if errors.As(err, &e) {
		return res, e
	}
	var r *retryable
	if errors.As(err, &r) {
		err = r.err
	}
	return res, a.explain(err, statusOf(err), tries)
}

// statusOf returns the HTTP status a go-openai error carries, or 0.
func statusOf(err error) int {
	var api *openai.APIError
	if errors.As(err, &api) {
		return api.HTTPStatusCode
	}
	var req *openai.RequestError
	if errors.As(err, &req) {
		return req.HTTPStatusCode
	}
	return 0
}

// messageOf returns the server's own words about a failure, trimmed.
func messageOf(err error) string {
	var api *openai.APIError
	if errors.As(err, &api) {
		return strings.TrimSpace(api.Message)
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.message()
	}
	var req *openai.RequestError
	if errors.As(err, &req) {
		if msg := strings.TrimSpace(string(req.Body)); msg != "" {
			if len(msg) > 200 {
				msg = msg[:200] + "…"
			}
			return msg
		}
	}
	return ""
}

// shouldRetry: 408, 409, 429 and 5xx are worth another try, and so are
// connection errors; a 429 for an exhausted quota and the setup errors
// local servers report as 500 are not.
func shouldRetry(err error, status int) bool {
	if status == 0 {
		status = statusOf(err)
	}
	if setupHint(messageOf(err)) != "" {
		return false
	}
	switch {
	case status == http.StatusTooManyRequests:
		return !isQuota(err)
	case status == http.StatusRequestTimeout, status == http.StatusConflict, status >= 500:
		return true
	case status != 0:
		return false
	}
	return isConnError(err)
}

// isQuota reports OpenAI's 429 for an account out of credit, which no
// wait fixes.
func isQuota(err error) bool {
	var api *openai.APIError
	return errors.As(err, &api) && (api.Code == "insufficient_quota" || api.Type == "insufficient_quota")
}

// isConnError reports a transport failure: refused, reset, timed out, a
// connection closed mid-answer.
func isConnError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.As(err, &de) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, io.EOF)
}

// localServer reports whether the base URL points at this machine, where
// a refused connection means no server runs: waiting will not start one,
// so the person is told at once how to start it.
func (a *Agent) localServer() bool {
	u, err := url.Parse(a.baseURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isNoServer reports that nothing listens at the address at all.
func isNoServer(err error) bool {
	var de *net.DNSError
	if errors.As(err, &de) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// setupHint recognises the errors local servers give when they were
// started without tool support, and says how to start them right.
func setupHint(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "does not support tools"):
		return "the model does not support tool calls; pick one that does (qwen2.5, qwen3, llama3.1, mistral-nemo) with ASSISTANT_MODEL or --model"
	case strings.Contains(m, "--jinja") || strings.Contains(m, "unsupported param: tools"):
		return "llama.cpp's server needs --jinja for tool calls; restart it as `llama-server --jinja -m MODEL.gguf`"
	case strings.Contains(m, "enable-auto-tool-choice"):
		return "vLLM needs tool calling turned on; restart it with `--enable-auto-tool-choice --tool-call-parser PARSER` (hermes for Qwen, llama3_json for Llama 3.1)"
	}
	return ""
}

// HideKey returns s with every copy of the API key key replaced by "***",
// and any start of it (4 bytes or more) that stands right before the "…"
// the server's words are cut with, so a server that echoes the key never
// gets it printed; s unchanged when key is shorter than 4 bytes.
func HideKey(s, key string) string {
	if len(key) < 4 {
		return s
	}
	s = strings.ReplaceAll(s, key, "***")
	for i := len(key) - 1; i >= 4; i-- {
		s = strings.ReplaceAll(s, key[:i]+"…", "***…")
	}
	return s
}

// explain turns a failed request into one sentence for the person.
func (a *Agent) explain(err error, status, tries int) *Error {
	var own *Error
	if errors.As(err, &own) {
		return own
	}
	if status == 0 {
		status = statusOf(err)
	}
	msg := HideKey(messageOf(err), a.cfg.APIKey)
	said := ""
	if msg != "" {
		said = fmt.Sprintf("; the server said: %s", strings.TrimSuffix(msg, "."))
	}
	if hint := setupHint(msg); hint != "" {
		return &Error{Kind: KindRefused, Status: status, Err: err,
			Sentence: fmt.Sprintf("The model server at %s cannot use tools: %s.", a.baseURL, hint)}
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &Error{Kind: KindAuth, Status: status, Err: err,
			Sentence: fmt.Sprintf("The model server at %s refused the API key (HTTP %d%s): set OPENAI_API_KEY to a valid key for that server.", a.baseURL, status, said)}
	case status == http.StatusTooManyRequests && isQuota(err):
		return &Error{Kind: KindRefused, Status: status, Err: err,
			Sentence: fmt.Sprintf("The model server at %s says the account has no quota left (HTTP 429%s): add credit, or use another key or a local model.", a.baseURL, said)}
	case status == http.StatusNotFound:
		return &Error{Kind: KindNotFound, Status: status, Err: err,
			Sentence: fmt.Sprintf("The model server at %s does not know the model “%s” or is not an OpenAI-compatible endpoint (HTTP 404%s): %s", a.baseURL, a.cfg.Model, said, a.notFoundFix())}
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		return &Error{Kind: KindUnavailable, Status: status, Err: err,
			Sentence: fmt.Sprintf("The model server at %s kept failing (HTTP %d after %s%s); try again in a while.", a.baseURL, status, triesText(tries), said)}
	case status >= 400:
		return &Error{Kind: KindRefused, Status: status, Err: err,
			Sentence: fmt.Sprintf("The model server at %s refused the request (HTTP %d%s); check ASSISTANT_MODEL and the server's tool-call settings.", a.baseURL, status, said)}
	}
	if isNoServer(err) {
		return &Error{Kind: KindUnreachable, Err: err, Sentence: a.unreachableSentence()}
	}
	if isConnError(err) {
		return &Error{Kind: KindUnavailable, Err: err,
			Sentence: fmt.Sprintf("The connection to the model server at %s kept failing (%s: %v); try again in a while.", a.baseURL, triesText(tries), err)}
	}
	var api *openai.APIError
	if errors.As(err, &api) {
		return &Error{Kind: KindRefused, Err: err,
			Sentence: fmt.Sprintf("The model server at %s stopped with an error%s.", a.baseURL, said)}
	}
	// The cause (a decoder's words, with Go type names) goes to the log;
	// the person gets a sentence of ours.
	a.log.Debug("model answer unreadable", "err", err)
	return &Error{Kind: KindProtocol, Err: err,
		Sentence: fmt.Sprintf("The answer of the model server at %s could not be read as a chat completion; check that OPENAI_BASE_URL points at an OpenAI-compatible /v1 endpoint.", a.baseURL)}
}

func (a *Agent) unreachableSentence() string {
	if a.local {
		return fmt.Sprintf("Nothing answers at %s: start Ollama with `ollama serve` and fetch the model with `ollama pull %s`, or set OPENAI_API_KEY, OPENAI_BASE_URL and ASSISTANT_MODEL to use another server.", a.baseURL, a.cfg.Model)
	}
	return fmt.Sprintf("Nothing answers at %s: start the model server there, or set OPENAI_BASE_URL to its address (it usually ends in /v1).", a.baseURL)
}

func (a *Agent) notFoundFix() string {
	if a.local {
		return fmt.Sprintf("fetch it with `ollama pull %s` or name another with ASSISTANT_MODEL.", a.cfg.Model)
	}
	return "name a model the server has with ASSISTANT_MODEL, and check that OPENAI_BASE_URL ends in /v1."
}

// triesText counts attempts in words: "1 try", "3 tries".
func triesText(n int) string {
	if n == 1 {
		return "1 try"
	}
	return fmt.Sprintf("%d tries", n)
}
