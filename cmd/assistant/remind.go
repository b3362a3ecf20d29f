package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/remind"
	"github.com/assistant-dev/assistant/store"
)

// remindOptions are the flags of `assistant remind`.
type remindOptions struct {
	Once          bool     // one pass, then exit (cron, systemd timers)
	Every         string   // the loop's longest sleep, a Go duration ("1m")
	MaxLate       string   // send missed reminders up to this late; older ones are skipped ("6h")
	Webhooks      []string // POST each reminder as JSON to these URLs
	WebhookSecret string   // HMAC-SHA256 key for the signature header
	Exec          []string // run these commands with the JSON on standard input
	Status        bool     // list upcoming, sent, late, skipped and failed reminders
	Digest        string   // "07:30": a daily agenda at that time in each person's zone
	SMTP          string   // HOST:PORT of an SMTP server to mail each reminder through
	SMTPFrom      string   // the mails' sender address
	SMTPTo        []string // their recipients
	SMTPTLS       string   // auto, starttls, tls or none (remind.MailTLS)
	SMTPUser      string   // who signs in; the password is in ASSISTANT_SMTP_PASSWORD or the config file
}

// envSMTPPassword is the SMTP user's password (--smtp-user), which no flag
// takes: a flag's value is seen by every user of the machine (ps). It
// wins over the config file's remind.smtp_password.
const envSMTPPassword = "ASSISTANT_SMTP_PASSWORD"

func newRemindCmd(a *app) *cobra.Command {
	var o remindOptions
	cmd := &cobra.Command{
		Use:   "remind [--once]",
		Short: "Deliver due reminders, once (for cron and timers) or in a loop",
		Long: `Deliver the reminders of every person's tasks and events when they are due,
at least once, each under a stable delivery id (a receiver drops an id it
has seen; a process killed between sending and recording resends the
same id): as JSON lines on standard output (default), to a webhook, to
a command, or by mail (--smtp). --once delivers what is due and exits; the exit code is 9 when
a delivery failed (a later run retries it) or a reminder was given up
(failed for good, or missed by more than --max-late). Without --once, it
runs until SIGINT or SIGTERM. Reminders missed while nothing ran are sent
late up to --max-late, and recorded as skipped past it.`,
		Example: `  assistant remind --once
  assistant remind --every 30s --webhook https://example.org/hook
  assistant remind --once --exec 'notify-send "$(jq -r .title)"'
  assistant remind --once --smtp smtp.example.org:587 --smtp-from reminders@example.org --smtp-to ann@example.org
  assistant remind --status
  assistant remind snooze rd_4881ba5d44c573b6c2fc488f 10m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !o.Once && !o.Status {
				a.useJSONLogs()
				a.service = true
			}
			return runRemind(cmd, a, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.Once, "once", false, "deliver what is due now and exit")
	f.StringVar(&o.Every, "every", "1m", "the longest sleep between passes of the loop (not with --once or --status), such as 30s or 5m")
	f.StringVar(&o.MaxLate, "max-late", "6h", "send missed reminders up to this late, such as 6h")
	f.StringArrayVar(&o.Webhooks, "webhook", nil, "POST each reminder as JSON to this URL (repeatable)")
	f.StringVar(&o.WebhookSecret, "webhook-secret", "", "sign webhook bodies with HMAC-SHA256 using this key")
	f.StringArrayVar(&o.Exec, "exec", nil, "run this command with the reminder's JSON on standard input (repeatable)")
	f.BoolVar(&o.Status, "status", false, "list upcoming, sent, late, skipped and failed reminders")
	f.StringVar(&o.Digest, "digest", "", "send each person a daily agenda at this time in their zone, such as 07:30")
	f.StringVar(&o.SMTP, "smtp", "", "mail each reminder through this SMTP server, HOST:PORT (with --smtp-from and --smtp-to)")
	f.StringVar(&o.SMTPFrom, "smtp-from", "", "the sender address of reminder mails")
	f.StringArrayVar(&o.SMTPTo, "smtp-to", nil, "a recipient of reminder mails (repeatable)")
	f.StringVar(&o.SMTPTLS, "smtp-tls", "auto", "auto (STARTTLS when offered), starttls, tls (port 465) or none")
	f.StringVar(&o.SMTPUser, "smtp-user", "", "sign in to the SMTP server as this user, over TLS only; the password comes from "+envSMTPPassword+" or the config file")
	cmd.AddCommand(newRemindSnoozeCmd(a))
	return cmd
}

// runRemind is the reminders front's entry point (package remind). It
// serves every person in the database, or only the one --person or
// ASSISTANT_PERSON names. It returns exitDelivery when a delivery of a
// --once pass failed or a reminder was given up.
func runRemind(cmd *cobra.Command, a *app, o remindOptions) error {
	ctx := cmd.Context()
	every, err := positiveDuration("every", o.Every)
	if err != nil {
		return err
	}
	maxLate, err := positiveDuration("max-late", o.MaxLate)
	if err != nil {
		return err
	}
	if err := remindModes(cmd, o); err != nil {
		return err
	}
	var digest *remind.Digest
	if o.Digest != "" {
		d, err := remind.ParseDigest(o.Digest)
		if err != nil {
			return fail(exitInvalid, err)
		}
		digest = d
	}
	if o.WebhookSecret != "" && len(o.Webhooks) == 0 {
		return usageError(cmd, "“--webhook-secret” signs webhook bodies, so it needs a “--webhook” URL too")
	}
	var notifiers []remind.Notifier
	for _, raw := range o.Webhooks {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail(exitInvalid, fmt.Errorf("“--webhook” must be an http or https URL such as https://example.org/hook, not “%s”", raw))
		}
		notifiers = append(notifiers, &remind.Webhook{URL: u.String(), Secret: o.WebhookSecret})
	}
	for _, line := range o.Exec {
		if strings.TrimSpace(line) == "" {
			return fail(exitInvalid, fmt.Errorf("“--exec” must be a command line such as 'notify-send Reminder', not empty"))
		}
		// The command's own output goes to stderr, so standard output stays
		// JSON lines when the stdout notifier is on too.
		notifiers = append(notifiers, &remind.Command{Line: line, Stdout: a.stderr, Stderr: a.stderr})
	}
	if !o.Status {
		m, err := a.smtpNotifier(cmd, o)
		if err != nil {
			return err
		}
		if m != nil {
			notifiers = append(notifiers, m)
		}
	}
	if len(notifiers) == 0 {
		notifiers = append(notifiers, &remind.Lines{W: a.stdout})
	}

	st, err := a.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	var people []int64
	if a.personSet {
		p, err := a.person(ctx, st)
		if err != nil {
			return err
		}
		people = []int64{p.ID}
	}
	eng, err := remind.New(remind.Options{Store: st, Notifiers: notifiers, Now: a.now, MaxLate: maxLate,
		Digest: digest, People: people, Log: a.log})
	if err != nil {
		return fail(exitInternal, err)
	}

	switch {
	case o.Status:
		reports, err := eng.Status(ctx)
		if err != nil {
			return fail(exitInternal, err)
		}
		if a.tzOverride != "" { // --tz shows the times in that zone
			for i := range reports {
				reports[i].Zone = a.tzOverride
			}
		}
		if err := remind.WriteStatus(a.stdout, reports); err != nil {
			return fail(exitInternal, err)
		}
		return nil
	case o.Once:
		res, err := eng.Pass(ctx)
		if err == nil {
			// A pass that failed says why below instead.
			a.log.Info("reminders pass done", "sent", res.Sent, "late", res.Late, "failed", res.Failed,
				"gave_up", res.GaveUp, "skipped", res.Skipped, "dropped", res.Dropped)
		}
		if ctx.Err() != nil {
			return quietExit(exitCancelled)
		}
		if err != nil && (res.Problems == 0 || store.TroubleOf(err) != store.NoTrouble) {
			return fail(exitInternal, err) // execute gives a database trouble its own code
		}
		if !res.OK() {
			return quietExit(exitDelivery)
		}
		return nil
	}
	a.log.Info("reminders loop started", "every", every.String(), "max_late", maxLate.String(),
		"notifiers", len(notifiers))
	if err := eng.Run(ctx, every); err != nil {
		return fail(exitInternal, err)
	}
	a.log.Info("reminders loop stopped")
	return nil
}

// remindModes refuses flags that mean nothing in the mode chosen, rather
// than ignoring them: --every paces only the loop, --status sends nothing,
// and --once and --status are two different runs. Values are checked
// before this (a bad duration is exit 1 whatever the mode).
func remindModes(cmd *cobra.Command, o remindOptions) error {
	every := cmd.Flags().Changed("every")
	switch {
	case o.Once && o.Status:
		return usageError(cmd, "“--once” delivers and “--status” only reports, so give one of them")
	case every && o.Once:
		return usageError(cmd, "“--every” paces the loop, and “--once” makes one pass and exits, so give one of them")
	case every && o.Status:
		return usageError(cmd, "“--every” paces the loop, and “--status” only reports, so leave “--every” out")
	case o.Status && (len(o.Webhooks) > 0 || len(o.Exec) > 0 || o.WebhookSecret != ""):
		return usageError(cmd, "“--status” sends nothing, so leave out “--webhook”, “--webhook-secret” and “--exec”")
	case o.Status && smtpFlagged(cmd):
		return usageError(cmd, "“--status” sends nothing, so leave out the “--smtp” flags")
	}
	return nil
}

// smtpFlags are the flags of the SMTP notifier, each also a key of the
// config file's [remind] table (smtp, smtp_from, …).
var smtpFlags = []string{"smtp", "smtp-from", "smtp-to", "smtp-tls", "smtp-user"}

func smtpFlagged(cmd *cobra.Command) bool {
	for _, f := range smtpFlags {
		if cmd.Flags().Changed(f) {
			return true
		}
	}
	return false
}

// smtpNotifier is the Mail notifier the flags and the config file's
// [remind] table describe, or nil when neither names a server. Each
// setting is the flag's, else the config file's; the password is
// ASSISTANT_SMTP_PASSWORD's, else remind.smtp_password's. A wrong value
// is one sentence naming where it came from: exit 1 for a flag, 10 for
// the config file or the environment.
func (a *app) smtpNotifier(cmd *cobra.Command, o remindOptions) (*remind.Mail, error) {
	wrong := func(from string, err error) error {
		if strings.HasPrefix(from, "“--") {
			return failf(exitInvalid, "%s is wrong: %v", from, err)
		}
		return failf(exitConfig, "%s is wrong: %v", from, err)
	}
	addr, addrFrom := a.settingFrom(cmd, "smtp", "", "remind.smtp", "")
	var others []string
	for _, f := range smtpFlags[1:] {
		if cmd.Flags().Changed(f) {
			others = append(others, "“--"+f+"”")
		}
	}
	if strings.TrimSpace(addr) == "" {
		if len(others) > 0 {
			verb := " describe"
			if len(others) == 1 {
				verb = " describes"
			}
			return nil, usageError(cmd, strings.Join(others, ", ")+verb+" mail through an SMTP server, so give “--smtp HOST:PORT” too")
		}
		return nil, nil
	}
	m := &remind.Mail{Addr: strings.TrimSpace(addr)}
	if err := remind.CheckServer(m.Addr); err != nil {
		return nil, wrong(addrFrom, err)
	}
	from, fromFrom := a.settingFrom(cmd, "smtp-from", "", "remind.smtp_from", "")
	if strings.TrimSpace(from) == "" {
		return nil, failf(exitInvalid, "mail through %s needs a sender: give “--smtp-from ADDRESS” or smtp_from in the config file's [remind]", m.Addr)
	}
	var err error
	if m.From, err = remind.ParseAddress(from); err != nil {
		return nil, wrong(fromFrom, err)
	}
	to, toFrom := o.SMTPTo, "“--smtp-to”"
	if !cmd.Flags().Changed("smtp-to") {
		toFrom = "“remind.smtp_to” in the config file “" + a.configPath + "”"
		switch v := a.conf.Get("remind.smtp_to").(type) {
		case string:
			to = []string{v}
		case []any:
			for _, x := range v {
				to = append(to, fmt.Sprint(x))
			}
		}
	}
	if len(to) == 0 {
		return nil, failf(exitInvalid, "mail through %s needs a recipient: give “--smtp-to ADDRESS” (repeatable) or smtp_to in the config file's [remind]", m.Addr)
	}
	for _, t := range to {
		addr, err := remind.ParseAddress(t)
		if err != nil {
			return nil, wrong(toFrom, err)
		}
		m.To = append(m.To, addr)
	}
	mode, modeFrom := a.settingFrom(cmd, "smtp-tls", "", "remind.smtp_tls", "auto")
	if m.TLS, err = remind.ParseMailTLS(mode); err != nil {
		return nil, wrong(modeFrom, err)
	}
	user, userFrom := a.settingFrom(cmd, "smtp-user", "", "remind.smtp_user", "")
	m.User = strings.TrimSpace(user)
	if m.User != "" {
		if m.TLS == remind.MailTLSNone {
			return nil, wrong(userFrom, fmt.Errorf("the SMTP user %s signs in with a password, which is never sent without TLS, so set the TLS mode to auto, starttls or tls, or leave the user out", m.User))
		}
		m.Password = a.setting(nil, "", envSMTPPassword, "remind.smtp_password", "")
		if m.Password == "" {
			return nil, failf(exitConfig, "the SMTP user %s needs a password: set %s, or smtp_password in the config file's [remind]", m.User, envSMTPPassword)
		}
	}
	if err := m.Check(); err != nil {
		return nil, fail(exitInvalid, err)
	}
	return m, nil
}

// positiveDuration reads the value of --flag as a Go duration (30s, 5m,
// 1h30m) above zero; the sentence echoes the text as the person wrote it,
// not Go's normalised form ("-1h", not "-1h0m0s").
func positiveDuration(flag, text string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(text))
	switch {
	case err != nil:
		return 0, failf(exitInvalid, "“--%s” must be a duration such as 30s, 5m or 1h, not “%s”", flag, text)
	case d <= 0:
		return 0, failf(exitInvalid, "“--%s” must be a duration above zero such as 30s, 5m or 1h, not “%s”", flag, text)
	}
	return d, nil
}
