package store

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// RoundTrips counts the network round trips of every PostgreSQL store
// opened while it is installed (see [CountRoundTrips]): one round trip is
// one or more writes to the server followed by a read of its answer, on
// any connection of the pool, so pipelined statements (a pgx.Batch) count
// once. It also keeps the SQL sent, in order, for a test's log.
type RoundTrips struct {
	mu   sync.Mutex
	n    int
	sent []string
}

// Reset sets the count to zero and forgets the SQL seen.
func (r *RoundTrips) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n, r.sent = 0, nil
}

// N is the round trips since the last Reset.
func (r *RoundTrips) N() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Sent is the SQL sent since the last Reset, one line each, a batch's
// statements joined by " ⏎ ".
func (r *RoundTrips) Sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.sent...)
}

func (r *RoundTrips) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, strings.Join(strings.Fields(s), " "))
}

// CountRoundTrips makes every PostgreSQL store opened until t ends count
// its round trips in the returned RoundTrips. It changes a package
// variable, so t must not run in parallel with other tests that open
// PostgreSQL stores.
func CountRoundTrips(t testing.TB) *RoundTrips {
	r := &RoundTrips{}
	pgConfigHook = func(cfg *pgxpool.Config) {
		dial := cfg.ConnConfig.DialFunc
		cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countingConn{Conn: c, r: r}, nil
		}
		cfg.ConnConfig.Tracer = tracer{r}
	}
	t.Cleanup(func() { pgConfigHook = nil })
	return r
}

// countingConn counts a round trip at the first read after a write.
type countingConn struct {
	net.Conn
	r       *RoundTrips
	mu      sync.Mutex
	written bool
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.written = true
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *countingConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if c.written {
		c.written = false
		c.r.mu.Lock()
		c.r.n++
		c.r.mu.Unlock()
	}
	c.mu.Unlock()
	return c.Conn.Read(p)
}

// tracer notes the SQL of queries, batches and prepares.
type tracer struct{ r *RoundTrips }

func (t tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	t.r.note(d.SQL)
	return ctx
}

func (tracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (t tracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var qs []string
	for _, q := range d.Batch.QueuedQueries {
		qs = append(qs, q.SQL)
	}
	t.r.note("batch: " + strings.Join(qs, " ⏎ "))
	return ctx
}

func (tracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (tracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func (t tracer) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	t.r.note("prepare: " + d.SQL)
	return ctx
}

func (tracer) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}
