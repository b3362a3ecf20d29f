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
		next.ServeHTTP(w, r)
	})
}

// checkMessages checks body as one JSON-RPC message or a batch of them,
// as the stdio transport checks a line; msg is "" when it is good, else
// the error to answer with, its code and the id it answers (nil: null).
func checkMessages(body []byte) (id json.RawMessage, code int64, msg string) {
	if len(body) == 0 {
		return nil, jsonrpc.CodeInvalidRequest, prefixInvalidRequest + "the body is empty; send one JSON-RPC message."
	}
	if !json.Valid(body) {
		return nil, jsonrpc.CodeParseError, parseError(body)
	}
	members := []json.RawMessage{body}
	if body[0] == '[' {
		if json.Unmarshal(body, &members) != nil || len(members) == 0 {
			return nil, jsonrpc.CodeInvalidRequest, prefixInvalidRequest + "the batch is empty; send at least one message in it."
		}
	}
	for _, m := range members {
		dm, err := jsonrpc.DecodeMessage(m)
		if err != nil {
			return idOf(m), jsonrpc.CodeInvalidRequest, invalidRequest(m)
		}
		if r, ok := dm.(*jsonrpc.Request); ok {
			if bad := badParams(r); bad != "" {
				return idOf(m), jsonrpc.CodeInvalidParams, bad
			}
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
