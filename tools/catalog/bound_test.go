package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// Every tool's answer on the largest data a person can have — 100 tasks
// with 200-character titles and 10,000-character notes, a week of events
// with the longest notes, a series with 300 EXDATEs — stays within the
// answer bounds (text within tools.TextBound characters, text and Data
// within tools.AnswerBound), and the tools' own shaping keeps it there:
// none of these answers needs the bound to cut.
func TestEveryAnswerWithinBounds(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		monday := time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)
		e := tooltest.Open(t, monday, registrars...)
		p := e.Person("alice", "Europe/Paris")
		long := func(n int) string { return strings.Repeat("ü", n) }
		call := func(name, raw string) tools.ExecResult {
			t.Helper()
			res, _ := e.Call(p, name, raw)
			if res.Code != tools.CodeOK {
				t.Fatalf("%s %.200s: %s", name, raw, res.TextOut())
			}
			return res
		}
		for i := range 100 {
			call("add_task", fmt.Sprintf(`{"title":%q,"notes":%q,"due":"2026-10-%02d"}`, fmt.Sprintf("%03d ", i)+long(196), long(10_000), 5+i%20))
		}
		exdates := make([]string, 300)
		for i := range exdates {
			exdates[i] = monday.AddDate(0, 0, 30+i).Format("2006-01-02") + "T10:00"
		}
		ex, _ := json.Marshal(exdates)
		call("add_event", fmt.Sprintf(`{"title":%q,"notes":%q,"location":%q,"start":"2026-10-05T10:00","rrule":"FREQ=DAILY","exdates":%s}`, long(200), long(10_000), long(200), ex))
		for i := range 6 {
			call("add_event", fmt.Sprintf(`{"title":%q,"notes":%q,"start":"2026-10-05T%02d:00","rrule":"FREQ=DAILY","allow_duplicate":true}`, long(200), long(10_000), 11+i))
		}
		// t1's reminder went out, so snooze has one to put off.
		if _, err := e.Store.Write(context.Background(), p.ID, "remind", func(tx *store.Tx) error {
			if _, err := tx.RecordDelivery(store.NewDelivery{Item: "t1", Trigger: "before:15", FireAt: monday,
				Status: store.DeliveryPending}, monday); err != nil {
				return err
			}
			d, _, err := tx.NextToSend(monday, monday)
			if err != nil {
				return err
			}
			return tx.MarkSent(d.RowID, monday, []string{"stdout"})
		}); err != nil {
			t.Fatal(err)
		}
		calls := map[string]string{
			"snooze":         `{"id":"t1","minutes":"1h"}`,
			"list_tasks":     `{"limit":100}`,
			"get_task":       `{"id":"t1"}`,
			"update_task":    fmt.Sprintf(`{"id":"t1","notes":%q}`, long(10_000)),
			"complete_task":  `{"id":"t2"}`,
			"reopen_task":    `{"id":"t2"}`,
			"delete_task":    `{"id":"t3"}`,
			"add_task":       fmt.Sprintf(`{"title":%q,"notes":%q}`, long(200), long(10_000)),
			"list_events":    `{"from":"2026-10-05","to":"2026-10-11","limit":40}`,
			"get_event":      `{"id":"e1"}`,
			"update_event":   fmt.Sprintf(`{"id":"e1@20261006T080000Z","notes":%q}`, long(10_000)),
			"delete_event":   `{"id":"e2@20261006T090000Z"}`,
			"add_event":      fmt.Sprintf(`{"title":%q,"notes":%q,"start":"2026-10-05T10:00","rrule":"FREQ=DAILY","allow_duplicate":true}`, long(200), long(10_000)),
			"find_free_time": `{"from":"2026-10-05","to":"2026-12-31","duration":5,"weekends":true,"tasks":true}`,
			"current_time":   `{}`,
			"set_time_zone":  `{"time_zone":"Asia/Tokyo"}`,
			"list_changes":   `{}`,
			"undo":           `{}`,
		}
		names := e.Reg.Names()
		sort.Strings(names)
		for _, name := range names {
			raw, ok := calls[name]
			if !ok {
				t.Errorf("%s has no call in this test; add one with its largest answer", name)
				continue
			}
			res := call(name, raw)
			text := res.TextOut()
			n, d := utf8.RuneCountInString(text), utf8.RuneCount(res.Data)
			if n > tools.TextBound || n+d > tools.AnswerBound {
				t.Errorf("%s: text %d and data %d characters, over the bounds", name, n, d)
			}
			if strings.Contains(text, "was cut to fit") || strings.Contains(string(res.Data), `"truncated"`) {
				t.Errorf("%s: the bound had to cut the answer (text %d, data %d); its own shaping should keep it within", name, n, d)
			}
		}
		// get_task and get_event give the notes whole.
		for _, c := range []struct{ name, raw, path string }{{"get_task", `{"id":"t4"}`, "task"}, {"get_event", `{"id":"e1"}`, "event"}} {
			var d map[string]map[string]any
			if err := json.Unmarshal(call(c.name, c.raw).Data, &d); err != nil {
				t.Fatal(err)
			}
			if got := utf8.RuneCountInString(fmt.Sprint(d[c.path]["notes"])); got != 10_000 {
				t.Errorf("%s gives %d characters of notes, want all 10000", c.name, got)
			}
		}
		// list_tasks leaves the notes to get_task.
		var list struct {
			Tasks []map[string]any `json:"tasks"`
		}
		if err := json.Unmarshal(call("list_tasks", `{"limit":100}`).Data, &list); err != nil || len(list.Tasks) == 0 {
			t.Fatalf("list_tasks data: %v", err)
		}
		for _, k := range []string{"notes", "notes_cut"} {
			if _, ok := list.Tasks[0][k]; ok {
				t.Errorf("list_tasks carries %q; the notes are get_task's only", k)
			}
		}
	})
}
