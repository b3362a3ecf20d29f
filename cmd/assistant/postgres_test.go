package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
)

// ran is what one run of the command line gave.
type ran struct {
	code        int
	out, stderr string
}

// lockedBuffer is a bytes.Buffer safe for a command writing to it while
// the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runIn runs argv as the binary would, in this process, with stdin, until
// ctx ends it.
func runIn(ctx context.Context, stdin io.Reader, argv ...string) ran {
	var out, errb lockedBuffer
	a := newApp(stdin, &out, &errb)
	code := execute(ctx, a, newRootCmd(a), argv, stdin, &out, &errb)
	return ran{code, out.String(), errb.String()}
}

func runArgs(argv ...string) ran { return runIn(context.Background(), strings.NewReader(""), argv...) }

// isolate gives the test a home, config and data folder of its own and
// clears the variables that would choose another database or person.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("USER", "me")
	t.Setenv("TZ", "UTC")
	for _, v := range []string{envDB, envPerson, envTZ, envNow, envConfig, envLog, "PGPASSWORD", "PGPASSFILE"} {
		t.Setenv(v, "")
	}
	return dir
}

// want fails t unless r ended with code and its standard error holds
// every one of parts.
func (r ran) want(t *testing.T, what string, code int, parts ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", what, r.code, code, r.out, r.stderr)
		return
	}
	for _, p := range parts {
		if !strings.Contains(r.out+r.stderr, p) {
			t.Errorf("%s: the output lacks %q\nstdout: %s\nstderr: %s", what, p, r.out, r.stderr)
		}
	}
}

// said is what r's standard error tells the person: its lines without
// the log's ("time=…", which keep the engine's own words for whoever
// debugs).
func (r ran) said() []string {
	var said []string
	for _, line := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
		if !strings.HasPrefix(line, "time=") && line != "" {
			said = append(said, line)
		}
	}
	return said
}

// oneSentence fails t unless r tells the person one line "assistant: …".
func (r ran) oneSentence(t *testing.T, what string) {
	t.Helper()
	if said := r.said(); len(said) != 1 || !strings.HasPrefix(said[0], "assistant: ") {
		t.Errorf("%s: stderr is not one sentence:\n%s", what, r.stderr)
	}
}

// The database's location reaches store.Open as it was given, from --db,
// ASSISTANT_DB or the config file, on both engines: a PostgreSQL URL opens
// PostgreSQL (nothing named “postgres:” appears in the working folder), a
// path or a file: URL the same SQLite file.
func TestDBLocationReachesStore(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		dir := isolate(t)
		work := filepath.Join(dir, "work")
		if err := os.Mkdir(work, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Chdir(work)
		loc := storetest.Location(t)
		other := loc // the same database, written another way
		if storetest.Engine(t) == storetest.SQLite {
			other = "file:" + loc
		}
		runArgs("--db", loc, "call", "add_task", "title=by flag").want(t, "--db", 0, "by flag")

		t.Setenv(envDB, other)
		runArgs("call", "add_task", "title=by variable").want(t, envDB, 0, "by variable")
		t.Setenv(envDB, "")

		conf := filepath.Join(dir, "config", "assistant", "config.toml")
		if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(conf, []byte(fmt.Sprintf("db = %q\n", loc)), 0o600); err != nil {
			t.Fatal(err)
		}
		runArgs("call", "list_tasks").want(t, "config db", 0, "by flag", "by variable")

		entries, _ := os.ReadDir(work)
		if len(entries) != 0 {
			t.Errorf("the working folder has %v; nothing belongs there", entries)
		}
		st, err := store.Open(context.Background(), loc, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if got := string(st.Engine()); got != storetest.Engine(t) {
			t.Errorf("the location opened %s, want %s", got, storetest.Engine(t))
		}
	})
}

// A location of another scheme is a wrong setting (exit 10) in one
// sentence naming where it came from, without its password, and nothing
// is made for it.
func TestDBOtherSchemeRefused(t *testing.T) {
	dir := isolate(t)
	t.Chdir(dir)
	loc := "mysql://ann:s3cret-pw@db.example/assistant"
	check := func(what, from string, r ran) {
		t.Helper()
		r.want(t, what, exitConfig, from+" is wrong", "uses mysql://", "postgres:// URL for PostgreSQL", "mysql://ann:xxxxx@db.example/assistant")
		r.oneSentence(t, what)
		if strings.Contains(r.stderr, "s3cret-pw") {
			t.Errorf("%s: the password is shown: %s", what, r.stderr)
		}
	}
	check("--db", "“--db”", runArgs("--db", loc, "call", "list_tasks"))
	check("--db with version", "“--db”", runArgs("--db", loc, "version"))
	t.Setenv(envDB, loc)
	check(envDB, envDB, runArgs("person", "list"))
	t.Setenv(envDB, "")
	conf := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("db = %q\n", loc)), 0o600); err != nil {
		t.Fatal(err)
	}
	check("config", "“db” in the config file “"+conf+"”", runArgs("--config", conf, "migrate", "status"))
	for _, bad := range []string{"mysql:", "mysql"} {
		if _, err := os.Stat(filepath.Join(dir, bad)); err == nil {
			t.Errorf("a %q was made in the working folder", bad)
		}
	}
}

// An empty --db (or config db) and a PostgreSQL scheme without its
// slashes are wrong settings (exit 10), not a file path: nothing is made
// in the working folder.
func TestDBEmptyOrHalfURLRefused(t *testing.T) {
	dir := isolate(t)
	t.Chdir(dir)
	r := runArgs("--db", "", "call", "list_tasks")
	r.want(t, "--db ''", exitConfig, "“--db” is empty", "leave it out for the default database")
	r.oneSentence(t, "--db ''")
	conf := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(conf, []byte("db = \"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runArgs("--config", conf, "person", "list")
	r.want(t, "config db = \"\"", exitConfig, "“db” in the config file", "is empty")
	for _, half := range []string{"postgres:/a1", "postgresql:a1"} {
		r = runArgs("--db", half, "call", "list_tasks")
		r.want(t, half, exitConfig, "“--db” is wrong", "but not postgres")
	}
	if _, err := os.Stat(filepath.Join(dir, "postgres:")); err == nil {
		t.Errorf("a folder “postgres:” was made in the working folder")
	}
	if _, err := os.Stat(filepath.Join(dir, "postgresql:a1")); err == nil {
		t.Errorf("a file “postgresql:a1” was made in the working folder")
	}
}

// A PostgreSQL server that cannot be used stops every command with one
// sentence saying what to do and exit 8 (exitDatabase): nothing listens
// at the port, the password is wrong or missing, the database does not
// exist, the role may not change its tables. No password is ever shown.
func TestPostgresConnectErrors(t *testing.T) {
	server := storetest.PostgresDSN(t)
	isolate(t)
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	with := func(mod func(u *url.URL)) string {
		c := *u
		mod(&c)
		return c.String()
	}

	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close() // nothing listens there now
		loc := with(func(u *url.URL) { u.Host = fmt.Sprintf("127.0.0.1:%d", port) })
		for _, argv := range [][]string{{"call", "list_tasks"}, {"person", "list"}, {"migrate", "status"}, {"remind", "--once"}} {
			r := runArgs(append([]string{"--db", loc}, argv...)...)
			r.want(t, argv[0], exitDatabase, fmt.Sprintf("nothing answers at 127.0.0.1:%d: start the PostgreSQL server there", port))
			r.oneSentence(t, argv[0])
		}
	})

	t.Run("no database", func(t *testing.T) {
		name := "t_missing_" + randomHex(t)
		loc := with(func(u *url.URL) { u.Path = "/" + name })
		r := runArgs("--db", loc, "call", "list_tasks")
		r.want(t, "missing database", exitDatabase, "has no database “"+name+"”; make it (createdb "+name)
		r.oneSentence(t, "missing database")
	})

	t.Run("wrong password", func(t *testing.T) {
		role := "t_pw_" + randomHex(t)
		admin := connect(t, server)
		if _, err := admin.Exec(context.Background(), "CREATE ROLE "+role+" LOGIN PASSWORD 'right-one'"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
		wrong := with(func(u *url.URL) { u.User = url.UserPassword(role, "s3cret-wrong") })
		if c, err := pgx.Connect(context.Background(), wrong); err == nil {
			c.Close(context.Background())
			t.Skipf("the server of %s lets %s in without its password (trust); give it a pg_hba.conf line such as “host all all 127.0.0.1/32 scram-sha-256” after one that trusts its admin role", storetest.EnvPostgres, role)
		}
		r := runArgs("--db", wrong, "call", "list_tasks")
		r.want(t, "wrong password", exitDatabase, "refused the password (or the login) of user “"+role+"”; fix the password in the URL", "PGPASSWORD or ~/.pgpass", "xxxxx")
		r.oneSentence(t, "wrong password")
		if strings.Contains(r.stderr, "s3cret-wrong") {
			t.Errorf("the password is shown: %s", r.stderr)
		}
		none := with(func(u *url.URL) { u.User = url.User(role) })
		r = runArgs("--db", none, "person", "list")
		r.want(t, "no password", exitDatabase, "needs a password for user “"+role+"” and none was given; put it in PGPASSWORD or ~/.pgpass")
		t.Setenv("PGPASSWORD", "s3cret-wrong")
		r = runArgs("--db", none, "person", "list")
		r.want(t, "PGPASSWORD wrong", exitDatabase, "refused the password")
		if strings.Contains(r.stderr, "s3cret-wrong") {
			t.Errorf("the password is shown: %s", r.stderr)
		}
		t.Setenv("PGPASSWORD", "right-one")
		runArgs("--db", none, "version").want(t, "PGPASSWORD right", 0, "database: "+none)
	})

	t.Run("not the owner", func(t *testing.T) {
		loc := storetest.PostgresDatabase(t)
		runArgs("--db", loc, "migrate", "up").want(t, "migrate as the owner", 0, "Migrated")
		role := "t_np_" + randomHex(t)
		admin := connect(t, server)
		if _, err := admin.Exec(context.Background(), "CREATE ROLE "+role+" LOGIN PASSWORD 'pw'"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
		lu, _ := url.Parse(loc)
		lu.User = url.User(role)
		t.Setenv("PGPASSWORD", "pw")
		r := runArgs("--db", lu.String(), "call", "list_tasks")
		r.want(t, "not the owner", exitDatabase, "user “"+role+"” may not create or change the tables of the database", "connect as the role that owns its tables")
		r.oneSentence(t, "not the owner")
		if strings.Contains(r.stderr, "SQLSTATE") {
			t.Errorf("PostgreSQL's words: %s", r.stderr)
		}
	})
}

// A call whose connection is ended in the middle of its transaction
// (pg_terminate_backend from another connection, as an administrator or a
// failover does) keeps nothing: the task it had inserted is gone with the
// transaction, and the answer says so in one sentence, with exit 7 and
// result code 7.
func TestPostgresLostMidCall(t *testing.T) {
	isolate(t)
	loc := storetest.PostgresDatabase(t)
	runArgs("--db", loc, "call", "add_task", "title=kept").want(t, "first call", 0, "kept")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	for _, asJSON := range []bool{false, true} {
		holder := connect(t, loc)
		tx, err := holder.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The call inserts its task, then waits to journal it.
		if _, err := tx.Exec(ctx, "LOCK TABLE changes IN SHARE MODE"); err != nil {
			t.Fatal(err)
		}
		argv := []string{"--db", loc, "call", "add_task", "title=lost"}
		if asJSON {
			argv = append(argv, "--json")
		}
		done := make(chan ran, 1)
		go func() { done <- runIn(ctx, strings.NewReader(""), argv...) }()
		// Another connection watches: one in a transaction sees
		// pg_stat_activity as it was when it first looked.
		watch := connect(t, loc)
		var pid int
		for pid == 0 {
			err := watch.QueryRow(ctx, `SELECT pid FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
				AND query LIKE '%INSERT INTO changes%'`).Scan(&pid)
			if err != nil && err != pgx.ErrNoRows {
				t.Fatal(err)
			}
			if ctx.Err() != nil {
				t.Fatal("the call never waited on the journal")
			}
		}
		var inserted bool
		if err := watch.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			WHERE l.pid = $1 AND c.relname = 'tasks' AND l.mode = 'RowExclusiveLock')`, pid).Scan(&inserted); err != nil || !inserted {
			t.Fatalf("the waiting call holds no write lock on tasks (it inserted nothing yet): %v", err)
		}
		if _, err := watch.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
			t.Fatal(err)
		}
		r := <-done
		tx.Rollback(ctx)
		const said = "was lost during the call (the server stopped or restarted, or the network dropped), so nothing of this call was kept; try again."
		if asJSON {
			var res struct {
				Code int    `json:"code"`
				Err  string `json:"err"`
			}
			if err := json.Unmarshal([]byte(r.out), &res); err != nil {
				t.Fatalf("--json: %v\n%s", err, r.out)
			}
			if res.Code != 7 || !strings.Contains(res.Err, said) {
				t.Errorf("--json result %+v, want code 7 and %q", res, said)
			}
		}
		r.want(t, "lost call", exitUnavailable, said)
		if strings.Contains(r.out+r.stderr, "postgres://") {
			t.Errorf("the answer names the database URL:\n%s%s", r.out, r.stderr)
		}
		if !asJSON {
			if told := r.said(); len(told) != 1 || strings.Contains(told[0], "SQLSTATE") || strings.Contains(told[0], "57P01") {
				t.Errorf("the answer is not one sentence free of PostgreSQL's words: %q", told)
			}
			// The log's line (PostgreSQL's words, at warning level) is
			// left out: it says what the sentence says. --log-level
			// debug shows it (TestCallWhileAnotherProgramWrites).
			if strings.Contains(r.stderr, "level=") {
				t.Errorf("call wrote a log line beside its sentence:\n%s", r.stderr)
			}
		}
	}
	var lost, changes int
	c := connect(t, loc)
	if err := c.QueryRow(ctx, "SELECT count(*) FROM tasks WHERE title = 'lost'").Scan(&lost); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM changes").Scan(&changes); err != nil {
		t.Fatal(err)
	}
	if lost != 0 || changes != 1 {
		t.Errorf("after the lost calls: %d tasks “lost”, %d changes; want 0 and 1 (only the first call's)", lost, changes)
	}
	r := runArgs("--db", loc, "call", "list_tasks")
	r.want(t, "list after", 0, "kept")
	if strings.Contains(r.out, "lost") {
		t.Errorf("a lost call's task is listed:\n%s", r.out)
	}
	runArgs("--db", loc, "call", "add_task", "title=again").want(t, "the retry", 0, "again")
}

// migrate status and up work on both engines: a new database shows every
// migration pending, up applies them (a SQLite file that holds tables is
// copied first; PostgreSQL says what stands for the copy), and a schema
// newer than this binary is refused by every command (exit 8).
func TestMigrateBothEngines(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		isolate(t)
		loc := storetest.Location(t)
		pg := storetest.Engine(t) == storetest.Postgres
		latest := fmt.Sprint(knownSchema())
		r := runArgs("--db", loc, "migrate", "status")
		r.want(t, "status of a new database", 0, "schema version: 0 (this assistant knows up to "+latest+")", "00001_core.sql", "pending")
		r = runArgs("--db", loc, "migrate", "up")
		r.want(t, "up", 0, "Migrated from schema version 0 to "+latest)
		if got := strings.Contains(r.out, "No copy was made: on PostgreSQL each migration ran in a transaction of its own; keep the server's own backups (pg_dump, a replica)."); got != pg {
			t.Errorf("up on %s: says no copy was made: %v\n%s", storetest.Engine(t), got, r.out)
		}
		if strings.Contains(r.out, "The copy from before") {
			t.Errorf("a new database got a copy:\n%s", r.out)
		}
		runArgs("--db", loc, "migrate", "up").want(t, "up again", 0, "Up to date at schema version "+latest)
		r = runArgs("--db", loc, "migrate", "status")
		r.want(t, "status", 0, "schema version: "+latest)
		if strings.Contains(r.out, "pending") {
			t.Errorf("pending after up:\n%s", r.out)
		}

		st, err := store.Open(context.Background(), loc, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.DB().Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (99, true)`)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, argv := range [][]string{{"call", "list_tasks"}, {"migrate", "status"}, {"migrate", "up"}} {
			r := runArgs(append([]string{"--db", loc}, argv...)...)
			r.want(t, "newer schema: "+strings.Join(argv, " "), exitDatabase, "has schema version 99 but this assistant knows versions up to "+latest)
			r.oneSentence(t, "newer schema")
		}
	})
}

// Every command that opens the database works on both engines, a
// PostgreSQL URL as well as a file: person, token, call (undo included),
// import and export, remind, purge, chat --list, version, mcp over stdio
// and over HTTP, chat -m (against a model server that streams one answer)
// and --list; --db-read-only reads and refuses a write with exit 12.
func TestEveryCommandBothEngines(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		dir := isolate(t)
		loc := storetest.Location(t)
		db := func(argv ...string) ran { return runArgs(append([]string{"--db", loc}, argv...)...) }
		shown := store.Redact(loc)
		if storetest.Engine(t) == storetest.SQLite {
			shown, _ = filepath.Abs(loc)
		}
		db("person", "add", "bob", "--zone", "Europe/Paris").want(t, "person add", 0, "Added bob")
		db("person", "set-zone", "bob", "Europe/Berlin").want(t, "person set-zone", 0)
		db("person", "list").want(t, "person list", 0, "bob", "Europe/Berlin")
		r := db("token", "create", "--person", "bob", "--label", "laptop")
		r.want(t, "token create", 0, "Token 1 for bob")
		token := strings.TrimSpace(strings.SplitN(r.out, "\n", 2)[0])
		db("token", "list").want(t, "token list", 0, "laptop")

		db("call", "add_task", "title=Buy milk", "due=2026-12-01").want(t, "add_task", 0, "Buy milk")
		db("call", "add_task", "title=Undone").want(t, "add_task", 0, "Undone")
		db("call", "undo").want(t, "undo", 0)
		r = db("call", "list_tasks")
		r.want(t, "list_tasks", 0, "Buy milk")
		if strings.Contains(r.out, "Undone") {
			t.Errorf("undo left the task:\n%s", r.out)
		}

		ics := filepath.Join(dir, "in.ics")
		cal := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:e1@t\r\nDTSTAMP:20261101T000000Z\r\n" +
			"DTSTART:20261203T090000Z\r\nDTEND:20261203T100000Z\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
		if err := os.WriteFile(ics, []byte(cal), 0o600); err != nil {
			t.Fatal(err)
		}
		db("import", ics).want(t, "import", 0)
		r = db("export")
		r.want(t, "export", 0, "SUMMARY:Dentist", "Buy milk")

		db("remind", "--once").want(t, "remind --once", 0)
		db("remind", "--status").want(t, "remind --status", 0)
		db("purge", "--older-than", "90d").want(t, "purge", 0, "Purged what was older than 90d")
		model := httptest.NewServer(http.HandlerFunc(streamAnswer))
		defer model.Close()
		t.Setenv(envBaseURL, model.URL+"/v1")
		t.Setenv(envModel, "test-model")
		db("chat", "-m", "What is planned?").want(t, "chat -m", 0, "Nothing is planned yet.")
		db("chat", "--list").want(t, "chat --list", 0, "What is planned?")
		db("version").want(t, "version", 0, "schema:   "+fmt.Sprint(knownSchema()), "database: "+store.Redact(loc))
		db("migrate", "status").want(t, "migrate status", 0, "database: "+shown)

		r = db("--db-read-only", "call", "add_task", "title=no")
		r.want(t, "read-only write", exitReadOnly, "was opened with --db-read-only, so nothing was changed")
		db("--db-read-only", "call", "list_tasks").want(t, "read-only read", 0, "Buy milk")

		// MCP over stdio, as the local person: the server reads os.Stdin
		// and writes os.Stdout, which are pipes of the test meanwhile.
		inR, inW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		var errb lockedBuffer
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		stdin, stdout := os.Stdin, os.Stdout
		os.Stdin, os.Stdout = inR, outW
		restore := sync.OnceFunc(func() { os.Stdin, os.Stdout = stdin, stdout })
		defer restore()
		stdioDone := make(chan int, 1)
		go func() {
			a := newApp(inR, outW, &errb)
			stdioDone <- execute(ctx, a, newRootCmd(a), []string{"--db", loc, "mcp"}, inR, outW, &errb)
			outW.Close()
		}()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
		var listed string
		if err == nil {
			listed = callText(t, ctx, cs, "list_tasks")
			cs.Close()
		}
		inW.Close()
		code := <-stdioDone
		restore()
		if err != nil {
			t.Fatalf("mcp stdio: %v\n%s", err, errb.String())
		}
		if !strings.Contains(listed, "Buy milk") {
			t.Errorf("mcp stdio list_tasks: %s", listed)
		}
		if code != 0 {
			t.Errorf("mcp stdio exit %d\n%s", code, errb.String())
		}

		// MCP over HTTP, as the token's person.
		var herr lockedBuffer
		hctx, hcancel := context.WithCancel(ctx)
		httpDone := make(chan int, 1)
		go func() {
			a := newApp(strings.NewReader(""), io.Discard, &herr)
			httpDone <- execute(hctx, a, newRootCmd(a), []string{"--db", loc, "mcp", "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &herr)
		}()
		addr := regexp.MustCompile(`"url":"(http://127\.0\.0\.1:\d+/mcp)"`)
		var endpoint string
		for endpoint == "" {
			if m := addr.FindStringSubmatch(herr.String()); m != nil {
				endpoint = m[1]
			}
			select {
			case code := <-httpDone:
				t.Fatalf("mcp --http ended with %d before serving:\n%s", code, herr.String())
			case <-ctx.Done():
				t.Fatal("mcp --http never served")
			case <-time.After(10 * time.Millisecond):
			}
		}
		if strings.Contains(herr.String(), "postgres://") && strings.Contains(loc, "@") && !strings.Contains(herr.String(), store.Redact(loc)) {
			t.Errorf("the log shows the database otherwise than redacted:\n%s", herr.String())
		}
		hs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer(token)}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("mcp http: %v\n%s", err, herr.String())
		}
		if got := callText(t, ctx, hs, "add_task", "title", "Over HTTP"); !strings.Contains(got, "Over HTTP") {
			t.Errorf("mcp http add_task: %s", got)
		}
		hs.Close()
		hcancel()
		if code := <-httpDone; code != 0 {
			t.Errorf("mcp --http exit %d\n%s", code, herr.String())
		}
		db("--person", "bob", "call", "list_tasks").want(t, "bob's task", 0, "Over HTTP")

		db("token", "revoke", "1").want(t, "token revoke", 0)
		db("person", "delete", "bob", "--yes").want(t, "person delete", 0, "Deleted bob")
	})
}

// streamAnswer is an OpenAI-compatible chat completions endpoint that
// streams one fixed answer.
func streamAnswer(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Nothing is planned yet."},"finish_reason":null}]}`+"\n\n")
	fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// callText calls tool with name/value pairs over cs and returns its text.
func callText(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, kv ...string) string {
	t.Helper()
	args := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i]] = kv[i+1]
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// bearer is an http.RoundTripper that sends the token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// A PostgreSQL database keeps its chat line histories in the default
// database's folder, named after its user, server and database (not its
// password or parameters); a file: URL's histories sit beside its file.
func TestChatHistoryPathPostgres(t *testing.T) {
	dir := isolate(t)
	a := chatHistoryPath("postgres://ann:one@db.example/assistant?sslmode=require", 3)
	b := chatHistoryPath("postgresql://ann:two@db.example:5432/assistant", 3)
	if a == "" || a != b {
		t.Errorf("the same database has histories %q and %q", a, b)
	}
	if want := filepath.Join(dir, "data", "assistant") + string(filepath.Separator); !strings.HasPrefix(a, want) || !strings.HasSuffix(a, ".chat_history.3") {
		t.Errorf("history %q, want it in %s", a, want)
	}
	if strings.Contains(a, "one") || strings.Contains(a, "db.example") {
		t.Errorf("history %q shows the URL", a)
	}
	if c := chatHistoryPath("postgres://ann@db.example/other", 3); c == a {
		t.Errorf("two databases share the history %q", c)
	}
	if got, want := chatHistoryPath("file:"+filepath.Join(dir, "a.db"), 2), filepath.Join(dir, "a.db.chat_history.2"); got != want {
		t.Errorf("file: URL history %q, want %q", got, want)
	}
	if got := chatHistoryPath("mysql://x/y", 1); got != "" {
		t.Errorf("a refused location has the history %q", got)
	}
}

// connect is a pgx connection to dsn, closed when t ends.
func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func randomHex(t *testing.T) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// A call whose COMMIT reaches the server but whose answer never comes back
// (the connection cut just after it, by a proxy in between) cannot tell
// whether the change was kept, and says so instead of "nothing was kept":
// exit 7, "may have been kept or not; look … before you try again"; and
// the change is on the server whole or not at all.
func TestPostgresCommitAnswerLost(t *testing.T) {
	isolate(t)
	loc := storetest.PostgresDatabase(t)
	runArgs("--db", loc, "call", "add_task", "title=first").want(t, "first call", 0, "first")
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(u.Host, "/") || u.Host == "" {
		t.Skipf("%s names no TCP host to put a proxy before", storetest.EnvPostgres)
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	u.Host = cutAfterCommit(t, target)
	q := u.Query()
	q.Set("sslmode", "disable") // the proxy reads the messages
	u.RawQuery = q.Encode()

	r := runArgs("--db", u.String(), "call", "add_task", "title=unsure")
	r.want(t, "cut commit", exitUnavailable, "was lost just as the change was being saved, so it may have been kept or not; look (list_changes shows the latest changes) before you try again.")
	if strings.Contains(strings.Join(r.said(), "\n"), "nothing of this call was kept") {
		t.Errorf("the answer says nothing was kept:\n%s", r.stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, loc)
	// Whatever the server did with the batch (the COMMIT rode with the
	// journal, so whether it ran before the server saw the connection
	// gone is not known, which is why the answer says "may have been
	// kept"), what it shows is the change whole or not at all.
	var tasks, changes int
	if err := c.QueryRow(ctx, `SELECT (SELECT count(*) FROM tasks WHERE title = 'unsure'),
		(SELECT count(*) FROM journal_rows r JOIN tasks k ON r.tbl = 'tasks' AND r.row_id = k.id WHERE k.title = 'unsure')`).Scan(&tasks, &changes); err != nil {
		t.Fatal(err)
	}
	if tasks > 1 || tasks != changes {
		t.Errorf("after the cut COMMIT: %d tasks “unsure” and %d journal rows of them; want the change whole (1 and 1) or not at all", tasks, changes)
	}
}

// cutAfterCommit is the address of a TCP proxy to target that passes
// PostgreSQL's messages both ways until a client sends the message that
// commits a write (see [pgFrames]): that goes to the server, and the
// connection to the client is cut before any answer reaches it.
func cutAfterCommit(t *testing.T, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			t.Cleanup(func() { client.Close(); server.Close() })
			var mu sync.Mutex
			cut := false
			go func() { // server → client, until cut
				buf := make([]byte, 64<<10)
				for {
					n, err := server.Read(buf)
					mu.Lock()
					if cut {
						mu.Unlock()
						return
					}
					if n > 0 {
						client.Write(buf[:n])
					}
					mu.Unlock()
					if err != nil {
						client.Close()
						return
					}
				}
			}()
			go func() { // client → server, message by message
				var f pgFrames
				buf := make([]byte, 64<<10)
				for {
					n, err := client.Read(buf)
					if n > 0 {
						msgs, last := f.feed(buf[:n])
						server.Write(msgs)
						if last {
							mu.Lock()
							cut = true
							mu.Unlock()
							client.Close()
							return // the server keeps its end until the test ends
						}
					}
					if err != nil {
						server.Close()
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// pgFrames reads a client's side of PostgreSQL's protocol (v3: a startup
// message without a type byte, then messages of a type byte and a
// 32-bit length that counts itself) and finds the message that commits a
// write: a COMMIT sent as a simple Query, or the Sync that ends an
// extended-protocol round in which a COMMIT or an INSERT INTO tasks was
// executed (a batch without BEGIN is one implicit transaction, committed
// at its Sync).
type pgFrames struct {
	started bool   // past the startup message
	pending []byte // the start of a message not yet whole
	writes  bool   // a Parse of a COMMIT or an INSERT INTO tasks was seen
	runs    bool   // an Execute since the last Sync, after such a Parse
}

// feed takes the next bytes from the client and returns those to pass on:
// every whole message, up to and including the committing one when last
// is true (what follows it is dropped with the connection).
func (f *pgFrames) feed(b []byte) (out []byte, last bool) {
	f.pending = append(f.pending, b...)
	at := 0
	for {
		rest := f.pending[at:]
		if !f.started {
			if len(rest) < 8 {
				break
			}
			n := int(binary.BigEndian.Uint32(rest))
			if len(rest) < n {
				break
			}
			// An SSL or GSSAPI encryption request is followed by the
			// startup message proper.
			if code := binary.BigEndian.Uint32(rest[4:]); code != 80877103 && code != 80877104 {
				f.started = true
			}
			at += n
			continue
		}
		if len(rest) < 5 {
			break
		}
		n := 1 + int(binary.BigEndian.Uint32(rest[1:]))
		if len(rest) < n {
			break
		}
		typ, body := rest[0], bytes.ToLower(rest[5:n])
		at += n
		switch typ {
		case 'Q':
			if bytes.HasPrefix(bytes.TrimSpace(body), []byte("commit")) {
				return f.take(at), true
			}
		case 'P':
			if bytes.Contains(body, []byte("commit\x00")) || bytes.Contains(body, []byte("insert into tasks")) {
				f.writes = true
			}
		case 'E':
			f.runs = f.writes
		case 'S':
			if f.runs {
				return f.take(at), true
			}
		}
	}
	return f.take(at), false
}

// take returns the first n pending bytes and keeps the rest.
func (f *pgFrames) take(n int) []byte {
	out := append([]byte(nil), f.pending[:n]...)
	f.pending = append(f.pending[:0], f.pending[n:]...)
	return out
}
