package main

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/store"
)

// newDBCmd is the `db` group: work on the database as a whole.
func newDBCmd(a *app) *cobra.Command {
	cmd := group(&cobra.Command{
		Use:   "db",
		Short: "Work on the database as a whole: copy it into another one",
		Long: `Commands on the whole database of --db rather than on one person's items.
"db copy" moves it (or one person of it) into another database, for
example from the SQLite file to PostgreSQL when one machine is no longer
enough.`,
		Example: `  assistant db copy --to postgres://me@db.example/assistant`,
	})
	cmd.AddCommand(newDBCopyCmd(a))
	return cmd
}

func newDBCopyCmd(a *app) *cobra.Command {
	var to string
	var replace bool
	cmd := &cobra.Command{
		Use:   "copy --to LOCATION [--person NAME] [--replace]",
		Short: "Copy the database, or one person, into another database, verified",
		Long: `Copy everything the database of --db holds into the database --to names
(a postgres:// URL, or a SQLite file): every person with their tasks,
events, history (undo keeps working), idempotency keys, MCP tokens, chat
conversations and reminder bookkeeping, with every id kept. With --person,
only that person and everything of theirs; the target may hold other
people then, but not rows with the same ids.

The target is brought up to date first (as every command does), and the
copy is one transaction on it: after writing, every table is read back and
its row count and SHA-256 checksum compared with the source's; only when
all match is it committed, so a failure at any point leaves the target as
it was. The source is only read; stop other processes writing to it (chat,
mcp, remind) first, or their later changes stay behind.

A target that already holds data (any row, or for --person a person of
that name) is refused; --replace deletes that first, in the same
transaction. --person here names who to copy; ASSISTANT_PERSON does not.`,
		Example: `  assistant db copy --to postgres://me@db.example/assistant
  assistant db copy --to postgres://me@db.example/assistant --person alice
  assistant --db postgres://me@db.example/assistant db copy --to backup.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				return usageError(cmd, "“%s” needs --to, the database to copy into (a postgres:// URL or a file)", cmd.CommandPath())
			}
			var opts store.CopyOptions
			opts.Replace = replace
			if f := cmd.Flags().Lookup("person"); f != nil && f.Changed {
				opts.Person = a.flags.person
			}
			ctx := cmd.Context()
			// A mistyped --db must not make an empty file and copy nothing.
			if engine, path, err := store.ParseLocation(a.dbPath); err == nil && engine == store.SQLite {
				if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
					return failf(exitNotFound, "there is no database at “%s” to copy from; name the one to copy with --db", path)
				}
			}
			src, err := a.openStore(ctx, false)
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := openTarget(ctx, to, a)
			if err != nil {
				return err
			}
			defer dst.Close()
			rep, err := store.Copy(ctx, src, dst, opts)
			if err != nil {
				return copyFail(ctx, err)
			}
			what := "the whole database"
			if rep.Person != "" {
				what = "“" + rep.Person + "” with everything of theirs"
			}
			a.printf("Copied %s from %s to %s", what, rep.From, rep.To)
			if rep.Replaced {
				a.printf(", replacing what it held")
			}
			a.printf(":\n")
			for _, t := range rep.Tables {
				a.printf("  %s: %d\n", t.Table, t.Rows)
			}
			a.printf("verified: every table's row count and SHA-256 checksum in the target match the source.\n")
			a.printf("Use it with --db %s (or ASSISTANT_DB, or db in the config file).\n", shellPath(rep.To))
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the database to copy into: a postgres:// URL, or a SQLite file")
	cmd.Flags().BoolVar(&replace, "replace", false, "delete what the target holds (for --person: that person) first, in the same transaction")
	return cmd
}

// openTarget opens the database a copy writes to, bringing it up to date;
// a failure has the exit codes openStore gives the same failure of --db: a
// location no engine takes is a setting to fix (exitConfig), a server that
// cannot be used or a file that cannot be opened exitDatabase.
func openTarget(ctx context.Context, loc string, a *app) (*store.Store, error) {
	st, err := store.Open(ctx, loc, &store.Options{Now: a.now, NoMakeFolder: true})
	if err != nil {
		if errors.Is(err, store.ErrNoFolder) {
			return nil, failf(exitConfig, "“--to” is wrong: %v", sentence(err, store.ErrNoFolder))
		}
		if code := troubleExit(store.TroubleOf(err)); code != 0 {
			return nil, fail(code, err)
		}
		if errors.Is(err, store.ErrInvalid) {
			return nil, failf(exitConfig, "“--to” is wrong: %v", sentence(err, store.ErrInvalid))
		}
		if errors.Is(err, store.ErrUnavailable) {
			return nil, fail(exitDatabase, sentence(err, store.ErrUnavailable))
		}
		return nil, fail(exitDatabase, err)
	}
	return st, nil
}

// shellPath quotes a database location for a POSIX shell when it holds
// anything a shell would read (a URL's ? and &), so a printed command can
// be pasted as is.
func shellPath(loc string) string {
	if strings.ContainsAny(loc, " \t\n'\"\\$`&|;<>()*?[]#~") {
		return "'" + strings.ReplaceAll(loc, "'", `'\''`) + "'"
	}
	return loc
}

// copyFail gives a failed copy its exit code: a server that went away is
// a service error (exitDatabase), an interrupt exitCancelled, the rest as
// storeFail says.
func copyFail(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return failf(exitCancelled, "the copy was interrupted, and nothing of it was kept in the target")
	case errors.Is(err, store.ErrUnavailable):
		return fail(exitDatabase, sentence(err, store.ErrUnavailable))
	case errors.Is(err, store.ErrCopyMismatch):
		return fail(exitDatabase, sentence(err, store.ErrCopyMismatch))
	}
	return storeFail(err)
}
