package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
)

// sqlTx is what a transaction of the store runs its statements on: a
// *sql.Tx, or on SQLite a [connTx] on the kept connection ([hotConn]).
type sqlTx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	Commit() error
	Rollback() error
}

// hotConn is SQLite's kept connection: one connection of the pool that
// the Store keeps, with the statements prepared on it by their text. A
// transaction (a Write's or a Read's) runs on it when no other holds it,
// else on the pool as a *sql.Tx.
//
// Two things make it worth keeping. A *sql.Tx starts a goroutine to
// watch its context, and another for each query's rows, and prepares
// each cached statement again for the transaction: a sixth of a one-row
// write's time (add_task). On the kept connection BEGIN, COMMIT and
// ROLLBACK are prepared statements like the others, and a statement's
// context still interrupts it (the driver watches a context that can
// end). And SQLite drops a connection's page cache when another
// connection wrote since its last transaction: one person's calls, one
// after the other, all run on the kept connection and find its cache as
// the last one left it.
type hotConn struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
}

// takeHot is the kept connection, opened on first use, held until
// putHot; nil when another transaction holds it or it cannot be opened
// (the caller then uses the pool). It never waits.
func (s *Store) takeHot(ctx context.Context) *hotConn {
	if s.engine != SQLite {
		return nil
	}
	select {
	case s.hotBusy <- struct{}{}:
	default:
		return nil
	}
	if s.hot == nil {
		conn, err := s.db.Conn(ctx)
		if err != nil {
			<-s.hotBusy
			return nil
		}
		s.hot = &hotConn{conn: conn, stmts: map[string]*sql.Stmt{}}
	}
	return s.hot
}

// putHot lets go of the kept connection that takeHot gave.
func (s *Store) putHot() { <-s.hotBusy }

// dropHot closes the kept connection and its statements, for the next
// takeHot to open another; its holder calls it when a BEGIN, COMMIT or
// ROLLBACK failed, as a connection left inside a transaction would refuse
// every BEGIN after it, and Store.Close does.
func (s *Store) dropHot() {
	if s.hot == nil {
		return
	}
	for _, st := range s.hot.stmts {
		st.Close()
	}
	// Not back to the pool, which would hand it out as it is: Raw's
	// driver.ErrBadConn has database/sql close it.
	s.hot.conn.Raw(func(any) error { return driver.ErrBadConn })
	s.hot.conn.Close()
	s.hot = nil
}

// stmt is q prepared on the connection, prepared once; nil when it cannot
// be (the caller then runs q as text) or when maxStmts are held.
func (h *hotConn) stmt(ctx context.Context, q string) *sql.Stmt {
	if st, ok := h.stmts[q]; ok {
		return st
	}
	if len(h.stmts) >= maxStmts {
		return nil
	}
	st, err := h.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	h.stmts[q] = st
	return st
}

// errReadOnlyConn is beginHot's refusal of a write on a kept connection
// SQLite opened for reading only; the write goes to the pool.
var errReadOnlyConn = errors.New("store: the kept connection is open for reading only")

// readOnly reports whether SQLite opened the connection for reading only
// (sqlite3_db_readonly), as it does when the file cannot be written at
// the time.
func (h *hotConn) readOnly() bool {
	ro := false
	h.conn.Raw(func(dc any) error {
		if c, ok := dc.(interface{ IsReadOnly(string) (bool, error) }); ok {
			ro, _ = c.IsReadOnly("main")
		}
		return nil
	})
	return ro
}

// run runs q, one of BEGIN, BEGIN IMMEDIATE, COMMIT and ROLLBACK,
// prepared.
func (h *hotConn) run(ctx context.Context, q string) error {
	if st := h.stmt(ctx, q); st != nil {
		_, err := st.ExecContext(ctx)
		return err
	}
	_, err := h.conn.ExecContext(ctx, q)
	return err
}

// beginHot begins a transaction on the kept connection h, which the
// caller took (takeHot): with BEGIN IMMEDIATE for a write, which takes
// SQLite's write lock at once (as the pool's _txlock=immediate does), or
// BEGIN for a read. The transaction's Commit or Rollback lets go of h. On
// error h is let go of, and closed unless the error was a wait for
// another writer (SQLITE_BUSY, or the context's end during BEGIN
// IMMEDIATE), which leaves it as it was.
func (s *Store) beginHot(ctx context.Context, h *hotConn, write bool) (*connTx, error) {
	begin := "BEGIN"
	if write {
		begin = "BEGIN IMMEDIATE"
	}
	if err := ctx.Err(); err != nil {
		// Nothing ran: the connection is as it was.
		s.putHot()
		return nil, err
	}
	if write && h.readOnly() {
		// Opened while the file or its folder could not be written,
		// SQLite keeps it for reading, though the file may be writable
		// now: a new connection finds out.
		s.dropHot()
		s.putHot()
		return nil, errReadOnlyConn
	}
	if err := h.run(ctx, begin); err != nil {
		if TroubleOf(err) == Busy || ctx.Err() != nil && write {
			// Another writer held the lock until busy_timeout or the
			// call's end: BEGIN changed nothing, the connection is sound.
			s.putHot()
			return nil, err
		}
		s.dropHot()
		s.putHot()
		return nil, err
	}
	return &connTx{s: s, h: h, ctx: ctx}, nil
}

// connTx is one transaction on the kept connection ([hotConn]); it meets
// [sqlTx] as a *sql.Tx does, statements prepared through [connTx.stmt].
// Its end lets go of the connection.
type connTx struct {
	s    *Store
	h    *hotConn
	ctx  context.Context // BEGIN's: once it ends, Commit rolls back
	done bool
}

// ExecContext runs a statement without rows in the transaction.
func (t *connTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if t.done {
		return nil, sql.ErrTxDone
	}
	return t.h.conn.ExecContext(ctx, q, args...)
}

// QueryContext runs a query in the transaction.
func (t *connTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if t.done {
		return nil, sql.ErrTxDone
	}
	return t.h.conn.QueryContext(ctx, q, args...)
}

// QueryRowContext runs a one-row query in the transaction. After the end
// of the transaction its Scan fails, as a *sql.Tx's does.
func (t *connTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if t.done {
		ended, cancel := context.WithCancel(ctx)
		cancel()
		ctx = ended
	}
	return t.h.conn.QueryRowContext(ctx, q, args...)
}

// stmt is q prepared on the transaction's connection, or nil (see
// [hotConn.stmt]).
func (t *connTx) stmt(ctx context.Context, q string) *sql.Stmt {
	if t.done {
		return nil
	}
	return t.h.stmt(ctx, q)
}

// Commit commits the transaction, unless BEGIN's context has ended: then
// it rolls back and returns the context's error, as a *sql.Tx does. A
// COMMIT that fails is rolled back. COMMIT does not watch a context: its
// work is writing the change's pages, bounded by the change.
func (t *connTx) Commit() error {
	if t.done {
		return sql.ErrTxDone
	}
	if err := t.ctx.Err(); err != nil {
		t.Rollback()
		return err
	}
	t.done = true
	defer t.s.putHot()
	if err := t.h.run(context.Background(), "COMMIT"); err != nil {
		// SQLite keeps the transaction open after some failed COMMITs
		// (SQLITE_BUSY, a full disk); it must not stay open.
		if rerr := t.h.run(context.Background(), "ROLLBACK"); rerr != nil {
			t.s.dropHot()
		}
		return err
	}
	return nil
}

// Rollback rolls the transaction back; after Commit or Rollback it does
// nothing and returns [sql.ErrTxDone]. A statement interrupted by its
// context may have rolled SQLite's transaction back already; a
// connection whose ROLLBACK fails, for that or another reason, is closed
// (dropHot).
func (t *connTx) Rollback() error {
	if t.done {
		return sql.ErrTxDone
	}
	t.done = true
	defer t.s.putHot()
	err := t.h.run(context.Background(), "ROLLBACK")
	if err != nil {
		t.s.dropHot()
	}
	return err
}
