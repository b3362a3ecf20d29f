package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/mcpserver"
	"github.com/assistant-dev/assistant/store"
)

// defaultFeedBase is where `feed create` says the feed is served when
// --url is not given: the HTTP server's default address.
const defaultFeedBase = "http://" + mcpserver.DefaultAddr

func newFeedCmd(a *app) *cobra.Command {
	cmd := group(&cobra.Command{
		Use:   "feed",
		Short: "Make, list and revoke read-only calendar feeds (subscribe by URL)",
		Long: `A feed is a secret address, BASE/feed/SECRET.ics, where a calendar app that
subscribes by URL (Google Calendar, Outlook, Apple Calendar) reads one
person's events and tasks as an iCalendar file, and only reads them. The
secret is no access token: it opens the feed and nothing else, and
revoking it ends the feed alone. Only a hash is stored, so the address is
shown once, when it is made.`,
		Example: `  assistant feed create --person alice --label "Google Calendar" --url https://cal.example.org
  assistant feed list
  assistant feed revoke 2`,
	})

	var label, base string
	create := &cobra.Command{
		Use:   "create [--person NAME] [--label TEXT] [--url BASE]",
		Short: "Make a feed for a person and print its address once",
		Long: `Make a feed for the person --person names (default the local person) and
print its address on standard output, alone on its line, once: it cannot
be shown again. BASE is the address the server is reached at from where
the calendar app runs (default ` + defaultFeedBase + `, the server's
default, which only this machine reaches); Google and Outlook fetch the
feed from their own servers, so they need an address on the internet,
such as an HTTPS proxy's. Anyone with the address reads the calendar:
keep it like a password.`,
		Example: `  assistant feed create --person alice --label "Google Calendar" --url https://cal.example.org
  URL=$(assistant feed create --label phone)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := feedBase(cmd, base)
			if err != nil {
				return err
			}
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				p, err := a.storePerson(cmd.Context(), st)
				if err != nil {
					return storeFail(err)
				}
				plain, f, err := st.CreateFeedSecret(cmd.Context(), p.ID, label)
				if err != nil {
					return storeFail(err)
				}
				a.printf("%s/feed/%s.ics\n", root, plain)
				fmt.Fprintf(a.stderr, "Feed %d for %s; its address is shown only this once. Revoke it with `assistant feed revoke %d`.\n", f.ID, p.Name, f.ID)
				return nil
			})
		},
	}
	create.Flags().StringVar(&label, "label", "", "where it is subscribed, such as Google Calendar")
	create.Flags().StringVar(&base, "url", defaultFeedBase, "the server's address as the calendar app reaches it")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the feeds (never their secrets: only their first characters)",
		Long: `List every person's feeds: id, person, first characters of the secret,
label, when made, last read and revoked. Times are shown as the tools show
them ("Mon 2026-10-05 09:00 (+02:00)") in the zone of whoever the command
acts as, as ` + "`assistant token list`" + ` does. Last read is stamped at most once
a minute.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				zone, err := a.listingZone(cmd.Context(), st)
				if err != nil {
					return err
				}
				feeds, err := st.FeedSecrets(cmd.Context())
				if err != nil {
					return storeFail(err)
				}
				rows := make([]secretRow, 0, len(feeds))
				for _, f := range feeds {
					rows = append(rows, secretRow{f.ID, f.PersonID, f.Prefix, f.Label, f.Created, f.LastUsed, f.Revoked})
				}
				return a.writeSecrets(cmd.Context(), st, zone, "LAST READ", rows)
			})
		},
	}

	revoke := &cobra.Command{
		Use:   "revoke ID|PREFIX",
		Short: "Revoke a feed by its id or the first characters shown by list",
		Long: `Revoke a feed by its id, the first characters list shows, or its whole
address: from then on its address answers 404, as one that never was, and
subscribed calendars stop updating (each keeps what it last read until
the feed is removed from it).`,
		Example: `  assistant feed revoke 2
  assistant feed revoke asf_k3j9x2qa`,
		Args: exactArgs(1, "one feed id or prefix"),
		RunE: func(cmd *cobra.Command, args []string) error {
			key := args[0]
			if i := strings.LastIndex(key, "/feed/"); i >= 0 {
				key = key[i+len("/feed/"):] // the whole address, as create printed it
			}
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				if err := st.RevokeFeedSecret(cmd.Context(), key); err != nil {
					return storeFail(err)
				}
				shown := args[0]
				if strings.HasPrefix(key, store.FeedSecretPrefix) {
					shown = key[:min(len(key), len(store.FeedSecretPrefix)+8)]
				}
				a.printf("Revoked feed %s.\n", shown)
				return nil
			})
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

// feedBase checks --url: an http or https address of a server, with no
// query or fragment; it gives it without a trailing slash. Anything else
// is a usage error naming the flag.
func feedBase(cmd *cobra.Command, base string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", usageError(cmd, "“--url” must be the server's address such as https://cal.example.org or %s, not “%s”", defaultFeedBase, base)
	}
	return strings.TrimRight(u.String(), "/"), nil
}
