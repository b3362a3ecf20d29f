package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/remind"
	"github.com/assistant-dev/assistant/tz"
)

// newRemindSnoozeCmd is `assistant remind snooze DELIVERY [LENGTH]`: the
// snooze tool's work for a person at the shell (docs/reminders.md,
// "Snooze").
func newRemindSnoozeCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "snooze DELIVERY [LENGTH]",
		Short: "Put off a reminder that was sent: it goes off again after LENGTH (default 10m)",
		Long: `Put off a reminder that was sent, so the reminders job sends it once more
after LENGTH (minutes, or a length such as 10m, 1h or 1h30m; default 10m).
DELIVERY is the delivery_id the reminder came with (the JSON line's, the
webhook's X-Assistant-Delivery, the command's ASSISTANT_DELIVERY_ID), or a
task or event id (t12, e7) meaning its latest sent reminder. It goes off
again under the same id with "-s1" added ("-s2" for a snooze of that one),
and it is a change: undo takes it back. Exit codes: 1 for a DELIVERY or
LENGTH of no known form, 4 when no reminder of yours has that id, 5 when it
was not sent (or given up), or its task or event was deleted or done.`,
		Example: `  assistant remind snooze rd_4881ba5d44c573b6c2fc488f
  assistant remind snooze rd_4881ba5d44c573b6c2fc488f 1h
  assistant remind snooze t12 30m`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, argv []string) error {
			minutes := 10
			if len(argv) == 2 {
				n, err := snoozeLength(argv[1])
				if err != nil {
					return err
				}
				minutes = n
			}
			ctx := cmd.Context()
			st, p, err := a.session(ctx)
			if err != nil {
				return err
			}
			defer st.Close()
			now := a.now().UTC().Truncate(time.Second)
			s, err := remind.Snooze(ctx, st, p.ID, p.Zone, argv[0], now.Add(time.Duration(minutes)*time.Minute), now, "remind snooze")
			if err != nil {
				return storeFail(err)
			}
			fmt.Fprintf(a.stdout, "Snoozed %s (%s): it goes off again %s as %s.", s.Snoozed, s.Item, tz.FormatModel(s.FireAt, p.Zone), s.ID)
			if len(s.Replaced) > 0 {
				// As the snooze tool says it: the earlier time is gone.
				fmt.Fprintf(a.stdout, " It replaces the snooze %s, which was still waiting.", strings.Join(s.Replaced, ", "))
			}
			fmt.Fprintf(a.stdout, " Change %s; `assistant call undo change=%s` takes it back.\n", s.Change, s.Change)
			return nil
		},
	}
}

// snoozeLength reads LENGTH as the snooze tool reads “minutes”: 10, 10m,
// 1h, 1h30m, PT1H30M, at least a minute and at most a year.
func snoozeLength(s string) (int, error) {
	raw, _ := json.Marshal(map[string]string{"minutes": s})
	a, err := args.New(raw, []string{"minutes"}, nil)
	n := 0
	if err == nil {
		n = a.Minutes("minutes", 0, 1, int(remind.MaxSnooze/time.Minute))
		err = a.Err()
	}
	if err != nil || n == 0 {
		return 0, failf(exitInvalid, "the length must be minutes or a length such as 10m, 1h or 1h30m, from 1 minute to a year, not %s", args.Quote(s))
	}
	return n, nil
}
