// Command assistant keeps a person's tasks and calendar and lets a language
// model work on them. One binary holds every front: `chat` (an
// OpenAI-compatible model), `mcp` (an MCP server), `remind` (the reminders
// job) and `call` (one tool from the shell), plus the commands that look
// after the data (`person`, `token`, `migrate`, `purge`, `import`, `export`).
//
// Settings come from flags, then environment variables, then the config
// file $XDG_CONFIG_HOME/assistant/config.toml, then defaults; exit codes
// are listed in docs/readme/cli.md and in exit.go.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the command line argv and returns the exit code. The first
// SIGINT or SIGTERM cancels the command's context so it can finish cleanly;
// a second one ends the process the default way.
func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()

	a := newApp(stdin, stdout, stderr)
	root := newRootCmd(a)
	root.SetArgs(argv)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "assistant: %s\n", oneLine(ee.err.Error()))
		}
		return ee.code
	}
	// Not ours: cobra refused the command line (a flag, an argument count,
	// an unknown command).
	fmt.Fprintf(stderr, "assistant: %s\n", oneLine(err.Error()))
	return exitUsage
}

// oneLine folds a message onto one line: cobra's suggestions come on
// several, and a usage error should be one line a script can log.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\n\nDid you mean this?\n\t", "; did you mean ")
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\t' })
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	return strings.Join(fields, " ")
}

// usageError is the error of a command line that cobra accepted but the
// command cannot use; hint names the help to read.
func usageError(cmd *cobra.Command, format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format+" (see “%s --help”)", append(a, cmd.CommandPath())...)}
}
