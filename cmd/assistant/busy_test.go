package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCallWhileAnotherProgramWrites: `call` on a database file another
// program holds the write lock of, until the call's context ends, exits 7
// (run it again) with one sentence on standard error saying another
// writer held the file, and no log line; with --log-level debug the log's
// warning follows it.
func TestCallWhileAnotherProgramWrites(t *testing.T) {
	isolate(t)
	db := filepath.Join(t.TempDir(), "a.db")
	runArgs("--db", db, "person", "add", "ann", "--zone", "Europe/Paris").want(t, "person add", 0)
	release := holdWriteLock(t, db)
	for _, level := range []string{"info", "debug"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		r := runIn(ctx, strings.NewReader(""), "--db", db, "--person", "ann", "--log-level", level, "call", "add_task", "title=Blocked")
		cancel()
		r.want(t, level, exitUnavailable, "waited for another writer of the database “"+db+"”", "nothing of this call was kept; try again")
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if logged := strings.Contains(r.stderr, "level=WARN"); logged != (level == "debug") || level == "info" && len(lines) != 1 {
			t.Errorf("--log-level %s: standard error %q", level, r.stderr)
		}
		if strings.Contains(r.stderr, "ask for less") {
			t.Errorf("--log-level %s: a wait for another writer is told as a call asking too much: %q", level, r.stderr)
		}
	}
	release()
	r := runArgs("--db", db, "--person", "ann", "call", "list_tasks")
	r.want(t, "list after", 0, "No open tasks")
}

// TestRemindWhileAnotherProgramWrites: a reminders pass whose shared
// write finds the file held by another program past the busy timeout
// stops there, exit 7 with the one sentence, rather than trying each
// person alone (which waited the timeout again for every person).
func TestRemindWhileAnotherProgramWrites(t *testing.T) {
	isolate(t)
	db := filepath.Join(t.TempDir(), "a.db")
	t.Setenv("ASSISTANT_NOW", "2026-10-05T09:00:00+02:00")
	for _, p := range []string{"ann", "bob", "cy"} {
		runArgs("--db", db, "person", "add", p, "--zone", "Europe/Paris").want(t, "person add", 0)
	}
	runArgs("--db", db, "remind", "--once").want(t, "a first pass", 0)
	for _, p := range []string{"ann", "bob", "cy"} {
		runArgs("--db", db, "--person", p, "call", "add_task", "title=Pay "+p, "due=2026-10-06T12:00", "remind_at=2026-10-05T09:05").want(t, "add_task", 0)
	}
	t.Setenv("ASSISTANT_NOW", "2026-10-05T09:06:00+02:00")
	release := holdWriteLock(t, db)
	r := runArgs("--db", db, "remind", "--once")
	r.want(t, "remind while held", exitUnavailable, "held it longer than the 10 seconds a write waits for it")
	if n := strings.Count(r.stderr, "reminders pass failed for a person"); n != 0 || strings.Contains(r.stderr, "reminders pass done") {
		t.Errorf("the pass went on person by person (%d failures logged), or said it was done:\n%s", n, r.stderr)
	}
	release()
	r = runArgs("--db", db, "remind", "--once")
	r.want(t, "remind after", 0)
	if n := strings.Count(r.out, `"kind":"reminder"`); n != 3 {
		t.Errorf("the pass after the lock sent %d reminders, want 3:\n%s", n, r.out)
	}
}

// holdWriteLock takes the write lock of the SQLite file db as another
// program would (its own connection inside BEGIN IMMEDIATE) until release
// is called, or the test ends.
func holdWriteLock(t *testing.T, db string) (release func()) {
	t.Helper()
	other, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	}
}
