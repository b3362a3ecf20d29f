package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DefaultMaxConcurrent is how many requests one bearer token may have
// open at once over HTTP when Options.MaxConcurrent is zero; one more gets
// 429 Too Many Requests with Retry-After (RFC 6585 §4).
const DefaultMaxConcurrent = 8

// RetryAfterSeconds is the Retry-After of a 429 answer, in seconds.
const RetryAfterSeconds = 1

// LoopbackOrigin reports whether origin, the value of an Origin header
// (RFC 6454 §7), names a page served from this machine: http or https on
// localhost, 127.0.0.0/8 or [::1], any port.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originAllowed reports whether a request may come from origin: no Origin
// at all (not a browser's request), a loopback origin, or one of allowed
// (compared without case, as scheme://host[:port]).
func originAllowed(origin string, allowed []string) bool {
	if origin == "" || LoopbackOrigin(origin) {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	return false
}

// checkOrigin refuses with 403 a request whose Origin is not allowed, so
// a web page elsewhere cannot drive the server through a browser on this
// machine (MCP 2025-06-18, "Transports: Security Warning": validate the
// Origin header against DNS rebinding).
func checkOrigin(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); !originAllowed(o, allowed) {
			http.Error(w, "Requests from web pages at "+quoteCut(o)+" are refused; only pages on this machine may call this server (start it with --allow-origin to add one).", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// quoteCut quotes s, cut to 60 bytes on a rune boundary.
func quoteCut(s string) string {
	if len(s) > 60 {
		cut := 60
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return "“" + s + "”"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// perToken caps the requests each bearer token has open at once.
type perToken struct {
	max  int
	mu   sync.Mutex
	open map[string]int
}

// enter takes a slot for token, or reports false when all max are taken.
func (p *perToken) enter(token string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open[token] >= p.max {
		return false
	}
	p.open[token]++
	return true
}

func (p *perToken) leave(token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open[token]--; p.open[token] <= 0 {
		delete(p.open, token)
	}
}

// tooMany answers 429 with Retry-After (RFC 6585 §4, RFC 9110 §10.2.3).
func tooMany(w http.ResponseWriter, max int) {
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	http.Error(w, fmt.Sprintf("This token already has %d requests open, the most it may; wait for their answers, then send this again.", max), http.StatusTooManyRequests)
}

// checkBody reads the body of a POST, at most maxBody bytes, and answers
// a body that is not JSON-RPC itself, with a JSON-RPC error of ours (the
// same words as over stdio): the SDK would answer with its decoder's
// message in plain text. A good body is handed on to next whole.
func checkBody(maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			http.Error(w, fmt.Sprintf("The request body is larger than %d bytes, the most this server reads; send a smaller request.", maxBody), http.StatusRequestEntityTooLarge)
			return
		case err != nil:
			// A client too slow to send its body (ReadTimeout), or gone.
			http.Error(w, "The request body could not be read in time; send it whole, at once.", http.StatusRequestTimeout)
			return
		}
		if id, code, msg := checkMessages(bytes.TrimSpace(body)); msg != "" {
			rpcError(w, id, code, msg)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var id json.RawMessage
		if len(body) > 0 && body[0] == '{' {
			id = idOf(body)
		}
		words := &rpcWords{w: w, id: id}
		next.ServeHTTP(words, r)
		words.finish()
	})
}

// checkMessages checks body as one JSON-RPC message, as the stdio
// transport checks a line, and refuses a batch; msg is "" when it is good, else
// the error to answer with, its code and the id it answers (nil: null).
func checkMessages(body []byte) (id json.RawMessage, code int64, msg string) {
	if len(body) == 0 {
		return nil, jsonrpc.CodeInvalidRequest, prefixInvalidRequest + "the body is empty; send one JSON-RPC message."
	}
	if !json.Valid(body) {
		return nil, jsonrpc.CodeParseError, parseError(body)
	}
	if body[0] == '[' {
		// MCP 2025-06-18 dropped JSON-RPC batches, and the SDK's HTTP
		// handler would serve a batch's first call and drop the others.
		return nil, jsonrpc.CodeInvalidRequest, prefixInvalidRequest + "this server takes one JSON-RPC message per HTTP request, not a batch (a JSON array), as MCP 2025-06-18 has none; send each message in its own POST."
	}
	dm, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return idOf(body), jsonrpc.CodeInvalidRequest, invalidRequest(body)
	}
	if bad := badID(body); bad != "" {
		return idOf(body), jsonrpc.CodeInvalidRequest, bad
	}
	if bad := notMCP(dm); bad != "" {
		return idOf(body), jsonrpc.CodeInvalidRequest, bad
	}
	if r, ok := dm.(*jsonrpc.Request); ok {
		if bad := badParams(r); bad != "" {
			return idOf(body), jsonrpc.CodeInvalidParams, bad
		}
	}
	return nil, 0, ""
}

// rpcError writes a JSON-RPC error response (JSON-RPC 2.0 §5) as the body
// of a 400 answer.
func rpcError(w http.ResponseWriter, id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(append(b, '\n'))
}

// rpcWords wraps the ResponseWriter of one POST so that what the SDK
// answers in its own words reaches the client in ours: the error of every
// JSON-RPC response in the server-sent events (or JSON) it writes is
// reworded by [publicError], and a plain-text 400 about the JSON-RPC
// message itself ("JSON RPC not handled: …", "invalid request: …") becomes
// a JSON-RPC error answering id. Other answers pass through untouched.
type rpcWords struct {
	w      http.ResponseWriter
	id     json.RawMessage
	mode   int // 0: pass through; modePlain; modeEvents; modeJSON
	status int
	header bool // WriteHeader was called
	buf    bytes.Buffer
}

const (
	modePlain = 1 + iota
	modeEvents
	modeJSON
)

func (r *rpcWords) Header() http.Header { return r.w.Header() }

func (r *rpcWords) WriteHeader(status int) {
	if r.header {
		return
	}
	r.header = true
	ct := r.w.Header().Get("Content-Type")
	switch {
	case status == http.StatusBadRequest && strings.HasPrefix(ct, "text/plain"):
		r.mode, r.status = modePlain, status
		return // written by finish
	case strings.HasPrefix(ct, "text/event-stream"):
		r.mode = modeEvents
	case strings.HasPrefix(ct, "application/json"):
		r.mode, r.status = modeJSON, status
		r.w.Header().Del("Content-Length")
		return
	}
	r.w.WriteHeader(status)
}

func (r *rpcWords) Write(p []byte) (int, error) {
	if !r.header {
		r.WriteHeader(http.StatusOK)
	}
	switch r.mode {
	case modePlain, modeJSON:
		return r.buf.Write(p)
	case modeEvents:
		r.buf.Write(p)
		for {
			i := bytes.Index(r.buf.Bytes(), []byte("\n\n"))
			if i < 0 {
				return len(p), nil
			}
			event := rewordEvent(r.buf.Next(i + 2))
			if _, err := r.w.Write(event); err != nil {
				return 0, err
			}
		}
	}
	return r.w.Write(p)
}

// Flush passes a flush on, with whole events only; an answer held back
// whole is flushed by finish.
func (r *rpcWords) Flush() {
	if !r.header {
		r.WriteHeader(http.StatusOK)
	}
	if r.mode == modePlain || r.mode == modeJSON {
		return
	}
	if f, ok := r.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *rpcWords) Unwrap() http.ResponseWriter { return r.w }

// finish writes what was held back once the SDK is done.
func (r *rpcWords) finish() {
	switch r.mode {
	case modePlain:
		text := r.buf.String()
		code := int64(0)
		switch {
		case strings.HasPrefix(text, "JSON RPC not handled"):
			code = jsonrpc.CodeMethodNotFound
		case strings.HasPrefix(text, "invalid request"), strings.HasPrefix(text, "malformed payload"):
			code = jsonrpc.CodeInvalidRequest
		}
		if code == 0 {
			r.w.WriteHeader(r.status)
			_, _ = r.w.Write(r.buf.Bytes())
			return
		}
		r.w.Header().Del("X-Content-Type-Options")
		e := publicError(&jsonrpc.Error{Code: code})
		rpcError(r.w, r.id, e.Code, e.Message)
	case modeJSON:
		r.w.WriteHeader(r.status)
		_, _ = r.w.Write(rewordJSON(r.buf.Bytes()))
	case modeEvents:
		_, _ = r.w.Write(r.buf.Bytes())
	}
}

// rewordEvent rewords the JSON-RPC messages on the data lines of one
// server-sent event.
func rewordEvent(event []byte) []byte {
	lines := bytes.Split(event, []byte("\n"))
	for i, l := range lines {
		if data, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
			lines[i] = append([]byte("data: "), rewordJSON(data)...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// rewordJSON returns msg, one JSON-RPC message or a batch, with the error
// of each response reworded; anything else unchanged.
func rewordJSON(msg []byte) []byte {
	t := bytes.TrimSpace(msg)
	if len(t) == 0 || !bytes.Contains(t, []byte(`"error"`)) {
		return msg
	}
	if t[0] == '[' {
		var all []json.RawMessage
		if json.Unmarshal(t, &all) != nil {
			return msg
		}
		for i, m := range all {
			all[i] = rewordJSON(m)
		}
		b, err := json.Marshal(all)
		if err != nil {
			return msg
		}
		return b
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(t, &m) != nil || m["error"] == nil {
		return msg
	}
	var e jsonrpc.Error
	if json.Unmarshal(m["error"], &e) != nil {
		return msg
	}
	pe := publicError(&e)
	raw, err := json.Marshal(struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}{pe.Code, pe.Message, e.Data})
	if err != nil {
		return msg
	}
	m["error"] = raw
	b, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return b
}
