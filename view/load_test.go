package view_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
	"github.com/assistant-dev/assistant/view"
)

// add runs an adding tool as who and returns the id it gave.
func add(t *testing.T, env *tooltest.Env, who tools.Person, tool, raw string) string {
	t.Helper()
	res, _ := env.Call(who, tool, raw)
	if !res.OK() {
		t.Fatalf("%s %s: %s", tool, raw, res.TextOut())
	}
	var d struct {
		Event struct{ ID string } `json:"event"`
		Task  struct{ ID string } `json:"task"`
	}
	if err := json.Unmarshal(res.Data, &d); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, res.Data)
	}
	if id := d.Event.ID + d.Task.ID; id != "" {
		return id
	}
	t.Fatalf("%s gave no id: %s", tool, res.Data)
	return ""
}

func date(s string) tz.Date {
	d, err := tz.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// ids lists the ids of a day's events and tasks, with their kind, for
// comparing a day in one line.
func dayLine(d view.Day) string {
	var parts []string
	for _, e := range d.AllDay {
		parts = append(parts, "all-day "+e.Title)
	}
	for _, e := range d.Timed {
		s := "timed " + e.Title
		if e.EventZone != "" {
			s += " (" + e.EventZone + ")"
		}
		parts = append(parts, s)
	}
	for _, k := range d.Tasks {
		s := "task " + k.Title
		if k.Overdue {
			s += " (overdue)"
		}
		parts = append(parts, s)
	}
	return d.Date.String() + ": " + strings.Join(parts, ", ")
}

func TestLoad(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		env := tooltest.Open(t, time.Time{}, events.Register, tasks.Register)
		env.At("Europe/Paris", "2026-10-05T10:00") // a Monday
		ann := env.Person("ann", "Europe/Paris")
		bob := env.Person("bob", "Europe/Paris")

		add(t, env, ann, "add_event", `{"title":"Holiday","start":"2026-10-06","end":"2026-10-07"}`)
		add(t, env, ann, "add_event", `{"title":"Standup","start":"2026-10-05T09:00","duration":30}`)
		add(t, env, ann, "add_event", `{"title":"Night train","start":"2026-10-05T22:00","end":"2026-10-06T06:00"}`)
		add(t, env, ann, "add_event", `{"title":"NY call","start":"2026-10-06T09:00","time_zone":"America/New_York"}`)
		add(t, env, ann, "add_event", `{"title":"Late film","start":"2026-10-06T22:00","end":"2026-10-07T00:00"}`)
		add(t, env, ann, "add_event", `{"title":"Before","start":"2026-10-04T09:00"}`)
		add(t, env, ann, "add_event", `{"title":"After","start":"2026-10-08T09:00"}`)
		gym := add(t, env, ann, "add_event", `{"title":"Gym","start":"2026-10-01T07:00","rrule":"FREQ=DAILY"}`)
		rent := add(t, env, ann, "add_task", `{"title":"Pay rent","due":"2026-10-01","priority":1}`)
		add(t, env, ann, "add_task", `{"title":"Water plants","due":"2026-10-02T18:00"}`)
		add(t, env, ann, "add_task", `{"title":"Send report","due":"2026-10-05T09:00"}`)
		add(t, env, ann, "add_task", `{"title":"Call Bea","due":"2026-10-05T17:00"}`)
		add(t, env, ann, "add_task", `{"title":"Buy milk","due":"2026-10-06"}`)
		add(t, env, ann, "add_task", `{"title":"Buy bread","due":"2026-10-06T08:00"}`)
		add(t, env, ann, "add_task", `{"title":"Later","due":"2026-10-20"}`)
		add(t, env, ann, "add_task", `{"title":"No due"}`)
		done := add(t, env, ann, "add_task", `{"title":"Done already","due":"2026-10-06"}`)
		if res, _ := env.Call(ann, "complete_task", fmt.Sprintf(`{"id":%q}`, done)); !res.OK() {
			t.Fatal(res.TextOut())
		}
		// Bob's items fill the same days and never show in Ann's view.
		add(t, env, bob, "add_event", `{"title":"Bob's meeting","start":"2026-10-05T11:00"}`)
		add(t, env, bob, "add_event", `{"title":"Bob's trip","start":"2026-10-06","end":"2026-10-07"}`)
		add(t, env, bob, "add_task", `{"title":"Bob's task","due":"2026-10-05"}`)
		add(t, env, bob, "add_task", `{"title":"Bob's old task","due":"2026-09-01"}`)

		w, err := view.Load(env.Ctx, env.Reg, env.Context(ann), date("2026-10-05"), date("2026-10-07"))
		if err != nil {
			t.Fatal(err)
		}
		if w.Zone.Name() != "Europe/Paris" || !w.Now.Equal(env.Now) || w.Cut || len(w.Days) != 3 {
			t.Fatalf("window: zone %s, now %v, cut %v, %d days", w.Zone, w.Now, w.Cut, len(w.Days))
		}
		var got []string
		for _, d := range w.Days {
			got = append(got, dayLine(d))
		}
		want := []string{
			"2026-10-05: timed Gym, timed Standup, timed Night train, task Send report (overdue), task Call Bea",
			"2026-10-06: all-day Holiday, timed Night train, timed Gym, timed NY call (America/New_York), timed Late film, task Buy bread, task Buy milk",
			"2026-10-07: all-day Holiday, timed Gym",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("days:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		var overdue []string
		for _, k := range w.Overdue {
			overdue = append(overdue, k.Title)
		}
		if strings.Join(overdue, ", ") != "Pay rent, Water plants" {
			t.Errorf("overdue: %v; want Pay rent, Water plants", overdue)
		}
		if r := w.Overdue[0]; r.ID != rent || r.Priority != 1 || r.DueTime || r.Due != date("2026-10-01") || !r.Overdue {
			t.Errorf("Pay rent read as %+v", r)
		}

		// Each field of an event as read: the crossing train on both days
		// with the same instants, the all-day event's days, a series'
		// occurrence ids.
		train := w.Days[0].Timed[2]
		if train.Title != "Night train" || train.FirstDay != date("2026-10-05") || train.LastDay != date("2026-10-06") ||
			!train.Start.Equal(time.Date(2026, 10, 5, 20, 0, 0, 0, time.UTC)) ||
			!train.End.Equal(time.Date(2026, 10, 6, 4, 0, 0, 0, time.UTC)) || !strings.HasPrefix(train.ID, train.Series+"@") ||
			w.Days[1].Timed[0].ID != train.ID {
			t.Errorf("Night train read as %+v", train)
		}
		hol := w.Days[1].AllDay[0]
		if !hol.AllDay || hol.FirstDay != date("2026-10-06") || hol.LastDay != date("2026-10-07") ||
			!hol.Start.Equal(time.Date(2026, 10, 5, 22, 0, 0, 0, time.UTC)) || !hol.End.Equal(time.Date(2026, 10, 7, 22, 0, 0, 0, time.UTC)) || hol.EventZone != "" {
			t.Errorf("Holiday read as %+v", hol)
		}
		g := w.Days[0].Timed[0]
		if g.Series != gym || !strings.HasPrefix(g.ID, gym+"@") || g.ID == w.Days[1].Timed[1].ID {
			t.Errorf("Gym occurrences: %q and %q, series %q (want %s@…)", g.ID, w.Days[1].Timed[1].ID, g.Series, gym)
		}
		ny := w.Days[1].Timed[2]
		if !ny.Start.Equal(time.Date(2026, 10, 6, 13, 0, 0, 0, time.UTC)) {
			t.Errorf("NY call starts %v; want 13:00 UTC", ny.Start)
		}
		send := w.Days[0].Tasks[0]
		if !send.DueTime || !send.DueAt.Equal(time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)) || send.Due != date("2026-10-05") {
			t.Errorf("Send report read as %+v", send)
		}

		// Bob sees his own, and none of Ann's.
		wb, err := view.Load(env.Ctx, env.Reg, env.Context(bob), date("2026-10-05"), date("2026-10-07"))
		if err != nil {
			t.Fatal(err)
		}
		var bobs []string
		for _, d := range wb.Days {
			bobs = append(bobs, dayLine(d))
		}
		for _, k := range wb.Overdue {
			bobs = append(bobs, "overdue "+k.Title)
		}
		wantBob := "2026-10-05: timed Bob's meeting, task Bob's task\n2026-10-06: all-day Bob's trip\n2026-10-07: all-day Bob's trip\noverdue Bob's old task"
		if strings.Join(bobs, "\n") != wantBob {
			t.Errorf("bob's window:\n%s\nwant:\n%s", strings.Join(bobs, "\n"), wantBob)
		}
	})
}

// A window of MaxDays with a daily event takes more than one page of
// list_events (40 a page) and more than one of list_tasks (100 a page):
// every day still holds its own.
func TestLoadPages(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		env := tooltest.Open(t, time.Time{}, events.Register, tasks.Register)
		env.At("Europe/Paris", "2026-03-01T08:00")
		ann := env.Person("ann", "Europe/Paris")
		add(t, env, ann, "add_event", `{"title":"Walk","start":"2026-03-01T07:30","rrule":"FREQ=DAILY"}`)
		for i := range view.MaxDays {
			for j := range 3 {
				add(t, env, ann, "add_task", fmt.Sprintf(`{"title":"Task %d.%d","due":%q}`, i, j, date("2026-03-01").AddDays(i)))
			}
		}
		from := date("2026-03-01")
		w, err := view.Load(env.Ctx, env.Reg, env.Context(ann), from, from.AddDays(view.MaxDays-1))
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Days) != view.MaxDays || w.Cut {
			t.Fatalf("%d days, cut %v", len(w.Days), w.Cut)
		}
		for i, d := range w.Days {
			if len(d.Timed) != 1 || len(d.Tasks) != 3 || d.Tasks[0].Title != fmt.Sprintf("Task %d.0", i) {
				t.Errorf("%s: %s", d.Date, dayLine(d))
			}
		}
		// 2026-03-29 is the day Paris moves to summer time: the walk is at
		// 07:30 there too.
		walk := w.Days[28].Timed[0]
		if c := w.Zone.In(walk.Start); walk.FirstDay != date("2026-03-29") || c.Hour != 7 || c.Minute != 30 {
			t.Errorf("walk on the DST day: %+v at %v", walk, c)
		}
	})
}

func TestLoadRefuses(t *testing.T) {
	env := tooltest.Open(t, time.Date(2026, 10, 5, 8, 0, 0, 0, time.UTC), events.Register, tasks.Register)
	ann := env.Person("ann", "Europe/Paris")
	tc := env.Context(ann)
	from := date("2026-10-05")
	for _, c := range []struct {
		to   tz.Date
		want string
	}{
		{from.AddDays(-1), "the window ends on 2026-10-04 before it starts on 2026-10-05; give a last day on or after the first"},
		{from.AddDays(view.MaxDays), "a view shows at most 42 days, and 2026-10-05 to 2026-11-16 is 43; ask for fewer days"},
	} {
		var we *view.WindowError
		if _, err := view.Load(env.Ctx, env.Reg, tc, from, c.to); err == nil || err.Error() != c.want || !errors.As(err, &we) {
			t.Errorf("to %s: %v; want %q as a *view.WindowError", c.to, err, c.want)
		}
	}
	// The calendar's last days: a window running into the year 10000 is
	// refused (the grid of a week or a month from 9999-12-31 would).
	last := date("9999-12-31")
	var we *view.WindowError
	if _, err := view.Load(env.Ctx, env.Reg, tc, last.AddDays(-4), last.AddDays(2)); !errors.As(err, &we) ||
		err.Error() != "the calendar ends on 9999-12-31, and this view would run to 10000-01-02; start it earlier" {
		t.Errorf("a window into the year 10000: %v", err)
	}
	if w, err := view.Load(env.Ctx, env.Reg, tc, last.AddDays(-4), last); err != nil || len(w.Days) != 5 {
		t.Errorf("the calendar's last five days: %v", err)
	}
	if _, err := view.Load(env.Ctx, env.Reg, tc, from, from.AddDays(view.MaxDays-1)); err != nil {
		t.Errorf("MaxDays: %v", err)
	}
	ctx, cancel := context.WithCancel(env.Ctx)
	cancel()
	if _, err := view.Load(ctx, env.Reg, tc, from, from); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v; want context.Canceled", err)
	}
	// A registry without the tools answers with the registry's sentence.
	var te *view.ToolError
	if _, err := view.Load(env.Ctx, tools.NewRegistry(), tc, from, from); !errors.As(err, &te) || te.Tool != "list_events" ||
		te.Result.Code != tools.CodeInvalid || !strings.Contains(err.Error(), "list_events") {
		t.Errorf("no tools: %v", err)
	}
	if _, err := view.Load(env.Ctx, env.Reg, &tools.ToolContext{}, from, from); err == nil {
		t.Error("no person: no error")
	}
}

// Past MaxItems the reading stops and the window says it is Cut: 50
// daily events over MaxDays days are 2,100 occurrences.
func TestLoadCut(t *testing.T) {
	env := tooltest.Open(t, time.Time{}, events.Register, tasks.Register)
	env.At("Europe/Paris", "2026-10-05T08:00")
	ann := env.Person("ann", "Europe/Paris")
	for i := range 50 {
		add(t, env, ann, "add_event", fmt.Sprintf(`{"title":"Daily %d","start":"2026-10-05T%02d:%02d","duration":5,"rrule":"FREQ=DAILY"}`, i, 6+i/6, i%6*10))
	}
	from := date("2026-10-05")
	w, err := view.Load(env.Ctx, env.Reg, env.Context(ann), from, from.AddDays(view.MaxDays-1))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range w.Days {
		n += len(d.Timed)
	}
	if !w.Cut || n != view.MaxItems || len(w.Days[0].Timed) != 50 {
		t.Errorf("cut %v, %d occurrences read (want %d), %d on the first day", w.Cut, n, view.MaxItems, len(w.Days[0].Timed))
	}
	if out := view.Agenda(w, view.Options{}); !strings.HasSuffix(out, "only the first 2000 are shown.\n") {
		t.Errorf("the agenda of a cut window ends:\n%s", out[max(0, len(out)-300):])
	}
}
