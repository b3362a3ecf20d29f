package recur

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// TestCheckOccursShortcuts compares CheckOccurs with its shortcuts (the
// second time of a short COUNT, the next of a plain DAILY or WEEKLY rule)
// against the search alone, on seeded random series: the same answer
// every time.
func TestCheckOccursShortcuts(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	zones := []string{"Europe/Paris", "America/New_York", "Australia/Lord_Howe", "UTC", "Asia/Kolkata"}
	freqs := []string{"DAILY", "WEEKLY", "MONTHLY", "YEARLY", "HOURLY"}
	parts := []string{"", "", "", ";BYDAY=MO,FR", ";BYMONTHDAY=31", ";BYMONTH=2;BYMONTHDAY=29", ";BYHOUR=9", ";BYDAY=-1SU", ";BYYEARDAY=366"}
	differ := 0
	// The calendar's last days, where an occurrence may end past it.
	for _, c := range []struct{ start, rule string }{
		{"9999-12-30", "FREQ=DAILY;COUNT=2"},
		{"9999-12-30T23:30", "FREQ=DAILY;COUNT=2"},
		{"9999-12-29", "FREQ=DAILY;COUNT=3"},
		{"9999-12-30", "FREQ=DAILY"},
		{"9999-12-24", "FREQ=WEEKLY;COUNT=2"},
		{"9999-12-31T20:00", "FREQ=HOURLY;COUNT=2"},
	} {
		start, _ := tz.ParseMoment(c.start)
		s := Series{Start: start, Zone: tz.MustZone("America/New_York"), Rule: MustRule(c.rule)}
		fast, slow := s.CheckOccurs(), s.checkOccurs(false)
		if (fast == nil) != (slow == nil) {
			t.Errorf("%s %s: with the shortcuts %v, by the search %v", c.start, c.rule, fast, slow)
		}
	}
	for i := 0; i < 3000; i++ {
		zone := tz.MustZone(zones[r.Intn(len(zones))])
		y := []int{2026, 2027, 9997, 9998, 9999}[r.Intn(5)]
		d := tz.Date{Year: y, Month: time.Month(1 + r.Intn(12)), Day: 1 + r.Intn(28)}
		if y == 9999 && r.Intn(2) == 0 {
			d = tz.Date{Year: y, Month: 12, Day: 28 + r.Intn(4)}
		}
		start := tz.DayMoment(d)
		if r.Intn(3) > 0 {
			start = tz.TimeMoment(d.At([]int{0, 2, 3, 9, 23}[r.Intn(5)], []int{0, 30}[r.Intn(2)]))
		}
		text := "FREQ=" + freqs[r.Intn(len(freqs))]
		if !start.HasTime && text == "FREQ=HOURLY" {
			text = "FREQ=DAILY"
		}
		text += parts[r.Intn(len(parts))]
		if n := r.Intn(4); n > 0 {
			text += fmt.Sprintf(";INTERVAL=%d", []int{1, 2, 7, 400}[n])
		}
		switch r.Intn(3) {
		case 0:
			text += fmt.Sprintf(";COUNT=%d", 2+r.Intn(30))
		case 1:
			u := d.AddDays(r.Intn(40) - 5)
			if start.HasTime && r.Intn(2) == 0 {
				text += ";UNTIL=" + u.Basic() + "T090000Z"
			} else if start.HasTime {
				text += ";UNTIL=" + u.Basic() + "T090000"
			} else {
				text += ";UNTIL=" + u.Basic()
			}
		}
		rule, err := ParseRule(text)
		if err != nil {
			continue
		}
		s := Series{Start: start, Zone: zone, Rule: rule}
		if s.Check() != nil {
			continue
		}
		fast, slow := s.CheckOccurs(), s.checkOccurs(false)
		if (fast == nil) != (slow == nil) {
			differ++
			if differ <= 5 {
				t.Errorf("%s %v %s: with the shortcuts %v, by the search %v", zone.Name(), start, text, fast, slow)
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d series answered otherwise with the shortcuts", differ)
	}
}

// TestCheckOccursCountOfOne: a COUNT the rule cannot reach because it
// gives nothing after DTSTART is told why, not to write COUNT=1 (a rule
// that never repeats).
func TestCheckOccursCountOfOne(t *testing.T) {
	start, _ := tz.ParseMoment("2026-12-08T09:07")
	s := Series{Start: start, Zone: tz.MustZone("Europe/Berlin"), Rule: MustRule("FREQ=MINUTELY;INTERVAL=45;BYMINUTE=0,30;COUNT=50")}
	err := s.CheckOccurs()
	if err == nil || strings.Contains(err.Error(), "COUNT=1") || !strings.Contains(err.Error(), "INTERVAL=45") {
		t.Errorf("CheckOccurs: %v", err)
	}
}
