//go:build linux

package main

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
	cmd := exec.CommandContext(ctx, bin, args...)
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
	deadline := time.Now().Add(runLimit)
	for time.Now().Before(deadline) {
		if out := s.output(); len(out) >= after && strings.Contains(out[after:], want) {
			return
		}
		select {
		case <-s.done:
			if out := s.output(); len(out) >= after && strings.Contains(out[after:], want) {
				return
			}
			s.t.Fatalf("the chat ended before showing %q:\n%s", want, s.output())
		case <-time.After(20 * time.Millisecond):
		}
	}
	s.t.Fatalf("the chat never showed %q:\n%s", want, s.output())
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
