package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// objectCallsReply is a whole answer whose tool calls carry "arguments" as
// a JSON object, as some OpenAI-compatible servers send them.
func objectCallsReply() reply {
	return reply{body: `{"id":"chatcmpl-o","object":"chat.completion","created":1783958400,"model":"test-model",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"call_o1","type":"function","function":{"name":"add_note","arguments":{"text":"milk","at":"2026-07-14"}}},` +
		`{"id":"call_o2","type":"function","function":{"name":"list_notes","arguments":{}}}` +
		`]},"finish_reason":"tool_calls"}]}`}
}

// Tool-call arguments sent as a JSON object instead of a string are taken
// as that object, in a stream (in one delta or after a string start), in
// a whole answer to a streamed request and in a whole answer; what is sent
// back and stored is OpenAI's string.
func TestArgumentsAsAnObject(t *testing.T) {
	streamed := reply{sse: []string{
		chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_o1","type":"function","function":{"name":"add_note","arguments":{"text":"milk","at":"2026-07-14"}}}]}`),
		chunk(`{"tool_calls":[{"index":1,"id":"call_o2","type":"function","function":{"name":"list_notes","arguments":{}}}]}`),
		finish("tool_calls"),
	}}
	whole := objectCallsReply()
	whole.whole = true
	for _, c := range []struct {
		name   string
		stream bool
		calls  reply
	}{
		{"streamed", true, streamed},
		{"whole answer to a streamed request", true, whole},
		{"whole answer", false, objectCallsReply()},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := textReply("Noted n1: milk.")
			if c.stream {
				text = reply{sse: []string{chunk(`{"role":"assistant","content":"Noted n1: milk."}`), finish("stop")}}
			}
			e := newEnv(t, c.stream, c.calls, text)
			conv := NewMemory()
			answer, err := e.agent.Turn(context.Background(), conv, "note milk for tomorrow")
			if err != nil {
				t.Fatalf("err = %v (exit %d)", err, ExitCode(err))
			}
			if answer != "Noted n1: milk." {
				t.Errorf("answer = %q", answer)
			}
			if len(e.nb.notes) != 1 || e.nb.notes[0].text != "milk" || e.nb.notes[0].at != "2026-07-14" {
				t.Errorf("notes = %+v", e.nb.notes)
			}
			reqs := e.fake.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			sent := reqs[1].req.Messages[2]
			if len(sent.ToolCalls) != 2 || sent.ToolCalls[0].Function.Arguments != `{"text":"milk","at":"2026-07-14"}` ||
				sent.ToolCalls[1].Function.Arguments != `{}` {
				t.Errorf("calls sent back = %+v", sent.ToolCalls)
			}
			if tm := toolMessages(reqs[1]); len(tm) != 2 || !strings.HasPrefix(tm[0].Content, "Added n1") {
				t.Errorf("tool messages = %+v", tm)
			}
		})
	}
}

// An answer the decoder cannot read is told in a sentence of ours: no
// decoder's words, no Go type, in a stream or a whole answer.
func TestUnreadableAnswerSentence(t *testing.T) {
	for _, c := range []struct {
		name   string
		stream bool
		rep    reply
	}{
		{"a chunk of the wrong shape", true, reply{sse: []string{`{"choices":[{"index":0,"delta":{"content":5}}]}`}}},
		{"a chunk that is not JSON", true, reply{sse: []string{`{"choices":[`}}},
		{"tool calls of the wrong shape", true, reply{sse: []string{chunk(`{"tool_calls":{"index":0}}`)}}},
		{"a whole answer of the wrong shape", false, reply{body: `{"choices":[{"index":0,"message":{"role":"assistant","content":{"text":"hi"}}}]}`}},
		{"a whole answer with calls of the wrong shape", false, reply{body: `{"choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":7,"function":"add_note"}]}}]}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.stream, c.rep)
			e.cfg.MaxRetries = -1
			e.build(t)
			_, err := e.agent.Turn(context.Background(), NewMemory(), "hello")
			var ae *Error
			if !errors.As(err, &ae) || ae.Kind != KindProtocol {
				t.Fatalf("err = %v, want KindProtocol", err)
			}
			for _, bad := range []string{"json", "Go ", "struct", "unmarshal", "openai.", "string"} {
				if strings.Contains(ae.Sentence, bad) {
					t.Errorf("sentence %q has %q", ae.Sentence, bad)
				}
			}
			if !strings.Contains(ae.Sentence, e.fake.url()) {
				t.Errorf("sentence %q does not name the server", ae.Sentence)
			}
		})
	}
}
