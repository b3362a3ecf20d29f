package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP front's numbers for the built binary (not run in CI):
//
//	go test ./e2e -run '^$' -bench 'BinaryAddTask|SpawnFirstCall' -benchtime 20x
//
// mcpserver's BenchmarkAddTask measures the same call in process, over
// pipes, beside the SDK's own floor.

// BenchmarkBinaryAddTask is the tools/call round trip of add_task with
// distinct titles against the built binary over its real stdin and
// stdout; its allocs/op are the client's only.
func BenchmarkBinaryAddTask(b *testing.B) {
	cs := newMCPHome(b).stdioClient(b, io.Discard)
	ctx := context.Background()
	took := make([]time.Duration, 0, b.N)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		params := &mcp.CallToolParams{Name: "add_task", Arguments: json.RawMessage(fmt.Sprintf(`{"title":"Task number %d"}`, i))}
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		took = append(took, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("call %d failed: %v %+v", i, err, res)
		}
	}
	b.StopTimer()
	reportPercentiles(b, took)
}

// BenchmarkSpawnFirstCall is what a desktop client waits for when it
// starts the server: spawn the built binary, initialize, and one answered
// tools/call (list_tasks on an existing database). p50-ns is the median;
// init-p50-ns is the median of spawn to the initialize result alone.
func BenchmarkSpawnFirstCall(b *testing.B) {
	h := newMCPHome(b)
	// first returns the time from spawn to the answer; the process's exit
	// after the client closes stdin is not part of the wait.
	first := func() (initialized, answered time.Duration) {
		start := time.Now()
		cmd := h.command(context.Background(), "mcp")
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		initialized = time.Since(start)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_tasks", Arguments: json.RawMessage(`{}`)})
		answered = time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("list_tasks: %v %+v", err, res)
		}
		if err := cs.Close(); err != nil {
			b.Fatal(err)
		}
		return initialized, answered
	}
	// The first run makes the database and the local person; a desktop
	// client meets that once, not on every start.
	first()
	var inits, took []time.Duration
	for b.Loop() {
		i, a := first()
		inits, took = append(inits, i), append(took, a)
	}
	b.StopTimer()
	reportPercentiles(b, took)
	slices.Sort(inits)
	b.ReportMetric(float64(inits[len(inits)/2].Nanoseconds()), "init-p50-ns")
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
