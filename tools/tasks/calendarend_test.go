package tasks

import (
	"strings"
	"testing"
	"time"
)

// A window that ends at the end of the calendar (to=9999-12-31, whose next
// day has a five-digit year) still holds a task due today, date-only or
// timed, as to=9999-12-30 does.
func TestWindowToTheEndOfTheCalendar(t *testing.T) {
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
}
