package recur

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/assistant-dev/assistant/tz"
)

// countCivilByWalk is countCivil without the 400-year cycle: rrule-go
// walks every period up to COUNT or the year 9999. It is the oracle.
func countCivilByWalk(r *Rule, start time.Time) []time.Time {
	opt := r.options(start)
	opt.Dtstart = start
	opt.Count = r.count
	opt.Until = lastCivil
	rr, err := rrule.NewRRule(opt)
	if err != nil {
		return nil
	}
	return rr.All()
}

// sparseRule writes a DAILY or coarser rule whose days are few (the 29th
// of February, a weekday on a month day, a week number), with a COUNT
// that is reached late or never before the year 10000.
func sparseRule(rng *rand.Rand) string {
	freqs := []string{"YEARLY", "MONTHLY", "WEEKLY", "DAILY"}
	f := freqs[rng.IntN(len(freqs))]
	parts := []string{"FREQ=" + f, fmt.Sprintf("COUNT=%d", []int{40, 300, 1500, 5000, 10000}[rng.IntN(5)])}
	if rng.IntN(3) == 0 {
		parts = append(parts, fmt.Sprintf("INTERVAL=%d", []int{2, 3, 5, 7, 11, 28, 400, 1001}[rng.IntN(8)]))
	}
	switch rng.IntN(5) {
	case 0:
		parts = append(parts, "BYMONTH=2", "BYMONTHDAY=29")
	case 1:
		parts = append(parts, "BYMONTH=2", "BYMONTHDAY=29", "BYDAY="+weekdayCodes[rng.IntN(7)])
	case 2:
		parts = append(parts, fmt.Sprintf("BYMONTHDAY=%d", 1+rng.IntN(31)), "BYDAY="+weekdayCodes[rng.IntN(7)], fmt.Sprintf("BYMONTH=%d", 1+rng.IntN(12)))
	case 3:
		if f == "YEARLY" {
			parts = append(parts, "BYWEEKNO=53", "BYDAY="+weekdayCodes[rng.IntN(7)])
		} else {
			parts = append(parts, "BYMONTH=2", "BYMONTHDAY=-1", "BYDAY=SU")
		}
	default:
		parts = append(parts, "BYMONTH=12", fmt.Sprintf("BYMONTHDAY=%d", 25+rng.IntN(7)), "BYDAY=MO,FR", fmt.Sprintf("BYSETPOS=%d", []int{1, -1}[rng.IntN(2)]))
	}
	if rng.IntN(4) == 0 {
		parts = append(parts, "WKST="+weekdayCodes[rng.IntN(7)])
	}
	return strings.Join(parts, ";")
}

// countCivil, which expands one 400-year span and moves it on, gives
// exactly the times rrule-go's walk to the year 9999 gives, for sparse
// rules (COUNT reached late or never), for the random rules of the COUNT
// tests, and for starts near the year 9999 where no whole span fits.
func TestCountCivilSameAsWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(400, 146097))
	want := caseCount(160, 50)
	cycled := 0
	fixed := []string{
		"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=3000",
		"FREQ=DAILY;INTERVAL=2;BYMONTH=2;BYMONTHDAY=29;COUNT=3000",
		"FREQ=WEEKLY;INTERVAL=2;BYMONTH=2;BYDAY=MO;COUNT=10000",
		"FREQ=WEEKLY;INTERVAL=4;BYMONTH=12;BYDAY=SU;WKST=SU;COUNT=10000",
		"FREQ=MONTHLY;INTERVAL=7;BYMONTHDAY=31;BYDAY=FR;COUNT=5000",
		"FREQ=MONTHLY;BYMONTH=2;BYDAY=5SU;COUNT=2000",
		"FREQ=YEARLY;INTERVAL=3;BYMONTH=2;BYMONTHDAY=29;COUNT=3000",
		"FREQ=YEARLY;BYWEEKNO=53;BYDAY=TH;COUNT=5000",
		"FREQ=YEARLY;BYYEARDAY=366;COUNT=3000",
		"FREQ=DAILY;BYDAY=MO;BYHOUR=9,17;BYSETPOS=-1;COUNT=40",
		"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=8,12;BYSETPOS=1;COUNT=2000",
		"FREQ=DAILY;BYMONTH=3;BYHOUR=10;COUNT=9000",
		"FREQ=DAILY;BYDAY=SA,SU;BYMINUTE=0,30;COUNT=10000",
		"FREQ=WEEKLY;BYMONTH=2;BYDAY=MO;COUNT=10000",
		"FREQ=WEEKLY;BYDAY=TU,TH;BYHOUR=7;WKST=SU;COUNT=3000",
		"FREQ=WEEKLY;BYMONTH=2;COUNT=2000",
		"FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=2;COUNT=500",
	}
	for cases := 0; cases < want+len(fixed); {
		text := sparseRule(rng)
		if cases < len(fixed) {
			text = fixed[cases]
		} else if rng.IntN(3) == 0 {
			text = randomRule(rng, true)
		}
		r, err := parseRule(text)
		if err != nil && cases < len(fixed) {
			t.Fatalf("%s: %v", text, err)
		}
		if err != nil || r.freq > Daily {
			continue
		}
		year := 1990 + rng.IntN(60)
		if rng.IntN(10) == 0 {
			year = 9000 + rng.IntN(990)
		}
		start := time.Date(year, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), []int{0, 9, 23}[rng.IntN(3)], []int{0, 30}[rng.IntN(2)], 0, 0, time.UTC)
		s := Series{Start: tz.TimeMoment(tz.DateTime{Date: tz.Date{Year: start.Year(), Month: start.Month(), Day: start.Day()}, Hour: start.Hour(), Minute: start.Minute()}), Zone: tz.MustZone("UTC"), Rule: r}
		cases++
		got, wantTimes := s.countCivil(start), countCivilByWalk(r, start)
		if !slices.EqualFunc(got, wantTimes, time.Time.Equal) {
			i := 0
			for i < min(len(got), len(wantTimes)) && got[i].Equal(wantTimes[i]) {
				i++
			}
			t.Fatalf("%s from %s: %d times, the walk %d; they part at %d (%v against %v)", text, start.Format("2006-01-02T15:04"), len(got), len(wantTimes), i,
				at(got, i), at(wantTimes, i))
		}
		if len(got) < r.count && r.cycleYears() > 0 && r.cycleYears() <= 9999-year {
			cycled++
		}
	}
	if cycled < want/4 {
		t.Errorf("only %d of %d rules ran short of COUNT within a span that fits: the cycle was hardly tried", cycled, want)
	}
}

func at(list []time.Time, i int) any {
	if i < len(list) {
		return list[i].Format("2006-01-02T15:04")
	}
	return "nothing"
}

// cycleYears spans a whole number of periods and is a multiple of 400.
func TestCycleYears(t *testing.T) {
	for _, c := range []struct {
		rule string
		want int
	}{
		{"FREQ=YEARLY", 400}, {"FREQ=YEARLY;INTERVAL=3", 1200}, {"FREQ=YEARLY;INTERVAL=8", 400},
		{"FREQ=MONTHLY;INTERVAL=5", 400}, {"FREQ=MONTHLY;INTERVAL=7", 2800},
		{"FREQ=WEEKLY", 400}, {"FREQ=WEEKLY;INTERVAL=3", 400}, {"FREQ=WEEKLY;INTERVAL=2", 800},
		{"FREQ=DAILY", 400}, {"FREQ=DAILY;INTERVAL=7", 400}, {"FREQ=DAILY;INTERVAL=2", 800},
		{"FREQ=DAILY;INTERVAL=26", 0}, {"FREQ=HOURLY", 0},
	} {
		r, err := parseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.cycleYears(); got != c.want {
			t.Errorf("%s: cycleYears %d, want %d", c.rule, got, c.want)
		}
	}
}

// knotRule writes a YEARLY rule whose week number, month and month day
// may never meet (BYWEEKNO=1;BYMONTH=12;BYMONTHDAY=1 never does), or
// meet once in many years; no check on its parts alone tells.
func knotRule(rng *rand.Rand) string {
	parts := []string{"FREQ=YEARLY",
		fmt.Sprintf("BYWEEKNO=%d", []int{1, 2, 52, 53, -1}[rng.IntN(5)]),
		fmt.Sprintf("BYMONTH=%d", []int{1, 12, 6}[rng.IntN(3)]),
		fmt.Sprintf("BYMONTHDAY=%d", []int{1, 2, 4, 28, 29, 31}[rng.IntN(6)]),
	}
	if rng.IntN(2) == 0 {
		parts = append(parts, "BYDAY="+weekdayCodes[rng.IntN(7)])
	}
	if rng.IntN(4) == 0 {
		parts = append(parts, fmt.Sprintf("INTERVAL=%d", 2+rng.IntN(5)))
	}
	return strings.Join(parts, ";")
}

// neverMeets, which looks near the year 9999, agrees with the search for
// the next occurrence (After), which walks from DTSTART: when it says
// never, the search finds nothing, and with INTERVAL=1, whose span the
// search covers whole, the search finds nothing only when it says never.
func TestNeverMeetsSameAsSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 12))
	want := caseCount(40, 20)
	never, met := 0, 0
	fixed := []string{ // from 2026-02-10 (never) and from 2028-02-10
		"FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29",
		"FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29",
		"FREQ=MONTHLY;INTERVAL=48;BYMONTHDAY=29;BYMONTH=2",
		"FREQ=MONTHLY;INTERVAL=48;BYMONTHDAY=29;BYMONTH=2",
		"FREQ=YEARLY;INTERVAL=1000;BYMONTH=2;BYMONTHDAY=29", // never: 2026+1000n is no leap year
		"FREQ=YEARLY;INTERVAL=1000",                         // meets: the library's 292-year stop
		"FREQ=DAILY;INTERVAL=7;BYDAY=WE",                    // never: always a Tuesday
		"FREQ=YEARLY;INTERVAL=400",
		"FREQ=YEARLY;INTERVAL=28;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO", // never: 2026+28n is no leap year
		"FREQ=WEEKLY;BYDAY=MO;BYSETPOS=1",
	}
	// and from a 31st, which the rule takes as its month day
	fixed31 := []string{"FREQ=YEARLY;BYMONTH=4", "FREQ=MONTHLY;BYMONTH=6", "FREQ=YEARLY;BYMONTH=2", "FREQ=MONTHLY"}
	for cases := 0; cases < want+len(fixed)+len(fixed31); {
		text := knotRule(rng)
		switch rng.IntN(4) {
		case 0:
			text = sparseRule(rng)
		case 1:
			text = randomRule(rng, true)
		}
		if cases < len(fixed) {
			text = fixed[cases]
		} else if i := cases - len(fixed); i < len(fixed31) {
			text = fixed31[i]
		}
		r, err := parseRule(text)
		if err != nil && cases < len(fixed)+len(fixed31) {
			t.Fatalf("%s: %v", text, err)
		}
		if err != nil || r.freq > Daily {
			continue
		}
		r.count = 0
		d, ok := tz.NewDate(1990+rng.IntN(60), time.Month(1+rng.IntN(12)), 1+rng.IntN(31))
		if !ok {
			continue
		}
		switch {
		case cases < len(fixed):
			d = tz.Date{Year: 2026 + 2*(cases%2), Month: 2, Day: 10}
		case cases < len(fixed)+len(fixed31):
			d = tz.Date{Year: 2026, Month: 1, Day: 31}
		}
		s := Series{Start: tz.TimeMoment(d.At(9, 0)), Zone: tz.MustZone("UTC"), Rule: r}
		if cases < len(fixed) && s.neverMeets() != (cases%2 == 0) {
			t.Errorf("%s from %s: neverMeets %v", text, d, s.neverMeets())
		}
		if i := cases - len(fixed); i >= 0 && i < len(fixed31) && s.neverMeets() != (i < 3) {
			t.Errorf("%s from %s: neverMeets %v", text, d, s.neverMeets())
		}
		cases++
		first := s.place(civilOf(s.Start)).Start
		_, found := s.After(first)
		got := s.neverMeets()
		switch {
		case got && found:
			t.Fatalf("%s from %s: neverMeets, but After finds one", text, d)
		case !got && !found && r.interval == 1:
			t.Fatalf("%s from %s: After finds nothing within %d years, but neverMeets is false", text, d, SearchYears)
		}
		if got {
			never++
		} else {
			met++
		}
	}
	if never < want/8 || met < want/8 {
		t.Errorf("%d rules never met and %d did: the cases hardly try one side", never, met)
	}
}

// subDailyRule writes an HOURLY or MINUTELY rule whose steps may never
// read an hour or minute it asks for (INTERVAL=60;BYMINUTE=30 from :00),
// or whose day parts may never meet.
func subDailyRule(rng *rand.Rand) string {
	f := []string{"HOURLY", "MINUTELY"}[rng.IntN(2)]
	parts := []string{"FREQ=" + f}
	if f == "HOURLY" {
		parts = append(parts, fmt.Sprintf("INTERVAL=%d", []int{1, 2, 3, 5, 24, 48, 12}[rng.IntN(7)]))
	} else {
		parts = append(parts, fmt.Sprintf("INTERVAL=%d", []int{15, 30, 60, 90, 120, 7, 1440}[rng.IntN(7)]))
	}
	if rng.IntN(3) > 0 {
		parts = append(parts, fmt.Sprintf("BYHOUR=%d", rng.IntN(24)))
	}
	if f == "MINUTELY" && rng.IntN(2) == 0 {
		parts = append(parts, fmt.Sprintf("BYMINUTE=%d", []int{0, 15, 30, 45, 7}[rng.IntN(5)]))
	}
	if rng.IntN(4) == 0 {
		parts = append(parts, "BYMONTH=2", "BYMONTHDAY=30")
	} else if rng.IntN(4) == 0 {
		parts = append(parts, "BYMONTH=2", "BYMONTHDAY=29", "BYDAY="+weekdayCodes[rng.IntN(7)])
	}
	return strings.Join(parts, ";")
}

// For HOURLY and MINUTELY rules, in zones with DST and half-hour offsets,
// neverMeets says never only when the search (After) finds nothing.
func TestSubDailyNeverMeetsSameAsSearch(t *testing.T) {
	zones := []string{"UTC", "Europe/Paris", "Australia/Lord_Howe", "Asia/Kolkata", "America/St_Johns",
		"Africa/Monrovia", "America/Caracas", "Asia/Tehran", "Asia/Kathmandu"}
	rng := rand.New(rand.NewPCG(60, 1440))
	want := caseCount(40, 16)
	fixed := []string{ // from 2026-03-01 09:00 in UTC (never, never, meets), then in Paris (meets, at 10:00 in summer)
		"FREQ=MINUTELY;INTERVAL=60;BYMINUTE=30",
		"FREQ=HOURLY;INTERVAL=24;BYHOUR=10",
		"FREQ=MINUTELY;INTERVAL=90;BYMINUTE=30",
		"FREQ=HOURLY;INTERVAL=24;BYHOUR=10",
	}
	// Offsets with seconds before 1970, all meeting: Monrovia kept
	// −0:44:30 until 1972, Caracas −4:27:40 until 1912.
	old := []struct {
		rule, zone string
		at         tz.DateTime
	}{
		{"FREQ=MINUTELY;INTERVAL=60;BYMINUTE=0", "Africa/Monrovia", tz.Date{Year: 1960, Month: 1, Day: 1}.At(9, 0)},
		{"FREQ=HOURLY;INTERVAL=24;BYHOUR=8", "Africa/Monrovia", tz.Date{Year: 1960, Month: 1, Day: 1}.At(8, 59)},
		{"FREQ=MINUTELY;INTERVAL=720;BYMINUTE=0", "America/Caracas", tz.Date{Year: 1900, Month: 1, Day: 1}.At(9, 0)},
		{"FREQ=MINUTELY;INTERVAL=932;BYHOUR=13;BYMINUTE=30;BYDAY=FR", "Africa/Abidjan", tz.Date{Year: 1910, Month: 5, Day: 17}.At(9, 10)},
		{"FREQ=MINUTELY;INTERVAL=900;BYHOUR=16,10;BYMINUTE=15;BYDAY=SU", "Asia/Tehran", tz.Date{Year: 1925, Month: 3, Day: 10}.At(15, 11)},
		{"FREQ=MINUTELY;INTERVAL=792;BYMINUTE=15", "Africa/Monrovia", tz.Date{Year: 1905, Month: 3, Day: 13}.At(8, 44)},
	}
	for _, c := range old {
		r, err := parseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if s := (Series{Start: tz.TimeMoment(c.at), Zone: tz.MustZone(c.zone), Rule: r}); s.neverMeets() {
			t.Errorf("%s from %s in %s: neverMeets, but it meets", c.rule, c.at, c.zone)
		}
	}
	never := 0
	for cases := 0; cases < want+len(fixed); {
		text, zone := subDailyRule(rng), zones[rng.IntN(len(zones))]
		d, ok := tz.NewDate(1900+rng.IntN(140), time.Month(1+rng.IntN(12)), 1+rng.IntN(31))
		if !ok {
			continue
		}
		at := d.At(rng.IntN(24), []int{0, 15, 30, 59}[rng.IntN(4)])
		if cases < len(fixed) {
			text, zone, at = fixed[cases], "UTC", tz.Date{Year: 2026, Month: 3, Day: 1}.At(9, 0)
			if cases == 3 {
				zone = "Europe/Paris"
			}
		}
		r, err := parseRule(text)
		if err != nil && cases < len(fixed) {
			t.Fatalf("%s: %v", text, err)
		}
		if err != nil {
			continue
		}
		s := Series{Start: tz.TimeMoment(at), Zone: tz.MustZone(zone), Rule: r}
		t0, _ := s.Zone.Instant(at)
		got := s.neverMeets()
		if cases < len(fixed) && got != (cases < 2) {
			t.Errorf("%s from %s: neverMeets %v", text, at, got)
		}
		cases++
		if !got {
			continue
		}
		never++
		if _, found := s.After(s.placeInstant(t0).Start); found {
			t.Fatalf("%s from %s in %s: neverMeets, but After finds one", text, at, zone)
		}
	}
	if never < want/8 {
		t.Errorf("only %d of %d rules never met: the cases hardly try that side", never, want)
	}
}

// caseCount is how many random cases a differential test tries: full, or
// short under -short and under the race detector.
func caseCount(full, short int) int {
	if testing.Short() || raceOn {
		return short
	}
	return full
}
