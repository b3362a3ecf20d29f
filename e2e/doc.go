// Package e2e holds the tests that run the assistant binary as a person,
// a desktop client or cron would: the command line and its exit codes, the
// chat against scripted OpenAI-compatible servers (also on a terminal),
// `assistant mcp` over stdio and HTTP, `assistant remind` (with a binary
// built with -tags remindcrash to stop it between sending and marking),
// the docs' quick starts and example sessions, and goldens of what crosses
// each wire (testdata/wire/*.txtar).
//
// The binary is built once per run, or taken from ASSISTANT_BINARY (and
// ASSISTANT_REMINDCRASH_BINARY), which scripts/test.sh sets. Run with
// -update to rewrite the goldens from what the binary says now.
//
// A test that opens a database runs on both engines, as the subtests
// "sqlite" and "postgres" of store/storetest's Engines: on SQLite the
// binary takes its default path (or ASSISTANT_DB), on PostgreSQL every run
// gets --db and a fresh database on the server of ASSISTANT_TEST_POSTGRES
// (see newHome and newMCPHome, which also fail a postgres test whose runs
// made a SQLite file). Tests about SQLite files themselves (file modes,
// read-only files, a full disk, corrupt files, the default path and the
// settings that choose it) and those that open no database (help, usage
// errors, flags) run once, on SQLite; tests of several processes on one
// database and of a database server gone away run on PostgreSQL only.
package e2e
