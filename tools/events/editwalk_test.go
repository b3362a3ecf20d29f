package events

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Seeded random edits of a series, timed or all-day (move all, following
// with a new day or time,
// // change the zone, delete following, move one) never leave a rule whose
// UNTIL comes before its DTSTART, never fail inside, and a move of a
// bounded series keeps the number of its occurrences.
func TestRandomEditsKeepUntilAfterStart(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(15, 1))
		zones := []string{"Europe/Paris", "America/New_York", "UTC", "Europe/London"}
		codes := map[int]int{}
		defer func() { t.Logf("result codes: %v", codes) }()
		for i := range 60 {
			e, p := editEnv(t, zones[rng.IntN(len(zones))])
			rule := []string{"FREQ=WEEKLY;COUNT=6", "FREQ=DAILY;COUNT=8", "FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20261120T100000Z", "FREQ=DAILY"}[rng.IntN(4)]
			allDay := rng.IntN(4) == 0
			start, rdate := "2026-10-05T10:00", "2026-10-21T15:00"
			if allDay {
				start, rdate = "2026-10-05", "2026-10-21"
				if rule == "FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20261120T100000Z" {
					rule = "FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20261120"
				}
			}
			e.ok(p, "add_event", fmt.Sprintf(`{"title":"S","start":%q,"rrule":%q,"rdates":[%q]}`, start, rule, rdate))
			var log []string
			const wide = `{"from":"2026-09-01","to":"2027-03-01"}`
			for range 1 + rng.IntN(5) {
				ids, _ := occurrences(t, e.ok(p, "list_events", wide))
				if len(ids) == 0 {
					break
				}
				id := ids[rng.IntN(len(ids))]
				at := func(minute int) string {
					d, _ := tz.ParseDate(keyDay(id))
					d = d.AddDays(rng.IntN(5) - 2)
					if allDay {
						return d.String()
					}
					return fmt.Sprintf("%sT%02d:%02d", d, 6+rng.IntN(12), minute)
				}
				var name, raw string
				switch rng.IntN(5) {
				case 0:
					name, raw = "update_event", fmt.Sprintf(`{"id":%q,"scope":"all","start":%q}`, id, at(0))
				case 1:
					name, raw = "update_event", fmt.Sprintf(`{"id":%q,"scope":"following","start":%q}`, id, at(0))
				case 2:
					name, raw = "update_event", fmt.Sprintf(`{"id":%q,"scope":"all","time_zone":%q}`, id[:strings.Index(id, "@")], zones[rng.IntN(len(zones))])
				case 3:
					name, raw = "delete_event", fmt.Sprintf(`{"id":%q,"scope":"following"}`, id)
				default:
					name, raw = "update_event", fmt.Sprintf(`{"id":%q,"start":%q}`, id, at(30))
				}
				log = append(log, name+" "+raw)
				res, _ := e.call(p, name, raw)
				if res.Code == tools.CodeInternal {
					t.Fatalf("case %d: %v: %s", i, log, res.TextOut())
				}
				codes[res.Code]++
				after, _ := occurrences(t, e.ok(p, "list_events", wide))
				if res.Code == tools.CodeOK && name == "update_event" && rule != "FREQ=DAILY" && len(after) != len(ids) {
					t.Fatalf("case %d: %s %v: %d occurrences, was %d", i, rule, log, len(after), len(ids))
				}
				if bad := untilBeforeStart(t, e); bad != "" {
					t.Fatalf("case %d after %v: %s", i, log, bad)
				}
			}
		}
	})
}

// keyDay is the day of an occurrence id, 2026-10-05 for e1@20261005T080000Z
// or e1@20261005.
func keyDay(id string) string {
	k := id[strings.Index(id, "@")+1:]
	return k[:4] + "-" + k[4:6] + "-" + k[6:8]
}

// untilBeforeStart names a stored series whose UNTIL is before its
// DTSTART, "" when there is none.
func untilBeforeStart(t *testing.T, e *env) string {
	rows, err := e.Store.DB().Query(`SELECT id, start_at, tzid, rrule FROM events WHERE deleted_at IS NULL AND rrule IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id, start  int64
			zone, rule string
		)
		if err := rows.Scan(&id, &start, &zone, &rule); err != nil {
			t.Fatal(err)
		}
		r := recur.MustRule(rule)
		m, utc, ok := r.Until()
		if !ok || !m.HasTime {
			continue
		}
		until, _ := tz.MustZone(zone).Instant(m.DateTime)
		if utc {
			until = m.DateTime.AsUTC()
		}
		if until.Add(time.Minute).Before(time.Unix(start, 0)) {
			return fmt.Sprintf("e%d has RRULE:%s but starts %s", id, rule, time.Unix(start, 0).UTC())
		}
	}
	return ""
}
