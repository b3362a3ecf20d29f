package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tz"
)

// servedRegistries are the registries whose every tool the schema test
// checks: this package's test tools and the binary's catalog, which grows
// as tool packages register there.
var servedRegistries = map[string]func() *tools.Registry{
	"test":    func() *tools.Registry { return testRegistry(nil) },
	"catalog": catalog.New,
}

// calls counts handler runs of the test registry's tools, to show that a
// refused HTTP request ran nothing.
type calls struct{ n atomic.Int64 }

func (c *calls) add() {
	if c != nil {
		c.n.Add(1)
	}
}

const notFoundSentence = "There is no task “t99”; list_tasks shows the ids you can use."

// testRegistry is a small registry whose tools exercise what the MCP front
// must carry: quirky argument forms, failures, spills, every shape of Data,
// a panic, and the person of the ToolContext. c counts handler runs (nil
// ignores them).
func testRegistry(c *calls) *tools.Registry {
	reg := tools.NewRegistry()
	reg.Log = slog.New(slog.DiscardHandler) // the panic of "boom" is expected
	reg.Add(tools.Tool{
		Name: "whoami", Title: "Who am I", ReadOnly: true, Idempotent: true,
		Description: "Says which person the call acts for.",
		Handler: func(_ context.Context, tc *tools.ToolContext, _ *args.Args) tools.ExecResult {
			c.add()
			p, err := tools.PersonOf(tc)
			if err != nil {
				return tools.Internal(err)
			}
			return tools.SuccessWithData("You are "+p.Name+".", map[string]any{"id": p.ID, "name": p.Name, "zone": p.Zone.Name()})
		},
	})
	reg.Add(tools.Tool{
		Name: "count", Title: "Count", ReadOnly: true, Idempotent: true,
		Description: "Repeats its arguments back, read the way models write them.",
		Schema: tools.Schema{
			Properties: []tools.Property{
				tools.Int("n", "How many, 1 to 100.").Range(1, 100),
				tools.Bool("loud", "Shout the answer."),
				tools.Strs("tags", "Labels to echo."),
				tools.Str("mood", "How to say it.").OneOf("calm", "cheerful"),
			},
			Required: []string{"n"},
		},
		Handler: func(_ context.Context, _ *tools.ToolContext, a *args.Args) tools.ExecResult {
			c.add()
			n := a.Number("n", 0, 1, 100)
			loud := a.Flag("loud")
			tags := a.List("tags")
			mood := a.OneOf("mood", "calm", "calm", "cheerful")
			if err := a.Err(); err != nil {
				return tools.Invalid(err)
			}
			if tags == nil {
				tags = []string{}
			}
			return tools.SuccessWithData(fmt.Sprintf("n=%d loud=%t tags=%s mood=%s", n, loud, strings.Join(tags, ","), mood),
				map[string]any{"n": n, "loud": loud, "tags": tags, "mood": mood})
		},
	})
	reg.Add(tools.Tool{
		Name: "missing", Title: "Always missing", ReadOnly: true,
		Description: "Fails as a lookup of an unknown id does.",
		Handler: func(context.Context, *tools.ToolContext, *args.Args) tools.ExecResult {
			c.add()
			return tools.NotFound(notFoundSentence)
		},
	})
	reg.Add(tools.Tool{
		Name: "big", Title: "Too much", ReadOnly: true,
		Description: "Answers with more text than a model turn holds.",
		Schema:      tools.Schema{Properties: []tools.Property{tools.Bool("fail", "Fail with the long text instead.")}},
		Handler: func(_ context.Context, _ *tools.ToolContext, a *args.Args) tools.ExecResult {
			c.add()
			fail := a.Flag("fail")
			if err := a.Err(); err != nil {
				return tools.Invalid(err)
			}
			text := strings.Repeat("row of a long listing\n", 1500) // 33,000 bytes: over a model turn, within tools.TextBound
			if fail {
				return tools.Conflict(text)
			}
			return tools.SuccessWithData(text, map[string]any{"rows": 2000})
		},
	})
	reg.Add(tools.Tool{
		Name: "data", Title: "Data shapes", ReadOnly: true, Idempotent: true,
		Description: "Answers with Data of the chosen JSON shape.",
		Schema: tools.Schema{
			Properties: []tools.Property{tools.Str("shape", "The shape of Data.").OneOf("object", "array", "number", "text", "none", "sniffed")},
			Required:   []string{"shape"},
		},
		Handler: func(_ context.Context, _ *tools.ToolContext, a *args.Args) tools.ExecResult {
			c.add()
			shape := a.OneOf("shape", "", "object", "array", "number", "text", "none", "sniffed")
			if err := a.Err(); err != nil {
				return tools.Invalid(err)
			}
			switch shape {
			case "object":
				return tools.SuccessData(map[string]any{"id": "t12"})
			case "array":
				return tools.SuccessData([]string{"t1", "t2"})
			case "number":
				return tools.SuccessData(42)
			case "text":
				return tools.SuccessData("t12")
			case "sniffed":
				return tools.Success(`  [1, 2]  `)
			}
			return tools.Success("Nothing to show.")
		},
	})
	reg.Add(tools.Tool{
		Name: "boom", Title: "Boom",
		Description: "Panics, as a broken tool would.",
		Handler: func(context.Context, *tools.ToolContext, *args.Args) tools.ExecResult {
			c.add()
			panic("kaboom")
		},
	})
	reg.Add(tools.Tool{
		Name: "forget", Title: "Forget a thing", Destructive: true, Idempotent: true,
		Description: "Pretends to delete a thing.",
		Schema:      tools.Schema{Properties: []tools.Property{tools.Str("id", "The thing's id, as t12.")}, Required: []string{"id"}},
		Handler: func(_ context.Context, _ *tools.ToolContext, a *args.Args) tools.ExecResult {
			c.add()
			id := a.Needed("id")
			if err := a.Err(); err != nil {
				return tools.Invalid(err)
			}
			return tools.Success("Forgot " + id + ".")
		},
	})
	reg.Add(tools.Tool{
		Name: "note", Title: "Add a note",
		Description: "Pretends to add a note.",
		Schema:      tools.Schema{Properties: []tools.Property{tools.Str("text", "The note.")}, Required: []string{"text"}},
		Handler: func(_ context.Context, _ *tools.ToolContext, a *args.Args) tools.ExecResult {
			c.add()
			text := a.Needed("text")
			if err := a.Err(); err != nil {
				return tools.Invalid(err)
			}
			return tools.Success("Noted: " + text)
		},
	})
	return reg
}

// personContext is the ToolContext of a fake person.
func personContext(id int64, name string) *tools.ToolContext {
	tc := &tools.ToolContext{}
	tools.Insert(tc, tools.Person{ID: id, Name: name, Zone: tz.MustZone("Europe/Paris")})
	return tc
}

// connect serves srv over in-memory transports and returns a connected
// go-sdk client session, closed at the end of the test.
func connect(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// text returns the one text content of res.
func text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content item, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, not text", res.Content[0])
	}
	return tc.Text
}

// sameJSON reports whether a and b (anything that marshals) are the same
// JSON value, whatever the key order.
func sameJSON(t testing.TB, a, b any) bool {
	t.Helper()
	norm := func(v any) any {
		var raw []byte
		switch x := v.(type) {
		case json.RawMessage:
			raw = x
		case []byte:
			raw = x
		case string:
			raw = []byte(x)
		default:
			var err error
			if raw, err = json.Marshal(v); err != nil {
				t.Fatalf("marshal: %v", err)
			}
		}
		var out any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("unmarshal %s: %v", raw, err)
		}
		return out
	}
	ja, _ := json.Marshal(norm(a))
	jb, _ := json.Marshal(norm(b))
	return string(ja) == string(jb)
}
