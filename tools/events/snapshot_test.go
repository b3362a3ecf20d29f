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

// TestSnapshotPatchedPerSeries checks that after a write, here or through
// another handle on the same file (as another process would), the next
// listing reads again only the series the journal names: the other rows
// of the snapshot are the very same parsed series, the order of the week
// is carried over, and the listing shows the write. A write the journal
// does not name (raw SQL) makes it read every series again.
func TestSnapshotPatchedPerSeries(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		s2, err := store.Open(e.Ctx, e.Path, &store.Options{Now: func() time.Time { return e.Now }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s2.Close() })
		via := func(s *store.Store, name, raw string) string {
			t.Helper()
			tc := e.Context(e.alice)
			tools.Insert(tc, s)
			res, _ := e.Reg.Call(e.Ctx, tc, name, []byte(raw))
			if res.Code != tools.CodeOK {
				t.Fatalf("%s %s: %s", name, raw, res.TextOut())
			}
			return res.Out
		}
		const week = `{"from":"2026-10-05","to":"2026-10-11"}`
		via(e.Store, "add_event", `{"title":"Dentist","start":"2026-10-07T10:00"}`)
		via(e.Store, "add_event", `{"title":"Yoga","start":"2026-10-05T07:00","rrule":"FREQ=DAILY"}`)
		via(e.Store, "list_events", week)
		current := func() *snapshot {
			v, _ := snapshots.Load(e.alice.ID)
			return v.(*snapshot)
		}
		before := current()
		for i, w := range []struct {
			s          *store.Store
			name, raw  string
			rows, same int
			want       string
		}{
			{e.Store, "add_event", `{"title":"Gym","start":"2026-10-06T18:00","rrule":"FREQ=WEEKLY"}`, 3, 2, "e3@20261006T160000Z  Tue 2026-10-06 18:00–19:00 (+02:00)  Gym"},
			{s2, "update_event", `{"id":"e2","start":"2026-10-05T06:30"}`, 3, 2, "e2@20261005T043000Z  Mon 2026-10-05 06:30–07:30 (+02:00)  Yoga"},
			{s2, "delete_event", `{"id":"e1"}`, 2, 2, "e3@"},
		} {
			via(w.s, w.name, w.raw)
			out := via(e.Store, "list_events", week)
			if !strings.Contains(out, w.want) {
				t.Fatalf("write %d: want %q in:\n%s", i, w.want, out)
			}
			s := current()
			if s == before || s.read != before.read || len(s.rows) != w.rows {
				t.Fatalf("write %d: snapshot read afresh or not patched: %d rows", i, len(s.rows))
			}
			same := 0
			for _, r := range s.rows {
				for _, o := range before.rows {
					if r == o {
						same++
					}
				}
			}
			if same != w.same {
				t.Fatalf("write %d: %d series kept as parsed, want %d", i, same, w.same)
			}
			if len(s.orders) != 1 {
				t.Fatalf("write %d: %d orders carried over", i, len(s.orders))
			}
			before = s
		}
		if _, err := s2.DB().Exec(`UPDATE events SET rrule = 'FREQ=WEEKLY' WHERE id = 2`); err != nil {
			t.Fatal(err)
		}
		if out := via(e.Store, "list_events", week); strings.Contains(out, "e2@20261006") {
			t.Fatalf("raw SQL write unseen:\n%s", out)
		}
		for _, r := range current().rows {
			for _, o := range before.rows {
				if r == o {
					t.Fatalf("after a write the journal does not name, series e%d was kept", r.e.ID)
				}
			}
		}
	})
}
