package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
)

func newServer(t testing.TB, opts *Options) *mcp.Server {
	t.Helper()
	srv, err := New(testRegistry(nil), Fixed(personContext(1, "Ada"), opts))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func TestListTools(t *testing.T) {
	reg := testRegistry(nil)
	cs := connect(t, newServer(t, nil))
	init := cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Name != "assistant" || init.ServerInfo.Version == "" {
		t.Errorf("serverInfo = %+v, want name assistant and a version", init.ServerInfo)
	}
	for _, want := range []string{"2026-12-02T09:00", "e7@20261005T070000Z", "clear", "next_cursor", "allow_duplicate"} {
		if !strings.Contains(init.Instructions, want) {
			t.Errorf("instructions lack %q:\n%s", want, init.Instructions)
		}
	}
	if strings.Contains(init.Instructions, "current_time") {
		t.Errorf("instructions send the model to current_time, which the test registry lacks:\n%s", init.Instructions)
	}
	if !strings.Contains(Instructions, " current_time gives") || !strings.Contains(Instructions, "with undo and") {
		t.Errorf("the whole Instructions lack current_time or undo:\n%s", Instructions)
	}
	if init.Capabilities == nil || init.Capabilities.Tools == nil || init.Capabilities.Tools.ListChanged {
		t.Errorf("tools capability = %+v, want present without listChanged", init.Capabilities)
	}

	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, got := range res.Tools {
		names = append(names, got.Name)
		want, ok := reg.Get(got.Name)
		if !ok {
			t.Errorf("served tool %s is not in the registry", got.Name)
			continue
		}
		if !sameJSON(t, got.InputSchema, want.Schema.JSON()) {
			gotJSON, _ := json.Marshal(got.InputSchema)
			t.Errorf("%s: inputSchema %s, want %s", got.Name, gotJSON, want.Schema.JSON())
		}
		if got.OutputSchema != nil {
			t.Errorf("%s: outputSchema %v declared; results have no fixed shape", got.Name, got.OutputSchema)
		}
		if got.Title != want.Title || got.Description != want.Description {
			t.Errorf("%s: title %q description %q, want %q %q", got.Name, got.Title, got.Description, want.Title, want.Description)
		}
		a := got.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", got.Name)
			continue
		}
		if a.ReadOnlyHint != want.ReadOnly || a.IdempotentHint != want.Idempotent ||
			a.DestructiveHint == nil || *a.DestructiveHint != want.Destructive ||
			a.OpenWorldHint == nil || *a.OpenWorldHint || a.Title != want.Title {
			t.Errorf("%s: annotations %+v, want readOnly %t idempotent %t destructive %t openWorld false title %q",
				got.Name, a, want.ReadOnly, want.Idempotent, want.Destructive, want.Title)
		}
	}
	// The SDK lists tools sorted by name, not in the order they were added.
	if want := slices.Sorted(slices.Values(reg.Names())); !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

func TestCall(t *testing.T) {
	cs := connect(t, newServer(t, nil))
	cases := []struct {
		name, tool, args string
		isError          bool
		text             string // the text content contains this
		structured       string // the structuredContent as JSON; "" for none
	}{
		{"plain", "count", `{"n":3}`, false, "n=3 loud=false tags= mood=calm",
			`{"n":3,"loud":false,"tags":[],"mood":"calm"}`},
		{"number as text, flag as text, one string for a list", "count", `{"n":"15","loud":"true","tags":"home"}`, false,
			"n=15 loud=true tags=home", `{"n":15,"loud":true,"tags":["home"],"mood":"calm"}`},
		{"whole number written as a float", "count", `{"n":15.0,"tags":[" a ","","b"]}`, false, "n=15 loud=false tags=a,b", ""},
		{"number out of range", "count", `{"n":"500"}`, true, "“n”", ""},
		{"fraction", "count", `{"n":1.5}`, true, "“n”", ""},
		{"flag not a flag", "count", `{"n":1,"loud":"yes"}`, true, "“loud”", ""},
		{"not in the enum", "count", `{"n":1,"mood":"grumpy"}`, true, "“mood”", ""},
		{"required missing", "count", `{}`, true, "“n” is required", ""},
		{"unknown argument", "count", `{"n":1,"colour":"red"}`, true, "“colour”", ""},
		{"failure keeps its sentence", "missing", `{}`, true, notFoundSentence, ""},
		{"panic is an internal error", "boom", `{}`, true, tools.InternalSentence, ""},
		{"object data as is", "data", `{"shape":"object"}`, false, `{"id":"t12"}`, `{"id":"t12"}`},
		{"array data wrapped", "data", `{"shape":"array"}`, false, `["t1","t2"]`, `{"result":["t1","t2"]}`},
		{"number data wrapped", "data", `{"shape":"number"}`, false, "42", `{"result":42}`},
		{"text data wrapped", "data", `{"shape":"text"}`, false, `"t12"`, `{"result":"t12"}`},
		{"sniffed data wrapped", "data", `{"shape":"sniffed"}`, false, "[1, 2]", `{"result":[1,2]}`},
		{"no data, no structured content", "data", `{"shape":"none"}`, false, "Nothing to show.", ""},
		{"person from the context", "whoami", `{}`, false, "You are Ada.", `{"id":1,"name":"Ada","zone":"Europe/Paris"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatalf("protocol error %v; a tool's answer must be a result", err)
			}
			if res.IsError != c.isError {
				t.Errorf("isError = %t, want %t (%s)", res.IsError, c.isError, text(t, res))
			}
			if got := text(t, res); !strings.Contains(got, c.text) {
				t.Errorf("text %q does not contain %q", got, c.text)
			}
			switch {
			case c.structured == "" && res.StructuredContent != nil && c.isError:
				t.Errorf("a failure has structuredContent %v", res.StructuredContent)
			case c.structured == "" && c.text == "Nothing to show." && res.StructuredContent != nil:
				t.Errorf("structuredContent %v, want none", res.StructuredContent)
			case c.structured != "" && !sameJSON(t, res.StructuredContent, c.structured):
				got, _ := json.Marshal(res.StructuredContent)
				t.Errorf("structuredContent %s, want %s", got, c.structured)
			}
		})
	}
}

func TestCallSpill(t *testing.T) {
	cs := connect(t, newServer(t, nil))
	for _, c := range []struct {
		name    string
		args    string
		isError bool
	}{
		{"a spilled success is not an error", `{}`, false},
		{"a spilled failure stays an error", `{"fail":true}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "big", Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != c.isError {
				t.Errorf("isError = %t, want %t", res.IsError, c.isError)
			}
			got := text(t, res)
			if len(got) > tools.ModelLimit {
				t.Errorf("text is %d bytes, over the %d limit", len(got), tools.ModelLimit)
			}
			if !strings.Contains(got, "bytes cut of 33000") {
				t.Errorf("text does not say what was cut: …%s…", got[len(got)/2-100:len(got)/2+100])
			}
			if !c.isError && !sameJSON(t, res.StructuredContent, `{"rows":2000}`) {
				t.Errorf("structuredContent %v, want the whole Data", res.StructuredContent)
			}
		})
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	// The SDK answers a name it does not serve itself (JSON-RPC invalid
	// params) before any handler runs; documented here so a change in the
	// SDK is noticed.
	cs := connect(t, newServer(t, &Options{ReadOnly: true}))
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "note", Arguments: map[string]any{"text": "x"}}); err == nil ||
		!strings.Contains(err.Error(), "note") {
		t.Errorf("calling a tool left out by --read-only: err = %v, want an unknown-tool error", err)
	}
}

func TestNoContextRefuses(t *testing.T) {
	srv, err := New(testRegistry(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"}); err == nil {
		t.Error("a call without a ToolContext ran; want a protocol error")
	}
}

// The server lists exactly the tools it is given, less those Options
// leave out by the names tools.Registry.Select reads, and its
// instructions name no tool it does not serve: the lines about
// current_time and undo go with those tools. The binary chooses with
// catalog.Select and hands New what it chose.
func TestServedTools(t *testing.T) {
	cases := []struct {
		name string
		reg  func() *tools.Registry
		opts Options
		want string // the tools listed, in order
		err  string // a part of New's error, when it fails
	}{
		{name: "everything", reg: catalog.New, want: strings.Join(catalog.New().Names(), " ")},
		{name: "tasks", reg: chosen(t, "tasks", false),
			want: "add_task list_tasks get_task update_task complete_task reopen_task delete_task current_time snooze undo list_changes"},
		{name: "read-only by name", reg: catalog.New, opts: Options{Tools: []string{"read-only"}},
			want: "list_tasks get_task list_events get_event find_free_time current_time list_changes"},
		{name: "tasks and the read-only option", reg: chosen(t, "tasks", true), opts: Options{ReadOnly: true},
			want: "list_tasks get_task current_time list_changes"},
		{name: "a group and tools", reg: chosen(t, "list_events,tasks", false),
			want: "add_task list_tasks get_task update_task complete_task reopen_task delete_task list_events current_time snooze undo list_changes"},
		{name: "tools without current_time or undo", reg: catalog.New, opts: Options{Tools: []string{"list_tasks", "add_task"}},
			want: "add_task list_tasks"},
		{name: "test tools, read-only", reg: func() *tools.Registry { return testRegistry(nil) }, opts: Options{ReadOnly: true},
			want: "whoami count missing big data"},
		{name: "test tools chosen, in registry order", reg: func() *tools.Registry { return testRegistry(nil) },
			opts: Options{Tools: []string{"note", " whoami ", ""}}, want: "whoami note"},
		{name: "a group New does not know", reg: catalog.New, opts: Options{Tools: []string{"tasks"}}, err: "there is no tool or group “tasks”"},
		{name: "unknown", reg: catalog.New, opts: Options{Tools: []string{"add_tusk"}},
			err: "there is no tool or group “add_tusk” (did you mean “add_task”?); write a group (all, read-only)"},
		{name: "writing tool with read-only", reg: func() *tools.Registry { return testRegistry(nil) },
			opts: Options{Tools: []string{"count", "forget"}, ReadOnly: true}, err: "the tool “forget” changes data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, err := New(c.reg(), Fixed(personContext(1, "Ada"), &c.opts))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cs := connect(t, srv)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
			}
			// The SDK lists tools by name; the registry's order is the chat's.
			want := strings.Fields(c.want)
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Errorf("tools/list:\n got %s\nwant %s", names, want)
			}
			text := cs.InitializeResult().Instructions
			for _, tool := range []string{"current_time", "undo"} {
				if served := slices.Contains(names, tool); strings.Contains(text, " "+tool+" ") != served {
					t.Errorf("%s served: %v, but the instructions say otherwise:\n%s", tool, served, text)
				}
			}
			if !strings.Contains(text, "2026-12-02T09:00") {
				t.Errorf("instructions lost the lines naming no tool:\n%s", text)
			}
		})
	}
}

// chosen is the catalog's tools that names choose, as `assistant mcp
// --tools` hands them to New.
func chosen(t *testing.T, names string, readOnly bool) func() *tools.Registry {
	return func() *tools.Registry {
		reg, err := catalog.Select(catalog.New(), tools.SplitNames(names), readOnly)
		if err != nil {
			t.Fatal(err)
		}
		return reg
	}
}

func TestServedSchemas(t *testing.T) {
	for regName, build := range servedRegistries {
		t.Run(regName, func(t *testing.T) {
			reg := build()
			srv, err := New(reg, Fixed(&tools.ToolContext{}, nil))
			if err != nil {
				t.Fatal(err)
			}
			res, err := connect(t, srv).ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) == 0 || len(res.Tools) != len(reg.Names()) {
				t.Fatalf("%d tools served, want all %d", len(res.Tools), len(reg.Names()))
			}
			for _, tool := range res.Tools {
				raw, err := json.Marshal(tool.InputSchema)
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := reg.Get(tool.Name); !sameJSON(t, raw, want.Schema.JSON()) {
					t.Errorf("%s: inputSchema %s, want %s", tool.Name, raw, want.Schema.JSON())
				}
				if err := tools.CheckFlat(raw); err != nil {
					t.Errorf("%s: %v", tool.Name, err)
				}
				doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
				if err != nil {
					t.Fatalf("%s: %v", tool.Name, err)
				}
				c := jsonschema.NewCompiler()
				url := "mem://" + tool.Name + ".json"
				if err := c.AddResource(url, doc); err != nil {
					t.Fatalf("%s: %v", tool.Name, err)
				}
				if _, err := c.Compile(url); err != nil {
					t.Errorf("%s: the input schema does not compile: %v", tool.Name, err)
				}
			}
		})
	}
}

func TestResult(t *testing.T) {
	// Result directly, for what no tool above produces.
	cases := []struct {
		name       string
		in         tools.ExecResult
		isError    bool
		text       string
		structured string
	}{
		{"output rows", tools.WithOutput(&tools.Output{Heading: "Tasks", Rows: []string{"t1 milk"}}), false, "Tasks\nt1 milk", ""},
		{"invalid data left out", tools.ExecResult{Code: tools.CodeOK, Out: "x", Data: json.RawMessage(`{bad`)}, false, "x", ""},
		{"null data wrapped", tools.ExecResult{Code: tools.CodeOK, Out: "null", Data: json.RawMessage(`null`)}, false, "null", `{"result":null}`},
		{"failure with data keeps no data", tools.ExecResult{Code: tools.CodeConflict, Err: "No.", Data: json.RawMessage(`{"a":1}`)}, true, "No.", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Result(c.in, 0)
			if res.IsError != c.isError {
				t.Errorf("isError = %t, want %t", res.IsError, c.isError)
			}
			if got := text(t, res); got != c.text {
				t.Errorf("text %q, want %q", got, c.text)
			}
			if c.structured == "" {
				if res.StructuredContent != nil {
					t.Errorf("structuredContent %v, want none", res.StructuredContent)
				}
			} else if !sameJSON(t, res.StructuredContent, c.structured) {
				t.Errorf("structuredContent %v, want %s", res.StructuredContent, c.structured)
			}
		})
	}
}
