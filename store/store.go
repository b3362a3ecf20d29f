// Package store is the one place where data lives: a SQLite file reached
// through modernc.org/sqlite (pure Go), its schema brought up to date at
// open by pressly/goose from the files in package migrations, and a change
// journal that makes every write through a tool undoable.
//
// Every method takes the owner (the person's id from the ToolContext) and
// every query filters by it, so no call can read or change another
// person's rows whatever ids it is given.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrNotFound is wrapped by every error about a row that does not exist,
// is deleted, or belongs to someone else (the three are not told apart, so
// nothing leaks about other people's ids).
var ErrNotFound = errors.New("not found")

// ErrConflict is wrapped by errors about a write that would lose someone
// else's work: an undo over a later change, a reused idempotency key with
// other arguments, a taken name.
var ErrConflict = errors.New("conflict")

// ErrInvalid is wrapped by errors for a value the store refuses (a blank
// or overlong person name, a zone that is not an IANA name); the error's
// text is the sentence saying what to write instead.
var ErrInvalid = errors.New("invalid")

// Options tunes Open. The zero value (or nil) is the normal setting.
type Options struct {
	// NoMigrate opens without applying pending migrations, for
	// `assistant migrate status`. A database newer than this binary is
	// still refused.
	NoMigrate bool
	// ReadOnly opens the file for reading only (SQLite's mode=ro), as
	// `--db-read-only` asks: nothing is created or migrated, and every
	// write fails with the ReadOnly Trouble. A file SQLite cannot set up
	// its -shm file beside is read as it is on disk (immutable=1).
	ReadOnly bool
	// Now replaces the clock (tests); nil means time.Now.
	Now func() time.Time
	// NoMakeFolder refuses a SQLite file whose folder does not exist
	// (an error wrapping [ErrNoFolder]) instead of making the folder: for
	// a location a person typed, where a missing folder is more likely a
	// slip than a wish for a new one.
	NoMakeFolder bool
}

// ErrNoFolder is wrapped by the error of Open for a SQLite file whose
// folder does not exist, when Options.NoMakeFolder is set.
var ErrNoFolder = errors.New("no such folder")

// Store is an open database. It is safe for concurrent use by many
// goroutines, and several processes may open the same file at once.
type Store struct {
	db     *sql.DB
	engine Engine
	pool   *pgxpool.Pool // PostgreSQL only: pgx's pool under db
	// migrateLock is goose's session advisory lock id (PostgreSQL).
	migrateLock int64
	path        string // the SQLite file, or the PostgreSQL URL without its password
	// Now is the clock for created/updated stamps and purge cut-offs; tests
	// set it. It must be set before the Store is shared.
	Now func() time.Time

	// writing lets one write transaction of this process at a time reach
	// SQLite. Waiters queue here instead of in SQLite's busy handler, which
	// sleeps in growing steps and lets a tight writer win over and over.
	writing chan struct{}
	// hot is SQLite's kept connection (see hotConn), nil until first
	// used; hotBusy is held by the transaction running on it.
	hot     *hotConn
	hotBusy chan struct{}

	// readOnly: opened for reading only, because Options.ReadOnly asked
	// (degraded is NoTrouble) or because the disk or the file could not
	// be written (degraded says which; see Open).
	readOnly bool
	degraded Trouble

	stmts sync.Map // SQL text → *sql.Stmt; see Tx.query
	nstmt atomic.Int32

	colMu sync.Mutex
	cols  map[string][]string // registered table → its columns, read once
	// layouts are the images insertImaged makes, by table and columns
	// set (see imageLayoutOf); nil where it cannot make them.
	layouts map[string]*imageLayout
	// arrayTypes are, on PostgreSQL, the array types insertUnnest binds
	// each column of a table as ("bigint[]", "text[]"), by table; a
	// column of another type is missing (see arrayTypesOf).
	arrayTypes map[string]map[string]string
	// idDraws are, on PostgreSQL, the statements drawing n ids of a
	// table from the sequence of its identity column, by table (see
	// drawIDs).
	idDraws map[string]string
	// returning is, per registered table, the RETURNING clause of its
	// journaled writes: the columns an image holds ([imageReturning]).
	returning map[string]string
}

// DefaultPath is where the database lives when no flag or environment
// names it: $XDG_DATA_HOME/assistant/assistant.db, or
// ~/.local/share/assistant/assistant.db when XDG_DATA_HOME is unset or not
// absolute (XDG Base Directory Specification).
func DefaultPath() (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot find the home folder for the database (%v); set XDG_DATA_HOME or name the file with --db", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "assistant", "assistant.db"), nil
}

// dsn builds the connection string. Pragmas ride in the DSN so that every
// connection the pool opens gets them; busy_timeout comes first because
// the others may need to wait for a lock (modernc's default wait is 0).
// _txlock=immediate makes a write transaction take the write lock at BEGIN,
// so two writers queue on busy_timeout instead of failing mid-transaction
// when one upgrades a read lock.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(ON)")
	// Statement journals (a write inside a larger transaction) stay in
	// memory instead of spilling to a temporary file: pwrite calls were
	// a tenth of an import's write time. Temporary tables are small here.
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Open opens the database at location: a SQLite file (a path or a file:
// URL) or a PostgreSQL database (a postgres:// URL); see [ParseLocation].
// Any other scheme is refused with a sentence wrapping [ErrInvalid].
//
// PostgreSQL: the database must exist; its schema is brought up to date
// as for SQLite, but without a copy beforehand (each migration runs in one
// transaction, so one that fails leaves the schema as it was; keep the
// server's own backups, pg_dump or replicas). A server that cannot be used
// is refused in one sentence wrapping [ErrUnavailable].
//
// SQLite: the file is created if needed, its folder is made
// 0700 and the file 0600, since it holds a person's tasks and calendar.
// Unless opts.NoMigrate, pending migrations are applied, after a copy of a
// non-empty database is written next to it (see Migrate). A database whose
// schema is newer than this binary is refused with a sentence.
//
// When the disk is full or the file or its folder cannot be written (a
// Trouble), an existing database is opened for reading only, so reads
// keep working where SQLite allows and every write fails with a sentence
// saying why (see Store.Explain); an error of that Trouble otherwise, in
// Explain's sentence. A damaged file (Corrupt) is refused in Explain's
// sentence.
func Open(ctx context.Context, location string, opts *Options) (*Store, error) {
	path := location
	if opts == nil {
		opts = &Options{}
	}
	engine, path, err := ParseLocation(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", err.Error(), ErrInvalid)
	}
	if engine == Postgres {
		return openPostgres(ctx, path, opts)
	}
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	if opts.ReadOnly {
		return openReadOnly(ctx, path, opts, NoTrouble)
	}
	s, err := open(ctx, path, opts)
	if trouble := TroubleOf(err); trouble != NoTrouble {
		if trouble == Corrupt {
			return nil, troubled(err, path)
		}
		if ro, rerr := openReadOnly(ctx, path, opts, trouble); rerr == nil {
			return ro, nil
		}
		return nil, troubled(err, path)
	}
	return s, err
}

// openReadOnly opens the existing database at path for reading only:
// SQLite's mode=ro, then, when that cannot set up the -shm file beside it
// (a full disk, a read-only folder), immutable=1, which reads the file as
// it is. The latter would miss what a -wal file beside it holds, so it is
// used only when there is none (a database closed cleanly has none).
// degraded is why a read-write open was given up (NoTrouble: asked).
func openReadOnly(ctx context.Context, path string, opts *Options, degraded Trouble) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("cannot use “%s” as the database file: %v", path, err)
	}
	if err := notFile(abs); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || fi.Size() == 0 {
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("there is no database at “%s” to read; run once without --db-read-only to make it", abs)
		}
		return nil, fmt.Errorf("cannot open the database file “%s”: %v", abs, err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(ON)")
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Set("mode", "ro")
	name := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?"
	var tries []string
	tries = append(tries, name+q.Encode())
	if wal, err := os.Stat(abs + "-wal"); err != nil || wal.Size() == 0 {
		q.Set("immutable", "1")
		tries = append(tries, name+q.Encode())
	}
	var last error
	for _, dsn := range tries {
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("cannot open the database file “%s”: %v", abs, err)
		}
		s := &Store{db: db, engine: SQLite, path: abs, Now: opts.Now, cols: map[string][]string{}, writing: make(chan struct{}, 1), hotBusy: make(chan struct{}, 1),
			readOnly: true, degraded: degraded}
		if s.Now == nil {
			s.Now = time.Now
		}
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			if notDatabase(err) {
				return nil, notDatabaseError(abs)
			}
			last = err
			continue
		}
		if err := s.checkVersion(ctx); err != nil {
			db.Close()
			if notDatabase(err) {
				return nil, notDatabaseError(abs)
			}
			if TroubleOf(err) != NoTrouble {
				last = err
				continue
			}
			return nil, err
		}
		if cur, err := s.dbVersion(ctx); err == nil {
			if latest, err := s.latestKnown(); err == nil && cur < latest {
				db.Close()
				return nil, fmt.Errorf("the database “%s” has schema version %d and this assistant needs %d, which it cannot write while the database is read-only; run `assistant migrate up` where it can be written", abs, cur, latest)
			}
		}
		return s, nil
	}
	return nil, troubled(last, abs)
}

// open opens the database at path for reading and writing (see Open).
func open(ctx context.Context, path string, opts *Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("cannot use “%s” as the database file: %v", path, err)
	}
	if err := notFile(abs); err != nil {
		return nil, err
	}
	if opts.NoMakeFolder {
		// Only a missing folder: a file in the way is refused below, by
		// MkdirAll, as without NoMakeFolder.
		if _, err := os.Stat(filepath.Dir(abs)); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("there is no folder “%s” for the database “%s”; make the folder first, or check the path: %w",
				filepath.Dir(abs), abs, ErrNoFolder)
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the folder for the database “%s”: %v", abs, err)
	}
	// Create the file ourselves so it is 0600 from the first byte; SQLite
	// would otherwise make it with the umask's mode.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the database file “%s”: %w", abs, err)
	}
	f.Close()
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("cannot open the database file “%s”: %v", abs, err)
	}
	s := &Store{db: db, engine: SQLite, path: abs, Now: opts.Now, cols: map[string][]string{}, writing: make(chan struct{}, 1), hotBusy: make(chan struct{}, 1)}
	if s.Now == nil {
		s.Now = time.Now
	}
	if err := pingFresh(ctx, db); err != nil {
		db.Close()
		if notDatabase(err) {
			return nil, notDatabaseError(abs)
		}
		return nil, fmt.Errorf("cannot open the database file “%s”: %w", abs, err)
	}
	if err := s.checkVersion(ctx); err != nil {
		db.Close()
		if notDatabase(err) {
			return nil, notDatabaseError(abs)
		}
		return nil, err
	}
	if !opts.NoMigrate {
		if _, err := s.Migrate(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

// sqliteNotADB is SQLITE_NOTADB: the file is not a SQLite database.
const sqliteNotADB = 26

// notDatabase reports SQLite's "file is not a database (26)".
func notDatabase(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == sqliteNotADB
}

// notDatabaseError is the sentence for a file at path that is not a
// SQLite database.
func notDatabaseError(path string) error {
	return fmt.Errorf("“%s” is not a database file (another kind of file is there); name the database file, "+
		"or move this file away to start a new database in its place", path)
}

// notFile refuses a location that is a folder, not a file, in a sentence.
func notFile(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("“%s” is a folder, not a database file; name a file, such as “%s”",
			path, filepath.Join(path, "assistant.db"))
	}
	return nil
}

// pingFresh opens the first connection. On a new file, the first
// connection to run the DSN's PRAGMA journal_mode=WAL converts the file and
// holds an exclusive lock meanwhile; SQLite answers the others SQLITE_BUSY
// at once, without waiting in the busy handler. So two processes starting
// together on a fresh database (chat and remind, say) retry here for a
// while instead of failing.
func pingFresh(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(10 * time.Second)
	wait := 5 * time.Millisecond
	for {
		err := db.PingContext(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// isBusy reports SQLITE_BUSY (5) or one of its extended codes.
func isBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}

// Close closes the database; a WAL checkpoint runs as the last connection
// closes.
func (s *Store) Close() error {
	if s.hotBusy != nil {
		// A transaction still running keeps the connection until it ends.
		s.hotBusy <- struct{}{}
		s.dropHot()
		<-s.hotBusy
	}
	s.stmts.Range(func(_, v any) bool { v.(*sql.Stmt).Close(); return true })
	err := s.db.Close()
	if s.pool != nil {
		s.pool.Close()
	}
	return err
}

// Engine is the engine behind the store: [SQLite] or [Postgres].
func (s *Store) Engine() Engine { return s.engine }

// DB is the underlying pool, for code that needs SQL the Store does not
// offer (migrations status, benchmarks). Queries through it must filter by
// owner_id themselves.
func (s *Store) DB() *sql.DB { return s.db }

// Path is the absolute path of the database file, or for PostgreSQL the
// URL with its password replaced (see [Redact]).
func (s *Store) Path() string { return s.path }

// now is the store's clock in UTC, cut to whole seconds: stamps are Unix
// seconds or RFC 3339 seconds, and equal instants must compare equal.
func (s *Store) now() time.Time { return s.Now().UTC().Truncate(time.Second) }

// stamp is the canonical TEXT form of an instant in journaled tables'
// updated_at and deleted_at: RFC 3339 in UTC with seconds, which sorts as
// text in time order.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// beginWrite starts a write transaction for owner; end must be called
// when the transaction is over. SQLite: BEGIN IMMEDIATE (from the DSN)
// once this process has no other one running. PostgreSQL: READ COMMITTED
// holding owner's transaction-level advisory lock, so the writes of one
// person are serialized across every process and server, as SQLite
// serializes all writes; owner 0 (a write of no one person, Purge) takes
// no lock. On PostgreSQL nothing is sent yet: BEGIN and the lock go in one
// round trip with the transaction's first statement (see pipeConn).
func (s *Store) beginWrite(ctx context.Context, owner int64) (tx sqlTx, end func(), err error) {
	return s.beginWriteChecking(ctx, owner, pendingCheck(ctx, owner))
}

// beginWriteChecking is beginWrite whose PostgreSQL BEGIN makes check
// (nil: none, the caller's statement making it itself).
func (s *Store) beginWriteChecking(ctx context.Context, owner int64, check *PersonCheck) (tx sqlTx, end func(), err error) {
	if s.engine == Postgres {
		lb := &lazyBegin{owner: owner, check: check}
		pgTx, err := s.db.BeginTx(context.WithValue(ctx, lazyBeginKey{}, lb),
			&sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			return nil, nil, err
		}
		return pgTx, func() { pgTx.Rollback() }, nil
	}
	select {
	case s.writing <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, s.waitedTooLong(ctx.Err())
	}
	release := func() { <-s.writing }
	// A kept connection whose BEGIN failed is closed (beginHot), and the
	// pool says whether the fault was the connection's or the database's;
	// one open for reading only is closed and another taken, which may be
	// one the pool kept from the same time: a few rounds clear those. A
	// store opened for reading only has no other kind: the pool refuses.
	for i := 0; i < 4 && !s.readOnly; i++ {
		h := s.takeHot(ctx)
		if h == nil {
			break
		}
		waiting := ctx.Err() == nil
		ct, err := s.beginHot(ctx, h, true)
		if err == nil {
			return ct, func() { ct.Rollback(); release() }, nil
		}
		if ctx.Err() != nil || TroubleOf(err) == Busy {
			// Not the pool's turn: it would wait for the same writer.
			release()
			if waiting && ctx.Err() != nil {
				err = s.waitedTooLong(err)
			}
			return nil, nil, err
		}
		if !errors.Is(err, errReadOnlyConn) {
			break
		}
	}
	waiting := ctx.Err() == nil
	pooled, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		release()
		if waiting && ctx.Err() != nil {
			err = s.waitedTooLong(err)
		}
		return nil, nil, err
	}
	return pooled, func() { pooled.Rollback(); release() }, nil
}

// maxStmts bounds the statement cache; the texts come from code (table and
// column names of registered tables), so the bound is never reached in
// practice, but a bug must not grow it without end.
const maxStmts = 512

// stmt is the pool-wide prepared statement for q, prepared once: parsing
// SQL is about a third of a small write's CPU time in modernc's SQLite.
// It returns nil when q cannot be cached (the caller then runs q as text).
//
// On PostgreSQL it is always nil: pgx prepares every statement once per
// connection by itself (its statement cache), in the same round trip.
func (s *Store) stmt(ctx context.Context, q string) *sql.Stmt {
	if s.engine == Postgres {
		return nil
	}
	if v, ok := s.stmts.Load(q); ok {
		return v.(*sql.Stmt)
	}
	if s.nstmt.Load() >= maxStmts {
		return nil
	}
	st, err := s.db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	if v, loaded := s.stmts.LoadOrStore(q, st); loaded {
		st.Close()
		return v.(*sql.Stmt)
	}
	s.nstmt.Add(1)
	return st
}
