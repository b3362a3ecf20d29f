package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tools/events/eventseed"
	"github.com/assistant-dev/assistant/tz"
)

// BenchmarkScaleMCPListEvents is a one-week list_events (limit 40) over
// N weekly series (eventseed.Plan: 1k, 10k) through ONE stdio session
// (ServeIO over an OS pipe pair, the go-sdk client), each iteration one
// list_events call and one current_time call. It reports
// ns-above-current_time, the median list_events less the median
// current_time (the transport's own cost): at 10k it should be at most 2×
// its value at 1k, or at most 1 ms more where that is under 1 ms.
// Medians of 25 calls:
//
//	go test ./mcpserver -run '^$' -bench 'ScaleMCPListEvents' -benchtime 25x -count 6
func BenchmarkScaleMCPListEvents(b *testing.B) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		b.Run(engine, func(b *testing.B) {
			if engine == storetest.Postgres {
				storetest.SkipUnlessPostgres(b)
			}
			for _, size := range eventseed.Sizes[:2] {
				b.Run("rows="+size.Name, func(b *testing.B) { mcpListWeek(b, seededSession(b, size.N)) })
			}
		})
	}
}

// seededSession serves the real catalog over ServeIO for the person of a
// store seeded with n weekly series, its clock at eventseed.Monday.
func seededSession(b *testing.B, n int) *mcp.ClientSession {
	ctx := context.Background()
	st, err := store.Open(ctx, eventseed.Location(b, n), &store.Options{Now: func() time.Time { return eventseed.Monday }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	p, err := st.EnsurePerson(ctx, eventseed.Person, eventseed.Zone)
	if err != nil {
		b.Fatal(err)
	}
	tc := &tools.ToolContext{}
	tools.Insert(tc, tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)})
	tools.Insert(tc, tools.Clock(func() time.Time { return eventseed.Monday }))
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

func mcpListWeek(b *testing.B, cs *mcp.ClientSession) {
	ctx := context.Background()
	list := &mcp.CallToolParams{Name: "list_events", Arguments: json.RawMessage(`{"from":"2026-10-05","to":"2026-10-11","limit":40}`)}
	now := &mcp.CallToolParams{Name: "current_time", Arguments: json.RawMessage(`{}`)}
	call := func(p *mcp.CallToolParams) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, p)
		took := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s failed: %v %+v", p.Name, err, res)
		}
		return took
	}
	call(list)   // the session's first call reads the series
	runtime.GC() // the seeding's and the first call's garbage is not the loop's
	var tookList, tookNow []time.Duration
	for b.Loop() {
		tookList = append(tookList, call(list))
		tookNow = append(tookNow, call(now))
	}
	b.StopTimer()
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	b.ReportMetric(float64(median(tookList)-median(tookNow)), "ns-above-current_time")
}
