//go:build linux

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the binary gets tty as its
// standard streams, so it runs an interactive chat; the test types on
// and reads from pty.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to run an interactive chat on: %v", err)
	}
	fd := int(pty.Fd())
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0)
	}
	if err == nil {
		err = unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 100})
	}
	if err != nil {
		pty.Close()
		t.Skipf("cannot set up a pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		pty.Close()
		t.Skipf("cannot open the pseudo-terminal's other end: %v", err)
	}
	return pty, tty
}

// session is one interactive run of the binary on a pseudo-terminal.
type session struct {
	t    *testing.T
	cmd  *exec.Cmd
	pty  *os.File
	mu   sync.Mutex
	seen bytes.Buffer // everything the binary wrote to the terminal
	done chan struct{}
}

// interactive starts the binary with args on a terminal of its own.
func (h *home) interactive(args ...string) *session {
	h.t.Helper()
	pty, tty := openPTY(h.t)
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	h.t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, h.argv(args...)...)
	cmd.Dir, cmd.Env = h.dir, h.environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		h.t.Fatalf("starting %v: %v", args, err)
	}
	tty.Close()
	s := &session{t: h.t, cmd: cmd, pty: pty, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := pty.Read(buf)
			s.mu.Lock()
			s.seen.Write(buf[:n])
			s.mu.Unlock()
			if err != nil { // EIO once the binary has exited
				return
			}
		}
	}()
	h.t.Cleanup(func() { pty.Close() })
	return s
}

func (s *session) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen.String()
}

// waitFor waits until the terminal shows want (after the first n bytes),
// failing the test if the binary exits or runLimit passes first.
func (s *session) waitFor(want string, after int) {
	s.t.Helper()
	s.waitForAll(after, want)
}

// waitForPrompt waits until the terminal shows, after the first n bytes,
// mark and then a prompt drawn after it: the chat is reading the next
// line. A prompt alone is no proof of that, since readline draws it again
// with every key typed (and once more for the Enter), so the mark must be
// something the chat writes only once the line before was taken (an
// answer, a hint, "^C"). It returns the length of the output then, for
// the next wait.
func (s *session) waitForPrompt(mark string, after int) int {
	s.t.Helper()
	return s.waitForAll(after, mark, "› ")
}

// waitForAll waits until the terminal shows wants in that order, after
// the first n bytes, and returns the length of the output then.
func (s *session) waitForAll(after int, wants ...string) int {
	s.t.Helper()
	shows := func(out string) bool {
		if len(out) < after {
			return false
		}
		rest := out[after:]
		for _, w := range wants {
			i := strings.Index(rest, w)
			if i < 0 {
				return false
			}
			rest = rest[i+len(w):]
		}
		return true
	}
	deadline := time.Now().Add(runLimit)
	for time.Now().Before(deadline) {
		if out := s.output(); shows(out) {
			return len(out)
		}
		select {
		case <-s.done:
			if out := s.output(); shows(out) {
				return len(out)
			}
			s.t.Fatalf("the chat ended before showing %q:\n%s", wants, s.output())
		case <-time.After(20 * time.Millisecond):
		}
	}
	s.t.Fatalf("the chat never showed %q:\n%s", wants, s.output())
	return 0
}

func (s *session) typeText(text string) {
	s.t.Helper()
	if _, err := io.WriteString(s.pty, text); err != nil {
		s.t.Fatalf("typing %q: %v", text, err)
	}
}

// wait waits for the binary to exit and returns its exit code.
func (s *session) wait() int {
	s.t.Helper()
	err := s.cmd.Wait()
	<-s.done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		s.t.Fatalf("waiting for the chat: %v", err)
	}
	return 0
}
