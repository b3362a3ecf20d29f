package store

import (
	"context"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/assistant-dev/assistant/migrations"
	"github.com/assistant-dev/assistant/store/storetest"
)

// withMigrations runs the test with the embedded files plus extra ones.
func withMigrations(t *testing.T, extra map[string]string) {
	t.Helper()
	m := fstest.MapFS{}
	entries, err := fs.ReadDir(migrations.SQLite, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := fs.ReadFile(migrations.SQLite, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = &fstest.MapFile{Data: b}
	}
	for name, body := range extra {
		m[name] = &fstest.MapFile{Data: []byte(body)}
	}
	old := migrationFiles
	migrationFiles = m
	t.Cleanup(func() { migrationFiles = old })
}

func TestOpenFreshAndReopen(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "deep", "assistant")
	path := filepath.Join(dir, "assistant.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Current != st.Latest || st.Current < 1 || !st.Migrations[0].Applied || st.Migrations[0].Name != "00001_core.sql" {
		t.Fatalf("status after fresh open = %+v", st)
	}
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{{dir, 0o700}, {path, 0o600}} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != c.mode {
			t.Errorf("%s mode = %v, want %v", c.path, fi.Mode().Perm(), c.mode)
		}
	}
	var mode string
	if err := s.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
	for pragma, want := range map[string]int{"synchronous": 2, "foreign_keys": 1, "busy_timeout": 10000} {
		// Several connections, so the pragma is checked on pooled ones too.
		conns := make([]*sql.Conn, 3)
		for i := range conns {
			c, err := s.DB().Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns[i] = c
			var got int
			if err := c.QueryRowContext(ctx, `PRAGMA `+pragma).Scan(&got); err != nil || got != want {
				t.Errorf("connection %d: %s = %d (%v), want %d", i, pragma, got, err, want)
			}
		}
		for _, c := range conns {
			c.Close()
		}
	}
	if _, err := s.AddPerson(ctx, "alice", "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(ctx, path, &Options{NoMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 0 || res.Backup != "" || res.From != res.To {
		t.Fatalf("reopen migrated: %+v", res)
	}
	if baks, _ := filepath.Glob(path + "*.bak"); len(baks) != 0 {
		t.Fatalf("backups made with nothing to migrate: %v", baks)
	}
	if _, err := s.PersonByName(ctx, "alice"); err != nil {
		t.Fatalf("data lost on reopen: %v", err)
	}
}

func TestUpgradeBacksUpFirst(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "assistant.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddPerson(ctx, "alice", "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	st, _ := s.Status(ctx)
	s.Close()

	next := st.Latest + 1
	name := strings.Repeat("0", 5-len(itoa(next))) + itoa(next) + "_extra.sql"
	withMigrations(t, map[string]string{name: "-- +goose Up\nCREATE TABLE extra (id INTEGER PRIMARY KEY);\n-- +goose Down\nDROP TABLE extra;\n"})
	s, err = Open(ctx, path, &Options{NoMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, _ = s.Status(ctx)
	if st.Current != next-1 || st.Migrations[len(st.Migrations)-1].Applied {
		t.Fatalf("status before upgrade = %+v", st)
	}
	res, err := s.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantBak := path + ".v" + itoa(next-1) + ".bak"
	if res.Backup != wantBak || len(res.Applied) != 1 || res.Applied[0] != name || res.To != next {
		t.Fatalf("Migrate = %+v, want backup %s and %s applied", res, wantBak, name)
	}
	fi, err := os.Stat(wantBak)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup: %v, %v", fi, err)
	}
	bak, err := sql.Open("sqlite", "file:"+wantBak+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer bak.Close()
	var n int
	if err := bak.QueryRow(`SELECT count(*) FROM people WHERE name = 'alice'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("backup holds %d alice (%v)", n, err)
	}
	if err := bak.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'extra'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("backup was taken after migrating: %d (%v)", n, err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		path := storetest.Location(t)
		s, err := Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (999, true)`); err != nil {
			t.Fatal(err)
		}
		latest, _ := s.latestKnown()
		s.Close()
		for _, opts := range []*Options{nil, {NoMigrate: true}} {
			_, err = Open(ctx, path, opts)
			want := "has schema version 999 but this assistant knows versions up to " + itoa(latest) + "; it was written by a newer assistant"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Open(%+v) = %v, want %q", opts, err, want)
			}
		}
	})
}

func TestConcurrentFirstOpen(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		path := storetest.Location(t)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(ctx, path, nil)
				if err == nil {
					s.Close()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("open %d: %v", i, err)
			}
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
