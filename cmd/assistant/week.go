package main

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/view"
)

// gridFlags are the flags `assistant week` and `assistant month` share.
type gridFlags struct {
	from  string
	width int
	json  bool
}

func (f *gridFlags) add(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&f.from, "from", "", "a day in the "+what+" to show: 2026-10-05, today, tomorrow, next monday, in 2 weeks (default today, in your zone)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the days as JSON, as agenda --json does (docs/views.md gives its shape)")
	cmd.Flags().IntVar(&f.width, "width", 0, "lay out for this many columns (default the terminal's width; else $COLUMNS; else 80)")
}

func newWeekCmd(a *app) *cobra.Command {
	var f gridFlags
	cmd := &cobra.Command{
		Use:   "week [--from DAY]",
		Short: "Show a week as a grid: the days as columns, the hours as rows",
		Long: `Show the ISO week (Monday to Sunday) holding --from, or this week, as a
grid: the days as columns, the hours that matter as rows (08:00 to 18:00,
more when an event is earlier or later), each timed event as a block over
its hours, the all-day events in a band on top and the tasks of each day
under the grid. Times are in your zone; the current time is marked.

The grid fits the terminal's width ($COLUMNS, or 80 columns, when the
output is not a terminal; --width to choose); titles are cut with "…".
Colours are used on a terminal, unless NO_COLOR is set.`,
		Example: `  assistant week
  assistant week --from "next monday"
  assistant week --from 2026-10-05 --width 120`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runGrid(cmd, f, false)
		},
	}
	f.add(cmd, "week")
	return cmd
}

func newMonthCmd(a *app) *cobra.Command {
	var f gridFlags
	cmd := &cobra.Command{
		Use:   "month [--from DAY]",
		Short: "Show a month as a small calendar with its busy days marked",
		Long: `Show the month holding --from, or this month, as a small calendar
(ISO week numbers, Monday to Sunday) with a "•" on each day that holds an
event or a task and today in brackets, and under it one line for each
busy day: its events with their times and its tasks, as many as the
width holds. Times are in your zone.`,
		Example: `  assistant month
  assistant month --from 2026-12-01`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runGrid(cmd, f, true)
		},
	}
	f.add(cmd, "month")
	return cmd
}

// runGrid reads the week (or the month's weeks) holding --from through
// the tools and prints it.
func (a *app) runGrid(cmd *cobra.Command, f gridFlags, month bool) error {
	if f.width < 0 {
		return usageError(cmd, "--width must be a number of columns such as 80, not %d", f.width)
	}
	st, p, err := a.session(cmd.Context())
	if err != nil {
		return err
	}
	defer st.Close()
	reg := newRegistry()
	reg.Log = a.printedLog()
	tc := a.toolContext(st, p)
	now := a.now()
	day := p.Zone.Today(now)
	if f.from != "" {
		d, err := readDay("from", f.from, p.Zone, now)
		if err != nil {
			// The sentence names the argument as a tool's; here it is a flag.
			return failf(exitInvalid, "%s", strings.Replace(err.Error(), "“from”", "“--from”", 1))
		}
		day = d
	}
	from, to := view.WeekOf(day)
	if month {
		from, to = view.MonthOf(day)
	}
	w, err := view.Load(cmd.Context(), reg, tc, from, to)
	if err != nil {
		var we *view.WindowError
		if errors.As(err, &we) {
			return failf(exitInvalid, "%s.", we.Error())
		}
		if errors.Is(err, context.Canceled) {
			return fail(exitCancelled, err)
		}
		return fail(exitInternal, err)
	}
	if f.json {
		b, err := view.JSON(w)
		if err != nil {
			return fail(exitInternal, err)
		}
		_, err = a.stdout.Write(b)
		return err
	}
	width, colour := a.layout(f.width)
	o := view.GridOptions{Width: width, Colour: colour, Now: now}
	if month {
		a.printf("%s", view.Month(w, o))
	} else {
		a.printf("%s", view.Week(w, o))
	}
	return nil
}

// layout is the width and colour of a view on standard output: the
// terminal's width (or --width, or $COLUMNS when not a terminal, or 80),
// and colour only on a terminal when NO_COLOR is not set
// (https://no-color.org).
func (a *app) layout(flagWidth int) (width int, colour bool) {
	width = 80
	fd := -1
	if f, ok := a.stdout.(*os.File); ok && readline.IsTerminal(int(f.Fd())) {
		fd = int(f.Fd())
	}
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		width = n
	}
	if fd >= 0 {
		if w, _, err := readline.GetSize(fd); err == nil && w > 0 {
			width = w
		}
		colour = os.Getenv("NO_COLOR") == ""
	}
	if flagWidth > 0 {
		width = flagWidth
	}
	return width, colour
}
