package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/args"
)

func echoTool() Tool {
	return Tool{
		Name:        "echo",
		Description: "Says the text back.",
		Schema: Schema{
			Properties: []Property{Str("text", "What to say."), Int("times", "How often, 1 to 3.")},
			Required:   []string{"text"},
		},
		ReadOnly: true,
		Handler: func(_ context.Context, tc *ToolContext, a *args.Args) ExecResult {
			text := a.NeededLine("text")
			n := a.Number("times", 1, 1, 3)
			if err := a.Err(); err != nil {
				return Invalid(err)
			}
			InsertResult(tc, Changed{Items: []string{text}})
			return Success(strings.Repeat(text, n))
		},
	}
}

func newTestRegistry() *Registry {
	r := NewRegistry()
	r.Add(echoTool())
	r.Add(Tool{Name: "boom", Description: "Panics.", Handler: func(context.Context, *ToolContext, *args.Args) ExecResult {
		panic("kaboom")
	}})
	r.Add(Tool{Name: "saved_boom", Description: "Saves a change, then panics.", Handler: func(_ context.Context, tc *ToolContext, _ *args.Args) ExecResult {
		InsertResult(tc, Changed{Change: "c7", Items: []string{"t3"}})
		panic("kaboom after the commit")
	}})
	r.Add(Tool{Name: "sloppy", Description: "Reads a bad argument and ignores the error.",
		Schema: Schema{Properties: []Property{Int("n", "A number.")}},
		Handler: func(_ context.Context, _ *ToolContext, a *args.Args) ExecResult {
			a.Number("n", 1, 1, 5)
			return Success("fine")
		}})
	return r
}

func TestRegistryCall(t *testing.T) {
	r := newTestRegistry()
	cases := []struct {
		name, tool, raw string
		code            int
		contains        string
	}{
		{"ok", "echo", `{"text":"hi","times":"2"}`, CodeOK, "hihi"},
		{"null args", "echo", `null`, CodeInvalid, "“text” is required"},
		{"empty args", "echo", ``, CodeInvalid, "“text” is required"},
		{"not an object", "echo", `["hi"]`, CodeInvalid, "object"},
		{"broken json", "echo", `{"text":`, CodeInvalid, ""},
		{"unknown argument", "echo", `{"text":"hi","colour":"red"}`, CodeInvalid, "“colour”"},
		{"bad number", "echo", `{"text":"hi","times":9}`, CodeInvalid, "“times”"},
		{"unknown tool close", "ecko", `{}`, CodeInvalid, "did you mean “echo”"},
		{"unknown tool far", "make_coffee", `{}`, CodeInvalid, "boom, echo, saved_boom, sloppy"},
		{"panic", "boom", `{}`, CodeInternal, InternalSentence},
		// A panic after the change was saved says so: “nothing was
		// changed” would have the caller make it again.
		{"panic after saving", "saved_boom", `{}`, CodeInternal, "The change c7 was saved, but its answer could not be made; list_changes shows it, and undo change=c7 takes it back."},
		{"unchecked error", "sloppy", `{"n":"many"}`, CodeInvalid, "“n”"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, call := r.Call(context.Background(), &ToolContext{}, c.tool, []byte(c.raw))
			if res.Code != c.code || !strings.Contains(res.TextOut(), c.contains) {
				t.Fatalf("got %d %q; want %d containing %q", res.Code, res.TextOut(), c.code, c.contains)
			}
			if call == nil {
				t.Fatal("no call context returned")
			}
			if strings.Contains(res.TextOut(), "kaboom") {
				t.Fatal("panic value leaked to the model")
			}
		})
	}
	res, call := r.Call(context.Background(), nil, "echo", []byte(`{"text":"yo"}`))
	if ch, ok := Result[Changed](call); !res.OK() || !ok || ch.Items[0] != "yo" {
		t.Fatalf("result metadata not returned: %+v %v", res, ok)
	}
}

func TestToolCheck(t *testing.T) {
	h := echoTool().Handler
	good := echoTool()
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name string
		mod  func(*Tool)
	}{
		{"camel name", func(t *Tool) { t.Name = "addTask" }},
		{"no description", func(t *Tool) { t.Description = "" }},
		{"no handler", func(t *Tool) { t.Handler = nil }},
		{"property without description", func(t *Tool) { t.Schema.Properties = []Property{{Name: "x", Type: "string"}} }},
		{"union type", func(t *Tool) { t.Schema.Properties = []Property{{Name: "x", Type: "string|integer", Description: "x"}} }},
		{"object property", func(t *Tool) { t.Schema.Properties = []Property{{Name: "x", Type: "object", Description: "x"}} }},
		{"array of objects", func(t *Tool) {
			t.Schema.Properties = []Property{{Name: "x", Type: "array", Items: "object", Description: "x"}}
		}},
		{"required not a property", func(t *Tool) { t.Schema.Required = []string{"nope"} }},
		{"duplicate property", func(t *Tool) { t.Schema.Properties = append(t.Schema.Properties, Str("text", "again")) }},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			tool := echoTool()
			tool.Handler = h
			c.mod(&tool)
			if tool.Check() == nil {
				t.Fatal("Check accepted a bad tool")
			}
			defer func() {
				if recover() == nil {
					t.Fatal("Add did not panic")
				}
			}()
			NewRegistry().Add(tool)
		})
	}
}

func TestSchemaJSONIsFlat(t *testing.T) {
	s := echoTool().Schema
	var m map[string]any
	if err := json.Unmarshal(s.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	if m["type"] != "object" {
		t.Fatalf("type = %v", m["type"])
	}
	if err := CheckFlat(s.JSON()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(s.JSON()), `{"properties":{"text":`) {
		t.Fatalf("properties not in declared order: %s", s.JSON())
	}
	for _, bad := range []string{
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}],"description":"x"}}}`,
		`{"type":"object","properties":{"a":{"type":["string","null"],"description":"x"}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/x","description":"x"}}}`,
		`{"type":"array"}`,
	} {
		if CheckFlat([]byte(bad)) == nil {
			t.Errorf("CheckFlat accepted %s", bad)
		}
	}
}

func TestSubset(t *testing.T) {
	r := newTestRegistry()
	ro := r.Subset(func(t Tool) bool { return t.ReadOnly })
	if got := strings.Join(ro.Names(), ","); got != "echo" {
		t.Fatalf("Subset = %s", got)
	}
}

// TestCallDeadline runs a tool that works until its context is done: the
// Registry's CallTimeout ends it with a sentence naming the limit, a
// caller's cancel with another, and a call whose context is already done
// does not start.
func TestCallDeadline(t *testing.T) {
	var runs, stops int
	started := make(chan struct{}, 4)
	r := NewRegistry()
	r.Log = slog.New(slog.DiscardHandler)
	r.Add(Tool{Name: "spin", Description: "Works until stopped.", ReadOnly: true,
		Handler: func(ctx context.Context, _ *ToolContext, _ *args.Args) ExecResult {
			runs++
			started <- struct{}{}
			<-ctx.Done()
			stops++
			return Internal(ctx.Err())
		}})
	r.CallTimeout = time.Millisecond
	res, _ := r.Call(context.Background(), nil, "spin", nil)
	if res.OK() || !strings.Contains(res.Err, "took longer than the 1ms a call may run") || strings.Contains(res.Err, "deadline exceeded") {
		t.Errorf("past CallTimeout: %+v, want the sentence naming the limit", res)
	}
	// On a loaded machine the millisecond may pass before the handler
	// starts, and a call whose context is done does not start: either
	// way it ran at most once, and stopped when it did.
	if runs > 1 || stops != runs {
		t.Errorf("runs %d, stops %d: want the handler run at most once and stopped by its context", runs, stops)
	}
	select {
	case <-started: // the first call's, when it ran
	default:
	}
	before := runs

	r.CallTimeout = -1 // no deadline of its own: the caller's cancel ends it
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started // this call's
		cancel()
	}()
	res, _ = r.Call(ctx, nil, "spin", nil)
	if res.Err != "The call was cancelled before it finished; nothing was changed." {
		t.Errorf("cancelled: %+v", res)
	}
	res, _ = r.Call(ctx, nil, "spin", nil)
	if runs != before+1 || res.OK() {
		t.Errorf("a call with a done context ran (runs %d) or succeeded: %+v", runs, res)
	}
	if r.Subset(func(Tool) bool { return true }).CallTimeout != -1 {
		t.Error("Subset dropped CallTimeout")
	}
	if DefaultCallTimeout != 30*time.Second {
		t.Errorf("DefaultCallTimeout %s; the README says 30 s", DefaultCallTimeout)
	}
}
