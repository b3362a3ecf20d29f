package mcpserver

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/tools/catalog"
)

// listBudget is the most the tools/list result of the whole catalog may
// take, in UTF-8 bytes of compact JSON as the server writes it. It is
// larger than the chat's tools array (agent's toolsBudget) because MCP
// sends each tool's title, annotations and outputSchema too; an MCP client
// decides itself what of it reaches its model. instructionsBudget bounds
// Instructions, which carry the rules chat puts in its system prompt.
const (
	listBudget         = 36000
	instructionsBudget = 1500
)

// syncBuffer is a bytes.Buffer safe for the transport's writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestListBudget measures what a client receives from tools/list over the
// whole catalog, as the message the client read, and keeps it and the
// instructions within their budgets. Run with -v for the bytes of every
// tool.
func TestListBudget(t *testing.T) {
	srv, err := New(catalog.New(), Fixed(personContext(1, "Ada"), nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wire syncBuffer
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The client's side logs each message as it reads it, before handing
	// it on, so the answer is in wire once ListTools returns.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, &mcp.LoggingTransport{Transport: ct, Writer: &wire}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}

	var list []json.RawMessage
	sc := bufio.NewScanner(strings.NewReader(wire.String()))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "read: ")
		if !ok {
			continue
		}
		var msg struct {
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && len(msg.Result.Tools) > 0 {
			list = msg.Result.Tools
		}
	}
	if want := len(catalog.New().Tools()); len(list) != want {
		t.Fatalf("tools/list sent %d tools, the catalog has %d", len(list), want)
	}
	type size struct {
		name                         string
		whole, input, output, others int
	}
	var sizes []size
	total := 2 + len(list) - 1
	for _, raw := range list {
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			t.Fatal(err)
		}
		var tool struct {
			Name   string          `json:"name"`
			Input  json.RawMessage `json:"inputSchema"`
			Output json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		s := size{name: tool.Name, whole: c.Len(), input: len(tool.Input), output: len(tool.Output)}
		s.others = s.whole - s.input - s.output
		sizes = append(sizes, s)
		total += c.Len()
	}
	t.Logf("%-15s %6s %6s %6s %6s", "tool", "whole", "input", "output", "rest")
	var input, output int
	for _, s := range sizes {
		t.Logf("%-15s %6d %6d %6d %6d", s.name, s.whole, s.input, s.output, s.others)
		input += s.input
		output += s.output
	}
	t.Logf("%-15s %6d %6d %6d (the list with brackets and commas)", "tools", total, input, output)
	t.Logf("%-15s %6d", "instructions", len(Instructions))
	if total > listBudget {
		slices.SortFunc(sizes, func(a, b size) int { return cmp.Compare(b.whole, a.whole) })
		var names []string
		for _, s := range sizes[:min(5, len(sizes))] {
			names = append(names, fmt.Sprintf("%s %d", s.name, s.whole))
		}
		t.Errorf("tools/list is %d bytes, over the budget of %d; the biggest tools: %s", total, listBudget, strings.Join(names, ", "))
	}
	if len(Instructions) > instructionsBudget {
		t.Errorf("Instructions are %d bytes, over the budget of %d", len(Instructions), instructionsBudget)
	}
}
