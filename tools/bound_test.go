package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
)

// Registry.Call keeps every answer within the bounds, whatever a tool
// returns: the text within TextBound, text and Data within AnswerBound,
// Data still valid JSON, and the text says what was cut and how to get the
// rest.
func TestCallBoundsEveryAnswer(t *testing.T) {
	notes := strings.Repeat("ü", 10_000)
	items := make([]map[string]any, 100)
	for i := range items {
		items[i] = map[string]any{"id": i, "title": strings.Repeat("t", 200), "notes": notes}
	}
	cases := map[string]ExecResult{
		"long text":   Success(strings.Repeat("line of text\n", 10_000)),
		"big data":    SuccessWithData("100 items:", map[string]any{"items": items, "total": 100}),
		"both":        SuccessWithData(strings.Repeat("x", 60_000), map[string]any{"items": items}),
		"json text":   SuccessData(map[string]any{"items": items}),
		"many small":  SuccessWithData("many", map[string]any{"ids": make([]int, 200_000)}),
		"long output": WithOutput(&Output{Heading: "rows:", Rows: strings.Split(strings.Repeat("row\n", 20_000), "\n")}),
		"failure":     Failure(CodeInvalid, strings.Repeat("bad ", 20_000)),
		"small":       SuccessWithData("fine", map[string]any{"ok": true}),
		"quotes":      SuccessWithData(strings.Repeat(`"<>"`, 9_000), map[string]any{"items": items[:7]}),
	}
	r := NewRegistry()
	for name, res := range cases {
		r.Add(Tool{Name: strings.ReplaceAll(name, " ", "_"), Description: "Returns a fixed answer.",
			Handler: func(context.Context, *ToolContext, *args.Args) ExecResult { return res }})
	}
	for name, before := range cases {
		res, _ := r.Call(context.Background(), nil, strings.ReplaceAll(name, " ", "_"), nil)
		text := res.TextOut()
		if utf8.RuneCountInString(text) > TextBound || serialized(text)+utf8.RuneCount(res.Data) > AnswerBound {
			t.Errorf("%s: text %d bytes, data %d bytes", name, len(text), len(res.Data))
		}
		if len(res.Data) > 0 && !json.Valid(res.Data) {
			t.Errorf("%s: data is not JSON after the cut", name)
		}
		n := utf8.RuneCountInString(before.TextOut())
		cut := n > TextBound || serialized(before.TextOut())+utf8.RuneCount(before.Data) > AnswerBound
		says := strings.Contains(text, "was cut") && strings.Contains(text, "get_task or get_event")
		if cut != says {
			t.Errorf("%s: cut %v, but the text says so: %v\n…%s", name, cut, says, text[max(0, len(text)-400):])
		}
		if name == "small" && (text != "fine" || string(res.Data) != `{"ok":true}`) {
			t.Errorf("small answer changed: %q %s", text, res.Data)
		}
		if name == "big data" {
			var d map[string]any
			if json.Unmarshal(res.Data, &d) != nil || d["truncated"] == nil || d["total"] == nil || len(d["items"].([]any)) == 0 {
				t.Errorf("big data after the cut: %.300s", res.Data)
			}
		}
		if res.Code != before.Code {
			t.Errorf("%s: code %d, was %d", name, res.Code, before.Code)
		}
	}
}
