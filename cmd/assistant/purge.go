package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func newPurgeCmd(a *app) *cobra.Command {
	var olderThan string
	cmd := &cobra.Command{
		Use:   "purge --older-than AGE",
		Short: "Remove old deleted items, history and chats for good",
		Long: `Deletes made through the tools are soft and every change is journaled, so
that undo works. purge removes for good, for every person: items deleted
more than AGE ago, journal entries and chat conversations older than AGE,
and idempotency keys older than AGE (at least 24 hours). Changes older
than AGE can no longer be undone afterwards.

AGE is a number of days (90d), weeks (12w) or hours (36h).`,
		Example: `  assistant purge --older-than 90d`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if olderThan == "" {
				return usageError(cmd, "“--older-than” is required, for example --older-than 90d")
			}
			age, err := parseAge(olderThan)
			if err != nil {
				return fail(exitInvalid, err)
			}
			st, err := a.openStore(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer st.Close()
			c, err := st.Purge(cmd.Context(), age)
			if err != nil {
				return storeFail(err)
			}
			var parts []string
			tables := make([]string, 0, len(c.Rows))
			for t := range c.Rows {
				tables = append(tables, t)
			}
			sort.Strings(tables)
			for _, t := range tables {
				parts = append(parts, fmt.Sprintf("%d deleted %s", c.Rows[t], t))
			}
			parts = append(parts,
				fmt.Sprintf("%d journal entries", c.Changes),
				fmt.Sprintf("%d conversations", c.Conversations),
				fmt.Sprintf("%d idempotency keys", c.Keys))
			a.printf("Purged what was older than %s: %s.\n", olderThan, strings.Join(parts, ", "))
			return nil
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "the age past which to purge: 90d, 12w, 36h")
	return cmd
}

var ageForm = regexp.MustCompile(`^(\d{1,6})([dwh])$`)

// parseAge reads an age such as 90d, 12w or 36h. Days and weeks are 24-hour
// days: a purge cut-off has no need of calendar days.
func parseAge(s string) (time.Duration, error) {
	m := ageForm.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("“--older-than” must be a number of days, weeks or hours such as 90d, 12w or 36h, not “%s”", s)
	}
	n, _ := strconv.Atoi(m[1])
	unit := map[string]time.Duration{"h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[2]]
	return time.Duration(n) * unit, nil
}
