package catalog

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/assistant-dev/assistant/tools"
)

var update = flag.Bool("update", false, "rewrite the tool snapshots under testdata/toolsnaps")

// snapshot is what a model sees of a tool: a change to it is a reviewed
// diff of testdata/toolsnaps.
type snapshot struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	ReadOnly    bool            `json:"read_only"`
	Destructive bool            `json:"destructive"`
	Idempotent  bool            `json:"idempotent"`
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is what an MCP client sees of the tool's answers.
	OutputSchema json.RawMessage `json:"output_schema"`
}

func TestToolSnapshots(t *testing.T) {
	dir := filepath.Join("testdata", "toolsnaps")
	seen := map[string]bool{}
	for _, tool := range New().Tools() {
		seen[tool.Name+".json"] = true
		var schema bytes.Buffer
		if err := json.Indent(&schema, tool.Schema.JSON(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if len(tool.Output) == 0 {
			t.Errorf("%s declares no Output schema; every tool's answers must have one (tools.OutputOf, Schema.Output)", tool.Name)
			continue
		}
		var output bytes.Buffer
		if err := json.Indent(&output, tool.Output, "", "  "); err != nil {
			t.Fatal(err)
		}
		got, err := json.MarshalIndent(snapshot{tool.Name, tool.Title, tool.Description, tool.ReadOnly,
			tool.Destructive, tool.Idempotent, schema.Bytes(), output.Bytes()}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join(dir, tool.Name+".json")
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s has no snapshot; run go test ./tools/catalog -update and review the diff", tool.Name)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("what the model sees of %s changed; run go test ./tools/catalog -update and review the diff:\n%s", tool.Name, got)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !seen[e.Name()] {
			if *update {
				os.Remove(filepath.Join(dir, e.Name()))
				continue
			}
			t.Errorf("snapshot %s has no tool; run -update", e.Name())
		}
	}
}

// TestSchemasFitEveryModelAPI walks every tool's schema: flat object,
// typed properties with descriptions, no combinators, and a valid JSON
// Schema that a compiler accepts.
func TestSchemasFitEveryModelAPI(t *testing.T) {
	reg := New()
	if len(reg.Tools()) == 0 {
		t.Fatal("no tools registered")
	}
	names := map[string]bool{}
	for _, tool := range reg.Tools() {
		if names[tool.Name] {
			t.Errorf("tool %s twice", tool.Name)
		}
		names[tool.Name] = true
		if err := tools.CheckFlat(tool.Schema.JSON()); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
		if len(tool.Description) > 1024 {
			t.Errorf("%s: description of %d bytes is long for a model's tool list", tool.Name, len(tool.Description))
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.Schema.JSON()))
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(tool.Name+".json", doc); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile(tool.Name + ".json"); err != nil {
			t.Errorf("%s: schema does not compile: %v", tool.Name, err)
		}
	}
}

// TestReadOnlyToolsWriteNothing checks the annotation rule: a read-only
// tool is never also destructive.
func TestAnnotationsConsistent(t *testing.T) {
	var bad []string
	for _, tool := range New().Tools() {
		if tool.ReadOnly && tool.Destructive {
			bad = append(bad, tool.Name)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Fatalf("read-only and destructive at once: %s", strings.Join(bad, ", "))
	}
}

// TestConventionsNameRealArguments: the rules said once for every tool
// (tools.Conventions) name arguments that tools of the catalog take, so a
// renamed argument cannot leave the model a rule about one that is gone.
func TestConventionsNameRealArguments(t *testing.T) {
	text := tools.Conventions("2026-12-02")
	for _, arg := range []string{"clear", "scope", "cursor", "allow_duplicate"} {
		if !strings.Contains(text, arg) {
			t.Errorf("the conventions no longer speak of %q", arg)
		}
		found := false
		for _, tool := range New().Tools() {
			if _, ok := tool.Schema.Property(arg); ok {
				found = true
			}
		}
		if !found {
			t.Errorf("the conventions speak of %q, which no tool takes", arg)
		}
	}
	for _, word := range []string{"2026-12-02T09:00[America/New_York]", "e7@20261005T070000Z", "next_cursor", "tomorrow 9am"} {
		if !strings.Contains(text, word) {
			t.Errorf("the conventions lack %q:\n%s", word, text)
		}
	}
}
