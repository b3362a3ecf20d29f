package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tz"
)

// newRootCmd builds the command tree around a.
func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "assistant",
		Short: "Keep your tasks and calendar, and let a language model work on them",
		Long: `assistant keeps a person's tasks and calendar in one SQLite file (or in a
PostgreSQL database, --db postgres://…) and lets a language model work on
them through one set of tools, from a chat in the terminal, an MCP client,
a reminders job, or the shell.

Settings come from flags, then environment variables, then the config file
($XDG_CONFIG_HOME/assistant/config.toml), then defaults.`,
		Example: `  assistant chat
  assistant call add_task title="Buy milk" due=2026-12-01
  assistant call list_tasks --json
  assistant tools`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.configure(cmd)
		},
	}
	group(root)
	a.root = root
	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.db, "db", "", "the database: a SQLite file, or a postgres://user@host/database URL (env ASSISTANT_DB; default $XDG_DATA_HOME/assistant/assistant.db)")
	pf.BoolVar(&a.flags.dbReadOnly, "db-read-only", false, "open the database for reading only: reads work on a read-only file or folder (or a PostgreSQL standby), writes are refused")
	pf.StringVar(&a.flags.person, "person", "", "act as this person (env ASSISTANT_PERSON; default the local person)")
	pf.StringVar(&a.flags.tz, "tz", "", "use this IANA zone for this run without storing it (env ASSISTANT_TZ)")
	pf.StringVar(&a.flags.logLevel, "log-level", "", "debug, info, warn or error (env ASSISTANT_LOG; default info)")
	pf.StringVar(&a.flags.config, "config", "", "the config file (env ASSISTANT_CONFIG; default $XDG_CONFIG_HOME/assistant/config.toml)")
	_ = root.RegisterFlagCompletionFunc("tz", completeZones)

	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError(cmd, "%s", flagSentence(err))
	})

	root.AddCommand(
		newChatCmd(a),
		newDoctorCmd(a),
		newTodayCmd(a),
		newAgendaCmd(a),
		newMCPCmd(a),
		newServeCmd(a),
		newRemindCmd(a),
		newCallCmd(a),
		newToolsCmd(a),
		newImportCmd(a),
		newExportCmd(a),
		newPersonCmd(a),
		newTokenCmd(a),
		newFeedCmd(a),
		newMigrateCmd(a),
		newDBCmd(a),
		newPurgeCmd(a),
		newVersionCmd(a),
	)
	root.CompletionOptions.HiddenDefaultCmd = false
	// cobra would add `completion` only when it executes, as a command
	// that prints its help and exits 0 for a shell it does not know
	// (`completion tcsh`); made now, it is a group like the others.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			// Shell names are short, so a suggestion is a guess (tcsh →
			// bash); the list of shells says more.
			c.DisableSuggestions = true
			group(c)
		}
	}
	return root
}

// group makes a command whose work is in its subcommands: alone it prints
// its help, and an unknown subcommand is a usage error (cobra would
// otherwise print the help and exit 0).
func group(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		var names []string
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2
		}
		if sug := c.SuggestionsFor(args[0]); len(sug) > 0 && !c.DisableSuggestions {
			return usageError(c, "unknown command “%s” for “%s”; did you mean “%s”?", args[0], c.CommandPath(), sug[0])
		}
		return usageError(c, "unknown command “%s” for “%s”; use one of %s", args[0], c.CommandPath(), strings.Join(names, ", "))
	}
	return cmd
}

// exactArgs is cobra.ExactArgs with a sentence naming what is missing.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError(cmd, "“%s” takes %s", cmd.CommandPath(), what)
		}
		return nil
	}
}

// minArgs is cobra.MinimumNArgs with a sentence naming what is missing.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError(cmd, "“%s” needs %s", cmd.CommandPath(), what)
		}
		return nil
	}
}

// flagKinds say what a flag of each pflag type takes, for the sentence of
// a value it could not read.
var flagKinds = map[string]string{
	"bool": "true or false", "int": "a whole number", "int64": "a whole number", "int32": "a whole number",
	"uint": "a whole number", "uint64": "a whole number", "float64": "a number",
	"duration": "a duration such as 30s, 5m or 1h",
}

// flagSentence rewords pflag's refusal of a flag's value in the CLI's
// words, echoing the value as written: “--read-only” must be true or false,
// not “maybe” (pflag says strconv.ParseBool: parsing "maybe": invalid
// syntax). Other flag errors (an unknown flag) pass as they are.
func flagSentence(err error) string {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		f := iv.GetFlag()
		if kind, ok := flagKinds[f.Value.Type()]; ok {
			if errors.Is(err, strconv.ErrRange) {
				kind += " of at most 19 digits" // what int64 holds, and more than any id here needs
			}
			return fmt.Sprintf("“--%s” must be %s, not “%s”", f.Name, kind, iv.GetValue())
		}
		return fmt.Sprintf("“--%s” cannot be “%s”; see the flag in the help", f.Name, iv.GetValue())
	}
	var vr *pflag.ValueRequiredError
	if errors.As(err, &vr) {
		return fmt.Sprintf("“--%s” needs a value after it", vr.GetFlag().Name)
	}
	return err.Error()
}

// completeZones offers IANA zone names for --tz and --zone.
func completeZones(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, n := range tz.ZoneNames() {
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(toComplete)) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeTools completes the last name of a --tools list ("tasks,li"):
// the groups and the tools' names, after the names already written.
func completeTools(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	done, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	names := []string{tools.AllTools}
	for _, g := range catalog.Groups() {
		names = append(names, g.Name)
	}
	names = append(append(names, tools.ReadOnlyTools), newRegistry().Names()...)
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, strings.ToLower(last)) {
			out = append(out, done+n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// printf writes to the command's standard output.
func (a *app) printf(format string, args ...any) {
	fmt.Fprintf(a.stdout, format, args...)
}
