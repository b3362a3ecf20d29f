package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
	"github.com/assistant-dev/assistant/view"
)

// agendaDays is how many days `assistant agenda` shows without --days: a
// week, as list_events' default window.
const agendaDays = tools.DefaultDays

func newTodayCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "today",
		Short: "Show today's events and tasks, with the overdue tasks on top",
		Long: `Show today in the person's zone: the tasks overdue from before today
on top (with how long), the day's all-day events, its timed events with
their times (the one on now marked ▶), and the tasks due today. Each line
ends with the id to quote to "assistant call" or the chat. The same as
"assistant agenda --days 1".

Colour when standard output is a terminal and NO_COLOR is not set; laid
out for the terminal's width, or 80 columns when it is not a terminal.
--json prints the day for scripts (docs/views.md gives its shape).`,
		Example: `  assistant today
  assistant today --json | jq '.days[0].events[].title'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runAgenda(cmd, "", 1, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the day as JSON (docs/views.md gives its shape)")
	return cmd
}

func newAgendaCmd(a *app) *cobra.Command {
	var (
		asJSON bool
		days   int
		from   string
	)
	cmd := &cobra.Command{
		Use:   "agenda",
		Short: "Show the coming days' events and tasks, day by day",
		Long: `Show a run of days in the person's zone, each under its heading: the
day's all-day events, its timed events with their times (the one on now
marked ▶; an event crossing midnight on each of its days; an event kept
in another zone with its times there too), and the tasks due that day.
Open tasks overdue from before the first day are on top, with how long.
Each line ends with the id to quote to "assistant call" or the chat.

--from takes what a tool's date takes: 2026-10-05, today, tomorrow,
monday, next friday, in 3 days. --days is 1 to 42.

Colour when standard output is a terminal and NO_COLOR is not set; laid
out for the terminal's width, or 80 columns when it is not a terminal.
--json prints the days for scripts (docs/views.md gives its shape).`,
		Example: `  assistant agenda
  assistant agenda --days 3 --from monday
  assistant agenda --from 2026-12-24 --days 2 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if days < 1 || days > view.MaxDays {
				return failf(exitInvalid, "“--days” takes 1 to %d days, not %d; write a number in that range, such as --days 7.", view.MaxDays, days)
			}
			return a.runAgenda(cmd, from, days, asJSON)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the days as JSON (docs/views.md gives its shape)")
	f.IntVar(&days, "days", agendaDays, "how many days to show, 1 to 42")
	f.StringVar(&from, "from", "", "the first day: a date (2026-10-05) or words (tomorrow, monday); default today")
	return cmd
}

// runAgenda shows days days from the day from names (today when "") as the
// person of this run.
func (a *app) runAgenda(cmd *cobra.Command, from string, days int, asJSON bool) error {
	st, p, err := a.session(cmd.Context())
	if err != nil {
		return err
	}
	defer st.Close()
	now := a.now()
	first := p.Zone.Today(now)
	if from != "" {
		if first, err = readDay("from", from, p.Zone, now); err != nil {
			// The sentence names the argument as a tool's; here it is a flag.
			return failf(exitInvalid, "%s", strings.Replace(err.Error(), "“from”", "“--from”", 1))
		}
	}
	reg := newRegistry()
	reg.Log = a.printedLog()
	w, err := view.Load(cmd.Context(), reg, a.toolContext(st, p), first, first.AddDays(days-1))
	var te *view.ToolError
	var we *view.WindowError
	switch {
	case errors.As(err, &we):
		return failf(exitInvalid, "%s.", we.Error())
	case errors.As(err, &te):
		// The code `assistant call` gives for the same failure.
		code := te.Result.Code
		if c := troubleExit(store.TroubleOf(te.Result.Cause())); code == tools.CodeInternal && c != 0 {
			code = c
		}
		return failf(code, "%s", te.Error())
	case err != nil:
		return fail(exitInternal, err)
	}
	if asJSON {
		b, err := view.JSON(w)
		if err != nil {
			return fail(exitInternal, err)
		}
		_, err = a.stdout.Write(b)
		return err
	}
	_, err = io.WriteString(a.stdout, view.Agenda(w, a.viewOptions()))
	return err
}

// readDay reads s as a tool reads a date argument called name (a date, or
// words such as tomorrow or monday, at now in zone) and gives its day.
func readDay(name, s string, zone tz.Zone, now time.Time) (tz.Date, error) {
	raw, err := json.Marshal(map[string]string{name: s})
	if err != nil {
		return tz.Date{}, err
	}
	r, err := args.New(raw, []string{name}, nil)
	if err != nil {
		return tz.Date{}, err
	}
	r.SetNow(now)
	m, _ := r.Moment(name, zone)
	if err := r.Err(); err != nil {
		return tz.Date{}, err
	}
	return m.Date, nil
}

// viewOptions lays a view out for standard output: the terminal's width
// and colour when it is a terminal (no colour when NO_COLOR is set, as
// no-color.org asks), 80 plain columns otherwise.
func (a *app) viewOptions() view.Options {
	f, ok := a.stdout.(*os.File)
	if !ok || !readline.IsTerminal(int(f.Fd())) {
		return view.Options{Width: view.DefaultWidth}
	}
	o := view.Options{Width: view.DefaultWidth, Colour: os.Getenv("NO_COLOR") == ""}
	if w, _, err := readline.GetSize(int(f.Fd())); err == nil && w > 0 {
		o.Width = w
	}
	return o
}
