package calendar

import "testing"

// DeleteFollowing keeps what comes before the occurrence and never
// extends the rule.
func TestDeleteFollowing(t *testing.T) {
	for _, c := range []struct {
		name              string
		start, zone, rule string
		ex, rd            []string
		at                string
		rrule, want       string
	}{
		{name: "from an RDATE after the rule's COUNT", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=WEEKLY;COUNT=2",
			rd: []string{"2026-11-30T10:00", "2026-12-07T10:00"}, at: "2026-12-07T10:00",
			rrule: "FREQ=WEEKLY;COUNT=2", want: "2026-10-05T10:00:00+00:00 2026-10-12T10:00:00+00:00 2026-11-30T10:00:00+00:00"},
		{name: "from an RDATE after the rule's UNTIL", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=WEEKLY;UNTIL=20261012T100000Z",
			rd: []string{"2026-11-30T10:00"}, at: "2026-11-30T10:00",
			rrule: "FREQ=WEEKLY;UNTIL=20261012T100000Z", want: "2026-10-05T10:00:00+00:00 2026-10-12T10:00:00+00:00"},
		{name: "from an RDATE inside the rule", start: "2026-10-05T10:00", zone: "UTC", rule: "FREQ=WEEKLY;COUNT=4",
			rd: []string{"2026-10-14T10:00"}, at: "2026-10-14T10:00",
			rrule: "FREQ=WEEKLY;UNTIL=20261014T095900Z", want: "2026-10-05T10:00:00+00:00 2026-10-12T10:00:00+00:00"},
		{name: "open rule", start: "2026-10-05T10:00", zone: "Europe/Paris", rule: "FREQ=DAILY", ex: []string{"2026-10-09T10:00"}, at: "2026-10-07T10:00",
			rrule: "FREQ=DAILY;UNTIL=20261007T075900Z", want: "2026-10-05T10:00:00+02:00 2026-10-06T10:00:00+02:00"},
		{name: "all-day", start: "2026-10-05", zone: "UTC", rule: "FREQ=DAILY;COUNT=5", at: "2026-10-07",
			rrule: "FREQ=DAILY;UNTIL=20261006", want: "2026-10-05 2026-10-06"},
		{name: "RDATEs alone", start: "2026-10-05T10:00", zone: "UTC", rd: []string{"2026-10-08T10:00", "2026-10-09T10:00"}, at: "2026-10-08T10:00",
			want: "2026-10-05T10:00:00+00:00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := series(t, c.start, c.zone, c.rule, c.ex, c.rd)
			head, ok, err := DeleteFollowing(s, occ(t, s, c.at))
			if err != nil || !ok {
				t.Fatalf("ok %v, %v", ok, err)
			}
			if got := ruleText(head.Rule); got != c.rrule {
				t.Errorf("rule %q, want %q", got, c.rrule)
			}
			if got := starts(head); got != c.want {
				t.Errorf("occurrences\n got %s\nwant %s", got, c.want)
			}
			for _, x := range head.ExDates {
				if x.DateTime.Compare(moment(t, c.at).DateTime) >= 0 {
					t.Errorf("EXDATE %s after the cut kept", x)
				}
			}
		})
	}
}

// Deleting from the last occurrence a rule can give (31 December 9999)
// still ends the rule before it.
func TestDeleteFollowingAtTheLastYear(t *testing.T) {
	s := series(t, "2026-12-02T10:00", "Europe/Paris", "FREQ=DAILY;UNTIL=99991231T235959Z", nil, nil)
	at := occ(t, s, "9999-12-31T10:00")
	head, ok, err := DeleteFollowing(s, at)
	if err != nil || !ok {
		t.Fatalf("DeleteFollowing: ok %v, err %v", ok, err)
	}
	if _, still := Find(head, at.Original); still {
		t.Errorf("the head still has %s: RRULE:%s", at.Original, ruleText(head.Rule))
	}
}
