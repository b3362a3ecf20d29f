package store

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// The tables the reminder tests write through the journal; registering
// them again with the same prefixes as their owners do is harmless.
func init() {
	RegisterTable("tasks")
	RegisterTableAs("task_completions", "tc")
	RegisterTable("events")
	RegisterTableAs("event_overrides", "eo")
}

// write runs fn in a Write of owner and fails the test on an error.
func (f *fixture) write(t *testing.T, owner int64, fn func(tx *Tx) error) {
	t.Helper()
	if _, err := f.s.Write(f.ctx, owner, "remind", fn); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(t *testing.T, owner int64, fn func(tx *Tx) error) {
	t.Helper()
	if err := f.s.Read(f.ctx, owner, fn); err != nil {
		t.Fatal(err)
	}
}

func TestReminderStateRoundTripPerOwner(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		f.read(t, f.alice.ID, func(tx *Tx) error {
			if _, found, err := tx.ReminderState(); err != nil || found {
				t.Errorf("fresh state: found %v, err %v; want none", found, err)
			}
			return nil
		})
		want := ReminderState{ChangeMark: 7, Zone: "Europe/Paris", PassedAt: t0}
		f.write(t, f.alice.ID, func(tx *Tx) error { return tx.SaveReminderState(want) })
		want.ChangeMark, want.PassedAt = 9, t0.Add(time.Hour)
		f.write(t, f.alice.ID, func(tx *Tx) error { return tx.SaveReminderState(want) }) // replaces
		f.read(t, f.alice.ID, func(tx *Tx) error {
			got, found, err := tx.ReminderState()
			if err != nil || !found || got != want {
				t.Errorf("state = %+v, %v, %v; want %+v", got, found, err, want)
			}
			return nil
		})
		f.read(t, f.bob.ID, func(tx *Tx) error {
			if _, found, _ := tx.ReminderState(); found {
				t.Error("bob sees alice's state")
			}
			return nil
		})
		err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error { return tx.SaveReminderState(want) })
		if err == nil {
			t.Error("SaveReminderState inside Read: no error")
		}
	})
}

func TestNextFires(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
		var many []NextFire
		for i := range 700 { // more than one statement's worth
			many = append(many, NextFire{Item: fmt.Sprintf("t%d", 1000+i), At: at(100 + i)})
		}
		f.write(t, f.alice.ID, func(tx *Tx) error {
			if err := tx.SetNextFires(many...); err != nil {
				return err
			}
			return tx.SetNextFires(NextFire{Item: "t1", At: at(1)}, NextFire{Item: "e2", At: at(3)}, NextFire{Item: "t3"})
		})
		f.write(t, f.bob.ID, func(tx *Tx) error { return tx.SetNextFires(NextFire{Item: "t1", At: at(-5)}) })
		f.write(t, f.alice.ID, func(tx *Tx) error {
			if err := tx.SetNextFires(NextFire{Item: "e2", At: at(2)}); err != nil { // upsert
				return err
			}
			if err := tx.MoveNextFire(NextFire{Item: "t9", At: at(0)}); err != nil { // not there: not added
				return err
			}
			return tx.MoveNextFire(NextFire{Item: "t1", At: at(1).Add(30 * time.Minute)})
		})
		f.read(t, f.alice.ID, func(tx *Tx) error {
			all, err := tx.NextFires()
			if err != nil || len(all) != 703 {
				t.Errorf("NextFires: %d rows, %v; want 703", len(all), err)
			}
			if n, found, _ := tx.NextFire("t3"); !found || !n.At.IsZero() {
				t.Errorf("t3 = %+v, %v; want in the index with no fire", n, found)
			}
			if _, found, _ := tx.NextFire("t9"); found {
				t.Error("MoveNextFire added t9")
			}
			due, err := tx.NextFiresDue(at(2))
			want := []NextFire{{"t1", at(1).Add(30 * time.Minute)}, {"e2", at(2)}}
			if err != nil || !slices.Equal(due, want) {
				t.Errorf("NextFiresDue = %v, %v; want %v", due, err, want)
			}
			after, err := tx.NextFiresAfter(at(2), 2)
			if err != nil || len(after) != 2 || !after[0].At.Equal(at(100)) {
				t.Errorf("NextFiresAfter = %v, %v", after, err)
			}
			if first, ok, err := tx.EarliestNextFire(); err != nil || !ok || !first.Equal(at(1).Add(30*time.Minute)) {
				t.Errorf("EarliestNextFire = %v, %v, %v", first, ok, err)
			}
			return nil
		})
		f.write(t, f.alice.ID, func(tx *Tx) error { return tx.DropNextFire("t1") })
		f.read(t, f.bob.ID, func(tx *Tx) error {
			if n, found, _ := tx.NextFire("t1"); !found || !n.At.Equal(at(-5)) {
				t.Errorf("bob's t1 = %+v, %v; alice's drop must leave it", n, found)
			}
			return nil
		})
	})
}

func TestDeliveryLifecycle(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		fire := t0.Add(-10 * time.Minute)
		nd := NewDelivery{Item: "e7", Occurrence: "20261005T070000Z", Trigger: "before:10", FireAt: fire, Status: DeliveryPending}
		f.write(t, f.alice.ID, func(tx *Tx) error {
			if added, err := tx.RecordDelivery(nd, t0); err != nil || !added {
				t.Errorf("first RecordDelivery: %v, %v", added, err)
			}
			again := nd
			again.Status, again.Why = DeliverySkipped, "late"
			if added, err := tx.RecordDelivery(again, t0); err != nil || added {
				t.Errorf("second RecordDelivery of the same fire: added %v, %v; want left as it is", added, err)
			}
			if _, err := tx.RecordDelivery(NewDelivery{Item: "e7", FireAt: fire, Status: DeliverySent}, t0); err == nil {
				t.Error("RecordDelivery as sent: no error")
			}
			return nil
		})
		var d Delivery
		lease := t0.Add(2 * time.Minute)
		f.write(t, f.alice.ID, func(tx *Tx) error {
			var ok bool
			var err error
			if _, ok, _ = tx.NextToSend(fire.Add(-time.Second), t0); ok {
				t.Error("NextToSend before the fire instant found a delivery")
			}
			if d, ok, err = tx.NextToSend(t0, t0); err != nil || !ok {
				t.Fatalf("NextToSend: %v, %v", ok, err)
			}
			if d.ID != DeliveryID(f.alice.ID, "e7", nd.Occurrence, "before:10", fire) || d.Status != DeliveryPending ||
				!d.FireAt.Equal(fire) || d.Attempts != 0 || len(d.DeliveredTo) != 0 {
				t.Errorf("delivery = %+v", d)
			}
			return tx.Claim(d.RowID, 1, "tok", lease, lease)
		})
		f.read(t, f.bob.ID, func(tx *Tx) error {
			if _, ok, _ := tx.NextToSend(t0.Add(time.Hour), t0.Add(time.Hour)); ok {
				t.Error("bob can take alice's delivery")
			}
			return nil
		})
		f.write(t, f.alice.ID, func(tx *Tx) error {
			if _, ok, _ := tx.NextToSend(t0, lease.Add(-time.Second)); ok {
				t.Error("a claimed delivery was taken before its lease ended")
			}
			if err := tx.RenewLease(d.RowID, "other", lease.Add(time.Hour), lease.Add(time.Hour)); err != nil {
				return err
			}
			if got, ok, _ := tx.NextToSend(lease, lease); !ok || got.Status != DeliveryClaimed {
				t.Error("a renewal under another token extended the lease")
			}
			if err := tx.RenewLease(d.RowID, "tok", lease.Add(time.Minute), lease.Add(time.Minute)); err != nil {
				return err
			}
			if _, ok, _ := tx.NextToSend(lease, lease); ok {
				t.Error("a renewed lease let the delivery be taken")
			}
			// A failure recorded by a sender that lost the claim changes nothing.
			if err := tx.MarkFailed(d.RowID, "other", 1, "x", nil, time.Time{}); err != nil {
				return err
			}
			if err := tx.MarkFailed(d.RowID, "tok", 1, "hook: 500", []string{"log"}, t0.Add(time.Minute)); err != nil {
				return err
			}
			got, ok, _ := tx.NextToSend(t0.Add(time.Minute), t0)
			if !ok || got.Status != DeliveryPending || got.Failures != 1 || got.LastError != "hook: 500" ||
				!slices.Equal(got.DeliveredTo, []string{"log"}) || !got.NextAttempt.Equal(t0.Add(time.Minute)) {
				t.Errorf("after a failure: %+v, %v", got, ok)
			}
			if err := tx.MarkSent(d.RowID, t0.Add(3*time.Minute), []string{"log", "hook"}); err != nil {
				return err
			}
			return tx.MarkSent(d.RowID, t0.Add(9*time.Minute), nil) // already sent: left
		})
		f.read(t, f.alice.ID, func(tx *Tx) error {
			sent, err := tx.Deliveries(SentView, 0, 10)
			if err != nil || len(sent) != 1 || !sent[0].SentAt.Equal(t0.Add(3*time.Minute)) ||
				!slices.Equal(sent[0].DeliveredTo, []string{"log", "hook"}) || sent[0].LastError != "" {
				t.Errorf("sent = %+v, %v", sent, err)
			}
			late, _ := tx.Deliveries(SentLateView, 13*time.Minute, 10)
			later, _ := tx.Deliveries(SentLateView, 12*time.Minute, 10)
			if len(late) != 0 || len(later) != 1 {
				t.Errorf("sent 13 min late: %d over 13 min, %d over 12 min; want 0 and 1", len(late), len(later))
			}
			if open, _ := tx.Deliveries(Unsettled, 0, -1); len(open) != 0 {
				t.Errorf("unsettled after send: %+v", open)
			}
			if ok, _ := tx.IsRecorded("e7", nd.Occurrence, "before:10", fire); !ok {
				t.Error("IsRecorded: false for a recorded fire")
			}
			return nil
		})
	})
}

func TestSettleAndDropPending(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		fires := []NewDelivery{
			{Item: "t1", Trigger: "at:2026-10-05T08:00", FireAt: t0, Status: DeliveryPending},
			{Item: "t1", Trigger: "at:2026-10-05T09:00", FireAt: t0.Add(time.Hour), Status: DeliveryPending},
			{Item: "digest", Occurrence: "20261005", Trigger: "digest", FireAt: t0, Status: DeliveryPending},
		}
		f.write(t, f.alice.ID, func(tx *Tx) error {
			for _, nd := range fires {
				if _, err := tx.RecordDelivery(nd, t0); err != nil {
					return err
				}
			}
			return nil
		})
		f.write(t, f.alice.ID, func(tx *Tx) error {
			pend, err := tx.PendingItems()
			if err != nil || len(pend) != 2 || !pend["t1"] || !pend["digest"] {
				t.Errorf("PendingItems = %v, %v", pend, err)
			}
			list, err := tx.PendingDeliveries("t1")
			if err != nil || len(list) != 2 {
				t.Fatalf("PendingDeliveries = %v, %v", list, err)
			}
			if err := tx.Claim(list[1].RowID, 1, "tok", t0, t0); err != nil {
				return err
			}
			for _, d := range list {
				if err := tx.DropPending(d.RowID); err != nil { // the claimed one stays
					return err
				}
			}
			if err := tx.Settle(list[1].RowID, DeliverySent, ""); err == nil {
				t.Error("Settle as sent: no error")
			}
			if err := tx.Settle(list[1].RowID, DeliverySkipped, "the event ended"); err != nil {
				return err
			}
			if ok, err := tx.DigestRecorded("20261005"); err != nil || !ok {
				t.Errorf("DigestRecorded = %v, %v", ok, err)
			}
			if ok, _ := tx.DigestRecorded("20261006"); ok {
				t.Error("DigestRecorded true for another day")
			}
			return nil
		})
		f.read(t, f.alice.ID, func(tx *Tx) error {
			skipped, _ := tx.Deliveries(SkippedView, 0, 10)
			if len(skipped) != 1 || skipped[0].LastError != "the event ended" || skipped[0].Trigger != "at:2026-10-05T09:00" {
				t.Errorf("skipped = %+v", skipped)
			}
			if list, _ := tx.PendingDeliveries("t1"); len(list) != 0 {
				t.Errorf("t1 still pending: %+v", list)
			}
			if at, ok, _ := tx.EarliestAttempt(); !ok || !at.Equal(t0) {
				t.Errorf("EarliestAttempt = %v, %v; want the digest's %v", at, ok, t0)
			}
			return nil
		})
	})
}

func TestSkipFiresAndRecordedForDay(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		early, later := t0.Add(-2*time.Hour), t0.Add(-time.Hour)
		fires := []NewDelivery{
			{Item: "t4", Occurrence: "20261005", Trigger: "before:60", FireAt: later, LocalFire: "2026-10-05T07:00"},
			{Item: "t4", Occurrence: "20261005", Trigger: "before:120", FireAt: early},
		}
		var got []time.Time
		f.write(t, f.alice.ID, func(tx *Tx) error {
			var err error
			got, err = tx.SkipFires(fires, "its time had already passed", t0)
			return err
		})
		if !slices.EqualFunc(got, []time.Time{early, later}, time.Time.Equal) {
			t.Errorf("SkipFires = %v; want %v, %v", got, early, later)
		}
		f.write(t, f.alice.ID, func(tx *Tx) error {
			again, err := tx.SkipFires(fires, "again", t0)
			if err != nil || len(again) != 0 {
				t.Errorf("SkipFires of recorded fires = %v, %v; want none", again, err)
			}
			if ok, _ := tx.RecordedForDay("t4", "20261005", "before:60", "2026-10-05T07:00", later.Add(time.Hour)); !ok {
				t.Error("RecordedForDay: false for the same day at another instant")
			}
			if ok, _ := tx.RecordedForDay("t4", "20261005", "before:60", "2026-10-05T07:00", later); ok {
				t.Error("RecordedForDay: true at the recorded instant itself")
			}
			return nil
		})
		f.read(t, f.alice.ID, func(tx *Tx) error {
			skipped, _ := tx.Deliveries(SkippedView, 0, -1)
			if len(skipped) != 2 || skipped[0].LastError != "its time had already passed" || skipped[0].LocalFire != "2026-10-05T07:00" {
				t.Errorf("skipped = %+v", skipped)
			}
			return nil
		})
	})
}

func TestReminderItems(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var task, done, event, other int64
		f.write(t, f.alice.ID, func(tx *Tx) error {
			var err error
			if task, err = tx.Insert("tasks", Row{"title": "Pay rent", "title_norm": "pay rent", "created_at": t0.Unix(),
				"due_date": "2026-10-04", "remind_before": "[30]"}); err != nil {
				return err
			}
			if done, err = tx.Insert("tasks", Row{"title": "Call", "title_norm": "call", "created_at": t0.Unix(),
				"due_date": "2026-10-05", "due_time": "09:00", "due_zone": "Europe/Paris", "due_at": t0.Add(2 * time.Hour).Unix(),
				"remind_before": "[5]", "status": "done"}); err != nil {
				return err
			}
			if event, err = tx.Insert("events", Row{"uid": "u1", "title": "Standup", "start_local": "2026-10-05T09:00",
				"end_local": "2026-10-05T09:15", "tzid": "Europe/Paris", "start_at": t0.Unix(), "end_at": t0.Unix() + 900,
				"first_at": t0.Unix(), "last_at": t0.Unix() + 900, "created_at": t0.Unix()}); err != nil {
				return err
			}
			if other, err = tx.Insert("events", Row{"uid": "u2", "title": "Later", "start_local": "2026-10-09T09:00",
				"end_local": "2026-10-09T10:00", "tzid": "Europe/Paris", "start_at": t0.Unix() + 4*86400,
				"end_at": t0.Unix() + 4*86400 + 3600, "first_at": t0.Unix() + 4*86400, "last_at": t0.Unix() + 4*86400 + 3600,
				"created_at": t0.Unix()}); err != nil {
				return err
			}
			_, err = tx.Insert("event_overrides", Row{"event_id": event, "recurrence_id": "20261005T070000Z", "remind_before": "[15]",
				"created_at": t0.Unix()})
			return err
		})
		var mark int64
		f.read(t, f.alice.ID, func(tx *Tx) error {
			items, err := tx.ItemsWithReminders()
			if err != nil {
				return err
			}
			if len(items) != 2 || items[label("tasks", task)].IsZero() || items[label("events", event)].IsZero() {
				t.Errorf("ItemsWithReminders = %v; want the open task and the event whose override has reminders", items)
			}
			if mark, err = tx.LatestChange(); err != nil || mark == 0 {
				t.Errorf("LatestChange = %d, %v", mark, err)
			}
			ids, err := tx.EventIDsBetween(t0.Add(-time.Hour), t0.Add(time.Hour))
			if err != nil || !slices.Equal(ids, []int64{event}) {
				t.Errorf("EventIDsBetween = %v, %v; want [%d] (not %d)", ids, err, event, other)
			}
			day := "2026-10-05"
			total, list, err := tx.OpenTasksDue(day, t0.Add(24*time.Hour), 10)
			if err != nil || total != 1 || len(list) != 1 || list[0].ID != task || list[0].DueDate != "2026-10-04" ||
				!list[0].DueAt.IsZero() {
				t.Errorf("OpenTasksDue = %d, %+v, %v; want the open task only (not the done t%d)", total, list, err, done)
			}
			return nil
		})
		f.clock = t0.Add(time.Minute)
		f.write(t, f.alice.ID, func(tx *Tx) error {
			if _, err := tx.Insert("task_completions", Row{"task_id": done, "completed_at": t0.Unix()}); err != nil {
				return err
			}
			return tx.Update("event_overrides", 1, Row{"title": "Standup (moved)"})
		})
		f.read(t, f.alice.ID, func(tx *Tx) error {
			changed, err := tx.ItemsChangedSince(mark)
			want := map[string]time.Time{label("tasks", done): f.clock, label("events", event): f.clock}
			if err != nil || len(changed) != 2 {
				t.Fatalf("ItemsChangedSince = %v, %v; want %v", changed, err, want)
			}
			for l, at := range want {
				if !changed[l].Equal(at) {
					t.Errorf("ItemsChangedSince[%s] = %v; want %v", l, changed[l], at)
				}
			}
			return nil
		})
		f.read(t, f.bob.ID, func(tx *Tx) error {
			if items, _ := tx.ItemsWithReminders(); len(items) != 0 {
				t.Errorf("bob sees %v", items)
			}
			if changed, _ := tx.ItemsChangedSince(0); len(changed) != 0 {
				t.Errorf("bob sees changes %v", changed)
			}
			return nil
		})
	})
}

func TestReminderWritesRefusedInRead(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		writes := map[string]func(tx *Tx) error{
			"SaveReminderState": func(tx *Tx) error { return tx.SaveReminderState(ReminderState{Zone: "UTC"}) },
			"SetNextFires":      func(tx *Tx) error { return tx.SetNextFires(NextFire{Item: "t1"}) },
			"MoveNextFire":      func(tx *Tx) error { return tx.MoveNextFire(NextFire{Item: "t1"}) },
			"DropNextFire":      func(tx *Tx) error { return tx.DropNextFire("t1") },
			"RecordDelivery": func(tx *Tx) error {
				_, err := tx.RecordDelivery(NewDelivery{Item: "t1", FireAt: t0, Status: DeliveryPending}, t0)
				return err
			},
			"DropPending": func(tx *Tx) error { return tx.DropPending(1) },
			"Claim":       func(tx *Tx) error { return tx.Claim(1, 1, "tok", t0, t0) },
			"RenewLease":  func(tx *Tx) error { return tx.RenewLease(1, "tok", t0, t0) },
			"Settle":      func(tx *Tx) error { return tx.Settle(1, DeliverySkipped, "") },
			"MarkSent":    func(tx *Tx) error { return tx.MarkSent(1, t0, nil) },
			"MarkFailed":  func(tx *Tx) error { return tx.MarkFailed(1, "tok", 1, "", nil, time.Time{}) },
		}
		for name, w := range writes {
			if err := f.s.Read(f.ctx, f.alice.ID, w); err == nil {
				t.Errorf("%s inside Read: no error", name)
			}
		}
	})
}
