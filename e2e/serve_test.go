package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestBinaryServe runs `assistant serve --http` and `assistant mcp --http`
// as built: each serves, on one port, MCP at /mcp (a go-sdk client
// initializes and calls a tool), CalDAV at /.well-known/caldav, and a page
// naming the endpoints at GET /; MCP answers nowhere else, the log names
// the URLs, and SIGTERM stops it with exit 0.
func TestBinaryServe(t *testing.T) { storetest.Engines(t, testBinaryServe) }

func testBinaryServe(t *testing.T) {
	h := newMCPHome(t)
	h.run(t, "person", "add", "alice", "--zone", "Europe/Paris")
	token := strings.TrimSpace(h.run(t, "token", "create", "--person", "alice"))
	for _, command := range []string{"serve", "mcp"} {
		t.Run(command, func(t *testing.T) {
			s := h.startServer(t, command)
			s.wait(t)
			root := strings.TrimSuffix(s.url, "mcp")
			ctx := context.Background()

			cs, err := httpClient(ctx, s.url, "Bearer "+token)
			if err != nil {
				t.Fatalf("MCP initialize at %s: %v\n%s", s.url, err, s.stderr.String())
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_task", Arguments: map[string]any{"title": "Served by " + command}})
			if err != nil || res.IsError || !strings.Contains(text(t, res), "Served by "+command) {
				t.Errorf("add_task over MCP at %s: %v %v", s.url, res, err)
			}
			cs.Close()

			// PROPFIND /.well-known/caldav answers CalDAV's redirect to
			// /dav/ (RFC 6764), neither MCP's answer to the same request
			// nor 404.
			davStatus, davBody := send(t, "PROPFIND", root+".well-known/caldav", map[string]string{"Depth": "0"})
			mcpStatus, mcpBody := send(t, "PROPFIND", s.url, map[string]string{"Depth": "0"})
			// The client follows the redirect to /dav/, which asks for a
			// Basic sign-in.
			if davStatus != http.StatusUnauthorized || !strings.Contains(davBody, "Sign in") || (davStatus == mcpStatus && davBody == mcpBody) {
				t.Errorf("PROPFIND /.well-known/caldav: %d %q, want CalDAV's answer, not 404 and not MCP's (%d %q)", davStatus, davBody, mcpStatus, mcpBody)
			}

			status, page := send(t, http.MethodGet, root, nil)
			if status != http.StatusOK || !strings.Contains(page, s.url+"\n") || !strings.Contains(page, "CalDAV") || !strings.Contains(page, root+"\n") {
				t.Errorf("GET %s: %d\n%s\nwant the MCP URL %s and the CalDAV account address %s", root, status, page, s.url, root)
			}

			// MCP once answered every path; now /mcp alone.
			if resp, body := rawCall(t, root+"tools", "Bearer "+token, "list_tasks", `{}`); resp.StatusCode != http.StatusNotFound || strings.Contains(body, "Served by") {
				t.Errorf("a tool call at %stools: %d %s, want 404", root, resp.StatusCode, body)
			}

			log := s.stderr.String()
			for _, want := range []string{`"url":"` + s.url + `"`, `"caldav":"` + root + `"`, "serving MCP"} {
				if !strings.Contains(log, want) {
					t.Errorf("the log does not name %s:\n%s", want, log)
				}
			}
			s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(30 * time.Second):
				t.Fatalf("still serving 30 s after SIGTERM:\n%s", s.stderr.String())
			}
			if s.err != nil || !strings.Contains(s.stderr.String(), "stopped serving MCP") {
				t.Errorf("after SIGTERM: %v, want exit 0 and the stop logged:\n%s", s.err, s.stderr.String())
			}
		})
	}
}

// send sends a request with no body and returns the status and body.
func send(t *testing.T, method, url string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
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
	return res.StatusCode, string(b)
}

// TestBinaryServeRefuses gives `assistant serve` what `assistant mcp
// --http` refuses: the same sentences, exit 1, nothing served. Its --http
// has a default, so an empty one is a wrong value too.
func TestBinaryServeRefuses(t *testing.T) {
	h := newMCPHome(t)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"--http", "0.0.0.0:0"}, "“--http 0.0.0.0:0” reaches beyond this machine, where bearer tokens and data would travel in clear text; serve HTTPS with --tls-cert and --tls-key, or put a reverse proxy with TLS in front and add --behind-tls-proxy"},
		{[]string{"--http", "banana"}, "“--http” must be host:port such as 127.0.0.1:8765, not “banana”."},
		{[]string{"--http", ""}, "“--http” must be host:port such as 127.0.0.1:8765, not “”."},
		{[]string{"--http", "127.0.0.1:0", "--max-concurrent", "0"}, "“--max-concurrent” must be at least 1"},
		{[]string{"--http", "127.0.0.1:0", "--tls-cert", "cert.pem"}, "“--tls-cert” and “--tls-key” go together"},
	} {
		cmd := h.command(context.Background(), append([]string{"serve"}, c.argv...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if got := stderr.String(); !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(got, c.want) || strings.Contains(got, "serving MCP") {
			t.Errorf("serve %s: %v, stderr %q; want exit 1, %q and no claim to be serving", strings.Join(c.argv, " "), err, got, c.want)
		}
	}
	if help := h.run(t, "serve", "--help"); !strings.Contains(help, `--http string`) || !strings.Contains(help, `(default "127.0.0.1:8765")`) {
		t.Errorf("serve --help does not show --http's default 127.0.0.1:8765:\n%s", help)
	}
}
