package tasks

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

// TestBadArguments sends one wrong value for each argument of each tool and
// checks the one sentence (it names the argument in “…”) and that nothing
// was stored: no task, completion, change or key row appeared or changed.
// Every sentence is kept in testdata/sentences.golden for review.
func TestBadArguments(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		h.add(t, p, `{"title":"Plain","due":"2026-12-01"}`)                                    // t1
		h.add(t, p, `{"title":"Weekly","due":"2026-12-01T09:00","rrule":"FREQ=WEEKLY"}`)       // t2
		h.add(t, p, `{"title":"Tagged","tags":["a","b","c","d","e","f","g","h","i","j","k"]}`) // t3, 11 tags

		long := func(n int) string { return strings.Repeat("é", n) }
		list := func(n int, f func(i int) string) string {
			items := make([]string, n)
			for i := range items {
				items[i] = f(i)
			}
			return "[" + strings.Join(items, ",") + "]"
		}
		manyTags := list(21, func(i int) string { return fmt.Sprintf("%q", fmt.Sprintf("tag%d", i)) })
		cases := []struct {
			tool, raw, arg string
			code           int
		}{
			{"add_task", `{}`, "title", 1},
			{"add_task", `{"title":"   "}`, "title", 1},
			{"add_task", `{"title":42}`, "title", 1},
			{"add_task", `{"title":"` + long(201) + `"}`, "title", 1},
			{"add_task", `{"title":"x","notes":"` + long(10001) + `"}`, "notes", 1},
			{"add_task", `{"title":"` + strings.Repeat("x", item.MaxTitle+1) + `"}`, "title", 1},
			{"add_task", `{"title":"x","notes":"` + strings.Repeat("𝄞", item.MaxNotes+1) + `"}`, "notes", 1},
			{"add_task", `{"title":"x","notes":["a"]}`, "notes", 1},
			{"add_task", `{"title":"x","due":"friday-ish"}`, "due", 1},
			{"add_task", `{"title":"x","due":"2026-02-30"}`, "due", 1},
			{"add_task", `{"title":"x","due":"2026-12-01T09:00[Europe/Pariss]"}`, "due", 1},
			{"add_task", `{"title":"x","priority":5}`, "priority", 1},
			{"add_task", `{"title":"x","priority":"high"}`, "priority", 1},
			{"add_task", `{"title":"x","tags":["grocery shopping"]}`, "tags", 1},
			{"add_task", `{"title":"x","tags":["` + long(41) + `"]}`, "tags", 1},
			{"add_task", `{"title":"x","tags":` + manyTags + `}`, "tags", 1},
			// 100,000 tags are refused after the first thousand, not read
			// with a scan of the kept ones for each (15 s before).
			{"add_task", `{"title":"x","tags":` + list(100000, func(i int) string { return fmt.Sprintf("%q", fmt.Sprintf("tag%d", i)) }) + `}`, "tags", 1},
			{"add_task", `{"title":"x","tags":[1]}`, "tags", 1},
			{"add_task", `{"title":"x","due":"2026-12-01","rrule":"FREQ=SOMETIMES"}`, "rrule", 1},
			{"add_task", `{"title":"x","rrule":"FREQ=DAILY"}`, "rrule", 1},
			{"add_task", `{"title":"x","due":"2026-12-01","rrule":"FREQ=HOURLY"}`, "rrule", 1},
			// The series' start is the due: a repeating task on the
			// calendar's last day is refused on “due”, not “start”.
			{"add_task", `{"title":"x","due":"9999-12-31","rrule":"FREQ=DAILY"}`, "due", 1},
			{"add_task", `{"title":"x","due":"9999-12-31T23:59","rrule":"FREQ=YEARLY"}`, "rrule", 1},
			{"add_task", `{"title":"x","due":"2026-12-01","rrule":"FREQ=WEEKLY;BYDAY=MO","repeat_from":"completion"}`, "rrule", 1},
			{"add_task", `{"title":"x","due":"2026-12-01","rrule":"FREQ=DAILY","repeat_from":"later"}`, "repeat_from", 1},
			{"add_task", `{"title":"x","repeat_from":"completion"}`, "repeat_from", 1},
			{"add_task", `{"title":"x","remind_before":[-5]}`, "remind_before", 1},
			{"add_task", `{"title":"x","remind_before":` + list(11, func(i int) string { return fmt.Sprint(i) }) + `}`, "remind_before", 1},
			{"add_task", `{"title":"x","remind_before":["soon"]}`, "remind_before", 1},
			{"add_task", `{"title":"x","remind_at":["tomorrow-ish"]}`, "remind_at", 1},
			{"add_task", `{"title":"x","remind_at":` + list(11, func(i int) string { return fmt.Sprintf(`"2026-12-01T%02d:00"`, i) }) + `}`, "remind_at", 1},
			{"add_task", `{"title":"x","key":"` + strings.Repeat("k", 201) + `"}`, "key", 1},
			{"add_task", `{"title":"x","key":5}`, "key", 1},
			{"add_task", `{"title":"x","allow_duplicate":"maybe"}`, "allow_duplicate", 1},
			{"add_task", `{"title":"x","colour":"red"}`, "colour", 1},

			{"list_tasks", `{"status":"pending"}`, "status", 1},
			{"list_tasks", `{"from":"the day before"}`, "from", 1},
			{"list_tasks", `{"to":"2026-13-01"}`, "to", 1},
			{"list_tasks", `{"from":"2026-12-02","to":"2026-12-01T10:00"}`, "to", 1},
			{"list_tasks", `{"tag":"` + long(41) + `"}`, "tag", 1},
			{"list_tasks", `{"tag":"#"}`, "tag", 1}, // it listed every task
			{"list_tasks", `{"query":"` + long(201) + `"}`, "query", 1},
			{"list_tasks", `{"query":{}}`, "query", 1},
			{"list_tasks", `{"query":"\u200d\u200b\u2060"}`, "query", 1},
			{"list_tasks", `{"query":"\u0301\u0308 \u0327"}`, "query", 1},
			{"list_tasks", `{"limit":0}`, "limit", 1},
			{"list_tasks", `{"limit":101}`, "limit", 1},
			{"list_tasks", `{"cursor":"abc"}`, "cursor", 1},
			{"list_tasks", `{"cursor":"o999"}`, "cursor", 1},
			{"list_tasks", `{"sort":"due"}`, "sort", 1},

			{"update_task", `{"title":"x"}`, "id", 1},
			{"update_task", `{"id":"e7","title":"x"}`, "id", 1},
			{"update_task", `{"id":"t1"}`, "id", 1},
			{"update_task", `{"id":"t1","title":"` + long(201) + `"}`, "title", 1},
			{"update_task", `{"id":"t1","notes":"` + long(10001) + `"}`, "notes", 1},
			{"update_task", `{"id":"t1","due":"someday"}`, "due", 1},
			{"update_task", `{"id":"t1","priority":0}`, "priority", 1},
			{"update_task", `{"id":"t1","tags":["a,b"]}`, "tags", 1},
			{"update_task", `{"id":"t3","add_tags":["l","m","n","o","p","q","r","s","t","u"]}`, "add_tags", 1},
			{"update_task", `{"id":"t1","remove_tags":["a b"]}`, "remove_tags", 1},
			{"update_task", `{"id":"t1","remove_tags":"#"}`, "remove_tags", 1},
			{"update_task", `{"id":"t1","rrule":"FREQ=WEEKLY;BYDAY=XX"}`, "rrule", 1},
			{"update_task", `{"id":"t1","rrule":"FREQ=WEEKLY","clear":["due"]}`, "rrule", 1},
			{"update_task", `{"id":"t1","repeat_from":"completion"}`, "repeat_from", 1},
			{"update_task", `{"id":"t2","repeat_from":"whenever"}`, "repeat_from", 1},
			{"update_task", `{"id":"t1","remind_before":[50000]}`, "remind_before", 1},
			{"update_task", `{"id":"t1","remind_at":["9am"]}`, "remind_at", 1},
			{"update_task", `{"id":"t1","clear":["title"]}`, "clear", 1},
			{"update_task", `{"id":"t1","clear":["colour"]}`, "clear", 1},
			{"update_task", `{"id":"t1","notes":"n","clear":["notes"]}`, "clear", 1},
			{"update_task", `{"id":"t2","clear":["due"]}`, "clear", 1},
			{"update_task", `{"id":"t2","due":"2026-12-01","rrule":"FREQ=MINUTELY"}`, "rrule", 1},
			{"update_task", `{"id":"t1","key":"k"}`, "key", 1},
		}
		for _, tool := range []string{"get_task", "complete_task", "reopen_task", "delete_task"} {
			cases = append(cases,
				struct {
					tool, raw, arg string
					code           int
				}{tool, `{}`, "id", 1},
				struct {
					tool, raw, arg string
					code           int
				}{tool, `{"id":"e7"}`, "id", 1},
				struct {
					tool, raw, arg string
					code           int
				}{tool, `{"id":12}`, "id", 1},
				struct {
					tool, raw, arg string
					code           int
				}{tool, `{"id":"t0"}`, "id", 1},
				struct {
					tool, raw, arg string
					code           int
				}{tool, `{"id":"t1","extra":true}`, "extra", 1},
			)
		}
		var sentences strings.Builder
		for _, c := range cases {
			before := h.counts(t)
			res, call := h.Call(p, c.tool, c.raw)
			raw := c.raw
			if len(raw) > 120 {
				cut := 120
				for !utf8.RuneStart(raw[cut]) {
					cut-- // never half a rune in the golden file
				}
				raw = raw[:cut] + "…"
			}
			if res.Code != c.code {
				t.Errorf("%s %s: code %d, want %d: %s", c.tool, raw, res.Code, c.code, res.TextOut())
				continue
			}
			if !strings.Contains(res.Err, "“"+c.arg+"”") {
				t.Errorf("%s %s: sentence does not name “%s”: %s", c.tool, raw, c.arg, res.Err)
			}
			if strings.Count(res.Err, ". ") > 3 || !strings.HasSuffix(res.Err, ".") {
				t.Errorf("%s %s: not one short sentence: %s", c.tool, raw, res.Err)
			}
			if after := h.counts(t); after != before {
				t.Errorf("%s %s: the database changed:\n%s\n%s", c.tool, raw, before, after)
			}
			if _, ok := tools.Result[tools.Changed](call); ok {
				t.Errorf("%s %s: a failed call reported a change", c.tool, raw)
			}
			fmt.Fprintf(&sentences, "%s %s\n  %s\n", c.tool, raw, res.Err)
		}
		golden(t, "sentences.golden", sentences.String())
	})
}
