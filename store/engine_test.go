package store

import (
	"strings"
	"testing"
)

func TestParseLocation(t *testing.T) {
	for _, c := range []struct {
		in, engine, out, refused string
	}{
		{"", "sqlite", "", ""},
		{"/srv/a.db", "sqlite", "/srv/a.db", ""},
		{"rel/a.db", "sqlite", "rel/a.db", ""},
		{"file:/srv/a.db", "sqlite", "/srv/a.db", ""},
		{"file:///srv/a%20b.db", "sqlite", "/srv/a b.db", ""},
		{"file://otherhost/srv/a.db", "", "", "names the host “otherhost”"},
		{"postgres://me@db.example/assistant", "postgres", "postgres://me@db.example/assistant", ""},
		{"postgresql://me@db.example/assistant", "postgres", "postgresql://me@db.example/assistant", ""},
		// Schemes are case-insensitive (RFC 3986 §3.1); pgx reads lower case.
		{"Postgres://me@db.example/assistant", "postgres", "postgres://me@db.example/assistant", ""},
		{"POSTGRESQL://me@db.example/a", "postgres", "postgresql://me@db.example/a", ""},
		// A PostgreSQL scheme without its slashes is no file path.
		{"postgres:/a1", "", "", "starts with postgres: but not postgres://"},
		{"postgres:", "", "", "starts with postgres: but not postgres://"},
		{"postgresql:a1", "", "", "starts with postgresql: but not postgresql://"},
		{"mysql://root:pw@h/db", "", "", "uses mysql://, which this assistant cannot use"},
		{"postgress://x@h/db", "", "", "uses postgress://"},
	} {
		engine, out, err := ParseLocation(c.in)
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("ParseLocation(%q) = %q, %q, %v; want a refusal with %q", c.in, engine, out, err, c.refused)
			}
			if err != nil && strings.Contains(err.Error(), ":pw@") {
				t.Errorf("ParseLocation(%q): the refusal shows the password: %v", c.in, err)
			}
			continue
		}
		if err != nil || string(engine) != c.engine || out != c.out {
			t.Errorf("ParseLocation(%q) = %q, %q, %v; want %q, %q", c.in, engine, out, err, c.engine, c.out)
		}
	}
}

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT 1`:     `SELECT 1`,
		`SELECT ? , ?`: `SELECT $1 , $2`,
		`SELECT '?' || ? -- what?` + "\n" + `, ?`:   `SELECT '?' || $1 -- what?` + "\n" + `, $2`,
		`SELECT "a?" FROM t WHERE x = ?`:            `SELECT "a?" FROM t WHERE x = $1`,
		`DO $$ BEGIN PERFORM '?'; END $$; SELECT ?`: `DO $$ BEGIN PERFORM '?'; END $$; SELECT $1`,
		`SELECT 'it''s ?', ?`:                       `SELECT 'it''s ?', $1`,
	} {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}
