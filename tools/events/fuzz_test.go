package events

import (
	"context"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// FuzzStreamScans feeds rules to the lister's stream over the longest
// stretch one page looks at (listSpanDays) and checks that a page's worth
// of occurrences comes in a bounded number of rule scans, whatever the
// rule, and in order.
func FuzzStreamScans(f *testing.F) {
	for _, s := range []string{
		"FREQ=DAILY", "FREQ=MINUTELY", "FREQ=HOURLY;BYMINUTE=0,30", "FREQ=MINUTELY;BYMONTH=2",
		"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=300", "FREQ=MONTHLY;BYDAY=-1FR",
		"FREQ=YEARLY;INTERVAL=400", "FREQ=MINUTELY;INTERVAL=7;UNTIL=20270101T000000Z", "FREQ=HOURLY;BYHOUR=2;BYDAY=SU",
	} {
		f.Add(s)
	}
	paris := tz.MustZone("Europe/Paris")
	f.Fuzz(func(t *testing.T, text string) {
		rule, err := recur.ParseRule(text)
		if err != nil {
			return
		}
		e := &event{ID: 1, Zone: paris, Start: tz.TimeMoment(tz.Date{Year: 2026, Month: 10, Day: 5}.At(9, 0)), Rule: rule}
		if times(e, tz.Moment{}, false, time.Hour, 1) != nil || e.Series(paris).Check() != nil {
			return
		}
		w := tools.Window{From: e.StartAt, To: e.StartAt.AddDate(0, 0, listSpanDays)}
		st := newStream(e, e.StartAt, time.Time{}, nil, paris, w, nil, nil, true)
		var last time.Time
		for range listMax + 1 + listCount {
			o, ok, err := st.peek(context.Background())
			if err != nil || !ok {
				break
			}
			if o.Start.Before(last) {
				t.Fatalf("%s: %v after %v", text, o.Start, last)
			}
			last = o.Start
			st.pop()
		}
		// Steps double from firstStep up to mostStep, then cover the rest
		// of the stretch; each scan that finds many halves the step.
		if bound := 2*(listMax+1+listCount)/16 + 24 + listSpanDays*24*int(time.Hour)/int(mostStep); st.scans > bound {
			t.Errorf("%s: %d scans for one page, want at most %d", text, st.scans, bound)
		}
	})
}
