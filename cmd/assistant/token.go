package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

func newTokenCmd(a *app) *cobra.Command {
	cmd := group(&cobra.Command{
		Use:   "token",
		Short: "Make, list and revoke bearer tokens for the MCP server over HTTP",
		Long: `A token lets an HTTP MCP client act as one person: "assistant mcp --http"
answers only requests that carry "Authorization: Bearer TOKEN", and each
token sees only its person's data. Only a hash is stored, so a token is
shown once, when it is made.`,
		Example: `  assistant token create --person alice --label laptop
  assistant token list
  assistant token revoke 3`,
	})

	var label string
	create := &cobra.Command{
		Use:   "create [--person NAME] [--label TEXT]",
		Short: "Make a token for a person and print it once",
		Long: `Make a token for the person --person names (default the local person) and
print it on standard output, alone on its line, once: it cannot be shown
again. Keep it like a password.`,
		Example: `  assistant token create --person alice --label "phone"
  TOKEN=$(assistant token create --person alice)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				p, err := a.storePerson(cmd.Context(), st)
				if err != nil {
					return storeFail(err)
				}
				plain, t, err := st.CreateToken(cmd.Context(), p.ID, label)
				if err != nil {
					return storeFail(err)
				}
				a.printf("%s\n", plain)
				fmt.Fprintf(a.stderr, "Token %d for %s; it is shown only this once. Revoke it with `assistant token revoke %d`.\n", t.ID, p.Name, t.ID)
				return nil
			})
		},
	}
	create.Flags().StringVar(&label, "label", "", "what the token is for, such as laptop")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the tokens (never the tokens themselves: only their first characters)",
		Long: `List every person's tokens: id, person, first characters, label, when
made, last used and revoked. Times are shown as the tools show them
("Mon 2026-10-05 09:00 (+02:00)") in the zone of whoever the command acts
as: --tz if given, else the stored zone of the person --person names (the
local person by default), else, when the local person has no row yet, the
zone they would get (the config's zone, TZ, then the machine's).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				zone, err := a.listingZone(cmd.Context(), st)
				if err != nil {
					return err
				}
				toks, err := st.Tokens(cmd.Context())
				if err != nil {
					return storeFail(err)
				}
				rows := make([]secretRow, 0, len(toks))
				for _, t := range toks {
					rows = append(rows, secretRow{t.ID, t.PersonID, t.Prefix, t.Label, t.Created, t.LastUsed, t.Revoked})
				}
				return a.writeSecrets(cmd.Context(), st, zone, "LAST USED", rows)
			})
		},
	}

	revoke := &cobra.Command{
		Use:     "revoke ID|PREFIX",
		Short:   "Revoke a token by its id or the first characters shown by list",
		Example: `  assistant token revoke 3`,
		Args:    exactArgs(1, "one token id or prefix"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				if err := st.RevokeToken(cmd.Context(), args[0]); err != nil {
					return storeFail(err)
				}
				a.printf("Revoked token %s.\n", args[0])
				return nil
			})
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// stampOrDash renders t in zone as the tools do, or "-" when it is zero
// (never happened).
func stampOrDash(t time.Time, zone tz.Zone) string {
	if t.IsZero() {
		return "-"
	}
	return tz.FormatModel(t, zone)
}

// listingZone is the zone a listing of everyone's rows shows times in:
// --tz (or ASSISTANT_TZ) when set; else the stored zone of the person this
// run acts as; else, when that is the local person and they have no row
// yet, the zone their first run would give them (config, TZ, the
// machine's). Listing never makes the local person's row.
func (a *app) listingZone(ctx context.Context, st *store.Store) (tz.Zone, error) {
	name := a.localZone
	if a.tzOverride != "" {
		name = a.tzOverride
	} else if a.personSet {
		p, err := a.storePerson(ctx, st)
		if err != nil {
			return tz.Zone{}, storeFail(err)
		}
		name = p.Zone
	} else if p, err := st.PersonByName(ctx, a.localName); err == nil {
		name = p.Zone
	} else if !errors.Is(err, store.ErrNotFound) {
		return tz.Zone{}, storeFail(err)
	}
	zone, err := tz.LoadZone(name)
	if err != nil {
		return tz.Zone{}, failf(exitConfig, "times cannot be shown in the zone “%s” (%v); fix it with `assistant person set-zone`", name, err)
	}
	return zone, nil
}

// secretRow is one line of `token list` or `feed list`.
type secretRow struct {
	id, person             int64
	prefix, label          string
	created, used, revoked time.Time
}

// writeSecrets prints rows as a table with people's names, times in zone,
// and used as the heading of the last-use column.
func (a *app) writeSecrets(ctx context.Context, st *store.Store, zone tz.Zone, used string, rows []secretRow) error {
	people, err := st.People(ctx)
	if err != nil {
		return storeFail(err)
	}
	names := map[int64]string{}
	for _, p := range people {
		names[p.ID] = p.Name
	}
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tPERSON\tSTARTS\tLABEL\tMADE\t"+used+"\tSTATE")
	for _, r := range rows {
		state := "valid"
		if !r.revoked.IsZero() {
			state = "revoked " + tz.FormatModel(r.revoked, zone)
		}
		fmt.Fprintf(w, "%d\t%s\t%s…\t%s\t%s\t%s\t%s\n", r.id, names[r.person], r.prefix, dash(r.label),
			tz.FormatModel(r.created, zone), stampOrDash(r.used, zone), state)
	}
	return w.Flush()
}
