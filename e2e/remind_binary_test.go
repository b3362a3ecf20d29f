package e2e

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/remind"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tz"
)

// The reminder engine's suite through the binary: a real database (a
// SQLite file, or a PostgreSQL database in a test's "postgres" subtest)
// the test fills with the real tools in process, and `assistant remind`
// run on it as a subprocess with a fixed clock.

// crashBinaryEnv names an assistant binary built with -tags remindcrash
// (scripts/test.sh builds one); without it the first test that needs it
// builds one.
const crashBinaryEnv = "ASSISTANT_REMINDCRASH_BINARY"

// The binary under test, built once with the remindcrash tag so a test can
// stop it between sending and marking (remind/crash.go).
var (
	crashOnce sync.Once
	crashPath string
	crashErr  error
	crashDir  string // removed by TestMain
)

func crashBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the assistant binary; skipped with -short")
	}
	crashOnce.Do(func() {
		if p := os.Getenv(crashBinaryEnv); p != "" {
			crashPath, crashErr = filepath.Abs(p)
			return
		}
		crashDir, crashErr = os.MkdirTemp("", "remind-bin-")
		if crashErr != nil {
			return
		}
		crashPath = filepath.Join(crashDir, "assistant")
		out, err := exec.Command("go", "build", "-tags", "remindcrash", "-o", crashPath,
			"github.com/assistant-dev/assistant/cmd/assistant").CombinedOutput()
		if err != nil {
			crashErr = errors.New(string(out))
		}
	})
	if crashErr != nil {
		t.Fatalf("cannot build the binary: %v", crashErr)
	}
	return crashPath
}

// env is a real database at storetest.LocationFrom (on PostgreSQL a copy
// of the migrated template) with the real tools and a clock the test sets,
// as remind's own tests have it.
type env struct {
	t      testing.TB
	ctx    context.Context
	path   string
	s      *store.Store
	reg    *tools.Registry
	now    time.Time
	ada    tools.Person // Europe/Paris
	bob    tools.Person // America/New_York
	binEnv []string     // added to the environment of every run of the binary
}

func newEnv(t testing.TB, now time.Time) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), now: now, reg: catalog.New()}
	e.path = storetest.LocationFrom(t, migrated)
	s, err := store.Open(e.ctx, e.path, &store.Options{Now: func() time.Time { return e.now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e.s = s
	e.ada = e.person("ada", "Europe/Paris")
	e.bob = e.person("bob", "America/New_York")
	return e
}

func (e *env) person(name, zone string) tools.Person {
	e.t.Helper()
	p, err := e.s.AddPerson(e.ctx, name, zone)
	if err != nil {
		e.t.Fatal(err)
	}
	return tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(zone)}
}

func civilAt(t testing.TB, zone, civil string) time.Time {
	t.Helper()
	dt, err := tz.ParseDateTime(civil)
	if err != nil {
		t.Fatal(err)
	}
	at, _ := tz.MustZone(zone).Instant(dt)
	return at
}

// call runs a tool as who in process and fails the test unless it
// succeeded.
func (e *env) call(who tools.Person, name, raw string) {
	e.t.Helper()
	tc := &tools.ToolContext{}
	tools.Insert(tc, who)
	tools.Insert(tc, e.s)
	tools.Insert(tc, tools.Clock(func() time.Time { return e.now }))
	if res, _ := e.reg.Call(e.ctx, tc, name, []byte(raw)); !res.OK() {
		e.t.Fatalf("%s %s: code %d: %s", name, raw, res.Code, res.Err)
	}
}

// row is one reminder_deliveries row, for assertions.
type row struct {
	Item, Occurrence, Trigger, DeliveryID, Status, LastError string
	FireAt                                                   time.Time
	Attempts                                                 int
}

func (e *env) rows() []row {
	e.t.Helper()
	q, err := e.s.DB().QueryContext(e.ctx, `SELECT item, occurrence, trigger, delivery_id, status, last_error,
		fire_at, attempts FROM reminder_deliveries ORDER BY fire_at, id`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer q.Close()
	var out []row
	for q.Next() {
		var r row
		var fire int64
		if err := q.Scan(&r.Item, &r.Occurrence, &r.Trigger, &r.DeliveryID, &r.Status, &r.LastError, &fire, &r.Attempts); err != nil {
			e.t.Fatal(err)
		}
		r.FireAt = time.Unix(fire, 0).UTC()
		out = append(out, r)
	}
	return out
}

// command is the binary with a fixed clock on e's database: a SQLite
// file named by ASSISTANT_DB, a PostgreSQL database by --db.
func (e *env) command(t *testing.T, now time.Time, extra []string, args ...string) *exec.Cmd {
	home := t.TempDir()
	environ := []string{
		"ASSISTANT_NOW=" + now.Format(time.RFC3339),
		"HOME=" + home, "XDG_CONFIG_HOME=" + home, "USER=ada", "TZ=Europe/Paris",
		"PATH=" + os.Getenv("PATH"),
	}
	if storetest.Engine(t) == storetest.Postgres {
		args = append([]string{"--db", e.path}, args...)
	} else {
		environ = append(environ, "ASSISTANT_DB="+e.path)
	}
	cmd := exec.Command(crashBinary(t), args...)
	cmd.Env = append(environ, append(extra, e.binEnv...)...)
	return cmd
}

// once runs `remind --once` (plus args) to the end: stdout, stderr, exit code.
func (e *env) once(t *testing.T, now time.Time, args ...string) ([]remind.Message, string, int) {
	t.Helper()
	cmd := e.command(t, now, nil, append([]string{"remind", "--once"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code, err := exitCode(cmd.Run())
	if err != nil {
		t.Fatal(err)
	}
	return decodeLines(t, out.String()), errb.String(), code
}

func decodeLines(t *testing.T, s string) []remind.Message {
	t.Helper()
	var out []remind.Message
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var m remind.Message
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not a message: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// A process killed with SIGKILL after sending and before marking: while
// it lives (stopped there) it keeps renewing its lease, on the real clock,
// so a pass whose ASSISTANT_NOW reads minutes later sends nothing; once it
// is dead the lease runs out and the next pass sends the reminder again
// with the same delivery id, and exactly one sent record remains.
func TestCrashBetweenClaimAndMark(t *testing.T) { storetest.Engines(t, testCrashBetweenClaimAndMark) }

func testCrashBetweenClaimAndMark(t *testing.T) {
	e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
	e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
	due := civilAt(t, "Europe/Paris", "2026-10-05T08:45")
	e.binEnv = []string{"ASSISTANT_REMIND_LEASE=" + testLease.String()}

	cmd := e.command(t, due, []string{"ASSISTANT_REMIND_STOP=after-send"}, "remind", "--once")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	stopped := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "remind: stopped after sending "); ok {
				stopped <- id
			}
		}
		close(stopped)
	}()
	var firstID string
	select {
	case firstID = <-stopped:
	case <-time.After(60 * time.Second):
		t.Fatal("the binary never reached the stop after sending")
	}
	first := decodeLines(t, <-lines)
	if len(first) != 1 || first[0].DeliveryID != firstID || first[0].Attempt != 1 {
		t.Fatalf("first send %+v, stopped at %s", first, firstID)
	}

	// While the holder lives, its lease outlasts its first term, and a
	// pass whose clock reads 3 minutes later leaves the delivery alone.
	e.waitRenewed(t)
	msgs, _, code := e.once(t, due.Add(3*time.Minute))
	if len(msgs) != 0 || code != 0 {
		t.Fatalf("while the holder lives: %+v, exit %d", msgs, code)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if rows := e.rows(); len(rows) != 1 || rows[0].Status != "claimed" {
		t.Fatalf("after the kill: %+v, want one claimed row", rows)
	}
	// Once its lease runs out, it is sent again under the same id.
	msgs = e.onceUntilSent(t, due.Add(3*time.Minute))
	if len(msgs) != 1 || msgs[0].DeliveryID != firstID || msgs[0].Attempt != 2 || msgs[0].FireAt != first[0].FireAt {
		t.Errorf("resend %+v, want delivery id %s, attempt 2", msgs, firstID)
	}
	msgs, _, _ = e.once(t, due.Add(time.Hour))
	if len(msgs) != 0 {
		t.Errorf("sent once more after being marked: %+v", msgs)
	}
	rows := e.rows()
	if len(rows) != 1 || rows[0].Status != "sent" || rows[0].DeliveryID != firstID {
		t.Errorf("records %+v, want exactly one sent", rows)
	}
}

// testLease is the lease the binaries of these tests hold (remind/crash.go):
// short, so a dead holder's lease runs out within a test.
const testLease = 6 * time.Second

// waitRenewed waits until the one claimed delivery's lease was renewed
// past the end of its first term on the real clock, so a second process
// finds it held only thanks to its holder's renewals.
func (e *env) waitRenewed(t *testing.T) {
	t.Helper()
	first := e.leaseUntil(t)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if l := e.leaseUntil(t); l > first && time.Now().Unix() > first {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the lease was never renewed while its holder ran")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (e *env) leaseUntil(t *testing.T) int64 {
	t.Helper()
	var l sql.NullInt64
	if err := e.s.DB().QueryRowContext(e.ctx, `SELECT lease_until FROM reminder_deliveries WHERE status = 'claimed'`).
		Scan(&l); err != nil {
		t.Fatal(err)
	}
	return l.Int64
}

// onceUntilSent runs `remind --once` until a pass sends something (a dead
// holder's lease runs out on the real clock), at most for 60 s.
func (e *env) onceUntilSent(t *testing.T, now time.Time) []remind.Message {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		cmd := e.command(t, now, nil, "remind", "--once")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("remind --once: %v\n%s", err, errb.String())
		}
		if msgs := decodeLines(t, out.String()); len(msgs) > 0 {
			return msgs
		}
		if time.Now().After(deadline) {
			t.Fatal("the dead holder's lease never ran out")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Two real processes and a slow notifier: the first pass's --exec is still
// running (it waits until the test lets it go) when a second process
// passes, with a clock 3 minutes later and after the first term of the
// lease ran out on the real clock. The second sends nothing, the first
// finishes, and each delivery went out once.
func TestSlowNotifierHoldsTheLease(t *testing.T) { storetest.Engines(t, testSlowNotifierHoldsTheLease) }

func testSlowNotifierHoldsTheLease(t *testing.T) {
	e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
	e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
	due := civilAt(t, "Europe/Paris", "2026-10-05T08:45")
	dir := t.TempDir()
	log, release := filepath.Join(dir, "sent.log"), filepath.Join(dir, "release")
	slow := `echo "$ASSISTANT_DELIVERY_ID" >>'` + log + `'; while [ ! -e '` + release + `' ]; do sleep 0.1; done`
	fast := `echo "$ASSISTANT_DELIVERY_ID" >>'` + log + `'`
	e.binEnv = []string{"ASSISTANT_REMIND_LEASE=" + testLease.String()}

	first := e.command(t, due, nil, "remind", "--once", "--exec", slow)
	var errb bytes.Buffer
	first.Stderr = &errb
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	sent := func() []string {
		b, _ := os.ReadFile(log)
		return strings.Fields(string(b))
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(sent()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the first process never started its send\n%s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.waitRenewed(t)
	_, stderrText, code := e.once(t, due.Add(3*time.Minute), "--exec", fast)
	if code != 0 || len(sent()) != 1 {
		t.Fatalf("the second process: exit %d, sends %v\n%s", code, sent(), stderrText)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the first process: %v\n%s", err, errb.String())
	}
	_, _, code = e.once(t, due.Add(5*time.Minute), "--exec", fast)
	if got := sent(); code != 0 || len(got) != 1 {
		t.Fatalf("sends %v (exit %d), want the one delivery once", got, code)
	}
	if rows := e.rows(); len(rows) != 1 || rows[0].Status != "sent" || rows[0].Attempts != 1 {
		t.Errorf("records %+v, want one sent after one attempt", rows)
	}
}

// --once exits with 9 when a delivery failed and 0 when all went out;
// --status lists what happened.
func TestBinaryExitCodeAndStatus(t *testing.T) { storetest.Engines(t, testBinaryExitCodeAndStatus) }

func testBinaryExitCodeAndStatus(t *testing.T) {
	e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
	e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
	due := civilAt(t, "Europe/Paris", "2026-10-05T08:45")
	if _, _, code := e.once(t, due.Add(-time.Hour)); code != 0 {
		t.Fatalf("nothing due: exit %d", code)
	}
	_, stderrText, code := e.once(t, due, "--exec", "exit 1")
	if code != 9 {
		t.Fatalf("a failing --exec: exit %d, want 9\n%s", code, stderrText)
	}
	_, _, code = e.once(t, due.Add(time.Minute), "--exec", "cat >/dev/null")
	if code != 0 {
		t.Fatalf("the retry: exit %d, want 0", code)
	}
	cmd := e.command(t, due.Add(2*time.Minute), nil, "remind", "--status")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ada (Europe/Paris)", "sent: 1", "“Buy milk” 15 min before", "failed: 0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if _, stderrText, code := e.once(t, due, "--digest", "7h"); code != 1 || !strings.Contains(stderrText, "“--digest”") {
		t.Errorf("a bad --digest: exit %d, %s", code, stderrText)
	}
	// A reminder given up (missed by more than --max-late) exits 9 too,
	// so cron mails it.
	e.call(e.ada, "add_task", `{"title":"Call","due":"2026-10-05T11:00","remind_before":[0]}`)
	if _, stderrText, code := e.once(t, due.Add(5*time.Hour), "--max-late", "1h"); code != 9 {
		t.Errorf("a reminder skipped past --max-late: exit %d, want 9\n%s", code, stderrText)
	}
}

// The loop stops cleanly on SIGTERM and exits 0.
func TestLoopStopsOnSIGTERM(t *testing.T) { storetest.Engines(t, testLoopStopsOnSIGTERM) }

func testLoopStopsOnSIGTERM(t *testing.T) {
	e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
	cmd := e.command(t, e.now, nil, "remind", "--every", "1s")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(errb.String(), "reminders loop started") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "reminders loop stopped") {
		t.Errorf("no clean stop in the log:\n%s", errb.String())
	}
}

// Through the binary: on a person stored in UTC, `--tz Europe/Paris call
// add_task remind_at=2026-10-05T17:48` fires at 17:48 Paris time (15:48Z).
func TestBinaryTZReminder(t *testing.T) { storetest.Engines(t, testBinaryTZReminder) }

func testBinaryTZReminder(t *testing.T) {
	e := newEnv(t, time.Date(2026, 10, 5, 10, 0, 0, 0, time.UTC))
	e.person("cy", "UTC")
	add := e.command(t, e.now, nil, "--person", "cy", "--tz", "Europe/Paris", "call", "add_task", "title=X", "remind_at=2026-10-05T17:48")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("add_task: %v\n%s", err, out)
	}
	if msgs, _, code := e.once(t, time.Date(2026, 10, 5, 15, 47, 0, 0, time.UTC)); code != 0 || len(msgs) != 0 {
		t.Fatalf("at 15:47Z: %+v, exit %d", msgs, code)
	}
	msgs, stderrText, code := e.once(t, time.Date(2026, 10, 5, 15, 48, 0, 0, time.UTC))
	if code != 0 || len(msgs) != 1 || msgs[0].FireAt != "2026-10-05T15:48:00+00:00" {
		t.Fatalf("at 15:48Z: %+v, exit %d\n%s", msgs, code, stderrText)
	}
}
