package remind

import (
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// A zone change is a journaled change like any other (set_time_zone, then
// undo): the index follows the stored zone each way, so an all-day
// reminder fires at midnight where the person is now, never at the
// midnight of a zone they left or that undo took back.
func TestZoneChangeAndItsUndo(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-10-05T12:00"))
		e.call(e.ada, "add_event", `{"title":"Conference","start":"2026-10-07","remind_before":[0]}`)
		eng := e.engine(Options{})
		e.pass(eng)

		e.call(e.ada, "set_time_zone", `{"time_zone":"Asia/Tokyo"}`)
		e.at("Asia/Tokyo", "2026-10-06T23:00")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 0 {
			t.Fatalf("fired before midnight in Tokyo: %+v", got)
		}
		e.at("Asia/Tokyo", "2026-10-07T00:30")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 1 || got[0].Occurrence.Start != "2026-10-07T00:00:00+09:00" {
			t.Fatalf("at midnight in Tokyo: %+v, want one reminder for Tokyo's midnight", got)
		}

		// Back to Paris by undo: the next day's reminder follows Paris again.
		e.call(e.ada, "add_event", `{"title":"Day two","start":"2026-10-08","remind_before":[0]}`)
		e.at("Asia/Tokyo", "2026-10-07T01:00")
		if _, err := e.s.Undo(e.ctx, e.ada.ID, "c2"); err != nil {
			t.Fatal(err)
		}
		if p, _ := e.s.PersonByID(e.ctx, e.ada.ID); p.Zone != "Europe/Paris" {
			t.Fatalf("zone after undo %q", p.Zone)
		}
		e.at("Asia/Tokyo", "2026-10-08T00:30")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 0 {
			t.Fatalf("fired at Tokyo's midnight after the zone change was undone: %+v", got)
		}
		e.at("Europe/Paris", "2026-10-08T00:30")
		e.pass(eng)
		if got := e.rec.take(); len(got) != 1 || got[0].Occurrence.Start != "2026-10-08T00:00:00+02:00" {
			t.Fatalf("at midnight in Paris: %+v, want one reminder for Paris's midnight", got)
		}
	})
}
