package events

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
)

// TestSnapshotNeverStale writes through a second handle on the same file
// (as another process would), through undo and through raw SQL, all within
// the same second of the fixed clock (so updated_at cannot tell the writes
// apart), and checks after each write that a listing from the cached
// snapshot is the listing read afresh, with the write visible.
func TestSnapshotNeverStale(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		s2, err := store.Open(e.Ctx, e.Path, &store.Options{Now: func() time.Time { return e.Now }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s2.Close() })
		via := func(s *store.Store, name, raw string) tools.ExecResult {
			t.Helper()
			tc := e.Context(e.alice)
			tools.Insert(tc, s)
			res, _ := e.Reg.Call(e.Ctx, tc, name, []byte(raw))
			if res.Code != tools.CodeOK {
				t.Fatalf("%s %s: %s", name, raw, res.TextOut())
			}
			return res
		}
		const week = `{"from":"2026-10-05","to":"2026-10-11"}`
		steps := []struct {
			name       string
			write      func()
			want, gone string
		}{
			{"add here", func() {
				via(e.Store, "add_event", `{"title":"Standup","start":"2026-10-05T09:30","rrule":"FREQ=WEEKLY;BYDAY=MO,TH"}`)
			},
				"e1@20261005T073000Z  Mon 2026-10-05 09:30–10:30 (+02:00)  Standup", ""},
			{"shift by another process", func() { via(s2, "update_event", `{"id":"e1","start":"2026-10-05T11:00"}`) },
				"e1@20261005T090000Z  Mon 2026-10-05 11:00–12:00", "09:30"},
			{"cancel one by another process", func() { via(s2, "delete_event", `{"id":"e1@20261008T090000Z"}`) },
				"e1@20261005T090000Z", "e1@20261008T090000Z"},
			{"undo by another process", func() { via(s2, "undo", `{}`) },
				"e1@20261008T090000Z  Thu 2026-10-08 11:00–12:00", ""},
			{"raw SQL by another process", func() {
				if _, err := s2.DB().Exec(`UPDATE events SET rrule = 'FREQ=DAILY' WHERE id = 1`); err != nil {
					t.Fatal(err)
				}
			}, "e1@20261010T090000Z  Sat 2026-10-10 11:00–12:00", ""},
			{"add here again", func() {
				via(e.Store, "add_event", `{"title":"Lunch","start":"2026-10-06T12:30","rrule":"FREQ=DAILY;COUNT=3"}`)
			},
				"e2@20261008T103000Z  Thu 2026-10-08 12:30–13:30 (+02:00)  Lunch", "e2@20261009"},
			{"delete by another process", func() { via(s2, "delete_event", `{"id":"e1"}`) },
				"e2@20261006T103000Z", "e1@"},
		}
		for _, st := range steps {
			st.write()
			cached := via(e.Store, "list_events", week).Out
			snapshots.Clear()
			fresh := via(e.Store, "list_events", week).Out
			if cached != fresh {
				t.Fatalf("%s: the cached listing differs from a fresh one:\n%s\n---\n%s", st.name, cached, fresh)
			}
			if !strings.Contains(cached, st.want) || st.gone != "" && strings.Contains(cached, st.gone) {
				t.Fatalf("%s: want %q and not %q in:\n%s", st.name, st.want, st.gone, cached)
			}
		}
	})
}

// TestAddCarriesSnapshot checks that an add_event moves the cached
// snapshot to the new generation instead of dropping it, with the new
// series in it.
func TestAddCarriesSnapshot(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		e.ok(e.alice, "add_event", `{"title":"Dentist","start":"2026-10-07T10:00"}`)
		e.ok(e.alice, "list_events", `{}`)
		v, _ := snapshots.Load(e.alice.ID)
		before := v.(*snapshot)
		e.ok(e.alice, "add_event", `{"title":"Gym","start":"2026-10-06T18:00","rrule":"FREQ=WEEKLY"}`)
		var gen int64
		if err := e.Store.DB().QueryRow(`SELECT gen FROM event_generations WHERE person_id = ?`, e.alice.ID).Scan(&gen); err != nil {
			t.Fatal(err)
		}
		v, _ = snapshots.Load(e.alice.ID)
		s := v.(*snapshot)
		if s.gen != gen || s.from != before.from || len(s.rows) != 2 || s.rows[1].e.ID != 2 || s.rows[1].e.Title != "" {
			t.Fatalf("snapshot at %d (database %d) with %d rows", s.gen, gen, len(s.rows))
		}
		if len(before.rows) != 1 {
			t.Fatalf("the snapshot before the add changed: %d rows", len(before.rows))
		}
		if out := e.ok(e.alice, "list_events", `{}`).Out; !strings.Contains(out, "e2@20261006T160000Z  Tue 2026-10-06 18:00–19:00 (+02:00)  Gym") {
			t.Fatalf("listing: %s", out)
		}
	})
}
