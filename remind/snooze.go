package remind

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// Snoozing. A person puts off a reminder that was sent ("remind me again
// in 10 minutes"): [Snooze] journals a row of reminder_snoozes (a change,
// which undo takes back). When its time comes a pass records a delivery
// for it, under the snooze's own delivery id (the chain's first id and
// "-s1", "-s2", …: store.SnoozeID), and sends it as every delivery is
// sent: claimed under a lease, retried, sent again only after a crash
// between the send and its mark, and at most MaxLate late. A snooze taken
// back, or whose task or event was deleted or completed meanwhile, is
// recorded as skipped, saying so, instead of sent.

// MaxSnooze is the longest a reminder may be put off: a year.
const MaxSnooze = 366 * 24 * time.Hour

// Snoozed is what [Snooze] did.
type Snoozed struct {
	ID      string    // the delivery id it fires again under ("rd_…-s1")
	Snoozed string    // the delivery put off
	Item    string    // "t12", "e7"
	Title   string    // the item's title
	FireAt  time.Time // when it fires again (UTC, whole seconds)
	Change  string    // the change id ("c31"); undo takes the snooze back
	// Replaced are the snoozes of the same reminder still waiting that
	// this one replaced (taken back in the same change).
	Replaced []string
}

// itemRef is a task or event id ("t12", "e7"), with an occurrence
// ("e7@20261005T070000Z", "t12@20261005").
var itemRef = regexp.MustCompile(`^([te][1-9][0-9]{0,17})(?:@([0-9]{8}(?:T[0-9]{6}Z?)?))?$`)

// IsSnoozeRef reports whether ref has the form [Snooze] takes: a delivery
// id, or a task, event or occurrence id.
func IsSnoozeRef(ref string) bool { return store.IsDeliveryID(ref) || itemRef.MatchString(ref) }

// Snooze puts off the sent reminder ref of the person owner (whose zone
// is zone) until at, journaled as one change made by tool. ref is a
// delivery id ("rd_…", or a snooze's "rd_…-s1"), or a task, event or
// occurrence id meaning its latest sent reminder. at must be after now,
// by at most MaxSnooze. Refusals are one sentence, wrapping
// store.ErrInvalid (a ref of no known form, a time past or too far),
// store.ErrNotFound (no such reminder of theirs, none sent for the item)
// or store.ErrConflict (not sent, given up, a digest, the item deleted or
// done).
func Snooze(ctx context.Context, s *store.Store, owner int64, zone tz.Zone, ref string, at, now time.Time, tool string) (Snoozed, error) {
	ref = strings.TrimSpace(ref)
	if !IsSnoozeRef(ref) {
		return Snoozed{}, fmt.Errorf("%s is no reminder to snooze: give the delivery_id the reminder came with (such as rd_4881ba5d44c573b6c2fc488f) or a task or event id (t12, e7): %w",
			args.Quote(ref), store.ErrInvalid)
	}
	at = at.UTC().Truncate(time.Second)
	if !at.After(now) {
		return Snoozed{}, fmt.Errorf("the new time %s has already passed; give a time after now: %w", tz.FormatModel(at, zone), store.ErrInvalid)
	}
	if at.Sub(now) > MaxSnooze {
		return Snoozed{}, fmt.Errorf("the new time %s is more than a year away; for that, set the task's or event's reminder instead: %w",
			tz.FormatModel(at, zone), store.ErrInvalid)
	}
	var out Snoozed
	change, err := s.Write(ctx, owner, tool, func(tx *store.Tx) error {
		out = Snoozed{}
		d, err := snoozeTarget(tx, ref)
		if err != nil {
			return err
		}
		if d.Item != "digest" {
			it, found, err := loadItem(tx, d.Item, zone)
			if err != nil {
				return err
			}
			if !found || it.Dead {
				return fmt.Errorf("%s %s, so its reminder is not snoozed: %w", d.Item, deadWords(tx, d.Item), store.ErrConflict)
			}
			out.Title = it.Title
		}
		sz, replaced, err := tx.AddSnooze(d, at)
		if err != nil {
			return err
		}
		out.ID, out.Snoozed, out.Item, out.FireAt = sz.ID, sz.Snoozed, sz.Item, sz.FireAt
		for _, r := range replaced {
			out.Replaced = append(out.Replaced, r.ID)
		}
		tx.Summarize("snoozed " + sz.Snoozed + " (" + sz.Item + ") until " + tz.FormatModel(sz.FireAt, zone) + " as " + sz.ID)
		return nil
	})
	out.Change = change
	return out, err
}

// snoozeTarget is the delivery ref names: the delivery of that id, or
// the latest sent of the task, event or occurrence.
func snoozeTarget(tx *store.Tx, ref string) (store.Delivery, error) {
	if store.IsDeliveryID(ref) {
		d, found, err := tx.DeliveryByID(ref)
		if err == nil && !found {
			err = fmt.Errorf("no reminder of yours has the delivery_id %s; give the one a reminder of yours came with: %w", ref, store.ErrNotFound)
		}
		return d, err
	}
	m := itemRef.FindStringSubmatch(ref)
	d, found, err := tx.LastSent(m[1], m[2])
	if err == nil && !found {
		err = fmt.Errorf("%s has no reminder that was sent yet, so there is nothing to snooze: %w", ref, store.ErrNotFound)
	}
	return d, err
}

// deadWords says why the item label no longer fires: "was deleted", "is
// done".
func deadWords(tx *store.Tx, label string) string {
	if label[0] == 't' {
		id, _ := strconv.ParseInt(label[1:], 10, 64)
		if t, deleted, err := tx.TaskEvenDeleted(id); err == nil && !deleted && t.Status != task.Open {
			return "is " + string(t.Status)
		}
	}
	return "was deleted"
}

// recordSnoozes records a delivery for every snooze whose time came by
// now: pending, or skipped when more than MaxLate late, as a fire is.
func (e *Engine) recordSnoozes(tx *store.Tx, p person, now time.Time, r *Result) error {
	list, err := tx.SnoozesDue(now)
	if err != nil {
		return err
	}
	for _, s := range list {
		status, why := store.DeliveryPending, ""
		if late := now.Sub(s.FireAt); late > e.maxLate {
			status = store.DeliverySkipped
			why = "missed by " + humanDuration(late) + ", more than the " + humanDuration(e.maxLate) + " allowed (--max-late)"
		}
		added, err := tx.RecordSnoozeDelivery(s, status, why, now)
		if err != nil {
			return err
		}
		if added && status == store.DeliverySkipped {
			r.Skipped++
			r.TooLate++
			e.log.Warn("snoozed reminder skipped: missed by more than --max-late", "person", p.Name, "delivery", s.ID,
				"fire_at", tz.RFC3339(s.FireAt, p.Zone))
		}
	}
	return nil
}

// snoozeGone reports whether the snoozed delivery id (its row's trigger
// is store.SnoozeTrigger) is no longer to be sent, and why: the snooze
// was taken back (undo), or its task or event was deleted or completed.
func (e *Engine) snoozeGone(tx *store.Tx, p person, id, label string) (bool, string, error) {
	s, found, err := tx.SnoozeByID(id)
	if err != nil {
		return false, "", err
	}
	if !found || s.Deleted {
		return true, "the snooze was taken back (undone)", nil
	}
	it, found, err := loadItem(tx, label, p.Zone)
	if err != nil {
		return false, "", nil // the send says what the row knows
	}
	if !found || it.Dead {
		return true, label + " " + deadWords(tx, label) + " after it was snoozed", nil
	}
	return false, "", nil
}
