package remind

import (
	"errors"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
)

// snooze puts off ref for ada until at, failing the test on a refusal.
func (e *env) snooze(ref string, at time.Time) Snoozed {
	e.t.Helper()
	s, err := Snooze(e.ctx, e.s, e.ada.ID, e.ada.Zone, ref, at, e.time(), "snooze")
	if err != nil {
		e.t.Fatalf("snooze %s: %v", ref, err)
	}
	return s
}

// sent passes at the Paris civil time and returns the messages sent.
func (e *env) sentAt(eng *Engine, civil string) []Message {
	e.t.Helper()
	e.at(paris, civil)
	e.pass(eng)
	return e.rec.take()
}

// A snoozed reminder fires exactly once more at its new time, under the
// first send's id with "-s1", with the first send's trigger and what it
// reminds of; a new engine on the same database (a restart) keeps it;
// it can be snoozed again ("-s2"), and nothing fires twice.
func TestSnoozeFiresOnceAtTheNewTime(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, paris, "2026-10-05T08:00"))
		id := e.call(e.ada, "add_task", `{"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		first := e.sentAt(eng, "2026-10-05T09:45")
		if len(first) != 1 {
			t.Fatalf("first send: %+v", first)
		}
		root := first[0].DeliveryID

		e.at(paris, "2026-10-05T09:46")
		s := e.snooze(root, e.now.Add(10*time.Minute))
		if s.ID != root+"-s1" || s.Snoozed != root || s.Item != id || s.Change == "" || s.Title != "Call the bank" {
			t.Fatalf("snoozed: %+v", s)
		}
		if got := e.sentAt(eng, "2026-10-05T09:55"); len(got) != 0 {
			t.Fatalf("before the new time: %+v", got)
		}

		// A restart: another engine, on another handle of the database.
		eng2 := e.engine(Options{Store: e.open()})
		got := e.sentAt(eng2, "2026-10-05T09:56")
		if len(got) != 1 {
			t.Fatalf("at the new time: %+v", got)
		}
		m := got[0]
		if m.DeliveryID != root+"-s1" || m.SnoozeOf != root || m.Trigger != "before:15" || m.Item.ID != id ||
			m.Occurrence.Start != "2026-10-05T10:00:00+02:00" || m.FireAt != "2026-10-05T09:56:00+02:00" || m.Attempt != 1 {
			t.Fatalf("snoozed message: %+v", m)
		}
		if m.Text != "Call the bank: due Mon 2026-10-05 10:00 (+02:00), in 4 min. (snoozed)" {
			t.Fatalf("text: %q", m.Text)
		}
		for _, civil := range []string{"2026-10-05T09:57", "2026-10-05T10:30"} {
			if got := e.sentAt(eng, civil); len(got) != 0 {
				t.Fatalf("again at %s: %+v", civil, got)
			}
		}

		// Snoozed again, by the task's id: its latest sent reminder is -s1.
		s2 := e.snooze(id, e.now.Add(5*time.Minute))
		if s2.ID != root+"-s2" || s2.Snoozed != root+"-s1" {
			t.Fatalf("second snooze: %+v", s2)
		}
		got = e.sentAt(eng2, "2026-10-05T10:35")
		if len(got) != 1 || got[0].DeliveryID != root+"-s2" || got[0].SnoozeOf != root+"-s1" || got[0].Trigger != "before:15" {
			t.Fatalf("second snooze's send: %+v", got)
		}
		if got := e.sentAt(eng, "2026-10-05T11:00"); len(got) != 0 {
			t.Fatalf("after the second: %+v", got)
		}
	})
}

// A snooze still waiting is replaced by a newer one of the same reminder
// (one change), and undo takes a snooze back: nothing fires then. A
// snooze whose task was deleted meanwhile does not fire either, and says
// why in its row.
func TestSnoozeReplacedUndoneDeleted(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, paris, "2026-10-05T08:00"))
		id := e.call(e.ada, "add_task", `{"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		root := e.sentAt(eng, "2026-10-05T09:45")[0].DeliveryID

		e.at(paris, "2026-10-05T09:46")
		a := e.snooze(root, e.now.Add(10*time.Minute))
		b := e.snooze(root, e.now.Add(30*time.Minute))
		if b.ID != root+"-s2" || len(b.Replaced) != 1 || b.Replaced[0] != a.ID {
			t.Fatalf("replacing snooze: %+v", b)
		}
		if got := e.sentAt(eng, "2026-10-05T10:00"); len(got) != 0 {
			t.Fatalf("the replaced snooze fired: %+v", got)
		}
		if _, err := e.s.Undo(e.ctx, e.ada.ID, b.Change); err != nil {
			t.Fatal(err)
		}
		// The undo brings a back (its time passed: it goes out now) and
		// takes b back.
		got := e.sentAt(eng, "2026-10-05T10:01")
		if len(got) != 1 || got[0].DeliveryID != a.ID {
			t.Fatalf("after undoing the replacement: %+v", got)
		}
		if got := e.sentAt(eng, "2026-10-05T10:20"); len(got) != 0 {
			t.Fatalf("the undone snooze fired: %+v", got)
		}

		c := e.snooze(a.ID, e.now.Add(10*time.Minute))
		if c.ID != root+"-s3" {
			t.Fatalf("numbers are never reused: %+v", c)
		}
		e.call(e.ada, "delete_task", `{"id":"`+id+`"}`)
		if got := e.sentAt(eng, "2026-10-05T10:31"); len(got) != 0 {
			t.Fatalf("a deleted task's snooze fired: %+v", got)
		}
		var status, why string
		if err := e.s.DB().QueryRow(`SELECT status, last_error FROM reminder_deliveries WHERE delivery_id = ?`, c.ID).
			Scan(&status, &why); err != nil {
			t.Fatal(err)
		}
		if status != store.DeliverySkipped || why != id+" was deleted after it was snoozed" {
			t.Fatalf("row of the deleted task's snooze: %s %q", status, why)
		}
	})
}

// Only a reminder that was sent is snoozed; one pending, another
// person's, one of a deleted item, or a time past, is refused in one
// sentence.
func TestSnoozeRefused(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, paris, "2026-10-05T08:00"))
		id := e.call(e.ada, "add_task", `{"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15, 5]}`)
		bobs := e.call(e.bob, "add_task", `{"title":"Bob's","due":"2026-10-05T04:00","remind_before":[15]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		later := func() time.Time { return e.now.Add(10 * time.Minute) }
		if _, err := Snooze(e.ctx, e.s, e.ada.ID, e.ada.Zone, id, later(), e.now, "snooze"); !errors.Is(err, store.ErrNotFound) ||
			err.Error() != id+" has no reminder that was sent yet, so there is nothing to snooze: not found" {
			t.Fatalf("nothing sent: %v", err)
		}
		e.sentAt(eng, "2026-10-05T09:45")
		root, bobRoot := "", ""
		for _, r := range e.rows() {
			switch {
			case r.Item == bobs && r.Status == store.DeliverySent:
				bobRoot = r.DeliveryID
			case r.Item == id && r.Status == store.DeliverySent:
				root = r.DeliveryID
			}
		}
		if root == "" || bobRoot == "" {
			t.Fatalf("not sent: %+v", e.rows())
		}
		// A delivery recorded but not sent yet (the 5-minute reminder,
		// recorded here without a pass) is refused as not sent.
		e.at(paris, "2026-10-05T09:55")
		if _, err := e.s.Write(e.ctx, e.ada.ID, "test", func(tx *store.Tx) error {
			_, err := tx.RecordDelivery(store.NewDelivery{Item: id, Trigger: "before:5",
				FireAt: civilAt(t, paris, "2026-10-05T09:55"), Status: store.DeliveryPending}, e.now)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		pending := ""
		for _, r := range e.rows() {
			if r.Trigger == "before:5" {
				pending = r.DeliveryID
			}
		}
		cases := []struct {
			ref  string
			at   time.Time
			want error
			says string
		}{
			{"rd_000000000000000000000000", later(), store.ErrNotFound,
				"no reminder of yours has the delivery_id rd_000000000000000000000000; give the one a reminder of yours came with: not found"},
			{bobRoot, later(), store.ErrNotFound,
				"no reminder of yours has the delivery_id " + bobRoot + "; give the one a reminder of yours came with: not found"},
			{"buy milk", later(), store.ErrInvalid,
				"“buy milk” is no reminder to snooze: give the delivery_id the reminder came with (such as rd_4881ba5d44c573b6c2fc488f) or a task or event id (t12, e7): invalid"},
			{root, e.now.Add(-time.Minute), store.ErrInvalid,
				"the new time Mon 2026-10-05 09:54 (+02:00) has already passed; give a time after now: invalid"},
		}
		cases = append(cases, struct {
			ref  string
			at   time.Time
			want error
			says string
		}{pending, later(), store.ErrConflict,
			pending + " has not been sent yet, so there is nothing to snooze; only a reminder that was sent can be: conflict"})
		for _, c := range cases {
			_, err := Snooze(e.ctx, e.s, e.ada.ID, e.ada.Zone, c.ref, c.at, e.now, "snooze")
			if !errors.Is(err, c.want) || err.Error() != c.says {
				t.Errorf("snooze %q: %v, want %q", c.ref, err, c.says)
			}
		}
		e.call(e.ada, "delete_task", `{"id":"`+id+`"}`)
		if _, err := Snooze(e.ctx, e.s, e.ada.ID, e.ada.Zone, root, later(), e.now, "snooze"); !errors.Is(err, store.ErrConflict) ||
			err.Error() != id+" was deleted, so its reminder is not snoozed: conflict" {
			t.Fatalf("deleted task: %v", err)
		}
	})
}

// An occurrence id names the latest sent reminder of that occurrence; an
// occurrence none was sent for is refused.
func TestSnoozeByOccurrence(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, paris, "2026-10-05T08:00"))
		id := e.call(e.ada, "add_event", `{"title":"Standup","start":"2026-10-05T09:00","duration":15,"rrule":"FREQ=DAILY","remind_before":[10]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		mon := e.sentAt(eng, "2026-10-05T08:50")
		tue := e.sentAt(eng, "2026-10-06T08:50")
		if len(mon) != 1 || len(tue) != 1 {
			t.Fatalf("sends: %+v %+v", mon, tue)
		}
		s := e.snooze(mon[0].Occurrence.ID, e.now.Add(5*time.Minute))
		if s.Snoozed != mon[0].DeliveryID || s.ID != mon[0].DeliveryID+"-s1" {
			t.Fatalf("by Monday's occurrence: %+v", s)
		}
		s = e.snooze(id, e.now.Add(5*time.Minute))
		if s.Snoozed != tue[0].DeliveryID {
			t.Fatalf("by the event's id (its latest, Tuesday's): %+v", s)
		}
		got := e.sentAt(eng, "2026-10-06T08:55")
		if len(got) != 2 || got[0].SnoozeOf == "" || got[1].SnoozeOf == "" {
			t.Fatalf("both snoozes at 08:55: %+v", got)
		}
		if _, err := Snooze(e.ctx, e.s, e.ada.ID, e.ada.Zone, id+"@20261009T070000Z", e.now.Add(time.Minute), e.now, "snooze"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("an occurrence never reminded: %v", err)
		}
	})
}

// A snoozed reminder whose sender died after claiming it (before its
// mark) is sent again once the lease runs out, under the same snooze id,
// and then never again: the promise every delivery has.
func TestSnoozeSenderDied(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, paris, "2026-10-05T08:00"))
		e.call(e.ada, "add_task", `{"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15]}`)
		real := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		eng := e.engine(Options{LeaseClock: func() time.Time { return real }})
		e.pass(eng)
		root := e.sentAt(eng, "2026-10-05T09:45")[0].DeliveryID
		s := e.snooze(root, e.now.Add(10*time.Minute))

		e.at(paris, "2026-10-05T09:55")
		p := e.personOf(eng, e.ada.ID)
		if _, err := eng.recordDue(e.ctx, p, e.now, &Result{}); err != nil {
			t.Fatal(err)
		}
		d, _, err := eng.claim(e.ctx, p, &Result{})
		if err != nil || d == nil || d.ID != s.ID {
			t.Fatalf("claim: %v %+v", err, d)
		}
		// The sender dies here. Until its lease runs out nobody sends it.
		if got := e.sentAt(eng, "2026-10-05T09:56"); len(got) != 0 {
			t.Fatalf("under a live lease: %+v", got)
		}
		real = real.Add(DefaultLease + time.Second)
		got := e.sentAt(eng, "2026-10-05T09:58")
		if len(got) != 1 || got[0].DeliveryID != s.ID || got[0].Attempt != 2 {
			t.Fatalf("after the lease: %+v", got)
		}
		real = real.Add(DefaultLease + time.Second)
		if got := e.sentAt(eng, "2026-10-05T10:10"); len(got) != 0 {
			t.Fatalf("once marked: %+v", got)
		}
	})
}
