package ics

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// A windowed export decides whether a series touches the window from the
// first occurrences it meets, not by expanding the whole window: a
// MINUTELY series over a year (525,600 occurrences) costs a few MB, and a
// series whose occurrences in the window are all cancelled is still left
// out.
func TestExportWindowWorkIsBounded(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		src := vcalendar(
			"BEGIN:VEVENT", "UID:tick", "SUMMARY:Tick", "DTSTART:20261005T090000Z", "DURATION:PT1M", "RRULE:FREQ=MINUTELY", "END:VEVENT",
			"BEGIN:VEVENT", "UID:two", "SUMMARY:Two", "DTSTART:20261010T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=2", "END:VEVENT",
			"BEGIN:VEVENT", "UID:two", "RECURRENCE-ID:20261011T090000Z", "STATUS:CANCELLED", "DTSTART:20261011T090000Z", "DURATION:PT1H", "END:VEVENT",
		)
		ctx := context.Background()
		st, p := openStore(t)
		if rep, err := Import(ctx, st, p, strings.NewReader(src), ImportOptions{}); err != nil || len(rep.Skipped) > 0 {
			t.Fatalf("import: %v, skipped %+v", err, rep.Skipped)
		}
		from, to := tz.UTC.StartOfDay(tz.Date{Year: 2026, Month: 10, Day: 11}), tz.UTC.StartOfDay(tz.Date{Year: 2027, Month: 10, Day: 11})
		var out bytes.Buffer
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := Export(ctx, st, p, &out, from, to); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
			t.Errorf("a windowed export allocated %d MB, want under 16", n>>20)
		}
		if !strings.Contains(out.String(), "UID:tick") || strings.Contains(out.String(), "UID:two") {
			t.Errorf("export of the window: want tick and not two:\n%s", out.String())
		}
	})
}
