package events

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// A list_events cursor goes on only in the listing it came from: another
// window, another search, another zone of the person, or an edited cursor
// is refused rather than skipping or repeating occurrences.
func TestCursorHoldsItsListing(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		env := tooltest.Open(t, monday, Register)
		p := env.Person("alice", "Europe/Paris")
		if res, _ := env.Call(p, "add_event", `{"title":"Tick","start":"2026-10-05T09:00","duration":15,"rrule":"FREQ=HOURLY;COUNT=30"}`); !res.OK() {
			t.Fatal(res.TextOut())
		}
		first, _ := env.Call(p, "list_events", `{"from":"2026-10-05","to":"2026-10-06","limit":5}`)
		var d struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal(first.Data, &d); err != nil || d.NextCursor == "" {
			t.Fatalf("no next_cursor (%v): %s", err, first.TextOut())
		}
		with := func(args string) string { return fmt.Sprintf(`{%s,"cursor":%q}`, args, d.NextCursor) }
		if res, _ := env.Call(p, "list_events", with(`"from":"2026-10-05","to":"2026-10-06","limit":5`)); !res.OK() || !strings.Contains(res.TextOut(), "6–10") {
			t.Fatalf("the same listing's cursor: %s", res.TextOut())
		}
		for _, other := range []string{
			with(`"from":"2026-10-06","to":"2026-10-06","limit":5`),
			with(`"from":"2026-10-05","to":"2026-10-06","query":"Tick","limit":5`),
			fmt.Sprintf(`{"from":"2026-10-05","to":"2026-10-06","cursor":%q}`, d.NextCursor[:len(d.NextCursor)-1]),
			fmt.Sprintf(`{"from":"2026-10-05","to":"2026-10-06","cursor":%q}`, strings.Replace(d.NextCursor, "p5.", "p9.", 1)),
		} {
			if res, _ := env.Call(p, "list_events", other); res.OK() || !strings.Contains(res.TextOut(), "next_cursor of this same listing") {
				t.Errorf("list_events %s took the cursor: %s", other, res.TextOut())
			}
		}
		tokyo := p
		tokyo.Zone = env.Person("bob", "Asia/Tokyo").Zone
		if res, _ := env.Call(tokyo, "list_events", with(`"from":"2026-10-05","to":"2026-10-06","limit":5`)); res.OK() {
			t.Errorf("a cursor of Europe/Paris went on in Asia/Tokyo: %s", res.TextOut())
		}
	})
}
