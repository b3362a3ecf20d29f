package events

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// On the autumn DST change an event from 02:30 (+02:00) to 02:30 (+01:00)
// lasts an hour; the answers give each end its offset, in the person's
// zone and in the event's own.
func TestFallBackTimesShowOffsets(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		cases := []struct {
			who  string
			raw  string
			want string
		}{
			{"alice", `{"title":"Fold","start":"2026-10-25T02:30[+02:00]","duration":60}`, "Sun 2026-10-25 02:30 (+02:00)–02:30 (+01:00)"},
			{"bob", `{"title":"Fold, seen from New York","start":"2026-10-25T02:30[+02:00]","time_zone":"Europe/Paris","duration":60}`, "(Europe/Paris: Sun 2026-10-25 02:30 (+02:00)–02:30 (+01:00))"},
			{"alice", `{"title":"Plain","start":"2026-10-26T09:00","duration":60}`, "Mon 2026-10-26 09:00–10:00 (+01:00)"},
			{"bob", `{"title":"Plain in Paris","start":"2026-10-26T15:00","time_zone":"Europe/Paris","duration":60}`, "(Europe/Paris: 15:00–16:00)"},
		}
		for _, c := range cases {
			who := e.alice
			if c.who == "bob" {
				who = e.bob
			}
			res, _ := e.call(who, "add_event", c.raw)
			if !res.OK() || !strings.Contains(res.Out, c.want) {
				t.Errorf("%s: want %q in:\n%s", c.raw, c.want, res.TextOut())
			}
		}
	})
}

// A start written with an offset or Z names one instant, kept even in the
// repeated hour of a fall-back change (the second 02:30 of Paris's
// 2026-10-25 is 01:30Z, the second 01:30 of New York's 2026-11-01 is
// 06:30Z); only a civil time without an offset takes the first of the two
// (RFC 5545 §3.3.5). The answer names the instant and the occurrence id;
// reading, listing and editing the event keep it.
func TestInstantInTheRepeatedHourIsKept(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t)
		cases := []struct {
			who          string
			start, shown string
			id           string
		}{
			{"alice", "2026-10-25T01:30Z", "Sun 2026-10-25 02:30–03:30 (+01:00)", "@20261025T013000Z"},
			{"alice", "2026-10-25T02:30+01:00", "Sun 2026-10-25 02:30–03:30 (+01:00)", "@20261025T013000Z"},
			{"alice", "2026-10-25T02:30", "Sun 2026-10-25 02:30 (+02:00)–02:30 (+01:00)", "@20261025T003000Z"},
			{"bob", "2026-11-01T06:30Z", "Sun 2026-11-01 01:30–02:30 (-05:00)", "@20261101T063000Z"},
			{"bob", "2026-11-01T01:30", "Sun 2026-11-01 01:30 (-04:00)–01:30 (-05:00)", "@20261101T053000Z"},
		}
		for i, c := range cases {
			who := e.alice
			if c.who == "bob" {
				who = e.bob
			}
			id := fmt.Sprintf("e%d", i+1)
			out := e.ok(who, "add_event", fmt.Sprintf(`{"title":"Night %d","start":%q}`, i, c.start)).Out
			if !strings.Contains(out, c.shown) || !strings.Contains(out, "its occurrence id is "+id+c.id) {
				t.Errorf("add_event start=%s: want %q and %s%s in:\n%s", c.start, c.shown, id, c.id, out)
			}
			e.ok(who, "update_event", fmt.Sprintf(`{"id":%q,"title":"Night %d, renamed"}`, id, i))
			if got := e.ok(who, "get_event", fmt.Sprintf(`{"id":%q}`, id)).Out; !strings.Contains(got, c.shown) {
				t.Errorf("get_event %s after a rename: want %q in:\n%s", id, c.shown, got)
			}
		}
		// The window's edges are instants too: from 01:35Z (the second 02:35)
		// leaves out e3, the first 02:30 (00:30Z–01:30Z), and keeps e1.
		got := e.ok(e.alice, "list_events", `{"from":"2026-10-25T01:35Z","to":"2026-10-25T02:00Z"}`).Out
		if !strings.Contains(got, "e1@20261025T013000Z") || strings.Contains(got, "e3@") {
			t.Errorf("list_events from the second 02:35: want e1@20261025T013000Z and not e3:\n%s", got)
		}
		// Moved to an instant in the repeated hour, a series keeps it for its
		// first occurrence; the later days read 02:40 as written.
		e.ok(e.alice, "add_event", `{"title":"Nightly","start":"2026-10-24T02:40","rrule":"FREQ=DAILY;COUNT=3"}`)
		out := e.ok(e.alice, "update_event", `{"id":"e6","start":"2026-10-25T01:40Z"}`).Out
		for _, want := range []string{"e6@20261025T014000Z Sun 2026-10-25 02:40–03:40 (+01:00)", "e6@20261026T014000Z", "e6@20261027T014000Z"} {
			if !strings.Contains(out, want) {
				t.Errorf("update_event start=2026-10-25T01:40Z: want %q in:\n%s", want, out)
			}
		}
		if strings.Contains(out, "T004000Z") {
			t.Errorf("update_event start=2026-10-25T01:40Z still has the first 02:40:\n%s", out)
		}
	})
}
