package mcpserver

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/tools"
)

// The tools/call round trip for a trivial tool, the floor that real tools
// (add_task) are measured against: through this package (registry, Args,
// ExecResult rendering) and, as the SDK's own floor, a raw SDK handler
// that answers a constant. Each runs over in-memory transports, over a
// real OS pipe pair as stdio does, and over HTTP. p50-ns and p99-ns are
// reported beside ns/op.

var benchArgs = json.RawMessage(`{"text":"Buy milk"}`)

func benchRegistry() *tools.Registry {
	reg := tools.NewRegistry()
	reg.Add(tools.Tool{
		Name: "echo", Description: "Says the text back.", ReadOnly: true,
		Schema: tools.Schema{Properties: []tools.Property{tools.Str("text", "What to say.")}, Required: []string{"text"}},
		Handler: func(_ context.Context, _ *tools.ToolContext, a *args.Args) tools.ExecResult {
			text := a.NeededLine("text")
			if err := a.Err(); err != nil {
				return tools.Invalid(err)
			}
			return tools.Success(text)
		},
	})
	return reg
}

// rawServer is the SDK alone: one raw tool that answers a constant.
func rawServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1"}, nil)
	tool := Tool(benchRegistry().Tools()[0])
	srv.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Buy milk"}}}, nil
	})
	return srv
}

func ourServer(b *testing.B) *mcp.Server {
	srv, err := New(benchRegistry(), Fixed(personContext(1, "Ada"), nil))
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

// pipeSession serves srv over two OS pipes and connects a client.
func pipeSession(b *testing.B, srv *mcp.Server) *mcp.ClientSession {
	serverIn, clientOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	clientIn, serverOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Run(ctx, &mcp.IOTransport{Reader: serverIn, Writer: serverOut})
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

func httpSession(b *testing.B, reg *tools.Registry) *mcp.ClientSession {
	h, err := HTTPHandler(reg, newTokenAuth().check, nil)
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(h)
	b.Cleanup(ts.Close)
	cs, err := httpClient(context.Background(), ts.URL, "Bearer tok-ada")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func BenchmarkCall(b *testing.B) {
	cases := []struct {
		name    string
		session func(b *testing.B) *mcp.ClientSession
	}{
		{"memory/sdk-floor", func(b *testing.B) *mcp.ClientSession { return connect(b, rawServer()) }},
		{"memory/mcpserver", func(b *testing.B) *mcp.ClientSession { return connect(b, ourServer(b)) }},
		{"pipe/sdk-floor", func(b *testing.B) *mcp.ClientSession { return pipeSession(b, rawServer()) }},
		{"pipe/mcpserver", func(b *testing.B) *mcp.ClientSession { return pipeSession(b, ourServer(b)) }},
		{"http/mcpserver", func(b *testing.B) *mcp.ClientSession { return httpSession(b, benchRegistry()) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cs := c.session(b)
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "echo", Arguments: benchArgs}
			took := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				res, err := cs.CallTool(ctx, params)
				took = append(took, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("call failed: %v %+v", err, res)
				}
			}
			b.StopTimer()
			reportPercentiles(b, took)
		})
	}
}

func reportPercentiles(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	at := func(p float64) float64 {
		return float64(took[min(len(took)-1, int(p*float64(len(took))))].Nanoseconds())
	}
	b.ReportMetric(at(0.50), "p50-ns")
	b.ReportMetric(at(0.99), "p99-ns")
}

// BenchmarkResult is this package's own share of a call, with no
// transport: the registry call, Args and the CallToolResult.
func BenchmarkResult(b *testing.B) {
	reg := benchRegistry()
	tc := personContext(1, "Ada")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, _ := reg.Call(ctx, tc, "echo", benchArgs)
		if r := Result(res, 0); r.IsError {
			b.Fatal(text(b, r))
		}
	}
}
