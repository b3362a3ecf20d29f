// Package migrations holds the numbered SQL files that build the database
// schema, embedded into the binary so a database can be brought up to date
// wherever the binary runs. The files follow pressly/goose v3's SQL format
// (`-- +goose Up` / `-- +goose Down`) and are applied by package store.
//
// There is one numbered history and one folder per engine: sqlite/ for the
// embedded default and postgres/ for PostgreSQL. Both folders hold the same
// version numbers with the same meaning (00003 makes the events tables in
// both), written in each engine's SQL, so a database of either engine at
// version N has the same tables, columns and rules.
//
// Numbering: 00001_core.sql belongs to the store (people, journal, keys,
// tokens, chat history); 00002_tasks.sql, 00003_events.sql and
// 00004_reminders.sql belong to the packages that own those tables. A file,
// once released, is never edited: change the schema with a new file, in
// both folders.
package migrations

import (
	"crypto/sha256"
	"database/sql/driver"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"

	"modernc.org/sqlite"
)

func init() {
	// sqlite/00039_made_uids.sql names a task by the SHA-256 of its title,
	// which SQLite has no function for; PostgreSQL has sha256().
	sqlite.MustRegisterDeterministicScalarFunction("assistant_sha256_hex8", 1, sha256Hex8)
}

// sha256Hex8 is assistant_sha256_hex8(text): the first 8 hexadecimal
// digits of the SHA-256 of the text's UTF-8 bytes (of "" for NULL), as
// ics.importedUID computes them.
func sha256Hex8(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	var b []byte
	switch v := args[0].(type) {
	case nil:
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return nil, fmt.Errorf("assistant_sha256_hex8 takes text, not %T", v)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:4]), nil
}

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// SQLite is the SQLite history, files named NNNNN_name.sql at its root.
var SQLite = sub("sqlite")

// Postgres is the PostgreSQL history, with the same numbers as [SQLite].
var Postgres = sub("postgres")

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		panic(err)
	}
	return f
}
