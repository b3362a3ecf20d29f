package main

import (
	"context"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tools"
)

func TestParseAge(t *testing.T) {
	cases := []struct {
		in    string
		hours int
		ok    bool
	}{
		{"90d", 90 * 24, true}, {"12w", 12 * 7 * 24, true}, {"36h", 36, true}, {" 1d ", 24, true},
		{"0d", 0, true}, {"3m", 0, false}, {"-1d", 0, false}, {"d", 0, false}, {"1.5d", 0, false}, {"", 0, false},
	}
	for _, c := range cases {
		d, err := parseAge(c.in)
		if (err == nil) != c.ok || (c.ok && int(d.Hours()) != c.hours) {
			t.Errorf("parseAge(%q) = %v, %v; want %dh ok=%v", c.in, d, err, c.hours, c.ok)
		}
	}
}

func TestOneLine(t *testing.T) {
	got := oneLine("unknown command \"chta\" for \"assistant\"\n\nDid you mean this?\n\tchat\n")
	if got != `unknown command "chta" for "assistant"; did you mean chat` {
		t.Errorf("got %q", got)
	}
}

func TestCallTyping(t *testing.T) {
	// The typing rules of `call`, end to end through callArgs with a tool
	// of every property type.
	tool := typingTool()
	cases := []struct {
		name  string
		json  string
		pairs []string
		want  string
	}{
		{"text stays text", "", []string{"title=42"}, `{"title":"42"}`},
		{"text true stays text", "", []string{"title=true"}, `{"title":"true"}`},
		{"integer", "", []string{"priority=2"}, `{"priority":2}`},
		{"integer as text when not a number", "", []string{"priority=high"}, `{"priority":"high"}`},
		{"number with fraction", "", []string{"ratio=0.5"}, `{"ratio":0.5}`},
		{"number +1 left to Args", "", []string{"ratio=+1"}, `{"ratio":"+1"}`},
		{"boolean", "", []string{"done=true", "flag=false"}, `{"done":true,"flag":false}`},
		{"boolean other text", "", []string{"done=yes"}, `{"done":"yes"}`},
		{"one item", "", []string{"tags=a"}, `{"tags":["a"]}`},
		{"json array", "", []string{`tags=["a","b"]`}, `{"tags":["a","b"]}`},
		{"repeated", "", []string{"tags=a", "tags=b"}, `{"tags":["a","b"]}`},
		{"integer items", "", []string{"minutes=10", "minutes=x"}, `{"minutes":[10,"x"]}`},
		{"unknown name stays text", "", []string{"colour=7"}, `{"colour":"7"}`},
		{"empty value", "", []string{"title="}, `{"title":""}`},
		{"value with =", "", []string{"title=a=b"}, `{"title":"a=b"}`},
		{"--args object", `{"title":"x","priority":"3"}`, nil, `{"priority":"3","title":"x"}`},
		{"pairs replace --args", `{"title":"x","tags":["z"]}`, []string{"title=y", "tags=a"}, `{"tags":["a"],"title":"y"}`},
		{"--args with a name twice alike", `{"title":"x","title":"x"}`, nil, `{"title":"x"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := callArgs(tool, []byte(c.json), c.pairs)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
	bad := []struct {
		json  string
		pairs []string
		want  string
	}{
		{"", []string{"title=a", "title=b"}, "“title” is given twice"},
		{"", []string{"=a"}, "is not name=value"},
		{"", []string{`tags=["a"`}, "“tags” starts like a JSON array"},
		{`[1]`, nil, "must be one JSON object"},
		{`{"a":1} {}`, nil, "nothing after it"},
		{`{`, nil, "cut off: the JSON object stops before its end"},
		{`{"title":"a","title":"b"}`, nil, "“title” is given twice, as “a” and as “b”"},
	}
	for _, c := range bad {
		if _, err := callArgs(tool, []byte(c.json), c.pairs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %v: want an error with %q, got %v", c.json, c.pairs, c.want, err)
		}
	}
}

// typingTool has one property of every type, for the typing rules of call.
func typingTool() tools.Tool {
	return tools.Tool{
		Name: "typing", Description: "Echoes its arguments.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("title", "Text."), tools.Int("priority", "A whole number."), tools.Num("ratio", "A number."),
			tools.Bool("done", "A flag."), tools.Bool("flag", "Another flag."),
			tools.Strs("tags", "Texts."), tools.Ints("minutes", "Whole numbers."),
		}},
		Handler: func(context.Context, *tools.ToolContext, *args.Args) tools.ExecResult { return tools.Success("") },
	}
}
