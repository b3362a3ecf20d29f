package store

import (
	"strconv"
	"testing"
)

func TestDescribe(t *testing.T) {
	task := func(id int64, act string) ChangeRow {
		return ChangeRow{Table: "tasks", ID: id, Label: "t" + strconv.FormatInt(id, 10), Action: act}
	}
	done := func(id int64, act, parent string) ChangeRow {
		return ChangeRow{Table: "task_completions", ID: id, Label: "tc" + strconv.FormatInt(id, 10), Action: act, Parent: parent}
	}
	occ := func(id int64, act, parent string) ChangeRow {
		return ChangeRow{Table: "event_overrides", ID: id, Label: "eo" + strconv.FormatInt(id, 10), Action: act, Parent: parent}
	}
	cases := []struct {
		name string
		rows []ChangeRow
		max  int
		want string
	}{
		{"one item", []ChangeRow{task(12, "added")}, 0, "added t12"},
		{"undo of a completion", []ChangeRow{done(1, "deleted", "t1"), task(1, "changed")}, 0, "changed t1 (1 completion removed)"},
		{"completion of a repeating task", []ChangeRow{task(3, "changed"), done(4, "added", "t3")}, 0, "changed t3 (1 completion added)"},
		{"parts only", []ChangeRow{occ(2, "added", "e5"), occ(3, "added", "e5")}, 0, "changed e5 (2 changed occurrences added)"},
		{"deleted with its parts", []ChangeRow{{Table: "events", ID: 5, Label: "e5", Action: "deleted"}, occ(2, "deleted", "e5")}, 0,
			"deleted e5 (1 changed occurrence removed)"},
		{"part of an unknown item", []ChangeRow{done(9, "restored", "")}, 0, "1 completion brought back"},
		{"a table with no words", []ChangeRow{{Table: "notes", ID: 1, Label: "n1", Action: "changed"}}, 0, "changed n1"},
		{"capped", []ChangeRow{task(1, "added"), task(2, "added"), task(3, "added")}, 2, "added t1, added t2, and 1 more"},
	}
	for _, c := range cases {
		if got := Describe(c.rows, c.max); got != c.want {
			t.Errorf("%s: Describe = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestNounsAndParents(t *testing.T) {
	for _, c := range []struct {
		table string
		n     int
		want  string
	}{
		{"tasks", 1, "1 task"}, {"tasks", 0, "0 tasks"}, {"task_completions", 2, "2 completions"},
		{"event_overrides", 1, "1 changed occurrence"}, {"notes", 3, "3 notes rows"},
	} {
		if got := Count(c.table, c.n); got != c.want {
			t.Errorf("Count(%q, %d) = %q, want %q", c.table, c.n, got, c.want)
		}
	}
	if got, want := parentLabel("task_completions", nil, []byte(`{"id":4,"task_id":12}`)), label("tasks", 12); got != want {
		t.Errorf("parentLabel of a completion = %q, want %q", got, want)
	}
	if got, want := parentLabel("event_overrides", []byte(`{"id":4,"event_id":7}`), nil), label("events", 7); got != want {
		t.Errorf("parentLabel of a removed override = %q, want %q", got, want)
	}
	if got := parentLabel("notes", nil, []byte(`{"id":1}`)); got != "" {
		t.Errorf("parentLabel of an item's own row = %q, want none", got)
	}
}
