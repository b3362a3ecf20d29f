package tasks

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A window that ends at the end of the calendar (to=9999-12-31, whose next
// day has a five-digit year) still holds a task due today, date-only or
// timed, as to=9999-12-30 does.
func TestWindowToTheEndOfTheCalendar(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC))
		day := h.add(t, h.paris, `{"title":"Pick up parcel","due":"2026-10-05"}`)
		timed := h.add(t, h.paris, `{"title":"Call the bank","due":"2026-10-05T17:00"}`)
		last := h.add(t, h.paris, `{"title":"The very last day","due":"9999-12-31"}`)
		for _, raw := range []string{`{"to":"9999-12-31"}`, `{"from":"0001-01-01","to":"9999-12-31"}`, `{"to":"9999-12-31T23:59"}`} {
			out := h.ok(t, h.paris, "list_tasks", raw)
			for _, id := range []string{day, timed, last} {
				if !strings.Contains(out, id+" ") {
					t.Errorf("list_tasks %s leaves out %s:\n%s", raw, id, out)
				}
			}
		}
	})
}

// A timed due whose instant falls outside the years 0001–9999 in UTC is
// refused with one sentence naming “due”.
func TestDuePastTheCalendarEnd(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC))
		for _, due := range []string{"9999-12-31T20:00[America/New_York]", "0001-01-01T00:05[Europe/Paris]"} {
			res, _ := h.Call(h.paris, "add_task", `{"title":"t","due":"`+due+`"}`)
			if !strings.HasPrefix(res.Err, "“due”") {
				t.Errorf("add_task due=%s: %s", due, res.TextOut())
			}
		}
	})
}
