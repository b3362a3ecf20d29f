// Command assistant keeps a person's tasks and calendar and lets a language
// model work on them. One binary holds every front: `chat` (an
// OpenAI-compatible model), `mcp` (an MCP server), `remind` (the reminders
// job) and `call` (one tool from the shell), plus the commands that look
// after the data (`person`, `token`, `migrate`, `purge`, `import`, `export`).
//
// Settings come from flags, then environment variables, then the config
// file $XDG_CONFIG_HOME/assistant/config.toml, then defaults; exit codes
// are listed in docs/cli.md and in exit.go.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
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
	return execute(ctx, a, newRootCmd(a), argv, stdin, stdout, stderr)
}

// stopped tells whether err is only the end a signal asked for: the
// context was cancelled and the command gave up because of it (a bare
// context.Canceled, or the quiet exitCancelled). A command that said more
// (the copy was interrupted, nothing kept) keeps its own sentence.
func stopped(ctx context.Context, err error) bool {
	if ctx.Err() == nil {
		return false
	}
	var ee *exitError
	if errors.As(err, &ee) && ee.code == exitCancelled && ee.err == nil {
		return true
	}
	return errors.Is(err, context.Canceled)
}

// execute runs root on argv and returns the exit code. A panic of the
// command (a bug) is told in one sentence with exitInternal; its value and
// stack go to the log at debug level only, never to the person.
func execute(ctx context.Context, a *app, root *cobra.Command, argv []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			a.log.Debug("the command panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			fmt.Fprintln(stderr, "assistant: something went wrong inside the assistant (a bug), and the command stopped; run it again with --log-level debug to see where, and report that.")
			code = exitInternal
		}
	}()
	root.SetArgs(argv)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if stopped(ctx, err) {
		if a.service {
			return exitOK
		}
		return exitCancelled
	}
	if code, msg := a.trouble(err); code != 0 {
		fmt.Fprintf(stderr, "assistant: %s\n", msg)
		return code
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
	fmt.Fprintf(stderr, "assistant: %s\n", oneLine(cobraSentence(cmd, err)))
	return exitUsage
}

// cobra's own refusals of a command line, which are said again in the
// CLI's words (cobra v1.10 args.go).
var (
	cobraUnknown = regexp.MustCompile(`^unknown command "(.*)" for "(.*)"`)
	cobraCount   = regexp.MustCompile(`^(accepts|requires at least|accepts at most|accepts between \d+ and) (\d+) arg\(s\), (?:only )?received (\d+)`)
)

// cobraSentence rewords an error cobra made about cmd's command line: an
// argument given to a command that takes none is not an "unknown command",
// and a count of "arg(s)" becomes a sentence naming the command and its
// help. Other errors (flags, suggestions) pass as they are.
func cobraSentence(cmd *cobra.Command, err error) string {
	msg := err.Error()
	if cmd == nil {
		return msg
	}
	if m := cobraUnknown.FindStringSubmatch(msg); m != nil && !cmd.HasAvailableSubCommands() {
		return usageError(cmd, "“%s” takes no arguments, so “%s” is one too many", cmd.CommandPath(), m[1]).Error()
	}
	if m := cobraCount.FindStringSubmatch(msg); m != nil {
		bound := strings.NewReplacer("accepts between", "between", "requires at least", "at least",
			"accepts at most", "at most", "accepts", "").Replace(m[1])
		noun := "arguments"
		if m[2] == "1" {
			noun = "argument"
		}
		return usageError(cmd, "“%s” takes %s, not %s", cmd.CommandPath(),
			strings.TrimSpace(bound+" "+m[2]+" "+noun), m[3]).Error()
	}
	return msg
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
