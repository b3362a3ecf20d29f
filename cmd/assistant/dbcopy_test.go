package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// assistantBinary is the real binary: ASSISTANT_BINARY (scripts/test.sh
// builds it once for every suite), or one built now in t's temporary
// folder.
func assistantBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ASSISTANT_BINARY"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	bin := filepath.Join(t.TempDir(), "assistant")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runner runs the binary in a home of its own with a fixed clock.
type runner struct {
	t   *testing.T
	bin string
	env []string
}

func newRunner(t *testing.T, bin string) *runner {
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"), "USER=ann", "TZ=Europe/Paris", "ASSISTANT_NOW=2026-10-05T09:00:00+02:00",
		"PATH=" + os.Getenv("PATH")}
	return &runner{t: t, bin: bin, env: env}
}

// run runs the binary with argv and returns its exit code and outputs.
func (r *runner) run(argv ...string) (int, string, string) {
	r.t.Helper()
	cmd := exec.Command(r.bin, argv...)
	cmd.Env = r.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	r.t.Fatal(err)
	return 0, "", ""
}

// ok runs argv and fails the test unless it exits 0.
func (r *runner) ok(argv ...string) string {
	r.t.Helper()
	code, out, errs := r.run(argv...)
	if code != 0 {
		r.t.Fatalf("assistant %s: exit %d\n%s%s", strings.Join(argv, " "), code, out, errs)
	}
	return out
}

// `assistant db copy --to …` through the real binary: what the source's
// people see through `call` they see on the target, an undo of a change
// made before the copy gives the same answer on both, a second copy is
// refused (exit 5), and --person copies one person alone.
func TestDBCopyBinary(t *testing.T) {
	bin := assistantBinary(t)
	storetest.Engines(t, func(t *testing.T) {
		r := newRunner(t, bin)
		src := filepath.Join(t.TempDir(), "source.db")
		r.ok("--db", src, "call", "add_task", "title=Water the plants", "due=2026-10-05T18:00", "rrule=FREQ=DAILY", "remind_before=[15]")
		r.ok("--db", src, "call", "complete_task", "id=t1")
		r.ok("--db", src, "call", "add_task", "title=Buy milk", "due=2026-10-06", "key=milk")
		r.ok("--db", src, "call", "add_event", "title=Standup", "start=2026-10-06T09:00", "rrule=FREQ=DAILY;COUNT=5")
		r.ok("--db", src, "call", "update_event", "id=e1@20261007T070000Z", "title=Late standup")
		r.ok("--db", src, "call", "delete_task", "id=t2")
		r.ok("--db", src, "call", "undo")
		later := r.ok("--db", src, "call", "update_task", "id=t2", "title=Buy oat milk") // undone after the copy
		r.ok("--db", src, "person", "add", "bob", "--zone", "America/New_York")
		r.ok("--db", src, "--person", "bob", "call", "add_event", "title=Dentist", "start=2026-10-08T15:00")
		r.ok("--db", src, "token", "create", "--label", "laptop")

		reads := [][]string{
			{"call", "list_tasks", "status=all"},
			{"call", "list_events", "from=2026-10-05", "to=2026-10-31"},
			{"call", "list_changes"},
			{"--person", "bob", "call", "list_events", "from=2026-10-05", "to=2026-10-31"},
			{"person", "list"},
			{"token", "list"},
		}
		want := make([]string, len(reads))
		for i, argv := range reads {
			want[i] = r.ok(append([]string{"--db", src}, argv...)...)
		}

		dst := storetest.Location(t)
		out := r.ok("--db", src, "db", "copy", "--to", dst)
		for _, line := range []string{"Copied the whole database from ", "  tasks: 2\n", "  events: 2\n", "  change_rows: ", "  access_tokens: 1\n", "verified: "} {
			if !strings.Contains(out, line) {
				t.Errorf("the copy's output lacks %q:\n%s", line, out)
			}
		}
		for i, argv := range reads {
			if got := r.ok(append([]string{"--db", dst}, argv...)...); got != want[i] {
				t.Errorf("%s on the target:\n%s\nand on the source:\n%s", strings.Join(argv, " "), got, want[i])
			}
		}
		change := regexp.MustCompile(`\bc\d+\b`).FindString(later)
		if change == "" {
			t.Fatalf("update_task named no change: %s", later)
		}
		undoSrc := r.ok("--db", src, "call", "undo", "change="+change)
		undoDst := r.ok("--db", dst, "call", "undo", "change="+change)
		if undoSrc != undoDst || !strings.Contains(undoDst, change) {
			t.Errorf("undo %s: source %q, target %q", change, undoSrc, undoDst)
		}
		if a, b := r.ok("--db", src, "call", "add_task", "title=New"), r.ok("--db", dst, "call", "add_task", "title=New"); a != b {
			t.Errorf("a task added after the copy: source %q, target %q", a, b)
		}

		code, _, errs := r.run("--db", src, "db", "copy", "--to", dst)
		if code != exitConflict || !strings.Contains(errs, "already holds data") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("a second copy: exit %d, %q", code, errs)
		}

		for _, c := range []struct {
			argv []string
			code int
			says string
		}{
			{[]string{"--db", src, "db", "copy"}, exitUsage, "needs --to"},
			{[]string{"--db", src, "db", "copy", "--to", "mysql://me@db/x"}, exitConfig, "“--to” is wrong: the database “mysql://me@db/x” uses mysql://"},
			{[]string{"--db", src, "db", "copy", "--to", src}, exitInvalid, "the same database"},
			{[]string{"--db", filepath.Join(t.TempDir(), "typo.db"), "db", "copy", "--to", storetest.Location(t)}, exitNotFound, "there is no database at"},
			{[]string{"--db", src, "--person", "zed", "db", "copy", "--to", storetest.Location(t)}, exitNotFound, "no person named “zed”"},
		} {
			code, out, errs := r.run(c.argv...)
			if code != c.code || !strings.Contains(errs, c.says) || out != "" {
				t.Errorf("assistant %s: exit %d, %q %q; want exit %d saying %q", strings.Join(c.argv, " "), code, out, errs, c.code, c.says)
			}
		}

		one := storetest.Location(t)
		r.ok("--db", src, "--person", "bob", "db", "copy", "--to", one)
		if got := r.ok("--db", one, "person", "list"); !strings.Contains(got, "bob") || strings.Contains(got, "ann") {
			t.Errorf("after copying bob alone, the target has:\n%s", got)
		}
		if got := r.ok("--db", one, "--person", "bob", "call", "list_events", "from=2026-10-05", "to=2026-10-31"); got != want[3] {
			t.Errorf("bob's events on his own copy:\n%s\nwant:\n%s", got, want[3])
		}
	})
}
