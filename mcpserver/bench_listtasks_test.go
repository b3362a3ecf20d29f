package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/internal/testbin"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
)

// BenchmarkScaleMCPListTasks is list_tasks' first page of 50 over one MCP
// stdio session with the real binary (`assistant mcp` as a subprocess, as
// a host runs it, driven by the go-sdk client), the person holding rows=N
// open tasks; the inproc- metrics are the same figure with the server in
// this process (ServeIO over an OS pipe pair, sharing its heap and GC with
// the client). Each iteration is one list_tasks call and one current_time
// call; run it with -benchtime 25x for medians of 25 calls:
//
//	go test ./mcpserver -run '^$' -bench 'ScaleMCPListTasks' -benchtime 25x -count 6
//
// Metrics: list-p50-ns and current_time-p50-ns, the medians of each, and
// above-current_time-ns, their difference (the targets: at most
// 0.5 ms at rows=2050; rows=20k at most 2× rows=1k). The binary is
// ASSISTANT_BINARY, or built once for the run.
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
				loc, tc := seededStore(b, sz.n)
				bin := binarySession(b, loc, "ada")
				in := servedLines(b, catalog.New(), tc)
				l, n := timeListAndNow(b, bin)
				reportListAndNow(b, "", l, n)
				// the same number of calls again, in this process
				l, n = timeCalls(b, in, len(l))
				reportListAndNow(b, "inproc-", l, n)
			})
		}
	}
}

var (
	listCall = &mcp.CallToolParams{Name: "list_tasks", Arguments: json.RawMessage(`{"limit":50}`)}
	nowCall  = &mcp.CallToolParams{Name: "current_time", Arguments: json.RawMessage(`{}`)}
)

// timeListAndNow times list_tasks (a page of 50) and current_time over
// cs, one of each a b.Loop iteration, and gives how long each call took.
func timeListAndNow(b *testing.B, cs *mcp.ClientSession) (list, now []time.Duration) {
	warm(b, cs)
	for b.Loop() {
		callTimed(b, cs, listCall, &list)
		callTimed(b, cs, nowCall, &now)
	}
	b.StopTimer()
	return list, now
}

// timeCalls is timeListAndNow for n iterations outside b's timer.
func timeCalls(b *testing.B, cs *mcp.ClientSession, n int) (list, now []time.Duration) {
	warm(b, cs)
	for range n {
		callTimed(b, cs, listCall, &list)
		callTimed(b, cs, nowCall, &now)
	}
	return list, now
}

// warm makes one call of each before measuring: the first call of a
// session prepares its statements.
func warm(b *testing.B, cs *mcp.ClientSession) {
	for _, p := range []*mcp.CallToolParams{listCall, nowCall} {
		if res, err := cs.CallTool(context.Background(), p); err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", p.Name, err, res)
		}
	}
}

// callTimed makes the call p over cs and appends how long it took to took.
func callTimed(b *testing.B, cs *mcp.ClientSession, p *mcp.CallToolParams, took *[]time.Duration) {
	start := time.Now()
	res, err := cs.CallTool(context.Background(), p)
	*took = append(*took, time.Since(start))
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %+v", p.Name, err, res)
	}
}

// reportListAndNow reports the medians of list and now, and their
// difference, as metrics named with prefix.
func reportListAndNow(b *testing.B, prefix string, list, now []time.Duration) {
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	l, n := median(list), median(now)
	b.ReportMetric(l, prefix+"list-p50-ns")
	b.ReportMetric(n, prefix+"current_time-p50-ns")
	b.ReportMetric(l-n, prefix+"above-current_time-ns")
}

// seededPerson is the ToolContext of a person of a store of b's engine
// holding n open tasks.
func seededPerson(b *testing.B, n int) *tools.ToolContext {
	_, tc := seededStore(b, n)
	return tc
}

// seededStore makes a store of b's engine where the person ada
// (Europe/Paris) holds n open tasks, and gives its location (for
// `assistant --db`) and the ToolContext of ada on it.
func seededStore(b *testing.B, n int) (string, *tools.ToolContext) {
	ctx := context.Background()
	loc := tooltest.Location(b)
	st, err := store.Open(ctx, loc, nil)
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
	return loc, tc
}

// binarySession starts `assistant --db loc --person person mcp`, the real
// binary over its standard input and output as a host runs it, with a
// home of its own, and connects the go-sdk client.
func binarySession(b *testing.B, loc, person string) *mcp.ClientSession {
	home := b.TempDir()
	cmd := exec.Command(testbin.Path(b), "--db", loc, "--person", person, "mcp")
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"), "USER=" + person, "TZ=Europe/Paris", "PATH=" + os.Getenv("PATH")}
	return commandSession(b, cmd, "assistant mcp")
}

// commandSession starts cmd, an MCP server over its standard input and
// output, and connects the go-sdk client; what names it in a failure,
// with what it wrote to standard error. The session is closed when b
// ends.
func commandSession(b *testing.B, cmd *exec.Cmd, what string) *mcp.ClientSession {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatalf("%s: %v\n%s", what, err, stderr.String())
	}
	b.Cleanup(func() {
		if err := cs.Close(); err != nil {
			b.Errorf("%s: %v\n%s", what, err, stderr.String())
		}
	})
	return cs
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
// 2,050 open tasks, about 14 kB) and of current_time, made once and then
// given back unchanged by two tools of the same names (replayRegistry),
// through the same stdio path (ServeIO, the go-sdk client). Its
// above-current_time-ns is the part of the scale figure that neither the
// store nor list_tasks can lower: the transport, the SDK on both sides
// and the client's decoding of that answer. In "inproc" the server runs
// in this process over an OS pipe pair; in "process" it is this test
// binary started again as a child (replayChild), over the child's
// standard input and output, as the real binary is in the scale figure.
//
//	go test ./mcpserver -run '^$' -bench 'MCPListTasksFloor' -benchtime 200x -count 6
func BenchmarkMCPListTasksFloor(b *testing.B) {
	b.Run("inproc", func(b *testing.B) {
		tc := seededPerson(b, 2050)
		reg, err := replayRegistry(tc)
		if err != nil {
			b.Fatal(err)
		}
		l, n := timeListAndNow(b, servedLines(b, reg, tc))
		reportListAndNow(b, "", l, n)
	})
	b.Run("process", func(b *testing.B) {
		loc, _ := seededStore(b, 2050)
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), replayEnv+"="+loc)
		l, n := timeListAndNow(b, commandSession(b, cmd, "replay child"))
		reportListAndNow(b, "", l, n)
	})
}

// replayRegistry holds list_tasks and current_time of the catalog, each
// giving back unchanged the answer it gave once for tc (list_tasks with
// limit 50); an answer that is not a success is an error.
func replayRegistry(tc *tools.ToolContext) (*tools.Registry, error) {
	ctx := context.Background()
	cat := catalog.New()
	replay := tools.NewRegistry()
	for _, c := range []struct{ name, args string }{{"list_tasks", `{"limit":50}`}, {"current_time", `{}`}} {
		res, _ := cat.Call(ctx, tc, c.name, []byte(c.args))
		if !res.OK() || (c.name == "list_tasks" && !res.DataMarshaled()) {
			return nil, fmt.Errorf("%s: %s (Data as json.Marshal wrote it: %v)", c.name, res.TextOut(), res.DataMarshaled())
		}
		t, _ := cat.Get(c.name)
		t.Handler = func(context.Context, *tools.ToolContext, *args.Args) tools.ExecResult { return res }
		replay.Add(t)
	}
	return replay, nil
}

// replayEnv names the database of the child process of
// BenchmarkMCPListTasksFloor/process: set, TestMain runs replayChild
// instead of the tests.
const replayEnv = "ASSISTANT_BENCH_REPLAY_DB"

// replayChild serves replayRegistry for the person ada of the database
// at loc over standard input and output until the client closes them, and
// gives the process's exit code.
func replayChild(loc string) int {
	ctx := context.Background()
	st, err := store.Open(ctx, loc, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	p, err := st.EnsurePerson(ctx, "ada", "Europe/Paris")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tc := &tools.ToolContext{}
	tools.Insert(tc, tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)})
	tools.Insert(tc, tools.Clock(time.Now))
	tools.Insert(tc, st)
	reg, err := replayRegistry(tc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := ServeIO(ctx, reg, tc, nil, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestMain runs replayChild when started as BenchmarkMCPListTasksFloor's
// child process, else the tests.
func TestMain(m *testing.M) {
	if loc := os.Getenv(replayEnv); loc != "" {
		os.Exit(replayChild(loc))
	}
	os.Exit(m.Run())
}
