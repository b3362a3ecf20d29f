package agent

import (
	"io"
	"testing"

	"github.com/assistant-dev/assistant/tools"
)

// benchAdd is the call every benchmark turn makes: allow_duplicate makes
// each one a real insert (with its journal entry), not a duplicate hit.
const benchAdd = `{"title":"Call the plumber","due":"2026-07-14T07:00Z","allow_duplicate":true}`

// BenchmarkRealToolsTurn is one turn with the real add_task on a real
// store file: a model request answered with the call, the call, and a
// second request answered in words. The model answers in process at
// once (canned), so what is left is the loop's work plus the tool's;
// BenchmarkRealToolsAddTask is the tool's alone, for the difference.
func BenchmarkRealToolsTurn(b *testing.B) {
	whole := &canned{bodies: [2]string{
		callsReply(call{"call_b", "add_task", benchAdd}).body,
		textReply("Done: call the plumber tomorrow at 09:00.").body,
	}}
	stream := &canned{sse: true, bodies: [2]string{
		sseBody(
			chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"add_task","arguments":""}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"title\":\"Call the plumber\","}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"due\":\"2026-07-14T07:00Z\","}}]}`),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"allow_duplicate\":true}"}}]}`),
			finish("tool_calls")),
		sseBody(
			chunk(`{"role":"assistant","content":"Done: call the plumber "}`),
			chunk(`{"content":"tomorrow "}`),
			chunk(`{"content":"at 09:00."}`),
			finish("stop")),
	}}
	// The same turn calling current_time, which reads only the clock: the
	// loop's own cost with the catalog's schemas in every request.
	clock := &canned{bodies: [2]string{
		callsReply(call{"call_b", "current_time", `{}`}).body,
		textReply("It is 18:00.").body,
	}}
	cases := []struct {
		name   string
		c      *canned
		stored bool // the conversation kept in the store, as the binary does
	}{
		{"whole/current_time", clock, false},
		{"whole", whole, false},
		{"stream", stream, false},
		{"stream+stored", stream, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			e := newRealEnv(b, c.c.sse)
			e.cfg.HTTPClient = c.c
			e.cfg.Out = io.Discard
			e.build()
			var conv Conversation = NewMemory()
			b.ReportAllocs()
			for b.Loop() {
				if c.stored {
					sc, err := NewStoreConversation(e.ctx, e.s, e.person.ID)
					if err != nil {
						b.Fatal(err)
					}
					conv = sc
				} else {
					conv = NewMemory()
				}
				if _, err := e.agent.Turn(e.ctx, conv, "remind me to call the plumber tomorrow at 9"); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if n := len(e.tasks()); c.c != clock && n < b.N {
				b.Fatalf("%d tasks stored after %d turns", n, b.N)
			}
		})
	}
}

// BenchmarkRealToolsAddTask is the same add_task call straight through the
// registry, with the same ToolContext and store: the tool's share of a
// turn.
func BenchmarkRealToolsAddTask(b *testing.B) {
	e := newRealEnv(b, false)
	raw := []byte(benchAdd)
	b.ReportAllocs()
	for b.Loop() {
		res, _ := e.reg.Call(e.ctx, e.cfg.Context, "add_task", raw)
		if res.Code != tools.CodeOK {
			b.Fatal(res.TextOut())
		}
	}
}
