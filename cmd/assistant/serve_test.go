package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/mcpserver"
	"github.com/assistant-dev/assistant/store"
)

// serveFixture is the HTTP server of `assistant serve` on a real SQLite
// store with one person and their token.
type serveFixture struct {
	url   string // the server's root, without the final "/"
	token string // alice's
	f     fronts
}

func newServeFixture(t *testing.T, feed http.Handler) *serveFixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "assistant.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p, err := st.AddPerson(ctx, "alice", "Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := st.CreateToken(ctx, p.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	a := newApp(strings.NewReader(""), io.Discard, io.Discard)
	f, err := a.httpFronts(st, newRegistry(), &mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Feed = feed
	ts := httptest.NewServer(f.handler())
	t.Cleanup(ts.Close)
	return &serveFixture{url: ts.URL, token: token, f: f}
}

// do sends method to path with headers and body, and returns the answer
// with its body read.
func (s *serveFixture) do(t *testing.T, method, path string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// mcpList posts a tools/list to path with alice's token (or none).
func (s *serveFixture) mcpList(t *testing.T, path string, withToken bool) (*http.Response, string) {
	h := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	if withToken {
		h["Authorization"] = "Bearer " + s.token
	}
	return s.do(t, http.MethodPost, path, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
}

// isMCPAnswer reports whether res came from the MCP handler: a tool list,
// its Bearer challenge, or what the MCP handler alone answers to the same
// request.
func (s *serveFixture) isMCPAnswer(t *testing.T, method, path string, header map[string]string, res *http.Response, body string) bool {
	t.Helper()
	if strings.Contains(body, `"tools"`) || strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
		return true
	}
	req := httptest.NewRequest(method, s.url+path, strings.NewReader(""))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.f.MCP.ServeHTTP(rec, req)
	return rec.Code == res.StatusCode && rec.Body.String() == body
}

// short cuts a body for a test's message.
func short(body string) string {
	if len(body) > 300 {
		return body[:300] + "…"
	}
	return body
}

// TestServeRoutes checks the paths of the one HTTP server: MCP at /mcp and
// /mcp/ only, CalDAV at /.well-known/caldav, /dav/ and the root for its
// methods, a page of endpoints at GET /, and a 404 sentence elsewhere.
func TestServeRoutes(t *testing.T) {
	s := newServeFixture(t, nil)

	for _, path := range []string{"/mcp", "/mcp/"} {
		if res, body := s.mcpList(t, path, true); res.StatusCode != http.StatusOK || !strings.Contains(body, "add_task") {
			t.Errorf("tools/list at %s: %d %s, want 200 with the tools", path, res.StatusCode, short(body))
		}
	}
	if res, _ := s.mcpList(t, "/mcp", false); res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("tools/list at /mcp without a token: %d %q, want 401 with a Bearer challenge", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
	// MCP once answered every path; now only /mcp does.
	for _, path := range []string{"/other", "/mcp/x", "/mcpx"} {
		res, body := s.mcpList(t, path, true)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(body, "Nothing is served at "+path) {
			t.Errorf("tools/list at %s: %d %s, want 404 saying nothing is served there", path, res.StatusCode, short(body))
		}
	}
	if res, body := s.mcpList(t, "/", true); res.StatusCode != http.StatusNotFound || !strings.Contains(body, "MCP is served at "+s.url+"/mcp") {
		t.Errorf("tools/list at /: %d %s, want 404 naming %s/mcp", res.StatusCode, short(body), s.url)
	}

	// CalDAV: a bearer token is no Basic sign-in, so these answer 401 with
	// a Basic challenge (the well-known address a 301 to /dav/); never
	// MCP's answer, and not the mux's 404.
	for _, c := range []struct{ method, path string }{
		{"PROPFIND", "/.well-known/caldav"}, {"PROPFIND", "/"}, {"OPTIONS", "/"},
		{"PROPFIND", "/dav/me/"}, {"REPORT", "/dav/me/calendars/events/"}, {"PROPFIND", "/dav"},
	} {
		h := map[string]string{"Authorization": "Bearer " + s.token, "Depth": "0"}
		res, body := s.do(t, c.method, c.path, h, "")
		caldav := (res.StatusCode == http.StatusUnauthorized && strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Basic ")) ||
			(c.path == "/.well-known/caldav" && res.StatusCode == http.StatusMovedPermanently && res.Header.Get("Location") == "/dav/")
		if !caldav || s.isMCPAnswer(t, c.method, c.path, h, res, body) {
			t.Errorf("%s %s: %d %q %s, want CalDAV's answer", c.method, c.path, res.StatusCode, res.Header.Get("WWW-Authenticate"), short(body))
		}
		// MCP's origin check does not wrap CalDAV: a page's Origin
		// changes nothing of its answer.
		h["Origin"] = "https://elsewhere.example"
		if res2, _ := s.do(t, c.method, c.path, h, ""); res2.StatusCode != res.StatusCode {
			t.Errorf("%s %s with an Origin: %d, want %d as without one", c.method, c.path, res2.StatusCode, res.StatusCode)
		}
	}
	if res, body := s.mcpList(t, "/mcp", true); res.StatusCode != http.StatusOK {
		t.Errorf("MCP after CalDAV requests: %d %s", res.StatusCode, short(body))
	}

	res, body := s.do(t, http.MethodGet, "/", nil, "")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") ||
		!strings.Contains(body, s.url+"/mcp\n") || !strings.Contains(body, "CalDAV") || !strings.Contains(body, s.url+"/\n") {
		t.Errorf("GET /: %d %s\n%s\nwant the MCP URL and the CalDAV account address %s/", res.StatusCode, res.Header.Get("Content-Type"), body, s.url)
	}
	if strings.Contains(body, "/feed/") {
		t.Errorf("GET / names a feed this server does not serve:\n%s", body)
	}
	if res, body := s.do(t, http.MethodHead, "/", nil, ""); res.StatusCode != http.StatusOK || body != "" {
		t.Errorf("HEAD /: %d %q, want 200 and no body", res.StatusCode, body)
	}
	if res, _ := s.do(t, http.MethodGet, "/feed/x.ics", nil, ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /feed/x.ics with no feed served: %d, want 404", res.StatusCode)
	}

	// Behind a reverse proxy, the page names the address clients use.
	_, body = s.do(t, http.MethodGet, "/", map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "cal.example"}, "")
	if !strings.Contains(body, "https://cal.example/mcp\n") || !strings.Contains(body, "https://cal.example/\n") {
		t.Errorf("GET / through a proxy for https://cal.example:\n%s", body)
	}
}

// TestServeFeedMount checks the feed's mount: a handler set in
// fronts.Feed answers /feed/… and the page of GET / names it.
func TestServeFeedMount(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s3cret.ics"), []byte("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newServeFixture(t, http.StripPrefix(feedPrefix, http.FileServer(http.Dir(dir))))
	if res, body := s.do(t, http.MethodGet, "/feed/s3cret.ics", nil, ""); res.StatusCode != http.StatusOK || !strings.HasPrefix(body, "BEGIN:VCALENDAR") {
		t.Errorf("GET /feed/s3cret.ics: %d %s, want the file", res.StatusCode, body)
	}
	if _, body := s.do(t, http.MethodGet, "/", nil, ""); !strings.Contains(body, s.url+"/feed/SECRET.ics") {
		t.Errorf("GET / does not name the feed:\n%s", body)
	}
	if res, body := s.mcpList(t, "/feed/s3cret.ics", true); strings.Contains(body, `"tools"`) {
		t.Errorf("tools/list at /feed/s3cret.ics reached MCP: %d %s", res.StatusCode, short(body))
	}
}
