package agent

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// calls accumulates the tool-call deltas of one streamed answer.
//
// OpenAI sends a call's id and name in its first delta and the arguments
// in pieces after it, all under the same index; the index of the first
// call need not be 0. Ollama sends whole calls and gives every one of a
// parallel batch index 0, so a new id at an index already taken starts a
// new call. Some servers repeat the index with an empty id on the
// continuation chunks (read as "same call"), and a few omit the index.
type calls struct {
	list    []*partial
	byIndex map[int]int // index → position in list of the latest call there
}

type partial struct {
	id, name string
	args     strings.Builder
}

const noIndex = -1 << 31

func (c *calls) add(deltas []openai.ToolCall) {
	for _, d := range deltas {
		idx := noIndex
		if d.Index != nil {
			idx = *d.Index
		}
		pos, seen := c.byIndex[idx]
		if idx == noIndex && len(c.list) > 0 && !seen {
			pos, seen = len(c.list)-1, true
		}
		if seen && (d.ID == "" || c.list[pos].id == "" || c.list[pos].id == d.ID) {
			p := c.list[pos]
			if p.id == "" {
				p.id = d.ID
			}
			if p.name == "" {
				p.name = d.Function.Name
			}
			p.args.WriteString(d.Function.Arguments)
			continue
		}
		p := &partial{id: d.ID, name: d.Function.Name}
		p.args.WriteString(d.Function.Arguments)
		if c.byIndex == nil {
			c.byIndex = map[int]int{}
		}
		c.byIndex[idx] = len(c.list)
		c.list = append(c.list, p)
	}
}

// toolCalls returns the finished calls in the order they began.
func (c *calls) toolCalls() []openai.ToolCall {
	if len(c.list) == 0 {
		return nil
	}
	out := make([]openai.ToolCall, len(c.list))
	for i, p := range c.list {
		out[i] = openai.ToolCall{ID: p.id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: p.name, Arguments: p.args.String()}}
	}
	return out
}

// normalizeCalls makes tool calls safe to store and send back: a type of
// "function", no stream index, arguments "{}" when the model wrote none,
// and an id for every call, unique within the message (some servers send
// none, or the same one for every call).
func normalizeCalls(tcs []openai.ToolCall) []openai.ToolCall {
	seen := make(map[string]bool, len(tcs))
	for i := range tcs {
		tc := &tcs[i]
		tc.Index = nil
		tc.Type = openai.ToolTypeFunction
		tc.Function.Name = strings.TrimSpace(tc.Function.Name)
		if strings.TrimSpace(tc.Function.Arguments) == "" {
			tc.Function.Arguments = "{}"
		}
		if tc.ID == "" || seen[tc.ID] {
			tc.ID = newCallID()
		}
		seen[tc.ID] = true
	}
	return tcs
}

// newCallID makes an id in OpenAI's shape ("call_" and 24 hex digits).
func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
