package remind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/alarm"
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
	Failures    int    // earlier attempts that ended in a notifier's error
	Token       string
	DeliveredTo []string
	WasDue      time.Time // next_attempt before the claim (Unclaim puts it back)
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
	// The lease is renewed while the send runs, however long a notifier
	// takes, so no other process starts a second send of it meanwhile.
	stopRenew := e.keepLease(sendCtx, p, d)
	failures := e.send(sendCtx, p, d)
	// Marked at once, before anything else (the renewal stops after): a
	// crash between the send and this mark is what resends a delivery.
	afterSend(d)
	err = e.finish(sendCtx, p, d, failures, e.now(), r)
	stopRenew()
	return true, err
}

// send sends d through every notifier that has not accepted it yet, and
// returns their errors.
func (e *Engine) send(ctx context.Context, p person, d *delivery) (failures []string) {
	msg, err := e.message(ctx, p, d)
	if err != nil {
		e.log.Error("cannot build a reminder; sending what is known", "delivery", d.ID, "err", err)
	}
	body, _ := json.Marshal(msg)
	for _, n := range e.notifiers {
		if slices.Contains(d.DeliveredTo, n.Name()) {
			continue
		}
		if err := n.Notify(ctx, msg, body); err != nil {
			failures = append(failures, n.Name()+": "+err.Error())
			continue
		}
		d.DeliveredTo = append(d.DeliveredTo, n.Name())
	}
	return failures
}

// leaseNow is the lease clock's reading in tx: Options.LeaseClock when
// set (a test's), else the store's shared clock ([store.Tx.LeaseNow]: the
// PostgreSQL server's, or this machine's real clock on SQLite).
func (e *Engine) leaseNow(tx *store.Tx) (time.Time, error) {
	if e.leaseClock != nil {
		return e.leaseClock(), nil
	}
	return tx.LeaseNow()
}

// leaseGiven is what NextToSend judges leases by: Options.LeaseClock's
// reading when set, else zero, the store's shared clock, read by the same
// statement.
func (e *Engine) leaseGiven() time.Time {
	if e.leaseClock != nil {
		return e.leaseClock()
	}
	return time.Time{}
}

// keepLease renews d's lease every third of the lease, on the lease clock,
// until the returned stop is called; stop returns once no renewal runs. A
// renewal only extends a claim this sender still holds (its claim token).
func (e *Engine) keepLease(ctx context.Context, p person, d *delivery) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(e.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			_, err := e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error {
				real, err := e.leaseNow(tx)
				if err != nil {
					return err
				}
				return tx.RenewLease(d.RowID, d.Token, real.Add(e.lease), e.now().Add(e.lease))
			})
			if err != nil {
				e.log.Warn("cannot renew the lease of the delivery being sent", "delivery", d.ID, "err", err)
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}

// claim takes the next delivery of p that may be sent now: pending and
// due, or claimed by a sender whose lease ran out on the lease clock (it
// stopped before recording a result: killed, or its machine went off).
// Leases are judged by the clock every process shares (e.leaseNow: the
// PostgreSQL server's, or this machine's real clock on SQLite), never by
// e.now, which a test or another machine may set apart. Rows past MaxLate
// are settled instead: skipped when never tried, failed after earlier
// attempts. Claims of one person are serialised by the store (one write
// of a person at a time, on every engine); the claim is a compare-and-set
// besides, so a row another sender took meanwhile is left to it and the
// next one is read.
func (e *Engine) claim(ctx context.Context, p person, r *Result) (*delivery, bool, error) {
	var d *delivery
	more := false
	var tr Result // counts of the transaction that commits
	_, err := e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error {
		tr = Result{}
		var err error
		d, more, err = e.claimIn(tx, p, &tr, e.now(), &leaseReading{})
		return err
	})
	if err == nil {
		r.add(tr)
	}
	return d, more, err
}

// leaseReading is the lease clock read once in a transaction, when first
// needed: the claims of one transaction take their leases from the same
// reading, as the renewals of one do (keepLeases).
type leaseReading struct {
	at   time.Time
	read bool
}

// leaseOnce is l's reading, read in tx (e.leaseNow) the first time.
func (e *Engine) leaseOnce(tx *store.Tx, l *leaseReading) (time.Time, error) {
	if !l.read {
		at, err := e.leaseNow(tx)
		if err != nil {
			return time.Time{}, err
		}
		l.at, l.read = at, true
	}
	return l.at, nil
}

// claimIn is claim's work in tx, a transaction acting for p, at now; the
// lease is taken from lease's reading.
func (e *Engine) claimIn(tx *store.Tx, p person, r *Result, now time.Time, lease *leaseReading) (d *delivery, more bool, err error) {
	err = func() error {
		found, ok, err := tx.NextToSend(now, e.leaseGiven())
		if err != nil || !ok {
			return err
		}
		more = true
		row := delivery{RowID: found.RowID, Item: found.Item, Occurrence: found.Occurrence, Trigger: found.Trigger,
			FireAt: found.FireAt, ID: found.ID, Attempt: found.Attempts, Failures: found.Failures,
			DeliveredTo: found.DeliveredTo, WasDue: found.NextAttempt}
		status, lastErr := found.Status, found.LastError
		settle := func(st, why string) error { return tx.Settle(row.RowID, st, why) }
		if late := now.Sub(row.FireAt); late > e.maxLate {
			limit := "more than " + humanDuration(e.maxLate) + " late (--max-late)"
			switch {
			case row.Attempt == 0:
				r.Skipped++
				r.TooLate++
				return settle(store.DeliverySkipped, "missed by "+humanDuration(late)+", more than the "+
					humanDuration(e.maxLate)+" allowed (--max-late)")
			case row.Failures == 0:
				r.GaveUp++
				return settle(store.DeliveryFailed, fmt.Sprintf("gave up: %s; its sender stopped %s before recording a result "+
					"(it may have gone out)", limit, times(row.Attempt)))
			}
			r.GaveUp++
			return settle(store.DeliveryFailed, strings.TrimSpace(lastErr+"; gave up: "+limit))
		}
		if store.IsSnoozeTrigger(row.Trigger) {
			if gone, why, err := e.snoozeGone(tx, p, row.ID, row.Item); err != nil {
				return err
			} else if gone {
				r.Skipped++
				return settle(store.DeliverySkipped, why)
			}
		}
		if ended, why, err := e.ended(tx, p, row.Item, row.Occurrence, row.Trigger, row.FireAt, now); err != nil {
			return err
		} else if ended {
			r.Skipped++
			return settle(store.DeliverySkipped, why)
		}
		if status == store.DeliveryClaimed {
			e.log.Warn("a sender stopped before recording a result; sending again under the same delivery id",
				"person", p.Name, "delivery", row.ID, "attempts", row.Attempt)
		}
		real, err := e.leaseOnce(tx, lease)
		if err != nil {
			return err
		}
		row.Attempt++
		row.Token = newToken()
		if err := tx.Claim(row.RowID, row.Attempt, row.Token, real.Add(e.lease), now.Add(e.lease)); errors.Is(err, store.ErrTaken) {
			return nil // another sender has it; more is true, so the next row is read
		} else if err != nil {
			return err
		}
		d = &row
		return nil
	}()
	return d, more, err
}

// times is "once", "twice" or "3 times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.Itoa(n) + " times"
}

// finish records the outcome of one attempt: sent when every notifier
// accepted it; otherwise pending again after the retry wait, or failed
// when the attempts are used up. A sent mark is written whoever holds the
// lease now, since the message went out; a failure is recorded only while
// this sender still holds it.
func (e *Engine) finish(ctx context.Context, p person, d *delivery, failures []string, now time.Time, r *Result) error {
	_, err := e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error { return e.markIn(tx, d, failures, now) })
	e.report(p, d, failures, now, r)
	return err
}

// markIn is finish's write in tx, a transaction acting for d's person.
func (e *Engine) markIn(tx *store.Tx, d *delivery, failures []string, now time.Time) error {
	if len(failures) == 0 {
		return tx.MarkSent(d.RowID, now, d.DeliveredTo)
	}
	fails := d.Failures + 1
	var retryAt time.Time // zero: failed for good
	if fails < e.maxAttempts() {
		retryAt = now.Add(e.retry[min(fails-1, len(e.retry)-1)])
	}
	return tx.MarkFailed(d.RowID, d.Token, fails, strings.Join(failures, "; "), d.DeliveredTo, retryAt)
}

// report counts and logs the outcome of one attempt.
func (e *Engine) report(p person, d *delivery, failures []string, now time.Time, r *Result) {
	fails := d.Failures + 1 // when this attempt failed
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
	case fails >= e.maxAttempts():
		r.Failed++
		r.GaveUp++
		e.log.Error("reminder failed for good", append(attrs, "err", strings.Join(failures, "; "))...)
	default:
		r.Failed++
		e.log.Warn("reminder not delivered; will retry", append(attrs, "err", strings.Join(failures, "; "),
			"retry_in", humanDuration(e.retry[min(fails-1, len(e.retry)-1)]))...)
	}
}

// ended reports whether the event occurrence a delivery is about has
// ended by now, and says why it is not sent then: a reminder of something
// already over is of no use. Tasks never end (an overdue task is still
// worth a reminder), and neither does a delivery whose item cannot be read
// (the send says what the row knows).
func (e *Engine) ended(tx *store.Tx, p person, label, occurrence, trig string, at, now time.Time) (bool, string, error) {
	if !alarm.IsEvent(label) {
		return false, "", nil
	}
	it, found, err := loadItem(tx, label, p.Zone)
	if err != nil || !found {
		return false, "", nil
	}
	f, ok := it.FireOf(occurrence, trig, at)
	if !ok || f.End.IsZero() || now.Before(f.End) {
		return false, "", nil
	}
	return true, "the event ended " + tz.FormatModel(f.End, p.Zone) + ", before its reminder could be sent", nil
}
