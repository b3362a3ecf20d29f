package agent

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// canned answers HTTP requests in process, without a socket, alternating a
// tool call and a final answer, so a benchmark measures the loop's own
// work: building requests and the system prompt, JSON both ways, reading
// the stream, running the tool, writing lines.
type canned struct {
	n      atomic.Int64
	bodies [2]string
	sse    bool
}

func (c *canned) Do(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	req.Body.Close()
	i := c.n.Add(1) - 1
	h := http.Header{}
	if c.sse {
		h.Set("Content-Type", "text/event-stream")
	} else {
		h.Set("Content-Type", "application/json")
	}
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(c.bodies[i%2])), Request: req}, nil
}

func sseBody(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// BenchmarkTurn is one turn of two model requests (a tool call, then the
// answer) with one trivial tool call, the model answering at once.
func BenchmarkTurn(b *testing.B) {
	for _, stream := range []bool{false, true} {
		name := "whole"
		c := &canned{bodies: [2]string{
			callsReply(call{"call_b", "list_notes", `{"query":"x"}`}).body,
			textReply("You have no notes about that.").body,
		}}
		if stream {
			name = "stream"
			c.sse = true
			c.bodies = [2]string{
				sseBody(
					chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"list_notes","arguments":""}}]}`),
					chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"query\":"}}]}`),
					chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"x\"}"}}]}`),
					finish("tool_calls")),
				sseBody(
					chunk(`{"role":"assistant","content":"You have "}`),
					chunk(`{"content":"no notes "}`),
					chunk(`{"content":"about that."}`),
					finish("stop")),
			}
		}
		b.Run(name, func(b *testing.B) {
			e := newEnv(b, stream)
			e.cfg.HTTPClient = c
			e.cfg.Out = io.Discard
			e.build(b)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.agent.Turn(ctx, NewMemory(), "what do I have about x?"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTurnLoopback is the same turn through a real HTTP server on
// loopback, for comparison with the in-process figure.
func BenchmarkTurnLoopback(b *testing.B) {
	e := newEnv(b, false)
	srv := &canned{bodies: [2]string{
		callsReply(call{"call_b", "list_notes", `{"query":"x"}`}).body,
		textReply("You have no notes about that.").body,
	}}
	ts := newLoopback(b, srv)
	e.cfg.BaseURL = ts
	e.cfg.Out = io.Discard
	e.build(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.agent.Turn(ctx, NewMemory(), "what do I have about x?"); err != nil {
			b.Fatal(err)
		}
	}
}

func newLoopback(b *testing.B, c *canned) string {
	srv := newFake(b)
	srv.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, _ := c.Do(r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, resp.Body)
	})
	return srv.url()
}
