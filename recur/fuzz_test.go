package recur

import (
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// FuzzParseRule: no input panics; an accepted rule's canonical text parses
// back to the same text; expanding it a little never panics or hangs.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10", "rrule:freq=daily;", "FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20261231T235900Z",
		"FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2",
		"FREQ=HOURLY;INTERVAL=3;BYMINUTE=0,30", "FREQ=DAILY;UNTIL=20261231\r\n", "FREQ=YEARLY;BYYEARDAY=-366",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRule(s)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		again, err := parseRule(r.String())
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", r.String(), s, err)
		}
		if again.String() != r.String() {
			t.Fatalf("canonical %q re-parses as %q", r.String(), again.String())
		}
		_ = r.Describe()
		start := tz.TimeMoment(tz.DateTime{Date: tz.Date{Year: 2026, Month: 3, Day: 29}, Hour: 2, Minute: 30})
		series := Series{Start: start, Zone: tz.MustZone("Europe/Paris"), Rule: r}
		from := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
		series.Between(from, from.Add(48*time.Hour))
		series.All(3)
	})
}
