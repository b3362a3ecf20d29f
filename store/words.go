package store

import (
	"encoding/json"
	"strconv"
	"strings"
)

// What people call the rows of each journaled table, so that purge, undo
// and list_changes speak of "2 completions" and "t12", never of
// task_completions or tc5. A part is a row that belongs to an item of
// another table (a completion of a task, a changed occurrence of an
// event): sentences name the item it belongs to, never the part's own id.
var (
	nouns = map[string][2]string{ // table → singular, plural
		"tasks":            {"task", "tasks"},
		"events":           {"event", "events"},
		"task_completions": {"completion", "completions"},
		"event_overrides":  {"changed occurrence", "changed occurrences"},
		"people":           {"person", "people"},
		"reminder_snoozes": {"snooze", "snoozes"},
	}
	parts = map[string]part{
		"task_completions": {column: "task_id", parent: "tasks"},
		"event_overrides":  {column: "event_id", parent: "events"},
	}
)

type part struct {
	column string // the part's column holding its item's id
	parent string // the item's table
}

// Noun is what n rows of table are called in a sentence, without the
// number: Noun("task_completions", 2) = "completions". A table with no
// word of its own is "notes rows" (its name, underscores as spaces).
func Noun(table string, n int) string {
	w, ok := nouns[table]
	if !ok {
		w = [2]string{strings.ReplaceAll(table, "_", " ") + " row", strings.ReplaceAll(table, "_", " ") + " rows"}
	}
	if n == 1 {
		return w[0]
	}
	return w[1]
}

// Count is n and its noun: Count("tasks", 1) = "1 task".
func Count(table string, n int) string {
	return strconv.Itoa(n) + " " + Noun(table, n)
}

// IsPart reports whether a row of table belongs to an item of another
// table (a completion of a task), so is spoken of through that item.
func IsPart(table string) bool {
	_, ok := parts[table]
	return ok
}

// parentLabel is the label of the item a part row belongs to ("t12"),
// read from the row's image (after, else before); "" for a table that is
// no part or an image without the column.
func parentLabel(table string, before, after []byte) string {
	p, ok := parts[table]
	if !ok {
		return ""
	}
	img := after
	if img == nil {
		img = before
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(img, &m) != nil {
		return ""
	}
	id, err := strconv.ParseInt(string(m[p.column]), 10, 64)
	if err != nil {
		return ""
	}
	return label(p.parent, id)
}

// partVerbs say what a change did to parts, after their count: "1
// completion removed" reads better than "deleted tc5".
var partVerbs = map[string]string{"added": "added", "changed": "changed", "deleted": "removed", "restored": "brought back"}

// Describe says what rows did in the tools' words, one item at a time in
// the order first touched, at most max items (then "and 3 more"; max <= 0
// means all): "added t12", "changed t3 (1 completion removed)", "deleted
// e5 (2 changed occurrences removed)". Parts are counted under the item
// they belong to and never named by their own ids.
func Describe(rows []ChangeRow, max int) string {
	type item struct {
		label, action string
		parts         []string // "1 completion removed", in first-seen order
		counts        map[[2]string]int
	}
	var items []*item
	byLabel := map[string]*item{}
	get := func(label string) *item {
		it, ok := byLabel[label]
		if !ok {
			it = &item{label: label, counts: map[[2]string]int{}}
			byLabel[label] = it
			items = append(items, it)
		}
		return it
	}
	for _, r := range rows {
		if !IsPart(r.Table) {
			get(r.Label).action = r.Action
			continue
		}
		it := get(r.Parent) // "" gathers parts whose item is unknown
		k := [2]string{r.Table, r.Action}
		if it.counts[k] == 0 {
			it.parts = append(it.parts, r.Table+"\x00"+r.Action)
		}
		it.counts[k]++
	}
	var out []string
	for i, it := range items {
		if max > 0 && i == max {
			out = append(out, "and "+strconv.Itoa(len(items)-max)+" more")
			break
		}
		var ps []string
		for _, p := range it.parts {
			table, act, _ := strings.Cut(p, "\x00")
			n := it.counts[[2]string{table, act}]
			verb, ok := partVerbs[act]
			if !ok {
				verb = act
			}
			ps = append(ps, Count(table, n)+" "+verb)
		}
		var s string
		switch {
		case it.label == "":
			s = strings.Join(ps, ", ")
		case it.action == "":
			s = "changed " + it.label + " (" + strings.Join(ps, ", ") + ")"
		case len(ps) > 0:
			s = it.action + " " + it.label + " (" + strings.Join(ps, ", ") + ")"
		default:
			s = it.action + " " + it.label
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}
