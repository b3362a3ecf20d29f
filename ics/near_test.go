package ics

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// TestNearDatesSameMatch: matching an override with only the RDATEs and
// EXDATEs near it (nearDates) answers as matching it with all of them,
// for series in a zone with DST, RDATEs and EXDATEs on and off the rule,
// and RECURRENCE-IDs on occurrences, on excluded ones, and on none.
func TestNearDatesSameMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	zone := tz.MustZone("America/New_York")
	rules := []string{"FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,TH", "FREQ=DAILY;COUNT=40", ""}
	march, _ := tz.NewDate(2026, time.March, 1)
	at := func(day, hour int) tz.Moment {
		return tz.TimeMoment(march.AddDays(day).At(hour, 0))
	}
	for round := 0; round < 200; round++ {
		m := Event{UID: "s", Zone: zone, Start: at(0, 9), End: at(0, 10)}
		if s := rules[r.IntN(len(rules))]; s != "" {
			rule, err := recur.ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			m.Rule = rule
		}
		for i := 0; i < 20+r.IntN(40); i++ {
			m.RDates = append(m.RDates, at(r.IntN(60), []int{2, 9, 14}[r.IntN(3)]))
			m.ExDates = append(m.ExDates, at(r.IntN(60), []int{2, 9}[r.IntN(2)]))
		}
		near := newNearDates(&m)
		for i := 0; i < 50; i++ {
			rid := at(r.IntN(60), []int{2, 9, 10, 14}[r.IntN(4)])
			if all, some := matchesOccurrence(&m, rid, nil), matchesOccurrence(&m, rid, near); all != some {
				t.Fatalf("rule %v, RECURRENCE-ID %s: with every date %v, with the near ones %v", m.Rule, rid, all, some)
			}
		}
	}
}
