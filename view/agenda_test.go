package view_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/view"
)

// The -update flag rewrites the goldens under testdata/. Another test
// file of this test binary may define it too; whichever runs first does.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

func updatingGoldens() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// agendaGolden compares got with testdata/agenda/NAME, or writes it with
// -update.
func agendaGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "agenda", name)
	if updatingGoldens() {
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
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to accept):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// cols is how many terminal columns a line of plain text takes.
func cols(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// checkFits fails when a line of out is wider than w columns (escapes not
// counted) or out is not valid UTF-8.
func checkFits(t *testing.T, name, out string, w int) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s: not valid UTF-8", name)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if c := cols(sgr.ReplaceAllString(line, "")); c > w {
			t.Errorf("%s: a line of %d columns, over %d:\n%s", name, c, w, line)
		}
	}
}

// springWindow is Ann's agenda around Paris's change to summer time
// (2026-03-29, 02:00 -> 03:00), read from a real store at 10:30 that
// morning: an overdue task from before the window and one from earlier
// that day, a night crossing both midnight and the change, a call kept in
// New York's zone (which changed three weeks before, so it moves an hour
// in Paris), a long title with wide runes, and an empty last day.
func springWindow(t *testing.T) view.Window {
	env := tooltest.Open(t, time.Time{}, events.Register, tasks.Register)
	env.At("Europe/Paris", "2026-03-29T10:30")
	ann := env.Person("ann", "Europe/Paris")
	bob := env.Person("bob", "Europe/Paris")
	for _, c := range []struct{ tool, raw string }{
		{"add_task", `{"title":"Pay rent","due":"2026-03-25","priority":1}`},
		{"add_task", `{"title":"File the tax return","due":"2026-03-29T09:00","priority":2}`},
		{"add_event", `{"title":"Night shift","start":"2026-03-28T22:00","end":"2026-03-29T06:00","location":"Hôpital"}`},
		{"add_event", `{"title":"Standup with New York","start":"2026-03-27T09:00","duration":30,"time_zone":"America/New_York","rrule":"FREQ=DAILY;COUNT=4"}`},
		{"add_event", `{"title":"Brunch","start":"2026-03-29T10:00","duration":120,"location":"Café de Flore"}`},
		{"add_event", `{"title":"Spring fair","start":"2026-03-29","end":"2026-03-30"}`},
		{"add_event", `{"title":"Quarterly planning with the whole product team 四半期計画 and the people from finance who asked to join","start":"2026-03-30T14:00","duration":90}`},
		{"add_task", `{"title":"Book the train","due":"2026-03-30"}`},
		{"add_task", `{"title":"Call the plumber","due":"2026-03-29T17:00"}`},
	} {
		add(t, env, ann, c.tool, c.raw)
	}
	add(t, env, bob, "add_event", `{"title":"Bob's secret","start":"2026-03-29T11:00"}`)
	add(t, env, bob, "add_task", `{"title":"Bob's overdue","due":"2026-03-01"}`)
	w, err := view.Load(env.Ctx, env.Reg, env.Context(ann), date("2026-03-28"), date("2026-03-31"))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// autumnWindow is the day Paris goes back to winter time (2026-10-25,
// 03:00 -> 02:00) and the days around it, at 08:00 that morning.
func autumnWindow(t *testing.T) view.Window {
	env := tooltest.Open(t, time.Time{}, events.Register, tasks.Register)
	env.At("Europe/Paris", "2026-10-25T08:00")
	ann := env.Person("ann", "Europe/Paris")
	for _, c := range []struct{ tool, raw string }{
		{"add_event", `{"title":"Late party","start":"2026-10-25T01:00","duration":180}`},
		{"add_event", `{"title":"Market","start":"2026-10-25T09:00","duration":60}`},
		{"add_event", `{"title":"Flight to Tokyo","start":"2026-10-26T11:00","end":"2026-10-27T07:00","time_zone":"Europe/Paris"}`},
		{"add_task", `{"title":"Set the oven clock back","due":"2026-10-25"}`},
		{"add_task", `{"title":"Renew passport","due":"2026-10-20"}`},
	} {
		add(t, env, ann, c.tool, c.raw)
	}
	w, err := view.Load(env.Ctx, env.Reg, env.Context(ann), date("2026-10-24"), date("2026-10-27"))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestAgendaGoldens(t *testing.T) {
	spring, autumn := springWindow(t), autumnWindow(t)
	for _, c := range []struct {
		name string
		w    view.Window
		o    view.Options
	}{
		{"spring-80.golden", spring, view.Options{Width: 80}},
		{"spring-120.golden", spring, view.Options{Width: 120}},
		{"spring-80-colour.golden", spring, view.Options{Width: 80, Colour: true}},
		{"autumn-80.golden", autumn, view.Options{}},
		{"autumn-120-colour.golden", autumn, view.Options{Width: 120, Colour: true}},
		{"narrow-60.golden", spring, view.Options{Width: 20}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := view.Agenda(c.w, c.o)
			agendaGolden(t, c.name, out)
			w := c.o.Width
			if w == 0 {
				w = view.DefaultWidth
			}
			checkFits(t, c.name, out, max(w, view.MinWidth))
			if has := strings.Contains(out, "\x1b["); has != c.o.Colour {
				t.Errorf("escapes in the text: %v; colour %v", has, c.o.Colour)
			}
			if strings.Contains(out, "Bob") {
				t.Error("another person's items show")
			}
		})
	}

	// What the goldens must show, said once more so that an -update that
	// lost it fails.
	plain := view.Agenda(spring, view.Options{Width: 80})
	for _, want := range []string{
		"Sunday 29 March 2026 · Today · clocks go forward 1h at 02:00",
		"Monday 30 March 2026 · Tomorrow",
		"Tuesday 31 March 2026\n  nothing planned\n",
		"4 days overdue", // Pay rent, due on the 25th
		"1 hour overdue", // the tax return, due at 09:00, at 10:30
		"▶ 10:00–12:00  Brunch · Café de Flore",
		"14:00–14:30  Standup with New York (09:00–09:30 New York)", // Saturday: 5 hours apart
		"15:00–15:30  Standup with New York (09:00–09:30 New York)", // Sunday: 6
		"22:00–…      Night shift (until Sun 06:00) · Hôpital",
		"…–06:00      Night shift (since Sat 22:00) · Hôpital",
	} {
		if !strings.Contains(plain, want) {
			t.Errorf("the spring agenda lacks %q:\n%s", want, plain)
		}
	}
	// The wide runes count two columns each: the line ends at 120.
	if wide := view.Agenda(spring, view.Options{Width: 120}); !strings.Contains(wide, "team 四半期計画 and the people from finan…  e5@") {
		t.Errorf("the long title at 120 columns:\n%s", wide)
	}
	if a := view.Agenda(autumn, view.Options{}); !strings.Contains(a, "Sunday 25 October 2026 · Today · clocks go back 1h at 03:00") ||
		!strings.Contains(a, "01:00–03:00  Late party") || !strings.Contains(a, "5 days overdue") {
		t.Errorf("the autumn agenda:\n%s", a)
	}
}

// An empty window says so day by day, and a Cut one says it is partial.
func TestAgendaEmptyAndCut(t *testing.T) {
	z := tools.Person{}.Zone
	w := view.Window{Zone: z, Now: time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC), From: date("2026-10-05"), To: date("2026-10-05"),
		Days: []view.Day{{Date: date("2026-10-05")}}}
	got := view.Agenda(w, view.Options{})
	if got != "Monday 5 October 2026 · Today\n  nothing planned\n" {
		t.Errorf("empty:\n%q", got)
	}
	w.Cut = true
	if got := view.Agenda(w, view.Options{}); !strings.HasSuffix(got, "\nThe window holds more than 2000 events and tasks; only the first 2000 are shown.\n") {
		t.Errorf("cut:\n%s", got)
	}
}

// A title cannot move the cursor: control characters print as spaces.
func TestAgendaCleansTitles(t *testing.T) {
	z := tools.Person{}.Zone
	d := date("2026-10-05")
	w := view.Window{Zone: z, Now: time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC), From: d, To: d,
		Days: []view.Day{{Date: d, Tasks: []view.Task{{ID: "t1", Title: "evil\x1b[2Jtitle\nsecond line", Due: d, Priority: 4}}}}}
	got := view.Agenda(w, view.Options{})
	if strings.Contains(got, "\x1b") || strings.Count(got, "\n") != 2 || !strings.Contains(got, "☐ evil [2Jtitle second line") {
		t.Errorf("got %q", got)
	}
}

// The JSON form of the spring window: a golden, and the names scripts
// read, checked by decoding.
func TestAgendaJSON(t *testing.T) {
	b, err := view.JSON(springWindow(t))
	if err != nil {
		t.Fatal(err)
	}
	agendaGolden(t, "spring.json", string(b))
	var got struct {
		TimeZone string `json:"time_zone"`
		Overdue  []struct {
			ID      string `json:"id"`
			Overdue bool   `json:"overdue"`
		} `json:"overdue"`
		Days []struct {
			Date   string `json:"date"`
			AllDay []any  `json:"all_day"`
			Events []struct {
				Title    string `json:"title"`
				Start    string `json:"start"`
				TimeZone string `json:"time_zone"`
				Now      bool   `json:"now"`
			} `json:"events"`
			Tasks []any `json:"tasks"`
		} `json:"days"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.TimeZone != "Europe/Paris" || len(got.Overdue) != 1 || !got.Overdue[0].Overdue || len(got.Days) != 4 {
		t.Fatalf("%+v", got)
	}
	brunch := got.Days[1].Events[1]
	if brunch.Title != "Brunch" || !brunch.Now || brunch.Start != "2026-03-29T10:00:00+02:00" || got.Days[1].Events[2].TimeZone != "America/New_York" {
		t.Errorf("Sunday's events: %+v", got.Days[1].Events)
	}
	if d := got.Days[3]; d.Date != "2026-03-31" || d.AllDay == nil || d.Events == nil || d.Tasks == nil || len(d.Events)+len(d.Tasks) != 0 {
		t.Errorf("the empty day: %+v (want empty lists, not null)", d)
	}
}
