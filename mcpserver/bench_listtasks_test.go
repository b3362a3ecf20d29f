package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/args"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
)

// BenchmarkScaleMCPListTasks is list_tasks' first page of 50 over one MCP
// stdio session (ServeIO over an OS pipe pair, the binary's stdio path,
// in this process, driven by the go-sdk client), the person holding
// rows=N open tasks. Each iteration is one list_tasks call and one
// current_time call; run it with -benchtime 25x for medians of 25 calls:
//
//	go test ./mcpserver -run '^$' -bench 'ScaleMCPListTasks' -benchtime 25x -count 6
//
// Metrics: list-p50-ns and current_time-p50-ns, the medians of each, and
// above-current_time-ns, their difference (the targets: at most
// 0.5 ms at rows=2050; rows=20k at most 2× rows=1k).
func BenchmarkScaleMCPListTasks(b *testing.B) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		for _, sz := range []struct {
			name string
			n    int
		}{{"1k", 1000}, {"2050", 2050}, {"20k", 20000}} {
			b.Run(engine+"/rows="+sz.name, func(b *testing.B) {
				if engine == storetest.Postgres {
					storetest.SkipUnlessPostgres(b)
				}
				if testing.Short() && sz.n > 10000 {
					b.Skip("above 10k rows: skipped under -short")
				}
				timeListAndNow(b, seededLineSession(b, sz.n))
			})
		}
	}
}

// timeListAndNow times list_tasks (a page of 50) and current_time over
// cs, one of each an iteration, and reports their medians and the
// difference.
func timeListAndNow(b *testing.B, cs *mcp.ClientSession) {
	ctx := context.Background()
	list := &mcp.CallToolParams{Name: "list_tasks", Arguments: json.RawMessage(`{"limit":50}`)}
	now := &mcp.CallToolParams{Name: "current_time", Arguments: json.RawMessage(`{}`)}
	// one call of each before measuring: the first call of a
	// session prepares its statements
	for _, p := range []*mcp.CallToolParams{list, now} {
		if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", p.Name, err, res)
		}
	}
	var tookList, tookNow []time.Duration
	for b.Loop() {
		for _, c := range []struct {
			p    *mcp.CallToolParams
			took *[]time.Duration
		}{{list, &tookList}, {now, &tookNow}} {
			start := time.Now()
			res, err := cs.CallTool(ctx, c.p)
			*c.took = append(*c.took, time.Since(start))
			if err != nil || res.IsError {
				b.Fatalf("%s: %v %+v", c.p.Name, err, res)
			}
		}
	}
	b.StopTimer()
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	l, n := median(tookList), median(tookNow)
	b.ReportMetric(l, "list-p50-ns")
	b.ReportMetric(n, "current_time-p50-ns")
	b.ReportMetric(l-n, "above-current_time-ns")
}

// seededLineSession serves the real catalog with ServeIO over an OS pipe
// pair for a person of a store of b's engine holding n open tasks.
func seededLineSession(b *testing.B, n int) *mcp.ClientSession {
	return servedLines(b, catalog.New(), seededPerson(b, n))
}

// seededPerson is the ToolContext of a person of a store of b's engine
// holding n open tasks.
func seededPerson(b *testing.B, n int) *tools.ToolContext {
	ctx := context.Background()
	st, err := store.Open(ctx, tooltest.Location(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	p, err := st.EnsurePerson(ctx, "ada", "Europe/Paris")
	if err != nil {
		b.Fatal(err)
	}
	if err := tooltest.SeedTasks(ctx, st, p.ID, p.Zone, n, 0, time.Now()); err != nil {
		b.Fatal(err)
	}
	tc := &tools.ToolContext{}
	tools.Insert(tc, tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)})
	tools.Insert(tc, tools.Clock(time.Now))
	tools.Insert(tc, st)
	return tc
}

// servedLines serves reg for tc with ServeIO over an OS pipe pair and
// connects the go-sdk client.
func servedLines(b *testing.B, reg *tools.Registry, tc *tools.ToolContext) *mcp.ClientSession {
	ctx := context.Background()
	serverIn, clientOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	clientIn, serverOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ServeIO(sctx, reg, tc, nil, serverIn, serverOut) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			b.Errorf("ServeIO: %v", err)
		}
	})
	return cs
}

// BenchmarkMCPListTasksFloor is what BenchmarkScaleMCPListTasks' page
// costs on its way alone: the answers of list_tasks (a page of 50 of
// 2,050 open tasks, about 19 kB) and of current_time, made once and then given
// back unchanged by two tools of the same names, through the same stdio
// path (ServeIO over an OS pipe pair, the go-sdk client). Its
// above-current_time-ns is the part of the scale figure that neither the
// store nor list_tasks can lower: the transport, the SDK on both sides
// and the client's decoding of that answer.
//
//	go test ./mcpserver -run '^$' -bench 'MCPListTasksFloor' -benchtime 200x -count 6
func BenchmarkMCPListTasksFloor(b *testing.B) {
	ctx := context.Background()
	tc := seededPerson(b, 2050)
	cat := catalog.New()
	replay := tools.NewRegistry()
	for _, c := range []struct{ name, args string }{{"list_tasks", `{"limit":50}`}, {"current_time", `{}`}} {
		res, _ := cat.Call(ctx, tc, c.name, []byte(c.args))
		if !res.OK() || (c.name == "list_tasks" && !res.DataMarshaled()) {
			b.Fatalf("%s: %s (Data as json.Marshal wrote it: %v)", c.name, res.TextOut(), res.DataMarshaled())
		}
		t, _ := cat.Get(c.name)
		t.Handler = func(context.Context, *tools.ToolContext, *args.Args) tools.ExecResult { return res }
		replay.Add(t)
	}
	timeListAndNow(b, servedLines(b, replay, tc))
}
