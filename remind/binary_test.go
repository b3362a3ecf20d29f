package remind

import (
	"bufio"
	"bytes"
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
)

// The binary under test, built once with the remindcrash tag so a test can
// stop it between sending and marking (crash.go).
var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the assistant binary; skipped with -short")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "remind-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "assistant")
		out, err := exec.Command("go", "build", "-tags", "remindcrash", "-o", binPath,
			"github.com/assistant-dev/assistant/cmd/assistant").CombinedOutput()
		if err != nil {
			binErr = errors.New(string(out))
		}
	})
	if binErr != nil {
		t.Fatalf("cannot build the binary: %v", binErr)
	}
	return binPath
}

// run starts the binary with a fixed clock on e's database.
func (e *env) command(t *testing.T, now time.Time, extra []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary(t), args...)
	home := t.TempDir()
	cmd.Env = append([]string{
		"ASSISTANT_DB=" + e.path,
		"ASSISTANT_NOW=" + now.Format(time.RFC3339),
		"HOME=" + home, "XDG_CONFIG_HOME=" + home, "USER=ada", "TZ=Europe/Paris",
		"PATH=" + os.Getenv("PATH"),
	}, extra...)
	return cmd
}

// once runs `remind --once` (plus args) to the end: stdout, stderr, exit code.
func (e *env) once(t *testing.T, now time.Time, args ...string) ([]Message, string, int) {
	t.Helper()
	cmd := e.command(t, now, nil, append([]string{"remind", "--once"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return decodeLines(t, out.String()), errb.String(), code
}

func decodeLines(t *testing.T, s string) []Message {
	t.Helper()
	var out []Message
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var m Message
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not a message: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// A process killed with SIGKILL after sending and before marking: the
// lease keeps others off the row until it runs out, then the next pass
// sends it again with the same delivery id, and exactly one sent record
// remains.
func TestCrashBetweenClaimAndMark(t *testing.T) {
	e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
	e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T09:00","remind_before":[15]}`)
	due := civilAt(t, "Europe/Paris", "2026-10-05T08:45")

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
		cmd.Process.Kill()
		t.Fatal("the binary never reached the stop after sending")
	}
	first := decodeLines(t, <-lines)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if len(first) != 1 || first[0].DeliveryID != firstID || first[0].Attempt != 1 {
		t.Fatalf("first send %+v, stopped at %s", first, firstID)
	}
	rows := e.rows()
	if len(rows) != 1 || rows[0].Status != "claimed" {
		t.Fatalf("after the kill: %+v, want one claimed row", rows)
	}

	// While the dead process's lease holds, nobody sends it.
	msgs, _, code := e.once(t, due.Add(time.Minute))
	if len(msgs) != 0 || code != 0 {
		t.Fatalf("inside the lease: %+v, exit %d", msgs, code)
	}
	// Once it runs out, it is sent again under the same id.
	msgs, stderrText, code := e.once(t, due.Add(DefaultLease+time.Second))
	if code != 0 || len(msgs) != 1 {
		t.Fatalf("after the lease: %+v, exit %d\n%s", msgs, code, stderrText)
	}
	if msgs[0].DeliveryID != firstID || msgs[0].Attempt != 2 || msgs[0].FireAt != first[0].FireAt {
		t.Errorf("resend %+v, want delivery id %s, attempt 2", msgs[0], firstID)
	}
	msgs, _, _ = e.once(t, due.Add(time.Hour))
	if len(msgs) != 0 {
		t.Errorf("sent once more after being marked: %+v", msgs)
	}
	rows = e.rows()
	if len(rows) != 1 || rows[0].Status != "sent" || rows[0].DeliveryID != firstID {
		t.Errorf("records %+v, want exactly one sent", rows)
	}
}

// --once exits with 9 when a delivery failed and 0 when all went out;
// --status lists what happened.
func TestBinaryExitCodeAndStatus(t *testing.T) {
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
}

// The loop stops cleanly on SIGTERM and exits 0.
func TestLoopStopsOnSIGTERM(t *testing.T) {
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
