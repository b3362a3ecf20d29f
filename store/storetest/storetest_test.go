package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
)

func TestEngineFollowsTheSubtestName(t *testing.T) {
	if got := Engine(t); got != SQLite {
		t.Errorf("Engine in %s = %q, want sqlite", t.Name(), got)
	}
	for name, want := range map[string]string{
		"sqlite":       SQLite,
		"postgres":     Postgres,
		"postgresql":   SQLite,
		"x_postgres":   SQLite,
		"postgres_x":   SQLite,
		"a_postgres_b": SQLite,
	} {
		t.Run(name, func(t *testing.T) {
			if got := Engine(t); got != want {
				t.Errorf("Engine in %s = %q, want %q", t.Name(), got, want)
			}
			t.Run("deeper", func(t *testing.T) {
				if got := Engine(t); got != want {
					t.Errorf("Engine in %s = %q, want %q", t.Name(), got, want)
				}
			})
		})
	}
}

func TestEnginesRunsTheBodyOncePerEngine(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	Engines(t, func(t *testing.T) {
		t.Parallel()
		mu.Lock()
		ran = append(ran, t.Name()+"="+Engine(t))
		mu.Unlock()
	})
	t.Cleanup(func() {
		// The parallel subtests have finished when the parent's cleanups run.
		want := []string{t.Name() + "/sqlite=sqlite"}
		if os.Getenv(EnvPostgres) != "" {
			want = append(want, t.Name()+"/postgres=postgres")
		}
		sort.Strings(ran)
		sort.Strings(want)
		if strings.Join(ran, " ") != strings.Join(want, " ") {
			t.Errorf("the body ran as %q, want %q", ran, want)
		}
	})
}

func TestLocationSQLiteIsANewFileInTheTestsFolder(t *testing.T) {
	t.Parallel()
	a, b := Location(t), Location(t)
	if a == b {
		t.Fatalf("two calls gave the same path %s", a)
	}
	for _, p := range []string{a, b} {
		if filepath.Base(p) != "assistant.db" {
			t.Errorf("path %s is not named assistant.db", p)
		}
		if fi, err := os.Stat(filepath.Dir(p)); err != nil || !fi.IsDir() {
			t.Errorf("the folder of %s does not exist: %v", p, err)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists already (%v)", p, err)
		}
	}
}

// fakeTB is a testing.TB whose Skip and Fatal are recorded instead of
// ending the test; like the real ones they end the goroutine that calls
// them.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Skip(args ...any) {
	f.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatal(args ...any) {
	f.failed = fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls fn with f on a goroutine of its own and waits for it to end.
func (f *fakeTB) run(fn func(testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
}

func TestWithoutTheVariableThePostgresHalfSkipsOrFailsInCI(t *testing.T) {
	t.Setenv(EnvPostgres, "")
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		f := &fakeTB{TB: t}
		f.run(func(tb testing.TB) { PostgresDSN(tb) })
		msg := f.skipped
		if ci == "true" {
			msg = f.failed
			if f.skipped != "" {
				t.Errorf("with CI=true it skipped (%s), want a failure", f.skipped)
			}
		} else if f.failed != "" {
			t.Errorf("without CI it failed (%s), want a skip", f.failed)
		}
		if !strings.Contains(msg, EnvPostgres) || !strings.Contains(msg, "scripts/pg.sh") {
			t.Errorf("CI=%q: the message %q does not name %s and scripts/pg.sh", ci, msg, EnvPostgres)
		}
	}
}

func TestABadServerValueFails(t *testing.T) {
	t.Setenv("CI", "")
	for _, dsn := range []string{"host=localhost dbname=postgres", "mysql://x@localhost/db", "/tmp/assistant.db"} {
		t.Setenv(EnvPostgres, dsn)
		f := &fakeTB{TB: t}
		f.run(func(tb testing.TB) { PostgresDSN(tb) })
		if !strings.Contains(f.failed, "postgres://") {
			t.Errorf("%s=%q: got failure %q skip %q, want a failure saying it takes a postgres:// URL", EnvPostgres, dsn, f.failed, f.skipped)
		}
	}
}

func TestLocationPostgresIsAFreshDatabaseDroppedAtTheEnd(t *testing.T) {
	server := PostgresDSN(t)
	ctx := context.Background()
	var made []string
	t.Run(Postgres, func(t *testing.T) {
		a, b := Location(t), Location(t)
		if a == b {
			t.Fatalf("two calls gave the same database %s", a)
		}
		for i, dsn := range []string{a, b} {
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatalf("connect to %s: %v", dsn, err)
			}
			var name string
			var tables int
			if err := conn.QueryRow(ctx, "SELECT current_database(), (SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema'))").Scan(&name, &tables); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(name, "t_") || len(name) != 18 || !strings.Contains(dsn, "/"+name+"?") {
				t.Errorf("database %q of %s is not t_ and 16 hex digits, or not the DSN's path", name, dsn)
			}
			if tables != 0 {
				t.Errorf("database %s has %d tables, want none", name, tables)
			}
			// A table made in the first is not seen in the second.
			if i == 0 {
				if _, err := conn.Exec(ctx, "CREATE TABLE mine (x int)"); err != nil {
					t.Fatal(err)
				}
			}
			made = append(made, name)
			// Left open: the drop at the end forces it closed.
			t.Cleanup(func() { conn.Close(context.Background()) })
		}
	})
	if len(made) != 2 {
		t.Fatalf("made %d databases, want 2", len(made))
	}
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1 OR datname = $2", made[0], made[1]).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d of the databases %v are left after their test ended", left, made)
	}
}

func TestPostgresDatabasesInParallel(t *testing.T) {
	PostgresDSN(t)
	for i := range 8 {
		t.Run(Postgres+"/"+string(rune('a'+i)), func(t *testing.T) {
			t.Parallel()
			conn, err := pgx.Connect(context.Background(), Location(t))
			if err != nil {
				t.Fatal(err)
			}
			conn.Close(context.Background())
		})
	}
}

func TestLocationFromCopiesOneTemplate(t *testing.T) {
	server := PostgresDSN(t)
	ctx := context.Background()
	// A key of this run only, so Prepare runs here; its template is
	// dropped at the end.
	key := "storetest self-test " + randomHex(t, 8)
	sum := sha256.Sum256([]byte(key))
	tplName := "t_tpl_" + hex.EncodeToString(sum[:8])
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	t.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+tplName); err != nil {
			t.Errorf("dropping the template: %v", err)
		}
	})
	var prepared atomic.Int32
	tpl := Template{Key: key, Prepare: func(ctx context.Context, dsn string) error {
		prepared.Add(1)
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "CREATE TABLE marker (x int); INSERT INTO marker VALUES (7)")
		return err
	}}
	var mu sync.Mutex
	seen := map[string]bool{}
	t.Run("all", func(t *testing.T) {
		for i := range 6 {
			t.Run(Postgres+"/"+string(rune('a'+i)), func(t *testing.T) {
				t.Parallel()
				dsn := LocationFrom(t, tpl)
				conn, err := pgx.Connect(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				var name string
				var x int
				if err := conn.QueryRow(ctx, "SELECT current_database(), (SELECT x FROM marker)").Scan(&name, &x); err != nil || x != 7 {
					t.Errorf("%s: marker %d, %v; want the template's 7", dsn, x, err)
				}
				mu.Lock()
				if seen[name] {
					t.Errorf("database %s given twice", name)
				}
				seen[name] = true
				mu.Unlock()
			})
		}
	})
	if n := prepared.Load(); n != 1 {
		t.Errorf("Prepare ran %d times, want once", n)
	}
	var allow bool
	if err := admin.QueryRow(ctx, "SELECT datallowconn FROM pg_database WHERE datname = $1", tplName).Scan(&allow); err != nil || allow {
		t.Errorf("template %s: allows connections %v (%v), want a template closed to them", tplName, allow, err)
	}
	var left int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname LIKE $1", tplName+"_%").Scan(&left); err != nil || left != 0 {
		t.Errorf("%d half-made templates left (%v)", left, err)
	}
	t.Run("sqlite", func(t *testing.T) {
		if p := LocationFrom(t, tpl); filepath.Base(p) != "assistant.db" {
			t.Errorf("LocationFrom on sqlite = %s, want a new file path", p)
		}
	})
}

func TestHashFSFollowsNamesAndContents(t *testing.T) {
	a := HashFS(fstest.MapFS{"1.sql": {Data: []byte("x")}})
	for _, other := range []fstest.MapFS{
		{"1.sql": {Data: []byte("y")}},
		{"2.sql": {Data: []byte("x")}},
		{"1.sql": {Data: []byte("x")}, "2.sql": {Data: []byte("")}},
	} {
		if HashFS(other) == a {
			t.Errorf("HashFS(%v) is the same as for another set of files", other)
		}
	}
	if HashFS(fstest.MapFS{"1.sql": {Data: []byte("x")}}) != a {
		t.Error("HashFS differs for the same files")
	}
}

// Only tests and the test helpers tooltest and eventseed (the scale
// benchmarks' seeding) may import this package: it skips and fails tests,
// which a running program has no business doing.
func TestOnlyTestsImportIt(t *testing.T) {
	const self = "github.com/assistant-dev/assistant/store/storetest"
	root := filepath.Join("..", "..")
	helpers := []string{
		filepath.Join(root, "tools", "tooltest", "tooltest.go"),
		filepath.Join(root, "tools", "events", "eventseed", "eventseed.go"),
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || slices.Contains(helpers, path) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == self {
				t.Errorf("%s imports %s; only _test.go files, tooltest and eventseed may", path, self)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
