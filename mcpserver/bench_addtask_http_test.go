package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tz"
)

// BenchmarkAddTaskHTTP is add_task over MCP streamable HTTP as `assistant
// mcp --http` serves it (the real catalog, each request's person from its
// bearer token through store.PersonByToken) with 1, 8 and 32 clients at
// once. Each client is a person of its own with a token of its own and an
// HTTP connection of its own, so neither the per-token cap nor one
// person's write lock bites: the clients are the people of a household or
// a company. Engines: sqlite (one server on a file), postgres-1 (one
// server) and postgres-3 (three servers, each an HTTPHandler over its own
// store.Open of the same database, the clients spread over them in turn).
// ns/op is the wall time per call of all clients together; calls/s is its
// inverse; p50-ns and p99-ns are one call's latency as a client sees it.
// The PostgreSQL ones need ASSISTANT_TEST_POSTGRES; each store keeps
// pgx's default pool (at most max(4, CPUs) connections; pool_max_conns in
// the URL raises it).
//
//	go test ./mcpserver -run '^$' -bench 'AddTaskHTTP' -benchtime 400x -count 6
func BenchmarkAddTaskHTTP(b *testing.B) {
	for _, eng := range []struct {
		name    string
		servers int
	}{{"sqlite", 1}, {"postgres-1", 1}, {"postgres-3", 3}} {
		b.Run("engine="+eng.name, func(b *testing.B) {
			for _, clients := range []int{1, 8, 32} {
				b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
					addTaskHTTP(b, eng.name != "sqlite", eng.servers, clients)
				})
			}
		})
	}
}

func addTaskHTTP(b *testing.B, postgres bool, servers, clients int) {
	ctx := context.Background()
	loc := filepath.Join(b.TempDir(), "assistant.db")
	if postgres {
		loc = storetest.PostgresDatabase(b)
	}
	var urls []string
	var first *store.Store
	for range servers {
		st, err := store.Open(ctx, loc, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		if first == nil {
			first = st
		}
		h, err := HTTPHandler(catalog.New(), storeAuth(st), nil)
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(h)
		b.Cleanup(ts.Close)
		urls = append(urls, ts.URL)
	}
	sessions := make([]*mcp.ClientSession, clients)
	for i := range clients {
		p, err := first.AddPerson(ctx, fmt.Sprintf("person %d", i), "Europe/Paris")
		if err != nil {
			b.Fatal(err)
		}
		token, _, err := first.CreateToken(ctx, p.ID, "bench")
		if err != nil {
			b.Fatal(err)
		}
		tr := &http.Transport{MaxIdleConnsPerHost: 4}
		b.Cleanup(tr.CloseIdleConnections)
		t := &mcp.StreamableClientTransport{
			Endpoint:   urls[i%servers],
			HTTPClient: &http.Client{Transport: bearerTransport{token: "Bearer " + token, next: tr}},
			MaxRetries: -1,
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, t, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		sessions[i] = cs
	}
	var next atomic.Int64
	took := make([][]time.Duration, clients)
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					return
				}
				params := &mcp.CallToolParams{Name: "add_task",
					Arguments: json.RawMessage(fmt.Sprintf(`{"title":"Task number %d","due":"2026-12-01T09:00","tags":["bench"]}`, n))}
				t0 := time.Now()
				res, err := cs.CallTool(ctx, params)
				took[i] = append(took[i], time.Since(t0))
				if err == nil && res.IsError {
					err = errors.New(text(b, res))
				}
				if err != nil {
					errs <- fmt.Errorf("call %d: %v", n, err)
					next.Store(int64(b.N))
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	var all []time.Duration
	for _, t := range took {
		all = append(all, t...)
	}
	reportPercentiles(b, all)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
}

// storeAuth is the Authenticator of `assistant mcp --http` on st: the
// token's person, in their stored zone, with the wall clock.
func storeAuth(st *store.Store) Authenticator {
	return func(ctx context.Context, token string) (*tools.ToolContext, error) {
		p, err := st.PersonByToken(ctx, token)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		zone, err := tz.LoadZone(p.Zone)
		if err != nil {
			return nil, err
		}
		tc := &tools.ToolContext{}
		tools.Insert(tc, tools.Person{ID: p.ID, Name: p.Name, Zone: zone})
		tools.Insert(tc, tools.Clock(time.Now))
		tools.Insert(tc, st)
		tools.Insert(tc, tools.ExplainError(st.Explain))
		return tc, nil
	}
}

// bearerTransport sets the Authorization header on each request.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (t bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", t.token)
	return t.next.RoundTrip(r)
}
