//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// mountOrSkip mounts source on target (a bind or a tmpfs), read-only when
// asked, and unmounts it at the end of the test. Tests run as root here,
// and root ignores file modes, so a real read-only file or folder and a
// real full disk need a mount; without the privilege to mount, the test
// is skipped with the reason.
func mountOrSkip(t *testing.T, source, target, fstype, data string, flags uintptr, readOnly bool) {
	t.Helper()
	if err := unix.Mount(source, target, fstype, flags, data); err != nil {
		t.Skipf("cannot mount %s on %s (%v): this test needs the privilege to mount (root in a container that allows it)", source, target, err)
	}
	t.Cleanup(func() { _ = unix.Unmount(target, unix.MNT_DETACH) })
	if readOnly {
		if err := unix.Mount("", target, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
			t.Skipf("cannot remount %s read-only (%v): this test needs the privilege to mount", target, err)
		}
	}
}

// noSQLiteWords fails t when what the person reads (standard error
// without the log's lines, which keep SQLite's words for whoever debugs)
// shows SQLite's own words or codes.
func noSQLiteWords(t *testing.T, what, stderr string) {
	t.Helper()
	var said []string
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(line, "time=") {
			said = append(said, line)
		}
	}
	s := strings.Join(said, "\n")
	for _, bad := range []string{"(1544)", "(4874)", "(8)", "(13)", "(14)", "readonly database", "disk I/O error", "Something went wrong", "unable to open"} {
		if strings.Contains(s, bad) {
			t.Errorf("%s shows %q:\n%s", what, bad, s)
		}
	}
}

// A database whose folder or file is read-only (a read-only bind mount,
// since root ignores modes) is still read; a write is refused with exit 12
// and one sentence saying the file or folder is read-only and what to do;
// --db-read-only reads a database and refuses writes naming the flag.
func TestDatabaseReadOnly(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "error"
	rw := filepath.Join(h.dir, "rw")
	ro := filepath.Join(h.dir, "ro")
	for _, d := range []string{rw, ro} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h.must("--db", filepath.Join(rw, "a.db"), "call", "add_task", "title=Milk")
	h.must("--db", filepath.Join(rw, "b.db"), "call", "add_task", "title=Milk")
	mountOrSkip(t, rw, ro, "", "", unix.MS_BIND, true)
	fileRO := filepath.Join(h.dir, "file-ro.db")
	if err := os.WriteFile(fileRO, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h.must("--db", filepath.Join(h.dir, "src.db"), "call", "add_task", "title=Milk")
	mountOrSkip(t, filepath.Join(h.dir, "src.db"), fileRO, "", "", unix.MS_BIND, true)

	for _, db := range []string{filepath.Join(ro, "a.db"), fileRO} {
		t.Run(filepath.Base(db), func(t *testing.T) {
			r := h.run("--db", db, "call", "list_tasks")
			if r.code != 0 || !strings.Contains(r.stdout, "Milk") {
				t.Errorf("list_tasks on a read-only database: want exit 0 and the task, got %s", r)
			}
			for _, args := range [][]string{{"call", "add_task", "title=Bread"}, {"person", "add", "zed"}} {
				r = h.run(append([]string{"--db", db}, args...)...)
				want := "cannot be written, since the file or its folder is read-only"
				if r.code != 12 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "write permission") {
					t.Errorf("%v on a read-only database: want exit 12 and %q, got %s", args, want, r)
				}
				noSQLiteWords(t, fmt.Sprint(args), r.stderr)
			}
		})
	}

	db := filepath.Join(rw, "b.db")
	if r := h.run("--db", db, "--db-read-only", "call", "list_tasks"); r.code != 0 || !strings.Contains(r.stdout, "Milk") {
		t.Errorf("--db-read-only list_tasks: want exit 0 and the task, got %s", r)
	}
	r := h.run("--db", db, "--db-read-only", "call", "add_task", "title=Bread")
	if r.code != 12 || !strings.Contains(r.stderr, "was opened with --db-read-only") {
		t.Errorf("--db-read-only add_task: want exit 12 naming the flag, got %s", r)
	}
	noSQLiteWords(t, "--db-read-only add_task", r.stderr)
	if r := h.must("--db", db, "call", "list_tasks"); strings.Contains(r.stdout, "Bread") {
		t.Errorf("a write went through --db-read-only:\n%s", r.stdout)
	}
	// A chat cannot keep its conversation in it: the same sentence.
	h.env["OPENAI_BASE_URL"] = "http://" + closedAddr(t) + "/v1"
	h.env["ASSISTANT_MODEL"] = "test-model"
	r = h.run("--db", db, "--db-read-only", "chat", "-m", "hi")
	if r.code != 12 || !strings.Contains(r.stderr, "was opened with --db-read-only") {
		t.Errorf("--db-read-only chat: want exit 12 naming the flag, got %s", r)
	}
	if r := h.run("--db", filepath.Join(rw, "none.db"), "--db-read-only", "call", "list_tasks"); r.code != 8 || !strings.Contains(r.stderr, "there is no database at") {
		t.Errorf("--db-read-only on no file: want exit 8 and a sentence, got %s", r)
	}
}

// On a full disk (a small tmpfs, filled) reads keep working, and a write
// is refused with exit 11 and one sentence saying the disk is full: when
// the disk is full before the run starts, and when it fills during a
// write.
func TestDatabaseDiskFull(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "error"
	disk := filepath.Join(h.dir, "disk")
	if err := os.MkdirAll(disk, 0o700); err != nil {
		t.Fatal(err)
	}
	mountOrSkip(t, "tmpfs", disk, "tmpfs", "size=2m", 0, false)
	db := filepath.Join(disk, "a.db")
	h.must("--db", db, "call", "add_task", "title=Milk")

	fill := filepath.Join(disk, "fill")
	fillUp := func(leave int64) {
		t.Helper()
		var st unix.Statfs_t
		if err := unix.Statfs(disk, &st); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(fill, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		left := int64(st.Bavail)*st.Bsize - leave
		for left > 0 { // to the last byte when leave is 0
			n, err := f.Write(make([]byte, min(left, 64<<10)))
			if err != nil {
				return
			}
			left -= int64(n)
		}
		if leave == 0 {
			for {
				if _, err := f.Write(make([]byte, 512)); err != nil {
					return
				}
			}
		}
	}

	// Full before the run starts, on a database closed cleanly (no -wal
	// or -shm file left to use): it is read as it is on disk.
	fillUp(0)
	if r := h.run("--db", db, "call", "list_tasks"); r.code != 0 || !strings.Contains(r.stdout, "Milk") {
		t.Errorf("list_tasks on a full disk: want exit 0 and the task, got %s", r)
	}
	r := h.run("--db", db, "call", "add_task", "title=Bread")
	if want := "is full (or failing), so the database is open for reading only and nothing was changed; free some space"; r.code != 11 || !strings.Contains(r.stderr, want) {
		t.Errorf("add_task on a full disk: want exit 11 and %q, got %s", want, r)
	}
	noSQLiteWords(t, "add_task on a full disk", r.stderr)
	for _, args := range [][]string{{"token", "create", "--label", "x"}, {"remind", "--once"}} {
		r := h.run(append([]string{"--db", db}, args...)...)
		if want := "is full (or failing)"; r.code != 11 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v on a full disk: want exit 11 and %q, got %s", args, want, r)
		}
		noSQLiteWords(t, fmt.Sprint(args), r.stderr)
	}

	// Full during a write: 150 KB left, writes with long notes fill it.
	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	fillUp(150 << 10)
	notes := strings.Repeat("x", 9000)
	for i := range 100 { // a few dozen at most fit
		r = h.runIn(fmt.Sprintf(`{"title":"Big %d","notes":%q}`, i, notes), "--db", db, "call", "add_task", "--args", "-")
		if r.code != 0 {
			break
		}
	}
	want := "is full (or failing), so nothing was changed; free some space on that disk"
	if r.code != 11 || !strings.Contains(r.stderr, want) {
		t.Fatalf("a write that fills the disk: want exit 11 and %q, got %s", want, r)
	}
	noSQLiteWords(t, "the write that filled the disk", r.stderr)
	if strings.Contains(r.stderr, "level=") {
		t.Errorf("call wrote the log's line beside its sentence:\n%s", r.stderr)
	}
	// The log keeps SQLite's words for whoever asks for them.
	r = h.runIn(fmt.Sprintf(`{"title":"Big again","notes":%q}`, notes), "--db", db, "--log-level", "debug", "call", "add_task", "--args", "-")
	if r.code != 11 || !strings.Contains(r.stderr, "level=WARN") || !strings.Contains(r.stderr, "database or disk is full (13)") {
		t.Errorf("--log-level debug: the log does not keep SQLite's words:\n%s", r)
	}
	if r := h.run("--db", db, "call", "list_tasks"); r.code != 0 || !strings.Contains(r.stdout, "Milk") {
		t.Errorf("list_tasks after the disk filled: want exit 0 and the task, got %s", r)
	}
}

// Every command, not only tool calls and chat, gives a read-only database
// exit 12 and the sentence, and a full disk exit 11: the classification is
// made where a command's error becomes its exit code. `remind --status`
// still reports, as the last pass left the reminders.
func TestDatabaseTroubleEveryCommand(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "error"
	rw := filepath.Join(h.dir, "rw")
	ro := filepath.Join(h.dir, "ro")
	for _, d := range []string{rw, ro} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ics := filepath.Join(h.dir, "in.ics")
	if err := os.WriteFile(ics, []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:a@b\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261010T100000Z\r\nSUMMARY:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(rw, "a.db")
	h.must("--db", db, "call", "add_task", "title=Milk", "remind_at=2099-10-01T08:00")
	h.must("--db", db, "person", "add", "bob", "--zone", "UTC")
	h.must("--db", db, "remind", "--status")
	mountOrSkip(t, rw, ro, "", "", unix.MS_BIND, true)
	db = filepath.Join(ro, "a.db")

	for _, flags := range [][]string{{"--db", db}, {"--db", db, "--db-read-only"}} {
		r := h.run(append(flags, "remind", "--status")...)
		if r.code != 0 || !strings.Contains(r.stdout, "Milk") || !strings.Contains(r.stdout, "as the last pass left them") {
			t.Errorf("%v remind --status: want exit 0, the reminder and a note, got %s", flags, r)
		}
		noSQLiteWords(t, "remind --status", r.stderr)
	}
	for _, args := range [][]string{
		{"remind", "--once"},
		{"token", "create", "--label", "x"},
		{"purge", "--yes", "--older-than", "1d"},
		{"import", ics},
		{"person", "delete", "bob", "--yes"},
		{"person", "set-zone", "bob", "Europe/Paris"},
	} {
		r := h.run(append([]string{"--db", db}, args...)...)
		if want := "cannot be written, since the file or its folder is read-only"; r.code != 12 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v on a read-only database: want exit 12 and %q, got %s", args, want, r)
		}
		noSQLiteWords(t, fmt.Sprint(args), r.stderr)
	}
}

// A damaged database file gets exit 13 and a sentence saying how to get
// the data back, not SQLite's "database disk image is malformed".
func TestDatabaseCorrupt(t *testing.T) {
	h := newHome(t)
	h.env["ASSISTANT_LOG"] = "error"
	db := filepath.Join(h.dir, "a.db")
	for i := range 20 {
		h.must("--db", db, "call", "add_task", fmt.Sprintf("title=Task %d", i), "notes="+strings.Repeat("n", 500))
	}
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for off := 4096; off+200 < len(data); off += 4096 { // every page after the first: its header and cells
		copy(data[off+8:off+200], strings.Repeat("\x55", 192))
	}
	if err := os.WriteFile(db, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"call", "list_tasks"}, {"person", "list"}, {"remind", "--status"}, {"export"}} {
		r := h.run(append([]string{"--db", db}, args...)...)
		if r.code != 13 || !strings.Contains(r.stderr, "is damaged") || !strings.Contains(r.stderr, ".recover") {
			t.Errorf("%v on a damaged database: want exit 13 and the sentence, got %s", args, r)
		}
		if strings.Contains(r.stderr, "malformed (11)") {
			t.Errorf("%v shows SQLite's words:\n%s", args, r.stderr)
		}
	}
}
