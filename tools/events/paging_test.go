package events

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Following next_cursor from page to page gives every occurrence of the
// window once, in the order of one unpaged list.
func TestListPaging(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Standup","start":"2026-10-05T09:30","duration":15,"rrule":"FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"}`)
		e.ok(e.alice, "add_event", `{"title":"Gym","start":"2026-10-05T19:00","rrule":"FREQ=DAILY"}`)
		e.ok(e.alice, "add_event", `{"title":"Trip","start":"2026-10-09","end":"2026-10-11"}`)
		e.ok(e.alice, "add_event", `{"title":"Lunch","start":"2026-10-13T12:30[America/New_York]"}`)
		const window = `"from":"2026-10-05","to":"2026-10-18"`
		full := e.ok(e.alice, "list_events", `{`+window+`,"limit":40}`)
		all, _ := occurrences(t, full)
		if d := data(t, full); len(all) != 26 || d["next_cursor"] != "" || d["total"] != float64(26) {
			t.Fatalf("one page: %d occurrences, total %v, next_cursor %q; want 26, 26, none", len(all), d["total"], d["next_cursor"])
		}
		var joined []string
		cursor, pages := "", 0
		for {
			raw := `{` + window + `,"limit":7`
			if cursor != "" {
				raw += fmt.Sprintf(`,"cursor":%q`, cursor)
			}
			res := e.ok(e.alice, "list_events", raw+`}`)
			pages++
			ids, _ := occurrences(t, res)
			joined = append(joined, ids...)
			d := data(t, res)
			if d["total"] != float64(26) {
				t.Fatalf("page %d: total %v, want 26", pages, d["total"])
			}
			next, _ := d["next_cursor"].(string)
			if (next != "") != strings.Contains(res.Out, "More: call again with cursor "+next+".") {
				t.Fatalf("page %d: next_cursor %q, but Out says:\n%s", pages, next, res.Out)
			}
			if next == "" {
				break
			}
			if pages > 10 {
				t.Fatalf("cursor %q never ends", next)
			}
			cursor = next
		}
		if pages != 4 || !slices.Equal(joined, all) {
			t.Fatalf("%d pages joined to\n%v\nwant 4 pages of\n%v", pages, joined, all)
		}
	})
}
