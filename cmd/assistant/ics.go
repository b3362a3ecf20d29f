package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/ics"
	"github.com/assistant-dev/assistant/store"
)

// icsOptions are the flags of `assistant import` and `assistant export`.
type icsOptions struct {
	File   string // the .ics file; "-" or "" is standard input or output
	From   string // export: the first day (default: everything)
	To     string // export: the day after the last
	DryRun bool   // import: say what would be added, change nothing
}

func newImportCmd(a *app) *cobra.Command {
	var o icsOptions
	cmd := &cobra.Command{
		Use:   "import FILE.ics",
		Short: "Import events and tasks from an iCalendar (.ics) file",
		Long: `Import the VEVENTs and VTODOs of an iCalendar file (RFC 5545) as the person
--person picks; "-" reads standard input. Repeating events keep their RRULE,
EXDATE, RDATE and overridden occurrences. The import is one change, so one
undo takes it back.`,
		Example: `  assistant import calendar.ics
  assistant import --dry-run calendar.ics`,
		Args: exactArgs(1, "one file (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			return runImport(cmd, a, o)
		},
	}
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "say what would be imported, change nothing")
	return cmd
}

func newExportCmd(a *app) *cobra.Command {
	var o icsOptions
	cmd := &cobra.Command{
		Use:   "export [FILE.ics]",
		Short: "Export events and tasks as an iCalendar (.ics) file",
		Long: `Write the person's events and tasks as an iCalendar file (RFC 5545), to FILE
or standard output.`,
		Example: `  assistant export > calendar.ics
  assistant export --from 2026-01-01 --to 2027-01-01 year.ics`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError(cmd, "“%s” takes at most one file", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.File = args[0]
			}
			return runExport(cmd, a, o)
		},
	}
	cmd.Flags().StringVar(&o.From, "from", "", "the first day to export: a date (2026-01-01) or words (today, monday)")
	cmd.Flags().StringVar(&o.To, "to", "", "the day after the last to export: a date or words (next month)")
	return cmd
}

// runImport reads an iCalendar file (or standard input for "-") and
// imports it for the chosen person through package ics: one journaled
// change, or with --dry-run only the counts. Skipped lines are listed.
func runImport(cmd *cobra.Command, a *app, o icsOptions) error {
	var r io.Reader = &stopReader{ctx: cmd.Context(), r: a.stdin}
	name := "standard input"
	shown := name // how a refusal names the input: the path as written
	if o.File != "-" && o.File != "" {
		if fi, err := os.Stat(o.File); err == nil && fi.IsDir() {
			return failf(exitInvalid, "“%s” is a folder, not an iCalendar file; name an .ics file or - for standard input", o.File)
		}
		f, err := os.Open(o.File)
		if err != nil {
			return failf(exitInvalid, "cannot read “%s”: %v; name an .ics file or - for standard input", o.File, cleanErr(err))
		}
		defer f.Close()
		r, name, shown = f, filepath.Base(o.File), "“"+o.File+"”"
	}
	// The import is one transaction: stopped before its commit, nothing
	// of it was written, and the person is told so rather than left to
	// guess from the exit status.
	stoppedBefore := func() error {
		if o.DryRun {
			return failf(exitCancelled, "the dry run of the import was stopped before it finished; nothing was imported")
		}
		return failf(exitCancelled, "the import was stopped before it was written; nothing of %s was imported", shown)
	}
	st, p, err := a.session(cmd.Context())
	if err != nil {
		if cmd.Context().Err() != nil {
			return stoppedBefore()
		}
		return err
	}
	defer st.Close()
	rep, err := ics.Import(cmd.Context(), st, store.Person{ID: p.ID, Name: p.Name, Zone: p.Zone.Name()}, r, ics.ImportOptions{DryRun: o.DryRun, Source: name})
	if err != nil && rep.Change == "" && cmd.Context().Err() != nil {
		return stoppedBefore()
	}
	var nc *ics.NotCalendarError
	if errors.As(err, &nc) {
		nc.Source = shown
		return failf(exitInvalid, "%v; name an .ics file, such as one a calendar app exports", nc)
	}
	if err != nil {
		return fail(exitInternal, err)
	}
	w := a.stdout
	verb := "Imported"
	if rep.DryRun {
		verb = "Would import"
	}
	fmt.Fprintf(w, "%s %s: events %s; changed occurrences %s; tasks %s.\n", verb, name, counts(rep.Events), counts(rep.Overrides), counts(rep.Tasks))
	switch {
	case rep.Change != "":
		fmt.Fprintf(w, "This is change %s: `assistant call undo change=%s` takes the whole import back.\n", rep.Change, rep.Change)
	case !rep.DryRun:
		fmt.Fprintln(w, "Nothing changed.")
	}
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, "Skipped (%d):\n", len(rep.Skipped))
		for _, s := range rep.Skipped {
			fmt.Fprintf(w, "  line %d%s: %s\n", s.Line, where(s), s.Reason)
		}
	}
	if len(rep.Repaired) > 0 {
		fmt.Fprintf(w, "Read in spite of a fault (%d):\n", len(rep.Repaired))
		for _, s := range rep.Repaired {
			fmt.Fprintf(w, "  line %d%s: %s\n", s.Line, where(s), s.Reason)
		}
	}
	return nil
}

func counts(c ics.Counts) string {
	return fmt.Sprintf("%d new, %d updated, %d unchanged", c.Created, c.Updated, c.Unchanged)
}

func where(s ics.Skipped) string {
	switch {
	case s.Component != "" && s.UID != "":
		return " (" + s.Component + " " + s.UID + ")"
	case s.Component != "":
		return " (" + s.Component + ")"
	}
	return ""
}

// runExport streams the person's events and tasks as one iCalendar file
// to FILE or standard output; --from and --to are days in the person's zone
// (--to is the day after the last).
func runExport(cmd *cobra.Command, a *app, o icsOptions) error {
	st, p, err := a.session(cmd.Context())
	if err != nil {
		return err
	}
	defer st.Close()
	now := a.now()
	day := func(flag, v string) (time.Time, error) {
		if v == "" {
			return time.Time{}, nil
		}
		// A day as the views read one: a date or words (tomorrow, monday).
		d, err := readDay(flag, v, p.Zone, now)
		if err != nil {
			// The sentence names the argument as a tool's; here it is a flag.
			return time.Time{}, failf(exitInvalid, "%s", strings.Replace(err.Error(), "“"+flag+"”", "“--"+flag+"”", 1))
		}
		return p.Zone.StartOfDay(d), nil
	}
	from, err := day("from", o.From)
	if err != nil {
		return err
	}
	to, err := day("to", o.To)
	if err != nil {
		return err
	}
	if !from.IsZero() && !to.IsZero() && !to.After(from) {
		return failf(exitInvalid, "“--to” must be after “--from” (it is the day after the last to export)")
	}
	var w io.Writer = a.stdout
	var f *os.File
	if o.File != "" && o.File != "-" {
		// A calendar holds private data: a new file is made 0600, as the
		// database is; an existing one keeps the mode its owner gave it.
		f, err = os.OpenFile(o.File, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return failf(exitInvalid, "cannot write “%s”: %v; name a file in a folder you can write to", o.File, cleanErr(err))
		}
		defer f.Close()
		w = f
	}
	if err := ics.Export(cmd.Context(), st, store.Person{ID: p.ID, Name: p.Name, Zone: p.Zone.Name()}, w, from, to); err != nil {
		return fail(exitInternal, err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return failf(exitInvalid, "cannot write “%s”: %v; name a file in a folder you can write to", o.File, cleanErr(err))
		}
	}
	return nil
}

// stopReader is standard input for an import: a Read waiting for input (a
// terminal, a pipe whose writer is slow) ends with ctx's error once ctx is
// done, so an interrupt stops the import at once instead of after the next
// line typed. The reads run in a goroutine of their own, into its own
// buffer, which ends with the input or once ctx is done.
type stopReader struct {
	ctx    context.Context
	r      io.Reader
	chunks chan readChunk
	rest   []byte
	err    error
}

type readChunk struct {
	b   []byte
	err error
}

// Read gives what the input gave, or ctx's error once ctx is done.
func (s *stopReader) Read(p []byte) (int, error) {
	if len(s.rest) == 0 && s.err == nil {
		if s.chunks == nil {
			s.chunks = make(chan readChunk)
			go s.pump()
		}
		select {
		case c := <-s.chunks:
			s.rest, s.err = c.b, c.err
		case <-s.ctx.Done():
			return 0, s.ctx.Err()
		}
	}
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	if len(s.rest) > 0 {
		n := copy(p, s.rest)
		s.rest = s.rest[n:]
		return n, nil
	}
	return 0, s.err
}

// pump reads the input until it ends, fails, or ctx is done.
func (s *stopReader) pump() {
	for {
		b := make([]byte, 64<<10)
		n, err := s.r.Read(b)
		select {
		case s.chunks <- readChunk{b[:n], err}:
		case <-s.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}
