package events

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// delete_event scope=this on a changed occurrence removes its override as
// well as the occurrence; undo brings both back.
func TestDeleteChangedOccurrence(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Gym","start":"2026-10-05T19:00","rrule":"FREQ=DAILY;COUNT=5"}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20261006T170000Z","start":"2026-10-06T20:00","title":"Late gym"}`)
		liveOverrides := func() int {
			var n int
			if err := e.Store.DB().QueryRow(`SELECT count(*) FROM event_overrides WHERE deleted_at IS NULL`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		const week = `{"from":"2026-10-05","to":"2026-10-11"}`
		if n := liveOverrides(); n != 1 {
			t.Fatalf("%d live overrides after the change, want 1", n)
		}
		del := e.ok(e.alice, "delete_event", `{"id":"e1@20261006T170000Z"}`)
		if !strings.Contains(del.Out, "Deleted e1@20261006T170000Z “Late gym” (Tue 2026-10-06 20:00") {
			t.Errorf("delete names the occurrence as changed: %s", del.Out)
		}
		if n := liveOverrides(); n != 0 {
			t.Errorf("%d live overrides after the delete, want 0", n)
		}
		ids, _ := occurrences(t, e.ok(e.alice, "list_events", week))
		if want := []string{"e1@20261005T170000Z", "e1@20261007T170000Z", "e1@20261008T170000Z", "e1@20261009T170000Z"}; !slices.Equal(ids, want) {
			t.Errorf("after delete: %v, want %v", ids, want)
		}
		s := e.seriesOf("e1")
		if fmt.Sprint(s["exdates"]) != "[2026-10-06T19:00]" || len(s["exceptions"].([]any)) != 0 {
			t.Errorf("after delete: exdates %v, exceptions %v; want [2026-10-06T19:00] and none", s["exdates"], s["exceptions"])
		}

		e.ok(e.alice, "undo", fmt.Sprintf(`{"change":%q}`, data(t, del)["change"]))
		if n := liveOverrides(); n != 1 {
			t.Errorf("%d live overrides after undo, want 1", n)
		}
		var got []string
		for _, o := range data(t, e.ok(e.alice, "list_events", week))["events"].([]any) {
			m := o.(map[string]any)
			got = append(got, fmt.Sprint(m["id"], " ", m["start"], " ", m["title"]))
		}
		if len(got) != 5 || got[1] != "e1@20261006T170000Z 2026-10-06T20:00:00+02:00 Late gym" {
			t.Errorf("after undo: %v, want 5 with e1@20261006T170000Z at 20:00 as Late gym", got)
		}
		s = e.seriesOf("e1")
		if len(s["exdates"].([]any)) != 0 || len(s["exceptions"].([]any)) != 1 {
			t.Errorf("after undo: exdates %v, exceptions %v; want none and one", s["exdates"], s["exceptions"])
		}
	})
}
