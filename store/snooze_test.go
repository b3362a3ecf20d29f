package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Snoozes on both engines: only a sent delivery is snoozed, numbered
// along its chain (-s1, then -s2 for a snooze of -s1, never reused); a
// waiting one is replaced in the same change, and undo of that change
// brings it back; SnoozesDue and EarliestSnooze see only live snoozes not
// recorded yet, and RecordSnoozeDelivery records one under its own id
// and the snooze trigger, once. Another person has none of them.
func TestSnoozeChain(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		s, err := Open(ctx, storetest.Location(t), &Options{Now: func() time.Time { return t0 }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		ann, err := s.AddPerson(ctx, "ann", "Europe/Paris")
		if err != nil {
			t.Fatal(err)
		}
		bob, err := s.AddPerson(ctx, "bob", "Europe/Paris")
		if err != nil {
			t.Fatal(err)
		}
		write := func(owner int64, fn func(tx *Tx) error) (string, error) {
			return s.Write(ctx, owner, "snooze", fn)
		}
		must := func(change string, err error) string {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			return change
		}
		fire := t0.Add(-time.Hour)
		var root, pending Delivery
		must(write(ann.ID, func(tx *Tx) error {
			for _, trig := range []string{"before:60", "before:5"} {
				if _, err := tx.RecordDelivery(NewDelivery{Item: "t1", Occurrence: "20261005T080000Z", Trigger: trig, FireAt: fire,
					Status: DeliveryPending}, fire); err != nil {
					return err
				}
			}
			d, _, err := tx.NextToSend(t0, t0)
			if err != nil {
				return err
			}
			if err := tx.MarkSent(d.RowID, fire, nil); err != nil {
				return err
			}
			root, _, err = tx.DeliveryByID(d.ID)
			if err != nil {
				return err
			}
			pending, _, err = tx.NextToSend(t0, t0)
			return err
		}))
		if !IsDeliveryID(root.ID) || !IsDeliveryID(root.ID+"-s12") || IsDeliveryID("rd_x") || SnoozeRoot(root.ID+"-s3") != root.ID {
			t.Fatalf("id forms of %s", root.ID)
		}
		add := func(d Delivery, at time.Time) (Snooze, []Snooze, string, error) {
			var sz Snooze
			var rep []Snooze
			change, err := write(ann.ID, func(tx *Tx) error {
				var err error
				sz, rep, err = tx.AddSnooze(d, at)
				return err
			})
			return sz, rep, change, err
		}
		if _, _, _, err := add(pending, t0.Add(time.Hour)); !errors.Is(err, ErrConflict) ||
			err.Error() != pending.ID+" has not been sent yet, so there is nothing to snooze; only a reminder that was sent can be: conflict" {
			t.Fatalf("pending: %v", err)
		}
		a, _, _, err := add(root, t0.Add(10*time.Minute))
		if err != nil || a.ID != root.ID+"-s1" || a.Trigger != "before:60" || !a.OriginFireAt.Equal(fire) {
			t.Fatalf("first snooze: %+v %v", a, err)
		}
		b, rep, change, err := add(root, t0.Add(30*time.Minute))
		if err != nil || b.ID != root.ID+"-s2" || len(rep) != 1 || rep[0].ID != a.ID {
			t.Fatalf("replacing snooze: %+v %+v %v", b, rep, err)
		}
		read := func(owner int64, fn func(tx *Tx) error) {
			t.Helper()
			if err := s.Read(ctx, owner, fn); err != nil {
				t.Fatal(err)
			}
		}
		read(ann.ID, func(tx *Tx) error {
			at, ok, err := tx.EarliestSnooze()
			if err != nil || !ok || !at.Equal(b.FireAt) {
				t.Errorf("earliest: %v %v %v, want %v", at, ok, err, b.FireAt)
			}
			return nil
		})
		if _, err := s.Undo(ctx, ann.ID, change); err != nil {
			t.Fatal(err)
		}
		read(ann.ID, func(tx *Tx) error {
			list, err := tx.SnoozesDue(t0.Add(time.Hour))
			if err != nil || len(list) != 1 || list[0].ID != a.ID {
				t.Errorf("due after the undo: %+v %v", list, err)
			}
			gone, found, err := tx.SnoozeByID(b.ID)
			if err != nil || !found || !gone.Deleted {
				t.Errorf("undone snooze: %+v %v %v", gone, found, err)
			}
			return nil
		})
		read(bob.ID, func(tx *Tx) error {
			if _, found, err := tx.DeliveryByID(root.ID); found || err != nil {
				t.Errorf("bob sees ann's delivery: %v %v", found, err)
			}
			if list, err := tx.SnoozesDue(t0.Add(time.Hour)); len(list) != 0 || err != nil {
				t.Errorf("bob sees ann's snoozes: %+v %v", list, err)
			}
			return nil
		})
		var sent Delivery
		must(write(ann.ID, func(tx *Tx) error {
			for range 2 {
				added, err := tx.RecordSnoozeDelivery(a, DeliveryPending, "", a.FireAt)
				if err != nil {
					return err
				}
				if added != (sent.ID == "") {
					t.Errorf("recorded twice: %v", added)
				}
				sent.ID = a.ID
			}
			d, found, err := tx.DeliveryByID(a.ID)
			if err != nil || !found || d.Trigger != SnoozeTrigger(a.ID) || !IsSnoozeTrigger(d.Trigger) || !d.FireAt.Equal(a.FireAt) {
				t.Errorf("the snooze's delivery: %+v %v %v", d, found, err)
			}
			if err := tx.MarkSent(d.RowID, a.FireAt, nil); err != nil {
				return err
			}
			sent, _, err = tx.DeliveryByID(a.ID)
			return err
		}))
		read(ann.ID, func(tx *Tx) error {
			if list, err := tx.SnoozesDue(t0.Add(time.Hour)); len(list) != 0 || err != nil {
				t.Errorf("due once recorded: %+v %v", list, err)
			}
			if _, ok, err := tx.EarliestSnooze(); ok || err != nil {
				t.Errorf("earliest once recorded: %v %v", ok, err)
			}
			last, found, err := tx.LastSent("t1", "")
			if err != nil || !found || last.ID != a.ID {
				t.Errorf("last sent: %+v %v %v", last, found, err)
			}
			return nil
		})
		// A snooze of the snooze -s1: the chain goes on at -s3 (-s2 was
		// taken back, and numbers are never reused), with the root's key.
		c, _, _, err := add(sent, t0.Add(2*time.Hour))
		if err != nil || c.ID != root.ID+"-s3" || c.Snoozed != a.ID || c.Trigger != "before:60" || !c.OriginFireAt.Equal(fire) {
			t.Fatalf("snooze of a snooze: %+v %v", c, err)
		}
	})
}
