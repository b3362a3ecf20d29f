package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// The largest event there can be — the longest title, place and notes in
// 4-byte characters, 1000 EXDATEs and RDATEs, changed occurrences with the
// longest titles — still answers get_event, add_event and update_event in
// one model turn, and Data keeps the notes whole.
func TestMaximalEventFitsOneAnswer(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		big := func(n int) string { return strings.Repeat("𝄞", n) }
		moments := func(first tz.Date, clock string) string {
			ms := make([]string, 1000)
			for i := range ms {
				ms[i] = first.AddDays(i).String() + clock
			}
			b, _ := json.Marshal(ms)
			return string(b)
		}
		raw := fmt.Sprintf(`{"title":%q,"location":%q,"notes":%q,"start":"2026-10-06T09:00","rrule":"FREQ=DAILY","exdates":%s,"rdates":%s,"remind_before":[0,5,10,15,20,25,30,35,40,45],"remind_at":["2026-10-06T08:00","2026-10-06T08:01","2026-10-06T08:02"]}`,
			big(item.MaxTitle), big(item.MaxLocation), big(item.MaxNotes),
			moments(tz.Date{Year: 2027, Month: 1, Day: 1}, "T09:00"), moments(tz.Date{Year: 2030, Month: 1, Day: 1}, "T10:00"))
		answers := map[string]tools.ExecResult{"add_event": e.ok(e.alice, "add_event", raw)}
		list := e.ok(e.alice, "list_events", `{"from":"2026-10-06","to":"2026-11-05","limit":40}`)
		ids, _ := occurrences(t, list)
		if len(ids) < listShown+5 {
			t.Fatalf("only %d occurrences listed", len(ids))
		}
		for _, id := range ids[:listShown+5] {
			answers["update_event"] = e.ok(e.alice, "update_event", fmt.Sprintf(`{"id":%q,"title":%q,"notes":%q}`, id, big(item.MaxTitle), big(item.MaxNotes)))
		}
		answers["get_event series"] = e.ok(e.alice, "get_event", `{"id":"e1"}`)
		answers["get_event occurrence"] = e.ok(e.alice, "get_event", fmt.Sprintf(`{"id":%q}`, ids[0]))
		answers["update_event all"] = e.ok(e.alice, "update_event", fmt.Sprintf(`{"id":"e1","notes":%q}`, big(item.MaxNotes-1)+"x"))
		for name, res := range answers {
			if len(res.Out) > tools.ModelLimit || res.Spill(tools.ModelLimit).DidSpill {
				t.Errorf("%s: %d bytes, over the %d a model turn holds", name, len(res.Out), tools.ModelLimit)
			}
		}
		series := answers["get_event series"]
		for _, want := range []string{" and 980 more", "; and 5 more", "more characters of these notes do not fit in one answer"} {
			if !strings.Contains(series.Out, want) {
				t.Errorf("get_event does not say %q:\n%s", want, series.Out[:min(len(series.Out), 3000)])
			}
		}
		d := data(t, series)["event"].(map[string]any)
		if n := len([]rune(d["notes"].(string))); n != item.MaxNotes {
			t.Errorf("Data holds %d characters of notes, want all %d", n, item.MaxNotes)
		}
		if n := len(d["exdates"].([]any)); n != 1000 {
			t.Errorf("Data holds %d exdates, want 1000", n)
		}
	})
}
