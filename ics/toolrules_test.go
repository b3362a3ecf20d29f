package ics

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/store/storetest"
)

// An import applies the tools' rules to what it stores: one-line texts
// without invisible characters, a DESCRIPTION without its leading byte
// order mark, texts over the tools' bounds cut with a line in the report,
// bytes that are not UTF-8 read as U+FFFD with a line in the report, and
// a rule the tools refuse as never occurring kept as its DTSTART alone.
// Every line of the report stays short, whatever the file names.
func TestImportAppliesTheToolsRules(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		huge := strings.Repeat("X", 500_000)
		longUID := strings.Repeat("u", 100_000)
		var tags []string
		for i := range 25 {
			tags = append(tags, "t"+strconv.Itoa(i))
		}
		many := strings.Join(tags, ",")
		ics := strings.Join([]string{
			"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN",
			"BEGIN:VEVENT", "UID:inv@t", "DTSTART:20261005T090000Z", "DURATION:PT1H",
			"SUMMARY:Team\u200b sync\ufeff", "LOCATION:\u2060Room\u00ad 1", "DESCRIPTION:\ufeffAgenda", "END:VEVENT",
			"BEGIN:VEVENT", "UID:long@t", "DTSTART:20261006T090000Z", "DURATION:PT1H",
			"SUMMARY:" + strings.Repeat("t", 300), "DESCRIPTION:" + strings.Repeat("d", 20_000), "END:VEVENT",
			"BEGIN:VEVENT", "UID:" + longUID, "DTSTART:20261007T090000Z", "DURATION:PT1H",
			"SUMMARY:" + strings.Repeat("s", 250), "END:VEVENT",
			"BEGIN:VEVENT", "UID:never@t", "DTSTART:20261008T090000Z", "DURATION:PT1H",
			"SUMMARY:never", "RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2", "END:VEVENT",
			"BEGIN:VEVENT", "UID:count@t", "DTSTART:20261009T090000Z", "DURATION:PT1H",
			"SUMMARY:count", "RRULE:FREQ=YEARLY;INTERVAL=1000;COUNT=20", "END:VEVENT",
			"BEGIN:VEVENT", "UID:weekly@t", "DTSTART:20261010T090000Z", "DURATION:PT1H",
			"SUMMARY:weekly", "RRULE:FREQ=WEEKLY;COUNT=3", "END:VEVENT",
			"BEGIN:VTODO", "UID:bad@t", "DUE:20261011T090000Z", "SUMMARY:ab\xff\xfecd",
			"CATEGORIES:\u200bhome,wo\u2060rk,home,#errands," + strings.Repeat("g", 50), "CATEGORIES:" + many, "RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2", "END:VTODO",
			"BEGIN:" + huge, "SUMMARY:x", "END:" + huge,
			"END:VCALENDAR", ""}, "\r\n")
		st, p := openStore(t)
		rep, err := Import(context.Background(), st, p, strings.NewReader(ics), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var report bytes.Buffer
		for _, s := range append(rep.Skipped, rep.Repaired...) {
			line := s.Component + " " + s.UID + ": " + s.Reason
			if n := utf8.RuneCountInString(line); n > 600 {
				t.Errorf("a report line of %d characters: %.200s…", n, line)
			}
			report.WriteString(line + "\n")
		}
		sum := sha256.Sum256([]byte(longUID))
		shortUID := hex.EncodeToString(sum[:])[:24]
		got := strings.ReplaceAll(strings.TrimSpace(dump(t, st, p.ID, `SELECT uid, title, location, notes, rrule FROM events ORDER BY start_at`)), " | ", "|")
		want := strings.Join([]string{
			"inv@t|Team sync|Room 1|Agenda|<nil>|",
			"long@t|" + strings.Repeat("t", 200) + "||" + strings.Repeat("d", 10_000) + "|<nil>|",
			"assistant-" + shortUID + "|" + strings.Repeat("s", 200) + "|||<nil>|",
			"never@t|never|||<nil>|",
			"count@t|count|||<nil>|",
			"weekly@t|weekly|||FREQ=WEEKLY;COUNT=3 |",
		}, "\n")
		gotLines, wantLines := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range max(len(gotLines), len(wantLines)) {
			var g, w string
			if i < len(gotLines) {
				g = gotLines[i]
			}
			if i < len(wantLines) {
				w = wantLines[i]
			}
			if g != w {
				t.Errorf("event %d stored as %.300q (%d bytes), want %.300q (%d bytes)", i, g, len(g), w, len(w))
			}
		}
		if got := dump(t, st, p.ID, `SELECT title, tags, rrule FROM tasks`); got != "ab\ufffdcd | [\"home\",\"work\",\"errands\",\""+strings.Repeat("g", 40)+"\",\"t0\",\"t1\",\"t2\",\"t3\",\"t4\",\"t5\",\"t6\",\"t7\",\"t8\",\"t9\",\"t10\",\"t11\",\"t12\",\"t13\",\"t14\",\"t15\"] | <nil> | \n" {
			t.Errorf("task stored: %q", got)
		}
		for _, want := range []string{
			"SUMMARY has 300 characters, more than the 200 an item keeps; its first 200 are imported",
			"DESCRIPTION has 20000 characters, more than the 10000 an item keeps",
			"VEVENT never@t: its RRULE is one the tools refuse",
			"VEVENT count@t: its RRULE is one the tools refuse",
			"VTODO bad@t: its RRULE is one the tools refuse",
			"VTODO : bytes that are not UTF-8 are read as “\ufffd”",
			"XXXXXXXX… components are not imported",
			"UID has 100000 bytes, more than the 1000 kept; given assistant-",
			"A CATEGORIES item has 50 characters, more than the 40 an item keeps",
			"CATEGORIES has 29 items, more than the 20 tags a task keeps",
		} {
			if !strings.Contains(report.String(), want) {
				t.Errorf("the report lacks %q:\n%.3000s", want, report.String())
			}
		}
	})
}

// A rule whose UNTIL leaves DTSTART its one occurrence (what the export of
// a series cut down to one occurrence holds) is imported as it is, with
// nothing in the report: the file means one occurrence (RFC 5545
// §3.8.5.3), and so does the row. A rule that can never occur at all is
// still dropped and named.
func TestImportKeepsARuleEndingAtItsStart(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ics := strings.Join([]string{
			"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN",
			"BEGIN:VEVENT", "UID:cut@t", "DTSTART:20261005T090000Z", "DURATION:PT1H",
			"SUMMARY:cut", "RRULE:FREQ=DAILY;UNTIL=20261005T090000Z", "END:VEVENT",
			"BEGIN:VEVENT", "UID:before@t", "DTSTART:20261006T090000Z", "DURATION:PT1H",
			"SUMMARY:before", "RRULE:FREQ=WEEKLY;UNTIL=20261001T000000Z", "END:VEVENT",
			"END:VCALENDAR", ""}, "\r\n")
		st, p := openStore(t)
		rep, err := Import(context.Background(), st, p, strings.NewReader(ics), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range append(rep.Skipped, rep.Repaired...) {
			t.Errorf("reported: %s %s: %s", s.Component, s.UID, s.Reason)
		}
		got := strings.TrimSpace(dump(t, st, p.ID, `SELECT uid, rrule FROM events ORDER BY start_at`))
		if !strings.Contains(got, "cut@t | FREQ=DAILY;UNTIL=20261005T090000Z") || !strings.Contains(got, "before@t | FREQ=WEEKLY;UNTIL=20261001T000000Z") {
			t.Errorf("stored:\n%s\nwant both rules kept as written", got)
		}
	})
}

// A UID holding a control character (a NUL, which PostgreSQL refuses in
// text and failed the whole import with its own error there) is given a
// stable stand-in, listed under Repaired, on both engines; the file's
// other events are imported with it, importing it again finds it, and
// the export writes no control character.
func TestImportUIDWithControlCharacter(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ics := strings.Join([]string{
			"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN",
			"BEGIN:VEVENT", "UID:nul\x00uid", "DTSTART:20261005T090000Z", "SUMMARY:nul", "END:VEVENT",
			"BEGIN:VEVENT", "UID:bell\x07uid", "DTSTART:20261006T090000Z", "SUMMARY:bell", "END:VEVENT",
			"BEGIN:VEVENT", "UID:fine@t", "DTSTART:20261007T090000Z", "SUMMARY:fine", "END:VEVENT",
			"END:VCALENDAR", ""}, "\r\n")
		st, p := openStore(t)
		ctx := context.Background()
		rep, err := Import(ctx, st, p, strings.NewReader(ics), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events.Created != 3 || len(rep.Repaired) != 2 {
			t.Fatalf("created %d, repaired %+v; want 3 and the two UIDs", rep.Events.Created, rep.Repaired)
		}
		for _, r := range rep.Repaired {
			if !strings.HasPrefix(r.Reason, "UID holds a control character, which a UID cannot keep; given assistant-") {
				t.Errorf("repaired: %q", r.Reason)
			}
		}
		again, err := Import(ctx, st, p, strings.NewReader(ics), ImportOptions{})
		if err != nil || again.Events.Unchanged != 3 || again.Events.Created != 0 {
			t.Fatalf("again: %v, %+v", err, again.Events)
		}
		var out bytes.Buffer
		if err := Export(ctx, st, p, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if i := strings.IndexFunc(strings.ReplaceAll(out.String(), "\r\n", ""), func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
			t.Errorf("the export holds a control character at %d", i)
		}
	})
}
