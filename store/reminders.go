package store

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The reminder tables (migrations/00004_reminders.sql, 00009_reminders.sql)
// record what the reminders job did, not what a person wrote: none of them
// is journaled, so undo never touches them. Every method here reads and
// writes only the rows of tx.Owner(). Instants are stored as INTEGER Unix
// seconds and given back as UTC time.Time values.

// ReminderState is a person's row of remind_state: the bookkeeping of the
// reminders job.
type ReminderState struct {
	ChangeMark int64     // the last change of the journal the index has seen
	Zone       string    // the IANA zone remind_next was computed in
	PassedAt   time.Time // every fire up to this instant (whole seconds) is recorded
	// Horizon is how far ahead remind_next is complete: every item with a
	// fire at or before it is in remind_next, or in the journal after
	// ChangeMark. Zero means remind_next holds every item.
	Horizon time.Time
}

// ReminderState reads the person's row of remind_state; found is false
// when the job has never saved one.
func (tx *Tx) ReminderState() (st ReminderState, found bool, err error) {
	if a, ok := tx.takeState(); ok {
		return a.st, a.found, nil
	}
	var passed int64
	var horizon sql.NullInt64
	err = tx.queryRow(`SELECT change_mark, zone, passed_at, horizon FROM remind_state WHERE owner_id = ?`, tx.owner).
		Scan(&st.ChangeMark, &st.Zone, &passed, &horizon)
	if errors.Is(err, sql.ErrNoRows) {
		return ReminderState{}, false, nil
	}
	if err != nil {
		return ReminderState{}, false, err
	}
	st.PassedAt = time.Unix(passed, 0).UTC()
	if horizon.Valid {
		st.Horizon = time.Unix(horizon.Int64, 0).UTC()
	}
	return st, true, nil
}

// SaveReminderState writes the person's row of remind_state, adding it or
// replacing every column of the one there.
func (tx *Tx) SaveReminderState(st ReminderState) error {
	if err := tx.writable("SaveReminderState"); err != nil {
		return err
	}
	if held, err := tx.hold(laterStates); err != nil || held {
		if held {
			tx.later.states = append(tx.later.states, laterState{owner: tx.owner, ReminderState: st})
		}
		return err
	}
	horizon := horizonColumn(st.Horizon)
	_, err := tx.exec(`INSERT INTO remind_state (owner_id, change_mark, zone, passed_at, horizon) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (owner_id) DO UPDATE SET change_mark = excluded.change_mark, zone = excluded.zone,
		passed_at = excluded.passed_at, horizon = excluded.horizon`, tx.owner, st.ChangeMark, st.Zone, st.PassedAt.Unix(), horizon)
	return err
}

// NextFire is one row of remind_next: the next fire instant of an item
// ("t12", "e7") not yet recorded as a delivery. At is zero when nothing of
// the item will fire any more (a NULL next_fire) while the item is still
// watched.
type NextFire struct {
	Item string
	At   time.Time
}

func (n NextFire) column() any {
	if n.At.IsZero() {
		return nil
	}
	return n.At.Unix()
}

func scanNextFires(rows *sql.Rows) ([]NextFire, error) {
	defer rows.Close()
	var out []NextFire
	for rows.Next() {
		var n NextFire
		var at sql.NullInt64
		if err := rows.Scan(&n.Item, &at); err != nil {
			return nil, err
		}
		if at.Valid {
			n.At = time.Unix(at.Int64, 0).UTC()
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// NextFire reads the index row of item; found is false when the item is
// not in the index.
func (tx *Tx) NextFire(item string) (n NextFire, found bool, err error) {
	var at sql.NullInt64
	err = tx.queryRow(`SELECT next_fire FROM remind_next WHERE owner_id = ? AND item = ?`, tx.owner, item).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return NextFire{Item: item}, false, nil
	}
	if err != nil {
		return NextFire{}, false, err
	}
	n = NextFire{Item: item}
	if at.Valid {
		n.At = time.Unix(at.Int64, 0).UTC()
	}
	return n, true, nil
}

// NextFires reads the person's whole index, sorted by item.
func (tx *Tx) NextFires() ([]NextFire, error) {
	if list, ok := tx.takeFires(); ok {
		return list, nil
	}
	rows, err := tx.query(`SELECT item, next_fire FROM remind_next WHERE owner_id = ? ORDER BY item`, tx.owner)
	if err != nil {
		return nil, err
	}
	return scanNextFires(rows)
}

// NextFiresDue reads the index rows whose next fire is at or before now
// (whole seconds), soonest first (then by item).
func (tx *Tx) NextFiresDue(now time.Time) ([]NextFire, error) {
	if list, ok := tx.takeDue(now); ok {
		return list, nil
	}
	rows, err := tx.query(`SELECT item, next_fire FROM remind_next WHERE owner_id = ? AND next_fire IS NOT NULL
		AND next_fire <= ? ORDER BY next_fire, item`, tx.owner, now.Unix())
	if err != nil {
		return nil, err
	}
	return scanNextFires(rows)
}

// NextFiresAfter reads at most limit index rows whose next fire is after
// now (whole seconds), soonest first (then by item).
func (tx *Tx) NextFiresAfter(now time.Time, limit int) ([]NextFire, error) {
	rows, err := tx.query(`SELECT item, next_fire FROM remind_next WHERE owner_id = ? AND next_fire IS NOT NULL
		AND next_fire > ? ORDER BY next_fire, item LIMIT ?`, tx.owner, now.Unix(), limitArg(limit))
	if err != nil {
		return nil, err
	}
	return scanNextFires(rows)
}

// EarliestNextFire is the soonest next fire of the index; ok is false when
// nothing in it is set to fire.
func (tx *Tx) EarliestNextFire() (at time.Time, ok bool, err error) {
	return tx.minInstant(`SELECT min(next_fire) FROM remind_next WHERE owner_id = ? AND next_fire IS NOT NULL`)
}

func (tx *Tx) minInstant(q string) (time.Time, bool, error) {
	var v sql.NullInt64
	if err := tx.queryRow(q, tx.owner).Scan(&v); err != nil || !v.Valid {
		return time.Time{}, false, err
	}
	return time.Unix(v.Int64, 0).UTC(), true, nil
}

// SetNextFires adds or replaces the index rows of the given items, many
// rows per statement (a rebuild writes one per item).
func (tx *Tx) SetNextFires(list ...NextFire) error {
	if err := tx.writable("SetNextFires"); err != nil {
		return err
	}
	if len(list) == 0 {
		return nil
	}
	if held, err := tx.hold(laterFires); err != nil || held {
		for _, f := range list {
			if held {
				tx.later.fires = append(tx.later.fires, laterFire{owner: tx.owner, NextFire: f})
			}
		}
		return err
	}
	const perStmt = 300
	for len(list) > 0 {
		n := min(len(list), perStmt)
		args := make([]any, 0, 3*n)
		for _, f := range list[:n] {
			args = append(args, tx.owner, f.Item, f.column())
		}
		q := `INSERT INTO remind_next (owner_id, item, next_fire) VALUES (?, ?, ?)` +
			strings.Repeat(`, (?, ?, ?)`, n-1) +
			` ON CONFLICT (owner_id, item) DO UPDATE SET next_fire = excluded.next_fire`
		if _, err := tx.exec(q, args...); err != nil {
			return err
		}
		list = list[n:]
	}
	return nil
}

// MoveNextFire changes the next fire of an item already in the index; an
// item not in it is left out (nothing is added).
func (tx *Tx) MoveNextFire(n NextFire) error {
	if err := tx.writable("MoveNextFire"); err != nil {
		return err
	}
	if held, err := tx.hold(laterMoves); err != nil || held {
		if held {
			tx.later.moves = append(tx.later.moves, laterFire{owner: tx.owner, NextFire: n})
		}
		return err
	}
	_, err := tx.exec(`UPDATE remind_next SET next_fire = ? WHERE owner_id = ? AND item = ?`, n.column(), tx.owner, n.Item)
	return err
}

// DropNextFire takes item out of the index (nothing to do when it is not
// there).
func (tx *Tx) DropNextFire(item string) error {
	if err := tx.writable("DropNextFire"); err != nil {
		return err
	}
	_, err := tx.exec(`DELETE FROM remind_next WHERE owner_id = ? AND item = ?`, tx.owner, item)
	return err
}

// Delivery statuses of reminder_deliveries (its CHECK constraint).
const (
	DeliveryPending = "pending" // due, waiting for its next attempt
	DeliveryClaimed = "claimed" // a sender holds it until its lease ends
	DeliverySent    = "sent"
	DeliveryFailed  = "failed"  // retries used up
	DeliverySkipped = "skipped" // never sent, and the row says why
)

// Delivery is one row of reminder_deliveries: one (item, occurrence,
// trigger, fire instant) delivered at most once per attempt, under an id
// derived from that key ([DeliveryID]).
type Delivery struct {
	RowID       int64
	Item        string // "t12", "e7", "digest"
	Occurrence  string // RECURRENCE-ID form; "" for a task without a due; a digest's day "20261005"
	Trigger     string // "before:15", "at:…", "once:…", "digest"
	FireAt      time.Time
	ID          string // delivery_id
	Status      string // one of the Delivery… statuses
	Attempts    int    // sends started
	Failures    int    // attempts that ended in a notifier's error
	NextAttempt time.Time
	LastError   string
	DeliveredTo []string  // the notifiers that accepted it
	SentAt      time.Time // zero unless sent
	LocalFire   string    // the wall-clock time a date-only base set ("2026-10-04T23:00"), else ""
}

// deliveryColumns is what scanDelivery reads, in its order.
const deliveryColumns = `id, item, occurrence, trigger, fire_at, delivery_id, status, attempts, failures,
	next_attempt, last_error, delivered_to, sent_at, local_fire`

// scanDelivery decodes one row of deliveryColumns.
func scanDelivery(row interface{ Scan(...any) error }) (Delivery, error) {
	var (
		d          Delivery
		fire, next int64
		to         string
		sent       sql.NullInt64
		local      sql.NullString
	)
	if err := row.Scan(&d.RowID, &d.Item, &d.Occurrence, &d.Trigger, &fire, &d.ID, &d.Status, &d.Attempts,
		&d.Failures, &next, &d.LastError, &to, &sent, &local); err != nil {
		return Delivery{}, err
	}
	d.FireAt = time.Unix(fire, 0).UTC()
	d.NextAttempt = time.Unix(next, 0).UTC()
	if sent.Valid && sent.Int64 > 0 {
		d.SentAt = time.Unix(sent.Int64, 0).UTC()
	}
	d.LocalFire = local.String
	_ = json.Unmarshal([]byte(to), &d.DeliveredTo)
	return d, nil
}

func scanDeliveries(rows *sql.Rows) ([]Delivery, error) {
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// deliveredJSON encodes the notifiers a delivery reached: "[]" for none.
func deliveredJSON(to []string) string {
	if to == nil {
		return "[]"
	}
	b, _ := json.Marshal(to)
	return string(b)
}

// DeliveryID is the stable id of the delivery (owner, item, occurrence,
// trigger, fire instant in whole seconds): "rd_" and 24 hex digits of a
// SHA-256 of the key, so every resend, by any process, carries the same one.
func DeliveryID(owner int64, item, occurrence, trigger string, fireAt time.Time) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%d", owner, item, occurrence, trigger, fireAt.Unix())))
	return "rd_" + hex.EncodeToString(h[:12])
}

// NewDelivery is a fire to record: its key, the status it starts in
// (DeliveryPending, or DeliverySkipped with Why saying why), and LocalFire
// when a date-only base set its wall-clock time.
type NewDelivery struct {
	Item, Occurrence, Trigger string
	FireAt                    time.Time
	Status                    string
	Why                       string
	LocalFire                 string
}

// RecordDelivery adds the delivery row of a fire, due (next_attempt) at
// its fire instant and created at now; the id is [DeliveryID] of its key.
// A fire already recorded (same item, occurrence, trigger and instant) is
// left as it is: added is false then.
func (tx *Tx) RecordDelivery(d NewDelivery, now time.Time) (added bool, err error) {
	if err := tx.writable("RecordDelivery"); err != nil {
		return false, err
	}
	if d.Status != DeliveryPending && d.Status != DeliverySkipped {
		return false, fmt.Errorf("store: a delivery is recorded pending or skipped, not %q", d.Status)
	}
	res, err := tx.exec(`INSERT INTO reminder_deliveries (`+deliveryInsertColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (owner_id, item, occurrence, trigger, fire_at) DO NOTHING`, d.deliveryRow(tx.owner, now)...)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// deliveryInsertColumns are the columns of reminder_deliveries a new
// delivery's row sets, in the order of [NewDelivery.deliveryRow].
const deliveryInsertColumns = `owner_id, item, occurrence, trigger, fire_at, delivery_id, status, next_attempt, last_error, created_at, local_fire`

// deliveryRow is the values of deliveryInsertColumns of d, owner's,
// recorded at now.
func (d NewDelivery) deliveryRow(owner int64, now time.Time) []any {
	var local any
	if d.LocalFire != "" {
		local = d.LocalFire
	}
	at := d.FireAt.Unix()
	return []any{owner, d.Item, d.Occurrence, d.Trigger, at, DeliveryID(owner, d.Item, d.Occurrence, d.Trigger, d.FireAt),
		d.Status, at, d.Why, now.Unix(), local}
}

// RecordDeliveryLater is [Tx.RecordDelivery] for a caller that need not
// know whether the row was added. In a [Store.WriteMany] the write is
// held back and made with others (remind_later.go); anywhere else it is
// made at once.
func (tx *Tx) RecordDeliveryLater(d NewDelivery, now time.Time) error {
	if err := tx.writable("RecordDelivery"); err != nil {
		return err
	}
	if d.Status != DeliveryPending && d.Status != DeliverySkipped {
		return fmt.Errorf("store: a delivery is recorded pending or skipped, not %q", d.Status)
	}
	if held, err := tx.hold(laterDeliveries); err != nil || held {
		if held {
			tx.later.deliveries = append(tx.later.deliveries, laterDelivery{owner: tx.owner, NewDelivery: d, now: now})
		}
		return err
	}
	_, err := tx.RecordDelivery(d, now)
	return err
}

// SkipFires records each fire as skipped, saying why, as [Tx.RecordDelivery]
// does, and returns the instants of those it added (fires already recorded
// are left as they are), sorted and without repeats.
func (tx *Tx) SkipFires(fires []NewDelivery, why string, now time.Time) ([]time.Time, error) {
	var out []time.Time
	for _, f := range fires {
		f.Status, f.Why = DeliverySkipped, why
		added, err := tx.RecordDelivery(f, now)
		if err != nil {
			return nil, err
		}
		if added {
			out = append(out, f.FireAt)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return slices.CompactFunc(out, time.Time.Equal), nil
}

// IsRecorded reports whether the fire (item, occurrence, trigger, at) has
// a delivery row.
func (tx *Tx) IsRecorded(item, occurrence, trigger string, at time.Time) (bool, error) {
	var one int
	err := tx.queryRow(`SELECT 1 FROM reminder_deliveries WHERE owner_id = ? AND item = ? AND occurrence = ?
		AND trigger = ? AND fire_at = ?`, tx.owner, item, occurrence, trigger, at.Unix()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// RecordedForDay reports whether the fire (item, occurrence, trigger) was
// recorded at the wall-clock time local ("2026-10-04T23:00") but another
// instant than at: for that day, in the person's earlier zone.
func (tx *Tx) RecordedForDay(item, occurrence, trigger, local string, at time.Time) (bool, error) {
	var n int
	err := tx.queryRow(`SELECT count(*) FROM reminder_deliveries WHERE owner_id = ? AND item = ?
		AND occurrence = ? AND trigger = ? AND local_fire = ? AND fire_at <> ?`,
		tx.owner, item, occurrence, trigger, local, at.Unix()).Scan(&n)
	return n > 0, err
}

// DigestRecorded reports whether the daily agenda of day (its basic form,
// "20261005") has a delivery row, whatever its time was.
func (tx *Tx) DigestRecorded(day string) (bool, error) {
	var one int
	err := tx.queryRow(`SELECT 1 FROM reminder_deliveries WHERE owner_id = ? AND item = 'digest' AND occurrence = ?`,
		tx.owner, day).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// PendingItems is the set of items with pending (unsent, unclaimed)
// deliveries, "digest" included.
func (tx *Tx) PendingItems() (map[string]bool, error) {
	if p, ok := tx.takePending(); ok {
		return p, nil
	}
	rows, err := tx.query(`SELECT DISTINCT item FROM reminder_deliveries WHERE owner_id = ? AND status = 'pending'`, tx.owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return nil, err
		}
		out[l] = true
	}
	return out, rows.Err()
}

// PendingDeliveries reads the pending (unsent, unclaimed) deliveries of
// item, in row order.
func (tx *Tx) PendingDeliveries(item string) ([]Delivery, error) {
	rows, err := tx.query(`SELECT `+deliveryColumns+` FROM reminder_deliveries
		WHERE owner_id = ? AND item = ? AND status = 'pending' ORDER BY id`, tx.owner, item)
	if err != nil {
		return nil, err
	}
	return scanDeliveries(rows)
}

// DropPending deletes the delivery row rowID while it is pending; a row a
// sender claimed meanwhile, or one settled, is left to its holder.
func (tx *Tx) DropPending(rowID int64) error {
	if err := tx.writable("DropPending"); err != nil {
		return err
	}
	_, err := tx.exec(`DELETE FROM reminder_deliveries WHERE owner_id = ? AND id = ? AND status = 'pending'`, tx.owner, rowID)
	return err
}

// EarliestAttempt is the soonest next_attempt of the pending and claimed
// deliveries (a fire, a retry, or a lease's end); ok is false when there
// are none.
func (tx *Tx) EarliestAttempt() (at time.Time, ok bool, err error) {
	return tx.minInstant(`SELECT min(next_attempt) FROM reminder_deliveries WHERE owner_id = ? AND status IN ('pending', 'claimed')`)
}

// The lease clock. A claim holds a delivery until its lease ends, and
// every process on the database must judge that end by one clock: on
// PostgreSQL the server's (clock_timestamp(), read in the statement or
// transaction that uses it, so machines whose clocks drift apart still
// agree), on SQLite this machine's real clock (every process of a file
// runs on the machine that holds it). It is never the reminders' clock
// (remind's Now), which a test or a machine may set apart. Its readings
// are whole Unix seconds, as lease_until is stored.

// pgLeaseClock is the PostgreSQL server's clock in whole Unix seconds.
const pgLeaseClock = `floor(extract(epoch FROM clock_timestamp()))::bigint`

// leaseClock is the SQL of the lease clock's reading and its arguments:
// at when it is not zero (a caller's own clock, as a test sets one), else
// the shared clock: on PostgreSQL the server's, read by the statement, on
// SQLite this machine's real clock, bound as an argument.
func (tx *Tx) leaseClock(at time.Time) (string, []any) {
	switch {
	case !at.IsZero():
		return "?", []any{at.Unix()}
	case tx.s.engine == Postgres:
		return pgLeaseClock, nil
	}
	return "?", []any{time.Now().Unix()}
}

// LeaseNow reads the shared lease clock in the transaction (whole
// seconds, UTC): the PostgreSQL server's clock (one round trip), or this
// machine's real clock on SQLite. A claim's or a renewal's lease ends at
// this reading plus the lease's length.
func (tx *Tx) LeaseNow() (time.Time, error) {
	if tx.s.engine != Postgres {
		return time.Now().UTC().Truncate(time.Second), nil
	}
	var sec int64
	if err := tx.queryRow(`SELECT ` + pgLeaseClock).Scan(&sec); err != nil {
		return time.Time{}, err
	}
	return time.Unix(sec, 0).UTC(), nil
}

// NextToSend reads the delivery that may be taken next: pending with its
// next attempt at or before now, or claimed with its lease ended at or
// before leaseNow on the lease clock, whichever is due first (then by
// row). A zero leaseNow means the shared lease clock ([Tx.LeaseNow]), read
// by this same statement on PostgreSQL. ok is false when there is none.
func (tx *Tx) NextToSend(now, leaseNow time.Time) (d Delivery, ok bool, err error) {
	if d, ok, found := tx.takeToSend(now, leaseNow); found {
		return d, ok, nil
	}
	clock, clockArgs := tx.leaseClock(leaseNow)
	args := append([]any{tx.owner, now.Unix()}, clockArgs...)
	d, err = scanDelivery(tx.queryRow(`SELECT `+deliveryColumns+` FROM reminder_deliveries WHERE owner_id = ?
		AND ((status = 'pending' AND next_attempt <= ?) OR (status = 'claimed' AND coalesce(lease_until, 0) <= `+clock+`))
		ORDER BY next_attempt, id LIMIT 1`, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return Delivery{}, false, nil
	}
	return d, err == nil, err
}

// ErrTaken is returned by [Tx.Claim] when the delivery is no longer as
// the caller read it: another sender claimed it, or it was settled,
// meanwhile. Nothing was changed; read the next one with [Tx.NextToSend].
var ErrTaken = errors.New("store: the delivery was taken by another sender")

// Claim hands the delivery rowID to a sender: claimed, its attempts set
// to attempt, held under token until leaseUntil (on the lease clock:
// [Tx.LeaseNow] plus the lease), and next_attempt moved to nextAttempt
// (the end of the lease on the reminders' clock), so no other sender
// takes it meanwhile. It is a compare-and-set: the row must still be
// pending or claimed with attempt-1 attempts, as the caller read it, or
// nothing changes and the error is [ErrTaken] (attempts grow by one with
// every claim, so a claim by anyone else in between is seen, whatever the
// transaction's isolation and whoever else writes the table).
func (tx *Tx) Claim(rowID int64, attempt int, token string, leaseUntil, nextAttempt time.Time) error {
	if err := tx.writable("Claim"); err != nil {
		return err
	}
	res, err := tx.exec(`UPDATE reminder_deliveries SET status = 'claimed', attempts = ?, claim_token = ?,
		lease_until = ?, next_attempt = ? WHERE owner_id = ? AND id = ? AND attempts = ?
		AND status IN ('pending', 'claimed')`,
		attempt, token, leaseUntil.Unix(), nextAttempt.Unix(), tx.owner, rowID, attempt-1)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return ErrTaken
	}
	return nil
}

// RenewLease extends the claim of rowID to leaseUntil (on the lease
// clock) and its next_attempt to nextAttempt while it is still claimed
// under token; otherwise nothing changes.
func (tx *Tx) RenewLease(rowID int64, token string, leaseUntil, nextAttempt time.Time) error {
	if err := tx.writable("RenewLease"); err != nil {
		return err
	}
	_, err := tx.exec(`UPDATE reminder_deliveries SET lease_until = ?, next_attempt = ?
		WHERE owner_id = ? AND id = ? AND claim_token = ? AND status = 'claimed'`,
		leaseUntil.Unix(), nextAttempt.Unix(), tx.owner, rowID, token)
	return err
}

// Settle ends the delivery rowID without a send: status DeliverySkipped or
// DeliveryFailed, why as its last error, and no claim.
func (tx *Tx) Settle(rowID int64, status, why string) error {
	if err := tx.writable("Settle"); err != nil {
		return err
	}
	if status != DeliverySkipped && status != DeliveryFailed {
		return fmt.Errorf("store: a delivery is settled skipped or failed, not %q", status)
	}
	_, err := tx.exec(`UPDATE reminder_deliveries SET status = ?, last_error = ?, lease_until = NULL,
		claim_token = NULL WHERE owner_id = ? AND id = ?`, status, why, tx.owner, rowID)
	return err
}

// MarkSent records the delivery rowID as sent at sentAt to the notifiers
// deliveredTo, whoever holds its claim now (the message went out); a row
// already sent is left as it is.
func (tx *Tx) MarkSent(rowID int64, sentAt time.Time, deliveredTo []string) error {
	if err := tx.writable("MarkSent"); err != nil {
		return err
	}
	if held, err := tx.hold(laterMarks); err != nil || held {
		if held {
			tx.later.sent = append(tx.later.sent, laterSent{owner: tx.owner, rowID: rowID, at: sentAt.Unix(), to: deliveredJSON(deliveredTo)})
		}
		return err
	}
	_, err := tx.exec(markSentOne, sentAt.Unix(), deliveredJSON(deliveredTo), tx.owner, rowID)
	return err
}

// markSentOne is MarkSent's statement for one row.
const markSentOne = `UPDATE reminder_deliveries SET status = 'sent', sent_at = ?, lease_until = NULL,
	claim_token = NULL, last_error = '', delivered_to = ? WHERE owner_id = ? AND id = ? AND status <> 'sent'`

// MarkFailed records a failed attempt of the delivery rowID while it is
// still claimed under token: failed for good when retryAt is zero, else
// pending again with its next attempt at retryAt. failures counts the
// failed attempts so far, why is the notifiers' errors, deliveredTo the
// notifiers that accepted it (a retry skips them).
func (tx *Tx) MarkFailed(rowID int64, token string, failures int, why string, deliveredTo []string, retryAt time.Time) error {
	if err := tx.writable("MarkFailed"); err != nil {
		return err
	}
	to := deliveredJSON(deliveredTo)
	if retryAt.IsZero() {
		_, err := tx.exec(`UPDATE reminder_deliveries SET status = 'failed', lease_until = NULL, claim_token = NULL,
			failures = ?, last_error = ?, delivered_to = ? WHERE owner_id = ? AND id = ? AND claim_token = ?`,
			failures, why, to, tx.owner, rowID, token)
		return err
	}
	_, err := tx.exec(`UPDATE reminder_deliveries SET status = 'pending', lease_until = NULL, claim_token = NULL,
		failures = ?, next_attempt = ?, last_error = ?, delivered_to = ? WHERE owner_id = ? AND id = ? AND claim_token = ?`,
		failures, retryAt.Unix(), why, to, tx.owner, rowID, token)
	return err
}

// DeliveryView picks the deliveries [Tx.Deliveries] lists, and their order.
type DeliveryView int

const (
	// Unsettled: pending and claimed, by next attempt (then row).
	Unsettled DeliveryView = iota
	// SentView: sent, newest send first.
	SentView
	// SentLateView: sent more than the lateness given to [Tx.Deliveries]
	// after the fire, newest send first.
	SentLateView
	// SkippedView: skipped, newest fire first.
	SkippedView
	// FailedView: failed, newest fire first.
	FailedView
)

// Deliveries lists at most limit (-1: all) deliveries of view; for
// SentLateView, those sent more than late (whole seconds) after their fire.
func (tx *Tx) Deliveries(view DeliveryView, late time.Duration, limit int) ([]Delivery, error) {
	var cond string
	args := []any{tx.owner}
	switch view {
	case Unsettled:
		cond = `status IN ('pending', 'claimed') ORDER BY next_attempt, id`
	case SentView:
		cond = `status = 'sent' ORDER BY sent_at DESC, id DESC`
	case SentLateView:
		cond = `status = 'sent' AND sent_at - fire_at > ? ORDER BY sent_at DESC, id DESC`
		args = append(args, int64(late/time.Second))
	case SkippedView:
		cond = `status = 'skipped' ORDER BY fire_at DESC, id DESC`
	case FailedView:
		cond = `status = 'failed' ORDER BY fire_at DESC, id DESC`
	default:
		return nil, fmt.Errorf("store: no delivery view %d", view)
	}
	rows, err := tx.query(`SELECT `+deliveryColumns+` FROM reminder_deliveries WHERE owner_id = ? AND `+cond+` LIMIT ?`,
		append(args, limitArg(limit))...)
	if err != nil {
		return nil, err
	}
	return scanDeliveries(rows)
}
