package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/agent"
	"github.com/assistant-dev/assistant/store"
)

// chatOptions are the flags of `assistant chat`.
type chatOptions struct {
	Message      string // -m: answer this one message and exit; "-" reads standard input
	New          bool   // start a new conversation instead of resuming the last
	Conversation int64  // resume this conversation
	List         bool   // list the person's conversations and exit
	MaxSteps     int    // model requests per message before giving up
	NoHistory    bool   // keep no line history on disk
	Settings     chatSettings
}

func newChatCmd(a *app) *cobra.Command {
	var o chatOptions
	cmd := &cobra.Command{
		Use:   "chat [-m MESSAGE | --list]",
		Short: "Talk with a model that keeps your tasks and calendar",
		Long: `Open a chat in the terminal with a model that works on your tasks and
calendar through the tools; each tool call shows as one line. With -m, answer
one message and exit (for scripts; -m - reads it from standard input, as
does a chat whose standard input is not a terminal).

The model is any OpenAI-compatible Chat Completions server: --base-url (or
OPENAI_BASE_URL), --model (or ASSISTANT_MODEL) and OPENAI_API_KEY. With no
key and no base URL, a local Ollama at http://localhost:11434/v1 is used.
The last conversation resumes unless --new or --conversation is given;
--list shows your conversations with their ids, and -m names the one it
used on standard error ("conversation 3").
A long conversation sends only its latest turns, at most --history-budget
characters (or ASSISTANT_HISTORY_BUDGET, or history_budget in the config
file's [chat] table; default 60000); lower it for a model with a small
context. The database keeps every turn.
--tools offers the model fewer tools, which a small context needs too:
a group (tasks, calendar, read-only, or all, the default) or tool names,
comma-separated, such as tasks,list_events (or ASSISTANT_CHAT_TOOLS, or
tools in the config file's [chat] table); "assistant tools" lists the
names. "assistant call" runs any tool whatever this says.
Ctrl-C stops the answer being written (the text shown so far is kept in
the conversation, marked [stopped]). At the prompt, Ctrl-D leaves (typed
while an answer is written, once it ends), and so does Ctrl-C pressed twice
on an empty line (exit 130). The lines you type
are kept for recall (up arrow) in a file of your own next to the
database file (for a PostgreSQL database, in the folder of the default
database file); --no-history keeps none.`,
		Example: `  assistant chat
  assistant chat -m "What is on my calendar this week?"
  assistant chat --list
  assistant chat --conversation 3
  OPENAI_API_KEY=sk-... ASSISTANT_MODEL=gpt-4.1-mini assistant chat
  assistant chat --base-url http://localhost:8080/v1 --model qwen3
  assistant chat --history-budget 8000   # a model with a small context
  assistant chat --tools tasks           # offer the task tools only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Settings, err = a.chatSettings(cmd); err != nil {
				return err
			}
			if o.New && o.Conversation != 0 {
				return usageError(cmd, "give --new or --conversation, not both")
			}
			if o.List && (o.New || o.Conversation != 0 || cmd.Flags().Changed("message")) {
				return usageError(cmd, "--list shows the conversations and exits; give it without -m, --new or --conversation")
			}
			if o.MaxSteps < 1 || o.MaxSteps > agent.MaxStepsLimit {
				return failf(exitInvalid, "“--max-steps” must be a number from 1 to %d, not “%d”", agent.MaxStepsLimit, o.MaxSteps)
			}
			return runChat(cmd, a, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Message, "message", "m", "", "answer this one message and exit (- reads standard input)")
	f.BoolVar(&o.New, "new", false, "start a new conversation")
	f.Int64Var(&o.Conversation, "conversation", 0, "resume this conversation by id (see --list)")
	f.BoolVar(&o.List, "list", false, "list your conversations, newest first, and exit")
	f.IntVar(&o.MaxSteps, "max-steps", agent.DefaultMaxSteps, fmt.Sprintf("model requests per message before stopping (1 to %d)", agent.MaxStepsLimit))
	f.BoolVar(&o.NoHistory, "no-history", false, "keep no history of the lines typed")
	f.String("model", "", "the model name (env ASSISTANT_MODEL)")
	f.String("base-url", "", "an OpenAI-compatible endpoint ending in /v1 (env OPENAI_BASE_URL)")
	// A string, so a wrong value gets the settings' sentence naming where it
	// came from, as a wrong ASSISTANT_HISTORY_BUDGET does.
	f.StringSlice("tools", nil, "offer the model only these tools: groups (all, tasks, calendar, read-only) or tool names, comma-separated or the flag repeated (env ASSISTANT_CHAT_TOOLS)")
	_ = cmd.RegisterFlagCompletionFunc("tools", completeTools)
	f.String("history-budget", "", fmt.Sprintf("send at most `N` characters of the conversation with each request (default %d; env ASSISTANT_HISTORY_BUDGET)", agent.DefaultHistoryBudget))
	return cmd
}

// runChat is the chat front's entry point: one message (-m, or standard
// input that is not a terminal) or an interactive chat, in the person's
// stored conversation.
func runChat(cmd *cobra.Command, a *app, o chatOptions) error {
	if o.List {
		return listChats(cmd.Context(), a)
	}
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
	ag, err := agent.New(agent.Config{
		BaseURL:  o.Settings.BaseURL,
		APIKey:   o.Settings.APIKey,
		Model:    o.Settings.Model,
		Registry: o.Settings.Tools,
		Context:  a.toolContext(st, p),
		MaxSteps: o.MaxSteps,
		// 0 (not set) lets the agent use its default.
		HistoryBudget: o.Settings.HistoryBudget,
		Stream:        true,
		Out:           a.stdout,
		Log:           a.log,
	})
	if err != nil {
		var ae *agent.Error
		if errors.As(err, &ae) {
			return chatFail(err)
		}
		return fail(exitInternal, err)
	}
	// An interactive chat checks the server before it shows a prompt, so
	// "nothing answers" comes before the person types. A one-shot message
	// asks nothing first: its own request says the same in one sentence,
	// and a script should not pay a second round trip on every run; it
	// asks only when the model must be taken from the server's list.
	var note string
	if oneShot {
		note, err = ag.ChooseModel(ctx)
	} else {
		note, err = ag.Probe(ctx)
	}
	if err != nil {
		return chatFail(err)
	}
	if note != "" {
		fmt.Fprintln(a.stderr, note)
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
		return oneMessage(ctx, a, ag, conv, message)
	}
	history := ""
	if !o.NoHistory {
		history = chatHistoryPath(a.dbPath, p.ID)
	}
	return interactiveChat(ctx, a, ag, conv, p.Name, history)
}

// oneMessage answers message in conv (chat -m, or a piped message). The
// agent ends its own last line on Out, whatever way the turn ends, so a
// Ctrl-C leaves no half-written line. When the turn stored something, the
// conversation's id follows on standard error, so a script can come back
// to it with --conversation; "(stopped)" says an answer was cut by Ctrl-C.
func oneMessage(ctx context.Context, a *app, ag *agent.Agent, conv *agent.StoreConversation, message string) error {
	before := storedCount(ctx, conv)
	_, err := ag.Turn(ctx, conv, message)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(a.stderr, "(stopped)")
	}
	if storedCount(ctx, conv) > before {
		fmt.Fprintf(a.stderr, "conversation %d\n", conv.ID)
	}
	return chatFail(err)
}

// storedCount is how many messages conv holds; -1 when it cannot be read
// (the turn's own error then says why).
func storedCount(ctx context.Context, conv *agent.StoreConversation) int {
	msgs, err := conv.Load(context.WithoutCancel(ctx))
	if err != nil {
		return -1
	}
	return len(msgs)
}

// listChats prints the person's conversations, the one `assistant chat`
// resumes first: id, when it started and when its last message came (in
// the person's zone), how many messages it holds, and the first line they
// wrote in it, clipped. It needs no model server.
func listChats(ctx context.Context, a *app) error {
	st, p, err := a.session(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	convs, err := agent.ListStoreConversations(ctx, st, p.ID)
	if err != nil {
		return storeFail(err)
	}
	if len(convs) == 0 {
		fmt.Fprintln(a.stdout, "No conversations yet; `assistant chat` starts one.")
		return nil
	}
	const when = "Mon 2006-01-02 15:04"
	loc := p.Zone.Location()
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tLAST MESSAGE\tMESSAGES\tFIRST LINE")
	for _, c := range convs {
		first := c.FirstLine
		if first == "" {
			first = "–"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\n", c.ID, c.Created.In(loc).Format(when), c.LastMessage.In(loc).Format(when),
			c.Messages, clipLine(first, 50))
	}
	if err := tw.Flush(); err != nil {
		return fail(exitInternal, err)
	}
	fmt.Fprintf(a.stdout, "Times in %s. Resume one with `assistant chat --conversation ID`.\n", p.Zone.Name())
	return nil
}

// clipLine cuts s to at most n characters, ending a cut one with "…".
func clipLine(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// chatHistoryPath is the file in which an interactive chat keeps the lines
// person typed, for recall with the up arrow: beside the database db, named
// after it and the person's id ("assistant.db.chat_history.3"), so neither
// two people nor two databases in one folder share one. db is the
// database's location as store.Open takes it: for a file: URL the file's
// path counts, and a PostgreSQL database, which has no folder here, keeps
// its histories in the folder of the default database file, named after
// its server, database and user (see historyBase). "" when there is no
// such place: the lines then stay in memory.
func chatHistoryPath(db string, person int64) string {
	base := historyBase(db)
	if base == "" {
		return ""
	}
	return base + ".chat_history." + strconv.FormatInt(person, 10)
}

// historyBase is the path the chat history files of the database at db
// start with: the SQLite file's path, or for a PostgreSQL URL
// $XDG_DATA_HOME/assistant/postgres-HASH, HASH 16 hex digits of a SHA-256
// of the URL's user, host, port and database (not its password or
// parameters, which may change while the database stays the same). ""
// for a location store.ParseLocation refuses, or when there is no home
// folder for the default database.
func historyBase(db string) string {
	engine, path, err := store.ParseLocation(db)
	if err != nil {
		return ""
	}
	if engine != store.Postgres {
		return path
	}
	def, err := store.DefaultPath()
	if err != nil {
		return ""
	}
	u, err := url.Parse(path)
	if err != nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	key := u.User.Username() + "@" + u.Hostname() + ":" + port + "/" + strings.TrimPrefix(u.Path, "/")
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(filepath.Dir(def), "postgres-"+hex.EncodeToString(sum[:8]))
}

// removeChatHistory deletes person's line history of the database db; a
// history that does not exist is no error. `person delete` calls it after
// deleting the person: a later person may get the same id.
func removeChatHistory(db string, person int64) error {
	path := chatHistoryPath(db, person)
	if path == "" {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot remove the chat history “%s”: %w", path, err)
	}
	return nil
}

// removeChatHistories deletes the line histories of every person of the
// database db, and the "chat_history" file beside it that earlier
// versions shared between everyone. Histories have no dates, so purging
// chats removes them whole.
func removeChatHistories(db string) error {
	db = historyBase(db)
	if db == "" {
		return nil
	}
	dir, base := filepath.Split(db)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot list the folder “%s” of the database: %w", dir, err)
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		rest, ours := strings.CutPrefix(name, base+".chat_history.")
		if ours {
			_, err := strconv.ParseInt(rest, 10, 64)
			ours = err == nil
		}
		if !ours && name != "chat_history" {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("cannot remove the chat history “%s”: %w", filepath.Join(dir, name), err))
		}
	}
	return errors.Join(errs...)
}

// interactiveChat reads lines with editing and history and answers each.
// A failure the person must fix outside (no server, a bad key, an unknown
// model) ends the chat with its exit code; a passing one is told and the
// chat goes on.
// history is the file of lines to recall ("" keeps them in memory only).
func interactiveChat(ctx context.Context, a *app, ag *agent.Agent, conv *agent.StoreConversation, name, history string) error {
	// readline makes the file with the umask's mode; what a person typed is
	// theirs alone, whoever made the file first.
	if history != "" {
		// A PostgreSQL database's histories live in the default database's
		// folder, which a person who never used a file may not have yet.
		_ = os.MkdirAll(filepath.Dir(history), 0o700)
		if f, err := os.OpenFile(history, os.O_CREATE|os.O_RDONLY, 0o600); err == nil {
			f.Close()
			if err := os.Chmod(history, 0o600); err != nil {
				a.log.Warn("the chat history stays in memory", "file", history, "err", err)
				history = ""
			}
		} else {
			a.log.Warn("the chat history stays in memory", "file", history, "err", err)
			history = ""
		}
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
	// Operation.Close (its io.EOF). rl.Close is never called: readline
	// v1.5.1 waits there for its reader goroutine, which may sit in a read
	// of the terminal that closing does not cancel (a Ctrl-D typed while
	// an answer was written reaches the next prompt as a NUL that ends it,
	// and the reader goes on reading), so the chat would never exit. Each
	// Readline restores the terminal's mode itself, and Operation.Close
	// closes the history file; the process is about to exit, so that
	// goroutine is left as it is.
	turns := &chatSignals{atPrompt: func() { rl.Operation.Close() }}
	defer func() {
		if !turns.closedPrompt() {
			rl.Operation.Close()
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
	// A Ctrl-C on an empty line leaves only when pressed twice in a row,
	// as Node's and Python's prompts have it: a single one, pressed to stop
	// an answer that had just ended, must not close the chat.
	leaving := false
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
			if strings.TrimSpace(line) != "" {
				leaving = false // Ctrl-C clears the line typed
				continue
			}
			if leaving {
				return quietExit(exitCancelled)
			}
			leaving = true
			fmt.Fprintln(a.stderr, "(press Ctrl-C again or Ctrl-D to leave)")
			continue
		}
		leaving = false
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
		var me *agent.MessageError
		switch {
		case errors.Is(err, context.Canceled):
			fmt.Fprintln(a.stderr, "(stopped)")
		case errors.As(err, &me):
			// a line typed (or pasted) that cannot be sent; the chat goes on
			fmt.Fprintln(a.stderr, me.Sentence+".")
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
	var me *agent.MessageError
	if errors.As(err, &me) {
		return fail(exitInvalid, err)
	}
	if t := store.TroubleOf(err); t != store.NoTrouble {
		// The conversation could not be saved: a full disk, a read-only
		// database.
		return fail(troubleExit(t), errors.New(store.Explain(err, "")))
	}
	return fail(agent.ExitCode(err), err)
}

// isTerminal reports whether r is a terminal (not a pipe or a file).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}
