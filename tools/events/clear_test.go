package events

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// seriesOf returns get_event's Data "event" for a series id.
func (e *env) seriesOf(id string) map[string]any {
	e.t.Helper()
	return data(e.t, e.ok(e.alice, "get_event", fmt.Sprintf(`{"id":%q}`, id)))["event"].(map[string]any)
}

// update_event's “clear” empties the fields it names on the whole series,
// leaves the others, and undo puts the emptied ones back.
func TestUpdateClear(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Team sync","start":"2026-10-05T10:00","duration":30,"rrule":"FREQ=WEEKLY;BYDAY=MO,TH",`+
			`"location":"Room 4","notes":"Bring the numbers","remind_before":[10,60],"remind_at":["2026-10-05T08:00"]}`)
		res := e.ok(e.alice, "update_event", `{"id":"e1","clear":["location","remind_before"]}`)
		cleared := e.seriesOf("e1")
		for name, want := range map[string]string{
			"location": "", "remind_before": "[]", // cleared
			"notes": "Bring the numbers", "remind_at": "[2026-10-05T08:00]", "title": "Team sync", // kept
		} {
			if got := fmt.Sprint(cleared[name]); got != want {
				t.Errorf("after clear, %s = %q, want %q", name, got, want)
			}
		}
		get := e.ok(e.alice, "get_event", `{"id":"e1"}`)
		if strings.Contains(get.Out, "Room 4") || strings.Contains(get.Out, "10 min before") {
			t.Errorf("get_event still shows a cleared field:\n%s", get.Out)
		}
		for _, o := range data(t, e.ok(e.alice, "list_events", `{}`))["events"].([]any) {
			if loc := o.(map[string]any)["location"]; loc != nil {
				t.Errorf("occurrence %v still has the location %v", o.(map[string]any)["id"], loc)
			}
		}
		e.ok(e.alice, "undo", fmt.Sprintf(`{"change":%q}`, data(t, res)["change"]))
		back := e.seriesOf("e1")
		if back["location"] != "Room 4" || fmt.Sprint(back["remind_before"]) != "[10 60]" || back["notes"] != "Bring the numbers" {
			t.Errorf("after undo: location %q, remind_before %v, notes %q; want Room 4, [10 60], Bring the numbers",
				back["location"], back["remind_before"], back["notes"])
		}
	})
}

// “clear” on one occurrence empties it there only.
func TestUpdateClearOneOccurrence(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Gym","start":"2026-10-05T19:00","rrule":"FREQ=DAILY;COUNT=3","location":"Club"}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20261006T170000Z","clear":["location"]}`)
		var got []string
		for _, o := range data(t, e.ok(e.alice, "list_events", `{}`))["events"].([]any) {
			m := o.(map[string]any)
			got = append(got, fmt.Sprintf("%v=%v", m["id"], m["location"]))
		}
		want := []string{"e1@20261005T170000Z=Club", "e1@20261006T170000Z=<nil>", "e1@20261007T170000Z=Club"}
		if !slices.Equal(got, want) {
			t.Fatalf("locations %v, want %v", got, want)
		}
		if ex := fmt.Sprint(e.seriesOf("e1")["exceptions"]); !strings.Contains(ex, "e1@20261006T170000Z") || !strings.Contains(ex, "location") {
			t.Fatalf("exceptions %s, want e1@20261006T170000Z with location changed", ex)
		}
	})
}
