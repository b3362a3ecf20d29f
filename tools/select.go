package tools

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The names [Registry.Select] knows in every registry, besides the groups
// it is given and the tools' own names.
const (
	// AllTools names every tool of the registry; it is what an empty
	// selection means.
	AllTools = "all"
	// ReadOnlyTools names every tool whose Tool.ReadOnly is set: the tools
	// that change nothing.
	ReadOnlyTools = "read-only"
)

// Group is a named set of tools a front can be limited to, such as
// "tasks" (docs/tools.md, "Tool groups").
type Group struct {
	// Name is what a person writes to choose the group: lower case, no
	// comma, never a tool's name, "all" or "read-only".
	Name string
	// Summary says in a few words what the group is for, for the docs.
	Summary string
	// Tools are the names of the tools the group holds; the registry's
	// order, not this one, is the order they are offered in.
	Tools []string
}

// SplitNames splits a comma-separated list of tool and group names
// ("tasks, list_events,undo") into its names, trimmed, with empty ones
// left out: how a flag, an environment variable or a config value is
// read before [Registry.Select].
func SplitNames(s string) []string {
	var out []string
	for n := range strings.SplitSeq(s, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Select returns a new Registry with the tools names chooses, in r's
// order, for a front that offers fewer tools than r holds (a chat on a
// model with a small context, an MCP client that may only read).
//
// Each name is "all" (AllTools), "read-only" (ReadOnlyTools), the Name
// of one of groups, or a tool's name; the tools chosen are the union of
// what the names give (so "tasks,list_events" is the group tasks and
// list_events). Names are read without regard to case or surrounding
// space; no name at all means every tool. readOnly then keeps only the
// tools that change nothing: an intersection, so "tasks" with readOnly
// gives the reading tools of tasks.
//
// The error is one sentence: a name that is none of these, naming the
// groups and the tools to write instead (and the nearest name when one
// is close); a writing tool named on its own together with readOnly;
// or a choice that leaves no tool.
func (r *Registry) Select(names []string, readOnly bool, groups ...Group) (*Registry, error) {
	keep := map[string]bool{}
	all := false
	for _, raw := range names {
		n := strings.ToLower(strings.TrimSpace(raw))
		switch {
		case n == "":
			continue
		case n == AllTools:
			all = true
			continue
		case n == ReadOnlyTools:
			for _, t := range r.tools {
				if t.ReadOnly {
					keep[t.Name] = true
				}
			}
			continue
		}
		if i := slices.IndexFunc(groups, func(g Group) bool { return g.Name == n }); i >= 0 {
			for _, name := range groups[i].Tools {
				keep[name] = true
			}
			continue
		}
		t, ok := r.Get(n)
		if !ok {
			return nil, r.unknownChoice(raw, groups)
		}
		if readOnly && !t.ReadOnly {
			return nil, fmt.Errorf("the tool “%s” changes data, so it cannot be offered read-only; leave it out of the list or drop the read-only option", t.Name)
		}
		keep[t.Name] = true
	}
	if len(keep) == 0 {
		all = true
	}
	s := r.Subset(func(t Tool) bool {
		return (all || keep[t.Name]) && (!readOnly || t.ReadOnly)
	})
	if len(s.tools) == 0 {
		return nil, errors.New("the tools chosen leave no tool to offer; add a group such as " + AllTools + ", or drop the read-only option")
	}
	return s, nil
}

// unknownChoice is the sentence of a name Select does not know: what it
// may be instead, the groups first, then the tools, with the nearest name (a
// group's or a tool's) when one is within two edits.
func (r *Registry) unknownChoice(name string, groups []Group) error {
	choices := []string{AllTools}
	for _, g := range groups {
		choices = append(choices, g.Name)
	}
	choices = append(choices, ReadOnlyTools)
	hint := ""
	if best := closest(strings.ToLower(strings.TrimSpace(name)), append(slices.Clone(choices), r.Names()...)); best != "" {
		hint = fmt.Sprintf(" (did you mean “%s”?)", best)
	}
	return fmt.Errorf("there is no tool or group “%s”%s; write a group (%s) or tool names (%s), separated by commas",
		strings.TrimSpace(name), hint, strings.Join(choices, ", "), strings.Join(r.Names(), ", "))
}
