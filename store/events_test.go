package store

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// weekly is a series of alice's: Mondays 09:00 in Paris, three times.
func weekly(t *testing.T) *calendar.Event {
	t.Helper()
	start, _ := tz.ParseMoment("2026-10-05T09:00")
	e := &calendar.Event{UID: "u1@test", Title: "Standup", Location: "Room 1", Notes: "n",
		Zone: tz.MustZone("Europe/Paris"), Start: start, Rule: recur.MustRule("FREQ=WEEKLY;COUNT=3"),
		RemindBefore: "[10]", RemindOnce: `["2026-10-12T06:00:00Z"]`, CreatedAt: t0,
		PrevStarts: []calendar.PrevStart{{Start: "2026-10-05T08:00", TZID: "Europe/Paris"}}}
	ex, _ := tz.ParseMoment("2026-10-12T09:00")
	e.ExDates = []tz.Moment{ex}
	e.SetLength(30*time.Minute, 0)
	return e
}

func (f *fixture) events(t *testing.T, owner int64, fn func(tx *Tx) error) string {
	t.Helper()
	c, err := f.s.Write(f.ctx, owner, "test_events", fn)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An event reads back as it was written, for its owner alone.
func TestEventRoundTrip(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		e := weekly(t)
		f.events(t, f.alice.ID, func(tx *Tx) error { _, err := tx.InsertEvent(e); return err })
		if e.ID == 0 {
			t.Fatal("InsertEvent set no id")
		}
		var got *calendar.Event
		err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			var err error
			got, err = tx.Event(e.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := *e
		want.RemindAt = "[]" // stored for ""
		if got.Rule.String() != want.Rule.String() {
			t.Errorf("rule %s, want %s", got.Rule, want.Rule)
		}
		got.Rule, want.Rule = nil, nil
		if got.Zone.Name() != want.Zone.Name() {
			t.Errorf("zone %s", got.Zone.Name())
		}
		got.Zone, want.Zone = tz.Zone{}, tz.Zone{}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("read back\n%+v\nwant\n%+v", *got, want)
		}
		err = f.s.Read(f.ctx, f.bob.ID, func(tx *Tx) error { _, err := tx.Event(e.ID); return err })
		if !errors.Is(err, ErrNotFound) || err.Error() != "there is no event "+e.Label()+": "+ErrNotFound.Error() {
			t.Errorf("bob reads alice's event: %v", err)
		}
	})
}

// SaveEvent writes what changed, bounds with the overrides, and undo puts
// both back.
func TestSaveEventAndOverrides(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		e := weekly(t)
		f.events(t, f.alice.ID, func(tx *Tx) error { _, err := tx.InsertEvent(e); return err })
		title := "Moved"
		moved := &calendar.Override{EventID: e.ID, Key: "20261019T070000Z", Title: &title, HasTime: true,
			Zone: e.Zone, StartAt: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), EndAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
		moved.Start, _ = tz.ParseMoment("2026-11-30T09:00")
		moved.End, _ = tz.ParseMoment("2026-11-30T10:00")
		change := f.events(t, f.alice.ID, func(tx *Tx) error {
			if err := tx.InsertOverride(moved, t0); err != nil {
				return err
			}
			n := e.Clone()
			n.Title = "Daily standup"
			return tx.SaveEvent(e, n)
		})
		var last int64
		if err := f.s.DB().QueryRow(`SELECT last_at FROM events WHERE id = ?`, e.ID).Scan(&last); err != nil {
			t.Fatal(err)
		}
		if last != moved.EndAt.Unix() {
			t.Errorf("last_at %d, want the override's end %d", last, moved.EndAt.Unix())
		}
		var ovs map[string]*calendar.Override
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			var err error
			ovs, err = tx.Overrides(e.ID)
			return err
		})
		o := ovs[moved.Key]
		if o == nil || *o.Title != "Moved" || !o.StartAt.Equal(moved.StartAt) || o.Start != moved.Start || o.RemindAt != nil {
			t.Fatalf("overrides %+v", ovs)
		}
		// Nothing differs: nothing is written.
		if c := f.events(t, f.alice.ID, func(tx *Tx) error {
			if err := tx.SaveOverride(o, o); err != nil {
				return err
			}
			cur, err := tx.Event(e.ID)
			if err != nil {
				return err
			}
			return tx.SaveEvent(cur, cur)
		}); c != "" {
			t.Errorf("an unchanged save made change %s", c)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, change); err != nil {
			t.Fatal(err)
		}
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			got, err := tx.Event(e.ID)
			if err != nil || got.Title != "Standup" {
				t.Errorf("after undo: %v %v", got, err)
			}
			ovs, _ := tx.Overrides(e.ID)
			if len(ovs) != 0 {
				t.Errorf("after undo, overrides %v", ovs)
			}
			return nil
		})
	})
}

// The window, text, split and duplicate queries see the owner's live rows.
func TestEventQueries(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		e := weekly(t)
		kid := weekly(t)
		kid.UID, kid.Title = "u2@test", "Later"
		gen0 := int64(0)
		f.events(t, f.alice.ID, func(tx *Tx) error {
			if _, err := tx.InsertEvent(e); err != nil {
				return err
			}
			kid.SplitFrom = e.ID
			_, err := tx.InsertEvent(kid)
			return err
		})
		f.events(t, f.bob.ID, func(tx *Tx) error { _, err := tx.InsertEvent(weekly(t)); return err })
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			gen, ok, err := tx.EventGeneration()
			if err != nil || !ok {
				t.Errorf("generation %d %v %v", gen, ok, err)
			}
			gen0 = gen
			spans, err := tx.SeriesReaching(e.StartAt.Unix(), e.StartAt.Unix()+60)
			if err != nil || len(spans) != 2 || spans[0].Event.Title != "" || spans[0].Event.Rule == nil || spans[0].Last == math.MaxInt64 {
				t.Errorf("SeriesReaching: %+v %v", spans, err)
			}
			if spans, _ := tx.SeriesReaching(0, e.StartAt.Unix()-3600); len(spans) != 0 {
				t.Errorf("SeriesReaching before: %d", len(spans))
			}
			texts, err := tx.EventTexts([]int64{e.ID, kid.ID, 999})
			if err != nil || len(texts) != 2 || texts[kid.ID] != (EventText{"Later", "Room 1", "n"}) {
				t.Errorf("EventTexts %v %v", texts, err)
			}
			texts, _ = tx.EventTextsWhere(func(x EventText) bool { return x.Title == "Later" })
			if len(texts) != 1 {
				t.Errorf("EventTextsWhere %v", texts)
			}
			kids, err := tx.SplitsOf(e.ID)
			if err != nil || !reflect.DeepEqual(kids, []int64{kid.ID}) {
				t.Errorf("SplitsOf %v %v", kids, err)
			}
			same, err := tx.EventsStartingAt(e, t0.Add(-time.Hour))
			if err != nil || len(same) != 2 || same[0].ID != kid.ID {
				t.Errorf("EventsStartingAt %v %v", same, err)
			}
			return nil
		})
		f.events(t, f.alice.ID, func(tx *Tx) error {
			o := &calendar.Override{EventID: e.ID, Key: "20261019T070000Z", Cancel: true}
			return tx.InsertOverride(o, t0)
		})
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			if gen, _, _ := tx.EventGeneration(); gen == gen0 {
				t.Error("the generation did not change with a write")
			}
			near, err := tx.OverridesNear("20261018", "20261020", time.Time{}, time.Time{})
			if err != nil || near[e.ID]["20261019T070000Z"] == nil {
				t.Errorf("OverridesNear %v %v", near, err)
			}
			if far, _ := tx.OverridesNear("20261101", "20261102", time.Time{}, time.Time{}); len(far) != 0 {
				t.Errorf("OverridesNear far %v", far)
			}
			return nil
		})
		f.events(t, f.alice.ID, func(tx *Tx) error { return tx.DeleteEvent(kid.ID) })
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			w, ok, err := tx.EventForReminders(kid.ID)
			if err != nil || !ok || !w.Dead || w.Updated.IsZero() {
				t.Errorf("EventForReminders of a deleted event: %+v %v %v", w, ok, err)
			}
			w, ok, _ = tx.EventForReminders(e.ID)
			if !ok || w.Dead || len(w.Overrides) != 1 {
				t.Errorf("EventForReminders %+v", w)
			}
			if _, ok, _ := tx.EventForReminders(12345); ok {
				t.Error("EventForReminders found an unknown id")
			}
			if _, err := tx.Event(kid.ID); !errors.Is(err, ErrNotFound) {
				t.Errorf("a deleted event reads: %v", err)
			}
			return nil
		})
	})
}

func TestOpenDueTimes(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		for i, status := range []string{"open", "done", "open"} {
			due := t0.Add(time.Duration(i) * time.Hour).Unix()
			if _, err := f.s.DB().Exec(`INSERT INTO tasks (owner_id, title, title_norm, status, due_date, due_time, due_zone, due_at, created_at) VALUES (?, 'x', 'x', ?, '2026-10-05', '09:00', 'UTC', ?, 0)`,
				f.alice.ID, status, due); err != nil {
				t.Fatal(err)
			}
		}
		f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			got, err := tx.OpenDueTimes(t0, t0.Add(2*time.Hour))
			if err != nil || len(got) != 1 || !got[0].Equal(t0) {
				t.Errorf("OpenDueTimes %v %v", got, err)
			}
			return nil
		})
		f.s.Read(f.ctx, f.bob.ID, func(tx *Tx) error {
			if got, _ := tx.OpenDueTimes(t0, t0.Add(3*time.Hour)); len(got) != 0 {
				t.Errorf("bob sees alice's dues: %v", got)
			}
			return nil
		})
	})
}
