package tools

import (
	"context"
	"testing"
)

// A required argument left out or blank is refused with an example of it
// (Property.Like); a required argument without an example, an optional
// one, and other refusals keep their sentence as args wrote it.
func TestRequiredRefusalShowsExample(t *testing.T) {
	r := NewRegistry()
	tool := echoTool()
	tool.Schema.Properties[0] = tool.Schema.Properties[0].Like("Hello")
	r.Add(tool)
	plain := echoTool()
	plain.Name = "plain"
	r.Add(plain)
	cases := []struct{ tool, raw, want string }{
		{"echo", `{}`, `“text” is required and was not given; write it such as {"text": "Hello"}.`},
		{"echo", `{"text":"  "}`, `“text” must not be empty or only white space; write it such as {"text": "Hello"}.`},
		{"echo", `{"text":"a","colour":1}`, `“colour” is not one of this tool's arguments, which are: text, times.`},
		{"echo", `{"text":"\ud800"}`, `“text” is not valid Unicode text (it has broken UTF-8 or a lone surrogate escape such as \ud800); send it again as valid UTF-8.`},
		{"echo", `{"text":"a","times":9}`, `“times” must be a whole number from 1 to 3, not “9”.`},
		{"plain", `{}`, `“text” is required and was not given.`},
	}
	for _, c := range cases {
		res, _ := r.Call(context.Background(), nil, c.tool, []byte(c.raw))
		if res.Code != CodeInvalid || res.Err != c.want {
			t.Errorf("%s %s:\n got %v %s\nwant %s", c.tool, c.raw, res.Code, res.Err, c.want)
		}
	}
	if got := string(tool.Schema.JSON()); got != string(plain.Schema.JSON()) {
		t.Errorf("the example reached the schema sent to models:\n%s\n%s", got, plain.Schema.JSON())
	}
}
