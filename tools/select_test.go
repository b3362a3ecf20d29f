package tools

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/args"
)

// selectRegistry holds four tools, two that read and two that write, in
// an order no group follows, and the groups "notes" and "clock".
func selectRegistry() (*Registry, []Group) {
	r := NewRegistry()
	r.CallTimeout = 5 * time.Second
	for _, t := range []struct {
		name     string
		readOnly bool
	}{{"add_note", false}, {"list_notes", true}, {"now", true}, {"wipe", false}} {
		r.Add(Tool{Name: t.name, Description: "A tool.", ReadOnly: t.readOnly,
			Handler: func(context.Context, *ToolContext, *args.Args) ExecResult { return Success(t.name) }})
	}
	return r, []Group{
		{Name: "notes", Summary: "Notes.", Tools: []string{"list_notes", "add_note"}},
		{Name: "clock", Summary: "The time.", Tools: []string{"now"}},
	}
}

func TestSelect(t *testing.T) {
	every := []string{"add_note", "list_notes", "now", "wipe"}
	cases := []struct {
		name     string
		names    []string
		readOnly bool
		want     []string
		err      string // a part of the sentence, when it fails
	}{
		{name: "nothing is everything", want: every},
		{name: "empty names", names: []string{"", " "}, want: every},
		{name: "all", names: []string{"all"}, want: every},
		{name: "all with more", names: []string{"now", "all"}, want: every},
		{name: "read-only", names: []string{"read-only"}, want: []string{"list_notes", "now"}},
		{name: "the read-only option", readOnly: true, want: []string{"list_notes", "now"}},
		{name: "read-only twice", names: []string{"read-only"}, readOnly: true, want: []string{"list_notes", "now"}},
		{name: "a group, in the registry's order", names: []string{"notes"}, want: []string{"add_note", "list_notes"}},
		{name: "a group and the read-only option", names: []string{"notes"}, readOnly: true, want: []string{"list_notes"}},
		{name: "groups and tools are a union", names: []string{"clock", "wipe", "notes"}, want: every},
		{name: "a group and read-only are a union", names: []string{"clock", "read-only"}, want: []string{"list_notes", "now"}},
		{name: "case and space", names: []string{" NOTES ", "Wipe"}, want: []string{"add_note", "list_notes", "wipe"}},
		{name: "a name twice", names: []string{"now", "now"}, want: []string{"now"}},
		{name: "all and the read-only option", names: []string{"all"}, readOnly: true, want: []string{"list_notes", "now"}},
		{name: "unknown", names: []string{"notes", "calendar"},
			err: "there is no tool or group “calendar”; write a group (all, notes, clock, read-only) or tool names (add_note, list_notes, now, wipe), separated by commas"},
		{name: "unknown, close to a group", names: []string{"readonly"},
			err: "there is no tool or group “readonly” (did you mean “read-only”?); write"},
		{name: "unknown, close to a tool", names: []string{"list_note"},
			err: "there is no tool or group “list_note” (did you mean “list_notes”?); write a group (all, notes, clock, read-only)"},
		{name: "a writing tool with the read-only option", names: []string{"now", "wipe"}, readOnly: true,
			err: "the tool “wipe” changes data, so it cannot be offered read-only; leave it out of the list or drop the read-only option"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, groups := selectRegistry()
			s, err := r.Select(c.names, c.readOnly, groups...)
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), c.err) {
					t.Fatalf("err = %v, want one starting %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Names(), c.want) {
				t.Errorf("tools %v, want %v", s.Names(), c.want)
			}
			if s.CallTimeout != r.CallTimeout {
				t.Errorf("CallTimeout %s, want the registry's %s", s.CallTimeout, r.CallTimeout)
			}
			// The subset calls its own tools and refuses the others.
			for _, name := range every {
				res, _ := s.Call(context.Background(), nil, name, nil)
				if want := slices.Contains(c.want, name); res.OK() != want {
					t.Errorf("calling %s on the subset: %+v, want it to run: %v", name, res, want)
				}
			}
		})
	}
}

// A registry whose only tools write has nothing left for the read-only
// option: one sentence says so instead of an empty list.
func TestSelectNothingLeft(t *testing.T) {
	r := NewRegistry()
	r.Add(Tool{Name: "wipe", Description: "A tool.", Handler: func(context.Context, *ToolContext, *args.Args) ExecResult { return Success("") }})
	if _, err := r.Select(nil, true); err == nil || !strings.Contains(err.Error(), "leave no tool") {
		t.Errorf("err = %v, want the sentence saying no tool is left", err)
	}
}

func TestSplitNames(t *testing.T) {
	for in, want := range map[string][]string{
		"":                           nil,
		"tasks":                      {"tasks"},
		" tasks, list_events,,undo ": {"tasks", "list_events", "undo"},
		",":                          nil,
	} {
		if got := SplitNames(in); !slices.Equal(got, want) {
			t.Errorf("SplitNames(%q) = %q, want %q", in, got, want)
		}
	}
}
