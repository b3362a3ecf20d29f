package ics

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// twoOverrides is a weekly series and two VEVENTs changing its second
// occurrence, with SEQUENCE first and second.
func twoOverrides(first, second int) string {
	override := func(seq int, hour, title string) string {
		return "BEGIN:VEVENT\r\nUID:series-1@example.com\r\nDTSTAMP:20261201T000000Z\r\n" +
			"RECURRENCE-ID;TZID=Europe/Berlin:20261214T100000\r\n" +
			"DTSTART;TZID=Europe/Berlin:20261214T" + hour + "0000\r\nDURATION:PT1H\r\n" +
			fmt.Sprintf("SEQUENCE:%d\r\n", seq) + "SUMMARY:" + title + "\r\nEND:VEVENT\r\n"
	}
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\n" +
		"BEGIN:VEVENT\r\nUID:series-1@example.com\r\nDTSTAMP:20261201T000000Z\r\n" +
		"DTSTART;TZID=Europe/Berlin:20261207T100000\r\nDURATION:PT1H\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\n" +
		"SUMMARY:Standup\r\nEND:VEVENT\r\n" +
		override(first, "12", "first") + override(second, "15", "second") +
		"END:VCALENDAR\r\n"
}

// Two VEVENTs of a file changing one occurrence (one UID and
// RECURRENCE-ID) keep one: the higher SEQUENCE (RFC 5545 §3.8.7.4), or
// the first when they are equal; the other is reported, by its line.
func TestSecondOverrideOfAnOccurrence(t *testing.T) {
	const firstLine, secondLine = 12, 21
	for _, c := range []struct {
		first, second int
		kept          string
		skippedLine   int
	}{{1, 2, "second", firstLine}, {2, 1, "first", secondLine}, {0, 0, "first", secondLine}} {
		cal := DecodeBytes([]byte(twoOverrides(c.first, c.second)), DecodeOptions{Zone: tz.MustZone("Europe/Paris")})
		var overrides []string
		for _, e := range cal.Events {
			if e.RecurrenceID != nil {
				overrides = append(overrides, e.Summary)
			}
		}
		if strings.Join(overrides, ",") != c.kept {
			t.Errorf("SEQUENCE %d then %d: kept %v, want %s", c.first, c.second, overrides, c.kept)
		}
		if len(cal.Skipped) != 1 || cal.Skipped[0].Reason != secondOverride || cal.Skipped[0].Line != c.skippedLine {
			t.Errorf("SEQUENCE %d then %d: skipped %+v, want line %d", c.first, c.second, cal.Skipped, c.skippedLine)
		}
	}
}

// Imported, such a file stores one changed occurrence: the export holds
// its RECURRENCE-ID once, and importing the file again changes nothing.
// A CalDAV PUT of it is refused with a sentence, for the client to send
// one.
func TestSecondOverrideImported(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		st, ann := openStore(t)
		file := twoOverrides(1, 2)
		for round := 1; round <= 2; round++ {
			rep, err := Import(ctx, st, ann, strings.NewReader(file), ImportOptions{Source: "two.ics"})
			if err != nil {
				t.Fatal(err)
			}
			want := Counts{Created: 1}
			if round == 2 {
				want = Counts{Unchanged: 1}
			}
			if rep.Overrides != want || len(rep.Skipped) != 1 {
				t.Errorf("import %d: changed occurrences %+v, skipped %+v; want %+v and one skipped", round, rep.Overrides, rep.Skipped, want)
			}
			var out bytes.Buffer
			if err := Export(ctx, st, ann, &out, time.Time{}, time.Time{}); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(out.String(), "\r\nRECURRENCE-ID"); n != 1 || !strings.Contains(out.String(), "SUMMARY:second\r\n") {
				t.Errorf("import %d: the export holds %d RECURRENCE-IDs, want the one of “second”:\n%s", round, n, out.String())
			}
		}
		_, err := ParseObject([]byte(file), tz.MustZone(ann.Zone), objNow)
		if err == nil || !strings.Contains(err.Error(), "Two VEVENTs change the same occurrence (RECURRENCE-ID 20261214T100000)") {
			t.Errorf("PUT: %v, want the sentence naming the occurrence", err)
		}
	})
}
