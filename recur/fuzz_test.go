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

// FuzzNextOccurrence feeds random rules (refused at write time or not, as
// an older database may hold them) and starts to the search for the next
// occurrence and to window expansion, and checks that each ends within a
// bound of iterations, counted by the search itself (never wall time):
// After within MaxSearchWork plus the cached expansions it may start
// (a COUNT list, a month of times), a two-day window within those alone.
func FuzzNextOccurrence(f *testing.F) {
	for _, s := range []string{
		"FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2", "FREQ=YEARLY;INTERVAL=1000;COUNT=20", "FREQ=YEARLY;BYWEEKNO=1;BYMONTH=6",
		"FREQ=HOURLY;BYYEARDAY=366;BYMONTH=2", "FREQ=MINUTELY;INTERVAL=7;BYMONTH=2;BYMONTHDAY=29;BYHOUR=0;BYMINUTE=3",
		"FREQ=WEEKLY;UNTIL=20260924T115359Z", "FREQ=DAILY;BYMONTH=2;BYDAY=MO;BYMONTHDAY=29", "FREQ=YEARLY;BYWEEKNO=53;BYDAY=SU;COUNT=500",
	} {
		f.Add(s, uint16(2026), uint8(10), uint8(6), uint8(9), uint8(0), uint16(0))
	}
	zones := []tz.Zone{tz.UTC, tz.MustZone("Europe/Paris"), tz.MustZone("America/New_York"), tz.MustZone("Australia/Lord_Howe")}
	f.Fuzz(func(t *testing.T, text string, y uint16, mo, d, h, mi uint8, later uint16) {
		r, err := parseRule(text)
		if err != nil {
			return
		}
		year := 1 + int(y)%9999
		month := time.Month(1 + int(mo)%12)
		date := tz.Date{Year: year, Month: month, Day: 1 + int(d)%28}
		start := tz.TimeMoment(date.At(int(h)%24, int(mi)%60))
		if r.freq <= Daily && h >= 128 {
			start = tz.DayMoment(date)
		}
		s := Series{Start: start, Zone: zones[int(mi)%len(zones)], Rule: r, Duration: time.Hour}
		if s.Check() != nil {
			return
		}
		// Cached expansions (a COUNT list, a sub-daily scan) are bounded
		// on their own by maxSteps; a month of civil times by its days.
		const cached = 2*maxSteps + 100_000
		from := s.place(civilOf(start)).Start.AddDate(int(later)%50, 0, 0)
		w := &work{limit: MaxSearchWork}
		s.work = w
		s.After(from)
		if w.n > MaxSearchWork+cached {
			t.Fatalf("After(%s) of %q from %s spent %d iterations, more than %d", from, text, start, w.n, MaxSearchWork+cached)
		}
		w = &work{}
		s.work = w
		s.Between(from, from.Add(48*time.Hour))
		if w.n > cached {
			t.Fatalf("a two-day window of %q from %s spent %d iterations, more than %d", text, start, w.n, cached)
		}
	})
}
