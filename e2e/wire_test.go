package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/mcpserver"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// What crosses each wire, as go-sdk's conformance files keep it: each
// testdata/wire/mcp_*.txtar holds a "client" file (the JSON-RPC messages
// a client sends, in order) and, for each transport, the messages the real
// server sent back ("stdio": `assistant mcp` run as a subprocess; "http":
// the streamable HTTP handler behind an httptest server, one POST per
// message). Run with -update to rewrite the answers from what the server
// says now, then read the diff: it is the change a client meets.
//
// Only what really varies is normalised (each archive's comment says so
// too): serverInfo.version, the build's version, reads "VERSION". The
// clock is fixed (2026-10-05T09:00+02:00, Europe/Paris) and ids are the
// client's own, so nothing else varies.

// wireLimit bounds one exchange, so a server that never answers fails the
// test instead of hanging it; it is a guard, not a measurement.
const wireLimit = 2 * time.Minute

func TestMCPWire(t *testing.T) { storetest.Engines(t, testMCPWire) }

func testMCPWire(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "wire", "mcp_*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata/wire/mcp_*.txtar (%v)", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(string(raw))
			script, ok := a.file("client")
			if !ok {
				t.Fatalf("%s has no client file", path)
			}
			msgs := clientMessages(t, script)
			got := map[string]string{
				"stdio": stdioExchange(t, msgs),
				"http":  httpExchange(t, msgs),
			}
			for _, name := range []string{"stdio", "http"} {
				checkArchiveFile(t, path, a, name, got[name])
			}
			if *update {
				if err := os.WriteFile(path, a.format(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// checkArchiveFile compares got with the file name of a, or puts got in a
// when -update is set.
func checkArchiveFile(t *testing.T, path string, a *archive, name, got string) {
	t.Helper()
	if *update {
		a.set(name, got)
		return
	}
	want, ok := a.file(name)
	if !ok {
		t.Errorf("%s has no %q file; write it with: go test ./e2e -run %s -update", path, name, t.Name())
		return
	}
	if got != want {
		t.Errorf("%s: %s differs from what crossed the wire (go test ./e2e -run '%s' -update rewrites it):\n%s",
			path, name, t.Name(), lineDiff(want, got))
	}
}

// lineDiff names the first line where want and got part, with a little of
// each around it.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		if i < len(w) && i < len(g) && w[i] == g[i] {
			continue
		}
		at := func(l []string) string {
			lo, hi := max(0, i-3), min(len(l), i+4)
			if lo >= hi {
				return "(nothing)"
			}
			return strings.Join(l[lo:hi], "\n")
		}
		return fmt.Sprintf("line %d:\nwant:\n%s\ngot:\n%s", i+1, at(w), at(g))
	}
	return "(no line differs)"
}

// clientMessages reads the JSON values of a client file (one per line or
// spread over several) as compact JSON.
func clientMessages(t *testing.T, script string) []json.RawMessage {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(script))
	var out []json.RawMessage
	for {
		var m json.RawMessage
		if err := dec.Decode(&m); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("client file: %v", err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, m); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Bytes())
	}
}

// messageID is the id of a JSON-RPC message, as written ("" for a
// notification).
func messageID(m []byte) string {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(m, &v)
	return string(v.ID)
}

// normalise indents one message the server sent, keeping its key order,
// and replaces what varies from build to build.
func normalise(t *testing.T, m []byte) string {
	t.Helper()
	var v struct {
		Result struct {
			ServerInfo struct {
				Version string `json:"version"`
			} `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal(m, &v); err != nil {
		t.Fatalf("the server sent no JSON: %q", m)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, m, "", "\t"); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if ver := v.Result.ServerInfo.Version; ver != "" {
		quoted, _ := json.Marshal(ver)
		s = strings.Replace(s, `"version": `+string(quoted), `"version": "VERSION"`, 1)
	}
	return s + "\n"
}

// stdioExchange runs `assistant mcp` in a fresh home, writes the client's
// messages on its standard input one line each, waits after each request
// for the answer with its id, and returns every line the server wrote.
func stdioExchange(t *testing.T, msgs []json.RawMessage) string {
	t.Helper()
	h := newMCPHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), wireLimit)
	defer cancel()
	cmd := h.command(ctx, "mcp")
	stdin, stdout, stderr := startPiped(t, cmd)
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	var out strings.Builder
	for _, m := range msgs {
		if _, err := stdin.Write(append(m, '\n')); err != nil {
			t.Fatalf("writing %s: %v\n%s", m, err, stderr.String())
		}
		id := messageID(m)
		if id == "" || isResponse(m) {
			continue
		}
		for {
			line, ok := <-lines
			if !ok {
				t.Fatalf("the server ended before answering %s\n%s", m, stderr.String())
			}
			out.WriteString(normalise(t, line))
			if messageID(line) == id && isResponse(line) {
				break
			}
		}
	}
	stdin.Close()
	for line := range lines {
		out.WriteString(normalise(t, line))
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("assistant mcp: %v\n%s", err, stderr.String())
	}
	return out.String()
}

// isResponse reports whether m is a JSON-RPC response (it has a result or
// an error, and no method).
func isResponse(m []byte) bool {
	var v map[string]json.RawMessage
	_ = json.Unmarshal(m, &v)
	_, method := v["method"]
	return !method
}

// httpExchange serves the real catalog over the streamable HTTP handler
// (behind httptest) for a person "tester" in Europe/Paris with the fixed
// clock, as the binary's stdio serves its local person, and POSTs each
// client message with a bearer token. It returns every message the
// server sent back, read from a JSON or an event-stream body.
func httpExchange(t *testing.T, msgs []json.RawMessage) string {
	t.Helper()
	now, err := time.Parse(time.RFC3339, e2eNow)
	if err != nil {
		t.Fatal(err)
	}
	env := tooltest.Open(t, now)
	tester := env.Context(env.Person("tester", "Europe/Paris"))
	authn := func(_ context.Context, token string) (*tools.ToolContext, error) {
		if token == "tok-tester" {
			return tester, nil
		}
		return nil, nil
	}
	h, err := mcpserver.HTTPHandler(catalog.New(), authn, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	client := &http.Client{Timeout: wireLimit}
	var out strings.Builder
	for _, m := range msgs {
		req, err := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader(m))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer tok-tester")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, sent := range httpMessages(t, resp.Header.Get("Content-Type"), body) {
			out.WriteString(normalise(t, sent))
		}
	}
	return out.String()
}

// httpMessages are the JSON-RPC messages of one HTTP answer: the body
// itself when it is JSON, the data of each event when it is an event
// stream, none when it is empty (202 to a notification).
func httpMessages(t *testing.T, contentType string, body []byte) [][]byte {
	t.Helper()
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if !strings.HasPrefix(contentType, "text/event-stream") {
		return [][]byte{body}
	}
	var out [][]byte
	var data []byte
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		case line == "" && len(data) > 0:
			out = append(out, data)
			data = nil
		}
	}
	if len(data) > 0 {
		out = append(out, data)
	}
	return out
}

// TestChatWire keeps what `assistant chat` sends an OpenAI-compatible
// server (testdata/wire/chat.txtar): the "tools" array as it crosses the
// wire, the system prompt, and the messages of the first request (the
// system prompt's text there stands for the "system" file). The binary
// runs with the fixed clock, TZ Europe/Paris, against a scripted server
// that answers with one streamed sentence.
func TestChatWire(t *testing.T) { storetest.Engines(t, testChatWire) }

func testChatWire(t *testing.T) {
	path := filepath.Join("testdata", "wire", "chat.txtar")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := parseArchive(string(raw))
	model := &capturingModel{}
	srv := httptest.NewServer(model)
	defer srv.Close()
	h := newHome(t)
	h.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"
	h.must("chat", "-m", "What is planned this week?")
	bodies := model.taken()
	if len(bodies) != 1 {
		t.Fatalf("want one request, got %d", len(bodies))
	}
	var req struct {
		Tools    json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(bodies[0], &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) == 0 || req.Messages[0].Role != "system" {
		t.Fatalf("the first message is not the system prompt: %s", bodies[0])
	}
	var tools bytes.Buffer
	if err := json.Indent(&tools, req.Tools, "", "\t"); err != nil {
		t.Fatal(err)
	}
	system := req.Messages[0].Content
	req.Messages[0].Content = "(the system file)"
	msgs, err := json.MarshalIndent(req.Messages, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	checkArchiveFile(t, path, a, "tools", tools.String()+"\n")
	checkArchiveFile(t, path, a, "system", strings.TrimSuffix(system, "\n")+"\n")
	checkArchiveFile(t, path, a, "messages", string(msgs)+"\n")
	if *update {
		if err := os.WriteFile(path, a.format(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// capturingModel is an OpenAI-compatible chat completions endpoint that
// keeps each request body as it came and streams one short answer.
type capturingModel struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (c *capturingModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/chat/completions" || !json.Valid(body) {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, body)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[{"index":0,"delta":{"role":"assistant","content":"Nothing is planned."},"finish_reason":null}]}`+"\n\n")
	fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (c *capturingModel) taken() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bodies
}
