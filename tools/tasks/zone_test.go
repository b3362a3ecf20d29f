package tasks

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// When the person moves to another zone (as set_time_zone does, through
// store.SetZone) a date-only due keeps its day, so "today" and "tomorrow"
// are counted in the new zone, and a timed due keeps its zone and instant
// and is shown on the new clock. Nothing in the task rows is rewritten.
func TestZoneChangeKeepsDues(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Time{})
		h.At("Europe/Paris", "2026-12-01T00:30") // Tue in Paris, still Mon 18:30 in New York
		day := h.add(t, h.paris, `{"title":"Pick up parcel","due":"2026-12-01"}`)
		past := h.add(t, h.paris, `{"title":"Send invoice","due":"2026-11-30"}`)
		timed := h.add(t, h.paris, `{"title":"Call the bank","due":"2026-12-01T09:00"}`)
		rows := func() string {
			return h.rows(t, "tasks", "id", "due_date", "due_time", "due_zone", "due_at", "updated_at")
		}
		stored := rows()
		for id, want := range map[string]string{day: "today", past: "overdue 1 day (Mon 2026-11-30)", timed: "today 09:00"} {
			if got := h.task(t, h.paris, id).Standing; got != want {
				t.Errorf("in Paris, %s stands %q, want %q", id, got, want)
			}
		}
		bank := h.task(t, h.paris, timed)

		if _, was, err := h.Store.SetZone(h.Ctx, h.paris.ID, "America/New_York", "set_time_zone"); err != nil || was != "Europe/Paris" {
			t.Fatalf("SetZone: was %q, %v", was, err)
		}
		ada := h.Person("ada", "Europe/Paris") // read back as a host does: the stored zone
		if ada.Zone.Name() != "America/New_York" {
			t.Fatalf("the person's zone is %s after SetZone", ada.Zone.Name())
		}

		for _, c := range []struct {
			id, standing, due string
			overdue           bool
		}{
			{day, "tomorrow", "2026-12-01", false},
			{past, "today", "2026-11-30", false},
			{timed, "tomorrow 03:00 (09:00 Europe/Paris)", "2026-12-01T09:00", false},
		} {
			got := h.task(t, ada, c.id)
			if got.Standing != c.standing || got.Due != c.due || got.Overdue != c.overdue {
				t.Errorf("in New York, %s: standing %q, due %s, overdue %v; want %q, %s, %v",
					c.id, got.Standing, got.Due, got.Overdue, c.standing, c.due, c.overdue)
			}
		}
		if d := h.task(t, ada, day); !d.DueAllDay || d.DueZone != "" || d.DueAt != "" {
			t.Errorf("a date-only due took a zone or an instant: zone %q, at %q", d.DueZone, d.DueAt)
		}
		moved := h.task(t, ada, timed)
		was, _ := time.Parse(time.RFC3339, bank.DueAt)
		now, _ := time.Parse(time.RFC3339, moved.DueAt)
		if moved.DueZone != "Europe/Paris" || !now.Equal(was) || !now.Equal(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)) {
			t.Errorf("the timed due is %s in %s, want the same instant %s in Europe/Paris", moved.DueAt, moved.DueZone, bank.DueAt)
		}
		if out := h.ok(t, ada, "get_task", `{"id":"`+timed+`"}`); !strings.Contains(out, "due: tomorrow, Tue 2026-12-01 03:00 (-05:00) = 09:00 Europe/Paris") {
			t.Errorf("get_task does not show the due on the New York clock:\n%s", out)
		}
		// A window over New York's Monday holds the task due Monday, not
		// Tuesday's (still Paris's today when the zone changed).
		var list struct{ Tasks []taskData }
		h.data(t, ada, "list_tasks", `{"to":"2026-11-30"}`, &list)
		var ids []string
		for _, x := range list.Tasks {
			ids = append(ids, x.ID)
		}
		if !slices.Equal(ids, []string{past}) {
			t.Errorf("list_tasks to=2026-11-30 in New York: %v, want [%s]", ids, past)
		}
		if after := rows(); after != stored {
			t.Errorf("the zone change rewrote task rows:\n%s\nwas\n%s", after, stored)
		}
	})
}

// update_task with an empty (or null) “tags” leaves the tags as they are,
// alone or beside another change. Alone, [] is a call that changes
// nothing; null is no field at all, which update_task refuses.
func TestUpdateEmptyTagsKeepsTags(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Time{})
		h.At("Europe/Paris", "2026-11-30T09:00")
		id := h.add(t, h.paris, `{"title":"Buy milk","tags":["errands","home"]}`)
		before := h.counts(t)
		for _, c := range []struct {
			tags string
			code int
			want string
		}{
			{`[]`, 0, "Nothing changed: " + id + " already is as asked."},
			{`null`, 1, "Nothing to change in " + id},
		} {
			raw := `{"id":"` + id + `","tags":` + c.tags + `}`
			res, _ := h.Call(h.paris, "update_task", raw)
			if res.Code != c.code || !strings.Contains(res.TextOut(), c.want) {
				t.Errorf("update_task %s: code %d: %s; want code %d with %q", raw, res.Code, res.TextOut(), c.code, c.want)
			}
			if h.counts(t) != before {
				t.Errorf("update_task %s wrote to the store", raw)
			}
		}
		for i, tags := range []string{`[]`, `null`} {
			h.ok(t, h.paris, "update_task", `{"id":"`+id+`","tags":`+tags+`,"priority":`+strconv.Itoa(1+i)+`}`)
			got := h.task(t, h.paris, id)
			if !slices.Equal(got.Tags, []string{"errands", "home"}) || got.Priority != 1+i {
				t.Errorf("after tags %s with priority %d: tags %v, priority %d; want [errands home]", tags, 1+i, got.Tags, got.Priority)
			}
		}
	})
}
