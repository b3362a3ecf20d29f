package calendar

import (
	"testing"

	"github.com/assistant-dev/assistant/tz"
)

// ChangeZone keeps every occurrence's wall time in the new zone, UNTIL
// included.
func TestChangeZone(t *testing.T) {
	for _, c := range []struct {
		name, start, zone, rule, into string
		rd                            []string
		rrule, want                   string
	}{
		{name: "east to west, UTC UNTIL", start: "2026-10-05T10:00", zone: "Europe/Paris", rule: "FREQ=WEEKLY;UNTIL=20261019T080000Z", into: "America/New_York",
			rrule: "FREQ=WEEKLY;UNTIL=20261019T140000Z", want: "2026-10-05T10:00:00-04:00 2026-10-12T10:00:00-04:00 2026-10-19T10:00:00-04:00"},
		{name: "west to east", start: "2026-10-05T10:00", zone: "America/New_York", rule: "FREQ=DAILY;UNTIL=20261006T140000Z", into: "Asia/Tokyo",
			rrule: "FREQ=DAILY;UNTIL=20261006T010000Z", want: "2026-10-05T10:00:00+09:00 2026-10-06T10:00:00+09:00"},
		{name: "local UNTIL is read in the new zone", start: "2026-10-05T10:00", zone: "Europe/Paris", rule: "FREQ=DAILY;UNTIL=20261006T100000", into: "UTC",
			rrule: "FREQ=DAILY;UNTIL=20261006T100000", want: "2026-10-05T10:00:00+00:00 2026-10-06T10:00:00+00:00"},
		{name: "UNTIL on the far side of a DST change", start: "2026-10-19T10:00", zone: "Europe/Paris", rule: "FREQ=WEEKLY;UNTIL=20261102T090000Z", into: "Europe/London",
			rrule: "FREQ=WEEKLY;UNTIL=20261102T100000Z", want: "2026-10-19T10:00:00+01:00 2026-10-26T10:00:00+00:00 2026-11-02T10:00:00+00:00"},
		{name: "RDATEs keep their wall time", start: "2026-10-05T10:00", zone: "Europe/Paris", into: "UTC", rd: []string{"2026-10-07T08:00"},
			want: "2026-10-05T10:00:00+00:00 2026-10-07T08:00:00+00:00"},
		{name: "all-day is as it was", start: "2026-10-05", zone: "UTC", rule: "FREQ=DAILY;UNTIL=20261006", into: "Asia/Tokyo",
			rrule: "FREQ=DAILY;UNTIL=20261006", want: "2026-10-05 2026-10-06"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := series(t, c.start, c.zone, c.rule, nil, c.rd)
			n, err := ChangeZone(s, tz.MustZone(c.into))
			if err != nil {
				t.Fatal(err)
			}
			if got := ruleText(n.Rule); got != c.rrule {
				t.Errorf("rule %s, want %s", got, c.rrule)
			}
			if got := starts(n); got != c.want {
				t.Errorf("occurrences\n got %s\nwant %s", got, c.want)
			}
		})
	}
}
