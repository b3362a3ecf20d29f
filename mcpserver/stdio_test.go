package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tools"
)

// pipeServer runs ServeIO over a pair of OS pipes, as a desktop client
// runs `assistant mcp`, and returns a client session on the other ends
// and the channel ServeIO's error arrives on.
func pipeServer(t testing.TB, ctx context.Context, opts *Options) (*mcp.ClientSession, <-chan error) {
	t.Helper()
	serverIn, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientIn, serverOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ServeIO(ctx, testRegistry(nil), personContext(7, "Grace"), opts, serverIn, serverOut) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, done
}

func TestServeIO(t *testing.T) {
	cs, done := pipeServer(t, context.Background(), nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "You are Grace." {
		t.Errorf("text %q, want the base person", got)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "count", Arguments: json.RawMessage(`{"n":"0"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Errorf("out-of-range n: isError false, text %q", text(t, res))
	}
	// The client going away (stdin closed) ends the server cleanly.
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("ServeIO after the client closed: %v, want nil", err)
	}
}

func TestServeIOCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cs, done := pipeServer(t, ctx, nil)
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeIO after cancel: %v, want nil", err)
	}
}

func TestServeIOBadOptions(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := ServeIO(context.Background(), testRegistry(nil), personContext(1, "Ada"), &Options{Tools: []string{"nope"}}, r, w); err == nil {
		t.Error("ServeIO with an unknown tool name returned nil")
	}
}

// rawPipe runs ServeIO over OS pipes with t's settings and gives the test
// the raw ends: lines to write and a scanner over the answers.
type rawPipe struct {
	in   *os.File // the server's stdin, written by the test
	out  *os.File // the server's stdout, read by the test
	scan *bufio.Scanner
	done chan error
}

func startRaw(t *testing.T, reg *tools.Registry, lt *lineTransport) *rawPipe {
	t.Helper()
	serverIn, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientIn, serverOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	lt.r, lt.w = serverIn, serverOut
	p := &rawPipe{in: clientOut, out: clientIn, scan: bufio.NewScanner(clientIn), done: make(chan error, 1)}
	p.scan.Buffer(make([]byte, 0, 64<<10), 4<<20)
	go func() { p.done <- serve(context.Background(), reg, personContext(7, "Grace"), nil, lt) }()
	t.Cleanup(func() {
		p.in.Close()
		p.out.Close()
	})
	return p
}

func (p *rawPipe) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// answer reads the next line the server wrote, which must be JSON.
func (p *rawPipe) answer(t *testing.T) json.RawMessage {
	t.Helper()
	if !p.scan.Scan() {
		t.Fatalf("the server wrote no more lines (%v)", p.scan.Err())
	}
	raw := json.RawMessage(slices.Clone(p.scan.Bytes()))
	if !json.Valid(raw) {
		t.Fatalf("the server wrote %q, not JSON", raw)
	}
	return raw
}

// reply is one JSON-RPC response as the tests read it.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (p *rawPipe) reply(t *testing.T) reply {
	t.Helper()
	var r reply
	if err := json.Unmarshal(p.answer(t), &r); err != nil {
		t.Fatalf("the server's line is not a response: %v", err)
	}
	return r
}

const (
	rawInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func rawWhoami(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, id)
}

// TestServeIOBadLines sends lines that are not JSON-RPC messages between
// good calls: each gets its JSON-RPC error (JSON-RPC 2.0 §5.1) and the
// next call is still answered.
func TestServeIOBadLines(t *testing.T) {
	p := startRaw(t, testRegistry(nil), &lineTransport{max: 4096})
	p.send(t, rawInit, rawInitialized)
	if r := p.reply(t); string(r.ID) != "1" || r.Result == nil {
		t.Fatalf("initialize: %+v", r)
	}
	cases := []struct {
		name, line string
		code       int64
		id         string
	}{
		{"not JSON", "garbage not json", -32700, "null"},
		{"cut short", `{"jsonrpc":"2.0","id":5,"method":"tools/call"`, -32700, "null"},
		{"trailing text", `{"jsonrpc":"2.0","id":5,"method":"ping"} and more`, -32700, "null"},
		{"two messages on a line", `{"jsonrpc":"2.0","id":5,"method":"ping"}{"jsonrpc":"2.0","id":6,"method":"ping"}`, -32700, "null"},
		{"object without jsonrpc", `{"foo":1}`, -32600, "null"},
		{"wrong version keeps its id", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7"},
		{"string id kept", `{"jsonrpc":"1.0","id":"a-7","method":"ping"}`, -32600, `"a-7"`},
		{"object id is null", `{"jsonrpc":"1.0","id":{"x":1},"method":"ping"}`, -32600, "null"},
		{"a number", `42`, -32600, "null"},
		{"a string", `"tools/list"`, -32600, "null"},
		{"method not a string", `{"jsonrpc":"2.0","id":8,"method":5}`, -32600, "8"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch with a bad member", `[{"jsonrpc":"2.0","id":9,"method":"ping"},{"foo":1}]`, -32600, "null"},
		{"batch with one id twice", `[{"jsonrpc":"2.0","id":9,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]`, -32600, "null"},
		{"too deep", `{"jsonrpc":"2.0","id":10,"method":"ping","params":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`, -32600, "10"},
		{"too long", `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, -32600, "null"},
		{"a literal cut", `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":th}}`, -32700, "null"},
		{"a valid object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
		{"an array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
		{"a tool name not a string", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":5}}`, -32602, "13"},
		{"params not an object", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":"whoami"}`, -32602, "14"},
		{"an unknown method", `{"jsonrpc":"2.0","id":15,"method":"nope/never"}`, -32601, "15"},
		{"an unknown tool", `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"whoamii"}}`, -32602, "16"},
		{"a cursor not a string", `{"jsonrpc":"2.0","id":17,"method":"tools/list","params":{"cursor":5}}`, -32602, "17"},
		{"an id on a notification", `{"jsonrpc":"2.0","method":"notifications/initialized","id":18}`, -32600, "18"},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "1.5"},
		{"an id past int64", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`, -32600, "12345678901234567890"},
		// go-sdk reads a number id as a float64: past 2^53 it would come
		// back as another number, and bytes that are not UTF-8 as U+FFFD.
		{"an id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "9007199254740993"},
		{"int64's largest id", `{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`, -32600, "9223372036854775807"},
		{"an id with an escaped lone surrogate", `{"jsonrpc":"2.0","id":"x\ud800","method":"ping"}`, -32600, `"x\ud800"`},
		{"an id of minus zero", `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, -32600, "-0"},
		{"an id not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}", -32600, "null"},
		{"a fractional id in a batch", `[{"jsonrpc":"2.0","id":19,"method":"ping"},{"jsonrpc":"2.0","id":2.5,"method":"ping"}]`, -32600, "null"},
	}
	next := 100
	for _, c := range cases {
		next++
		p.send(t, c.line, rawWhoami(next))
		// The lines the transport refuses are answered before the next
		// is read; those the SDK refuses may be answered after the call.
		r, call := p.reply(t), p.reply(t)
		if string(r.ID) == fmt.Sprint(next) {
			r, call = call, r
		}
		if r.Error == nil || r.Error.Code != c.code || string(r.ID) != c.id {
			t.Errorf("%s: answered %+v, want error %d with id %s", c.name, r, c.code, c.id)
		} else if c.code == -32700 && !strings.HasPrefix(r.Error.Message, "Parse error") {
			t.Errorf("%s: message %q, want it to start with “Parse error”", c.name, r.Error.Message)
		}
		if r.Error != nil {
			checkOwnWords(t, c.name, r.Error.Message)
		}
		if string(call.ID) != fmt.Sprint(next) || !strings.Contains(string(call.Result), "You are Grace.") {
			t.Fatalf("%s: the call after it was answered %s %s, want whoami's result", c.name, call.ID, call.Result)
		}
	}

	t.Run("passed on", func(t *testing.T) {
		// Blank lines carry nothing, spaces around a message and CRLF are
		// fine, and a good batch is served (with the answers in one array).
		p.send(t, "", "   ", ` `+rawWhoami(200)+"  \r")
		if r := p.reply(t); string(r.ID) != "200" || r.Result == nil {
			t.Errorf("a call with spaces around it: %+v", r)
		}
		p.send(t, `[{"jsonrpc":"2.0","id":201,"method":"ping"},`+rawWhoami(202)+`]`)
		var batch []reply
		if err := json.Unmarshal(p.answer(t), &batch); err != nil || len(batch) != 2 {
			t.Fatalf("a batch of two calls: %v %+v, want two answers", err, batch)
		}
		if string(batch[0].ID) != "201" || string(batch[1].ID) != "202" || batch[1].Result == nil {
			t.Errorf("batch answers %+v, want ids 201 and 202 with results", batch)
		}
		// A notification in a batch is not waited for: the batch's one
		// call is answered alone in the array, and a batch of
		// notifications alone gets no answer at all.
		p.send(t, `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}},`+rawWhoami(203)+`]`)
		batch = nil
		if err := json.Unmarshal(p.answer(t), &batch); err != nil || len(batch) != 1 || string(batch[0].ID) != "203" || batch[0].Result == nil {
			t.Fatalf("a batch of a notification and a call: %v %+v, want the call's answer alone", err, batch)
		}
		p.send(t, `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":998}}]`, rawWhoami(204))
		if r := p.reply(t); string(r.ID) != "204" || r.Result == nil {
			t.Errorf("the call after a batch of notifications was answered %+v, want whoami's result", r)
		}
	})

	p.in.Close()
	if err := <-p.done; err != nil {
		t.Errorf("serve after stdin closed: %v, want nil", err)
	}
}

// TestServeIOAnswersAtEOF writes every request and closes stdin at once,
// as `printf … | assistant mcp` does: each call read is still answered.
func TestServeIOAnswersAtEOF(t *testing.T) {
	var c calls
	p := startRaw(t, testRegistry(&c), &lineTransport{})
	lines := []string{rawInit, rawInitialized}
	for id := 2; id <= 6; id++ {
		lines = append(lines, rawWhoami(id))
	}
	// The calls of a batch are open calls too; their answers come as one
	// array.
	lines = append(lines, "["+rawWhoami(7)+","+rawWhoami(8)+"]")
	p.send(t, append(lines, "garbage")...)
	p.in.Close()
	seen := map[string]bool{}
	for p.scan.Scan() {
		var rs []reply
		if strings.HasPrefix(p.scan.Text(), "[") {
			if err := json.Unmarshal(p.scan.Bytes(), &rs); err != nil || len(rs) != 2 {
				t.Fatalf("line %q: %v, want the batch's two answers", p.scan.Text(), err)
			}
		} else {
			rs = make([]reply, 1)
			if err := json.Unmarshal(p.scan.Bytes(), &rs[0]); err != nil {
				t.Fatalf("line %q: %v", p.scan.Text(), err)
			}
		}
		for _, r := range rs {
			seen[string(r.ID)] = true
		}
	}
	for _, id := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "null"} {
		if !seen[id] {
			t.Errorf("no answer with id %s; answered %v", id, seen)
		}
	}
	if n := c.n.Load(); n != 7 {
		t.Errorf("%d calls ran, want 7", n)
	}
	if err := <-p.done; err != nil {
		t.Errorf("serve: %v, want nil", err)
	}
}

// TestServeIOClientLeavesDuringCall closes the client's ends while a call
// runs: the call finishes, its answer is written or dropped, and the
// server stops cleanly either way.
func TestServeIOClientLeavesDuringCall(t *testing.T) {
	for _, c := range []struct {
		name        string
		closeOutput bool // the client stops reading too, as when it dies
	}{
		{"stdin closed", false},
		{"stdin and stdout closed", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			started, release, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
			reg := testRegistry(nil)
			reg.Add(tools.Tool{
				Name: "slow", Title: "Slow", ReadOnly: true,
				Description: "Waits until the test lets it finish.",
				Handler: func(context.Context, *tools.ToolContext, *args.Args) tools.ExecResult {
					close(started)
					<-release
					defer close(finished)
					return tools.Success("Done at last.")
				},
			})
			p := startRaw(t, reg, &lineTransport{})
			p.send(t, rawInit, rawInitialized, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
			p.reply(t)
			<-started
			p.in.Close()
			if c.closeOutput {
				p.out.Close()
			}
			close(release)
			<-finished
			if !c.closeOutput {
				if r := p.reply(t); string(r.ID) != "2" || !strings.Contains(string(r.Result), "Done at last.") {
					t.Errorf("the running call was answered %+v, want its result", r)
				}
			}
			select {
			case err := <-p.done:
				if err != nil {
					t.Errorf("serve: %v, want nil", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("serve did not end within 10 s of the client leaving")
			}
		})
	}
}

// goInternals are the marks of a message worded by the Go runtime or the
// SDK's decoder rather than by us.
var goInternals = []string{"invalid character", "interface {}", "interface{}", "map[", "unmarshal", "Go struct", "literal true", "jsonrpc message", "expecting", "%!", "*mcp.", "json:"}

// checkOwnWords fails when msg, a JSON-RPC error message, is not one of
// ours: it must start with the name of its code and hold no Go internals.
func checkOwnWords(t *testing.T, what, msg string) {
	t.Helper()
	own := false
	for _, p := range []string{prefixParse, prefixInvalidRequest, prefixMethod, prefixParams, prefixInternal} {
		own = own || strings.HasPrefix(msg, p)
	}
	if !own {
		t.Errorf("%s: message %q does not start with the name of its JSON-RPC code", what, msg)
	}
	for _, bad := range goInternals {
		if strings.Contains(msg, bad) {
			t.Errorf("%s: message %q shows Go internals (%q)", what, msg, bad)
		}
	}
}

// TestServeIOEmptyArguments sends "arguments" as "", null, or not at all,
// which read as {} as they do in chat, and as a string holding the JSON
// object, which reads as that object.
func TestServeIOEmptyArguments(t *testing.T) {
	p := startRaw(t, testRegistry(nil), &lineTransport{})
	p.send(t, rawInit, rawInitialized)
	p.reply(t)
	for i, c := range []struct{ tool, arguments, want string }{
		{"whoami", `,"arguments":""`, "You are Grace."},
		{"whoami", `,"arguments":"  "`, "You are Grace."},
		{"whoami", `,"arguments":null`, "You are Grace."},
		{"whoami", ``, "You are Grace."},
		{"count", `,"arguments":"{\"n\":3}"`, "n=3 "},
	} {
		id := 300 + i
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q%s}}`, id, c.tool, c.arguments))
		r := p.reply(t)
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, c.want) {
			t.Errorf("%s with %s: answered %s %+v, want %q", c.tool, c.arguments, r.Result, r.Error, c.want)
		}
	}
}

// A call before initialize gets an Invalid Request error in our words
// saying to send initialize first, not an Internal error; the session
// goes on.
func TestServeIOCallBeforeInitialize(t *testing.T) {
	p := startRaw(t, testRegistry(nil), &lineTransport{})
	p.send(t, rawWhoami(1))
	r := p.reply(t)
	if r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "1" || !strings.Contains(r.Error.Message, "send initialize first") || !strings.Contains(r.Error.Message, "tools/call") {
		t.Fatalf("tools/call before initialize: %+v, want -32600 saying to send initialize first", r)
	}
	checkOwnWords(t, "before initialize", r.Error.Message)
	p.send(t, strings.Replace(rawInit, `"id":1`, `"id":2`, 1), rawInitialized, rawWhoami(3))
	if r := p.reply(t); string(r.ID) != "2" || r.Result == nil {
		t.Fatalf("initialize after it: %+v", r)
	}
	if r := p.reply(t); string(r.ID) != "3" || !strings.Contains(string(r.Result), "You are Grace.") {
		t.Fatalf("the call after initialize: %+v", r)
	}
}

// An unknown method's sentence does not claim the server answers only
// four methods: the SDK answers resources/list, prompts/list and
// logging/setLevel as well.
func TestServeIOMethodNotFoundSentence(t *testing.T) {
	p := startRaw(t, testRegistry(nil), &lineTransport{})
	p.send(t, rawInit, rawInitialized)
	p.reply(t)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, `{"jsonrpc":"2.0","id":3,"method":"nope/never"}`)
	for range 2 {
		r := p.reply(t)
		switch string(r.ID) {
		case "2":
			if r.Result == nil {
				t.Errorf("resources/list: %+v, want a result", r)
			}
		case "3":
			if r.Error == nil || r.Error.Code != -32601 || strings.Contains(r.Error.Message, "answers initialize, ping, tools/list and tools/call") || !strings.Contains(r.Error.Message, "no such method") {
				t.Errorf("an unknown method: %+v", r.Error)
			}
		}
	}
}

// A second initialize is the client's mistake: an Invalid Request error
// saying the session is initialized, not an Internal error telling it to
// try again; the session goes on.
func TestServeIOSecondInitialize(t *testing.T) {
	p := startRaw(t, testRegistry(nil), &lineTransport{})
	p.send(t, rawInit, rawInitialized)
	p.reply(t)
	p.send(t, strings.Replace(rawInit, `"id":1`, `"id":2`, 1), rawWhoami(3))
	r := p.reply(t)
	if r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "2" || !strings.Contains(r.Error.Message, "already initialized") {
		t.Fatalf("a second initialize: %+v, want -32600 saying the session is already initialized", r)
	}
	checkOwnWords(t, "second initialize", r.Error.Message)
	if r := p.reply(t); string(r.ID) != "3" || !strings.Contains(string(r.Result), "You are Grace.") {
		t.Fatalf("the call after it: %+v", r)
	}
}

// A message with an id and neither a method nor a result nor an error is
// no JSON-RPC message: refused with -32600 naming what it lacks, alone or
// in a batch, where the SDK would drop it without an answer.
func TestServeIOHollowAnswerRefused(t *testing.T) {
	p := startRaw(t, testRegistry(nil), &lineTransport{})
	p.send(t, rawInit, rawInitialized)
	p.reply(t)
	for i, line := range []string{`{"jsonrpc":"2.0","id":7}`, `[{"jsonrpc":"2.0","id":8}]`} {
		p.send(t, line)
		r := p.reply(t)
		if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "needs a “result” or an “error”") || (i == 0 && string(r.ID) != "7") {
			t.Errorf("%s: %+v, want -32600 naming what it lacks", line, r)
		}
	}
	// An answer with a null result is an answer (to nothing asked here),
	// and the session goes on.
	p.send(t, `{"jsonrpc":"2.0","id":9,"result":null}`, rawWhoami(10))
	if r := p.reply(t); string(r.ID) != "10" || !strings.Contains(string(r.Result), "You are Grace.") {
		t.Fatalf("the call after it: %+v", r)
	}
}

// A call without an id (or with a null one) is refused with -32600
// asking for an id: it would otherwise run and go unanswered. A
// notification still needs none.
func TestServeIOIdlessRequestRefused(t *testing.T) {
	var ran calls
	p := startRaw(t, testRegistry(&ran), &lineTransport{})
	p.send(t, rawInit, rawInitialized)
	p.reply(t)
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"whoami"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"whoami"}}`,
		`[{"jsonrpc":"2.0","method":"tools/list"}]`,
	} {
		p.send(t, line)
		r := p.reply(t)
		if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "needs an “id”") {
			t.Errorf("%s: %+v, want -32600 asking for an id", line, r)
		}
	}
	if n := ran.n.Load(); n != 0 {
		t.Errorf("%d tools ran", n)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, rawWhoami(4))
	if r := p.reply(t); string(r.ID) != "4" || !strings.Contains(string(r.Result), "You are Grace.") {
		t.Fatalf("the call after a notification: %+v", r)
	}
}

// TestServeIOInitializeParams: an initialize whose params are missing or
// cannot be read is told what initialize takes (-32602), not to send
// initialize first; the session can still be initialized after it.
func TestServeIOInitializeParams(t *testing.T) {
	p := startRaw(t, testRegistry(nil), &lineTransport{max: 4096})
	for i, c := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, "initialize takes “params” as an object"},
		{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":[]}`, "initialize takes “params” as an object"},
		{`{"jsonrpc":"2.0","id":3,"method":"initialize","params":null}`, "initialize takes “params” as an object"},
		{`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":42}}`, "“protocolVersion” is a string"},
		{`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":[]}}`, "“capabilities” is an object"},
		{`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":"x"}}`, "“clientInfo” is an object"},
		{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"clientInfo":{"name":5,"version":"1"}}}`, "holds “name” as a string"},
	} {
		p.send(t, c.line)
		r := p.reply(t)
		if r.Error == nil || r.Error.Code != -32602 || string(r.ID) != fmt.Sprint(i+1) || !strings.Contains(r.Error.Message, c.want) {
			t.Errorf("%s: answered %+v, want -32602 saying %q", c.line, r, c.want)
		}
	}
	p.send(t, strings.Replace(rawInit, `"id":1`, `"id":8`, 1), rawInitialized, rawWhoami(9))
	if r := p.reply(t); string(r.ID) != "8" || r.Result == nil {
		t.Fatalf("initialize after the refused ones: %+v", r)
	}
	if r := p.reply(t); string(r.ID) != "9" || !strings.Contains(string(r.Result), "You are Grace.") {
		t.Errorf("the call after initialize: %+v", r)
	}
	p.in.Close()
	<-p.done
}

// TestProtocolVersions: initialize answers with the version the client
// asks for when the server speaks it, and with its newest otherwise
// (MCP "Lifecycle", version negotiation), as docs/mcp.md lists them.
func TestProtocolVersions(t *testing.T) {
	for asked, want := range map[string]string{
		"2024-11-05": "2024-11-05", "2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18",
		"2025-11-25": "2025-11-25", "2099-01-01": "2025-11-25", "draft": "2025-11-25",
	} {
		p := startRaw(t, testRegistry(nil), &lineTransport{max: 4096})
		p.send(t, strings.Replace(rawInit, "2025-06-18", asked, 1))
		r := p.reply(t)
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil || res.ProtocolVersion != want {
			t.Errorf("initialize with %s: %s (%v), want %s", asked, r.Result, err, want)
		}
	}
}

// TestCallParamsGivenTwice: a tools/call whose params give “name” (or
// “arguments”) twice with two values is refused (-32602) naming both,
// and nothing runs: encoding/json would run the last one. Given twice
// alike, it runs.
func TestCallParamsGivenTwice(t *testing.T) {
	p := startRaw(t, testRegistry(nil), &lineTransport{max: 4096})
	p.send(t, rawInit, rawInitialized)
	if r := p.reply(t); r.Result == nil {
		t.Fatalf("initialize: %+v", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","name":"current_time","arguments":{}}}`)
	if r := p.reply(t); r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "“name” is given twice, as “whoami” and as “current_time”") {
		t.Errorf("name twice: %+v", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","name":"whoami","arguments":{}}}`)
	if r := p.reply(t); r.Result == nil || !strings.Contains(string(r.Result), "You are Grace.") {
		t.Errorf("name twice alike: %+v", r)
	}
	p.in.Close()
	<-p.done
}
