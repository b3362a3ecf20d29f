package view

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// The -update flag rewrites the goldens under testdata/. Another test file
// of this package may define it too; whichever is first defines it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// golden compares got with testdata/NAME, or writes it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./view -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from what is rendered now (go test ./view -update rewrites it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// A hand-made window: what view.Load would read from the tools, built
// here from events and tasks given in wall-clock times.
type winSpec struct {
	zone   string
	from   string // the first day
	days   int
	now    string // RFC 3339
	events []Event
	tasks  []Task
	over   []Task
}

// at is the instant the clock of zone reads wall ("2026-03-23T09:00").
func at(t *testing.T, zone, wall string) time.Time {
	t.Helper()
	dt, err := tz.ParseDateTime(wall)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := tz.MustZone(zone).Instant(dt)
	return i
}

func date(t *testing.T, s string) tz.Date {
	t.Helper()
	d, err := tz.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// timed is an event of zone from wall for minutes.
func timed(t *testing.T, id, title, zone, wall string, minutes int) Event {
	s := at(t, zone, wall)
	return Event{ID: id, Series: id, Title: title, Start: s, End: s.Add(time.Duration(minutes) * time.Minute), EventZone: zone}
}

func allDay(t *testing.T, id, title, first, last string) Event {
	return Event{ID: id, Series: id, Title: title, AllDay: true, FirstDay: date(t, first), LastDay: date(t, last)}
}

func task(t *testing.T, id, title, due string, prio int) Task {
	tk := Task{ID: id, Title: title, Priority: prio}
	if len(due) > 10 {
		tk.DueTime = true
		tk.DueAt = at(t, "Europe/Paris", due)
		tk.Due = tz.DateOf(tk.DueAt.In(tz.MustZone("Europe/Paris").Location()))
	} else {
		tk.Due = date(t, due)
	}
	return tk
}

func (s winSpec) window(t *testing.T) Window {
	t.Helper()
	z := tz.MustZone(s.zone)
	now, err := time.Parse(time.RFC3339, s.now)
	if err != nil {
		t.Fatal(err)
	}
	from := date(t, s.from)
	w := Window{Zone: z, Now: now, From: from, To: from.AddDays(s.days - 1), Overdue: s.over}
	for i := 0; i < s.days; i++ {
		d := Day{Date: from.AddDays(i)}
		start, end := z.DayBounds(d.Date)
		for _, ev := range s.events {
			if ev.AllDay {
				if !d.Date.Before(ev.FirstDay) && !d.Date.After(ev.LastDay) {
					e := ev
					e.Start, _ = z.DayBounds(ev.FirstDay)
					_, e.End = z.DayBounds(ev.LastDay)
					e.EventZone = ""
					d.AllDay = append(d.AllDay, e)
				}
				continue
			}
			if ev.Start.Before(end) && (ev.End.After(start) || ev.End.Equal(ev.Start) && !ev.Start.Before(start)) {
				e := ev
				e.FirstDay, e.LastDay = z.Today(ev.Start), z.Today(ev.End.Add(-time.Nanosecond))
				if e.EventZone == s.zone {
					e.EventZone = ""
				}
				d.Timed = append(d.Timed, e)
			}
		}
		sort.SliceStable(d.Timed, func(a, b int) bool { return d.Timed[a].Start.Before(d.Timed[b].Start) })
		for _, tk := range s.tasks {
			if tk.Due == d.Date {
				d.Tasks = append(d.Tasks, tk)
			}
		}
		w.Days = append(w.Days, d)
	}
	return w
}

// The weeks of the goldens.
func weekSpecs(t *testing.T) map[string]winSpec {
	const paris = "Europe/Paris"
	return map[string]winSpec{
		// The clocks go forward on Sunday 29 March 2026 at 02:00: the
		// 09:00 standup stays at 09:00 every day, and the night event of
		// Sunday (01:30 to 04:00 by the clock, 1.5 hours long) runs over
		// the hour that does not exist.
		"dst-spring": {zone: paris, from: "2026-03-23", days: 7, now: "2026-03-25T10:20:00+01:00",
			events: []Event{
				timed(t, "e1", "Standup", paris, "2026-03-23T09:00", 15),
				timed(t, "e2", "Standup", paris, "2026-03-24T09:00", 15),
				timed(t, "e3", "Standup", paris, "2026-03-25T09:00", 15),
				timed(t, "e4", "Standup", paris, "2026-03-26T09:00", 15),
				timed(t, "e5", "Standup", paris, "2026-03-27T09:00", 15),
				timed(t, "e6", "Dentist", paris, "2026-03-24T14:00", 60),
				timed(t, "e7", "Night train", paris, "2026-03-29T01:30", 90),
				allDay(t, "e8", "Spring break", "2026-03-27", "2026-03-29"),
			},
			tasks: []Task{task(t, "t1", "Pay the rent", "2026-03-27", 1), task(t, "t2", "Call the plumber", "2026-03-23T11:00", 0)},
		},
		// The clocks go back on Sunday 25 October 2026 at 03:00: 02:00 to
		// 03:00 happens twice; the party runs through both.
		"dst-autumn": {zone: paris, from: "2026-10-19", days: 7, now: "2026-10-25T02:30:00+01:00",
			events: []Event{
				timed(t, "e1", "Planning", paris, "2026-10-19T10:00", 90),
				timed(t, "e2", "Party", paris, "2026-10-24T22:00", 6*60),
				timed(t, "e3", "Lunch with Ana", paris, "2026-10-22T12:30", 60),
			},
		},
		// A call kept in New York's zone at 09:00: 14:00 in Paris until the
		// US clocks go back on Sunday 1 November, 15:00 on that day.
		"other-zone": {zone: paris, from: "2026-10-26", days: 7, now: "2026-10-26T08:00:00+01:00",
			events: []Event{
				timed(t, "e1@1", "NY sync", "America/New_York", "2026-10-26T09:00", 60),
				timed(t, "e1@2", "NY sync", "America/New_York", "2026-10-28T09:00", 60),
				timed(t, "e1@3", "NY sync", "America/New_York", "2026-10-30T09:00", 60),
				timed(t, "e1@4", "NY sync", "America/New_York", "2026-11-01T09:00", 60),
			},
		},
		// Three meetings at once on Tuesday, two on Thursday, one over
		// midnight, and the current time on Thursday.
		"overlap": {zone: paris, from: "2026-12-07", days: 7, now: "2026-12-10T11:40:00+01:00",
			events: []Event{
				timed(t, "e1", "Review", paris, "2026-12-08T10:00", 120),
				timed(t, "e2", "Interview", paris, "2026-12-08T10:30", 60),
				timed(t, "e3", "Support", paris, "2026-12-08T11:00", 90),
				timed(t, "e4", "Budget", paris, "2026-12-10T09:00", 120),
				timed(t, "e5", "Coffee", paris, "2026-12-10T10:00", 30),
				timed(t, "e6", "Deploy", paris, "2026-12-11T16:00", 60),
				timed(t, "e7", "Release night", paris, "2026-12-11T22:00", 4*60),
				allDay(t, "e8", "Conference", "2026-12-07", "2026-12-08"),
				allDay(t, "e9", "Office closed", "2026-12-07", "2026-12-07"),
			},
			tasks: []Task{task(t, "t3", "Send the slides", "2026-12-08T17:00", 2), task(t, "t4", "Book the hotel", "2026-12-10", 0)},
			over:  []Task{{ID: "t1", Title: "File the expense report", Due: tz.Date{Year: 2026, Month: 12, Day: 2}, Overdue: true}},
		},
		// Titles longer than any column, in several scripts.
		"long-title": {zone: paris, from: "2026-12-07", days: 7, now: "2026-12-01T09:00:00+01:00",
			events: []Event{
				timed(t, "e1", "Quarterly business review with the whole regional sales team", paris, "2026-12-07T09:00", 120),
				timed(t, "e2", "東京オフィスとの定例会議について", paris, "2026-12-08T10:00", 60),
				timed(t, "e3", "Café crème avec Zoë et Françoise", paris, "2026-12-09T10:00", 60),
				timed(t, "e4", "Line one\nline two\x1b[31m", paris, "2026-12-10T10:00", 60),
				allDay(t, "e5", "Grandmother's ninetieth birthday party in the countryside", "2026-12-11", "2026-12-11"),
			},
			tasks: []Task{task(t, "t9", strings.Repeat("A very long task title that goes on ", 4), "2026-12-07", 0)},
		},
		"empty": {zone: paris, from: "2026-12-07", days: 7, now: "2026-12-09T15:10:00+01:00"},
	}
}

func TestWeekGoldens(t *testing.T) {
	for name, spec := range weekSpecs(t) {
		for _, width := range []int{80, 120} {
			w := spec.window(t)
			got := Week(w, GridOptions{Width: width})
			golden(t, filepath.Join("week", name+"-"+strconv.Itoa(width)+".golden"), got)
			for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if n := termWidth(line); n > width {
					t.Errorf("%s at %d columns: line %d is %d columns wide: %q", name, width, i+1, n, line)
				}
			}
			if strings.Contains(got, "\x1b") {
				t.Errorf("%s: plain output holds an escape sequence", name)
			}
		}
	}
	w := weekSpecs(t)["overlap"].window(t)
	golden(t, "week/overlap-120-colour.golden", Week(w, GridOptions{Width: 120, Colour: true}))
}
