package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// minServer is the oldest PostgreSQL this store runs on (server_version_num
// form): 13 has gen_random_uuid built in and the partial-index and
// ON CONFLICT behaviour the migrations rely on.
const (
	minServer     = 130000
	minServerName = "13"
)

// connectTimeout bounds how long opening waits for the server to answer.
const connectTimeout = 10 * time.Second

// pgConfigHook, when set (by tests only, before Open), may change the
// pool's configuration before the pool is made: a DialFunc that counts
// round trips, a tracer. Nil in every program.
var pgConfigHook func(*pgxpool.Config)

// openPostgres opens the PostgreSQL database at the URL dsn through pgx's
// pool, refuses a server older than [minServer], and (unless
// opts.NoMigrate) brings the schema up to date, once even when several
// processes start together (goose's session lock). Errors are one
// sentence saying what to fix: a refused connection, a wrong password, a
// missing database, an old server.
func openPostgres(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	shown := Redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("the database URL “%s” cannot be used (%v); write it as postgres://user:password@host:5432/database: %w", shown, pgProblem(err), ErrInvalid)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > connectTimeout {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	if opts.ReadOnly {
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	if _, set := cfg.ConnConfig.RuntimeParams["application_name"]; !set {
		cfg.ConnConfig.RuntimeParams["application_name"] = "assistant"
	}
	if pgConfigHook != nil {
		pgConfigHook(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, connectSentence(err, cfg, shown)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, connectSentence(err, cfg, shown)
	}
	var num, version, where string
	err = conn.QueryRow(ctx, `SELECT current_setting('server_version_num'), current_setting('server_version'),
		current_database() || '.' || coalesce(current_schema(), '')`).Scan(&num, &version, &where)
	conn.Release()
	if err != nil {
		pool.Close()
		return nil, connectSentence(err, cfg, shown)
	}
	if n, _ := strconv.Atoi(num); n < minServer {
		pool.Close()
		return nil, tooOld(hostPort(cfg), version)
	}
	db := sql.OpenDB(rebindConnector{stdlib.GetPoolConnector(pool)})
	db.SetMaxIdleConns(0) // idle connections are the pool's to keep
	s := &Store{db: db, pool: pool, engine: Postgres, path: shown, Now: opts.Now, cols: map[string][]string{},
		readOnly: opts.ReadOnly, migrateLock: migrateLockID(where)}
	if s.Now == nil {
		s.Now = time.Now
	}
	if err := s.checkVersion(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if !opts.NoMigrate && !opts.ReadOnly {
		if _, err := s.Migrate(ctx); err != nil {
			s.Close()
			return nil, notAllowed(err, cfg, shown)
		}
	} else if opts.ReadOnly {
		cur, err := s.dbVersion(ctx)
		if err == nil {
			if latest, lerr := s.latestKnown(); lerr == nil && cur < latest {
				s.Close()
				return nil, fmt.Errorf("the database “%s” has schema version %d and this assistant needs %d, which it cannot write while the database is read-only; run `assistant migrate up` without --db-read-only", shown, cur, latest)
			}
		}
	}
	return s, nil
}

// tooOld is the refusal of the server at where (see [hostPort]), which
// runs version (server_version, "12.19"), older than [minServer]; it wraps
// [ErrUnavailable], as a server that cannot be used.
func tooOld(where, version string) error {
	return fmt.Errorf("the PostgreSQL server at %s runs version %s, and this assistant needs PostgreSQL %s or newer; upgrade the server or point the URL at another one: %w", where, version, minServerName, ErrUnavailable)
}

// notAllowed is err, a failure to bring the schema up to date, told in
// one sentence when the server refused it for want of a privilege
// (SQLSTATE 42501: the role is not the owner of the tables, or may not
// create them); err as it is otherwise.
func notAllowed(err error, cfg *pgxpool.Config, shown string) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42501" {
		return err
	}
	user := cfg.ConnConfig.User
	return fmt.Errorf("user “%s” may not create or change the tables of the database “%s”, which every command keeps up to date; connect as the role that owns its tables (the one that first ran the assistant on it), or have an administrator make “%s” their owner: %w", user, shown, user, ErrUnavailable)
}

// hostPort is where cfg connects, for sentences: "db.example:5432", or
// "the socket /run/postgresql/.s.PGSQL.5432" for a Unix socket (its name
// carries the port).
func hostPort(cfg *pgxpool.Config) string {
	host := cfg.ConnConfig.Host
	if len(host) > 0 && host[0] == '/' {
		return "the socket " + strings.TrimSuffix(host, "/") + "/.s.PGSQL." + strconv.Itoa(int(cfg.ConnConfig.Port))
	}
	return net.JoinHostPort(host, strconv.Itoa(int(cfg.ConnConfig.Port)))
}

// connectSentence says why the server at cfg could not be used, and what
// to do.
func connectSentence(err error, cfg *pgxpool.Config, shown string) error {
	where := hostPort(cfg)
	user := cfg.ConnConfig.User
	db := cfg.ConnConfig.Database
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			if cfg.ConnConfig.Password == "" && pe.Code == "28P01" {
				return fmt.Errorf("the PostgreSQL server at %s needs a password for user “%s” and none was given; put it in PGPASSWORD or ~/.pgpass (or in the URL “%s”): %w", where, user, shown, ErrUnavailable)
			}
			return fmt.Errorf("the PostgreSQL server at %s refused the password (or the login) of user “%s”; fix the password in the URL “%s”, or in PGPASSWORD or ~/.pgpass: %w", where, user, shown, ErrUnavailable)
		case "3D000":
			return fmt.Errorf("the PostgreSQL server at %s has no database “%s”; make it (createdb %s, or CREATE DATABASE %s) and run again: %w", where, db, db, pgx.Identifier{db}.Sanitize(), ErrUnavailable)
		case "53300":
			return fmt.Errorf("the PostgreSQL server at %s has no connection free (too many clients); try again later, or raise its max_connections: %w", where, ErrUnavailable)
		case "57P03":
			return fmt.Errorf("the PostgreSQL server at %s is starting up or shutting down; try again in a moment: %w", where, ErrUnavailable)
		}
		return fmt.Errorf("the PostgreSQL server at %s refused the connection (%s); check the URL “%s”: %w", where, pe.Message, shown, ErrUnavailable)
	}
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENOENT):
		return fmt.Errorf("nothing answers at %s: start the PostgreSQL server there, or fix the host and port in the URL “%s”: %w", where, shown, ErrUnavailable)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("the host “%s” of the database URL cannot be found; fix the host in “%s”: %w", cfg.ConnConfig.Host, shown, ErrUnavailable)
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return fmt.Errorf("the PostgreSQL server at %s did not answer within %s; check that it runs and that nothing blocks the way to it: %w", where, connectTimeout, ErrUnavailable)
	case errors.Is(err, context.Canceled):
		return err
	}
	return fmt.Errorf("cannot connect to the PostgreSQL server at %s (%v); check the URL “%s”: %w", where, pgProblem(err), shown, ErrUnavailable)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// pgProblem is the innermost words of a connection error, without the
// connection string pgx puts in front.
func pgProblem(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// ErrUnavailable is wrapped by errors about a database server that cannot
// be reached or used (refused, unknown host, wrong password, no such
// database, a dropped connection): a setting to fix or a service to start,
// not a fault of the call.
var ErrUnavailable = errors.New("database unavailable")

// migrateLockID is the advisory lock goose holds while it migrates the
// schema where ("database.schema"): one per schema, so processes on the
// same schema migrate once while others on the same server (other
// databases or schemas) do not wait for them.
func migrateLockID(where string) int64 {
	h := fnv.New64a()
	h.Write([]byte("assistant migrate " + where))
	return int64(h.Sum64() >> 1)
}
