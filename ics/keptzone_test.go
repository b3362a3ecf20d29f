package ics

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// TestReimportKeepsZoneAndUntil: an event in the repeated hour of a
// fall-back night, which the export writes in UTC, comes back in its own
// zone (ZoneProp), for the same person (nothing changes) and for another
// (the zone, the instants and the reading kept); a DTSTART in UTC without
// the property stays in UTC. A timed series with a DATE UNTIL, which the
// export writes as a UTC DATE-TIME, is unchanged by a re-import too.
func TestReimportKeepsZoneAndUntil(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		st, ann := openStore(t)
		file := strings.Join([]string{"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//t//EN",
			"BEGIN:VEVENT", "UID:first", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Europe/Paris:20261025T023000", "DURATION:PT1H", "SUMMARY:First", "END:VEVENT",
			"BEGIN:VEVENT", "UID:second", "DTSTAMP:20260101T000000Z", "DTSTART:20261025T013000Z", "DURATION:PT30M", "SUMMARY:Second", ZoneProp + ":Europe/Paris", "END:VEVENT",
			"BEGIN:VEVENT", "UID:utc", "DTSTAMP:20260101T000000Z", "DTSTART:20261025T013000Z", "DURATION:PT30M", "SUMMARY:UTC", "END:VEVENT",
			"BEGIN:VEVENT", "UID:daily", "DTSTAMP:20260101T000000Z", "DTSTART;TZID=Europe/Paris:20261020T090000", "DURATION:PT1H",
			"RRULE:FREQ=DAILY;UNTIL=20261023", "SUMMARY:Daily", "END:VEVENT",
			"END:VCALENDAR", ""}, "\r\n")
		if _, err := Import(ctx, st, ann, strings.NewReader(file), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := Export(ctx, st, ann, &out, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.String(), ZoneProp+":Europe/Paris"); n != 2 {
			t.Errorf("the export names the zone of %d events in UTC, want 2:\n%s", n, out.String())
		}
		rep, err := Import(ctx, st, ann, bytes.NewReader(out.Bytes()), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events != (Counts{Unchanged: 4}) || rep.Change != "" {
			t.Errorf("re-import of the export: %+v, change %q; want all 4 unchanged", rep.Events, rep.Change)
		}

		bob := addPerson(t, st, "bob")
		if _, err := Import(ctx, st, bob, bytes.NewReader(out.Bytes()), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := Export(ctx, st, bob, &again, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		cal := DecodeBytes(again.Bytes(), DecodeOptions{Zone: tz.MustZone("Europe/Berlin")})
		want := map[string]string{"first": "Europe/Paris 2026-10-25T02:30 fold=false", "second": "Europe/Paris 2026-10-25T02:30 fold=true", "utc": "UTC 2026-10-25T01:30 fold=false"}
		for _, e := range cal.Events {
			w, ok := want[e.UID]
			if !ok {
				continue
			}
			got := e.Zone.Name() + " " + e.Start.DateTime.String() + " fold=" + map[bool]string{true: "true", false: "false"}[e.Start.Fold]
			if got != w {
				t.Errorf("%s in bob's copy: %s, want %s", e.UID, got, w)
			}
			delete(want, e.UID)
		}
		if len(want) != 0 {
			t.Errorf("missing from bob's copy: %v", want)
		}
	})
}
