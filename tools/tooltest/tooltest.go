// Package tooltest is the setup tool tests share: a real store (a SQLite
// file in t.TempDir(), or a PostgreSQL database in a subtest named
// "postgres", as [storetest.LocationFrom] gives), people in IANA zones, a
// clock the test moves, and calls made through a Registry as a host makes
// them. Only _test.go files import it; it calls t.Fatal, which has no
// place in a running program.
package tooltest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/migrations"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Env is one test's store, registry and clock. Now is read afresh by the
// store and by every ToolContext the Env makes, so a test moves time by
// setting it (or with At) between calls.
type Env struct {
	Ctx   context.Context
	Store *store.Store
	Reg   *tools.Registry
	Now   time.Time
	Path  string // the store's location (file path or DSN), for a second handle on it
	t     testing.TB
}

// Open opens a new store at [storetest.LocationFrom] of t (a SQLite file
// "assistant.db" in t.TempDir(), or a new PostgreSQL database, a copy of
// one already migrated, when t runs on that engine, as in a subtest of
// [storetest.Engines]; closed when the test ends) whose clock is the
// Env's Now, starting at now, and a Registry holding the tools of every
// register given (each a package's Register). A store that will not open
// fails the test.
func Open(t testing.TB, now time.Time, register ...func(*tools.Registry)) *Env {
	t.Helper()
	e := &Env{Ctx: context.Background(), Reg: tools.NewRegistry(), Now: now, Path: Location(t), t: t}
	s, err := store.Open(e.Ctx, e.Path, &store.Options{Now: func() time.Time { return e.Now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e.Store = s
	for _, r := range register {
		r(e.Reg)
	}
	return e
}

// Migrated is the template of the PostgreSQL databases Open makes: an
// empty one that store.Open brought up to date, for as long as the
// migration files stay the same. Suites that open a store of their own
// ([Location]) share it, so the server keeps one such template.
var Migrated = storetest.Template{
	Key: "store.Open on an empty database, migrations " + storetest.HashFS(migrations.Postgres),
	Prepare: func(ctx context.Context, dsn string) error {
		s, err := store.Open(ctx, dsn, nil)
		if err != nil {
			return err
		}
		return s.Close()
	},
}

// Location is a fresh database for t's engine ([storetest.Engine]): a
// SQLite path in t.TempDir(), or a copy of [Migrated] on the
// ASSISTANT_TEST_POSTGRES server, dropped when t ends.
func Location(t testing.TB) string { return storetest.LocationFrom(t, Migrated) }

// Person returns the person called name, adding them in zone (an IANA
// name such as "Europe/Paris") if the store has no one of that name; an
// existing person keeps their stored zone. A refused name or zone fails
// the test.
func (e *Env) Person(name, zone string) tools.Person {
	e.t.Helper()
	p, err := e.Store.EnsurePerson(e.Ctx, name, zone)
	if err != nil {
		e.t.Fatal(err)
	}
	return tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)}
}

// At sets Now to civil ("2026-10-05T09:00") read as a wall-clock time in
// zone, a time in a DST gap moved forward as RFC 5545 §3.3.5 says. A bad
// civil time or zone is a mistake in the test and panics.
func (e *Env) At(zone, civil string) {
	dt, err := tz.ParseDateTime(civil)
	if err != nil {
		panic(err)
	}
	e.Now, _ = tz.MustZone(zone).Instant(dt)
}

// Context is what a host puts in for a call as who: the person, the
// Env's store, and a Clock reading the Env's Now.
func (e *Env) Context(who tools.Person) *tools.ToolContext {
	tc := &tools.ToolContext{}
	tools.Insert(tc, who)
	tools.Insert(tc, e.Store)
	tools.Insert(tc, tools.Clock(func() time.Time { return e.Now }))
	return tc
}

// Call runs tool with the raw JSON arguments as who through the Registry,
// as a front does, and returns the result and the ToolContext after the
// call (with what the tool attached, such as tools.Changed).
func (e *Env) Call(who tools.Person, tool, raw string) (tools.ExecResult, *tools.ToolContext) {
	return e.Reg.Call(e.Ctx, e.Context(who), tool, []byte(raw))
}

// Golden compares got with the file testdata/name of the package under
// test, or writes got there when update is set (the package's -update
// flag). A missing file fails the test at once; a difference is reported
// and the test goes on. Text that is not valid UTF-8 (a rune cut in half
// by the test that built it) fails the test before anything is written.
func Golden(t testing.TB, name, got string, update bool) {
	t.Helper()
	if !utf8.ValidString(got) {
		t.Fatalf("%s: the text is not valid UTF-8; cut long values on a rune boundary", name)
	}
	path := filepath.Join("testdata", name)
	if update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run the test with -update to accept got):\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}
