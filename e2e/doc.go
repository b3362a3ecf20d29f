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
package e2e
