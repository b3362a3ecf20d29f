package store

import (
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The snoozes of reminders (migrations/*/00011_snooze.sql). Unlike the
// other reminder tables, reminder_snoozes holds what a person asked for
// ("remind me again in 10 minutes"), so it is journaled: a snooze is a
// change, and undo takes it back (a deleted row never fires).

// snoozesTable is the journaled table of snoozes.
const snoozesTable = "reminder_snoozes"

func init() { RegisterTableAs(snoozesTable, "snooze ") }

// snoozeSuffix is the tail a snooze puts on its chain's first delivery
// id: "-s" and the snooze's number in the chain, from 1.
var snoozeSuffix = regexp.MustCompile(`-s([0-9]{1,6})$`)

// deliveryIDForm is what a delivery id looks like: "rd_" and 24 hex
// digits ([DeliveryID]), with "-sN" for a snooze's.
var deliveryIDForm = regexp.MustCompile(`^rd_[0-9a-f]{24}(-s[0-9]{1,6})?$`)

// IsDeliveryID reports whether s has the form of a delivery id:
// "rd_4881ba5d44c573b6c2fc488f", or a snooze's "rd_4881ba5d44c573b6c2fc488f-s1".
func IsDeliveryID(s string) bool { return deliveryIDForm.MatchString(s) }

// SnoozeRoot is the first delivery id of the chain id belongs to: id
// without its "-sN" tail ("rd_…-s2" → "rd_…"), or id itself.
func SnoozeRoot(id string) string { return snoozeSuffix.ReplaceAllString(id, "") }

// SnoozeID is the delivery id of the n-th snooze (from 1) of the chain
// whose first delivery is root: root + "-s" + n.
func SnoozeID(root string, n int) string { return root + "-s" + strconv.Itoa(n) }

// SnoozeTrigger is the trigger column of the delivery row a snooze fires
// under: "snooze:" and the snooze's delivery id, so the row's key (item,
// occurrence, trigger, fire instant) is its own whatever else fires then.
// The trigger the message shows is the root's ([Snooze].Trigger).
func SnoozeTrigger(id string) string { return "snooze:" + id }

// IsSnoozeTrigger reports whether a delivery row's trigger is a snooze's.
func IsSnoozeTrigger(trigger string) bool { return strings.HasPrefix(trigger, "snooze:") }

// Snooze is one row of reminder_snoozes.
type Snooze struct {
	RowID   int64
	Snoozed string // the delivery id put off ("rd_…" or an earlier snooze's "rd_…-s1")
	ID      string // the delivery id it fires under ([SnoozeID])
	// Item, Occurrence and Trigger are those of the chain's first
	// delivery, OriginFireAt its fire instant (UTC).
	Item, Occurrence, Trigger string
	OriginFireAt              time.Time
	FireAt                    time.Time // when it fires again (UTC, whole seconds)
	Deleted                   bool      // taken back (undo); it never fires
}

const snoozeColumns = `id, snoozed, delivery_id, item, occurrence, trigger, origin_fire_at, fire_at, deleted_at`

func scanSnooze(row interface{ Scan(...any) error }) (Snooze, error) {
	var (
		s            Snooze
		origin, fire int64
		deleted      sql.NullString
	)
	if err := row.Scan(&s.RowID, &s.Snoozed, &s.ID, &s.Item, &s.Occurrence, &s.Trigger, &origin, &fire, &deleted); err != nil {
		return Snooze{}, err
	}
	s.OriginFireAt, s.FireAt = time.Unix(origin, 0).UTC(), time.Unix(fire, 0).UTC()
	s.Deleted = deleted.Valid
	return s, nil
}

// DeliveryByID reads the person's delivery whose delivery_id is id; found
// is false when they have none (another person's is none of theirs).
func (tx *Tx) DeliveryByID(id string) (d Delivery, found bool, err error) {
	d, err = scanDelivery(tx.queryRow(`SELECT `+deliveryColumns+` FROM reminder_deliveries
		WHERE owner_id = ? AND delivery_id = ?`, tx.owner, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Delivery{}, false, nil
	}
	return d, err == nil, err
}

// LastSent reads the person's latest sent reminder of item ("t12", "e7"),
// of its occurrence occurrence when that is not "" (RECURRENCE-ID form):
// the newest send, snoozes' included; found is false when none was sent.
func (tx *Tx) LastSent(item, occurrence string) (d Delivery, found bool, err error) {
	d, err = scanDelivery(tx.queryRow(`SELECT `+deliveryColumns+` FROM reminder_deliveries
		WHERE owner_id = ? AND item = ? AND (? = '' OR occurrence = ?) AND status = 'sent'
		ORDER BY sent_at DESC, id DESC LIMIT 1`, tx.owner, item, occurrence, occurrence))
	if errors.Is(err, sql.ErrNoRows) {
		return Delivery{}, false, nil
	}
	return d, err == nil, err
}

// SnoozeByID reads the person's snooze whose delivery id is id, taken
// back or not; found is false when there is none.
func (tx *Tx) SnoozeByID(id string) (s Snooze, found bool, err error) {
	s, err = scanSnooze(tx.queryRow(`SELECT `+snoozeColumns+` FROM reminder_snoozes
		WHERE owner_id = ? AND delivery_id = ?`, tx.owner, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Snooze{}, false, nil
	}
	return s, err == nil, err
}

// waitingSnoozes is the SQL condition of a live snooze whose delivery is
// not recorded yet (it has not fired).
const waitingSnoozes = `s.owner_id = ? AND s.deleted_at IS NULL AND NOT EXISTS
	(SELECT 1 FROM reminder_deliveries d WHERE d.delivery_id = s.delivery_id)`

// SnoozesDue reads the person's live snoozes due by now whose delivery
// is not recorded yet, soonest first.
func (tx *Tx) SnoozesDue(now time.Time) ([]Snooze, error) {
	if list, ok := tx.takeSnoozes(now); ok {
		return list, nil
	}
	return tx.snoozes(`SELECT `+snoozeColumns+` FROM reminder_snoozes s WHERE `+waitingSnoozes+`
		AND s.fire_at <= ? ORDER BY s.fire_at, s.id`, tx.owner, now.Unix())
}

// SnoozesWaiting reads at most limit (-1: all) of the person's live
// snoozes whose delivery is not recorded yet, soonest first.
func (tx *Tx) SnoozesWaiting(limit int) ([]Snooze, error) {
	return tx.snoozes(`SELECT `+snoozeColumns+` FROM reminder_snoozes s WHERE `+waitingSnoozes+`
		ORDER BY s.fire_at, s.id LIMIT ?`, tx.owner, limitArg(limit))
}

// EarliestSnooze is the soonest fire of the person's live snoozes not
// recorded yet; ok is false when none waits.
func (tx *Tx) EarliestSnooze() (at time.Time, ok bool, err error) {
	return tx.minInstant(`SELECT min(s.fire_at) FROM reminder_snoozes s WHERE ` + waitingSnoozes)
}

func (tx *Tx) snoozes(q string, args ...any) ([]Snooze, error) {
	rows, err := tx.query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Snooze
	for rows.Next() {
		s, err := scanSnooze(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// AddSnooze journals a snooze of the sent delivery d until at (whole
// seconds) and returns it: its delivery id is the next number of d's
// chain ([SnoozeID]; numbers are never reused, not even those of snoozes
// taken back). A snooze of the same chain still waiting is taken back in
// the same change (the newer time replaces it), and given in replaced.
// d must be sent; anything else is refused with ErrConflict and a
// sentence, and so is a daily agenda.
func (tx *Tx) AddSnooze(d Delivery, at time.Time) (s Snooze, replaced []Snooze, err error) {
	if err := tx.writable("AddSnooze"); err != nil {
		return Snooze{}, nil, err
	}
	if d.Item == "digest" {
		return Snooze{}, nil, fmt.Errorf("%s is a daily agenda, which is not snoozed; only reminders of tasks and events are: %w", d.ID, ErrConflict)
	}
	if d.Status != DeliverySent {
		return Snooze{}, nil, fmt.Errorf("%s %s, so there is nothing to snooze; only a reminder that was sent can be: %w",
			d.ID, notSentWords(d), ErrConflict)
	}
	root := SnoozeRoot(d.ID)
	s = Snooze{Snoozed: d.ID, Item: d.Item, Occurrence: d.Occurrence, Trigger: d.Trigger, OriginFireAt: d.FireAt,
		FireAt: at.UTC().Truncate(time.Second)}
	if IsSnoozeTrigger(d.Trigger) {
		prev, found, err := tx.SnoozeByID(d.ID)
		if err != nil {
			return Snooze{}, nil, err
		}
		if !found {
			return Snooze{}, nil, fmt.Errorf("store: the snooze of delivery %s has no row", d.ID)
		}
		s.Item, s.Occurrence, s.Trigger, s.OriginFireAt = prev.Item, prev.Occurrence, prev.Trigger, prev.OriginFireAt
	}
	chain, err := tx.snoozes(`SELECT `+snoozeColumns+` FROM reminder_snoozes WHERE owner_id = ?
		AND delivery_id LIKE ? ORDER BY id`, tx.owner, root+"-s%")
	if err != nil {
		return Snooze{}, nil, err
	}
	ids := make([]string, 0, len(chain))
	for _, c := range chain {
		ids = append(ids, c.ID)
	}
	// The chain's deliveries too: a snooze taken back after it went out,
	// then purged, left its delivery, whose id is not to be reused.
	rows, err := tx.query(`SELECT delivery_id FROM reminder_deliveries WHERE owner_id = ? AND delivery_id LIKE ?`,
		tx.owner, root+"-s%")
	if err != nil {
		return Snooze{}, nil, err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return Snooze{}, nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Snooze{}, nil, err
	}
	n := 0
	for _, id := range ids {
		if m := snoozeSuffix.FindStringSubmatch(id); m != nil && SnoozeRoot(id) == root {
			k, _ := strconv.Atoi(m[1])
			n = max(n, k)
		}
	}
	waiting, err := tx.snoozes(`SELECT `+snoozeColumns+` FROM reminder_snoozes s WHERE `+waitingSnoozes+`
		AND s.delivery_id LIKE ? ORDER BY s.id`, tx.owner, root+"-s%")
	if err != nil {
		return Snooze{}, nil, err
	}
	for _, w := range waiting {
		if SnoozeRoot(w.ID) != root {
			continue // LIKE's "_" matches any one character
		}
		if err := tx.Delete(snoozesTable, w.RowID); err != nil {
			return Snooze{}, nil, err
		}
		replaced = append(replaced, w)
	}
	s.ID = SnoozeID(root, n+1)
	s.RowID, err = tx.Insert(snoozesTable, Row{"snoozed": s.Snoozed, "delivery_id": s.ID, "item": s.Item,
		"occurrence": s.Occurrence, "trigger": s.Trigger, "origin_fire_at": s.OriginFireAt.Unix(), "fire_at": s.FireAt.Unix()})
	if err != nil {
		return Snooze{}, nil, err
	}
	return s, replaced, nil
}

// notSentWords says why a delivery that is not sent cannot be snoozed.
func notSentWords(d Delivery) string {
	switch d.Status {
	case DeliveryFailed:
		return "was given up (failed for good)"
	case DeliverySkipped:
		return "was never sent (skipped)"
	}
	return "has not been sent yet"
}

// RecordSnoozeDelivery adds the delivery row of the snooze s once its
// time came, as [Tx.RecordDelivery] does a fire's: pending (or skipped,
// saying why), due at s.FireAt, created at now, under s.ID and the
// trigger [SnoozeTrigger]. One already recorded is left as it is: added
// is false then.
func (tx *Tx) RecordSnoozeDelivery(s Snooze, status, why string, now time.Time) (added bool, err error) {
	if err := tx.writable("RecordSnoozeDelivery"); err != nil {
		return false, err
	}
	if status != DeliveryPending && status != DeliverySkipped {
		return false, fmt.Errorf("store: a delivery is recorded pending or skipped, not %q", status)
	}
	at := s.FireAt.Unix()
	res, err := tx.exec(`INSERT INTO reminder_deliveries (owner_id, item, occurrence, trigger, fire_at, delivery_id,
		status, next_attempt, last_error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`,
		tx.owner, s.Item, s.Occurrence, SnoozeTrigger(s.ID), at, s.ID, status, at, why, now.Unix())
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
