package tasks

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A title is stored without the invisible characters a model or a paste
// left in it, and a search finds a title stored with them before that
// rule.
func TestInvisibleCharactersInTitles(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		id := h.add(t, p, `{"title":"Daily\u200b standup\ufeff","notes":"\ufeffAgenda"}`)
		if got := h.task(t, p, id); got.Title != "Daily standup" || got.Notes != "Agenda" {
			t.Errorf("stored %+q with notes %+q, want the invisible characters gone", got.Title, got.Notes)
		}
		h.add(t, p, `{"title":"Pair on 👩‍💻 review"}`)
		if out := h.ok(t, p, "list_tasks", `{"query":"👩‍💻"}`); !strings.Contains(out, "Pair on 👩\u200d💻 review") {
			t.Errorf("the ZWJ emoji sequence was not kept:\n%s", out)
		}
		// a row written before the rule, as it was stored then (and before
		// migration 00012, which the store's list columns came with)
		old := h.add(t, p, `{"title":"placeholder"}`)
		if _, err := h.Store.DB().Exec(`UPDATE tasks SET title = ?, search_fold = NULL WHERE id = ?`, "Team\u200b sync", strings.TrimPrefix(old, "t")); err != nil {
			t.Fatal(err)
		}
		if out := h.ok(t, p, "list_tasks", `{"query":"Team sync"}`); !strings.Contains(out, old) {
			t.Errorf("list_tasks query “Team sync” misses the old “Team\\u200b sync”:\n%s", out)
		}
		if out := h.ok(t, p, "list_tasks", `{"query":"Daily standup"}`); !strings.Contains(out, id) {
			t.Errorf("list_tasks query misses the cleaned title:\n%s", out)
		}
	})
}

// A tag is read as a one-line text: the invisible characters a model or a
// paste left in it are dropped, in tags, add_tags, remove_tags and the tag
// filter alike, and a "#" behind one is still the tag's leading "#".
func TestInvisibleCharactersInTags(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		h := newHarness(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
		p := h.paris
		for _, inv := range []string{`\u200b`, `\ufeff`, `\u00ad`, `\u2060`} {
			id := h.add(t, p, `{"title":"a","tags":["`+inv+`home","`+inv+`#work"]}`)
			if got := h.task(t, p, id).Tags; strings.Join(got, ",") != "home,work" {
				t.Errorf("tags with %s stored as %+q, want home and work", inv, got)
			}
			if out := h.ok(t, p, "list_tasks", `{"tag":"home"}`); !strings.Contains(out, id) {
				t.Errorf("list_tasks tag=home misses %s:\n%s", id, out)
			}
			if out := h.ok(t, p, "list_tasks", `{"tag":"`+inv+`#home"}`); !strings.Contains(out, id) {
				t.Errorf("list_tasks tag=%s#home misses %s:\n%s", inv, id, out)
			}
			h.ok(t, p, "update_task", `{"id":"`+id+`","add_tags":"`+inv+`errands","remove_tags":"`+inv+`work"}`)
			if got := h.task(t, p, id).Tags; strings.Join(got, ",") != "home,errands" {
				t.Errorf("after add_tags and remove_tags with %s: %+q, want home and errands", inv, got)
			}
		}
		// a tag stored before the rule, as it was stored then (and before
		// migration 00012)
		old := h.add(t, p, `{"title":"old"}`)
		if _, err := h.Store.DB().Exec(`UPDATE tasks SET tags = ?, search_fold = NULL WHERE id = ?`, `["\u200bgarden"]`, strings.TrimPrefix(old, "t")); err != nil {
			t.Fatal(err)
		}
		if out := h.ok(t, p, "list_tasks", `{"tag":"garden"}`); !strings.Contains(out, old) {
			t.Errorf("list_tasks tag=garden misses the old “\\u200bgarden”:\n%s", out)
		}
	})
}
