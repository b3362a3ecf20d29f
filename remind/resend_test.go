package remind

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"

	"github.com/assistant-dev/assistant/tz"
)

// A reminder already sent does not block the one for a new time: the
// delivery key holds the fire instant, so moving an item, or
// one occurrence, later after its reminder went out makes a second
// delivery, with its own delivery id, at the new time; the first is never
// sent again.
func TestMovedAfterSent(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		cases := []struct {
			name    string
			add     string // the item, first reminder at 09:45 on 2026-10-05
			move    string // %s is the id; run at 09:50
			start   string // the new start, RFC 3339
			fire    string // the new reminder, Paris civil time
			sameOcc bool   // the occurrence keeps its RECURRENCE-ID
		}{
			{name: "single event, later the same morning",
				add:   `add_event {"title":"Dentist","start":"2026-10-05T10:00","duration":30,"remind_before":[15]}`,
				move:  `update_event {"id":%q,"start":"2026-10-05T10:30"}`,
				start: "2026-10-05T10:30:00+02:00", fire: "2026-10-05T10:15"},
			{name: "one occurrence, later the same morning",
				add:   `add_event {"title":"Review","start":"2026-10-05T10:00","duration":60,"rrule":"FREQ=WEEKLY","remind_before":[15]}`,
				move:  `update_event {"id":"%s@20261005T080000Z","scope":"this","start":"2026-10-05T10:30"}`,
				start: "2026-10-05T10:30:00+02:00", fire: "2026-10-05T10:15", sameOcc: true},
			{name: "one occurrence, to the next day",
				add:   `add_event {"title":"Review","start":"2026-10-05T10:00","duration":60,"rrule":"FREQ=WEEKLY","remind_before":[15]}`,
				move:  `update_event {"id":"%s@20261005T080000Z","scope":"this","start":"2026-10-06T10:00"}`,
				start: "2026-10-06T10:00:00+02:00", fire: "2026-10-06T09:45", sameOcc: true},
			{name: "task, due later",
				add:   `add_task {"title":"Call the bank","due":"2026-10-05T10:00","remind_before":[15]}`,
				move:  `update_task {"id":%q,"due":"2026-10-05T11:00"}`,
				start: "2026-10-05T11:00:00+02:00", fire: "2026-10-05T10:45"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e := newEnv(t, civilAt(t, paris, "2026-10-05T08:00"))
				tool, raw, _ := strings.Cut(c.add, " ")
				id := e.call(e.ada, tool, raw)
				eng := e.engine(Options{})
				e.pass(eng)
				first := e.fireOnce(eng, "2026-10-05T09:45")

				e.at(paris, "2026-10-05T09:50")
				tool, raw, _ = strings.Cut(c.move, " ")
				e.call(e.ada, tool, fmt.Sprintf(raw, id))
				e.at(paris, "2026-10-05T10:05") // past the old start: the old reminder is not sent again
				if r := e.pass(eng); r.Sent != 0 || len(e.rec.take()) != 0 {
					t.Fatalf("after the move, before the new time: %+v", r)
				}
				second := e.fireOnce(eng, c.fire)
				if second.DeliveryID == first.DeliveryID {
					t.Errorf("the new time reuses delivery id %s", first.DeliveryID)
				}
				if want := tz.RFC3339(civilAt(t, paris, c.fire), tz.MustZone(paris)); second.FireAt != want ||
					second.Occurrence.Start != c.start || second.Trigger != first.Trigger {
					t.Errorf("second reminder fire %s start %s trigger %s; want %s %s %s",
						second.FireAt, second.Occurrence.Start, second.Trigger, want, c.start, first.Trigger)
				}
				if c.sameOcc && second.Occurrence.ID != first.Occurrence.ID {
					t.Errorf("occurrence %s, want the moved one, %s", second.Occurrence.ID, first.Occurrence.ID)
				}

				e.at(paris, "2026-10-07T12:00")
				if r := e.pass(eng); r.Sent != 0 || len(e.rec.take()) != 0 {
					t.Fatalf("days later something was sent again: %+v", r)
				}
				rows := e.rows()
				if len(rows) != 2 {
					t.Fatalf("%d delivery rows, want 2: %+v", len(rows), rows)
				}
				for i, want := range []Message{first, second} {
					r := rows[i]
					if r.Status != "sent" || r.Attempts != 1 || r.DeliveryID != want.DeliveryID ||
						tz.RFC3339(r.FireAt, tz.MustZone(paris)) != want.FireAt {
						t.Errorf("row %d: %+v; want sent once as %s at %s", i, r, want.DeliveryID, want.FireAt)
					}
				}
			})
		}
	})
}
