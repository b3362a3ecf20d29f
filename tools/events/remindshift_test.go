package events

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Moving a whole series keeps each absolute reminder's offset from the
// start; a call that gives remind_at itself keeps what it gives.
func TestMoveShiftsRemindAt(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		cases := []struct {
			name, update, want string
		}{
			{"a later time moves the reminder by as much",
				`{"id":"e1","start":"2026-10-12T10:00"}`, "2026-10-12T09:00"},
			{"a move to another day moves it to that day",
				`{"id":"e1","start":"2026-10-13T09:00"}`, "2026-10-13T08:00"},
			{"a new remind_at wins",
				`{"id":"e1","start":"2026-10-12T10:00","remind_at":["2026-10-12T07:00"]}`, "2026-10-12T07:00"},
			{"a title change leaves it",
				`{"id":"e1","title":"Sync"}`, "2026-10-12T08:00"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e := newEnv(t)
				e.ok(e.alice, "add_event", `{"title":"Standup","start":"2026-10-12T09:00","rrule":"FREQ=WEEKLY","remind_at":["2026-10-12T08:00"]}`)
				e.ok(e.alice, "update_event", c.update)
				out := e.ok(e.alice, "get_event", `{"id":"e1"}`).TextOut()
				var got string
				if err := e.Store.DB().QueryRow(`SELECT remind_at FROM events WHERE id = 1`).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != `["`+c.want+`"]` {
					t.Fatalf("remind_at %s, want [%s]\n%s", got, c.want, out)
				}
				if !strings.Contains(out, "Standup") && !strings.Contains(out, "Sync") {
					t.Fatalf("get_event: %s", out)
				}
			})
		}
	})
}
