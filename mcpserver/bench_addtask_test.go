package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tz"
)

// The measures of the MCP front (not run in CI):
//
//	go test ./mcpserver -run '^$' -bench 'AddTask' -benchtime 5000x
//	go test ./e2e -run '^$' -bench 'SpawnFirstCall' -benchtime 20x
//
// BenchmarkAddTask is the tools/call round trip of add_task with distinct
// titles against the SDK's own floor: a raw SDK handler that reads the
// title and makes one bare INSERT into a table of a store opened the same
// way (store.Open, so the same pragmas). Both are served in this process
// over an OS pipe pair, as stdio is, so allocs/op compare (they count the
// client's allocations too, the same for both). The built binary over its
// real stdin and stdout is measured in the e2e package
// (BenchmarkBinaryAddTask there).

// openBenchStore opens a fresh store in a temporary folder and makes the
// person calls act for.
func openBenchStore(b *testing.B) (*store.Store, tools.Person) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "assistant.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	p, err := st.EnsurePerson(ctx, "ada", "Europe/Paris")
	if err != nil {
		b.Fatal(err)
	}
	return st, tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)}
}

// floorServer is the SDK alone plus the least a write can cost: a raw
// handler named add_task that reads the title and inserts it with one bare
// statement, no journal, no checks.
func floorServer(b *testing.B) *mcp.Server {
	st, p := openBenchStore(b)
	if _, err := st.DB().Exec(`CREATE TABLE bench_floor (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, title TEXT NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	addTask, _ := catalog.New().Get("add_task")
	srv := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	srv.AddTool(Tool(addTask), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		res, err := st.DB().ExecContext(ctx, `INSERT INTO bench_floor (owner_id, title) VALUES (?, ?)`, p.ID, in.Title)
		if err != nil {
			return nil, err
		}
		id, _ := res.LastInsertId()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Added t" + strconv.FormatInt(id, 10) + " “" + in.Title + "”."}}}, nil
	})
	return srv
}

// catalogContext is the ToolContext of one person of a fresh store, as
// `assistant mcp` builds it.
func catalogContext(b *testing.B) *tools.ToolContext {
	st, p := openBenchStore(b)
	tc := &tools.ToolContext{}
	tools.Insert(tc, p)
	tools.Insert(tc, tools.Clock(time.Now))
	tools.Insert(tc, st)
	return tc
}

// catalogServer serves the real catalog for one person of a fresh store.
func catalogServer(b *testing.B) *mcp.Server {
	srv, err := New(catalog.New(), Fixed(catalogContext(b), nil))
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

// lineSession serves the real catalog with ServeIO over an OS pipe pair:
// the binary's stdio path (lineTransport (our own mcp.Connection)),
// in this process.
func lineSession(b *testing.B) *mcp.ClientSession {
	serverIn, clientOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	clientIn, serverOut, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	tc := catalogContext(b)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeIO(ctx, catalog.New(), tc, nil, serverIn, serverOut) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
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

func BenchmarkAddTask(b *testing.B) {
	cases := []struct {
		name    string
		session func(b *testing.B) *mcp.ClientSession
	}{
		{"pipe/sdk-floor", func(b *testing.B) *mcp.ClientSession { return pipeSession(b, floorServer(b)) }},
		{"pipe/mcpserver", func(b *testing.B) *mcp.ClientSession { return pipeSession(b, catalogServer(b)) }},
		{"line/mcpserver", lineSession},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cs := c.session(b)
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
		})
	}
}

// BenchmarkAddTaskVsFloor alternates one add_task call through this
// package with one call of the floor, both over pipe pairs in this
// process, so that both meet the same load from the rest of a shared
// machine: the ratio of their medians should be at most 1.5×.
// The floor is served by the SDK's own IOTransport; ours by it too
// ("sdk-io", this package's share alone) and by ServeIO ("line", the
// binary's stdio path with lineTransport). allocs/op here are both calls
// together; BenchmarkAddTask has them apart.
func BenchmarkAddTaskVsFloor(b *testing.B) {
	for _, c := range []struct {
		name string
		ours func(b *testing.B) *mcp.ClientSession
	}{
		{"sdk-io", func(b *testing.B) *mcp.ClientSession { return pipeSession(b, catalogServer(b)) }},
		{"line", lineSession},
	} {
		b.Run(c.name, func(b *testing.B) { addTaskVsFloor(b, pipeSession(b, floorServer(b)), c.ours(b)) })
	}
}

func addTaskVsFloor(b *testing.B, floor, ours *mcp.ClientSession) {
	tookFloor, tookOurs := timeAddTasks(b, floor, ours)
	slices.Sort(tookFloor)
	slices.Sort(tookOurs)
	at := func(d []time.Duration, p float64) float64 {
		return float64(d[min(len(d)-1, int(p*float64(len(d))))].Nanoseconds())
	}
	b.ReportMetric(at(tookOurs, 0.50), "p50-ns")
	b.ReportMetric(at(tookOurs, 0.99), "p99-ns")
	b.ReportMetric(at(tookFloor, 0.50), "floor-p50-ns")
	b.ReportMetric(at(tookFloor, 0.99), "floor-p99-ns")
	b.ReportMetric(at(tookOurs, 0.50)/at(tookFloor, 0.50), "p50-ratio")
}

// timeAddTasks alternates add_task calls of floor and ours, one of each an
// iteration of b, and returns how long each call took, in call order.
func timeAddTasks(b *testing.B, floor, ours *mcp.ClientSession) (tookFloor, tookOurs []time.Duration) {
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		params := &mcp.CallToolParams{Name: "add_task", Arguments: json.RawMessage(fmt.Sprintf(`{"title":"Task number %d"}`, i))}
		for _, s := range []struct {
			cs   *mcp.ClientSession
			took *[]time.Duration
		}{{floor, &tookFloor}, {ours, &tookOurs}} {
			start := time.Now()
			res, err := s.cs.CallTool(ctx, params)
			*s.took = append(*s.took, time.Since(start))
			if err != nil || res.IsError {
				b.Fatalf("call %d failed: %v %+v", i, err, res)
			}
		}
	}
	b.StopTimer()
	return tookFloor, tookOurs
}
