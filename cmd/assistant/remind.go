package main

import (
	"time"

	"github.com/spf13/cobra"
)

// remindOptions are the flags of `assistant remind`.
type remindOptions struct {
	Once          bool          // one pass, then exit (cron, systemd timers)
	Every         time.Duration // the loop's longest sleep
	MaxLate       time.Duration // send missed reminders up to this late; older ones are skipped
	Webhooks      []string      // POST each reminder as JSON to these URLs
	WebhookSecret string        // HMAC-SHA256 key for the signature header
	Exec          []string      // run these commands with the JSON on standard input
	Status        bool          // list upcoming, sent, late, skipped and failed reminders
	Digest        string        // "07:30": a daily agenda at that time in each person's zone
}

func newRemindCmd(a *app) *cobra.Command {
	var o remindOptions
	cmd := &cobra.Command{
		Use:   "remind [--once]",
		Short: "Deliver due reminders, once (for cron and timers) or in a loop",
		Long: `Deliver the reminders of every person's tasks and events when they are due,
each exactly once: as JSON lines on standard output (default), to a webhook,
or to a command. --once delivers what is due and exits; the exit code is 9
when a delivery failed. Without --once, it runs until SIGINT or SIGTERM.
Reminders missed while nothing ran are sent late up to --max-late, and
recorded as skipped past it.`,
		Example: `  assistant remind --once
  assistant remind --every 30s --webhook https://example.org/hook
  assistant remind --once --exec 'notify-send "$(jq -r .title)"'
  assistant remind --status`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !o.Once && !o.Status {
				a.useJSONLogs()
			}
			return runRemind(cmd, a, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.Once, "once", false, "deliver what is due now and exit")
	f.DurationVar(&o.Every, "every", time.Minute, "the longest sleep between passes of the loop")
	f.DurationVar(&o.MaxLate, "max-late", 6*time.Hour, "send missed reminders up to this late")
	f.StringArrayVar(&o.Webhooks, "webhook", nil, "POST each reminder as JSON to this URL (repeatable)")
	f.StringVar(&o.WebhookSecret, "webhook-secret", "", "sign webhook bodies with HMAC-SHA256 using this key")
	f.StringArrayVar(&o.Exec, "exec", nil, "run this command with the reminder's JSON on standard input (repeatable)")
	f.BoolVar(&o.Status, "status", false, "list upcoming, sent, late, skipped and failed reminders")
	f.StringVar(&o.Digest, "digest", "", "send each person a daily agenda at this time in their zone, such as 07:30")
	return cmd
}

// runRemind is the reminders front's entry point; the remind package's
// owner fills it in. It returns exitDelivery when a delivery failed.
func runRemind(cmd *cobra.Command, a *app, o remindOptions) error {
	_ = o
	return notReady("remind")
}
