package agent

import (
	"strings"
	"testing"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Whatever the model writes as arguments, and whatever a tool answers,
// the tool line is one line of valid UTF-8 that names the tool.
func FuzzToolLine(f *testing.F) {
	f.Add(`{"title":"Dentist","due":"2026-12-01T15:00"}`, "Added t12.", true)
	f.Add(`{"id":"e7@20261005T070000Z","start":"2026-10-05 10:30:00+02:00[Europe/Paris]"}`, "", false)
	f.Add(`{"title":"a\nb\u2028c","due":"2026-02-30"}`, "x\ny", true)
	f.Add(`[1,2]`, "", true)
	f.Add(`{"title":"\xff"}`, "\xff", false)
	f.Fuzz(func(t *testing.T, args, answer string, ok bool) {
		res := tools.Success(answer)
		if !ok {
			res = tools.Failure(tools.CodeInvalid, answer)
		}
		line := toolLine("add_task", args, res, tz.MustZone("Europe/Paris"))
		if !strings.HasPrefix(line, "→ add_task") || strings.ContainsAny(line, "\n\r") {
			t.Errorf("line %q", line)
		}
		if utf8.ValidString(args) && utf8.ValidString(answer) && !utf8.ValidString(line) {
			t.Errorf("line %q is not UTF-8", line)
		}
	})
}

// Any sequence of deltas gives calls whose arguments are the deltas'
// pieces in order, with nothing lost.
func FuzzCallsAccumulate(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 0}, "call_a", "call_b", `{"text":"a"}`)
	f.Add([]byte{255, 255, 0}, "", "x", `{}`)
	f.Fuzz(func(t *testing.T, plan []byte, id1, id2, piece string) {
		var acc calls
		total := 0
		for _, p := range plan {
			var index *int
			if p != 255 {
				i := int(p % 3)
				index = &i
			}
			id := ""
			switch p % 5 {
			case 1:
				id = id1
			case 2:
				id = id2
			}
			acc.add([]openai.ToolCall{{Index: index, ID: id, Function: openai.FunctionCall{Name: "f", Arguments: piece}}})
			total += len(piece)
		}
		got := 0
		for _, c := range normalizeCalls(acc.toolCalls()) {
			if c.ID == "" || c.Type != "function" || c.Index != nil {
				t.Fatalf("call %+v", c)
			}
			if strings.TrimSpace(c.Function.Arguments) != "{}" || strings.TrimSpace(piece) == "{}" {
				got += len(c.Function.Arguments)
			}
		}
		if strings.TrimSpace(piece) != "" && got != total {
			t.Errorf("arguments hold %d bytes, the deltas %d", got, total)
		}
	})
}
