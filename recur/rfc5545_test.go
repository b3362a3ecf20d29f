package recur

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// rfcVector is one entry of the shared rrule/rfc5545.json (see its
// "format" notes).
type rfcVector struct {
	Name     string   `json:"name"`
	DTStart  string   `json:"dtstart"`
	RRule    string   `json:"rrule"`
	ExDates  []string `json:"exdates"`
	Count    int      `json:"count"`
	Window   *struct{ Start, End string }
	Expected []string `json:"expected"`
}

func loadVectors(t *testing.T) []rfcVector {
	t.Helper()
	dir := os.Getenv("ASSISTANT_TESTDATA")
	if dir == "" {
		t.Skip("ASSISTANT_TESTDATA is unset; set it to the shared test data folder to run the RFC 5545 vectors")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "rrule", "rfc5545.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Vectors []rfcVector }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) == 0 {
		t.Fatal("no vectors in rfc5545.json")
	}
	return file.Vectors
}

func TestRFC5545Vectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			lines := append([]string{v.DTStart, "RRULE:" + v.RRule}, v.ExDates...)
			s, err := ParseSeries(strings.Join(lines, "\r\n"), tz.UTC)
			if err != nil {
				t.Fatal(err)
			}
			var got []Occurrence
			switch {
			case v.Window != nil:
				from, _ := time.Parse(time.RFC3339, v.Window.Start)
				to, _ := time.Parse(time.RFC3339, v.Window.End)
				got = s.Between(from, to)
			case v.Count > 0:
				got = s.All(v.Count)
			default:
				got = s.All(10 * len(v.Expected))
				if _, _, bounded := s.Bounds(); !bounded {
					t.Errorf("a rule with COUNT or UNTIL should be bounded")
				}
			}
			var texts []string
			for _, o := range got {
				texts = append(texts, o.Start.In(s.Zone.Location()).Format(time.RFC3339))
			}
			if strings.Join(texts, " ") != strings.Join(v.Expected, " ") {
				t.Errorf("got %d occurrences:\n%v\nwant %d:\n%v", len(texts), texts, len(v.Expected), v.Expected)
			}
			// After walks the same set one by one.
			if len(got) > 1 {
				next, ok := s.After(got[0].Start)
				if !ok || !next.Start.Equal(got[1].Start) {
					t.Errorf("After(first) = %v, %v; want %v", next.Start, ok, got[1].Start)
				}
			}
		})
	}
}

// An ordinal BYDAY counts within the month under FREQ=MONTHLY or YEARLY with
// BYMONTH, and within the year under YEARLY alone (RFC 5545 §3.3.10). A
// period without that many of the weekday yields no occurrence; ordinals no
// period can hold are refused by ParseRule (TestParseRuleErrors).
func TestOrdinalByDayBeyondPeriod(t *testing.T) {
	paris := "Europe/Paris"
	// DTSTART is always an occurrence (RFC 5545 §3.3.10), so each window
	// starts the day after it.
	lo := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		rule  string
		years int
		want  []string
	}{
		// February has a fifth Sunday only when it starts on a Sunday in
		// a leap year: 2032 is the next.
		{"FREQ=YEARLY;BYMONTH=2;BYDAY=5SU", 7, []string{"2032-02-29T09:00+01:00"}},
		{"FREQ=YEARLY;BYMONTH=2;BYDAY=-5SU", 7, []string{"2032-02-01T09:00+01:00"}},
		// 2026 starts on a Thursday and has 53 of them; 2027 to 2031 do
		// not (2032 is a leap year starting on a Thursday).
		{"FREQ=YEARLY;BYDAY=53TH", 7, []string{"2026-12-31T09:00+01:00", "2032-12-30T09:00+01:00"}},
		{"FREQ=YEARLY;BYDAY=-53TH", 7, []string{"2032-01-01T09:00+01:00"}},
		// A month with four Fridays is skipped, not rolled into the next.
		{"FREQ=MONTHLY;BYDAY=5FR;UNTIL=20260801", 1, []string{"2026-01-30T09:00+01:00", "2026-05-29T09:00+02:00", "2026-07-31T09:00+02:00"}},
	}
	for _, c := range cases {
		got := local(timed(paris, "2026-01-01T09:00", c.rule).Between(lo, lo.AddDate(c.years, 0, 0)), paris)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.rule, got, c.want)
		}
	}
}

// Every ordinal BYDAY ParseRule accepts expands without a panic, in every
// month and weekday, through leap and common years: rrule-go indexes its
// year masks by the ordinal before checking the range, and an ordinal past
// the period (BYDAY=20SA;BYMONTH=10, found by FuzzDecode) ran off the end.
func TestOrdinalByDayNeverPanics(t *testing.T) {
	zone := tz.MustZone("Europe/Paris")
	start := tz.TimeMoment(dt("2026-01-01T09:00"))
	from := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	accepted := 0
	for _, base := range []string{"FREQ=MONTHLY", "FREQ=YEARLY", "FREQ=YEARLY;BYMONTH=1", "FREQ=YEARLY;BYMONTH=2", "FREQ=YEARLY;BYMONTH=12", "FREQ=YEARLY;BYMONTH=2,12"} {
		for n := -53; n <= 53; n++ {
			if n == 0 {
				continue
			}
			for _, wd := range weekdayCodes {
				text := base + ";BYDAY=" + strconv.Itoa(n) + wd
				r, err := ParseRule(text)
				if err != nil {
					continue
				}
				accepted++
				s := Series{Start: start, Zone: zone, Rule: r}
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Errorf("%s panics: %v", text, p)
						}
					}()
					s.Between(from, from.AddDate(8, 0, 0)) // whole-span path
					s.Between(from, from.AddDate(0, 2, 0)) // month-chunk path
				}()
			}
		}
	}
	// MONTHLY and each YEARLY;BYMONTH keep ±1…±5, plain YEARLY ±1…±53.
	if want := 7 * (10*5 + 2*53); accepted != want {
		t.Errorf("accepted %d ordinal rules, want %d", accepted, want)
	}
}

// BYDAY mixing plain and numbered weekdays means their union (RFC 5545
// §3.3.10): FREQ=MONTHLY;BYDAY=TU,4WE,TH is every Tuesday and Thursday and
// the fourth Wednesday. rrule-go alone gave nothing for it (found by
// FuzzParseRule); each case is checked against every day of two years.
func TestMixedByDayIsUnion(t *testing.T) {
	nth := func(d time.Time) (n, last int) { // n-th and -n-th weekday of d's month
		dim := time.Date(d.Year(), d.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
		return (d.Day()-1)/7 + 1, -((dim-d.Day())/7 + 1)
	}
	cases := []struct {
		rule string
		want func(d time.Time) bool
	}{
		{"FREQ=MONTHLY;BYDAY=TU,4WE,TH", func(d time.Time) bool {
			n, _ := nth(d)
			return d.Weekday() == time.Tuesday || d.Weekday() == time.Thursday || d.Weekday() == time.Wednesday && n == 4
		}},
		{"FREQ=YEARLY;BYMONTH=3,11;BYDAY=MO,-1FR", func(d time.Time) bool {
			_, last := nth(d)
			return (d.Month() == 3 || d.Month() == 11) && (d.Weekday() == time.Monday || d.Weekday() == time.Friday && last == -1)
		}},
		{"FREQ=YEARLY;BYDAY=SA,1MO", func(d time.Time) bool {
			return d.Weekday() == time.Saturday || d.Weekday() == time.Monday && d.YearDay() <= 7
		}},
		{"FREQ=MONTHLY;BYMONTHDAY=1,2,3,4,5,6,7;BYDAY=SU,-1SA", func(d time.Time) bool {
			_, last := nth(d)
			return d.Day() <= 7 && (d.Weekday() == time.Sunday || d.Weekday() == time.Saturday && last == -1)
		}},
	}
	paris := "Europe/Paris"
	lo := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range cases {
		var want []string
		for d := lo; d.Year() < 2028; d = d.AddDate(0, 0, 1) {
			if c.want(d) {
				want = append(want, d.Format("2006-01-02"))
			}
		}
		s := timed(paris, "2026-01-01T09:00", c.rule)
		var got []string
		for _, o := range s.Between(lo, lo.AddDate(2, 0, 0)) {
			if d := o.Start.In(s.Zone.Location()).Format("2006-01-02"); d != "2026-01-01" || c.want(lo) {
				got = append(got, d)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\ngot  %v\nwant %v", c.rule, got, want)
		}
	}
}
