package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/stdlib"
)

// Engine names the database engine behind a Store.
type Engine string

// The engines a Store runs on.
const (
	// SQLite is the embedded default: one file, through modernc.org/sqlite.
	SQLite Engine = "sqlite"
	// Postgres is a PostgreSQL server (13 or newer), through
	// github.com/jackc/pgx/v5.
	Postgres Engine = "postgres"
)

// scheme is the "name://" that starts a URL.
var scheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// pgNoSlashes is a PostgreSQL scheme without its "//" ("postgres:/db",
// "postgresql:db"), which would otherwise be read as a file path.
var pgNoSlashes = regexp.MustCompile(`^(?i)(postgres|postgresql):(?:$|[^/]|/[^/]|/$)`)

// ParseLocation tells which engine a database location names and what to
// open: a plain path or a "file:" URL ("file:/srv/a.db", "file:a.db",
// "file:///srv/a.db") is a SQLite file (the path is returned); a
// "postgres://" or "postgresql://" URL (libpq's URI form, for example
// "postgres://me@db.example/assistant?sslmode=require") is PostgreSQL (the
// URL is returned as given). Any other "scheme://" is refused with a
// sentence naming the two forms. "" stays "" (the default file).
func ParseLocation(loc string) (Engine, string, error) {
	if m := pgNoSlashes.FindStringSubmatch(loc); m != nil {
		return "", "", fmt.Errorf("the database “%s” starts with %s: but not %s://; write a PostgreSQL URL as postgres://user@host:5432/database (or give a file path that does not start so)", Redact(loc), m[1], m[1])
	}
	if m := scheme.FindStringSubmatch(loc); m != nil {
		switch strings.ToLower(m[1]) {
		case "postgres", "postgresql":
			// URL schemes are case-insensitive (RFC 3986 §3.1); pgx
			// reads only lower case.
			loc = strings.ToLower(m[1]) + loc[len(m[1]):]
			if _, err := url.Parse(loc); err != nil {
				return "", "", fmt.Errorf("the database URL “%s” cannot be read (%v); write it as postgres://user@host:5432/database", Redact(loc), urlProblem(err))
			}
			return Postgres, loc, nil
		case "file":
		default:
			return "", "", fmt.Errorf("the database “%s” uses %s://, which this assistant cannot use; give a file path (or file:) for SQLite, or a postgres:// URL for PostgreSQL", Redact(loc), m[1])
		}
	}
	if rest, ok := strings.CutPrefix(loc, "file:"); ok {
		u, err := url.Parse(loc)
		if err != nil {
			return "", "", fmt.Errorf("the database “%s” cannot be read as a file: URL (%v); give the file's path instead", loc, urlProblem(err))
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", "", fmt.Errorf("the database “%s” names the host “%s”; a SQLite file must be on this machine, so write file:/path/to/file.db or the path alone", loc, u.Host)
		}
		p := u.Path
		if p == "" {
			p = u.Opaque
		}
		if p == "" {
			p = rest
		}
		if q, err := url.PathUnescape(p); err == nil {
			p = q
		}
		return SQLite, p, nil
	}
	return SQLite, loc, nil
}

// urlProblem is the part of a url.Error that says what is wrong, without
// the URL (which may hold a password).
func urlProblem(err error) string {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error()
	}
	return err.Error()
}

// Redact is a database location fit to show: a URL's password is replaced
// by "xxxxx" (libpq's "password=" parameter too); a path is unchanged.
func Redact(loc string) string {
	if !scheme.MatchString(loc) {
		return loc
	}
	u, err := url.Parse(loc)
	if err != nil {
		if at := strings.LastIndex(loc, "@"); at > 0 {
			if m := scheme.FindStringIndex(loc); m != nil && m[1] < at {
				return loc[:m[1]] + "xxxxx" + loc[at:]
			}
		}
		return loc
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// rebind turns the '?' placeholders of q into PostgreSQL's $1, $2, …,
// leaving alone a '?' inside a quoted string or identifier, a
// dollar-quoted body or a comment. The SQL of package store is written
// once with '?' for both engines.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(q[i+1:], c)
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+2])
			i += j + 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case c == '$' && i+1 < len(q) && q[i+1] == '$':
			j := strings.Index(q[i+2:], "$$")
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+4])
			i += j + 3
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// rebinds caches rebind's results by SQL text: the texts come from code,
// so the set is small and fixed.
var rebinds sync.Map

func rebound(q string) string {
	if v, ok := rebinds.Load(q); ok {
		return v.(string)
	}
	r := rebind(q)
	rebinds.Store(q, r)
	return r
}

// rebindConnector hands database/sql connections of pgx's pool whose
// statements are rebound first, so every query of package store (and
// none of goose's, which carry no '?') reaches PostgreSQL in its own
// placeholder form; they batch a write's BEGIN and COMMIT (see pipeConn).
type rebindConnector struct{ driver.Connector }

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pipeConn{rebindConn: &rebindConn{conn.(*stdlib.Conn)}}, nil
}

// rebindConn is pgx's database/sql connection with '?' placeholders
// rebound; every other method is pgx's own.
type rebindConn struct{ *stdlib.Conn }

func (c *rebindConn) Prepare(q string) (driver.Stmt, error) { return c.Conn.Prepare(rebound(q)) }

func (c *rebindConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebound(q))
}

func (c *rebindConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) > 0 {
		q = rebound(q)
	}
	return c.Conn.ExecContext(ctx, q, args)
}

func (c *rebindConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) > 0 {
		q = rebound(q)
	}
	return c.Conn.QueryContext(ctx, q, args)
}

// limitArg is a LIMIT's argument for n rows, a negative n meaning no
// limit: SQLite reads LIMIT -1 so, PostgreSQL refuses it.
func limitArg(n int) int64 {
	if n < 0 {
		return math.MaxInt64
	}
	return int64(n)
}
