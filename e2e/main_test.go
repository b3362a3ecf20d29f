package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// bin is the assistant binary built once for the whole test run.
var bin string

// runLimit bounds one run of the binary, so a hang fails one test with
// its output instead of stalling the whole run.
const runLimit = 2 * time.Minute

// fixedNow is the clock every subprocess runs with (ASSISTANT_NOW).
const fixedNow = "2026-10-05T09:00:00+02:00"

func TestMain(m *testing.M) {
	code := run(m)
	if crashDir != "" {
		os.RemoveAll(crashDir)
	}
	os.Exit(code)
}

// run sets bin and runs the tests. A binary built once for the whole run,
// or the one scripts/test.sh built and names in ASSISTANT_BINARY (an
// installed release works too).
func run(m *testing.M) int {
	if given := os.Getenv("ASSISTANT_BINARY"); given != "" {
		abs, err := filepath.Abs(given)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		bin = abs
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "assistant-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "assistant")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, "github.com/assistant-dev/assistant/cmd/assistant")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the assistant binary failed:", err)
		return 1
	}
	return m.Run()
}

// home is a fresh user account for one test: its own HOME, XDG folders and
// environment, with the clock fixed and the local person's first-run zone
// set by TZ, so nothing of the machine or of another test leaks in.
type home struct {
	t   *testing.T
	dir string
	env map[string]string
	// db is the database every run of the binary names with --db: on
	// PostgreSQL (a test run by storetest.Engines as its "postgres"
	// subtest) the URL of a fresh database, which is dropped when the test
	// ends; "" on SQLite, where runs take the default path, dbPath.
	db string
}

// newHome is a fresh home whose database is of the engine t runs on (see
// [storetest.Engine]): the default SQLite file, or a new PostgreSQL
// database (a copy of [migrated]) given to every run as --db. On PostgreSQL the test also fails
// if a run made the default SQLite file, as one that missed --db would.
func newHome(t *testing.T) *home {
	t.Helper()
	dir := t.TempDir()
	h := &home{t: t, dir: dir, env: map[string]string{
		"HOME":            dir,
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_DATA_HOME":   filepath.Join(dir, "data"),
		"USER":            "tester",
		"TZ":              "Europe/Paris",
		"ASSISTANT_NOW":   fixedNow,
		"PATH":            filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}}
	if storetest.Engine(t) == storetest.Postgres {
		h.db = storetest.LocationFrom(t, migrated)
		t.Cleanup(func() {
			if _, err := os.Stat(h.dbPath()); err == nil {
				t.Errorf("a run on PostgreSQL made the SQLite file %s: a command did not take --db %s", h.dbPath(), h.db)
			}
		})
	}
	return h
}

// migrated is the template of the PostgreSQL databases of the homes: an
// empty database store.Open brought up to date, as tools/tooltest has it
// (tooltest.Migrated, one template database on the server), so a test
// pays a CREATE DATABASE and not the migrations too. A SQLite home starts
// with no file; that an empty PostgreSQL database is brought up to date
// by the binary is TestTwoHTTPServersOnOneDatabase's and
// TestMCPDatabaseGoneAndBack's to show.
var migrated = tooltest.Migrated

// argv is args as the binary is run with them: after --db and the
// home's database when it has one (PostgreSQL), else as they are.
func (h *home) argv(args ...string) []string {
	if h.db == "" {
		return args
	}
	return append([]string{"--db", h.db}, args...)
}

// dbPath is where the database of this home lives by default.
func (h *home) dbPath() string {
	return filepath.Join(h.dir, "data", "assistant", "assistant.db")
}

// environ is the subprocess environment: only the home's variables, plus
// what Go's runtime and a shell need.
func (h *home) environ() []string {
	var env []string
	for k, v := range h.env {
		env = append(env, k+"="+v)
	}
	for _, k := range []string{"SYSTEMROOT", "TMPDIR", "GOCOVERDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// run runs the binary with args and no standard input.
func (h *home) run(args ...string) result { return h.runIn("", args...) }

// runIn runs the binary with stdin as its standard input.
func (h *home) runIn(stdin string, args ...string) result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, h.argv(args...)...)
	cmd.Dir = h.dir
	cmd.Env = h.environ()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code, err := exitCode(cmd.Run())
	if err != nil {
		h.t.Fatalf("running %v: %v", args, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// must runs args and fails the test unless it exits 0.
func (h *home) must(args ...string) result {
	h.t.Helper()
	r := h.run(args...)
	if r.code != 0 {
		h.t.Fatalf("assistant %s: want exit 0, got %s", strings.Join(args, " "), r)
	}
	return r
}

// quickstartBlocks returns the ```sh code blocks that stand between a
// `<!-- quickstart -->` line and the next `<!-- /quickstart -->` line of a
// Markdown file, in order. Those are the commands a reader is told to run,
// so tests run them literally.
func quickstartBlocks(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks []string
	var cur strings.Builder
	inside, inBlock := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "<!-- quickstart -->":
			if inside {
				return nil, fmt.Errorf("%s:%d: a quickstart marker inside another", path, n)
			}
			inside = true
		case trimmed == "<!-- /quickstart -->":
			if inBlock {
				return nil, fmt.Errorf("%s:%d: the quickstart ends inside a code block", path, n)
			}
			inside = false
		case inside && !inBlock && (trimmed == "```sh" || trimmed == "```bash" || trimmed == "```shell"):
			inBlock = true
			cur.Reset()
		case inside && inBlock && trimmed == "```":
			inBlock = false
			blocks = append(blocks, cur.String())
		case inside && inBlock:
			cur.WriteString(line)
			cur.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inside {
		return nil, fmt.Errorf("%s: a quickstart marker is never closed with <!-- /quickstart -->", path)
	}
	return blocks, nil
}

// runBlock runs one quickstart block with sh -e in the home, where
// `assistant` on PATH is the binary under test; on PostgreSQL the block
// gets the home's database as ASSISTANT_DB, since its commands are run
// as written.
func (h *home) runBlock(block string) result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", block)
	cmd.Dir = h.dir
	cmd.Env = h.environ()
	if h.db != "" {
		cmd.Env = append(cmd.Env, "ASSISTANT_DB="+h.db)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code, err := exitCode(cmd.Run())
	if err != nil {
		h.t.Fatalf("running a quickstart block: %v", err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// runQuickstart runs every quickstart block of the Markdown file at path,
// in one fresh home, each of which must exit 0.
func runQuickstart(t *testing.T, path string) {
	t.Helper()
	blocks, err := quickstartBlocks(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatalf("%s has no ```sh block between <!-- quickstart --> and <!-- /quickstart -->", path)
	}
	h := newHome(t)
	for i, b := range blocks {
		if r := h.runBlock(b); r.code != 0 {
			t.Errorf("quickstart block %d of %s failed:\n%s\n%s", i+1, path, b, r)
		}
	}
}

// exitCode splits what cmd.Run returned into the process's exit code and
// an error that kept it from running (nil once it ran and exited).
func exitCode(err error) (int, error) {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}
