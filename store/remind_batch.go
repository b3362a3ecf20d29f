package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/assistant-dev/assistant/calendar"
)

// WriteMany runs fn in one write transaction that acts for each of
// owners (people's ids) in turn: fn takes a person's view with [Tx.As].
// It is for the bookkeeping of the reminders job, whose tables are not
// journaled: a view that changes a journaled row (Insert, Update,
// Delete) makes WriteMany fail and keep nothing, since no change would
// record it. One transaction for many people costs one commit (one
// flush to disk) instead of one a person.
//
// SQLite serialises it with every other write, as Write; on PostgreSQL it
// holds the advisory lock of each person (taken in order of id, so two
// WriteMany never wait on each other in a cycle), as a Write of each
// would. When fn returns an error nothing is kept and the error is
// returned as is.
func (s *Store) WriteMany(ctx context.Context, owners []int64, fn func(tx *Tx) error) error {
	if s.readOnly {
		// Refused before it starts, even when fn would write nothing (a
		// pass with no work still tells that it cannot write): a file
		// opened immutable would take an empty transaction.
		return s.troubled(fmt.Errorf("cannot start writing to the database: %w", syscall.EROFS))
	}
	ids := slices.Clone(owners)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	sqlTx, end, err := s.beginWrite(ctx, 0)
	if err != nil {
		return s.troubled(fmt.Errorf("cannot start writing to the database: %w", err))
	}
	defer end()
	tx := &Tx{s: s, ctx: ctx, tx: sqlTx, now: s.now(), tool: "remind", many: &manyOwners{ids: ids},
		later: &later{moved: map[int64]bool{}}}
	if s.engine == Postgres && len(ids) > 0 {
		// Every lock in one statement (one round trip, not one a
		// person), taken in the order of the sorted subquery. The
		// transaction's reads are a few index probes a person, read
		// for many people at once (remind_ahead.go): the planner's
		// estimate for a list of people can reach the cost where it
		// starts parallel workers, which cost more than the read
		// (200 ms against 1 ms at 32 people of a thousand items), so
		// it starts none in this transaction.
		if _, err := sqlTx.ExecContext(ctx, `SELECT set_config('max_parallel_workers_per_gather', '0', true),
			(SELECT count(pg_advisory_xact_lock(id)) FROM (SELECT unnest(CAST(? AS bigint[])) AS id ORDER BY 1) ids)`, ids); err != nil {
			return s.troubled(err)
		}
	}
	if err := fn(tx); err != nil {
		if tx.later.err != nil {
			return tx.later.err
		}
		return err
	}
	for _, v := range tx.many.views {
		if len(v.touched) > 0 {
			return errors.New("store: WriteMany changed a journaled row; use Write")
		}
	}
	if err := tx.sendLater(); err != nil {
		return err
	}
	if tx.later.err != nil {
		return tx.later.err // fn went on past a failed write
	}
	if err := sqlTx.Commit(); err != nil {
		return s.troubled(fmt.Errorf("cannot save the change: %w", s.commitFailed(err)))
	}
	return nil
}

// manyOwners is what a WriteMany transaction holds: the people it acts
// for and the views handed out.
type manyOwners struct {
	ids   []int64
	views []*Tx
	ahead map[int64]*ahead // what was read ahead, by person (remind_ahead.go)
}

// As gives the view of tx that reads and writes the rows of owner, one of
// the people its [Store.WriteMany] was given; nil when tx is no
// WriteMany transaction or owner is not one of them.
func (tx *Tx) As(owner int64) *Tx {
	if tx.many == nil {
		return nil
	}
	if _, ok := slices.BinarySearch(tx.many.ids, owner); !ok {
		return nil
	}
	v := &Tx{s: tx.s, ctx: tx.ctx, tx: tx.tx, owner: owner, now: tx.now, tool: tx.tool, ahead: tx.aheadOf(owner), later: tx.later}
	tx.many.views = append(tx.many.views, v)
	return v
}

// Unclaim hands back the delivery rowID a sender claimed under token and
// did not send (its pass was stopped): pending again with attempts and
// next_attempt as they were before the claim, so the next pass takes it
// at once rather than after the lease. A row no longer so claimed is left
// as it is.
func (tx *Tx) Unclaim(rowID int64, token string, attempts int, nextAttempt time.Time) error {
	if err := tx.writable("Unclaim"); err != nil {
		return err
	}
	_, err := tx.exec(`UPDATE reminder_deliveries SET status = 'pending', attempts = ?, claim_token = NULL,
		lease_until = NULL, next_attempt = ? WHERE owner_id = ? AND id = ? AND claim_token = ? AND status = 'claimed'`,
		attempts, nextAttempt.Unix(), tx.owner, rowID, token)
	return err
}

// RemindBusy gives the people, of all in the database, that a pass of
// the reminders job has work for at now: no row in remind_state yet, or a
// zone other than the one recorded there; a change in the journal after
// the recorded mark (or the journal's numbering gone back below it); an
// index row due by now; a pending delivery due by now or any claimed one;
// a snooze due by now not recorded yet; or an index complete only up to
// before horizonBefore. Anyone else would find nothing to do. It is one
// statement whose cost is a few index probes a person, whatever their
// items.
func (s *Store) RemindBusy(ctx context.Context, now, horizonBefore time.Time) (map[int64]bool, error) {
	at := now.Unix()
	const q = `SELECT p.id FROM people p LEFT JOIN remind_state st ON st.owner_id = p.id
		WHERE st.owner_id IS NULL OR st.zone <> p.zone
		OR (st.horizon IS NOT NULL AND st.horizon <= ?)
		OR EXISTS (SELECT 1 FROM changes c WHERE c.owner_id = p.id AND c.id > st.change_mark)
		OR st.change_mark > coalesce((SELECT max(c.id) FROM changes c WHERE c.owner_id = p.id), 0)
		OR EXISTS (SELECT 1 FROM remind_next n WHERE n.owner_id = p.id AND n.next_fire IS NOT NULL AND n.next_fire <= ?)
		OR EXISTS (SELECT 1 FROM reminder_deliveries d WHERE d.owner_id = p.id AND d.status IN ('pending', 'claimed')
			AND (d.status = 'claimed' OR d.next_attempt <= ?))
		OR EXISTS (SELECT 1 FROM reminder_snoozes s WHERE s.owner_id = p.id AND s.deleted_at IS NULL AND s.fire_at <= ?
			AND NOT EXISTS (SELECT 1 FROM reminder_deliveries d WHERE d.delivery_id = s.delivery_id))`
	args := []any{horizonBefore.Unix(), at, at, at}
	var rows *sql.Rows
	var err error
	if st := s.stmt(ctx, q); st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = s.db.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, s.troubled(err)
	}
	return idSet(rows)
}

// EventsForReminders reads the events of ids as [Tx.EventForReminders]
// does, deleted or not, with their live overrides, a few hundred a
// query: what a rebuild of the reminders' index reads. An event missing,
// or whose row cannot be decoded, is left out (reading it alone says
// why).
func (tx *Tx) EventsForReminders(ids []int64) (map[int64]WatchedEvent, error) {
	if m, ok := tx.takeEvents(ids); ok {
		return m, nil
	}
	out := make(map[int64]WatchedEvent, len(ids))
	const per = 500
	for len(ids) > 0 {
		n := min(len(ids), per)
		args := []any{tx.owner}
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		in := `(?` + repeatComma(n-1) + `)`
		rows, err := tx.query(`SELECT `+eventColumns+`, updated_at, deleted_at FROM events WHERE owner_id = ? AND id IN `+in, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var updated, deleted sql.NullString
			e, err := scanEvent(rows, &updated, &deleted)
			if err != nil {
				continue
			}
			out[e.ID] = WatchedEvent{Event: e, Dead: deleted.Valid, Updated: evStamp(updated.String),
				Overrides: map[string]*calendar.Override{}}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		rows, err = tx.query(`SELECT `+overrideColumns+`, updated_at FROM event_overrides
			WHERE owner_id = ? AND deleted_at IS NULL AND event_id IN `+in, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var upd sql.NullString
			o, err := scanOverride(rows, &upd)
			if err != nil {
				// Which event it belongs to is unknown: the batch's
				// events are left out, each read alone says why.
				for _, id := range ids[:n] {
					delete(out, id)
				}
				continue
			}
			w, ok := out[o.EventID]
			if !ok {
				continue
			}
			if u := evStamp(upd.String); u.After(w.Updated) {
				w.Updated = u
				out[o.EventID] = w
			}
			w.Overrides[o.Key] = o
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return out, nil
}

// idSet is the set of the ids rows gives, one a row (their only column);
// it closes rows.
func idSet(rows *sql.Rows) (map[int64]bool, error) {
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}
