package tasks

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"
)

// TestListRowsAreLean checks the rows of list_tasks' Data: what the line
// shows, as fields; a field at its empty value is left out, status too
// when open; the notes, the standing in words and the stamps are
// get_task's only; and every field a row has is what get_task gives for
// it.
func TestListRowsAreLean(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	h := newHarness(t, now)
	h.ok(t, h.paris, "add_task", `{"title":"Bare"}`)
	h.ok(t, h.paris, "add_task", `{"title":"Full","notes":"Bring the receipt.","due":"2026-11-28T09:00","priority":2,"tags":["home"],
		"rrule":"FREQ=WEEKLY","remind_before":[10],"remind_at":["2026-12-01T08:00"]}`)
	h.ok(t, h.paris, "add_task", `{"title":"Day","due":"2026-12-02"}`)
	h.ok(t, h.paris, "add_task", `{"title":"Finished","notes":"Done with it."}`)
	h.ok(t, h.paris, "complete_task", `{"id":"t4"}`)

	var page struct {
		Tasks []map[string]json.RawMessage `json:"tasks"`
	}
	h.data(t, h.paris, "list_tasks", `{"status":"all"}`, &page)
	want := map[string][]string{
		"t1": {"id", "title", "priority"},
		"t2": {"id", "title", "overdue", "due", "due_zone", "due_at", "priority", "tags",
			"rrule", "repeat_from", "repeats", "remind_before", "remind_at"},
		"t3": {"id", "title", "due", "due_all_day", "priority"},
		"t4": {"id", "title", "status", "priority", "completed_at"},
	}
	if len(page.Tasks) != len(want) {
		t.Fatalf("list_tasks gave %d rows, want %d", len(page.Tasks), len(want))
	}
	for _, row := range page.Tasks {
		var id string
		if err := json.Unmarshal(row["id"], &id); err != nil {
			t.Fatalf("row %v: id: %v", row, err)
		}
		got := slices.Sorted(maps.Keys(row))
		if w := slices.Sorted(slices.Values(want[id])); !slices.Equal(got, w) {
			t.Errorf("%s: list row has %v, want %v", id, got, w)
		}
		// What the row has is what get_task says, field for field.
		var shown struct {
			Task map[string]json.RawMessage `json:"task"`
		}
		h.data(t, h.paris, "get_task", `{"id":"`+id+`"}`, &shown)
		for _, k := range []string{"created_at", "updated_at", "tags", "remind_before", "remind_at", "overdue", "notes", "standing", "status"} {
			if _, ok := shown.Task[k]; !ok && k != "updated_at" {
				t.Errorf("%s: get_task has no %q; it gives every field", id, k)
			}
		}
		if _, ok := row["status"]; !ok && string(shown.Task["status"]) != `"open"` {
			t.Errorf("%s: list row has no status, which reads as open, but get_task says %s", id, shown.Task["status"])
		}
		for k, v := range row {
			if string(shown.Task[k]) != string(v) {
				t.Errorf("%s: list row's %s is %s, get_task's %s", id, k, v, shown.Task[k])
			}
		}
	}
}
