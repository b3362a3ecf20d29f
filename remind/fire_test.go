package remind

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"

	"github.com/assistant-dev/assistant/tz"
)

// A weekly 09:00 event with a 15-minute reminder keeps firing at 08:45 on
// the wall clock of its zone through both DST changes of the year, so the
// instant moves by an hour twice.
func TestWeeklyEventAcrossDST(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		cases := []struct {
			name, zone, start string
			weeks             int
		}{
			// Paris: clocks go forward 2026-03-29 and back 2026-10-25.
			{"paris", "Europe/Paris", "2026-03-16T09:00", 34},
			// New York: forward 2026-03-08, back 2026-11-01.
			{"new york", "America/New_York", "2026-03-02T09:00", 36},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e := newEnv(t, civilAt(t, c.zone, "2026-03-01T12:00"))
				who := e.ada
				if c.zone == "America/New_York" {
					who = e.bob
				}
				id := e.call(who, "add_event", fmt.Sprintf(`{"title":"Standup","start":%q,"duration":30,
					"rrule":"FREQ=WEEKLY","remind_before":[15]}`, c.start))
				eng := e.engine(Options{})
				e.pass(eng)
				zone := tz.MustZone(c.zone)
				first, _ := tz.ParseDateTime(c.start)
				offsets := map[string]bool{}
				for w := range c.weeks {
					occ := first.Date.AddDays(7*w).At(9, 0)
					want, _ := zone.Instant(occ.AddMinutes(-15))
					e.now = want.Add(-time.Minute)
					e.pass(eng)
					if got := e.rec.take(); len(got) != 0 {
						t.Fatalf("week %d: %d reminders a minute early: %+v", w, len(got), got)
					}
					e.now = want
					e.pass(eng)
					got := e.rec.take()
					if len(got) != 1 {
						t.Fatalf("week %d: %d reminders at %s, want 1", w, len(got), tz.RFC3339(want, zone))
					}
					if got[0].FireAt != tz.RFC3339(want, zone) || !strings.HasSuffix(got[0].FireAt[:19], "08:45:00") {
						t.Errorf("week %d: fired for %s, want %s (08:45 local)", w, got[0].FireAt, tz.RFC3339(want, zone))
					}
					occStart, _ := zone.Instant(occ)
					if wantID := id + "@" + occStart.UTC().Format("20060102T150405Z"); got[0].Occurrence.ID != wantID {
						t.Errorf("week %d: occurrence %s, want %s", w, got[0].Occurrence.ID, wantID)
					}
					if got[0].LateSeconds != 0 || got[0].Late != "" {
						t.Errorf("week %d: on time, yet late %d s", w, got[0].LateSeconds)
					}
					offsets[tz.FormatOffset(want, zone)] = true
				}
				if len(offsets) != 2 {
					t.Errorf("the weeks should span both offsets of the zone, got %v", offsets)
				}
			})
		}
	})
}

// An all-day event's base is 00:00 of its day in the person's zone.
func TestAllDayEvent(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-01T12:00"))
		id := e.call(e.ada, "add_event", `{"title":"Conference","start":"2026-10-07","end":"2026-10-09","remind_before":[0,1440]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		for _, c := range []struct{ at, trigger string }{
			{"2026-10-06T00:00", "before:1440"},
			{"2026-10-07T00:00", "before:0"},
		} {
			e.at("Europe/Paris", c.at)
			e.pass(eng)
			got := e.rec.take()
			if len(got) != 1 || got[0].Trigger != c.trigger {
				t.Fatalf("at %s: %+v, want one %s", c.at, got, c.trigger)
			}
			m := got[0]
			if m.Occurrence.ID != id+"@20261007" || !m.Occurrence.AllDay || m.Occurrence.Date != "2026-10-07" {
				t.Errorf("occurrence %+v", m.Occurrence)
			}
			if want := "2026-10-07T00:00:00+02:00"; m.Occurrence.Start != want {
				t.Errorf("start %s, want %s", m.Occurrence.Start, want)
			}
			if !strings.Contains(m.Text, "Wed 2026-10-07") {
				t.Errorf("text %q should name the day", m.Text)
			}
		}
		e.at("Europe/Paris", "2026-10-12T00:00")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 0 {
			t.Errorf("a single all-day event fired again: %+v", got)
		}
	})
}

// Tasks: a lead before a timed due, an absolute reminder on a date-only
// due, and a task done before its reminder, which never fires.
func TestTaskReminders(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		milk := e.call(e.ada, "add_task", `{"title":"Buy milk","due":"2026-10-05T17:00","remind_before":[30]}`)
		rent := e.call(e.ada, "add_task", `{"title":"Pay rent","due":"2026-10-06","remind_at":["2026-10-05T20:00"],"remind_before":[60]}`)
		done := e.call(e.ada, "add_task", `{"title":"Call mum","due":"2026-10-05T12:00","remind_before":[10]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		e.at("Europe/Paris", "2026-10-05T11:00")
		e.call(e.ada, "complete_task", fmt.Sprintf(`{"id":%q}`, done))
		want := []struct{ at, item, trigger, fire string }{
			{"2026-10-05T16:30", milk, "before:30", "2026-10-05T16:30:00+02:00"},
			{"2026-10-05T20:00", rent, "at:2026-10-05T20:00", "2026-10-05T20:00:00+02:00"},
			{"2026-10-05T23:00", rent, "before:60", "2026-10-05T23:00:00+02:00"},
		}
		e.at("Europe/Paris", "2026-10-05T11:55")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 0 {
			t.Fatalf("a completed task's reminder fired: %+v", got)
		}
		for _, w := range want {
			e.at("Europe/Paris", w.at)
			e.pass(eng)
			got := e.rec.take()
			if len(got) != 1 {
				t.Fatalf("at %s: %d messages, want 1: %+v", w.at, len(got), got)
			}
			m := got[0]
			if m.Item.ID != w.item || m.Item.Kind != "task" || m.Trigger != w.trigger || m.FireAt != w.fire {
				t.Errorf("at %s: got %s %s %s %s, want %s %s %s", w.at, m.Item.ID, m.Item.Kind, m.Trigger, m.FireAt, w.item, w.trigger, w.fire)
			}
		}
		for _, r := range e.rows() {
			if r.Item == done {
				t.Errorf("a delivery row exists for the completed task: %+v", r)
			}
		}
	})
}

// An event moved after its reminder was computed fires for its new time
// only; an unsent (retrying) reminder of the old time is dropped.
func TestMovedEvent(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		id := e.call(e.ada, "add_event", `{"title":"Dentist","start":"2026-10-05T10:00","duration":30,"remind_before":[15]}`)
		eng := e.engine(Options{})
		e.pass(eng) // next fire 09:45 is now in the index
		e.at("Europe/Paris", "2026-10-05T09:30")
		e.call(e.ada, "update_event", fmt.Sprintf(`{"id":%q,"start":"2026-10-05T10:30"}`, id))
		e.at("Europe/Paris", "2026-10-05T09:50")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 0 {
			t.Fatalf("the old time fired: %+v", got)
		}
		e.at("Europe/Paris", "2026-10-05T10:15")
		e.pass(eng)
		got := e.rec.take()
		if len(got) != 1 || got[0].Occurrence.Start != "2026-10-05T10:30:00+02:00" || got[0].FireAt != "2026-10-05T10:15:00+02:00" {
			t.Fatalf("want one reminder for 10:30, got %+v", got)
		}

		// A weekly series: its 12 October occurrence alone is moved to 14:00
		// while its reminder is failing and waiting for a retry.
		e.at("Europe/Paris", "2026-10-05T12:00")
		weekly := e.call(e.ada, "add_event", `{"title":"Review","start":"2026-10-12T11:00","duration":60,"rrule":"FREQ=WEEKLY","remind_before":[15]}`)
		e.at("Europe/Paris", "2026-10-12T10:45")
		e.rec.fail = 1
		if r := e.pass(eng); r.Failed != 1 {
			t.Fatalf("pass: %+v, want one failure", r)
		}
		e.now = e.now.Add(30 * time.Second)
		e.call(e.ada, "update_event", fmt.Sprintf(`{"id":"%s@20261012T090000Z","scope":"this","start":"2026-10-12T14:00"}`, weekly))
		e.at("Europe/Paris", "2026-10-12T10:47")
		r := e.pass(eng)
		if r.Dropped != 1 || len(e.rec.take()) != 0 {
			t.Fatalf("the retry of the old time should be dropped: %+v", r)
		}
		e.at("Europe/Paris", "2026-10-12T13:45")
		e.pass(eng)
		got = e.rec.take()
		if len(got) != 1 || got[0].Occurrence.ID != weekly+"@20261012T090000Z" || got[0].Occurrence.Start != "2026-10-12T14:00:00+02:00" {
			t.Fatalf("want the moved occurrence at 14:00, got %+v", got)
		}
		e.at("Europe/Paris", "2026-10-19T10:45")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 1 || got[0].Occurrence.Start != "2026-10-19T11:00:00+02:00" {
			t.Fatalf("the next week keeps the series' time: %+v", got)
		}
	})
}

// A cancelled occurrence never fires; the others do.
func TestCancelledOccurrence(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-01T12:00"))
		id := e.call(e.ada, "add_event", `{"title":"Yoga","start":"2026-10-05T18:00","duration":60,"rrule":"FREQ=WEEKLY;COUNT=3","remind_before":[60]}`)
		e.call(e.ada, "delete_event", fmt.Sprintf(`{"id":"%s@20261012T160000Z","scope":"this"}`, id))
		eng := e.engine(Options{})
		var fired []string
		for _, day := range []string{"2026-10-05", "2026-10-12", "2026-10-19", "2026-10-26"} {
			e.at("Europe/Paris", day+"T17:00")
			e.pass(eng)
			for _, m := range e.rec.take() {
				fired = append(fired, m.Occurrence.ID)
			}
		}
		want := []string{id + "@20261005T160000Z", id + "@20261019T160000Z"}
		if fmt.Sprint(fired) != fmt.Sprint(want) {
			t.Errorf("fired %v, want %v", fired, want)
		}
	})
}

// A task deleted before its reminder, and an event deleted, never fire.
func TestDeletedItems(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T08:00"))
		task := e.call(e.ada, "add_task", `{"title":"Gone","due":"2026-10-05T12:00","remind_before":[10]}`)
		ev := e.call(e.ada, "add_event", `{"title":"Gone too","start":"2026-10-05T12:00","remind_before":[10]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		e.call(e.ada, "delete_task", fmt.Sprintf(`{"id":%q}`, task))
		e.call(e.ada, "delete_event", fmt.Sprintf(`{"id":%q}`, ev))
		e.at("Europe/Paris", "2026-10-05T11:55")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 0 {
			t.Errorf("deleted items fired: %+v", got)
		}
	})
}

// A reminder and a due written as instants in the repeated hour of a
// fall-back change fire at those instants: remind_at 01:20Z is the second
// 02:20 of Paris's 2026-10-25, not the first (00:20Z).
func TestRemindersInTheRepeatedHourKeepTheirInstant(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, time.Date(2026, 10, 24, 12, 0, 0, 0, time.UTC))
		night := e.call(e.ada, "add_task", `{"title":"Night","due":"2026-10-25T01:30Z","remind_at":["2026-10-25T01:20Z"],"remind_before":[5]}`)
		eng := e.engine(Options{})
		e.pass(eng)
		e.now = time.Date(2026, 10, 25, 0, 50, 0, 0, time.UTC) // the first 02:50
		e.pass(eng)
		if got := e.rec.take(); len(got) != 0 {
			t.Fatalf("fired an hour early, at the first 02:50: %+v", got)
		}
		for _, w := range []struct {
			at      time.Time
			trigger string
		}{
			{time.Date(2026, 10, 25, 1, 20, 0, 0, time.UTC), "at:2026-10-25T02:20[_fold=1]"},
			{time.Date(2026, 10, 25, 1, 25, 0, 0, time.UTC), "before:5"},
		} {
			e.now = w.at
			e.pass(eng)
			got := e.rec.take()
			if len(got) != 1 || got[0].Item.ID != night || got[0].Trigger != w.trigger || got[0].Occurrence.ID != night+"@20261025T013000Z" {
				t.Fatalf("at %s: want %s %s, got %+v", w.at, night, w.trigger, got)
			}
		}
	})
}
