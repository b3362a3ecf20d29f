package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/assistant-dev/assistant/migrations"
)

// versionTable is goose's bookkeeping table (its default name).
const versionTable = "goose_db_version"

// Migration is one schema file and whether this database has it.
type Migration struct {
	Version   int64     // from the file name, 00001_core.sql → 1
	Name      string    // file name, "00001_core.sql"
	Applied   bool      // recorded in the database
	AppliedAt time.Time // UTC; zero when pending
}

// SchemaStatus is what `assistant migrate status` shows.
type SchemaStatus struct {
	Path       string      // the database file
	Current    int64       // highest applied version, 0 for a new file
	Latest     int64       // highest version this binary knows
	Migrations []Migration // every known file, in version order
}

// MigrateResult says what Migrate did.
type MigrateResult struct {
	From, To int64    // schema versions before and after
	Applied  []string // file names applied, in order; empty when up to date
	Backup   string   // path of the copy made before migrating; "" when none was needed
}

// migrationFiles is the schema source; tests swap in a longer list to
// exercise upgrades.
var migrationFiles fs.FS = migrations.SQLite

// pgMigrationFiles is the PostgreSQL history, with the same numbers.
var pgMigrationFiles fs.FS = migrations.Postgres

func (s *Store) provider() (*goose.Provider, error) {
	dialect, files := goose.DialectSQLite3, migrationFiles
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	if s.engine == Postgres {
		dialect, files = goose.DialectPostgres, pgMigrationFiles
		// Processes that start together migrate once: goose holds a
		// session advisory lock while it reads and applies versions.
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 120), lock.WithLockID(s.migrateLock))
		if err != nil {
			return nil, err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, s.db, files, opts...)
	if err != nil {
		return nil, fmt.Errorf("the embedded migrations cannot be read (%v); this binary is broken, rebuild it", err)
	}
	return p, nil
}

// latestKnown is the highest migration version embedded in this binary.
func (s *Store) latestKnown() (int64, error) {
	p, err := s.provider()
	if err != nil {
		return 0, err
	}
	var max int64
	for _, src := range p.ListSources() {
		max = maxInt(max, src.Version)
	}
	return max, nil
}

// dbVersion reads the highest applied version straight from goose's table
// without creating it, so that looking never writes.
func (s *Store) dbVersion(ctx context.Context) (int64, error) {
	var n int
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`
	if s.engine == Postgres {
		q = `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?`
	}
	err := s.db.QueryRowContext(ctx, q, versionTable).Scan(&n)
	if err != nil || n == 0 {
		return 0, err
	}
	var v sql.NullInt64
	err = s.db.QueryRowContext(ctx,
		`SELECT max(version_id) FROM `+versionTable+` WHERE is_applied`).Scan(&v)
	return v.Int64, err
}

// checkVersion refuses a database written by a newer binary: its tables
// may mean things this code does not know, and writing to them could
// corrupt data the newer version relies on.
func (s *Store) checkVersion(ctx context.Context) error {
	cur, err := s.dbVersion(ctx)
	if err != nil {
		return fmt.Errorf("cannot read the schema version of “%s”: %w", s.path, err)
	}
	latest, err := s.latestKnown()
	if err != nil {
		return err
	}
	if cur > latest {
		return fmt.Errorf("the database “%s” has schema version %d but this assistant knows versions up to %d; it was written by a newer assistant, so run that version (or restore a backup made before the upgrade)", s.path, cur, latest)
	}
	return nil
}

// Status reports the schema version of the database and of this binary,
// and each migration's state. It applies nothing.
func (s *Store) Status(ctx context.Context) (SchemaStatus, error) {
	st := SchemaStatus{Path: s.path}
	p, err := s.provider()
	if err != nil {
		return st, err
	}
	cur, err := s.dbVersion(ctx)
	if err != nil {
		return st, fmt.Errorf("cannot read the schema version of “%s”: %w", s.path, err)
	}
	st.Current = cur
	applied := map[int64]time.Time{}
	if cur > 0 {
		rows, err := s.db.QueryContext(ctx,
			`SELECT version_id, tstamp FROM `+versionTable+` WHERE is_applied AND version_id > 0`)
		if err != nil {
			return st, fmt.Errorf("cannot read the applied migrations of “%s”: %w", s.path, err)
		}
		defer rows.Close()
		for rows.Next() {
			var v int64
			var ts any
			if err := rows.Scan(&v, &ts); err != nil {
				return st, err
			}
			applied[v] = asTime(ts)
		}
		if err := rows.Err(); err != nil {
			return st, err
		}
	}
	for _, src := range p.ListSources() {
		at, ok := applied[src.Version]
		st.Migrations = append(st.Migrations, Migration{
			Version: src.Version, Name: filepath.Base(src.Path), Applied: ok, AppliedAt: at,
		})
		st.Latest = maxInt(st.Latest, src.Version)
	}
	return st, nil
}

// asTime reads goose's tstamp column, which the driver may hand back as a
// time.Time (DATETIME-typed column) or as text.
func asTime(v any) time.Time {
	switch t := v.(type) {
	case time.Time:
		return t.UTC()
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05"} {
			if p, err := time.Parse(layout, t); err == nil {
				return p.UTC()
			}
		}
	}
	return time.Time{}
}

// Migrate applies every pending migration. On PostgreSQL, every version
// is applied in a transaction of its own under goose's session lock, so
// processes that start together migrate once, and no copy is made (see
// [Open]). On SQLite, before touching a database that
// already holds tables, it writes a full copy next to it with VACUUM INTO,
// named after the version it had (assistant.db.v3.bak), so an upgrade that
// goes wrong never loses data. Another process migrating the same file at
// the same time is tolerated: if our attempt fails but the file ends up at
// the latest version, that is success.
func (s *Store) Migrate(ctx context.Context) (MigrateResult, error) {
	var res MigrateResult
	if err := s.checkVersion(ctx); err != nil {
		return res, err
	}
	p, err := s.provider()
	if err != nil {
		return res, err
	}
	from, err := s.dbVersion(ctx)
	if err != nil {
		return res, fmt.Errorf("cannot read the schema version of “%s”: %w", s.path, err)
	}
	res.From, res.To = from, from
	latest, err := s.latestKnown()
	if err != nil {
		return res, err
	}
	if from >= latest {
		return res, s.backfillRemindBounds(ctx)
	}
	var tables int
	if s.engine == SQLite {
		if err := s.db.QueryRowContext(ctx,
			`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT IN (?, 'sqlite_sequence')`,
			versionTable).Scan(&tables); err != nil {
			return res, fmt.Errorf("cannot look into “%s”: %w", s.path, err)
		}
	}
	// PostgreSQL gets no copy: each migration is one transaction there,
	// so one that fails leaves the schema as it was; the server's own
	// backups (pg_dump, replicas) stand for the rest.
	if tables > 0 {
		b, err := s.backup(ctx, from)
		if err != nil {
			return res, err
		}
		res.Backup = b
	}
	// Another process opening the same new file may be migrating it too:
	// our attempt then fails on a table it just made. Trying again a few
	// times, goose sees its versions recorded and does nothing.
	var upErr error
	var to int64
	for attempt := 1; ; attempt++ {
		var results []*goose.MigrationResult
		results, upErr = p.Up(ctx)
		for _, r := range results {
			if r.Error == nil && r.Source != nil {
				res.Applied = append(res.Applied, filepath.Base(r.Source.Path))
			}
		}
		to, err = s.dbVersion(ctx)
		if err != nil {
			return res, fmt.Errorf("cannot read the schema version of “%s” after migrating: %w", s.path, err)
		}
		if upErr == nil || to >= latest || attempt == 5 {
			break
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		}
	}
	res.To = to
	if upErr != nil && to < latest {
		var pe *goose.PartialError
		if errors.As(upErr, &pe) && pe.Failed != nil && pe.Failed.Source != nil {
			if res.Backup == "" { // PostgreSQL: the failed migration's transaction left nothing
				return res, fmt.Errorf("migration %s failed on “%s” (%w); the database stays at version %d, as it was before that migration", filepath.Base(pe.Failed.Source.Path), s.path, pe.Err, to)
			}
			return res, fmt.Errorf("migration %s failed on “%s” (%w); the database stays at version %d and a copy from before is at “%s”", filepath.Base(pe.Failed.Source.Path), s.path, pe.Err, to, res.Backup)
		}
		return res, fmt.Errorf("migrating “%s” failed (%w); the database stays at version %d", s.path, upErr, to)
	}
	if len(res.Applied) > 0 {
		// Rows older than 00012_task_list get the columns list_tasks reads.
		if err := s.deriveOld(ctx); err != nil {
			return res, err
		}
	}
	if to >= 14 {
		// Rows written before migration 00014 get their reminder bounds.
		return res, s.backfillRemindBounds(ctx)
	}
	return res, nil
}

// backup writes a consistent copy of the database (VACUUM INTO reads one
// snapshot) next to it; the name carries the schema version, and a
// timestamp when a copy of that version already exists.
func (s *Store) backup(ctx context.Context, version int64) (string, error) {
	base := s.path + ".v" + strconv.FormatInt(version, 10)
	names := []string{
		base + ".bak",
		base + "." + s.now().Format("20060102T150405Z") + ".bak",
	}
	// Another process opening the same file may be writing a copy of the
	// same name at this moment (VACUUM INTO refuses a file that exists):
	// the last name is this call's own.
	names = append(names, base+"."+s.now().Format("20060102T150405Z")+"."+strconv.FormatUint(uint64(rand.Uint32()), 36)+".bak")
	var err error
	for i, name := range names {
		if _, serr := os.Stat(name); serr == nil && i < len(names)-1 {
			continue
		}
		if _, err = s.db.ExecContext(ctx, `VACUUM INTO ?`, name); err != nil {
			if _, serr := os.Stat(name); serr == nil && i < len(names)-1 {
				continue // made meanwhile by another process
			}
			return "", fmt.Errorf("cannot write the copy “%s” made before migrating, so nothing was migrated: %w", name, err)
		}
		if err := os.Chmod(name, 0o600); err != nil {
			return "", fmt.Errorf("cannot make the copy “%s” private: %v", name, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("cannot write a copy of “%s” made before migrating, so nothing was migrated: %w", s.path, err)
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
