package view

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

func monthSpec(t *testing.T, zone, day, now string, events []Event, tasks []Task, over []Task) winSpec {
	from, to := MonthOf(date(t, day))
	return winSpec{zone: zone, from: from.String(), days: from.DaysUntil(to) + 1, now: now, events: events, tasks: tasks, over: over}
}

func TestMonthGoldens(t *testing.T) {
	const paris = "Europe/Paris"
	specs := map[string]winSpec{
		// March 2026: the clocks change on the 29th; today is the 25th.
		"march": monthSpec(t, paris, "2026-03-10", "2026-03-25T10:20:00+01:00",
			append(weekSpecs(t)["dst-spring"].events,
				timed(t, "e20", "Board meeting about the budget of the next three years", paris, "2026-03-02T09:00", 120),
				timed(t, "e21", "Lunch", paris, "2026-03-02T12:30", 60),
				timed(t, "e22", "Gym", paris, "2026-03-02T18:00", 60),
				timed(t, "e23", "Dinner", paris, "2026-03-02T20:00", 90),
				timed(t, "e24", "Movie", paris, "2026-03-02T22:30", 120),
				allDay(t, "e25", "Holiday", "2026-03-31", "2026-04-02"),
			),
			weekSpecs(t)["dst-spring"].tasks,
			[]Task{{ID: "t0", Title: "Renew the passport", Due: tz.Date{Year: 2026, Month: 2, Day: 20}, Overdue: true}}),
		// February 2027 starts on a Monday and fills four weeks.
		"february-empty": monthSpec(t, paris, "2027-02-14", "2026-12-06T09:00:00+01:00", nil, nil, nil),
		// August 2026 spans six weeks (Saturday the 1st to Monday the 31st).
		"august-six-weeks": monthSpec(t, "America/New_York", "2026-08-01", "2026-08-31T23:30:00-04:00",
			[]Event{timed(t, "e1", "Late call", "America/New_York", "2026-08-31T23:00", 30), allDay(t, "e2", "Camp", "2026-07-30", "2026-08-02"),
				timed(t, "e3", "Relay", "America/New_York", "2026-08-10T20:00", 3000)}, nil, nil),
	}
	for name, spec := range specs {
		if spec.days > MaxDays {
			t.Fatalf("%s: %d days, more than MaxDays", name, spec.days)
		}
		for _, width := range []int{80, 120} {
			got := Month(spec.window(t), GridOptions{Width: width})
			golden(t, filepath.Join("month", name+"-"+strconv.Itoa(width)+".golden"), got)
			for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if n := termWidth(line); n > width {
					t.Errorf("%s at %d columns: line %d is %d columns wide: %q", name, width, i+1, n, line)
				}
			}
		}
	}
	golden(t, "month/march-80-colour.golden", Month(specs["march"].window(t), GridOptions{Width: 80, Colour: true}))
	// A timed event over three days: its start on the first, "…–…" on the
	// day it runs through (it said "…–22:00", the last day's end), its end
	// on the last.
	aug := Month(specs["august-six-weeks"].window(t), GridOptions{Width: 120})
	for _, want := range []string{"Mon 10  20:00 Relay", "Tue 11  …–… Relay", "Wed 12  …–22:00 Relay"} {
		if !strings.Contains(aug, want) {
			t.Errorf("August lacks %q:\n%s", want, aug)
		}
	}
}

func TestMonthOfAndWeekOf(t *testing.T) {
	cases := []struct{ day, from, to, mon, sun string }{
		{"2026-03-10", "2026-02-23", "2026-04-05", "2026-03-09", "2026-03-15"},
		{"2027-02-14", "2027-02-01", "2027-02-28", "2027-02-08", "2027-02-14"},
		{"2026-08-01", "2026-07-27", "2026-09-06", "2026-07-27", "2026-08-02"},
		{"2026-12-31", "2026-11-30", "2027-01-03", "2026-12-28", "2027-01-03"},
	}
	for _, c := range cases {
		from, to := MonthOf(date(t, c.day))
		if from.String() != c.from || to.String() != c.to {
			t.Errorf("MonthOf(%s) = %s..%s, want %s..%s", c.day, from, to, c.from, c.to)
		}
		mon, sun := WeekOf(date(t, c.day))
		if mon.String() != c.mon || sun.String() != c.sun || mon.Weekday() != time.Monday {
			t.Errorf("WeekOf(%s) = %s..%s, want %s..%s", c.day, mon, sun, c.mon, c.sun)
		}
	}
}
