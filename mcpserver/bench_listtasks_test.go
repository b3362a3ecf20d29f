package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
				cs := seededLineSession(b, sz.n)
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
			})
		}
	}
}

// seededLineSession serves the real catalog with ServeIO over an OS pipe
// pair for a person of a store of b's engine holding n open tasks.
func seededLineSession(b *testing.B, n int) *mcp.ClientSession {
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
	go func() { done <- ServeIO(sctx, catalog.New(), tc, nil, serverIn, serverOut) }()
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
