package tasks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

// The largest task there can be — the longest title and notes in 4-byte
// characters, the most and longest tags, reminders and a long history —
// still answers get_task, add_task and update_task in one model turn, and
// Data keeps the notes whole.
func TestMaximalTaskFitsOneAnswer(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		big := func(n int) string { return strings.Repeat("𝄞", n) }
		tags := make([]string, MaxTags)
		for i := range tags {
			tags[i] = fmt.Sprintf("%02d", i) + big(MaxTag-2)
		}
		tj, _ := json.Marshal(tags)
		raw := fmt.Sprintf(`{"title":%q,"notes":%q,"due":"2026-11-30T09:00[Pacific/Kiritimati]","priority":1,"tags":%s,"rrule":"FREQ=DAILY","remind_before":[0,5,10,15,20,25,30,35,40,45],"remind_at":["2026-11-29T08:00","2026-11-29T08:01","2026-11-29T08:02"]}`,
			big(item.MaxTitle), big(item.MaxNotes), tj)
		answers := map[string]tools.ExecResult{}
		answers["add_task"], _ = h.Call(p, "add_task", raw)
		for range MaxHistory + 3 {
			h.ok(t, p, "complete_task", `{"id":"t1"}`)
		}
		answers["update_task"], _ = h.Call(p, "update_task", fmt.Sprintf(`{"id":"t1","notes":%q}`, big(item.MaxNotes-1)+"x"))
		answers["get_task"], _ = h.Call(p, "get_task", `{"id":"t1"}`)
		for name, res := range answers {
			if !res.OK() || len(res.Out) > tools.ModelLimit || res.Spill(tools.ModelLimit).DidSpill {
				t.Errorf("%s: code %d, %d bytes (a model turn holds %d)", name, res.Code, len(res.Out), tools.ModelLimit)
			}
		}
		if out := answers["get_task"].Out; !strings.Contains(out, "more characters of these notes do not fit in one answer") {
			t.Errorf("get_task does not say the notes were cut:\n%s", out[:min(len(out), 3000)])
		}
		if n := len([]rune(h.task(t, p, "t1").Notes)); n != item.MaxNotes {
			t.Errorf("Data holds %d characters of notes, want all %d", n, item.MaxNotes)
		}
	})
}
