package mcpserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tools"
)

// heldTools is a registry of two tools that work until told: "hold"
// waits for release (or its context) and "spin" counts until its context
// is done. started gets a token as each begins.
type heldTools struct {
	reg     *tools.Registry
	started chan string
	release chan struct{}
	spins   atomic.Int64 // iterations of spin
	stopped atomic.Bool  // spin saw its context done
	quit    atomic.Bool  // set by the test's cleanup: spin ends
	ended   chan struct{}
}

func newHeldTools() *heldTools {
	h := &heldTools{reg: tools.NewRegistry(), started: make(chan string, 16), release: make(chan struct{}), ended: make(chan struct{}, 16)}
	h.reg.Log = slog.New(slog.DiscardHandler)
	h.reg.Add(tools.Tool{Name: "hold", Description: "Waits to be released.", ReadOnly: true,
		Handler: func(ctx context.Context, _ *tools.ToolContext, _ *args.Args) tools.ExecResult {
			h.started <- "hold"
			select {
			case <-h.release:
				return tools.Success("released")
			case <-ctx.Done():
				return tools.Internal(ctx.Err())
			}
		}})
	h.reg.Add(tools.Tool{Name: "spin", Description: "Counts until stopped.", ReadOnly: true,
		Handler: func(ctx context.Context, _ *tools.ToolContext, _ *args.Args) tools.ExecResult {
			defer func() { h.ended <- struct{}{} }()
			h.started <- "spin"
			for i := 0; i < 1<<40; i++ {
				if ctx.Err() != nil {
					h.stopped.Store(true)
					return tools.Internal(ctx.Err())
				}
				if h.quit.Load() {
					return tools.Success("told to end")
				}
				h.spins.Add(1)
				if i%1024 == 0 {
					time.Sleep(time.Millisecond) // leave the CPU to the client
				}
			}
			return tools.Success("counted to the end")
		}})
	return h
}

// TestHTTPCancelledRequestStopsItsTool cancels an HTTP request while its
// tool works: the tool's context is done, it stops, and no iteration runs
// after it returned.
func TestHTTPCancelledRequestStopsItsTool(t *testing.T) {
	h := newHeldTools()
	h.reg.CallTimeout = -1 // no deadline: only the cancel can stop spin
	ts := newHTTPServer(t, h.reg, newTokenAuth(), nil)
	t.Cleanup(func() { h.quit.Store(true) }) // before ts closes, so a failure cannot hang it
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"spin","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok-ada")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	errc := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			_, err = io.ReadAll(res.Body)
			res.Body.Close()
		}
		errc <- err
	}()
	<-h.started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled request ended with %v", err)
	}
	select {
	case <-h.ended:
	case <-time.After(60 * time.Second):
		t.Fatal("spin still runs 60 s after its request was cancelled")
	}
	if !h.stopped.Load() {
		t.Error("spin ended without seeing its context done")
	}
	after := h.spins.Load()
	if h.spins.Load() != after {
		t.Error("spin counted on after it returned")
	}
	// A call that meets its deadline is stopped the same way, and says so.
	d := newHeldTools()
	d.reg.CallTimeout = time.Millisecond
	ts = newHTTPServer(t, d.reg, newTokenAuth(), nil)
	res, body := rawPost(t, ts.URL, "tok-ada", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spin","arguments":{}}}`)
	// On a loaded machine the millisecond may pass before spin starts,
	// and a call whose context is done does not start; when it did
	// start, it must end, stopped by its context.
	ran := false
	select {
	case <-d.started:
		ran = true
	default:
	}
	if ran {
		select {
		case <-d.ended:
		case <-time.After(60 * time.Second):
			t.Fatal("spin still runs 60 s after its deadline")
		}
	}
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "took longer than the 1ms a call may run") || (ran && !d.stopped.Load()) {
		t.Errorf("a call past its deadline: %d %s, want the deadline's sentence", res.StatusCode, body)
	}
}

// rawPost posts body with a bearer token and returns the answer and its
// body.
func rawPost(t *testing.T, url, token, body string) (*http.Response, string) {
	t.Helper()
	header := map[string]string{}
	if token != "" {
		header["Authorization"] = "Bearer " + token
	}
	res := post(t, url, header, body)
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestHTTPConcurrentPerToken holds as many calls as a token may have open:
// one more gets 429 with Retry-After and runs nothing, another token is
// still served, and once a call ends the token is served again.
func TestHTTPConcurrentPerToken(t *testing.T) {
	h := newHeldTools()
	ts := newHTTPServer(t, h.reg, newTokenAuth(), &Options{MaxConcurrent: 2})
	hold := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold","arguments":{}}}`
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if res, body := rawPost(t, ts.URL, "tok-ada", hold); res.StatusCode != http.StatusOK || !strings.Contains(body, "released") {
				t.Errorf("a held call: %d %s", res.StatusCode, body)
			}
		})
	}
	<-h.started
	<-h.started
	res, body := rawPost(t, ts.URL, "tok-ada", hold)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" || !strings.Contains(body, "2 requests open") {
		t.Errorf("the third call of one token: %d, Retry-After %q, %s; want 429 with Retry-After 1", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	select {
	case tool := <-h.started:
		t.Errorf("the refused call ran %s", tool)
	default:
	}
	// Another token has slots of its own.
	wg.Go(func() {
		if res, body := rawPost(t, ts.URL, "tok-bob", hold); res.StatusCode != http.StatusOK {
			t.Errorf("another token's call: %d %s", res.StatusCode, body)
		}
	})
	<-h.started
	close(h.release)
	wg.Wait()
	if res, body := rawPost(t, ts.URL, "tok-ada", hold); res.StatusCode != http.StatusOK {
		t.Errorf("a call once the others ended: %d %s", res.StatusCode, body)
	}
}

// TestHTTPSlowClient announces a body of 100 bytes and sends one: the
// server closes the connection once its read timeout passes, and a client
// that sends nothing after connecting is closed too.
func TestHTTPSlowClient(t *testing.T) {
	h, err := HTTPHandler(newHeldTools().reg, newTokenAuth().check, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, ln, h, &ServeOptions{ReadHeaderTimeout: 100 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, WriteTimeout: time.Second, IdleTimeout: 200 * time.Millisecond})
	}()
	defer func() {
		cancel()
		<-served
	}()
	for _, c := range []struct{ name, send string }{
		{"a body cut short", "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer tok-ada\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"},
		{"headers cut short", "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n"},
		{"nothing", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, c.send); err != nil {
				t.Fatal(err)
			}
			// Only a guard against a hang: the server must close first.
			_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
			_, err = io.Copy(io.Discard, conn)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the server held the connection for 60 s")
			}
		})
	}
}

// TestHTTPOrigin refuses a browser's request from a page elsewhere (DNS
// rebinding) and serves pages on this machine and the origins allowed.
func TestHTTPOrigin(t *testing.T) {
	var ran calls
	ts := newHTTPServer(t, testRegistry(&ran), newTokenAuth(), &Options{AllowedOrigins: []string{"https://app.example"}})
	for _, c := range []struct {
		origin string
		status int
	}{
		{"", http.StatusOK},
		{"http://localhost:3000", http.StatusOK},
		{"http://127.0.0.1:8765", http.StatusOK},
		{"http://[::1]", http.StatusOK},
		{"https://app.example", http.StatusOK},
		{"https://evil.example", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		before := ran.n.Load()
		header := map[string]string{"Authorization": "Bearer tok-ada"}
		if c.origin != "" {
			header["Origin"] = c.origin
		}
		res := post(t, ts.URL, header, "")
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != c.status {
			t.Errorf("Origin %q: %d %s, want %d", c.origin, res.StatusCode, body, c.status)
		}
		if ranNow := ran.n.Load() > before; ranNow != (c.status == http.StatusOK) {
			t.Errorf("Origin %q: a tool ran: %t", c.origin, ranNow)
		}
	}
}

// TestHTTPProtocolErrors posts bodies that are not JSON-RPC: each is
// answered with its JSON-RPC code and a sentence of ours, and runs nothing.
func TestHTTPProtocolErrors(t *testing.T) {
	var ran calls
	ts := newHTTPServer(t, testRegistry(&ran), newTokenAuth(), nil)
	for _, c := range []struct {
		name, body string
		code       int64
		id         string
	}{
		{"a literal cut", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":th}}`, -32700, "null"},
		{"cut short", `{"jsonrpc":"2.0","id":1,"method":"tools/call"`, -32700, "null"},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/call","params":{"name":"whoami"}}`, -32600, "null"},
		{"no version", `{"id":2,"method":"tools/call","params":{"name":"whoami"}}`, -32600, "2"},
		{"a name not a string", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5}}`, -32602, "3"},
		{"a batch with a bad member", `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"x":1}]`, -32600, "null"},
		// No batches over HTTP (MCP 2025-06-18): the SDK ran the first call
		// and dropped the second.
		{"a batch of two calls", `[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"whoami"}},{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"whoami"}}]`, -32600, "null"},
		// An id the SDK would answer as another number is refused, echoed.
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"whoami"}}`, -32600, "1.5"},
		{"an id past int64", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call","params":{"name":"whoami"}}`, -32600, "12345678901234567890"},
		{"an exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"tools/call","params":{"name":"whoami"}}`, -32600, "1e3"},
		{"an id past 2^53", `{"jsonrpc":"2.0","id":-9007199254740993,"method":"tools/call","params":{"name":"whoami"}}`, -32600, "-9007199254740993"},
		// Neither a call nor an answer: the SDK took it for an answer and
		// said 202 with nothing.
		{"an id alone", `{"jsonrpc":"2.0","id":7}`, -32600, "7"},
		// A call without an id would go unanswered; the SDK's sentence
		// said to send initialize first, which HTTP here never needs.
		{"a call without an id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"whoami"}}`, -32600, "null"},
		{"a call with a null id", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"whoami"}}`, -32600, "null"},
	} {
		res, body := rawPost(t, ts.URL, "tok-ada", c.body)
		var r reply
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil {
			t.Errorf("%s: %d %q, want a JSON-RPC error", c.name, res.StatusCode, body)
			continue
		}
		if r.Error.Code != c.code || string(r.ID) != c.id {
			t.Errorf("%s: error %d with id %s, want %d with id %s", c.name, r.Error.Code, r.ID, c.code, c.id)
		}
		checkOwnWords(t, c.name, r.Error.Message)
		if strings.Contains(c.name, "without an id") || strings.Contains(c.name, "null id") {
			if !strings.Contains(r.Error.Message, "needs an “id”") || strings.Contains(r.Error.Message, "initialize") {
				t.Errorf("%s: %q, want it to ask for an id", c.name, r.Error.Message)
			}
		}
	}
	if n := ran.n.Load(); n != 0 {
		t.Errorf("%d tools ran", n)
	}
	// The unknown tool, found inside the SDK, is worded by us too.
	cs, err := httpClient(context.Background(), ts.URL, "Bearer tok-ada")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoamii"})
	if err == nil || !strings.Contains(err.Error(), "did you mean “whoami”") {
		t.Errorf("unknown tool over HTTP: %v", err)
	}
}

// TestServeTLS serves HTTPS with a certificate and key from PEM files: a
// client that trusts the certificate is answered.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := HTTPHandler(testRegistry(nil), newTokenAuth().check, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, h, &ServeOptions{CertFile: certFile, KeyFile: keyFile}) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest(http.MethodPost, "https://"+ln.Addr().String()+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`))
	req.Header.Set("Authorization", "Bearer tok-ada")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "You are Ada.") {
		t.Errorf("over HTTPS: %d %s", res.StatusCode, body)
	}
}

// TestHTTPSDKErrorsInOurWords sends messages the SDK itself refuses (an
// unknown method, params of the wrong type, an id on a notification):
// each answer is a JSON-RPC error whose message is ours.
func TestHTTPSDKErrorsInOurWords(t *testing.T) {
	ts := newHTTPServer(t, testRegistry(nil), newTokenAuth(), nil)
	for _, c := range []struct {
		name, body string
		code       int64
	}{
		{"an unknown method", `{"jsonrpc":"2.0","id":1,"method":"nope"}`, -32601},
		{"initialize params of the wrong type", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":5}}`, -32602},
		{"a cursor not a string", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":5}}`, -32602},
		{"an id on a notification", `{"jsonrpc":"2.0","method":"notifications/initialized","id":5}`, -32600},
	} {
		_, body := rawPost(t, ts.URL, "tok-ada", c.body)
		data := body
		if i := strings.Index(body, "data: "); i >= 0 {
			data = strings.TrimSpace(body[i+len("data: "):])
		}
		var r reply
		if err := json.Unmarshal([]byte(data), &r); err != nil || r.Error == nil {
			t.Errorf("%s: answered %q, want a JSON-RPC error", c.name, body)
			continue
		}
		if r.Error.Code != c.code {
			t.Errorf("%s: code %d, want %d", c.name, r.Error.Code, c.code)
		}
		checkOwnWords(t, c.name, r.Error.Message)
	}
	// A good call still streams its answer.
	if _, body := rawPost(t, ts.URL, "tok-ada", ""); !strings.Contains(body, "You are Ada.") {
		t.Errorf("whoami: %s", body)
	}
}

// Host names are compared without case (RFC 3986 §3.2.2), in the Host
// header as in Origin: LOCALHOST is this machine, evil.example is not.
func TestHTTPHostCase(t *testing.T) {
	ts := newHTTPServer(t, testRegistry(nil), newTokenAuth(), nil)
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	for _, c := range []struct {
		host, origin string
		status       int
	}{
		{"LOCALHOST:" + port, "", http.StatusOK},
		{"LocalHost:" + port, "http://LOCALHOST:" + port, http.StatusOK},
		{"127.0.0.1:" + port, "HTTP://LOCALHOST:" + port, http.StatusOK},
		{"EVIL.example:" + port, "", http.StatusForbidden},
	} {
		res := post(t, ts.URL, map[string]string{"Authorization": "Bearer tok-ada", "Host": c.host, "Origin": c.origin}, "")
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != c.status {
			t.Errorf("Host %q, Origin %q: %d %s, want %d", c.host, c.origin, res.StatusCode, body, c.status)
		}
	}
}
