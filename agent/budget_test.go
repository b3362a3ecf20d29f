package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tz"
)

// What every chat request carries before the person has said anything:
// the tool definitions and the system prompt. A model run locally with a
// context of 4,096 to 8,192 tokens must have room left for the
// conversation (issue 19; docs/chat.md, "Small models"), so both have a
// ceiling in UTF-8 bytes of what goes on the wire.
const (
	// toolsBudget is the most the request's "tools" array may take, in
	// compact JSON, for every tool of tools/catalog.
	toolsBudget = 12000
	// systemBudget is the most the rendered system prompt may take.
	systemBudget = 1500
)

// budgetPerson is a long name in a long zone name, so the prompt is
// measured as it is at its largest in practice.
var budgetPerson = tools.Person{ID: 1, Name: "Maximiliana Fernández de la Vega Ortiz", Zone: tz.MustZone("America/Argentina/Buenos_Aires")}

// wireRequest sends one message through an Agent over the whole catalog
// to a scripted server and returns the request body it received.
func wireRequest(t *testing.T) []byte {
	t.Helper()
	fake := newFake(t, textReply("Hola."))
	tc := &tools.ToolContext{}
	tools.Insert(tc, budgetPerson)
	// Wednesday 2026-09-30 21:45 in Buenos Aires: the longest weekday name.
	tools.Insert(tc, tools.Clock(func() time.Time { return time.Date(2026, 10, 1, 0, 45, 0, 0, time.UTC) }))
	a, err := New(Config{BaseURL: fake.url(), Model: "test-model", Registry: catalog.New(), Context: tc, RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Turn(context.Background(), NewMemory(), "hola"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	return reqs[0].body
}

// toolSize is one tool's entry of the "tools" array on the wire.
type toolSize struct {
	name  string
	bytes int
}

// wireSizes reads the tools array and the system prompt of a request body
// as they were sent: each tool's entry compacted (go-openai sends compact
// JSON already, so this changes nothing), the array with its brackets and
// commas, and the system message's text in UTF-8.
func wireSizes(t *testing.T, body []byte) (sizes []toolSize, array int, system string) {
	t.Helper()
	var req struct {
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	array = 2 + max(len(req.Tools)-1, 0) // [ ] and the commas
	for _, raw := range req.Tools {
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			t.Fatal(err)
		}
		var entry struct {
			Function struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Parameters  struct {
					Properties map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
				} `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &entry); err != nil {
			t.Fatal(err)
		}
		// Shorter, never gone: a model still learns what each tool and
		// argument is for.
		if strings.TrimSpace(entry.Function.Description) == "" {
			t.Errorf("%s is sent without a description", entry.Function.Name)
		}
		for name, p := range entry.Function.Parameters.Properties {
			if strings.TrimSpace(p.Description) == "" {
				t.Errorf("%s: argument %s is sent without a description", entry.Function.Name, name)
			}
		}
		sizes = append(sizes, toolSize{entry.Function.Name, c.Len()})
		array += c.Len()
	}
	if len(req.Messages) == 0 || req.Messages[0].Role != "system" {
		t.Fatalf("the request does not start with a system message: %s", body)
	}
	return sizes, array, req.Messages[0].Content
}

// TestRequestBudget keeps what every request carries within the budget:
// the tools array of the whole catalog and the rendered system prompt.
// Run with -v for the bytes of every tool.
func TestRequestBudget(t *testing.T) {
	sizes, array, system := wireSizes(t, wireRequest(t))
	if want := len(catalog.New().Tools()); len(sizes) != want {
		t.Fatalf("the request offers %d tools, the catalog has %d", len(sizes), want)
	}
	for _, s := range sizes {
		t.Logf("%-15s %5d", s.name, s.bytes)
	}
	t.Logf("%-15s %5d (array)", "tools", array)
	t.Logf("%-15s %5d", "system prompt", len(system))
	if array > toolsBudget {
		biggest := slices.SortedFunc(slices.Values(sizes), func(a, b toolSize) int { return cmp.Compare(b.bytes, a.bytes) })
		var names []string
		for _, s := range biggest[:min(5, len(biggest))] {
			names = append(names, fmt.Sprintf("%s %d", s.name, s.bytes))
		}
		t.Errorf("the tools array is %d bytes, over the budget of %d; the biggest tools: %s. Shorten descriptions (a rule shared by several tools belongs in tools.Conventions, said once) rather than raise the budget (docs/chat.md, Small models)",
			array, toolsBudget, strings.Join(names, ", "))
	}
	if len(system) > systemBudget {
		t.Errorf("the system prompt is %d bytes, over the budget of %d (agent/system.md):\n%s", len(system), systemBudget, system)
	}
}
