package migrations_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite"

	"github.com/assistant-dev/assistant/migrations"
)

// TestSameHistory checks that both folders hold the same numbered files,
// named alike, and nothing else.
func TestSameHistory(t *testing.T) {
	names := func(fsys fs.FS) []string {
		t.Helper()
		entries, err := fs.ReadDir(fsys, ".")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			if !regexp.MustCompile(`^\d{5}_[a-z0-9_]+\.sql$`).MatchString(e.Name()) {
				t.Errorf("%s is not a migration named NNNNN_name.sql", e.Name())
			}
			out = append(out, e.Name())
		}
		return out
	}
	lite, pg := names(migrations.SQLite), names(migrations.Postgres)
	if len(lite) == 0 {
		t.Fatal("no SQLite migrations embedded")
	}
	if !reflect.DeepEqual(lite, pg) {
		t.Errorf("the folders differ:\nsqlite:   %v\npostgres: %v", lite, pg)
	}
}

// table is what the schema comparison sees of one table: its columns in
// order ("name type [NOT NULL]"), its indexes by name ("columns unique
// partial", leaving out those SQLite or PostgreSQL make for a PRIMARY KEY or
// UNIQUE constraint), its foreign keys and how many CHECK constraints it
// has.
type table struct {
	Columns []string
	Indexes map[string]string
	Foreign []string
	Checks  int
}

// TestSameSchema applies both histories and compares what they build.
func TestSameSchema(t *testing.T) {
	ctx := context.Background()
	pg := postgresDB(t)
	lite := sqliteDB(t)
	if _, err := provider(t, goose.DialectSQLite3, lite, migrations.SQLite).Up(ctx); err != nil {
		t.Fatalf("SQLite up: %v", err)
	}
	if _, err := provider(t, goose.DialectPostgres, pg, migrations.Postgres).Up(ctx); err != nil {
		t.Fatalf("PostgreSQL up: %v", err)
	}
	want, got := sqliteSchema(t, lite), postgresSchema(t, pg)
	if len(want) == 0 {
		t.Fatal("the SQLite history made no tables")
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("table %s is missing on PostgreSQL", name)
			continue
		}
		if !reflect.DeepEqual(w, g) {
			t.Errorf("table %s differs:\nsqlite:   %+v\npostgres: %+v", name, w, g)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("table %s exists only on PostgreSQL", name)
		}
	}
}

// TestDownUp applies the whole history of each engine, takes every step
// back down to an empty schema, and applies it again.
func TestDownUp(t *testing.T) {
	// What a schema holds besides goose's own table: SQLite's
	// sqlite_sequence stays once made, like PostgreSQL's schema itself.
	left := map[string]string{
		"sqlite": `SELECT type || ' ' || name FROM sqlite_schema
			WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE 'goose_db_version%'`,
		"postgres": `SELECT c.relkind::text || ' ' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = current_schema() AND c.relname NOT LIKE 'goose_db_version%'
			UNION ALL
			SELECT 'function ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
			WHERE n.nspname = current_schema()`,
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db, p := engineDB(t, engine)
			if _, err := p.Up(ctx); err != nil {
				t.Fatalf("up: %v", err)
			}
			if _, err := p.DownTo(ctx, 0); err != nil {
				t.Fatalf("down to 0: %v", err)
			}
			rows, err := db.QueryContext(ctx, left[engine])
			if err != nil {
				t.Fatal(err)
			}
			if l := scanStrings(t, rows); len(l) != 0 {
				t.Errorf("down to 0 left %v", l)
			}
			if v, err := p.GetDBVersion(ctx); err != nil || v != 0 {
				t.Errorf("version after down to 0 = %d, %v; want 0", v, err)
			}
			if _, err := p.Up(ctx); err != nil {
				t.Fatalf("up again: %v", err)
			}
		})
	}
}

// TestPostgresUpgradeWithRows applies the steps that fill new columns or
// tables from existing rows onto a database that has rows.
func TestPostgresUpgradeWithRows(t *testing.T) {
	ctx := context.Background()
	db := postgresDB(t)
	p := provider(t, goose.DialectPostgres, db, migrations.Postgres)
	if _, err := p.UpTo(ctx, 5); err != nil {
		t.Fatal(err)
	}
	// 2026-10-05T07:00:00Z; alice has an event, bob only an override of
	// it (the owner of an override is its own column), carol nothing.
	exec(t, db, `INSERT INTO people (id, name, zone, created) VALUES
		(1, 'alice', 'Europe/Paris', 1791183600), (2, 'bob', 'UTC', 0), (3, 'carol', 'UTC', 0)`)
	exec(t, db, `INSERT INTO events (id, owner_id, uid, title, start_local, end_local, tzid, start_at, end_at, first_at, created_at)
		VALUES (1, 1, 'u1', 'Standup', '2026-10-05T09:00', '2026-10-05T09:15', 'Europe/Paris', 1791183600, 1791184500, 1791183600, 0)`)
	exec(t, db, `INSERT INTO event_overrides (owner_id, event_id, recurrence_id, created_at) VALUES (2, 1, '20261005T070000Z', 0)`)
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}

	var seeded []string
	rows, err := db.QueryContext(ctx, `SELECT person_id::text FROM event_generations ORDER BY person_id`)
	if err != nil {
		t.Fatal(err)
	}
	seeded = scanStrings(t, rows)
	if !reflect.DeepEqual(seeded, []string{"1", "2"}) {
		t.Errorf("event_generations seeded for %v, want [1 2]", seeded)
	}

	var owner int64
	var updated string
	if err := db.QueryRowContext(ctx, `SELECT owner_id, updated_at FROM people WHERE id = 1`).Scan(&owner, &updated); err != nil {
		t.Fatal(err)
	}
	if owner != 1 || updated != "2026-10-05T07:00:00Z" {
		t.Errorf("alice after 00008: owner_id %d, updated_at %q; want 1, 2026-10-05T07:00:00Z", owner, updated)
	}
	if err := db.QueryRowContext(ctx, `SELECT updated_at FROM people WHERE id = 2`).Scan(&updated); err != nil {
		t.Fatal(err)
	}
	if updated != "1970-01-01T00:00:00Z" {
		t.Errorf("bob's updated_at after 00008 = %q, want 1970-01-01T00:00:00Z", updated)
	}
}

// TestPostgresTriggers checks the rules the triggers keep: a person owns
// exactly their own row and is never soft-deleted, and every write to
// events or overrides draws a new generation.
func TestPostgresTriggers(t *testing.T) {
	ctx := context.Background()
	db := postgresDB(t)
	if _, err := provider(t, goose.DialectPostgres, db, migrations.Postgres).Up(ctx); err != nil {
		t.Fatal(err)
	}

	var id, owner int64
	if err := db.QueryRowContext(ctx, `INSERT INTO people (name, zone, created) VALUES ('alice', 'UTC', 0) RETURNING id, owner_id`).Scan(&id, &owner); err != nil {
		t.Fatal(err)
	}
	if owner != id {
		t.Errorf("a new person has owner_id %d, id %d; want them equal", owner, id)
	}
	// A copy inserts explicit ids, with owner_id equal to id.
	exec(t, db, `INSERT INTO people (id, name, zone, created, owner_id) VALUES (100, 'copied', 'UTC', 0, 100)`)

	refused := []struct{ name, sql, says string }{
		{"another owner", `INSERT INTO people (name, zone, created, owner_id) VALUES ('bob', 'UTC', 0, 100)`,
			"a person owns only their own row; add people with store.AddPerson"},
		{"owner changed", fmt.Sprintf(`UPDATE people SET owner_id = 100 WHERE id = %d`, id),
			"a person owns only their own row; owner_id must stay equal to id"},
		{"owner cleared", fmt.Sprintf(`UPDATE people SET owner_id = NULL WHERE id = %d`, id),
			"a person owns only their own row; owner_id must stay equal to id"},
		{"soft delete", fmt.Sprintf(`UPDATE people SET deleted_at = '2026-10-05T07:00:00Z' WHERE id = %d`, id),
			"a person is deleted for good with store.DeletePerson, never soft-deleted"},
	}
	for _, r := range refused {
		_, err := db.ExecContext(ctx, r.sql)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Message != r.says || pgErr.Code != "23000" {
			t.Errorf("%s: err = %v, want SQLSTATE 23000 saying %q", r.name, err, r.says)
		}
	}
	exec(t, db, fmt.Sprintf(`UPDATE people SET zone = 'Europe/Paris', updated_at = '2026-10-05T07:00:00Z' WHERE id = %d`, id))

	gen := func() (int64, bool) {
		t.Helper()
		var g int64
		err := db.QueryRowContext(ctx, `SELECT gen FROM event_generations WHERE person_id = $1`, id).Scan(&g)
		if err == sql.ErrNoRows {
			return 0, false
		}
		if err != nil {
			t.Fatal(err)
		}
		return g, true
	}
	if _, ok := gen(); ok {
		t.Fatal("a generation before any event")
	}
	var last int64
	step := func(what, stmt string) {
		t.Helper()
		exec(t, db, stmt)
		g, ok := gen()
		if !ok || g == last {
			t.Errorf("after %s the generation is %d (present %v), before %d; want a new one", what, g, ok, last)
		}
		last = g
	}
	step("an event insert", fmt.Sprintf(`INSERT INTO events (id, owner_id, uid, title, start_local, end_local, tzid, start_at, end_at, first_at, created_at)
		VALUES (1, %d, 'u1', 'Standup', '2026-10-05T09:00', '2026-10-05T09:15', 'Europe/Paris', 1791183600, 1791184500, 1791183600, 0)`, id))
	step("an event update", `UPDATE events SET title = 'Daily' WHERE id = 1`)
	step("an override insert", fmt.Sprintf(`INSERT INTO event_overrides (id, owner_id, event_id, recurrence_id, created_at) VALUES (1, %d, 1, '20261005T070000Z', 0)`, id))
	step("an override update", `UPDATE event_overrides SET cancelled = 1 WHERE id = 1`)
	step("an override delete", `DELETE FROM event_overrides WHERE id = 1`)
	step("an event delete", `DELETE FROM events WHERE id = 1`)
	exec(t, db, fmt.Sprintf(`INSERT INTO events (id, owner_id, uid, title, start_local, end_local, tzid, start_at, end_at, first_at, created_at)
		VALUES (2, %d, 'u2', 'Standup', '2026-10-05T09:00', '2026-10-05T09:15', 'Europe/Paris', 1791183600, 1791184500, 1791183600, 0)`, id))
	last, _ = gen()
	step("the person's deletion", fmt.Sprintf(`DELETE FROM people WHERE id = %d`, id))

	var events int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if events != 0 {
		t.Errorf("%d events outlived their owner", events)
	}
}

// engineDB makes an empty database of engine ("sqlite" or "postgres")
// and the provider of its history.
func engineDB(t *testing.T, engine string) (*sql.DB, *goose.Provider) {
	t.Helper()
	if engine == "sqlite" {
		db := sqliteDB(t)
		return db, provider(t, goose.DialectSQLite3, db, migrations.SQLite)
	}
	db := postgresDB(t)
	return db, provider(t, goose.DialectPostgres, db, migrations.Postgres)
}

func provider(t *testing.T, d goose.Dialect, db *sql.DB, fsys fs.FS) *goose.Provider {
	t.Helper()
	p, err := goose.NewProvider(d, db, fsys)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sqliteDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "mig.db")+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// postgresDB makes a database of its own on the server named by
// ASSISTANT_TEST_POSTGRES and drops it when the test ends. Without the
// variable the test skips, except under CI=true, where it fails.
func postgresDB(t *testing.T) *sql.DB {
	t.Helper()
	dsn := os.Getenv("ASSISTANT_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("ASSISTANT_TEST_POSTGRES is not set; CI must run the PostgreSQL half")
		}
		t.Skip("set ASSISTANT_TEST_POSTGRES to a PostgreSQL DSN to run the PostgreSQL half")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("ASSISTANT_TEST_POSTGRES: %v", err)
	}
	admin := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { admin.Close() })

	b := make([]byte, 6)
	rand.Read(b)
	name := "mig_" + hex.EncodeToString(b)
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	cfg = cfg.Copy()
	cfg.Database = name
	db := stdlib.OpenDB(*cfg)
	// Cleanups run last first: close this pool, then drop, then close admin.
	t.Cleanup(func() {
		if _, err := admin.ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, stmt string) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

func scanStrings(t *testing.T, rows *sql.Rows) []string {
	t.Helper()
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sqliteTypes maps SQLite's declared types to the PostgreSQL types the
// rules give them.
// checkClause finds the CHECK constraints in a table's CREATE TABLE text.
var checkClause = regexp.MustCompile(`(?i)\bCHECK\s*\(`)

var sqliteTypes = map[string]string{"INTEGER": "bigint", "TEXT": "text", "BLOB": "bytea", "REAL": "double precision"}

func sqliteSchema(t *testing.T, db *sql.DB) map[string]table {
	t.Helper()
	// tasks_fts and its shadow tables are SQLite's text index of tasks,
	// an index of tasks (tasks_search_trgm) on PostgreSQL.
	rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version' AND name NOT LIKE 'tasks\_fts%' ESCAPE '\'`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]table{}
	for _, name := range scanStrings(t, rows) {
		tb := table{Indexes: map[string]string{}}
		var text string
		if err := db.QueryRow(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&text); err != nil {
			t.Fatal(err)
		}
		tb.Checks = len(checkClause.FindAllString(text, -1))
		cols, err := db.Query(`SELECT name, upper(type), "notnull" OR pk > 0 FROM pragma_table_info(?) ORDER BY cid`, name)
		if err != nil {
			t.Fatal(err)
		}
		for cols.Next() {
			var c, typ string
			var notNull bool
			if err := cols.Scan(&c, &typ, &notNull); err != nil {
				t.Fatal(err)
			}
			pgType, ok := sqliteTypes[typ]
			if !ok {
				t.Fatalf("%s.%s has type %q, which the rules do not map", name, c, typ)
			}
			tb.Columns = append(tb.Columns, column(c, pgType, notNull))
		}
		cols.Close()

		idx, err := db.Query(`SELECT l.name, l."unique", l.partial,
				(SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_index_info(l.name) ORDER BY seqno))
			FROM pragma_index_list(?) AS l WHERE l.origin = 'c'`, name)
		if err != nil {
			t.Fatal(err)
		}
		for idx.Next() {
			var n, cols string
			var unique, partial bool
			if err := idx.Scan(&n, &unique, &partial, &cols); err != nil {
				t.Fatal(err)
			}
			if n == "tasks_search_trgm" {
				// the text index of tasks, SQLite's tasks_fts here
				// (00012_task_list.sql); there only with pg_trgm
				continue
			}
			tb.Indexes[n] = index(cols, unique, partial)
		}
		idx.Close()

		fks, err := db.Query(`SELECT "from", "table", "to", on_delete FROM pragma_foreign_key_list(?) ORDER BY "from"`, name)
		if err != nil {
			t.Fatal(err)
		}
		for fks.Next() {
			var from, to, col, onDelete string
			if err := fks.Scan(&from, &to, &col, &onDelete); err != nil {
				t.Fatal(err)
			}
			tb.Foreign = append(tb.Foreign, fmt.Sprintf("%s -> %s(%s) ON DELETE %s", from, to, col, onDelete))
		}
		fks.Close()
		sort.Strings(tb.Foreign)
		out[name] = tb
	}
	return out
}

func postgresSchema(t *testing.T, db *sql.DB) map[string]table {
	t.Helper()
	rows, err := db.Query(`SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'goose_db_version'`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]table{}
	for _, name := range scanStrings(t, rows) {
		tb := table{Indexes: map[string]string{}}
		if err := db.QueryRow(`SELECT count(*) FROM pg_constraint WHERE contype = 'c' AND conrelid = $1::regclass`, name).Scan(&tb.Checks); err != nil {
			t.Fatal(err)
		}
		cols, err := db.Query(`SELECT column_name, data_type, is_nullable = 'NO' FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, name)
		if err != nil {
			t.Fatal(err)
		}
		for cols.Next() {
			var c, typ string
			var notNull bool
			if err := cols.Scan(&c, &typ, &notNull); err != nil {
				t.Fatal(err)
			}
			tb.Columns = append(tb.Columns, column(c, typ, notNull))
		}
		cols.Close()

		// Indexes made by CREATE INDEX, not those behind a PRIMARY KEY or
		// UNIQUE constraint (SQLite's sqlite_autoindex_ ones).
		idx, err := db.Query(`SELECT i.relname, x.indisunique, x.indpred IS NOT NULL,
				(SELECT string_agg(a.attname, ',' ORDER BY k.ord)
				 FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
				 JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum)
			FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
			WHERE x.indrelid = $1::regclass
			  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype IN ('p', 'u', 'x'))`, name)
		if err != nil {
			t.Fatal(err)
		}
		for idx.Next() {
			var n, cols string
			var unique, partial bool
			if err := idx.Scan(&n, &unique, &partial, &cols); err != nil {
				t.Fatal(err)
			}
			if n == "tasks_search_trgm" {
				// the text index of tasks, SQLite's tasks_fts here
				// (00012_task_list.sql); there only with pg_trgm
				continue
			}
			tb.Indexes[n] = index(cols, unique, partial)
		}
		idx.Close()

		fks, err := db.Query(`SELECT a.attname, c.confrelid::regclass::text, b.attname,
				CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT'
					WHEN 'r' THEN 'RESTRICT' ELSE 'NO ACTION' END
			FROM pg_constraint c
			JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
			JOIN pg_attribute b ON b.attrelid = c.confrelid AND b.attnum = c.confkey[1]
			WHERE c.contype = 'f' AND c.conrelid = $1::regclass AND cardinality(c.conkey) = 1
			ORDER BY a.attname`, name)
		if err != nil {
			t.Fatal(err)
		}
		for fks.Next() {
			var from, to, col, onDelete string
			if err := fks.Scan(&from, &to, &col, &onDelete); err != nil {
				t.Fatal(err)
			}
			tb.Foreign = append(tb.Foreign, fmt.Sprintf("%s -> %s(%s) ON DELETE %s", from, to, col, onDelete))
		}
		fks.Close()
		for _, r := range triggerReferences {
			if r.table != name {
				continue
			}
			for _, tr := range []struct{ name, on string }{{r.check, r.table}, {r.checkUpdate, r.table}, {r.cascade, r.to}, {r.idKept, r.to}} {
				var n int
				if err := db.QueryRow(`SELECT count(*) FROM pg_trigger WHERE tgname = $1 AND tgrelid = $2::regclass AND NOT tgisinternal`,
					tr.name, tr.on).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != 1 {
					t.Errorf("%s.%s: no trigger %s on %s, which holds the reference on PostgreSQL", r.table, r.column, tr.name, tr.on)
				}
			}
			tb.Foreign = append(tb.Foreign, fmt.Sprintf("%s -> %s(id) ON DELETE CASCADE", r.column, r.to))
		}
		sort.Strings(tb.Foreign)
		out[name] = tb
	}
	return out
}

// triggerReferences are the references PostgreSQL holds with triggers
// rather than a FOREIGN KEY (00037_references_per_statement.sql): the
// check of a statement's new rows, of a changed reference, the cascade
// of a delete and the guard of the referenced id. postgresSchema reads
// each as the foreign key SQLite has, once all four triggers exist.
var triggerReferences = []struct {
	table, column, to                   string
	check, checkUpdate, cascade, idKept string
}{
	{"events", "owner_id", "people", "events_owner_ref", "events_owner_ref_update", "people_events_cascade", "people_events_id"},
	{"change_rows", "change_id", "changes", "change_rows_change_ref", "change_rows_change_ref_update", "changes_rows_cascade", "changes_rows_id"},
}

func column(name, typ string, notNull bool) string {
	if notNull {
		return name + " " + typ + " NOT NULL"
	}
	return name + " " + typ
}

func index(cols string, unique, partial bool) string {
	s := "(" + cols + ")"
	if unique {
		s = "UNIQUE " + s
	}
	if partial {
		s += " WHERE …"
	}
	return s
}

// TestUIDBytewise: on PostgreSQL an event's and a task's UID compare byte
// by byte, as SQLite's BINARY does (00038_uid_bytewise.sql).
func TestUIDBytewise(t *testing.T) {
	ctx := context.Background()
	pg := postgresDB(t)
	if _, err := provider(t, goose.DialectPostgres, pg, migrations.Postgres).Up(ctx); err != nil {
		t.Fatalf("PostgreSQL up: %v", err)
	}
	for _, table := range []string{"events", "tasks"} {
		var coll sql.NullString
		if err := pg.QueryRow(`SELECT collation_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'uid'`, table).Scan(&coll); err != nil {
			t.Fatal(err)
		}
		if coll.String != "C" {
			t.Errorf("%s.uid has collation %q, want C", table, coll.String)
		}
	}
}

// TestMadeUIDsMoved: 00039 moves a stored UID of the form a task made
// without one is written with ("t12@assistant") where the owner has that
// task 12, to the form the import keeps such an item under: a task's by
// the SHA-256 of its title (the same in both engines, and as computed
// here), an event's fixed; live and deleted rows alike, and nothing else
// (a task that is task 12 itself keeps t12@assistant). A client's object
// named as the server names another item moves aside, and the UIDs CalDAV
// keeps follow their items.
func TestMadeUIDsMoved(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db, p := engineDB(t, engine)
			if _, err := p.UpTo(ctx, 38); err != nil {
				t.Fatal(err)
			}
			exec(t, db, `INSERT INTO people (id, name, zone, created) VALUES (1, 'ann', 'Europe/Paris', 0)`)
			exec(t, db, `INSERT INTO tasks (id, owner_id, title, title_norm, created_at, updated_at, uid, deleted_at) VALUES
				(1, 1, 'Own one', 'own one', 0, '1970-01-01T00:00:00Z', NULL, NULL),
				(2, 1, 'Foreign 1', 'foreign 1', 0, '1970-01-01T00:00:00Z', 't1@assistant', NULL),
				(3, 1, 'Itself', 'itself', 0, '1970-01-01T00:00:00Z', 't3@assistant', NULL),
				(4, 1, 'Leading zero', 'leading zero', 0, '1970-01-01T00:00:00Z', 't01@assistant', NULL),
				(5, 1, 'Other', 'other', 0, '1970-01-01T00:00:00Z', 'x-t1@assistant', NULL),
				(6, 1, 'Letters', 'letters', 0, '1970-01-01T00:00:00Z', 't1x@assistant', NULL),
				(7, 1, 'No such task', 'no such task', 0, '1970-01-01T00:00:00Z', 't9@assistant', NULL),
				(8, 1, 'Gone é', 'gone é', 0, '1970-01-01T00:00:00Z', 't1@assistant', '1970-01-01T00:00:00Z')`)
			exec(t, db, `INSERT INTO events (id, owner_id, uid, title, start_local, end_local, tzid, start_at, end_at, first_at, created_at)
				VALUES (1, 1, 't1@assistant', 'Standup', '2026-10-05T09:00', '2026-10-05T09:15', 'Europe/Paris', 1791183600, 1791184500, 1791183600, 0),
				(2, 1, 't7@assistant', 'Not a made one', '2026-10-05T09:00', '2026-10-05T09:15', 'Europe/Paris', 1791183600, 1791184500, 1791183600, 0),
				(3, 1, 'u2', 'Other', '2026-10-05T09:00', '2026-10-05T09:15', 'Europe/Paris', 1791183600, 1791184500, 1791183600, 0)`)
			exec(t, db, `INSERT INTO dav_objects (owner_id, collection, name, uid, item_id) VALUES
				(1, 'tasks', 't9.ics', 'x-t1@assistant', 5),
				(1, 'tasks', 't5x.ics', 't1x@assistant', 6),
				(1, 'tasks', 't4.ics', 't01@assistant', 4),
				(1, 'tasks', 'phone.ics', 't1@assistant', 2),
				(1, 'events', 'e7.ics', 'u2', 3),
				(1, 'events', 'cal.ics', 't1@assistant', 1)`)
			if _, err := p.Up(ctx); err != nil {
				t.Fatal(err)
			}
			hash := func(title string) string {
				sum := sha256.Sum256([]byte(title))
				return hex.EncodeToString(sum[:4])
			}
			check := func(q string, want ...string) {
				t.Helper()
				rows, err := db.QueryContext(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if got := scanStrings(t, rows); !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n got %q\nwant %q", q, got, want)
				}
			}
			check(`SELECT coalesce(uid, '') FROM tasks ORDER BY id`, "", "t1."+hash("Foreign 1")+".imported@assistant", "t3@assistant",
				"t01@assistant", "x-t1@assistant", "t1x@assistant", "t9@assistant", "t1."+hash("Gone é")+".imported@assistant")
			check(`SELECT uid FROM events ORDER BY id`, "t1.imported@assistant", "t7@assistant", "u2")
			check(`SELECT collection || ' ' || name || ' ' || uid FROM dav_objects ORDER BY collection, item_id`,
				"events cal.ics t1.imported@assistant", "events e7-3.ics u2",
				"tasks phone.ics t1."+hash("Foreign 1")+".imported@assistant", "tasks t4.ics t01@assistant",
				"tasks t9-5.ics x-t1@assistant", "tasks t5x.ics t1x@assistant")
		})
	}
}
