// Package testbin finds the assistant binary for tests and benchmarks
// that run it as a subprocess, as a user or a host runs it.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var built struct {
	sync.Once
	path string
	err  error
}

// Path is the absolute path of ASSISTANT_BINARY when it is set, or else
// of the binary built once per test process (go build of
// cmd/assistant into a temporary folder). A failed build fails tb.
func Path(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("ASSISTANT_BINARY"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			tb.Fatal(err)
		}
		return abs
	}
	built.Do(func() {
		dir, err := os.MkdirTemp("", "assistant-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "assistant")
		out, err := exec.Command("go", "build", "-o", built.path, "github.com/assistant-dev/assistant/cmd/assistant").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.path
}
