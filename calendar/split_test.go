package calendar

import "testing"

// Split gives a head that ends just before the cut and a tail with the
// rest: together the occurrences of the series, the rule's days kept.
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		name                string
		start, zone, rule   string
		ex, rd              []string
		at                  string
		headRule, tailRule  string
		head, tail          string
		headStart, tailFrom string // "" when DTSTART is the series' / at
	}{
		{name: "COUNT: the rest counts what remains", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=WEEKLY;COUNT=4", at: "2026-10-26T10:00",
			headRule: "FREQ=WEEKLY;UNTIL=20261026T095900Z", tailRule: "FREQ=WEEKLY;COUNT=1",
			head: "2026-10-05T10:00:00+00:00 2026-10-12T10:00:00+00:00 2026-10-19T10:00:00+00:00", tail: "2026-10-26T10:00:00+00:00"},
		{name: "UNTIL stays on the rest", start: "2026-10-05T10:00", zone: "Europe/Paris", rule: "FREQ=WEEKLY;UNTIL=20261026T090000Z", at: "2026-10-19T10:00",
			headRule: "FREQ=WEEKLY;UNTIL=20261019T075900Z", tailRule: "FREQ=WEEKLY;UNTIL=20261026T090000Z",
			head: "2026-10-05T10:00:00+02:00 2026-10-12T10:00:00+02:00", tail: "2026-10-19T10:00:00+02:00 2026-10-26T10:00:00+01:00"},
		{name: "from an RDATE the rule keeps its days", start: "2026-07-17T14:00", zone: "UTC", rule: "FREQ=MONTHLY;COUNT=5",
			rd: []string{"2026-09-01T14:00"}, at: "2026-09-01T14:00",
			headRule: "FREQ=MONTHLY;UNTIL=20260901T135900Z", tailRule: "FREQ=MONTHLY;COUNT=3",
			head:     "2026-07-17T14:00:00+00:00 2026-08-17T14:00:00+00:00",
			tail:     "2026-09-01T14:00:00+00:00 2026-09-17T14:00:00+00:00 2026-10-17T14:00:00+00:00 2026-11-17T14:00:00+00:00",
			tailFrom: "2026-09-17T14:00"},
		{name: "from an RDATE past the rule's end", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=WEEKLY;COUNT=2",
			rd: []string{"2026-11-30T10:00", "2026-12-07T10:00"}, at: "2026-11-30T10:00",
			headRule: "FREQ=WEEKLY;COUNT=2", tailRule: "",
			head: "2026-10-05T10:00:00+00:00 2026-10-12T10:00:00+00:00", tail: "2026-11-30T10:00:00+00:00 2026-12-07T10:00:00+00:00"},
		{name: "EXDATEs go to their part", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=DAILY;COUNT=6",
			ex: []string{"2026-10-06T10:00", "2026-10-09T10:00"}, at: "2026-10-08T10:00",
			headRule: "FREQ=DAILY;UNTIL=20261008T095900Z", tailRule: "FREQ=DAILY;COUNT=3",
			head: "2026-10-05T10:00:00+00:00 2026-10-07T10:00:00+00:00", tail: "2026-10-08T10:00:00+00:00 2026-10-10T10:00:00+00:00"},
		{name: "a cut in a DST gap", start: "2027-03-21T01:00", zone: "Europe/London", rule: "FREQ=WEEKLY;COUNT=3", at: "2027-03-28T01:00",
			headRule: "FREQ=WEEKLY;UNTIL=20270328T005900Z", tailRule: "FREQ=WEEKLY;COUNT=2",
			head: "2027-03-21T01:00:00+00:00", tail: "2027-03-28T02:00:00+01:00 2027-04-04T01:00:00+01:00"},
		{name: "all-day", start: "2026-10-05", zone: "UTC", rule: "FREQ=WEEKLY;COUNT=3", at: "2026-10-12",
			headRule: "FREQ=WEEKLY;UNTIL=20261011", tailRule: "FREQ=WEEKLY;COUNT=2",
			head: "2026-10-05", tail: "2026-10-12 2026-10-19"},
		{name: "at DTSTART with an RDATE before it", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=DAILY;COUNT=2",
			rd: []string{"2026-10-01T09:00"}, at: "2026-10-05T10:00",
			headRule: "", tailRule: "FREQ=DAILY;COUNT=2",
			head: "2026-10-01T09:00:00+00:00", tail: "2026-10-05T10:00:00+00:00 2026-10-06T10:00:00+00:00", headStart: "2026-10-01T09:00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := series(t, c.start, c.zone, c.rule, c.ex, c.rd)
			head, tail, ok, err := Split(s, occ(t, s, c.at))
			if err != nil || !ok {
				t.Fatalf("split: ok %v, %v", ok, err)
			}
			if got := ruleText(head.Rule); got != c.headRule {
				t.Errorf("head rule %q, want %q", got, c.headRule)
			}
			if got := ruleText(tail.Rule); got != c.tailRule {
				t.Errorf("tail rule %q, want %q", got, c.tailRule)
			}
			if got := starts(head); got != c.head {
				t.Errorf("head\n got %s\nwant %s", got, c.head)
			}
			if got := starts(tail); got != c.tail {
				t.Errorf("tail\n got %s\nwant %s", got, c.tail)
			}
			wantHead, wantTail := c.start, c.at
			if c.headStart != "" {
				wantHead = c.headStart
			}
			if c.tailFrom != "" {
				wantTail = c.tailFrom
			}
			if head.Start != moment(t, wantHead) || tail.Start != moment(t, wantTail) {
				t.Errorf("DTSTART head %s tail %s, want %s and %s", head.Start, tail.Start, wantHead, wantTail)
			}
		})
	}
}

// Split at the first occurrence splits nothing.
func TestSplitAtFirst(t *testing.T) {
	s := series(t, "2026-10-05T10:00", "UTC", "FREQ=DAILY;COUNT=3", nil, nil)
	if _, _, ok, err := Split(s, occ(t, s, "2026-10-05T10:00")); ok || err != nil {
		t.Errorf("split at DTSTART: ok %v, %v; want not ok", ok, err)
	}
}
