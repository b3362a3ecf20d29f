package events

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Seeded random edits of a series (move all, following with a new time,
// change the zone, delete following, move one) never leave a rule whose
// UNTIL comes before its DTSTART, never fail inside, and a move of a
// bounded series within its days keeps the number of its occurrences.
func TestRandomEditsKeepUntilAfterStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	zones := []string{"Europe/Paris", "America/New_York", "UTC", "Europe/London"}
	for i := range 40 {
		e, p := editEnv(t, zones[rng.IntN(len(zones))])
		rule := []string{"FREQ=WEEKLY;COUNT=6", "FREQ=DAILY;COUNT=8", "FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20261120T100000Z", "FREQ=DAILY"}[rng.IntN(4)]
		e.ok(p, "add_event", fmt.Sprintf(`{"title":"S","start":"2026-10-05T10:00","rrule":%q,"rdates":["2026-10-21T15:00"]}`, rule))
		var log []string
		const wide = `{"from":"2026-09-01","to":"2027-03-01"}`
		for range 1 + rng.IntN(5) {
			ids, _ := occurrences(t, e.ok(p, "list_events", wide))
			if len(ids) == 0 {
				break
			}
			id := ids[rng.IntN(len(ids))]
			hour := 6 + rng.IntN(12)
			var name, raw string
			switch rng.IntN(5) {
			case 0:
				name, raw = "update_event", fmt.Sprintf(`{"id":%q,"scope":"all","start":"%sT%02d:00"}`, id, keyDay(id), hour)
			case 1:
				name, raw = "update_event", fmt.Sprintf(`{"id":%q,"scope":"following","start":"%sT%02d:00"}`, id, keyDay(id), hour)
			case 2:
				name, raw = "update_event", fmt.Sprintf(`{"id":%q,"scope":"all","time_zone":%q}`, id[:len(id)-17], zones[rng.IntN(len(zones))])
			case 3:
				name, raw = "delete_event", fmt.Sprintf(`{"id":%q,"scope":"following"}`, id)
			default:
				name, raw = "update_event", fmt.Sprintf(`{"id":%q,"start":"%sT%02d:30"}`, id, keyDay(id), hour)
			}
			log = append(log, name+" "+raw)
			res, _ := e.call(p, name, raw)
			if res.Code == tools.CodeInternal {
				t.Fatalf("case %d: %v: %s", i, log, res.TextOut())
			}
			after, _ := occurrences(t, e.ok(p, "list_events", wide))
			if res.Code == tools.CodeOK && name == "update_event" && rule != "FREQ=DAILY" && len(after) != len(ids) {
				t.Fatalf("case %d: %s %v: %d occurrences, was %d", i, rule, log, len(after), len(ids))
			}
			if bad := untilBeforeStart(t, e); bad != "" {
				t.Fatalf("case %d after %v: %s", i, log, bad)
			}
		}
	}
}

// keyDay is the day of an occurrence id, 2026-10-05 for e1@20261005T080000Z.
func keyDay(id string) string {
	k := id[len(id)-16:]
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
