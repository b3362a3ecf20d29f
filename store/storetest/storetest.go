// Package storetest gives every test suite one way to get a database on
// each engine the store runs on: [Engines] runs a test's body as the
// subtests "sqlite" and "postgres", and [Location] gives the subtest a
// fresh, empty database of its engine — a SQLite file in t.TempDir(), or a
// PostgreSQL database made on the server named by the environment variable
// ASSISTANT_TEST_POSTGRES (a DSN such as
// postgres://postgres@127.0.0.1:55400/postgres?sslmode=disable, which
// `bash scripts/pg.sh` prints) and dropped when the test ends.
//
// Without ASSISTANT_TEST_POSTGRES the PostgreSQL half skips with a message
// saying how to run it, except when CI=true, where it fails: CI runs both.
// The server is a place to work on, never assumed empty: each database is
// named t_ and 16 random hex digits. [LocationFrom] gives a copy of a
// [Template] instead of an empty database (a migrated one, so a suite
// migrates once per server); each template stays on the server as t_tpl_
// and 16 hex digits, for the next run.
//
// It does not import package store, so the store's own tests can use it.
// Only _test.go files and test helpers import it; it calls t.Fatal and
// t.Skip.
package storetest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// EnvPostgres is the environment variable naming the PostgreSQL server the
// postgres half of the tests works on: a postgres:// or postgresql:// URL
// of a role that may create and drop databases, its path any existing
// database (e.g. /postgres).
const EnvPostgres = "ASSISTANT_TEST_POSTGRES"

// SQLite and Postgres are the engine names [Engine] returns, which are
// also the names of the subtests [Engines] runs.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// timeout bounds each statement on the admin pool (a CREATE or DROP
// DATABASE on a loaded machine takes well under a second).
const timeout = 2 * time.Minute

// Engines runs fn as the subtests "sqlite" and "postgres" of t, in that
// order, so a suite runs once on each engine; inside fn, [Location] gives a
// database of the subtest's engine. The postgres subtest skips before fn
// runs when ASSISTANT_TEST_POSTGRES is unset (fails with CI=true), as
// [SkipUnlessPostgres] does. A t.Parallel() belongs inside fn, where it
// makes each engine's subtest run beside the others.
func Engines(t *testing.T, fn func(t *testing.T)) {
	t.Helper()
	t.Run(SQLite, fn)
	t.Run(Postgres, func(t *testing.T) {
		t.Helper()
		SkipUnlessPostgres(t)
		fn(t)
	})
}

// Engine is the engine t runs on: [Postgres] when some element of
// t.Name() split on "/" is exactly "postgres" (a subtest of [Engines], or
// any test or subtest so named), else [SQLite].
func Engine(t testing.TB) string {
	for _, part := range strings.Split(t.Name(), "/") {
		if part == Postgres {
			return Postgres
		}
	}
	return SQLite
}

// Location is a fresh, empty database of t's [Engine], as store.Open takes
// it: for SQLite the path "assistant.db" in a new t.TempDir() (no file
// there yet), for PostgreSQL the DSN of a new database made by
// [PostgresDatabase] and dropped when t ends. Each call gives another
// database. Without ASSISTANT_TEST_POSTGRES a PostgreSQL location skips t
// (fails it with CI=true).
func Location(t testing.TB) string {
	t.Helper()
	if Engine(t) == Postgres {
		return PostgresDatabase(t)
	}
	return filepath.Join(t.TempDir(), "assistant.db")
}

// SkipUnlessPostgres skips t, with a sentence naming
// ASSISTANT_TEST_POSTGRES and scripts/pg.sh, when that variable is unset
// or empty; with CI=true it fails t instead, since CI runs both engines.
func SkipUnlessPostgres(t testing.TB) {
	t.Helper()
	if os.Getenv(EnvPostgres) != "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(EnvPostgres + " is not set and CI=true: CI runs the PostgreSQL half of the tests; start a server with `bash scripts/pg.sh` and set " + EnvPostgres + " to the DSN it prints")
	}
	t.Skip("PostgreSQL half skipped: " + EnvPostgres + " is not set; start a server with `bash scripts/pg.sh` and set " + EnvPostgres + " to the DSN it prints (scripts/test.sh does both)")
}

// PostgresDSN is the DSN of the PostgreSQL server the tests work on, the
// value of ASSISTANT_TEST_POSTGRES, for a test that makes databases of its
// own; it skips t as [SkipUnlessPostgres] does. A value that is not a
// postgres:// or postgresql:// URL fails t.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	SkipUnlessPostgres(t)
	dsn := os.Getenv(EnvPostgres)
	if _, err := parseServer(dsn); err != nil {
		t.Fatal(err)
	}
	return dsn
}

// PostgresDatabase makes a new, empty database named t_ and 16 random hex
// digits on the server of [PostgresDSN], whatever t's [Engine], and returns
// its DSN: the server's URL with the new database as its path. The
// database is dropped, with any connection still open to it, when t ends
// (after the cleanups registered later, such as a store's Close). It skips
// t as [SkipUnlessPostgres] does; a server that cannot be reached or
// refuses the CREATE DATABASE fails t.
func PostgresDatabase(t testing.TB) string {
	t.Helper()
	server := PostgresDSN(t)
	a, err := admin(server)
	if err != nil {
		t.Fatal(err)
	}
	return database(t, a, server, "")
}

// Template is what the databases of [LocationFrom] start as, instead of
// empty: a database that Prepare brought to some state once (a store's
// migrations, typically), kept on the server and copied for each test, so
// a suite of many tests pays for its migrations once per server.
type Template struct {
	// Key names the state Prepare makes: the same Key must mean the same
	// state, on every run against a server (the template stays there
	// between runs), so it holds a hash of what goes in, such as [HashFS]
	// of the migration files. The template database is t_tpl_ and 16 hex
	// digits of Key's SHA-256.
	Key string
	// Prepare brings the empty database at dsn to the template's state and
	// closes every connection it opened to it; an error fails the test
	// (and every later one of the same Template in this process).
	Prepare func(ctx context.Context, dsn string) error
}

// LocationFrom is [Location], except that a PostgreSQL database starts as
// a copy of tpl's template database (made on the first call for tpl in any
// process, under an advisory lock so processes that start together make it
// once) rather than empty. A SQLite location is a new path as from
// Location: nothing is prepared.
func LocationFrom(t testing.TB, tpl Template) string {
	t.Helper()
	if Engine(t) != Postgres {
		return Location(t)
	}
	server := PostgresDSN(t)
	a, err := admin(server)
	if err != nil {
		t.Fatal(err)
	}
	name, err := a.template(server, tpl)
	if err != nil {
		t.Fatal(err)
	}
	return database(t, a, server, name)
}

// HashFS is a hex SHA-256 of the names and contents of every file of fsys,
// for a [Template]'s Key. A file that cannot be read panics (fsys is meant
// to be embedded files, which can always be read).
func HashFS(fsys fs.FS) string {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		panic(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// database makes a new database t_ and 16 random hex digits on a's server,
// as a copy of template ("" for the server's default, template1), dropped
// when t ends, and returns its DSN.
func database(t testing.TB, a *adminPool, server, template string) string {
	t.Helper()
	name := "t_" + randomHex(t, 8)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	create := "CREATE DATABASE " + name
	if template != "" {
		create += " TEMPLATE " + template
	}
	if _, err := a.pool.Exec(ctx, create+a.create); err != nil {
		t.Fatalf("storetest: %s on the server of %s: %v", create, EnvPostgres, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if _, err := a.pool.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("storetest: DROP DATABASE %s on the server of %s: %v", name, EnvPostgres, err)
		}
	})
	return dsnOf(server, name)
}

// randomHex is n random bytes in hex.
func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// dsnOf is the DSN of database name on server (a URL PostgresDSN checked).
func dsnOf(server, name string) string {
	u, _ := parseServer(server)
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// template is the name of tpl's template database on a's server, made if
// the server has none yet: under a session advisory lock (of the name's
// hash), as a database of another name that Prepare fills, then closed to
// connections (a template being copied must have none) and renamed, so no
// process ever copies a half-made one. The answer is kept for the process.
func (a *adminPool) template(server string, tpl Template) (string, error) {
	sum := sha256.Sum256([]byte(tpl.Key))
	name := "t_tpl_" + hex.EncodeToString(sum[:8])
	a.mu.Lock()
	if a.templates == nil {
		a.templates = map[string]*madeTemplate{}
	}
	m := a.templates[name]
	if m == nil {
		m = &madeTemplate{}
		a.templates[name] = m
	}
	a.mu.Unlock()
	m.once.Do(func() {
		m.err = a.makeTemplate(server, name, int64(binary.BigEndian.Uint64(sum[8:16])), tpl)
	})
	return name, m.err
}

// madeTemplate is whether a template is there, made once per process.
type madeTemplate struct {
	once sync.Once
	err  error
}

// makeTemplate makes the template database name unless it exists; see
// template.
func (a *adminPool) makeTemplate(server, name string, lock int64, tpl Template) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel()
	exists := func(q querier) (bool, error) {
		var ok bool
		err := q.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok)
		return ok, err
	}
	if ok, err := exists(a.pool); err != nil || ok {
		return err
	}
	conn, err := a.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lock); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", lock)
	if ok, err := exists(conn); err != nil || ok {
		return err // made by another process while this one waited
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	tmp := name + "_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+tmp+a.create); err != nil {
		return fmt.Errorf("storetest: CREATE DATABASE %s for a template on the server of %s: %v", tmp, EnvPostgres, err)
	}
	steps := []string{
		// Any connection Prepare left open would keep the copies from
		// being made.
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + tmp + "'",
		"ALTER DATABASE " + tmp + " WITH ALLOW_CONNECTIONS false",
		"ALTER DATABASE " + tmp + " RENAME TO " + name,
	}
	err = tpl.Prepare(ctx, dsnOf(server, tmp))
	if err != nil {
		err = fmt.Errorf("storetest: preparing the template database %s: %v", tmp, err)
	}
	for _, q := range steps {
		if err != nil {
			break
		}
		if _, err = conn.Exec(ctx, q); err != nil {
			err = fmt.Errorf("storetest: %s: %v", q, err)
		}
	}
	if err != nil {
		conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+tmp+" WITH (FORCE)")
	}
	return err
}

// querier is what makeTemplate asks whether a database exists: the pool
// or one of its connections.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// parseServer reads dsn as the URL of a PostgreSQL server.
func parseServer(dsn string) (*url.URL, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return nil, fmt.Errorf("storetest: %s must be a postgres:// URL such as postgres://postgres@127.0.0.1:55400/postgres?sslmode=disable (what scripts/pg.sh prints), not %q", EnvPostgres, dsn)
	}
	return u, nil
}

// pools holds one admin pool per server DSN for the whole test process,
// made on first use; a server that could not be reached keeps its error,
// so every test after the first fails at once with the same sentence.
var pools struct {
	sync.Mutex
	m map[string]*adminPool
}

// adminPool is one server's pool, or why there is none.
type adminPool struct {
	once   sync.Once
	pool   *pgxpool.Pool
	create string // what follows CREATE DATABASE name
	err    error

	mu        sync.Mutex
	templates map[string]*madeTemplate // by template database name
}

// admin is the pool on the server of dsn that makes and drops the tests'
// databases, connected and checked on the first call for that dsn (other
// callers wait for it, and then share it); it is never closed. A server
// that cannot be reached is an error naming it, without its password.
func admin(dsn string) (*adminPool, error) {
	pools.Lock()
	if pools.m == nil {
		pools.m = map[string]*adminPool{}
	}
	a := pools.m[dsn]
	if a == nil {
		a = &adminPool{}
		pools.m[dsn] = a
	}
	pools.Unlock()
	a.once.Do(func() {
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			a.err = fmt.Errorf("storetest: %s is not a DSN pgx reads: %v", EnvPostgres, err)
			return
		}
		// Each statement is sent once: the simple protocol sends it in one
		// round trip, without preparing it first.
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		var version int
		if err == nil {
			err = pool.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version)
		}
		if err != nil {
			if pool != nil {
				pool.Close()
			}
			a.err = fmt.Errorf("storetest: cannot reach the PostgreSQL server of %s (%s): %v; is it running (bash scripts/pg.sh)?", EnvPostgres, redact(cfg), err)
			return
		}
		a.pool = pool
		// From PostgreSQL 15 on, CREATE DATABASE writes the template
		// through the WAL unless told to copy its files, which is four
		// times slower for the tests' small databases.
		if version >= 150000 {
			a.create = " STRATEGY FILE_COPY"
		}
	})
	if a.err != nil {
		return nil, a.err
	}
	return a, nil
}

// redact names the server of cfg without its password.
func redact(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("user %s at %s:%d, database %s", c.User, c.Host, c.Port, c.Database)
}
