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
	for _, want := range []string{"current_time", "2026-12-02T09:00", "e7@20261005T070000Z", "clear", "next_cursor", "allow_duplicate", "undo"} {
		if !strings.Contains(init.Instructions, want) {
			t.Errorf("instructions lack %q:\n%s", want, init.Instructions)
		}
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

func TestSelect(t *testing.T) {
	all := testRegistry(nil).Names()
	readOnly := []string{"whoami", "count", "missing", "big", "data"}
	cases := []struct {
		name     string
		readOnly bool
		tools    []string
		want     []string
		err      string
	}{
		{"everything", false, nil, all, ""},
		{"read-only", true, nil, readOnly, ""},
		{"chosen, in registry order", false, []string{"note", " whoami ", ""}, []string{"whoami", "note"}, ""},
		{"chosen read-only", true, []string{"count", "data"}, []string{"count", "data"}, ""},
		{"unknown", false, []string{"whoami", "add_tusk"}, nil, "“add_tusk”"},
		{"writing tool with read-only", true, []string{"count", "forget"}, nil, "“forget” changes data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg, err := Select(testRegistry(nil), c.readOnly, c.tools)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(reg.Names(), c.want) {
				t.Errorf("tools %v, want %v", reg.Names(), c.want)
			}
		})
	}
	// New refuses the same options, so the CLI can report the sentence.
	if _, err := New(testRegistry(nil), &Options{Tools: []string{"nope"}}); err == nil {
		t.Error("New accepted an unknown tool name")
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
