package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Round trips of a transaction on PostgreSQL. pgx's database/sql driver sends
// BEGIN on its own and every statement on its own, so a small write (BEGIN,
// the person's advisory lock, a read, an INSERT, the journal, COMMIT) was
// eight round trips. pipeConn, the database/sql connection of a
// PostgreSQL store, cuts them without a second path for the store's SQL:
//
//   - a write transaction's BEGIN and advisory lock (a read's BEGIN) are
//     not sent when the transaction starts but queued in front of its
//     first statement, all in one pgx.Batch (one round trip);
//   - a statement run with a context from [withCommit] has COMMIT queued
//     behind it in the same batch, so the journal and the commit are one
//     round trip;
//   - a read's first statement marked with soloKey (it reads all the read
//     needs) runs without BEGIN, in a snapshot of its own, and needs no
//     ROLLBACK: one round trip.
//
// Everything else (statements outside a transaction, the statements after
// the first) goes through pgx's driver as before.

// lazyBeginKey marks the context given to BeginTx for a write transaction
// whose BEGIN waits for its first statement; its value is the lock.
type lazyBeginKey struct{}

// lazyBegin is a transaction's deferred start: a write's READ COMMITTED
// and the transaction-level advisory lock of owner unless it is 0, or a
// read's REPEATABLE READ READ ONLY; then check's read of the person, when
// there is one ([PersonCheck]).
type lazyBegin struct {
	owner    int64
	readOnly bool
	check    *PersonCheck
}

// roundTripsKey marks a context whose round trips pipeConn counts, in the
// *atomic.Int64 it holds: a test's check that a write's statements ride
// together as this file says.
type roundTripsKey struct{}

// trip counts one round trip made for ctx, when ctx asks (roundTripsKey).
func trip(ctx context.Context) {
	if n, ok := ctx.Value(roundTripsKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

// commitKey marks a statement's context: COMMIT rides behind it.
type commitKey struct{}

// committed says whether the COMMIT that rode behind a statement was
// answered with success, so the transaction is over and kept.
type committed struct{ ok bool }

// guardedKey marks a statement's context: the statement writes nothing
// unless the person is stored as a pending [PersonCheck] of its
// transaction holds (addTaskPostgres), so COMMIT may ride behind it in the
// check's batch.
type guardedKey struct{}

// withCommit is ctx for the last statement of a write transaction: on
// PostgreSQL COMMIT is sent with it, and c.ok says whether it succeeded
// (then the *sql.Tx's own Commit has nothing left to do).
func withCommit(ctx context.Context, c *committed) context.Context {
	return context.WithValue(ctx, commitKey{}, c)
}

// soloKey marks a read's statement that reads, in itself, everything its
// transaction needs (a list page with its count: [Tx.TaskPage]): when it
// is the first statement of a read transaction, it runs on its own,
// outside any transaction, in the snapshot PostgreSQL takes for one
// statement, and the read's BEGIN waits for a statement after it, if
// any. The read is then one round trip, not two (BEGIN with the
// statement, then ROLLBACK).
type soloKey struct{}

// pipeConn is a rebindConn that can defer BEGIN and piggy-back COMMIT.
type pipeConn struct {
	*rebindConn
	pending *lazyBegin      // a write transaction whose BEGIN is not sent yet
	open    bool            // a transaction of ours was begun on the server
	txCtx   context.Context // BeginTx's, for COMMIT and ROLLBACK as pgx's driver uses it
}

func (c *pipeConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	lb, _ := ctx.Value(lazyBeginKey{}).(*lazyBegin)
	if lb == nil || lb.readOnly != opts.ReadOnly {
		return c.rebindConn.BeginTx(ctx, opts)
	}
	if c.Conn.Conn().IsClosed() {
		return nil, driver.ErrBadConn
	}
	c.pending, c.open, c.txCtx = lb, false, ctx
	return pipeTx{c}, nil
}

// pipeTx is a write transaction begun by pipeConn.BeginTx.
type pipeTx struct{ c *pipeConn }

func (t pipeTx) Commit() error {
	c := t.c
	c.pending = nil
	if !c.open {
		return nil // nothing was sent, or COMMIT rode with the last statement
	}
	c.open = false
	trip(c.txCtx)
	return commitErr(c.Conn.Conn().Exec(c.txCtx, "commit"))
}

// commitErr is the error of a COMMIT's answer: PostgreSQL answers COMMIT
// of a failed transaction with ROLLBACK and no error, which pgx's own
// Tx turns into pgx.ErrTxCommitRollback, as this does.
func commitErr(tag pgconn.CommandTag, err error) error {
	if err == nil && tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return err
}

func (t pipeTx) Rollback() error {
	c := t.c
	c.pending = nil
	if !c.open {
		return nil
	}
	c.open = false
	pg := c.Conn.Conn()
	trip(c.txCtx)
	if _, err := pg.Exec(c.txCtx, "rollback"); err != nil {
		// A connection left inside a transaction must not be reused.
		pg.PgConn().Close(context.Background())
		return err
	}
	return nil
}

// batched reports whether a statement in ctx goes through run.
func (c *pipeConn) batched(ctx context.Context) bool {
	if c.pending != nil {
		return true
	}
	_, ok := ctx.Value(commitKey{}).(*committed)
	return ok && c.open
}

// ownMode reports whether args lead with a pgx.QueryExecMode (see
// Tx.customPlan): such a statement cannot go in a pgx.Batch, which runs
// every statement in the batch's own mode, so it goes on its own after a
// pending BEGIN is sent.
func ownMode(args []driver.NamedValue) bool {
	if len(args) == 0 {
		return false
	}
	_, ok := args[0].Value.(pgx.QueryExecMode)
	return ok
}

// alone sends a pending BEGIN, so the statement of args that ownMode
// names runs by itself.
func (c *pipeConn) alone(ctx context.Context) error {
	if c.pending == nil {
		return nil
	}
	return c.flush(ctx)
}

func (c *pipeConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) == 1 {
		if in, ok := args[0].Value.(*copyIn); ok {
			if err := c.alone(ctx); err != nil {
				return nil, err
			}
			trip(ctx)
			tag, err := c.Conn.Conn().PgConn().CopyFrom(ctx, in.r, q)
			return driver.RowsAffected(tag.RowsAffected()), err
		}
	}
	if ownMode(args) {
		if err := c.alone(ctx); err != nil {
			return nil, err
		}
		trip(ctx)
		return c.rebindConn.ExecContext(ctx, q, args)
	}
	if !c.batched(ctx) {
		trip(ctx)
		return c.rebindConn.ExecContext(ctx, q, args)
	}
	_, tag, err := c.run(ctx, q, args, false)
	return driver.RowsAffected(tag.RowsAffected()), err
}

// solo reports whether a statement in ctx runs alone, outside the read
// transaction whose BEGIN is pending (see soloKey and runSolo).
func (c *pipeConn) solo(ctx context.Context, args []driver.NamedValue) bool {
	lb := c.pending
	return lb != nil && lb.readOnly && !ownMode(args) && ctx.Value(soloKey{}) != nil
}

// runSolo runs q outside any transaction (see soloKey), with the read's
// pending person check in front of it in one batch when there is one: the
// check then reads the person just before the statement, not in the same
// snapshot, which a read does not need (the page's own statement checks
// that its list columns were worked out in the zone it lists in). BEGIN
// stays pending for a statement after it.
func (c *pipeConn) runSolo(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	check := c.pending.check
	if check == nil || check.Made() {
		trip(ctx)
		return c.rebindConn.QueryContext(ctx, q, args)
	}
	if len(args) > 0 {
		q = rebound(q)
	}
	vals := make([]any, len(args))
	convertArgs(vals, args)
	b := &pgx.Batch{}
	b.Queue(rebound(personCheckSQL), check.id)
	b.Queue(q, vals...)
	pg := c.Conn.Conn()
	trip(ctx)
	br := pg.SendBatch(ctx, b)
	if err := readBegin(br, 1, check); err != nil {
		br.Close()
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		rows.Close()
		br.Close()
		return nil, err
	}
	return &pipeRows{rows: rows, br: br, m: pg.TypeMap()}, nil
}

func (c *pipeConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	if c.solo(ctx, args) {
		return c.runSolo(ctx, q, args)
	}
	if ownMode(args) {
		if err := c.alone(ctx); err != nil {
			return nil, err
		}
		trip(ctx)
		return c.rebindConn.QueryContext(ctx, q, args)
	}
	if !c.batched(ctx) {
		trip(ctx)
		return c.rebindConn.QueryContext(ctx, q, args)
	}
	rows, _, err := c.run(ctx, q, args, true)
	return rows, err
}

// PrepareContext sends a pending BEGIN first: a prepared statement runs
// through pgx's own Stmt, past ExecContext and QueryContext.
func (c *pipeConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	if c.pending != nil {
		if err := c.flush(ctx); err != nil {
			return nil, err
		}
	}
	return c.rebindConn.PrepareContext(ctx, q)
}

func (c *pipeConn) Prepare(q string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), q)
}

// flush sends a pending BEGIN and lock (and person check) on their own.
func (c *pipeConn) flush(ctx context.Context) error {
	b := &pgx.Batch{}
	n, check := c.queueBegin(b)
	trip(ctx)
	br := c.Conn.Conn().SendBatch(ctx, b)
	err := readBegin(br, n, check)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// queueBegin queues the pending BEGIN (and lock, and the person check) in
// b, if any, and returns how many statements it queued and the check,
// which is the last of them when it is not nil.
func (c *pipeConn) queueBegin(b *pgx.Batch) (int, *PersonCheck) {
	lb := c.pending
	if lb == nil {
		return 0, nil
	}
	c.pending, c.open = nil, true
	n := 1
	if lb.readOnly {
		b.Queue("begin isolation level repeatable read read only")
	} else {
		b.Queue("begin isolation level read committed")
		if lb.owner != 0 {
			b.Queue("select pg_advisory_xact_lock($1)", lb.owner)
			n++
		}
	}
	if lb.check != nil && !lb.check.Made() {
		b.Queue(rebound(personCheckSQL), lb.check.id)
		return n + 1, lb.check
	}
	return n, nil
}

// readBegin reads the answers to the n statements queueBegin queued, the
// person check's last: ErrPersonChanged when it fails.
func readBegin(br pgx.BatchResults, n int, check *PersonCheck) error {
	if check != nil {
		n--
	}
	for range n {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	if check == nil {
		return nil
	}
	var name, zone string
	err := br.QueryRow().Scan(&name, &zone)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	return check.settle(name, zone, err == nil)
}

// run sends q with the pending BEGIN in front and, when ctx asks, COMMIT
// behind, in one batch. Its rows are read into memory when COMMIT rode
// behind (the batch must be read to the end); otherwise they stream.
func (c *pipeConn) run(ctx context.Context, q string, args []driver.NamedValue, wantRows bool) (driver.Rows, pgconn.CommandTag, error) {
	var tag pgconn.CommandTag
	if len(args) > 0 {
		q = rebound(q)
	}
	vals := make([]any, len(args))
	convertArgs(vals, args)
	commit, _ := ctx.Value(commitKey{}).(*committed)
	if commit != nil && c.pending != nil && c.pending.check != nil && ctx.Value(guardedKey{}) == nil {
		// The COMMIT must not ride behind a statement that a failed check
		// would have let run: the check goes first, on its own (unless
		// the statement itself requires what the check does).
		if err := c.flush(ctx); err != nil {
			return nil, tag, err
		}
	}
	b := &pgx.Batch{}
	before, check := c.queueBegin(b)
	b.Queue(q, vals...)
	if commit != nil {
		b.Queue("commit")
	}
	pg := c.Conn.Conn()
	trip(ctx)
	br := pg.SendBatch(ctx, b)
	if err := readBegin(br, before, check); err != nil {
		// The statement behind ran in the transaction, which the
		// caller's rollback takes back.
		br.Close()
		return nil, tag, err
	}
	if !wantRows {
		tag, err := br.Exec()
		if err == nil && commit != nil {
			err = commitErr(br.Exec())
			c.ended(commit, err)
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return nil, tag, err
	}
	rows, err := br.Query()
	if err != nil {
		rows.Close()
		br.Close()
		return nil, tag, err
	}
	out := &pipeRows{rows: rows, br: br, m: pg.TypeMap()}
	if commit == nil {
		return out, tag, nil
	}
	mem, err := out.readAll()
	if err == nil {
		err = commitErr(br.Exec())
		c.ended(commit, err)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, tag, err
	}
	return mem, tag, nil
}

// ended records the answer to a COMMIT that rode behind a statement.
func (c *pipeConn) ended(commit *committed, err error) {
	if err == nil {
		commit.ok, c.open = true, false
	}
}

func convertArgs(dst []any, args []driver.NamedValue) {
	for i, a := range args {
		dst[i] = a.Value
	}
}

// pipeRows are the rows of a batched query as database/sql reads them,
// each value in the type pgx's own database/sql driver gives (int64,
// float64, bool, []byte, string, time.Time).
type pipeRows struct {
	rows  pgx.Rows
	br    pgx.BatchResults
	m     *pgtype.Map
	cols  []string
	funcs []func([]byte) (driver.Value, error)
	done  bool
}

func (r *pipeRows) Columns() []string {
	if r.cols == nil {
		fds := r.rows.FieldDescriptions()
		r.cols = make([]string, len(fds))
		for i, fd := range fds {
			r.cols[i] = fd.Name
		}
	}
	return r.cols
}

func (r *pipeRows) Close() error {
	if r.done {
		return nil
	}
	r.done = true
	r.rows.Close()
	err := r.rows.Err()
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

func (r *pipeRows) Next(dest []driver.Value) error {
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return io.EOF
	}
	if r.funcs == nil {
		r.funcs = valueFuncs(r.m, r.rows.FieldDescriptions())
	}
	for i, raw := range r.rows.RawValues() {
		if raw == nil {
			dest[i] = nil
			continue
		}
		v, err := r.funcs[i](raw)
		if err != nil {
			return err
		}
		dest[i] = v
	}
	return nil
}

// readAll reads the rest of r into memory, leaving the batch open.
func (r *pipeRows) readAll() (*memRows, error) {
	mem := &memRows{cols: r.Columns()}
	for {
		row := make([]driver.Value, len(mem.cols))
		err := r.Next(row)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			r.rows.Close()
			return nil, err
		}
		mem.rows = append(mem.rows, row)
	}
	r.rows.Close()
	return mem, r.rows.Err()
}

// valueFuncs turn each column's raw value into the driver.Value pgx's
// stdlib gives for its type.
func valueFuncs(m *pgtype.Map, fds []pgconn.FieldDescription) []func([]byte) (driver.Value, error) {
	out := make([]func([]byte) (driver.Value, error), len(fds))
	for i, fd := range fds {
		oid, format := fd.DataTypeOID, fd.Format
		switch oid {
		case pgtype.BoolOID:
			out[i] = scanAs[bool](m, oid, format)
		case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID:
			out[i] = scanAs[int64](m, oid, format)
		case pgtype.Float4OID, pgtype.Float8OID:
			out[i] = scanAs[float64](m, oid, format)
		case pgtype.ByteaOID, pgtype.JSONOID, pgtype.JSONBOID:
			out[i] = scanAs[[]byte](m, oid, format)
		case pgtype.DateOID, pgtype.TimestampOID, pgtype.TimestamptzOID:
			out[i] = scanAs[time.Time](m, oid, format)
		default:
			out[i] = scanAs[string](m, oid, format)
		}
	}
	return out
}

func scanAs[T any](m *pgtype.Map, oid uint32, format int16) func([]byte) (driver.Value, error) {
	var d T
	plan := m.PlanScan(oid, format, &d)
	return func(src []byte) (driver.Value, error) {
		if err := plan.Scan(src, &d); err != nil {
			return nil, err
		}
		v := any(d)
		if b, ok := v.([]byte); ok {
			return append([]byte(nil), b...), nil
		}
		return v, nil
	}
}

// memRows are rows already read.
type memRows struct {
	cols []string
	rows [][]driver.Value
}

func (r *memRows) Columns() []string { return r.cols }
func (r *memRows) Close() error      { return nil }

func (r *memRows) Next(dest []driver.Value) error {
	if len(r.rows) == 0 {
		return io.EOF
	}
	copy(dest, r.rows[0])
	r.rows = r.rows[1:]
	return nil
}
