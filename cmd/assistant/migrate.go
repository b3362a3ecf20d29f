package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/spf13/cobra"
)

func newMigrateCmd(a *app) *cobra.Command {
	cmd := group(&cobra.Command{
		Use:   "migrate",
		Short: "Show or apply the database's schema migrations",
		Long: `Every command brings the database up to date when it opens it. A SQLite file
is copied next to itself first (assistant.db.vN.bak). A PostgreSQL database
gets no copy: each migration runs in a transaction of its own, so one that
fails leaves the schema as it was, and the server's own backups (pg_dump,
a replica) stand for the rest; processes that start together migrate it
once. "migrate status" shows the schema version without changing anything;
"migrate up" applies what is pending. A database whose schema is newer than
this assistant is refused on both engines.`,
		Example: `  assistant migrate status
  assistant migrate up`,
	})
	status := &cobra.Command{
		Use:   "status",
		Short: "Show the schema version and each migration, changing nothing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.openStore(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer st.Close()
			s, err := st.Status(cmd.Context())
			if err != nil {
				return fail(exitDatabase, err)
			}
			a.printf("database: %s\nschema version: %d (this assistant knows up to %d)\n", s.Path, s.Current, s.Latest)
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "VERSION\tFILE\tAPPLIED")
			for _, m := range s.Migrations {
				at := "pending"
				if m.Applied {
					at = m.AppliedAt.Format(time.RFC3339)
				}
				fmt.Fprintf(w, "%d\t%s\t%s\n", m.Version, m.Name, at)
			}
			return w.Flush()
		},
	}
	up := &cobra.Command{
		Use:   "up",
		Short: "Apply every pending migration (after a backup copy of a SQLite file)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.openStore(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer st.Close()
			r, err := st.Migrate(cmd.Context())
			if err != nil {
				return fail(exitDatabase, err)
			}
			if len(r.Applied) == 0 {
				a.printf("Up to date at schema version %d.\n", r.To)
				return nil
			}
			a.printf("Migrated from schema version %d to %d: %s.\n", r.From, r.To, strings.Join(r.Applied, ", "))
			if r.Backup != "" {
				a.printf("The copy from before is %s.\n", r.Backup)
			}
			if st.Engine() == store.Postgres {
				a.printf("No copy was made: on PostgreSQL each migration ran in a transaction of its own; keep the server's own backups (pg_dump, a replica).\n")
			}
			return nil
		},
	}
	cmd.AddCommand(status, up)
	return cmd
}
