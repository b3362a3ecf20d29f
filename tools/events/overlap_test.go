package events

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// TestMeetsNeverMisses checks the shortcut of the overlap warning against
// expansion: whenever meets says a series cannot overlap a span (and the
// zone is steady there, as overlaps requires), the series has no
// occurrence overlapping it. Spans and series cross DST changes, gaps
// included (02:30 on spring-forward days), in zones with 30-minute offsets.
func TestMeetsNeverMisses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	zones := []string{"Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"}
	rules := []string{"FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,WE,SU", "FREQ=MONTHLY;BYMONTHDAY=-1", "FREQ=DAILY;BYHOUR=8,20", ""}
	rejected := 0
	for i := range 3000 {
		z := tz.MustZone(zones[i%len(zones)])
		day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(260))
		e := &event{ID: 1, Zone: z, Start: tz.TimeMoment(tz.DateOf(day.AddDate(0, 0, -rng.IntN(40))).At(rng.IntN(24), 30*rng.IntN(2)))}
		if r := rules[rng.IntN(len(rules))]; r != "" {
			e.Rule = recur.MustRule(r)
		}
		if err := times(e, tz.Moment{}, false, time.Duration(15*(1+rng.IntN(16)))*time.Minute, 1); err != nil {
			t.Fatal(err)
		}
		from := day.Add(time.Duration(rng.IntN(24*60)) * time.Minute)
		to := from.Add(time.Duration(rng.IntN(180)) * time.Minute)
		_, end := from.Add(-longest(e) - 24*time.Hour).In(z.Location()).ZoneBounds()
		if !end.IsZero() && end.Before(to) {
			continue
		}
		dt := z.In(from)
		if meets(e, from, to, dt.Hour*60+dt.Minute) {
			continue
		}
		rejected++
		for _, o := range expand(e, nil, z, tools.Window{From: from, To: to}) {
			if o.Start.Before(to) && o.End.After(from) {
				t.Fatalf("%s %s from %s: meets says no, but %s overlaps [%s, %s)", e.Start, ruleText(e), z.Name(), o.Start, from, to)
			}
		}
	}
	if rejected < 500 {
		t.Fatalf("only %d spans rejected: the shortcut is not tested", rejected)
	}
}
