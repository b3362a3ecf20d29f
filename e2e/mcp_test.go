package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/mcpserver"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/catalog"
)

// The end-to-end tests run the real binary, `assistant mcp`, as an MCP
// client would: over stdio as a subprocess and over streamable HTTP on a
// loopback port, each with its own HOME, XDG folders and database in a
// temporary folder and a fixed clock (ASSISTANT_NOW).

// e2eNow is the fixed clock of every run of the binary: a Monday morning
// in Paris.
const e2eNow = "2026-10-05T09:00:00+02:00"

// binary is the assistant binary under test, built once by TestMain (or
// given as ASSISTANT_BINARY).
func binary(testing.TB) string { return bin }

// mcpHome is one install of the binary: its folders and database.
type mcpHome struct {
	bin string
	env []string
	// db is the PostgreSQL database every run names with --db, "" on
	// SQLite (where ASSISTANT_DB names the file).
	db string
}

// newMCPHome gives the binary a fresh HOME, XDG_DATA_HOME, XDG_CONFIG_HOME
// and database under a temporary folder, the fixed clock, and a local
// person "tester" in Europe/Paris. The database is of the engine t runs
// on (see [storetest.Engine]): on SQLite the file ASSISTANT_DB names, on
// PostgreSQL a fresh database, a copy of [migrated], given to every run as
// --db (and the test fails if a run made a SQLite file instead). Nothing else of this
// process's environment but PATH reaches it, so a developer's own settings
// (ASSISTANT_PERSON, a config file) cannot change the outcome.
func newMCPHome(t testing.TB) *mcpHome {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"data", "config"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h := &mcpHome{bin: binary(t), env: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"ASSISTANT_NOW=" + e2eNow,
		"USER=tester",
		"TZ=Europe/Paris",
	}}
	if storetest.Engine(t) != storetest.Postgres {
		h.env = append(h.env, "ASSISTANT_DB="+filepath.Join(dir, "data", "assistant.db"))
		return h
	}
	h.db = storetest.LocationFrom(t, migrated)
	t.Cleanup(func() {
		for _, f := range []string{filepath.Join(dir, "data", "assistant.db"), filepath.Join(dir, "data", "assistant", "assistant.db")} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("a run on PostgreSQL made the SQLite file %s: a command did not take --db %s", f, h.db)
			}
		}
	})
	return h
}

// command is the binary with argv (after --db and the database on
// PostgreSQL) and this home's environment.
func (h *mcpHome) command(ctx context.Context, argv ...string) *exec.Cmd {
	if h.db != "" {
		argv = append([]string{"--db", h.db}, argv...)
	}
	cmd := exec.CommandContext(ctx, h.bin, argv...)
	cmd.Env = h.env
	return cmd
}

// run runs the binary to its end and returns its stdout; a non-zero exit
// fails the test with stderr.
func (h *mcpHome) run(t testing.TB, argv ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := h.command(context.Background(), argv...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("assistant %s: %v\n%s", strings.Join(argv, " "), err, stderr.String())
	}
	return stdout.String()
}

// stdioClient starts `assistant mcp` (with extra flags) as a desktop
// client does and connects the go-sdk client to it. stderr receives the
// process's standard error. The session is closed at the end of the test.
func (h *mcpHome) stdioClient(t testing.TB, stderr io.Writer, extra ...string) *mcp.ClientSession {
	t.Helper()
	cmd := h.command(context.Background(), append([]string{"mcp"}, extra...)...)
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize with `assistant mcp`: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool with raw JSON arguments and fails the test on a
// protocol error; a tool failure (isError) is returned as it came.
func call(t testing.TB, cs *mcp.ClientSession, name, arguments string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(arguments)})
	if err != nil {
		t.Fatalf("%s %s: protocol error %v", name, arguments, err)
	}
	return res
}

// succeed is call that also fails the test on a tool failure.
func succeed(t testing.TB, cs *mcp.ClientSession, name, arguments string) string {
	t.Helper()
	res := call(t, cs, name, arguments)
	if res.IsError {
		t.Fatalf("%s %s: isError with %q", name, arguments, text(t, res))
	}
	return text(t, res)
}

// needTools fails the test unless the server lists every tool in want.
func needTools(t testing.TB, cs *mcp.ClientSession, want ...string) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Fatalf("the binary does not serve %s; it serves %s (cmd/assistant builds its registry with newRegistry, which should be catalog.New)", w, strings.Join(names, ", "))
		}
	}
}

// TestBinaryServesCatalog checks that `assistant mcp` serves every tool of
// catalog.New and nothing else. The SDK lists tools sorted by name, not in
// the catalog's order, so the sets are compared.
func TestBinaryServesCatalog(t *testing.T) {
	cs := newMCPHome(t).stdioClient(t, io.Discard)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
	}
	want := catalog.New().Names()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("`assistant mcp` serves\n  %s\nbut the catalog has\n  %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
}

func TestBinaryStdio(t *testing.T) { storetest.Engines(t, testBinaryStdio) }

func testBinaryStdio(t *testing.T) {
	h := newMCPHome(t)
	var stderr lockedBuffer
	cs := h.stdioClient(t, &stderr)

	init := cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Name != mcpserver.Name {
		t.Errorf("serverInfo %+v, want the name %q", init.ServerInfo, mcpserver.Name)
	}
	if init.Instructions != mcpserver.Instructions {
		t.Errorf("instructions %q, want the package's Instructions", init.Instructions)
	}
	needTools(t, cs, "add_task", "list_tasks")

	added := succeed(t, cs, "add_task", `{"title":"Buy milk","due":"2026-10-06"}`)
	if !strings.Contains(added, "t1") || !strings.Contains(added, "Buy milk") {
		t.Errorf("add_task answered %q, want the new task t1 named", added)
	}
	listed := succeed(t, cs, "list_tasks", `{}`)
	if !strings.Contains(listed, "t1") || !strings.Contains(listed, "Buy milk") {
		t.Errorf("list_tasks after add_task answered %q, want t1 “Buy milk”", listed)
	}

	t.Run("failed call", func(t *testing.T) {
		cases := []struct{ args, name string }{
			{`{"title":"Call mum","priority":9}`, "“priority”"},
			{`{"title":"Call mum","due":"next tuesday-ish"}`, "“due”"},
			{`{}`, "“title”"},
		}
		for _, c := range cases {
			res := call(t, cs, "add_task", c.args)
			got := text(t, res)
			if !res.IsError {
				t.Errorf("add_task %s: isError false, text %q", c.args, got)
				continue
			}
			if !strings.Contains(got, c.name) || strings.Contains(got, "\n") || !strings.HasSuffix(got, ".") {
				t.Errorf("add_task %s: %q, want one sentence naming %s", c.args, got, c.name)
			}
			if res.StructuredContent != nil {
				t.Errorf("add_task %s: a failure carries structuredContent %v", c.args, res.StructuredContent)
			}
		}
		if got := succeed(t, cs, "list_tasks", `{}`); strings.Contains(got, "Call mum") {
			t.Errorf("a refused add_task wrote a task: %q", got)
		}
	})

	t.Run("quirky arguments", func(t *testing.T) {
		// "1" for an integer, "true" for a flag and one string for a list
		// reach the Args reader, which accepts them as chat does.
		got := succeed(t, cs, "add_task", `{"title":"Water plants","priority":"1","tags":"home","allow_duplicate":"true"}`)
		if !strings.Contains(got, "p1") || !strings.Contains(got, "home") {
			t.Errorf("add_task with quirky arguments answered %q, want p1 and the tag home", got)
		}
		listed := succeed(t, cs, "list_tasks", `{"limit":"15"}`)
		if !strings.Contains(listed, "Water plants") || !strings.Contains(listed, "Buy milk") {
			t.Errorf("list_tasks with limit \"15\" answered %q, want both tasks", listed)
		}
	})

	// Closing the client closes the server's stdin; the process must end.
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session (stdin, then wait for the process): %v", err)
	}
	// The first run made the local person and logged it, on stderr.
	if log := stderr.String(); !strings.Contains(log, "made the local person") {
		t.Errorf("stderr %q, want the first-run log line", log)
	}
}

// TestBinaryStdoutIsProtocol drives `assistant mcp --log-level debug` with
// raw JSON-RPC lines and checks that every line it writes to stdout is a
// JSON-RPC 2.0 message answering a request, while its logs went to stderr.
func TestBinaryStdoutIsProtocol(t *testing.T) { storetest.Engines(t, testBinaryStdoutIsProtocol) }

func testBinaryStdoutIsProtocol(t *testing.T) {
	h := newMCPHome(t)
	cmd := h.command(context.Background(), "mcp", "--log-level", "debug")
	stdin, stdout, stderr := startPiped(t, cmd)
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var got []map[string]any
	// read takes the next line of stdout, which must be a JSON object.
	read := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("stdout ended early (%v); stderr:\n%s", lines.Err(), stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("stdout line %q is not a JSON object: %v", lines.Text(), err)
		}
		got = append(got, m)
		return m
	}
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_changes","arguments":{}}}`)
	read()
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"undo","arguments":{"change":"c999"}}}`)
	read()
	stdin.Close()
	for lines.Scan() { // anything after the last answer must be protocol too
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Errorf("stdout line %q after stdin closed is not JSON", lines.Text())
		}
		got = append(got, m)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("`assistant mcp` after stdin closed: %v, want exit 0; stderr:\n%s", err, stderr.String())
	}
	for i, m := range got {
		if m["jsonrpc"] != "2.0" {
			t.Errorf("stdout message %d %v is not JSON-RPC 2.0", i, m)
		}
	}
	for i, id := range []float64{1, 2, 3} {
		if i >= len(got) || got[i]["id"] != id || got[i]["result"] == nil {
			t.Errorf("stdout message %d is %v, want the result of request %v", i, got[min(i, len(got)-1)], id)
		}
	}
	if len(got) == 3 {
		if res, _ := got[2]["result"].(map[string]any); res["isError"] != true {
			t.Errorf("undo of an unknown change: %v, want isError", res)
		}
	}
	if log := stderr.String(); !strings.Contains(log, "level=DEBUG") {
		t.Errorf("stderr has no debug log, so nothing showed logs stay off stdout: %q", log)
	}
}

// httpServer is a running `assistant mcp --http` or `assistant serve`.
type httpServer struct {
	cmd    *exec.Cmd
	name   string // the command: "mcp" or "serve"
	url    string
	stderr *lockedBuffer
	done   chan struct{} // closed once the process ended
	err    error         // Wait's error, set before done is closed
}

// serveHTTP starts `assistant mcp --http` (with extra flags) on a free
// loopback port and
// waits until it accepts connections. The process is killed at the end of
// the test if it still runs.
func (h *mcpHome) serveHTTP(t testing.TB, extra ...string) *httpServer {
	t.Helper()
	s := h.startHTTP(t, extra...)
	s.wait(t)
	return s
}

// startHTTP is serveHTTP without the wait: the process is started, and
// [httpServer.wait] waits until it accepts connections.
func (h *mcpHome) startHTTP(t testing.TB, extra ...string) *httpServer {
	t.Helper()
	return h.startServer(t, "mcp", extra...)
}

// startServer is startHTTP with the command to run: "mcp" (mcp --http)
// or "serve" (serve --http). It binds port 0, so the system picks a port
// no other process holds (a port found free a moment before may be taken
// by a parallel test before the server binds it); [httpServer.wait] reads
// the port bound from the server's log.
func (h *mcpHome) startServer(t testing.TB, command string, extra ...string) *httpServer {
	t.Helper()
	s := &httpServer{name: command, stderr: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd = h.command(context.Background(), append([]string{command, "--http", "127.0.0.1:0"}, extra...)...)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

// servingAddr finds the address a server logged it serves on: the addr
// of its "serving … over HTTP" line, in the text or the JSON log.
var servingAddr = regexp.MustCompile(`serving [^"\n]* over HTTP"(?: addr=|,"addr":")([^\s"]+)`)

// wait waits until s logs the address it bound and accepts connections
// there (20 s at most), sets s.url, and fails the test if the server ends
// or does not listen by then.
func (s *httpServer) wait(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := servingAddr.FindStringSubmatch(s.stderr.String()); m != nil {
			if c, err := net.DialTimeout("tcp", m[1], time.Second); err == nil {
				c.Close()
				s.url = "http://" + m[1] + "/mcp"
				return
			}
		}
		select {
		case <-s.done:
			t.Fatalf("`assistant %s --http 127.0.0.1:0` ended before serving: %v\n%s", s.name, s.err, s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("`assistant %s --http 127.0.0.1:0` did not listen within 20 s:\n%s", s.name, s.stderr.String())
		}
	}
}

// rawCall posts one tools/call with the given Authorization header value
// ("" for none) and returns the response, its body read.
func rawCall(t testing.TB, url, authorization, name, arguments string) (*http.Response, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, name, arguments)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestBinaryHTTP(t *testing.T) { storetest.Engines(t, testBinaryHTTP) }

func testBinaryHTTP(t *testing.T) {
	h := newMCPHome(t)
	h.run(t, "person", "add", "alice", "--zone", "Europe/Paris")
	h.run(t, "person", "add", "bob", "--zone", "America/New_York")
	token := map[string]string{}
	for _, p := range []string{"alice", "bob"} {
		out := strings.TrimSpace(h.run(t, "token", "create", "--person", p, "--label", "e2e"))
		if out == "" || strings.ContainsAny(out, " \n") {
			t.Fatalf("token create --person %s printed %q, want the token alone on its line", p, out)
		}
		token[p] = out
	}
	s := h.serveHTTP(t)
	ctx := context.Background()

	alice, err := httpClient(ctx, s.url, "Bearer "+token["alice"])
	if err != nil {
		t.Fatalf("connect with alice's token: %v\n%s", err, s.stderr.String())
	}
	defer alice.Close()
	bob, err := httpClient(ctx, s.url, "Bearer "+token["bob"])
	if err != nil {
		t.Fatalf("connect with bob's token: %v", err)
	}
	defer bob.Close()
	needTools(t, alice, "add_task", "list_tasks")

	t.Run("right token", func(t *testing.T) {
		got := succeed(t, alice, "add_task", `{"title":"Alice's secret plan","priority":"2"}`)
		if !strings.Contains(got, "Alice's secret plan") {
			t.Errorf("add_task as alice answered %q", got)
		}
		if got := succeed(t, alice, "list_tasks", `{}`); !strings.Contains(got, "Alice's secret plan") {
			t.Errorf("alice's list_tasks %q lacks her task", got)
		}
	})

	t.Run("two people isolated", func(t *testing.T) {
		succeed(t, bob, "add_task", `{"title":"Bob's errand"}`)
		b := succeed(t, bob, "list_tasks", `{}`)
		if strings.Contains(b, "Alice") || !strings.Contains(b, "Bob's errand") {
			t.Errorf("bob's list_tasks %q: want his task and none of alice's", b)
		}
		if a := succeed(t, alice, "list_tasks", `{}`); strings.Contains(a, "Bob") {
			t.Errorf("alice's list_tasks %q shows bob's task", a)
		}
		// Alice's first task is t1 in the store; to bob it does not exist.
		res := call(t, bob, "get_task", `{"id":"t1"}`)
		if got := text(t, res); !res.IsError || strings.Contains(got, "Alice") {
			t.Errorf("bob's get_task t1: isError %t, %q; want a not-found sentence", res.IsError, got)
		}
	})

	t.Run("no or wrong token", func(t *testing.T) {
		cases := []struct{ name, authorization, wantError string }{
			{"no token", "", ""},
			{"wrong token", "Bearer ast_not-a-real-token", `error="invalid_token"`},
			{"not bearer", "Basic " + token["alice"], ""},
		}
		for _, c := range cases {
			resp, body := rawCall(t, s.url, c.authorization, "add_task", `{"title":"Sneaky `+c.name+`"}`)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s: status %d, want 401; body %q", c.name, resp.StatusCode, body)
			}
			wa := resp.Header.Get("WWW-Authenticate")
			if !strings.HasPrefix(wa, `Bearer realm="assistant"`) || !strings.Contains(wa, c.wantError) {
				t.Errorf("%s: WWW-Authenticate %q, want a Bearer challenge with %q", c.name, wa, c.wantError)
			}
			if _, err := httpClient(ctx, s.url, c.authorization); err == nil {
				t.Errorf("%s: the go-sdk client connected", c.name)
			}
		}
		// Nothing ran: no sneaky task for anyone.
		for p, cs := range map[string]*mcp.ClientSession{"alice": alice, "bob": bob} {
			if got := succeed(t, cs, "list_tasks", `{}`); strings.Contains(got, "Sneaky") {
				t.Errorf("a refused request added a task to %s: %q", p, got)
			}
		}
	})

	t.Run("revoked token", func(t *testing.T) {
		h.run(t, "token", "revoke", token["bob"][:12])
		resp, body := rawCall(t, s.url, "Bearer "+token["bob"], "list_tasks", `{}`)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("revoked token: status %d, want 401; body %q", resp.StatusCode, body)
		}
		resp, body = rawCall(t, s.url, "Bearer "+token["alice"], "list_tasks", `{}`)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Alice's secret plan") {
			t.Errorf("alice after bob's token was revoked: status %d, body %q", resp.StatusCode, body)
		}
	})

	t.Run("SIGTERM drains", func(t *testing.T) {
		alice.Close()
		bob.Close()
		// A call in flight when SIGTERM comes: its headers are sent, its
		// body is not finished until the server has stopped listening.
		body, bodyW := io.Pipe()
		req, err := http.NewRequest(http.MethodPost, s.url, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token["alice"])
		type answer struct {
			status int
			body   string
			err    error
		}
		answered := make(chan answer, 1)
		go func() {
			resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
			if err != nil {
				answered <- answer{err: err}
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			answered <- answer{resp.StatusCode, string(b), err}
		}()
		if _, err := io.WriteString(bodyW, `{"jsonrpc":"2.0","id":7,"method":"tools/call",`); err != nil {
			t.Fatal(err)
		}
		// Give the server a moment to accept the connection: one still in
		// the listen queue when the listener closes would be reset, which
		// is not the draining under test.
		time.Sleep(200 * time.Millisecond)
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		addr := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")
		for deadline := time.Now().Add(10 * time.Second); ; {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				break // no longer listening: draining
			}
			c.Close()
			if time.Now().After(deadline) {
				t.Fatalf("still listening 10 s after SIGTERM:\n%s", s.stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		select {
		case <-s.done:
			t.Fatalf("the process ended with a call in flight: %v\n%s", s.err, s.stderr.String())
		default:
		}
		io.WriteString(bodyW, `"params":{"name":"add_task","arguments":{"title":"Drained task"}}}`)
		bodyW.Close()
		a := <-answered
		if a.err != nil || a.status != http.StatusOK || !strings.Contains(a.body, "Drained task") {
			t.Errorf("the call in flight at SIGTERM: status %d, err %v, body %q; want it answered", a.status, a.err, a.body)
		}
		select {
		case <-s.done:
			if s.err != nil {
				t.Errorf("after SIGTERM: %v, want exit 0; stderr:\n%s", s.err, s.stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("`assistant mcp --http` still runs 10 s after SIGTERM and its last call:\n%s", s.stderr.String())
		}
		if log := s.stderr.String(); !strings.Contains(log, "stopped serving MCP") {
			t.Errorf("stderr %q, want the stop logged", log)
		}
	})
}

// TestBinaryStdioBadLine replays the new user's session (finding 3): a
// line that is not JSON among calls gets a Parse error, the calls before
// and after it are all answered, and stdin closing right after the last
// line still lets every call be answered before the process exits 0.
func TestBinaryStdioBadLine(t *testing.T) { storetest.Engines(t, testBinaryStdioBadLine) }

func testBinaryStdioBadLine(t *testing.T) {
	h := newMCPHome(t)
	cmd := h.command(context.Background(), "mcp")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	addTask := func(id int, title string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add_task","arguments":{"title":%q}}}`, id, title)
	}
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		addTask(3, "Before one"),
		addTask(4, "Before two"),
		"garbage not json",
		addTask(5, "After the garbage"),
		`{"not":"a JSON-RPC message"}`,
		addTask(6, "After the odd object"),
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("`assistant mcp`: %v, want exit 0; stderr:\n%s", err, stderr.String())
	}
	answers := map[string]reply{}
	var errorsSeen []reply
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("stdout line %q is not a JSON-RPC response: %v", line, err)
		}
		if r.Error != nil {
			errorsSeen = append(errorsSeen, r)
			continue
		}
		answers[string(r.ID)] = r
	}
	for id := 1; id <= 6; id++ {
		if _, ok := answers[fmt.Sprint(id)]; !ok {
			t.Errorf("request %d was not answered; stdout:\n%s", id, out)
		}
	}
	var codes []int64
	for _, r := range errorsSeen {
		if string(r.ID) != "null" {
			t.Errorf("error %+v has id %s, want null", r.Error, r.ID)
		}
		codes = append(codes, r.Error.Code)
	}
	if !slices.Equal(codes, []int64{-32700, -32600}) {
		t.Errorf("error codes %v, want the garbage's -32700 then the odd object's -32600", codes)
	}
	listed := h.run(t, "call", "list_tasks")
	for _, title := range []string{"Before one", "Before two", "After the garbage", "After the odd object"} {
		if !strings.Contains(listed, title) {
			t.Errorf("list_tasks after the session lacks %q:\n%s", title, listed)
		}
	}
}

// TestBinaryStdioClientGone closes the server's stdout before it answers,
// as a client that died does: the process must end with exit 0, not be
// killed by SIGPIPE on its first answer.
func TestBinaryStdioClientGone(t *testing.T) {
	h := newMCPHome(t)
	cmd := h.command(context.Background(), "mcp")
	stdin, stdout, stderr := startPiped(t, cmd)
	stdout.Close()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("`assistant mcp` whose client closed stdout: %v, want exit 0; stderr:\n%s", err, stderr.String())
	}
}

// TestBinaryHTTPAddress checks how `assistant mcp --http` takes its
// address: a wrong one or one in use is a wrong value (exit 1, one
// sentence) and nothing claims to serve; a loopback one serves quietly,
// and one beyond loopback serves with a warning about clear text.
func TestBinaryHTTPAddress(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	h := newMCPHome(t)
	cases := []struct{ addr, want string }{
		{"banana", "“--http” must be host:port such as 127.0.0.1:8765, not “banana”."},
		{"127.0.0.1", "“--http” must be host:port such as 127.0.0.1:8765, not “127.0.0.1”."},
		{"127.0.0.1:99999", "“--http” must be host:port such as 127.0.0.1:8765, not “127.0.0.1:99999”."},
		{"192.0.2.1:8765", "“--http” names the host “192.0.2.1”, which is not an address of this machine"},
		{taken.Addr().String(), taken.Addr().String() + " is in use by another program; pick another port."},
		// Beyond this machine without TLS: refused unless a proxy with
		// TLS is said to be in front.
		{"0.0.0.0:0", "“--http 0.0.0.0:0” reaches beyond this machine, where bearer tokens and data would travel in clear text; serve HTTPS with --tls-cert and --tls-key, or put a reverse proxy with TLS in front and add --behind-tls-proxy"},
	}
	for _, c := range cases {
		cmd := h.command(context.Background(), "mcp", "--http", c.addr)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("--http %s: %v, want exit 1; stderr:\n%s", c.addr, err, stderr.String())
		}
		if got := stderr.String(); !strings.Contains(got, c.want) || strings.Contains(got, "serving MCP") {
			t.Errorf("--http %s: stderr\n%s\nwant %q and no claim to be serving", c.addr, got, c.want)
		}
	}

	for _, c := range []struct {
		addr  string
		proxy bool
	}{
		{"127.0.0.1:0", false},
		{"0.0.0.0:0", true},
	} {
		argv := []string{"mcp", "--http", c.addr}
		if c.proxy {
			argv = append(argv, "--behind-tls-proxy")
		}
		cmd := h.command(context.Background(), argv...)
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(stderr.String(), "serving MCP") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("--http %s after SIGTERM: %v, want exit 0", c.addr, err)
		}
		log := stderr.String()
		if strings.Contains(log, `"addr":"`+c.addr+`"`) || !strings.Contains(log, "serving MCP") {
			t.Errorf("--http %s: the log should name the port really bound, not %s:\n%s", c.addr, c.addr, log)
		}
		if got := strings.Contains(log, "behind a TLS proxy"); got != c.proxy {
			t.Errorf("--http %s: the log says it is behind a TLS proxy: %t, want %t:\n%s", c.addr, got, c.proxy, log)
		}
	}
}

// TestBinaryStdioOrder writes add_task and list_tasks to `assistant mcp`
// at once, on a fresh database each round: the list always holds the task.
// On PostgreSQL, where a fresh database costs a CREATE DATABASE and a
// migration, the rounds share one (each round's title is its own).
func TestBinaryStdioOrder(t *testing.T) { storetest.Engines(t, testBinaryStdioOrder) }

func testBinaryStdioOrder(t *testing.T) {
	var h *mcpHome
	for round := range 20 {
		if h == nil || storetest.Engine(t) == storetest.SQLite {
			h = newMCPHome(t)
		}
		cmd := h.command(context.Background(), "mcp")
		title := fmt.Sprintf("Round %d", round)
		cmd.Stdin = strings.NewReader(strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_task","arguments":{"title":%q}}}`, title),
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_tasks","arguments":""}}`,
		}, "\n") + "\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, stderr.String())
		}
		var list string
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r reply
			if json.Unmarshal([]byte(line), &r) == nil && string(r.ID) == "3" {
				list = string(r.Result)
			}
		}
		if !strings.Contains(list, title) {
			t.Errorf("round %d: list_tasks written right after add_task missed the task: %s", round, list)
		}
	}
}

// TestBinaryHTTPGuards runs `assistant mcp --http` with short timeouts: a
// client that announces a body and sends one byte is closed, a page
// elsewhere gets 403, and a body that is not JSON gets a JSON-RPC parse
// error in our words.
func TestBinaryHTTPGuards(t *testing.T) { storetest.Engines(t, testBinaryHTTPGuards) }

func testBinaryHTTPGuards(t *testing.T) {
	h := newMCPHome(t)
	h.run(t, "person", "add", "alice", "--zone", "Europe/Paris")
	token := strings.TrimSpace(h.run(t, "token", "create", "--person", "alice"))
	if f := strings.Fields(token); len(f) > 0 {
		token = f[len(f)-1]
	}
	s := h.serveHTTP(t, "--read-timeout", "300ms", "--idle-timeout", "300ms")
	addr := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", addr, token)
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second)) // a guard only
	if _, err := io.Copy(io.Discard, conn); err != nil {
		t.Errorf("the slow client's connection was not closed by the server: %v", err)
	}

	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "https://evil.example")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a request from https://evil.example: %d, want 403", res.StatusCode)
	}

	res, body := rawCall(t, s.url, "Bearer "+token, "list_tasks", "th")
	var r reply
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error == nil || r.Error.Code != -32700 || strings.Contains(r.Error.Message, "invalid character") {
		t.Errorf("a body that is not JSON: %d %s, want a JSON-RPC parse error in our words", res.StatusCode, body)
	}
}

// TestBinaryMCPFlags gives `assistant mcp` flag values that cannot work:
// each stops it at once with exit 1 and a sentence naming the flag.
func TestBinaryMCPFlags(t *testing.T) {
	h := newMCPHome(t)
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"--call-timeout", "0s"}, "“--call-timeout” must be a positive duration"},
		{[]string{"--http", "127.0.0.1:0", "--tls-cert", "cert.pem"}, "“--tls-cert” and “--tls-key” go together"},
		{[]string{"--http", "127.0.0.1:0", "--write-timeout", "10s"}, "“--write-timeout” (10s) must be longer than “--call-timeout” (30s)"},
		{[]string{"--http", "127.0.0.1:0", "--max-concurrent", "0"}, "“--max-concurrent” must be at least 1"},
		{[]string{"--http", "127.0.0.1:0", "--allow-origin", "app.example"}, "“--allow-origin” takes an origin such as https://app.example"},
	} {
		cmd := h.command(context.Background(), append([]string{"mcp"}, c.argv...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("mcp %s: %v, stderr %q; want exit 1 and %q", strings.Join(c.argv, " "), err, stderr.String(), c.want)
		}
	}
}
