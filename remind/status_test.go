package remind

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// key names an entry or a row for comparing status with what a pass did.
func entryKeys(list []Entry) []string {
	var out []string
	for _, en := range list {
		out = append(out, en.Item+"@"+en.Occurrence+"/"+en.Trigger+"/"+en.FireAt.UTC().Format(time.RFC3339))
	}
	slices.Sort(out)
	return out
}

// TestStatusClassifiesByTheClock: after three weeks with no pass, --status
// puts fires older than --max-late under "will be skipped", fires within
// it under "due now", and only future ones under "upcoming"; the next pass
// then does exactly what it said (finding 5).
func TestStatusClassifiesByTheClock(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		e := newEnv(t, civilAt(t, "Europe/Paris", "2026-03-23T12:00"))
		e.call(e.ada, "add_event", `{"title":"Paris Mon 9","start":"2026-03-30T09:00","duration":60,"rrule":"FREQ=WEEKLY","remind_before":[15]}`)
		e.call(e.ada, "add_task", `{"title":"Call the bank","due":"2026-04-19T10:00","remind_before":[90]}`)
		e.call(e.ada, "add_task", `{"title":"Pay rent","due":"2026-04-19T12:00","remind_before":[60]}`)
		eng := e.engine(Options{People: []int64{e.ada.ID}})
		// A status long before records where the job starts from, as a
		// status on a database no pass ever ran on does.
		if _, err := eng.Status(e.ctx); err != nil {
			t.Fatal(err)
		}
		e.at("Europe/Paris", "2026-04-19T09:00")
		reports, err := eng.Status(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(reports) != 1 {
			t.Fatalf("want one person's report, got %d", len(reports))
		}
		ps := reports[0]
		at := func(civil string) time.Time { return civilAt(t, "Europe/Paris", civil) }
		want := []struct {
			name string
			got  []Entry
			want []time.Time
		}{
			{"will be skipped", ps.Missed, []time.Time{at("2026-04-13T08:45"), at("2026-04-06T08:45"), at("2026-03-30T08:45")}},
			{"due now", ps.Due, []time.Time{at("2026-04-19T08:30")}},
			{"upcoming", ps.Upcoming, []time.Time{at("2026-04-19T11:00"), at("2026-04-20T08:45")}},
		}
		for _, w := range want {
			var got []time.Time
			for _, en := range w.got {
				got = append(got, en.FireAt)
			}
			if !slices.EqualFunc(got, w.want, time.Time.Equal) {
				t.Errorf("%s: fire times %v, want %v", w.name, got, w.want)
			}
		}
		for _, en := range ps.Upcoming {
			if !en.FireAt.After(e.now) {
				t.Errorf("upcoming lists %s, which is not after the clock %s", en.FireAt, e.now)
			}
		}
		var b bytes.Buffer
		if err := WriteStatus(&b, reports); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		for _, s := range []string{
			"  will be skipped: 3\n    Mon 2026-04-13 08:45 (+02:00)  e1 “Paris Mon 9” 15 min before (20260413T070000Z)  missed by 6 days, more than the 6 h allowed (--max-late)\n",
			"  due now: 1\n    Sun 2026-04-19 08:30 (+02:00)  t1 “Call the bank” 1 h 30 min before (20260419T080000Z)  30 min ago  rd_",
			"  upcoming: 2\n    Sun 2026-04-19 11:00 (+02:00)  t2 “Pay rent” 1 h before (20260419T100000Z)\n    Mon 2026-04-20 08:45 (+02:00)  e1",
		} {
			if !strings.Contains(text, s) {
				t.Errorf("status text lacks %q:\n%s", s, text)
			}
		}

		// The next pass does what status said: the missed ones skipped, the
		// due one sent, with the delivery id status showed.
		r := e.pass(eng)
		var skipped, sent []Entry
		for _, row := range e.rows() {
			en := Entry{Item: row.Item, Occurrence: row.Occurrence, Trigger: row.Trigger, FireAt: row.FireAt, DeliveryID: row.DeliveryID}
			switch row.Status {
			case "skipped":
				skipped = append(skipped, en)
			case "sent":
				sent = append(sent, en)
			}
		}
		if r.Skipped != 3 || r.Sent != 1 {
			t.Errorf("pass: %+v, want 3 skipped and 1 sent", r)
		}
		if got, want := entryKeys(skipped), entryKeys(ps.Missed); !slices.Equal(got, want) {
			t.Errorf("skipped %v, status said %v", got, want)
		}
		if got, want := entryKeys(sent), entryKeys(ps.Due); !slices.Equal(got, want) {
			t.Errorf("sent %v, status said %v", got, want)
		}
		if len(sent) == 1 && sent[0].DeliveryID != ps.Due[0].DeliveryID {
			t.Errorf("sent under %s, status showed %s", sent[0].DeliveryID, ps.Due[0].DeliveryID)
		}
	})
}

// TestStatusSections: recorded but unsent deliveries are classified by the
// clock too — a fresh one past its time is due now, one past --max-late
// will be skipped, a retry waits under upcoming until its time.
func TestStatusSections(t *testing.T) {
	at := time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)
	eng := &Engine{maxLate: 6 * time.Hour}
	cases := []struct {
		name string
		en   Entry
		want string // the section
		why  string // part of Error after classifying
	}{
		{"future fire", Entry{FireAt: at.Add(time.Minute)}, "upcoming", ""},
		{"fire at the clock", Entry{FireAt: at}, "due", ""},
		{"recorded, 5 h late", Entry{FireAt: at.Add(-5 * time.Hour), NextTry: at.Add(-5 * time.Hour), DeliveryID: "d"}, "due", ""},
		{"exactly max-late", Entry{FireAt: at.Add(-6 * time.Hour)}, "due", ""},
		{"past max-late", Entry{FireAt: at.Add(-6*time.Hour - time.Second)}, "missed", "missed by 6 h, more than the 6 h allowed (--max-late)"},
		{"retry waiting", Entry{FireAt: at.Add(-time.Hour), NextTry: at.Add(time.Minute), Attempts: 1, Error: "500"}, "upcoming", "500"},
		{"retry due", Entry{FireAt: at.Add(-time.Hour), NextTry: at, Attempts: 1, Error: "500"}, "due", "500"},
		{"retry too late", Entry{FireAt: at.Add(-7 * time.Hour), NextTry: at, Attempts: 2, Error: "500"}, "missed", "gives up after 2 attempts"},
		{"claimed", Entry{FireAt: at.Add(-time.Minute), NextTry: at.Add(time.Minute), Attempts: 1, Claimed: true}, "due", ""},
	}
	for _, c := range cases {
		var ps PersonStatus
		eng.classify(c.en, at, &ps, nil)
		sections := map[string][]Entry{"due": ps.Due, "missed": ps.Missed, "upcoming": ps.Upcoming}
		for name, list := range sections {
			if (name == c.want) != (len(list) == 1) {
				t.Errorf("%s: %s has %d entries, want it in %s", c.name, name, len(list), c.want)
			}
		}
		if l := sections[c.want]; len(l) == 1 && !strings.Contains(l[0].Error, c.why) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, l[0].Error, c.why)
		}
	}
}

// TestStatusWords: times in --status read as the tools write them, never
// raw RFC 3339 or RFC 5545 basic form.
func TestStatusWords(t *testing.T) {
	at := time.Date(2026, 10, 5, 5, 30, 0, 0, time.UTC)
	now := at.Add(2 * time.Minute)
	cases := []struct {
		st   PersonStatus
		want string
	}{
		{PersonStatus{Upcoming: []Entry{{Item: "digest", Title: "daily agenda", Occurrence: "20261006", Trigger: "digest", FireAt: at.Add(24 * time.Hour)}}},
			"Tue 2026-10-06 07:30 (+02:00)  digest “daily agenda” for Tue 2026-10-06\n"},
		{PersonStatus{Upcoming: []Entry{{Item: "t1", Title: "a", Trigger: "at:2026-10-06T08:00", FireAt: at.Add(24 * time.Hour)}}},
			"t1 “a” at Tue 2026-10-06 08:00 (+02:00)\n"},
		{PersonStatus{Upcoming: []Entry{{Item: "t1", Title: "a", Trigger: "at:2026-10-06", FireAt: at.Add(24 * time.Hour)}}},
			"t1 “a” at Tue 2026-10-06\n"},
		{PersonStatus{Due: []Entry{{Item: "t1", Title: "a", Trigger: "before:0", FireAt: at, DeliveryID: "rd_1"}}},
			"  due now: 1\n    Mon 2026-10-05 07:30 (+02:00)  t1 “a” 0 min before  2 min ago  rd_1\n"},
		{PersonStatus{Due: []Entry{{Item: "t1", Title: "a", Trigger: "before:0", FireAt: at, DeliveryID: "rd_1", Claimed: true, Attempts: 2}}},
			"being sent (2nd attempt)  rd_1"},
		{PersonStatus{Missed: []Entry{{Item: "t1", Title: "a", Trigger: "before:0", FireAt: at, Error: "missed by 7 h"}}},
			"  will be skipped: 1\n    Mon 2026-10-05 07:30 (+02:00)  t1 “a” 0 min before  missed by 7 h\n"},
	}
	for _, c := range cases {
		c.st.Name, c.st.Zone, c.st.At = "ada", "Europe/Paris", now
		var b strings.Builder
		if err := WriteStatus(&b, []PersonStatus{c.st}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("WriteStatus =\n%s\nwant it to contain %q", b.String(), c.want)
		}
	}
}
