package events

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Every answer that names an occurrence shows it as it now is: a moved
// occurrence at its new time, never at the rule's.
func TestAnswersShowMovedOccurrence(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Review","start":"2026-10-05T14:00","duration":30,"rrule":"FREQ=DAILY;COUNT=6"}`)
		moved := e.ok(e.alice, "update_event", `{"id":"e1@20261007T120000Z","start":"2026-10-07T16:00"}`)
		if !strings.Contains(moved.Out, "16:00–16:30") {
			t.Errorf("update_event does not show the new time:\n%s", moved.Out)
		}
		got := e.ok(e.alice, "get_event", `{"id":"e1@20261007T120000Z"}`)
		if !strings.Contains(got.Out, "16:00–16:30") {
			t.Errorf("get_event of the occurrence does not show the new time:\n%s", got.Out)
		}
		series := e.ok(e.alice, "get_event", `{"id":"e1"}`)
		if !strings.Contains(series.Out, "e1@20261007T120000Z Wed 2026-10-07 16:00–16:30") {
			t.Errorf("get_event of the series does not show the new time in its next occurrences:\n%s", series.Out)
		}
		del := e.ok(e.alice, "delete_event", `{"id":"e1@20261008T120000Z","scope":"following"}`)
		if !strings.Contains(del.Out, "its last occurrence is now e1@20261007T120000Z (Wed 2026-10-07 16:00–16:30") {
			t.Errorf("delete_event following names the last occurrence at the rule's time:\n%s", del.Out)
		}
		list := e.ok(e.alice, "list_events", `{"from":"2026-10-05","to":"2026-10-12"}`)
		if !strings.Contains(list.Out, "e1@20261007T120000Z  Wed 2026-10-07 16:00–16:30") {
			t.Errorf("list_events:\n%s", list.Out)
		}
	})
}

// When the occurrence just before the cut was moved after a later one, the
// last occurrence is the one latest in time; a deleted one is never named.
func TestDeleteFollowingLastIsLatestShown(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Review","start":"2026-10-05T14:00","duration":30,"rrule":"FREQ=DAILY;COUNT=6"}`)
		e.ok(e.alice, "update_event", `{"id":"e1@20261006T120000Z","start":"2026-10-07T18:00"}`)
		e.ok(e.alice, "delete_event", `{"id":"e1@20261007T120000Z"}`)
		del := e.ok(e.alice, "delete_event", `{"id":"e1@20261008T120000Z","scope":"following"}`)
		if !strings.Contains(del.Out, "its last occurrence is now e1@20261006T120000Z (Wed 2026-10-07 18:00–18:30") {
			t.Errorf("delete_event following:\n%s", del.Out)
		}
	})
}
