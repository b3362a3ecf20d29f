package store

import (
	"context"
	"fmt"
	"time"
)

// keyLife is how long an idempotency key is kept at the least.
const keyLife = 24 * time.Hour

// PurgeCounts says what Purge removed.
type PurgeCounts struct {
	Rows          map[string]int64 // soft-deleted rows removed, by table
	Changes       int64            // journal entries removed
	Conversations int64            // conversations removed (with their messages)
	Keys          int64            // idempotency keys removed
}

// Purge removes for good, for every person, in one transaction: rows of
// registered tables soft-deleted more than olderThan ago, journal entries
// and conversations (by last update) older than that, and idempotency keys
// older than olderThan or 24 hours, whichever is longer. An undo of a
// surviving change that touched a purged row is then refused. Each
// person's newest change stays, however old: it is the point their CalDAV
// sync tokens and CTags name, which must never go back to an earlier one
// (RFC 6578 §3.2), and on SQLite it keeps change numbers from being given
// again.
func (s *Store) Purge(ctx context.Context, olderThan time.Duration) (PurgeCounts, error) {
	c := PurgeCounts{Rows: map[string]int64{}}
	if olderThan < 0 {
		return c, fmt.Errorf("“older-than” must not be negative, for example “90d”")
	}
	now := s.now()
	cut := now.Add(-olderThan)
	keyCut := now.Add(-max(olderThan, keyLife))
	tx, end, err := s.beginWrite(ctx, 0)
	if err != nil {
		return c, err
	}
	defer end()
	exec := func(q string, args ...any) (int64, error) {
		r, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		return r.RowsAffected()
	}
	for _, t := range Tables() {
		if _, err := s.columns(ctx, tx, t); err != nil {
			return c, err
		}
		n, err := exec(`DELETE FROM `+t+` WHERE deleted_at IS NOT NULL AND deleted_at < ?`, stamp(cut))
		if err != nil {
			return c, fmt.Errorf("cannot purge %s: %w", t, err)
		}
		c.Rows[t] = n
	}
	if c.Changes, err = exec(`DELETE FROM changes WHERE created < ?
		AND id NOT IN (SELECT max(id) FROM changes GROUP BY owner_id)`, cut.Unix()); err != nil {
		return c, fmt.Errorf("cannot purge the journal: %w", err)
	}
	if c.Conversations, err = exec(`DELETE FROM conversations WHERE updated < ?`, cut.Unix()); err != nil {
		return c, fmt.Errorf("cannot purge chat history: %w", err)
	}
	if c.Keys, err = exec(`DELETE FROM idempotency_keys WHERE created < ?`, keyCut.Unix()); err != nil {
		return c, fmt.Errorf("cannot purge idempotency keys: %w", err)
	}
	return c, tx.Commit()
}
