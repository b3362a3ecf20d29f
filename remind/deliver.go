package remind

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// delivery is one claimed row of reminder_deliveries.
type delivery struct {
	RowID       int64
	Item        string
	Occurrence  string
	Trigger     string
	FireAt      time.Time
	ID          string // delivery_id
	Attempt     int    // this attempt, from 1
	Token       string
	DeliveredTo []string
}

// afterSend runs between sending a delivery and marking it sent. It does
// nothing, except in binaries built with the remindcrash tag, where a test
// stops the process there to prove a crash loses nothing (crash.go).
var afterSend = func(d *delivery) {}

// deliverNext claims the next due delivery of p, sends it and records the
// outcome. more is false when nothing is left to send now.
func (e *Engine) deliverNext(ctx context.Context, p person, r *Result) (more bool, err error) {
	d, more, err := e.claim(ctx, p, r)
	if err != nil || d == nil {
		return more, err
	}
	// The send itself is not cut short by a shutdown: the delivery in
	// flight finishes and is recorded (each notifier has its own timeout).
	sendCtx := context.WithoutCancel(ctx)
	msg, err := e.message(sendCtx, p, d)
	if err != nil {
		e.log.Error("cannot build a reminder; sending what is known", "delivery", d.ID, "err", err)
	}
	body, _ := json.Marshal(msg)
	var failures []string
	for _, n := range e.notifiers {
		if slices.Contains(d.DeliveredTo, n.Name()) {
			continue
		}
		if err := n.Notify(sendCtx, msg, body); err != nil {
			failures = append(failures, n.Name()+": "+err.Error())
			continue
		}
		d.DeliveredTo = append(d.DeliveredTo, n.Name())
	}
	afterSend(d)
	now := e.now()
	return true, e.finish(sendCtx, p, d, failures, now, r)
}

// claim takes the next delivery of p that may be sent now: pending and
// due, or claimed by a sender whose lease ran out. Rows past MaxLate are
// settled (skipped, or failed after earlier attempts) instead, and so are
// rows whose senders died holding them more times than attempts allow.
func (e *Engine) claim(ctx context.Context, p person, r *Result) (*delivery, bool, error) {
	var d *delivery
	more := false
	_, err := e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error {
		d, more = nil, false
		now := e.now()
		var (
			row     delivery
			status  string
			lastErr string
			to      string
			fireAt  int64
		)
		err := tx.QueryRow(`SELECT id, item, occurrence, trigger, fire_at, delivery_id, status, attempts, last_error,
			delivered_to FROM reminder_deliveries WHERE owner_id = ? AND status IN ('pending', 'claimed')
			AND next_attempt <= ? ORDER BY next_attempt, id LIMIT 1`, tx.Owner(), now.Unix()).
			Scan(&row.RowID, &row.Item, &row.Occurrence, &row.Trigger, &fireAt, &row.ID, &status, &row.Attempt,
				&lastErr, &to)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		more = true
		row.FireAt = time.Unix(fireAt, 0).UTC()
		_ = json.Unmarshal([]byte(to), &row.DeliveredTo)
		settle := func(st, why string) error {
			_, err := tx.Exec(`UPDATE reminder_deliveries SET status = ?, last_error = ?, lease_until = NULL,
				claim_token = NULL WHERE owner_id = ? AND id = ?`, st, why, tx.Owner(), row.RowID)
			return err
		}
		if late := now.Sub(row.FireAt); late > e.maxLate {
			if row.Attempt == 0 {
				r.Skipped++
				return settle("skipped", "missed by "+humanDuration(late)+", more than the "+
					humanDuration(e.maxLate)+" allowed (--max-late)")
			}
			r.GaveUp++
			return settle("failed", strings.TrimSpace(lastErr+"; gave up: more than "+humanDuration(e.maxLate)+" late (--max-late)"))
		}
		if status == "claimed" && row.Attempt >= e.maxAttempts() {
			r.GaveUp++
			return settle("failed", "its sender stopped before recording the result, "+
				"as many times as attempts are allowed; last error: "+orNone(lastErr))
		}
		row.Attempt++
		row.Token = newToken()
		lease := now.Add(e.lease).Unix()
		if _, err := tx.Exec(`UPDATE reminder_deliveries SET status = 'claimed', attempts = ?, claim_token = ?,
			lease_until = ?, next_attempt = ? WHERE owner_id = ? AND id = ?`,
			row.Attempt, row.Token, lease, lease, tx.Owner(), row.RowID); err != nil {
			return err
		}
		d = &row
		return nil
	})
	return d, more, err
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// finish records the outcome of one attempt: sent when every notifier
// accepted it; otherwise pending again after the retry wait, or failed
// when the attempts are used up. A sent mark is written whoever holds the
// lease now, since the message went out; a failure is recorded only while
// this sender still holds it.
func (e *Engine) finish(ctx context.Context, p person, d *delivery, failures []string, now time.Time, r *Result) error {
	to, _ := json.Marshal(d.DeliveredTo)
	if d.DeliveredTo == nil {
		to = []byte("[]")
	}
	_, err := e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error {
		if len(failures) == 0 {
			_, err := tx.Exec(`UPDATE reminder_deliveries SET status = 'sent', sent_at = ?, lease_until = NULL,
				claim_token = NULL, last_error = '', delivered_to = ? WHERE owner_id = ? AND id = ? AND status <> 'sent'`,
				now.Unix(), string(to), tx.Owner(), d.RowID)
			return err
		}
		why := strings.Join(failures, "; ")
		if d.Attempt >= e.maxAttempts() {
			_, err := tx.Exec(`UPDATE reminder_deliveries SET status = 'failed', lease_until = NULL, claim_token = NULL,
				last_error = ?, delivered_to = ? WHERE owner_id = ? AND id = ? AND claim_token = ?`,
				why, string(to), tx.Owner(), d.RowID, d.Token)
			return err
		}
		wait := e.retry[min(d.Attempt-1, len(e.retry)-1)]
		_, err := tx.Exec(`UPDATE reminder_deliveries SET status = 'pending', lease_until = NULL, claim_token = NULL,
			next_attempt = ?, last_error = ?, delivered_to = ? WHERE owner_id = ? AND id = ? AND claim_token = ?`,
			now.Add(wait).Unix(), why, string(to), tx.Owner(), d.RowID, d.Token)
		return err
	})
	late := now.Sub(d.FireAt)
	attrs := []any{"person", p.Name, "delivery", d.ID, "item", d.Item, "occurrence", d.Occurrence,
		"trigger", d.Trigger, "fire_at", tz.RFC3339(d.FireAt, p.Zone), "attempt", d.Attempt}
	switch {
	case len(failures) == 0:
		r.Sent++
		if late > LateAfter {
			r.Late++
			attrs = append(attrs, "late", humanDuration(late))
		}
		e.log.Info("reminder sent", attrs...)
	case d.Attempt >= e.maxAttempts():
		r.Failed++
		r.GaveUp++
		e.log.Error("reminder failed for good", append(attrs, "err", strings.Join(failures, "; "))...)
	default:
		r.Failed++
		e.log.Warn("reminder not delivered; will retry", append(attrs, "err", strings.Join(failures, "; "),
			"retry_in", humanDuration(e.retry[min(d.Attempt-1, len(e.retry)-1)]))...)
	}
	return err
}
