package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// The desktop notification recipe of docs/reminders.md, run as written:
// the assistant-notify script and the systemd service's ExecStart line,
// and the one-line --exec, each through `assistant remind --once`, with
// the real notify-send (Debian's libnotify-bin) and jq, on a session bus
// of the test's own (dbus-daemon) where the test is the notification
// server (org.freedesktop.Notifications, the Desktop Notifications
// Specification's interface) and records each Notify call. The recipe is
// read from the page, so the page and the test cannot drift apart.

// notification is one Notify call.
type notification struct{ app, summary, body string }

// notifyServer answers org.freedesktop.Notifications on a bus.
type notifyServer struct {
	mu    sync.Mutex
	calls []notification
}

// Notify records the call and returns its id (the specification's
// signature: app_name, replaces_id, app_icon, summary, body, actions,
// hints, expire_timeout).
func (s *notifyServer) Notify(app string, _ uint32, _, summary, body string, _ []string,
	_ map[string]dbus.Variant, _ int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, notification{app, summary, body})
	return uint32(len(s.calls)), nil
}

// GetCapabilities says the server shows a body.
func (s *notifyServer) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

// GetServerInformation names the server.
func (s *notifyServer) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "assistant-e2e", "assistant", "1", "1.2", nil
}

// CloseNotification does nothing.
func (s *notifyServer) CloseNotification(uint32) *dbus.Error { return nil }

func (s *notifyServer) take() []notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.calls
	s.calls = nil
	return out
}

// sessionBus starts a dbus-daemon with a session bus in dir and serves
// notifications on it; it returns the bus address.
func sessionBus(t *testing.T, dir string) (string, *notifyServer) {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	needClient(t, err == nil, "no dbus-daemon (Debian: dbus) for a session bus")
	for _, p := range []string{"notify-send", "jq"} {
		_, err := exec.LookPath(p)
		needClient(t, err == nil, "no "+p+" (Debian: libnotify-bin, jq), which the recipe runs")
	}
	cmd := exec.Command(daemon, "--session", "--nofork", "--print-address=1", "--address=unix:path="+filepath.Join(dir, "bus"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	addr = strings.TrimSpace(addr)
	if err != nil || addr == "" {
		t.Fatalf("dbus-daemon printed no address (%v): %s", err, stderr.String())
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &notifyServer{}
	if err := conn.Export(s, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("cannot own org.freedesktop.Notifications: %v %v", reply, err)
	}
	return addr, s
}

// recipe is what docs/reminders.md tells a reader to write: the
// assistant-notify script, the unit files by name, and the one-line
// --exec command.
type recipe struct {
	script  string
	units   map[string]string // "assistant-remind.service" → its text
	oneLine string
}

func readRecipe(t *testing.T) recipe {
	t.Helper()
	b, err := os.ReadFile("../docs/reminders.md")
	if err != nil {
		t.Fatal(err)
	}
	r := recipe{units: map[string]string{}}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "cat >~/.local/bin/assistant-notify <<'SCRIPT'"):
			var s []string
			for i++; i < len(lines) && lines[i] != "SCRIPT"; i++ {
				s = append(s, lines[i])
			}
			r.script = strings.Join(s, "\n") + "\n"
		case l == "```ini" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "# ~/.config/systemd/user/"):
			name := filepath.Base(strings.TrimPrefix(lines[i+1], "# "))
			var s []string
			for i += 2; i < len(lines) && lines[i] != "```"; i++ {
				s = append(s, lines[i])
			}
			r.units[name] = strings.Join(s, "\n") + "\n"
		case strings.HasPrefix(l, "assistant remind --once --exec 'j=$(cat); notify-send"):
			r.oneLine = l
		}
	}
	if r.script == "" || r.units["assistant-remind.service"] == "" || r.units["assistant-remind.timer"] == "" || r.oneLine == "" {
		t.Fatalf("docs/reminders.md lost a part of the recipe: %+v", r)
	}
	return r
}

func TestRemindNotifySendRecipe(t *testing.T) {
	r := readRecipe(t)
	h := newHome(t)
	addr, srv := sessionBus(t, t.TempDir())
	h.env["DBUS_SESSION_BUS_ADDRESS"] = addr

	// As the page says: the script in ~/.local/bin, the binary where go
	// install puts it (~/go/bin), the units in ~/.config/systemd/user.
	script := filepath.Join(h.dir, ".local", "bin", "assistant-notify")
	goBin := filepath.Join(h.dir, "go", "bin", "assistant")
	unitDir := filepath.Join(h.dir, ".config", "systemd", "user")
	for _, d := range []string{filepath.Dir(script), filepath.Dir(goBin), unitDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(script, []byte(r.script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, goBin); err != nil {
		t.Fatal(err)
	}
	for name, text := range r.units {
		if err := os.WriteFile(filepath.Join(unitDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	h.env["ASSISTANT_NOW"] = "2026-10-05T08:00:00+02:00"
	h.must("call", "add_task", "--args", `{"title":"Pay \"rent\" $100 & tip","due":"2026-10-05T09:00","remind_before":[15]}`)
	h.must("call", "add_task", "--args", `{"title":"Water 'the' plants","due":"2026-10-05T10:00","remind_before":[15]}`)

	// The service's ExecStart, with %h as systemd expands it (the home).
	var execStart string
	for _, l := range strings.Split(r.units["assistant-remind.service"], "\n") {
		if v, ok := strings.CutPrefix(l, "ExecStart="); ok {
			execStart = strings.ReplaceAll(v, "%h", h.dir)
		}
	}
	argv := strings.Fields(execStart)
	if len(argv) < 2 || argv[0] != goBin {
		t.Fatalf("ExecStart %q does not run %s", execStart, goBin)
	}
	h.env["ASSISTANT_NOW"] = "2026-10-05T08:45:00+02:00"
	runRecipe(t, h, argv...)
	want := notification{"notify-send", `Pay "rent" $100 & tip`, `Pay "rent" $100 & tip: due Mon 2026-10-05 09:00 (+02:00), in 15 min.`}
	if got := srv.take(); len(got) != 1 || got[0] != want {
		t.Errorf("the script under the service's ExecStart: notifications %q, want %q", got, want)
	}

	// The one-line --exec, run by a shell as a reader would paste it.
	h.env["ASSISTANT_NOW"] = "2026-10-05T09:45:00+02:00"
	runRecipe(t, h, "/bin/sh", "-c", r.oneLine)
	want = notification{"notify-send", `Water 'the' plants`, `Water 'the' plants: due Mon 2026-10-05 10:00 (+02:00), in 15 min.`}
	if got := srv.take(); len(got) != 1 || got[0] != want {
		t.Errorf("the one-line --exec: notifications %q, want %q", got, want)
	}

	// The unit files as systemd reads them, where systemd-analyze is.
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("no systemd-analyze here: the unit files' syntax is not checked")
		return
	}
	rt := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sa, "verify", "--user",
		filepath.Join(unitDir, "assistant-remind.service"), filepath.Join(unitDir, "assistant-remind.timer"))
	cmd.Env = append(h.environ(), "XDG_RUNTIME_DIR="+rt)
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) != 0 {
		t.Errorf("systemd-analyze verify --user: %v\n%s", err, out)
	}
}

// runRecipe runs argv in h's environment and fails the test unless it
// exits 0.
func runRecipe(t *testing.T, h *home, argv ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = h.dir
	cmd.Env = h.environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, out)
	}
}
