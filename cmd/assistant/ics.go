package main

import (
	"github.com/spf13/cobra"
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
	cmd.Flags().StringVar(&o.From, "from", "", "the first day to export, such as 2026-01-01")
	cmd.Flags().StringVar(&o.To, "to", "", "the day after the last to export")
	return cmd
}

// runImport and runExport are the iCalendar entry points; the owner of
// the ICS work fills them in.
func runImport(cmd *cobra.Command, a *app, o icsOptions) error {
	_ = o
	return notReady("import")
}

func runExport(cmd *cobra.Command, a *app, o icsOptions) error {
	_ = o
	return notReady("export")
}
