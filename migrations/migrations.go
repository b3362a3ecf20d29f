// Package migrations holds the numbered SQL files that build the database
// schema, embedded into the binary so a database can be brought up to date
// wherever the binary runs. The files follow pressly/goose v3's SQL format
// (`-- +goose Up` / `-- +goose Down`) and are applied by package store.
//
// Numbering: 00001_core.sql belongs to the store (people, journal, keys,
// tokens, chat history); 00002_tasks.sql, 00003_events.sql and
// 00004_reminders.sql belong to the packages that own those tables. A file,
// once released, is never edited: change the schema with a new file.
package migrations

import "embed"

// FS is the set of migration files, named NNNNN_name.sql at its root.
//
//go:embed *.sql
var FS embed.FS
