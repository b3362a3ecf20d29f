package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/agent"
)

// chatOptions are the flags of `assistant chat`.
type chatOptions struct {
	Message      string // -m: answer this one message and exit; "-" reads standard input
	New          bool   // start a new conversation instead of resuming the last
	Conversation int64  // resume this conversation
	MaxSteps     int    // model requests per message before giving up
	Settings     chatSettings
}

func newChatCmd(a *app) *cobra.Command {
	var o chatOptions
	cmd := &cobra.Command{
		Use:   "chat [-m MESSAGE]",
		Short: "Talk with a model that keeps your tasks and calendar",
		Long: `Open a chat in the terminal with a model that works on your tasks and
calendar through the tools; each tool call shows as one line. With -m, answer
one message and exit (for scripts; -m - reads it from standard input, as
does a chat whose standard input is not a terminal).

The model is any OpenAI-compatible Chat Completions server: --base-url (or
OPENAI_BASE_URL), --model (or ASSISTANT_MODEL) and OPENAI_API_KEY. With no
key and no base URL, a local Ollama at http://localhost:11434/v1 is used.
The last conversation resumes unless --new or --conversation is given.
Ctrl-C stops the answer being written; a second Ctrl-C, or Ctrl-D at the
prompt, leaves.`,
		Example: `  assistant chat
  assistant chat -m "What is on my calendar this week?"
  OPENAI_API_KEY=sk-... ASSISTANT_MODEL=gpt-4.1-mini assistant chat
  assistant chat --base-url http://localhost:8080/v1 --model qwen3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Settings = a.chatSettings(cmd)
			if o.New && o.Conversation != 0 {
				return usageError(cmd, "give --new or --conversation, not both")
			}
			return runChat(cmd, a, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Message, "message", "m", "", "answer this one message and exit (- reads standard input)")
	f.BoolVar(&o.New, "new", false, "start a new conversation")
	f.Int64Var(&o.Conversation, "conversation", 0, "resume this conversation by id")
	f.IntVar(&o.MaxSteps, "max-steps", agent.DefaultMaxSteps, "model requests per message before stopping")
	f.String("model", "", "the model name (env ASSISTANT_MODEL)")
	f.String("base-url", "", "an OpenAI-compatible endpoint ending in /v1 (env OPENAI_BASE_URL)")
	return cmd
}

// runChat is the chat front's entry point: one message (-m, or standard
// input that is not a terminal) or an interactive chat, in the person's
// stored conversation.
func runChat(cmd *cobra.Command, a *app, o chatOptions) error {
	message, oneShot := o.Message, cmd.Flags().Changed("message")
	if message == "-" || (!oneShot && !isTerminal(a.stdin)) {
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return failf(exitInvalid, "cannot read the message from standard input: %v", err)
		}
		message, oneShot = string(b), true
	}
	if oneShot && strings.TrimSpace(message) == "" {
		return usageError(cmd, "the message is empty; write it after -m, or pipe it in")
	}

	// An interactive chat outlives a Ctrl-C (it stops one answer), so its
	// work must not hang on the root context, which the first signal ends.
	ctx := cmd.Context()
	if !oneShot {
		ctx = context.WithoutCancel(ctx)
	}
	st, p, err := a.session(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	reg := newRegistry()
	reg.Log = a.log
	ag, err := agent.New(agent.Config{
		BaseURL:  o.Settings.BaseURL,
		APIKey:   o.Settings.APIKey,
		Model:    o.Settings.Model,
		Registry: reg,
		Context:  a.toolContext(st, p),
		MaxSteps: o.MaxSteps,
		Stream:   true,
		Out:      a.stdout,
		Log:      a.log,
	})
	if err != nil {
		return fail(exitInternal, err)
	}
	var conv *agent.StoreConversation
	switch {
	case o.Conversation != 0:
		conv, err = agent.OpenStoreConversation(ctx, st, p.ID, o.Conversation)
	case o.New:
		conv, err = agent.NewStoreConversation(ctx, st, p.ID)
	default:
		conv, err = agent.ResumeStoreConversation(ctx, st, p.ID)
	}
	if err != nil {
		return storeFail(err)
	}
	a.log.Debug("chat", "model", ag.Model(), "base_url", ag.BaseURL(), "conversation", conv.ID, "person", p.Name)

	if oneShot {
		// The agent ends its own last line on Out, whatever way the turn
		// ends; another newline here would leave a blank line after it.
		_, err := ag.Turn(ctx, conv, message)
		return chatFail(err)
	}
	return interactiveChat(ctx, a, ag, conv, p.Name)
}

// interactiveChat reads lines with editing and history and answers each.
// A failure the person must fix outside (no server, a bad key, an unknown
// model) ends the chat with its exit code; a passing one is told and the
// chat goes on.
func interactiveChat(ctx context.Context, a *app, ag *agent.Agent, conv *agent.StoreConversation, name string) error {
	history := filepath.Join(filepath.Dir(a.dbPath), "chat_history")
	// readline makes the file with the umask's mode; what a person typed is
	// theirs alone.
	if f, err := os.OpenFile(history, os.O_CREATE|os.O_RDONLY, 0o600); err == nil {
		f.Close()
	} else {
		history = ""
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          "› ",
		HistoryFile:     history,
		InterruptPrompt: "^C",
		Stdout:          a.stdout,
		Stderr:          a.stderr,
	})
	if err != nil {
		return fail(exitInternal, err)
	}
	// A signal at the prompt ends the Readline in progress through
	// Operation.Close (its io.EOF). rl.Close would hang then: readline
	// v1.5.1 waits for its reader goroutine, which sits in a read of the
	// terminal that closing does not cancel; the process is about to exit,
	// so that goroutine is left as it is.
	turns := &chatSignals{atPrompt: func() { rl.Operation.Close() }}
	defer func() {
		if !turns.closedPrompt() {
			rl.Close()
		}
	}()
	fmt.Fprintf(a.stderr, "Chatting as %s with %s at %s (conversation %d). Ctrl-D leaves.\n", name, ag.Model(), ag.BaseURL(), conv.ID)

	// The terminal's Ctrl-C reaches readline as a key while the prompt
	// waits (raw mode) and as a SIGINT while a turn runs; a signal sent
	// from outside (kill -INT, kill -TERM) can come at either time.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	stop := make(chan struct{})
	defer close(stop)
	go turns.watch(sigs, stop)
	for {
		if turns.quitting() {
			return quietExit(exitCancelled)
		}
		line, err := rl.Readline()
		if turns.quitting() {
			fmt.Fprintln(a.stdout) // off the prompt's line
			return quietExit(exitCancelled)
		}
		if errors.Is(err, readline.ErrInterrupt) {
			if line == "" {
				return nil
			}
			continue
		}
		if err != nil { // io.EOF: Ctrl-D
			return nil
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		tctx, cancel := context.WithCancel(ctx)
		turns.begin(cancel)
		_, err = ag.Turn(tctx, conv, line)
		quit := turns.end()
		cancel()
		if quit {
			return quietExit(exitCancelled)
		}
		if err == nil {
			continue
		}
		var ae *agent.Error
		switch {
		case errors.Is(err, context.Canceled):
			fmt.Fprintln(a.stderr, "(stopped)")
		case errors.As(err, &ae) && ae.Kind == agent.KindUnavailable:
			fmt.Fprintln(a.stderr, ae.Sentence)
		default:
			return chatFail(err)
		}
	}
}

// chatSignals decides what a SIGINT or SIGTERM means in an interactive
// chat. While a turn runs, the first SIGINT cancels it (the agent closes
// its books: calls that ran keep their results) and a second one, or a
// SIGTERM, also asks to quit once the turn has ended. At the prompt any of
// them quits at once: nothing is running to stop, and a signal left
// waiting would otherwise cancel the next turn the moment it starts (and
// a SIGTERM would be ignored until then).
type chatSignals struct {
	atPrompt func() // unblocks the prompt's Readline; called with mu held

	mu          sync.Mutex
	cancel      context.CancelFunc // the running turn's; nil at the prompt
	interrupted bool               // the running turn had its SIGINT
	quit        bool
	// promptClosed: a signal came at the prompt and atPrompt ran.
	promptClosed bool
}

// watch handles the signals of sigs until stop is closed.
func (c *chatSignals) watch(sigs <-chan os.Signal, stop <-chan struct{}) {
	for {
		select {
		case s := <-sigs:
			c.handle(s)
		case <-stop:
			return
		}
	}
}

func (c *chatSignals) handle(s os.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel == nil {
		c.quit, c.promptClosed = true, true
		if c.atPrompt != nil {
			c.atPrompt()
		}
		return
	}
	c.cancel()
	if c.interrupted || s == syscall.SIGTERM {
		c.quit = true
	}
	c.interrupted = true
}

// begin marks a turn as running, stopped by cancel.
func (c *chatSignals) begin(cancel context.CancelFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancel, c.interrupted = cancel, false
}

// end marks the turn as over and reports whether to quit.
func (c *chatSignals) end() (quit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancel = nil
	return c.quit
}

// closedPrompt reports whether a signal at the prompt called atPrompt.
func (c *chatSignals) closedPrompt() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.promptClosed
}

func (c *chatSignals) quitting() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.quit
}

// chatFail gives a turn's error its exit code: the agent's codes for a
// model server that cannot be used (see agent.ExitCode), 130 for a
// cancelled turn.
func chatFail(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return quietExit(exitCancelled)
	}
	if errors.Is(err, agent.ErrEmptyMessage) {
		return fail(exitUsage, err)
	}
	return fail(agent.ExitCode(err), err)
}

// isTerminal reports whether r is a terminal (not a pipe or a file).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}
