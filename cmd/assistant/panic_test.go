package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A command that panics (a bug) ends with one sentence and exitInternal:
// no Go panic value or stack reaches the person; the log has them at
// debug level only.
func TestPanicIsOneSentence(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", dir+"/config")
	t.Setenv("XDG_DATA_HOME", dir+"/data")
	for _, level := range []string{"info", "debug"} {
		var out, errb bytes.Buffer
		a := newApp(strings.NewReader(""), &out, &errb)
		root := newRootCmd(a)
		root.AddCommand(&cobra.Command{Use: "boom", RunE: func(cmd *cobra.Command, args []string) error {
			var items []string
			_ = items[len(args)] // index out of range: a bug
			return nil
		}})
		code := execute(context.Background(), a, root, []string{"--log-level", level, "boom"}, strings.NewReader(""), &out, &errb)
		if code != exitInternal {
			t.Errorf("%s: exit %d, want %d", level, code, exitInternal)
		}
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "assistant: something went wrong inside the assistant (a bug)") {
			t.Errorf("%s: stderr ends with %q", level, last)
		}
		stack := strings.Contains(errb.String(), "goroutine") || strings.Contains(errb.String(), "index out of range")
		if level == "info" && (len(lines) != 1 || stack) {
			t.Errorf("info: stderr has more than the sentence:\n%s", errb.String())
		}
		if level == "debug" && !stack {
			t.Errorf("debug: the log lacks the panic and its stack:\n%s", errb.String())
		}
	}
}
