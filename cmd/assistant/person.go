package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

func newPersonCmd(a *app) *cobra.Command {
	cmd := group(&cobra.Command{
		Use:   "person",
		Short: "Add, list, re-zone and delete the people whose data this database keeps",
		Long: `Each person has a name and an IANA time zone, and sees only their own tasks,
events and history. The first command that needs one makes the local person
(named by the config's person, else $USER) in the config's zone, else $TZ,
else the system's zone. --person (or ASSISTANT_PERSON) picks who a command
acts as; --tz (or ASSISTANT_TZ) changes the zone for one run only.`,
		Example: `  assistant person add alice --zone Europe/Paris
  assistant person list
  assistant person set-zone Asia/Tokyo
  assistant person delete bob --yes`,
	})

	var zone string
	add := &cobra.Command{
		Use:   "add NAME [--zone AREA/CITY]",
		Short: "Add a person (zone: --zone or --tz, else the local default)",
		Long: `Add a person in the IANA zone given with --zone (or --tz, which here
names the zone to store), else in the local default: the config's zone, $TZ,
the system's.`,
		Example: `  assistant person add alice --zone Europe/Paris
  assistant token create --person alice`,
		Args: exactArgs(1, "one name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			z := a.localZone
			if cmd.Flags().Changed("tz") {
				// --tz is the zone of this run; the person made in it is
				// all this run does, so it is the zone stored.
				if zone != "" && !sameZone(zone, a.tzOverride) {
					return usageError(cmd, "--zone and --tz name different zones; give the person's zone once, with --zone")
				}
				z = a.tzOverride
			}
			if zone != "" {
				zz, err := tz.LoadZoneLoose(zone)
				if err != nil {
					return failf(exitInvalid, "“--zone” is wrong: %v", zoneHome(err, a.localZone))
				}
				z = zz.Name()
			}
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				p, err := st.AddPerson(cmd.Context(), args[0], z)
				if err != nil {
					return storeFail(err)
				}
				a.printf("Added %s (person %d) in %s.\n", p.Name, p.ID, p.Zone)
				return nil
			})
		},
	}
	add.Flags().StringVar(&zone, "zone", "", "the person's IANA time zone, such as Europe/Paris")
	_ = add.RegisterFlagCompletionFunc("zone", completeZones)

	list := &cobra.Command{
		Use:   "list",
		Short: "List the people",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				people, err := st.People(cmd.Context())
				if err != nil {
					return storeFail(err)
				}
				w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(w, "ID\tNAME\tZONE\tADDED")
				for _, p := range people {
					mark := ""
					if p.Name == a.localName {
						mark = " (local)"
					}
					fmt.Fprintf(w, "%d\t%s%s\t%s\t%s\n", p.ID, p.Name, mark, p.Zone, p.Created.Format(time.RFC3339))
				}
				return w.Flush()
			})
		},
	}

	setZone := &cobra.Command{
		Use:   "set-zone [NAME] AREA/CITY",
		Short: "Change a person's stored zone (default: the person --person picks)",
		Long: `Change the IANA zone a person's plain times are read and shown in, for good.
For one run only, use --tz or ASSISTANT_TZ instead. The change is journaled like
any other: undo (as that person) puts the old zone back.`,
		Example: `  assistant person set-zone Asia/Tokyo
  assistant person set-zone alice America/New_York`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageError(cmd, "“%s” takes a zone, or a name and a zone", cmd.CommandPath())
			}
			return nil
		},
		ValidArgsFunction: completeZones,
		RunE: func(cmd *cobra.Command, args []string) error {
			zoneArg := args[len(args)-1]
			z, err := tz.LoadZoneLoose(zoneArg)
			if err != nil {
				return failf(exitInvalid, "the zone is wrong: %v", zoneHome(err, a.localZone))
			}
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				var p store.Person
				if len(args) == 2 {
					p, err = st.PersonByName(cmd.Context(), args[0])
				} else {
					p, err = a.storePerson(cmd.Context(), st)
				}
				if err != nil {
					return storeFail(err)
				}
				change, was, err := st.SetZone(cmd.Context(), p.ID, z.Name(), "person set-zone")
				if err != nil {
					return storeFail(err)
				}
				if change == "" {
					a.printf("%s is already in %s; nothing changed.\n", p.Name, z.Name())
					return nil
				}
				a.printf("%s is now in %s (was %s). Change %s; `assistant%s call undo change=%s` puts %s back.\n",
					p.Name, z.Name(), was, change, a.personFlag(p.Name), change, was)
				return nil
			})
		},
	}

	var yes bool
	del := &cobra.Command{
		Use:   "delete NAME --yes",
		Short: "Delete a person and everything of theirs, for good",
		Long: `Delete a person with all their tasks, events, history, chat conversations
and tokens, for good: this cannot be undone. Back up the database first if
in doubt (copy the SQLite file, or pg_dump a PostgreSQL database). --yes
confirms.`,
		Example: `  assistant person delete bob --yes`,
		Args:    exactArgs(1, "one name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !yes {
				return usageError(cmd, "deleting “%s” removes all their data for good; add --yes to confirm", args[0])
			}
			return a.withStore(cmd.Context(), func(st *store.Store) error {
				p, err := st.PersonByName(cmd.Context(), args[0])
				if err != nil {
					return storeFail(err)
				}
				if err := st.DeletePerson(cmd.Context(), p.ID); err != nil {
					return storeFail(err)
				}
				// The chat's line history is theirs too, and a later person
				// may be given the same id.
				if err := removeChatHistory(a.dbPath, p.ID); err != nil {
					a.log.Warn("could not remove the chat line history", "person", p.Name, "err", err)
				}
				a.printf("Deleted %s (person %d) and all their data.\n", p.Name, p.ID)
				return nil
			})
		},
	}
	del.Flags().BoolVar(&yes, "yes", false, "confirm the deletion")

	cmd.AddCommand(add, list, setZone, del)
	return cmd
}

// withStore opens the store (migrating it), runs fn and closes it.
func (a *app) withStore(ctx context.Context, fn func(*store.Store) error) error {
	st, err := a.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

// storePerson is the stored row of who this run acts as (see app.person),
// without the --tz override.
func (a *app) storePerson(ctx context.Context, st *store.Store) (store.Person, error) {
	if a.personSet {
		p, err := st.PersonByName(ctx, a.personName)
		if errors.Is(err, store.ErrNotFound) {
			return p, fmt.Errorf("there is no person named “%s”; add them with `assistant %sperson add %s --zone Area/City`: %w", a.personName, a.dbArg(), a.personName, store.ErrNotFound)
		}
		return p, err
	}
	return st.EnsurePerson(ctx, a.localName, a.localZone)
}

// personFlag is the --person flag a later command needs to act as name,
// or "" for the local person, whom commands act as by default.
func (a *app) personFlag(name string) string {
	if name == a.localName {
		return ""
	}
	return " --person " + shellWord(name)
}

// shellWord quotes s for a POSIX shell when it holds anything beyond
// letters, digits and -_.@ so a printed command can be pasted as is.
func shellWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.@", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// sameZone reports whether name is zone (an IANA name already loaded),
// read as --zone reads it. A name that is no zone counts as the same, so
// that the check of --zone names it.
func sameZone(name, zone string) bool {
	z, err := tz.LoadZoneLoose(name)
	return err != nil || z.Name() == zone
}

// dbArg is "--db PATH " when this run's database came from --db, for a
// command the person is told to run next on the same database (a
// PostgreSQL URL with its password replaced, see store.Redact); "" when
// it came from ASSISTANT_DB, the config file or the default, which that
// command reads the same way.
func (a *app) dbArg() string {
	if !a.dbFlag {
		return ""
	}
	path := store.Redact(a.dbPath) // never the password; PGPASSWORD or ~/.pgpass give it
	if strings.ContainsAny(path, " \t\n'\"\\$`&|;<>()*?[]#~") {
		path = "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
	}
	return "--db " + path + " "
}
