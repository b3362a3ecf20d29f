package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tools"
)

// tokenAuth is an Authenticator over a fixed map of tokens, counting its
// calls; "broken" makes the check itself fail.
type tokenAuth struct {
	people map[string]*tools.ToolContext
	n      atomic.Int64
}

func (a *tokenAuth) check(_ context.Context, token string) (*tools.ToolContext, error) {
	a.n.Add(1)
	if token == "broken" {
		return nil, errors.New("database is locked")
	}
	return a.people[token], nil
}

func newTokenAuth() *tokenAuth {
	return &tokenAuth{people: map[string]*tools.ToolContext{
		"tok-ada": personContext(1, "Ada"),
		"tok-bob": personContext(2, "Bob"),
	}}
}

// withHeader is an http.RoundTripper that sets an Authorization header.
type withHeader struct{ value string }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if h.value != "" {
		r.Header.Set("Authorization", h.value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// httpClient connects a go-sdk client to url with the given Authorization
// header value ("" for none).
func httpClient(ctx context.Context, url, authorization string) (*mcp.ClientSession, error) {
	t := &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: withHeader{authorization}},
		MaxRetries: -1,
	}
	return mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, t, nil)
}

func newHTTPServer(t *testing.T, reg *tools.Registry, a *tokenAuth, opts *Options) *httptest.Server {
	t.Helper()
	h, err := HTTPHandler(reg, a.check, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// post sends one raw JSON-RPC tools/call of whoami.
func post(t *testing.T, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	if body == "" {
		body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func TestHTTPPeopleAreIsolated(t *testing.T) {
	ts := newHTTPServer(t, testRegistry(nil), newTokenAuth(), nil)
	ctx := context.Background()
	for _, c := range []struct {
		header string
		name   string
		id     int64
	}{
		{"Bearer tok-ada", "Ada", 1},
		{"Bearer tok-bob", "Bob", 2},
		{"bearer   tok-ada ", "Ada", 1}, // the scheme is case-insensitive
	} {
		t.Run(c.header, func(t *testing.T) {
			cs, err := httpClient(ctx, ts.URL, c.header)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			// Several calls on one client: each request is checked on its
			// own and keeps its person.
			for range 3 {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
				if err != nil {
					t.Fatal(err)
				}
				if got, want := text(t, res), "You are "+c.name+"."; got != want {
					t.Errorf("text %q, want %q", got, want)
				}
				if !sameJSON(t, res.StructuredContent, map[string]any{"id": c.id, "name": c.name, "zone": "Europe/Paris"}) {
					t.Errorf("structuredContent %v, want person %d", res.StructuredContent, c.id)
				}
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count", Arguments: json.RawMessage(`{"n":"15","loud":"true","tags":"x"}`)})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || text(t, res) != "n=15 loud=true tags=x mood=calm" {
				t.Errorf("quirky arguments over HTTP: isError %t, text %q", res.IsError, text(t, res))
			}
		})
	}
}

func TestHTTPRefusals(t *testing.T) {
	var ran calls
	a := newTokenAuth()
	ts := newHTTPServer(t, testRegistry(&ran), a, &Options{MaxBodyBytes: 64 << 10})
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"text":"` +
		strings.Repeat("x", 100<<10) + `"}}}`
	cases := []struct {
		name      string
		header    map[string]string
		body      string
		status    int
		challenge string // the WWW-Authenticate header; "" for none
		ran       bool   // a tool ran
	}{
		{"right token", map[string]string{"Authorization": "Bearer tok-ada"}, "", http.StatusOK, "", true},
		{"no token", nil, "", http.StatusUnauthorized, `Bearer realm="assistant"`, false},
		{"empty bearer", map[string]string{"Authorization": "Bearer "}, "", http.StatusUnauthorized, `Bearer realm="assistant"`, false},
		{"other scheme", map[string]string{"Authorization": "Basic dG9rLWFkYTo="}, "", http.StatusUnauthorized, `Bearer realm="assistant"`, false},
		{"wrong token", map[string]string{"Authorization": "Bearer tok-eve"}, "", http.StatusUnauthorized, `Bearer realm="assistant", error="invalid_token"`, false},
		{"check fails", map[string]string{"Authorization": "Bearer broken"}, "", http.StatusInternalServerError, "", false},
		{"body too large", map[string]string{"Authorization": "Bearer tok-ada"}, big, http.StatusRequestEntityTooLarge, "", false},
		{"DNS rebinding", map[string]string{"Authorization": "Bearer tok-ada", "Host": "evil.example:80"}, "", http.StatusForbidden, "", false},
		{"wrong token, large body", map[string]string{"Authorization": "Bearer tok-eve"}, big, http.StatusUnauthorized, `Bearer realm="assistant", error="invalid_token"`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := ran.n.Load()
			res := post(t, ts.URL, c.header, c.body)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != c.status {
				t.Errorf("status %d, want %d (%s)", res.StatusCode, c.status, body)
			}
			if got := res.Header.Get("WWW-Authenticate"); got != c.challenge {
				t.Errorf("WWW-Authenticate %q, want %q", got, c.challenge)
			}
			if got := ran.n.Load() > before; got != c.ran {
				t.Errorf("a tool ran: %t, want %t", got, c.ran)
			}
			if c.ran && !strings.Contains(string(body), "You are Ada.") {
				t.Errorf("body %s lacks the answer", body)
			}
		})
	}
	// The go-sdk client reports a refused token as a failed connection.
	for _, h := range []string{"", "Bearer tok-eve"} {
		if cs, err := httpClient(context.Background(), ts.URL, h); err == nil {
			cs.Close()
			t.Errorf("client with Authorization %q connected", h)
		}
	}
}

func TestHTTPHandlerNeedsAuthenticator(t *testing.T) {
	if _, err := HTTPHandler(testRegistry(nil), nil, nil); err == nil {
		t.Error("HTTPHandler without an Authenticator was accepted")
	}
	if _, err := HTTPHandler(testRegistry(nil), newTokenAuth().check, &Options{Tools: []string{"nope"}}); err == nil {
		t.Error("HTTPHandler with an unknown tool was accepted")
	}
}

// TestServeDrains stops the server while a call is running: the call
// finishes and is answered, new connections are refused, Serve returns nil.
func TestServeDrains(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	reg := tools.NewRegistry()
	reg.Add(tools.Tool{Name: "slow", Description: "Waits to be released.", Handler: func(context.Context, *tools.ToolContext, *args.Args) tools.ExecResult {
		close(started)
		<-release
		return tools.Success("done")
	}})
	h, err := HTTPHandler(reg, newTokenAuth().check, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, h, nil) }()

	cs, err := httpClient(context.Background(), "http://"+addr, "Bearer tok-ada")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	answered := make(chan *mcp.CallToolResult, 1)
	failed := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow"})
		if err != nil {
			failed <- err
			return
		}
		answered <- res
	}()
	<-started
	stop()
	// Wait until the listener is closed, proof that shutdown began while
	// the call was still running.
	for deadline := time.Now().Add(10 * time.Second); ; {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("the listener still accepts connections after the stop")
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	select {
	case res := <-answered:
		if res.IsError || text(t, res) != "done" {
			t.Errorf("drained call: isError %t, text %q", res.IsError, text(t, res))
		}
	case err := <-failed:
		t.Fatalf("the running call was cut off: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve returned %v, want nil after a clean drain", err)
	}
}

func TestServeHTTPBindError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := ServeHTTP(context.Background(), ln.Addr().String(), http.NotFoundHandler()); err == nil {
		t.Error("ServeHTTP on a taken address returned nil")
	}
}

func TestListen(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cases := []struct {
		addr     string
		want     error // nil: it binds
		loopback bool
	}{
		{"banana", ErrBadAddr, false},
		{"127.0.0.1", ErrBadAddr, false},
		{"127.0.0.1:", ErrBadAddr, false},
		{"127.0.0.1:99999", ErrBadAddr, false},
		{"192.0.2.1:0", ErrHostNotHere, false}, // TEST-NET-1 (RFC 5737): no machine has it
		{taken.Addr().String(), ErrAddrInUse, false},
		{"127.0.0.1:0", nil, true},
		{"[::1]:0", nil, true},
		{"0.0.0.0:0", nil, false},
	}
	for _, c := range cases {
		ln, err := Listen(context.Background(), c.addr)
		if c.want != nil {
			if !errors.Is(err, c.want) {
				t.Errorf("Listen(%q): %v, want %v", c.addr, err, c.want)
			}
			if ln != nil {
				ln.Close()
			}
			continue
		}
		if err != nil {
			if c.addr == "[::1]:0" {
				continue // a machine without IPv6 loopback
			}
			t.Errorf("Listen(%q): %v", c.addr, err)
			continue
		}
		if got := Loopback(ln.Addr()); got != c.loopback {
			t.Errorf("Loopback(%v) = %t, want %t", ln.Addr(), got, c.loopback)
		}
		ln.Close()
	}
}
