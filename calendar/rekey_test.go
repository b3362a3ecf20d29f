package calendar

import (
	"testing"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// Rekey maps a changed occurrence's key through the move of its series by
// the rule its occurrence follows, a DST gap included.
func TestRekey(t *testing.T) {
	for _, c := range []struct {
		name              string
		start, zone, rule string
		from, to, into    string
		newRule           string // "" keeps the moved rule
		key, want         string // want "" : no occurrence any more
	}{
		{name: "plain", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=DAILY;COUNT=3",
			from: "2026-10-05T10:00", to: "2026-10-05T12:00", key: "20261006T100000Z", want: "20261006T120000Z"},
		{name: "original time in a DST gap", start: "2027-03-21T01:00", zone: "Europe/London", rule: "FREQ=WEEKLY;COUNT=3",
			from: "2027-03-21T01:00", to: "2027-03-21T09:00", key: "20270328T010000Z", want: "20270328T080000Z"},
		{name: "moved past the old UNTIL", start: "2026-10-05T10:00", zone: "Europe/Paris", rule: "FREQ=WEEKLY;UNTIL=20261019T080000Z",
			from: "2026-10-05T10:00", to: "2026-10-05T12:00", key: "20261019T080000Z", want: "20261019T100000Z"},
		{name: "zone change", start: "2026-10-05T10:00", zone: "Europe/Paris", rule: "FREQ=WEEKLY;COUNT=3",
			from: "2026-10-05T10:00", to: "2026-10-05T10:00", into: "America/New_York", key: "20261012T080000Z", want: "20261012T140000Z"},
		{name: "a day move", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=WEEKLY;BYDAY=MO;COUNT=3",
			from: "2026-10-05T10:00", to: "2026-10-06T10:00", key: "20261012T100000Z", want: "20261013T100000Z"},
		{name: "all-day", start: "2026-10-05", zone: "UTC", rule: "FREQ=DAILY;COUNT=3",
			from: "2026-10-05", to: "2026-10-07", key: "20261006", want: "20261008"},
		{name: "a new rule without it", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=DAILY;COUNT=3",
			from: "2026-10-05T10:00", to: "2026-10-05T10:00", newRule: "FREQ=DAILY;COUNT=1", key: "20261006T100000Z"},
		{name: "not an occurrence before", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=DAILY;COUNT=3",
			from: "2026-10-05T10:00", to: "2026-10-05T11:00", key: "20261009T100000Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := series(t, c.start, c.zone, c.rule, nil, nil)
			zone := s.Zone
			if c.into != "" {
				zone = tz.MustZone(c.into)
			}
			n, shift, err := Shift(s, moment(t, c.from), moment(t, c.to), zone)
			if err != nil {
				t.Fatal(err)
			}
			if c.newRule != "" {
				n.Rule = recur.MustRule(c.newRule)
			}
			got := Rekey(s, n, shift, []string{c.key})
			o, ok := got[c.key]
			switch {
			case c.want == "" && ok:
				t.Errorf("%s is now %s, want no occurrence", c.key, o.Key())
			case c.want != "" && (!ok || o.Key() != c.want):
				t.Errorf("%s is now %q (found %v), want %s", c.key, o.Key(), ok, c.want)
			}
		})
	}
}
