package ics

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// benchFile generates n VEVENTs: 80% one-off and 20% repeating (weekly with
// COUNT, daily with UNTIL, monthly with an EXDATE), half of all events with
// a VALARM, times spread over three zones and UTC, a fifth all-day.
func benchFile(n int) []byte {
	var b bytes.Buffer
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n")
	zones := []string{"Europe/Paris", "America/New_York", "Asia/Tokyo"}
	for i := range n {
		day := tz.Date{Year: 2026, Month: time.January, Day: 1}.AddDays(i % 700)
		fmt.Fprintf(&b, "BEGIN:VEVENT\r\nUID:bench-%d@example.com\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Meeting number %d\\, room %d\r\n", i, i, i%40)
		if i%3 == 0 {
			fmt.Fprintf(&b, "DESCRIPTION:Agenda line one\\nline two for item %d\r\nLOCATION:Building %d\r\n", i, i%9)
		}
		switch {
		case i%5 == 4:
			fmt.Fprintf(&b, "DTSTART;VALUE=DATE:%s\r\nDTEND;VALUE=DATE:%s\r\n", day.Basic(), day.AddDays(1).Basic())
		case i%7 == 0:
			fmt.Fprintf(&b, "DTSTART:%sT%02d3000Z\r\nDTEND:%sT%02d0000Z\r\n", day.Basic(), 8+i%9, day.Basic(), 9+i%9)
		default:
			z := zones[i%len(zones)]
			fmt.Fprintf(&b, "DTSTART;TZID=%s:%sT%02d0000\r\nDTEND;TZID=%s:%sT%02d4500\r\n", z, day.Basic(), 8+i%10, z, day.Basic(), 8+i%10)
		}
		switch i % 10 {
		case 1:
			b.WriteString("RRULE:FREQ=WEEKLY;COUNT=10\r\n")
		case 3:
			if i%5 != 4 {
				fmt.Fprintf(&b, "RRULE:FREQ=DAILY;UNTIL=%sT235959Z\r\n", day.AddDays(30).Basic())
			} else {
				b.WriteString("RRULE:FREQ=MONTHLY;COUNT=12\r\n")
			}
		}
		if i%2 == 0 {
			b.WriteString("BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n")
		}
		b.WriteString("END:VEVENT\r\n")
	}
	b.WriteString("END:VCALENDAR\r\n")
	return b.Bytes()
}

const benchEvents = 50000

// BenchmarkImport50k measures the three phases of an import of a generated
// 50,000-event file separately, and the whole import: parse (bytes to the
// model), validate (the model to rows) and write (one transaction into a
// fresh SQLite file, journaled); write, end-to-end and export again under
// postgres/ on a fresh PostgreSQL database each.
func BenchmarkImport50k(b *testing.B) {
	data := benchFile(benchEvents)
	zone := tz.MustZone("Europe/Berlin")
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			DecodeBytes(data, DecodeOptions{Zone: zone})
		}
		b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
	})
	cal := DecodeBytes(data, DecodeOptions{Zone: zone})
	if len(cal.Events) != benchEvents || len(cal.Skipped) != 0 {
		b.Fatalf("%d events, skipped %v", len(cal.Events), cal.Skipped)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			planRows(cal, zone, now)
		}
		b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
	})
	benchStorePhases(b, data, cal, zone, now)
	// The same on PostgreSQL (BenchmarkImport50k/postgres/…), skipped
	// without ASSISTANT_TEST_POSTGRES.
	b.Run("postgres", func(b *testing.B) {
		storetest.SkipUnlessPostgres(b)
		benchStorePhases(b, data, cal, zone, now)
	})
}

// benchStorePhases runs the sub-benchmarks of BenchmarkImport50k that go
// through a store — write, end-to-end and export — on the engine of b's
// name (see storetest.Engine), each write into a new database.
func benchStorePhases(b *testing.B, data []byte, cal *Calendar, zone tz.Zone, now time.Time) {
	b.Run("write", func(b *testing.B) {
		var total time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			st, p := openStore(b)
			plan := planRows(cal, zone, now)
			b.StartTimer()
			start := time.Now()
			var rep Report
			if _, err := st.Write(context.Background(), p.ID, "import", func(tx *store.Tx) error { return plan.apply(tx, &rep, ImportOptions{}, nil) }); err != nil {
				b.Fatal(err)
			}
			total += time.Since(start)
			if rep.Events.Created != benchEvents {
				b.Fatalf("created %d", rep.Events.Created)
			}
		}
		b.ReportMetric(float64(benchEvents*b.N)/total.Seconds(), "rows/s")
	})
	b.Run("end-to-end", func(b *testing.B) {
		var total time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			st, p := openStore(b)
			b.StartTimer()
			start := time.Now()
			rep, err := Import(context.Background(), st, p, bytes.NewReader(data), ImportOptions{})
			if err != nil {
				b.Fatal(err)
			}
			total += time.Since(start)
			b.ReportMetric(rep.Parse.Seconds(), "parse-s")
			b.ReportMetric(rep.Validate.Seconds(), "validate-s")
			b.ReportMetric(rep.Write.Seconds(), "write-s")
		}
		b.ReportMetric(float64(benchEvents*b.N)/total.Seconds(), "events/s")
	})
	b.Run("export", func(b *testing.B) {
		st, p := openStore(b)
		if _, err := Import(context.Background(), st, p, bytes.NewReader(data), ImportOptions{}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			var out bytes.Buffer
			if err := Export(context.Background(), st, p, &out, time.Time{}, time.Time{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
	})
}
