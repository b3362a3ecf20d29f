package tools

import (
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

func TestOffRule(t *testing.T) {
	paris := tz.MustZone("Europe/Paris")
	cases := []struct {
		start, rule string
		want        string // "" when start is on the rule
	}{
		{"2026-12-01T09:30", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "Note: Tue 2026-12-01 is not one of the rule's days, so it is an extra first occurrence (RFC 5545 keeps DTSTART); the rule's own days start Wed 2026-12-02. Set “start” to that if the extra one is not meant."},
		{"2026-11-30T09:30", "FREQ=WEEKLY;BYDAY=MO,WE,FR", ""},
		{"2026-10-30", "FREQ=MONTHLY;BYMONTHDAY=-1", "the rule's own days start Sat 2026-10-31"},
		{"2026-10-31", "FREQ=MONTHLY;BYMONTHDAY=-1", ""},
		{"2026-10-30", "FREQ=MONTHLY", ""},
		{"2026-12-01", "FREQ=WEEKLY", ""},
		{"2026-12-01T09:30", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=4", ""},
		{"2026-12-01T09:30", "FREQ=WEEKLY;BYDAY=MO;COUNT=1", "the rule gives no other occurrence"},
		{"2028-02-29", "FREQ=YEARLY", ""},
		{"2026-11-26", "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", ""},
		{"2026-11-27", "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", "the rule's own days start Thu 2027-11-25"},
		{"2026-12-01T08:30", "FREQ=HOURLY;BYHOUR=9,10", "Tue 2026-12-01 08:30 is not one of the rule's times"},
		{"2026-12-01T09:30", "FREQ=HOURLY;BYHOUR=9,10", ""},
		{"2026-03-29T02:30", "FREQ=DAILY", ""},
		// INTERVAL of a sub-daily rule counts elapsed time, across the
		// change of offset too.
		{"2026-03-29T03:00", "FREQ=HOURLY;INTERVAL=2", ""},
		{"2026-03-29T03:10", "FREQ=MINUTELY;INTERVAL=90", ""},
		// The calendar's first days: the library cannot expand from the
		// year 0 (it panicked, after add_task had stored the task) and
		// reads the year 1's first weeks wrong, so no note is made.
		{"0001-01-02", "FREQ=WEEKLY", ""},
		{"0001-01-02T10:00", "FREQ=WEEKLY", ""},
		{"0001-01-05", "FREQ=WEEKLY", ""},
		{"0001-03-05", "FREQ=YEARLY", ""},
		{"0001-01-02", "FREQ=DAILY", ""},
		{"0001-01-02", "FREQ=YEARLY;BYWEEKNO=1", ""},
		{"0002-01-08", "FREQ=WEEKLY;BYDAY=MO", "the rule's own days start Mon 0002-01-14"},
	}
	for _, c := range cases {
		m, err := tz.ParseMoment(c.start)
		if err != nil {
			t.Fatal(err)
		}
		got := OffRule("start", m, paris, recur.MustRule(c.rule))
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s %s: got %q, want %q", c.start, c.rule, got, c.want)
		}
	}
}
