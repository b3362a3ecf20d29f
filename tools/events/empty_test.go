package events

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

// "" for an optional argument reads as not given, on every event tool.
func TestEmptyOptionalArguments(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Dentist","start":"2026-10-06T10:00","end":"","duration":"","time_zone":"","location":"","rrule":"","remind_before":"","remind_at":[""],"key":"","allow_duplicate":""}`)
		out := e.ok(e.alice, "list_events", `{"from":"","to":"","query":"","cursor":"","limit":""}`).TextOut()
		if !strings.Contains(out, "Dentist") {
			t.Fatalf("list_events with empty arguments:\n%s", out)
		}
		e.ok(e.alice, "update_event", `{"id":"e1","title":"Dentist again","start":"","end":"","time_zone":"","scope":""}`)
		e.fail(e.alice, "update_event", `{"id":"e1","start":"","end":""}`, tools.CodeInvalid, "")
		e.ok(e.alice, "find_free_time", `{"from":"2026-10-06","to":"2026-10-07","duration":30,"day_start":"","day_end":""}`)
		e.fail(e.alice, "get_event", `{"id":""}`, tools.CodeInvalid, "“id” must not be empty")
	})
}
