package events

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// An event's title and place are stored without invisible characters, and
// a search finds an event stored with them before that rule.
func TestInvisibleCharactersInEvents(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		res := e.ok(e.alice, "add_event", `{"title":"Team\u200b sync","start":"2026-10-06T10:00","location":"Room\u2060 4"}`)
		if out := res.TextOut(); strings.Contains(out, "\u200b") || strings.Contains(out, "\u2060") || !strings.Contains(out, "Team sync") {
			t.Errorf("add_event kept invisible characters: %+q", out)
		}
		e.ok(e.alice, "add_event", `{"title":"placeholder","start":"2026-10-07T10:00"}`)
		if _, err := e.Store.DB().Exec(`UPDATE events SET title = ? WHERE title = 'placeholder'`, "Retro\u200b review"); err != nil {
			t.Fatal(err)
		}
		out := e.ok(e.alice, "list_events", `{"from":"2026-10-05","to":"2026-10-12","query":"retro review"}`).TextOut()
		if !strings.Contains(out, "Retro") {
			t.Errorf("list_events query “retro review” misses the old “Retro\\u200b review”:\n%s", out)
		}
	})
}
