package events

import (
	"strings"
	"testing"
)

// On the autumn DST change an event from 02:30 (+02:00) to 02:30 (+01:00)
// lasts an hour; the answers give each end its offset, in the person's
// zone and in the event's own.
func TestFallBackTimesShowOffsets(t *testing.T) {
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
}
