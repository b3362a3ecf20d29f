package catalog

import (
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/tools"
)

// Every group names tools the catalog has, under a name no tool and
// neither "all" nor "read-only" has; every tool is in tasks or calendar,
// so a tool added later is offered by one of them; and both hold the
// journal, so a change made through either can be undone.
func TestGroups(t *testing.T) {
	reg := New()
	placed := map[string]bool{}
	for _, g := range Groups() {
		if _, clash := reg.Get(g.Name); clash || g.Name == tools.AllTools || g.Name == tools.ReadOnlyTools ||
			g.Name != strings.ToLower(g.Name) || strings.Contains(g.Name, ",") {
			t.Errorf("group name %q clashes with a tool or a built-in name, or cannot be written in a list", g.Name)
		}
		if g.Summary == "" {
			t.Errorf("group %s has no summary", g.Name)
		}
		for _, n := range g.Tools {
			if _, ok := reg.Get(n); !ok {
				t.Errorf("group %s names %s, which the catalog lacks", g.Name, n)
			}
			placed[n] = true
		}
		for _, n := range []string{"undo", "list_changes", "current_time"} {
			if !slices.Contains(g.Tools, n) {
				t.Errorf("group %s lacks %s", g.Name, n)
			}
		}
	}
	for _, n := range reg.Names() {
		if !placed[n] {
			t.Errorf("%s is in no group; add it to tasks or calendar (Groups)", n)
		}
	}
}

// Select reads the catalog's groups and keeps the registry's order; the
// read-only option intersects.
func TestSelectGroups(t *testing.T) {
	cases := []struct {
		names    string
		readOnly bool
		want     string
	}{
		{"tasks", false, "add_task list_tasks get_task update_task complete_task reopen_task delete_task current_time snooze undo list_changes"},
		{"calendar", false, "add_event list_events get_event update_event delete_event find_free_time current_time set_time_zone snooze undo list_changes"},
		{"read-only", false, "list_tasks get_task list_events get_event find_free_time current_time list_changes"},
		{"tasks", true, "list_tasks get_task current_time list_changes"},
		{"tasks,list_events,undo", false, "add_task list_tasks get_task update_task complete_task reopen_task delete_task list_events current_time snooze undo list_changes"},
		{"undo,add_task", false, "add_task undo"},
		{"", false, strings.Join(New().Names(), " ")},
		{"tasks,calendar", false, strings.Join(New().Names(), " ")},
	}
	for _, c := range cases {
		s, err := Select(New(), tools.SplitNames(c.names), c.readOnly)
		if err != nil {
			t.Errorf("%q read-only %v: %v", c.names, c.readOnly, err)
			continue
		}
		if got := strings.Join(s.Names(), " "); got != c.want {
			t.Errorf("%q read-only %v:\n got %s\nwant %s", c.names, c.readOnly, got, c.want)
		}
	}
	_, err := Select(New(), []string{"task"}, false)
	want := "there is no tool or group “task” (did you mean “tasks”?); write a group (all, tasks, calendar, read-only) or tool names (add_task, list_tasks,"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want one starting %q", err, want)
	}
}
