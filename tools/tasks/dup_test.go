package tasks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Only a call that repeats the title, due, priority, tags and rule answers
// with the first task; one that differs in any of them is another request:
// it is added, with a warning that names the task much like it.
func TestDuplicateWindowComparesEveryField(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		h.add(t, p, `{"title":"Buy milk","due":"2026-12-01","priority":2,"tags":["errands","home"],"rrule":"FREQ=WEEKLY"}`)
		h.Now = h.Now.Add(2 * time.Minute)
		cases := []struct {
			raw, differs string // differs is "" for the same request
		}{
			{`{"title":"buy milk.","due":"2026-12-01","priority":2,"tags":["Home","errands"],"rrule":"FREQ=WEEKLY","notes":"2 litres"}`, ""},
			{`{"title":"Buy milk","due":"2026-12-01","priority":1,"tags":["errands","home"],"rrule":"FREQ=WEEKLY"}`, "priority"},
			{`{"title":"Buy milk","due":"2026-12-01","priority":2,"tags":["errands"],"rrule":"FREQ=WEEKLY"}`, "tags"},
			{`{"title":"Buy milk","due":"2026-12-01","priority":2,"tags":["errands","home"],"rrule":"FREQ=WEEKLY;INTERVAL=2"}`, "rrule"},
			{`{"title":"Buy milk","due":"2026-12-01","priority":2,"tags":["errands","home"]}`, "rrule"},
			{`{"title":"Buy milk","due":"2026-12-01"}`, "priority, tags, rrule"},
		}
		for _, c := range cases {
			res, _ := h.Call(p, "add_task", c.raw)
			var d written
			out := h.data(t, p, "add_task", c.raw, &d) // the same call again answers alike
			if c.differs == "" {
				if !d.Existing || d.Task.ID != "t1" || !strings.HasPrefix(res.Out, "Already there: t1") ||
					!strings.Contains(res.Out, "a task with this title, due, priority, tags and rule was added 2 minutes ago") {
					t.Errorf("%s: not answered with t1:\n%s", c.raw, res.Out)
				}
				continue
			}
			want := "Warning: t1, added 2 minutes ago, has the same title and due but another " + c.differs + "; if one of the two is a copy, delete it with delete_task."
			if !strings.HasPrefix(res.Out, "Added ") || !strings.Contains(res.Out, want) {
				t.Errorf("%s: want it added with %q:\n%s", c.raw, want, res.Out)
			}
			// Sent twice, the second call is the same request as the first.
			if !d.Existing || !strings.HasPrefix(out, "Already there: ") {
				t.Errorf("%s sent again: %s", c.raw, out)
			}
			h.ok(t, p, "delete_task", fmt.Sprintf(`{"id":%q}`, d.Task.ID))
		}
	})
}
