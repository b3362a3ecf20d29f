package agent

import (
	"context"
	"slices"
	"sync"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Conversation is where a chat's messages are kept between turns: the
// user's messages, the assistant's answers and tool calls, and the tool
// results, in order. The system prompt is never stored: it is rebuilt for
// every request.
//
// Append gets whole steps: an assistant message with tool calls always
// comes in the same call as the tool messages answering every one of its
// calls, so an implementation that writes each Append in one transaction
// never holds a call without its answer.
type Conversation interface {
	Load(ctx context.Context) ([]openai.ChatCompletionMessage, error)
	Append(ctx context.Context, msgs ...openai.ChatCompletionMessage) error
}

// Memory is a Conversation held in memory, for one-shot runs and tests. It
// is safe for concurrent use.
type Memory struct {
	mu   sync.Mutex
	msgs []openai.ChatCompletionMessage
}

// NewMemory returns an empty Memory, or one holding msgs.
func NewMemory(msgs ...openai.ChatCompletionMessage) *Memory {
	return &Memory{msgs: slices.Clone(msgs)}
}

// Load returns a copy of the messages.
func (m *Memory) Load(context.Context) ([]openai.ChatCompletionMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.msgs), nil
}

// Append adds msgs at the end.
func (m *Memory) Append(_ context.Context, msgs ...openai.ChatCompletionMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs = append(m.msgs, msgs...)
	return nil
}

// Messages returns a copy of the messages (Load without a context).
func (m *Memory) Messages() []openai.ChatCompletionMessage {
	msgs, _ := m.Load(context.Background())
	return msgs
}

// cancelledText answers a tool call that never ran.
const cancelledText = "cancelled: the person stopped the turn before this call ran; nothing was done."

// repair returns msgs in a shape every server takes: each assistant tool
// call followed by exactly one tool message answering it, in the calls'
// order (a missing answer reads "cancelled"); tool messages that answer
// no call are dropped. History written by this package is already in
// this shape; repair guards against a conversation cut by a crash or
// edited by hand, which servers would otherwise reject with a 400.
func repair(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == openai.ChatMessageRoleTool {
			continue
		}
		out = append(out, m)
		if m.Role != openai.ChatMessageRoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		j := i + 1
		for j < len(msgs) && msgs[j].Role == openai.ChatMessageRoleTool {
			j++
		}
		answers := msgs[i+1 : j]
		for _, tc := range m.ToolCalls {
			k := slices.IndexFunc(answers, func(a openai.ChatCompletionMessage) bool { return a.ToolCallID == tc.ID })
			if k >= 0 {
				out = append(out, answers[k])
			} else {
				out = append(out, toolMessage(tc.ID, cancelledText))
			}
		}
		i = j - 1
	}
	return out
}

// fit drops the oldest turns of msgs until what is left measures at most
// budget, and returns what is kept and how many messages were dropped. A
// turn begins at a user message and runs to the next one, so a tool call
// is never separated from its result; the latest turn is always kept,
// even alone over the budget.
func fit(msgs []openai.ChatCompletionMessage, budget int, measure func(string) int) ([]openai.ChatCompletionMessage, int) {
	if budget <= 0 {
		return msgs, 0
	}
	total := 0
	sizes := make([]int, len(msgs))
	for i, m := range msgs {
		sizes[i] = size(m, measure)
		total += sizes[i]
	}
	start := 0
	for total > budget {
		next := -1
		for k := start + 1; k < len(msgs); k++ {
			if msgs[k].Role == openai.ChatMessageRoleUser {
				next = k
				break
			}
		}
		if next < 0 {
			break
		}
		for k := start; k < next; k++ {
			total -= sizes[k]
		}
		start = next
	}
	return msgs[start:], start
}

// size measures what a message costs in the budget: its text, its tool
// calls' names and arguments, and a few units for the framing every
// message has.
func size(m openai.ChatCompletionMessage, measure func(string) int) int {
	n := 4 + measure(m.Content)
	for _, tc := range m.ToolCalls {
		n += 4 + measure(tc.Function.Name) + measure(tc.Function.Arguments)
	}
	return n
}

// countRunes is the default measure: characters. About four characters
// make a token in English; set Config.Measure to a tokenizer to budget in
// tokens.
func countRunes(s string) int { return utf8.RuneCountInString(s) }

func toolMessage(id, content string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id, Content: content}
}
