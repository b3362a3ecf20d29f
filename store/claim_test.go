package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A claim is a compare-and-set on both engines: a second claim of the row
// as it was read (same attempts) is ErrTaken and changes nothing, and a
// settled row cannot be claimed. Leases are judged by the shared clock
// when no reading is given: a lease ending an hour after LeaseNow holds,
// one that ended a minute before it does not.
func TestClaimIsCompareAndSetOnTheSharedClock(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		s, err := Open(ctx, storetest.Location(t), &Options{Now: func() time.Time { return t0 }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		p, err := s.AddPerson(ctx, "alice", "Europe/Paris")
		if err != nil {
			t.Fatal(err)
		}
		write := func(fn func(tx *Tx) error) {
			t.Helper()
			if _, err := s.Write(ctx, p.ID, "remind", fn); err != nil {
				t.Fatal(err)
			}
		}
		fire := t0.Add(-time.Minute)
		var d Delivery
		var real time.Time
		write(func(tx *Tx) error {
			if _, err := tx.RecordDelivery(NewDelivery{Item: "t1", Trigger: "at:x", FireAt: fire, Status: DeliveryPending}, t0); err != nil {
				return err
			}
			var ok bool
			if d, ok, err = tx.NextToSend(t0, time.Time{}); err != nil || !ok {
				t.Fatalf("NextToSend on the shared clock: %v, %v", ok, err)
			}
			if real, err = tx.LeaseNow(); err != nil {
				return err
			}
			if wall := time.Now(); real.Before(wall.Add(-time.Hour)) || real.After(wall.Add(time.Hour)) {
				t.Errorf("LeaseNow %s is not near this machine's clock %s", real, wall)
			}
			if err := tx.Claim(d.RowID, d.Attempts+1, "first", real.Add(time.Hour), t0); err != nil {
				t.Fatalf("first claim: %v", err)
			}
			if err := tx.Claim(d.RowID, d.Attempts+1, "second", real.Add(time.Hour), t0); !errors.Is(err, ErrTaken) {
				t.Errorf("a second claim of the row as read: %v, want ErrTaken", err)
			}
			if _, ok, _ := tx.NextToSend(t0, time.Time{}); ok {
				t.Error("a lease an hour ahead of the shared clock was taken")
			}
			return tx.Claim(d.RowID, d.Attempts+2, "second", real.Add(-time.Minute), t0)
		})
		write(func(tx *Tx) error {
			got, ok, err := tx.NextToSend(t0, time.Time{})
			if err != nil || !ok || got.Status != DeliveryClaimed || got.Attempts != 2 {
				t.Fatalf("a lease that ended on the shared clock: %+v, %v, %v", got, ok, err)
			}
			if err := tx.MarkSent(got.RowID, t0, []string{"log"}); err != nil {
				return err
			}
			if err := tx.Claim(got.RowID, 3, "third", real.Add(time.Hour), t0); !errors.Is(err, ErrTaken) {
				t.Errorf("a claim of a sent row: %v, want ErrTaken", err)
			}
			return nil
		})
	})
}
