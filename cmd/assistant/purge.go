package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/store"
)

// purgeConfirmBelow is the age under which purge asks for --yes: a shorter
// AGE removes journal entries of the last week, the changes a person is
// still likely to want to undo (a typo of 0d for 90d would wipe them all).
const purgeConfirmBelow = 7 * 24 * time.Hour

func newPurgeCmd(a *app) *cobra.Command {
	var olderThan string
	var yes bool
	cmd := &cobra.Command{
		Use:   "purge --older-than AGE [--yes]",
		Short: "Remove old deleted items, history and chats for good",
		Long: `Deletes made through the tools are soft and every change is journaled, so
that undo works. purge removes for good, for every person: items deleted
more than AGE ago, journal entries and chat conversations older than AGE,
and idempotency keys older than AGE (at least 24 hours). Changes older
than AGE can no longer be undone afterwards.

AGE is a number of days (90d), weeks (12w) or hours (36h). An AGE under
7 days also removes the last week's undo history, so it needs --yes.`,
		Example: `  assistant purge --older-than 90d
  assistant purge --older-than 1d --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if olderThan == "" {
				return usageError(cmd, "“--older-than” is required, for example --older-than 90d")
			}
			age, err := parseAge(olderThan)
			if err != nil {
				return fail(exitInvalid, err)
			}
			if age < purgeConfirmBelow && !yes {
				return usageError(cmd, "“--older-than %s” also removes the undo history of the last 7 days, so those changes can no longer be undone; add --yes to confirm", olderThan)
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
			a.printf("Purged what was older than %s: %s.\n", olderThan, purged(c))
			return nil
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "the age past which to purge: 90d, 12w, 36h")
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm an age under 7 days, which removes recent undo history")
	return cmd
}

// purged says what a purge removed in words ("3 deleted tasks, 2 deleted
// completions, 5 journal entries"), leaving out what it found none of.
func purged(c store.PurgeCounts) string {
	var parts []string
	for _, t := range store.Tables() {
		if n := int(c.Rows[t]); n > 0 {
			parts = append(parts, fmt.Sprintf("%d deleted %s", n, store.Noun(t, n)))
		}
	}
	for _, k := range []struct {
		n         int64
		one, many string
	}{
		{c.Changes, "journal entry", "journal entries"},
		{c.Conversations, "chat conversation", "chat conversations"},
		{c.Keys, "idempotency key", "idempotency keys"},
	} {
		switch {
		case k.n == 1:
			parts = append(parts, "1 "+k.one)
		case k.n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", k.n, k.many))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
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
