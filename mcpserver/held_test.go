package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/tools"
)

// teeWriter keeps a copy of what the server writes.
type teeWriter struct {
	io.WriteCloser
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *teeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	w.mu.Unlock()
	return w.WriteCloser.Write(p)
}

func (w *teeWriter) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Split(strings.TrimSuffix(w.buf.String(), "\n"), "\n")
}

// heldCalls makes the same calls on a session: answers with structured
// content json.Marshal wrote (whoami), a failure, an unknown tool, data
// that is not an object.
func heldCalls(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []struct{ name, args string }{
		{"whoami", `{}`}, {"count", `{"n":"lots"}`}, {"whoami", `{}`}, {"no_such_tool", `{}`}, {"count", `{"n":3,"tags":["a"]}`},
	} {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: json.RawMessage(c.args)})
	}
}

// The answers the stdio transport writes itself (heldAnswers) are byte
// for byte the lines the SDK's own stdio transport writes for the same
// calls, in the protocol version of 2025 and in the one whose results
// the SDK stamps with _meta after the handler; none is left held.
func TestHeldAnswersAsSDKWrites(t *testing.T) {
	for _, version := range []string{"", "2026-07-28"} {
		t.Run("version="+version, func(t *testing.T) {
			var copies [2]*teeWriter
			var lt *lineTransport
			for i := range copies {
				serverIn, clientOut, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				clientIn, serverOut, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				tee := &teeWriter{WriteCloser: serverOut}
				copies[i] = tee
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				if i == 0 {
					lt = &lineTransport{r: serverIn, w: tee}
					go func() { defer close(done); _ = serve(ctx, testRegistry(nil), personContext(7, "Grace"), nil, lt) }()
				} else {
					srv, err := New(testRegistry(nil), Fixed(personContext(7, "Grace"), nil))
					if err != nil {
						t.Fatal(err)
					}
					go func() { defer close(done); _ = srv.Run(ctx, &mcp.IOTransport{Reader: serverIn, Writer: tee}) }()
				}
				var opts *mcp.ClientSessionOptions
				if version != "" {
					opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
				}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "held", Version: "1"}, nil).
					Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, opts)
				if err != nil {
					t.Fatal(err)
				}
				heldCalls(t, cs)
				cs.Close()
				cancel()
				<-done
			}
			ours, sdk := copies[0].lines(), copies[1].lines()
			if len(ours) != len(sdk) || len(ours) < 5 {
				t.Fatalf("%d lines over ServeIO, %d through the SDK's transport:\n%s\n--\n%s", len(ours), len(sdk), strings.Join(ours, "\n"), strings.Join(sdk, "\n"))
			}
			stamped := false
			for i := range ours {
				if ours[i] != sdk[i] {
					t.Errorf("line %d:\nServeIO: %s\nSDK:     %s", i+1, ours[i], sdk[i])
				}
				stamped = stamped || strings.Contains(ours[i], `"structuredContent"`) && strings.Contains(ours[i], `"_meta"`)
			}
			if version != "" && !stamped {
				t.Errorf("no answer with structured content carries the SDK's _meta:\n%s", strings.Join(ours, "\n"))
			}
			if lt.held.last < 2 {
				t.Errorf("%d answers were held, want the two whoami answers", lt.held.last)
			}
			if n := lt.held.pending(); n != 0 {
				t.Errorf("%d answers still held after the session", n)
			}
		})
	}
}

// A held answer is only ever written where its own token is: a result
// that merely looks like a token, or the token of an answer already
// written, is left as it is.
func TestHeldAnswersTakeOnlyTheirToken(t *testing.T) {
	h := newHeldAnswers()
	a := h.hold(splicedResult{CallToolResult: Result(tools.SuccessWithData("a", map[string]any{"n": 1}), 0)})
	b := h.hold(splicedResult{CallToolResult: Result(tools.SuccessWithData("b", map[string]any{"n": 2}), 0)})
	tokA, _ := a.MarshalJSON()
	tokB, _ := b.MarshalJSON()
	if !json.Valid(tokA) || bytes.Equal(tokA, tokB) {
		t.Fatalf("tokens %s and %s: want two valid, different JSON objects", tokA, tokB)
	}
	for _, notOurs := range []string{`{}`, `{"\u0000held":99}`, `{"\u0000held":1 }`, `{"held":1}`, string(tokA) + " "} {
		if _, ok := h.take(json.RawMessage(notOurs)); ok {
			t.Errorf("take(%s) found an answer", notOurs)
		}
	}
	if got, ok := h.take(tokB); !ok || got.CallToolResult != b.CallToolResult {
		t.Errorf("take(%s) did not give the answer held under it", tokB)
	}
	if _, ok := h.take(tokB); ok {
		t.Errorf("take(%s) gave an answer twice", tokB)
	}
	// Written as a whole message, the token's answer replaces it.
	var out bytes.Buffer
	c := &lineConn{held: h, out: &lockedWriter{w: nopWriteCloser{&out}}, calls: newOpenCalls()}
	id, _ := jsonrpc.MakeID(float64(4))
	if err := c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: tokA}); err != nil {
		t.Fatal(err)
	}
	a.held = 0
	result, _ := a.MarshalJSON()
	if want := `{"jsonrpc":"2.0","id":4,"result":` + string(result) + "}\n"; out.String() != want {
		t.Errorf("wrote %s, want %s", out.String(), want)
	}
	if n := h.pending(); n != 0 {
		t.Errorf("%d answers still held after both were taken", n)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
