package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// caldavPython is a python3 that imports caldav (Debian's python3-caldav)
// and icalendar; it skips t (fails it under CI=true) when there is none.
func caldavPython(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import caldav, icalendar").Run() == nil {
			return path
		}
	}
	needClient(t, false, "no python3 here imports caldav (Debian package python3-caldav)")
	return ""
}

// utcOf is the instant of an RFC 3339 time of list_events, in UTC.
func utcOf(t *testing.T, s string) string {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("list_events gave the time %q: %v", s, err)
	}
	return at.UTC().Format(time.RFC3339)
}

// pyComponent is one VEVENT of an object as testdata/caldav/client.py
// prints it; times are UTC (20261007T160000Z).
type pyComponent struct {
	UID          string `json:"uid"`
	Summary      string `json:"summary"`
	DTStart      string `json:"dtstart"`
	RecurrenceID string `json:"recurrence-id"`
	RRule        string `json:"rrule"`
	Due          string `json:"due"`
	Status       string `json:"status"`
	Color        string `json:"x-e2e-color"`
}

// pyObject is one calendar object resource as the script prints it.
type pyObject struct {
	URL        string        `json:"url"`
	Components []pyComponent `json:"components"`
}

// pyOut is what one step of the script prints; each step fills its part.
type pyOut struct {
	Error     string `json:"error"` // the traceback of a step that failed
	Principal string `json:"principal"`
	Calendars []struct {
		URL        string   `json:"url"`
		Name       string   `json:"name"`
		Components []string `json:"components"`
	} `json:"calendars"`
	Created     map[string]string `json:"created"`
	Plain       []pyObject        `json:"plain"`
	ExpandedRaw []pyObject        `json:"expanded_raw"`
	Expanded    []pyObject        `json:"expanded"`
	Components  []pyComponent     `json:"components"`
	Gone        json.RawMessage   `json:"gone"` // delete: a bool; sync: the URLs gone
	Token       string            `json:"token"`
	Changed     []pyObject        `json:"changed"`
	Pending     []pyObject        `json:"pending"`
	Busy        []string          `json:"busy"`
	Found       []string          `json:"found"`
	All         []pyObject        `json:"all"`
}

// startPySession starts testdata/caldav/client.py on url as user and
// returns its step function: it sends one step and returns what the
// script answered, failing the test when the step failed or no answer
// came within [clientLimit]. One process for the whole session, so
// python3-caldav is imported once.
func startPySession(t *testing.T, python, script, url, user, password string) func(t *testing.T, args ...string) pyOut {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, python, script, url, user, password)
	cmd.Dir = t.TempDir()
	stdin, stdout, stderr := startPiped(t, cmd)
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<16), 1<<24)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		// The script ends at the end of its input; the reader ends with
		// its output, before Wait closes the pipe. A script that does not
		// end within clientLimit is killed.
		stdin.Close()
		timeout := time.After(clientLimit)
	drain:
		for {
			select {
			case _, ok := <-lines:
				if !ok {
					break drain
				}
			case <-timeout:
				cancel()
				timeout = nil
			}
		}
		cancel()
		cmd.Wait()
	})
	return func(t *testing.T, args ...string) pyOut {
		t.Helper()
		line, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			t.Fatalf("python3-caldav step %v: the script is gone (%v):\n%s", args, err, stderr.String())
		}
		var got string
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("python3-caldav step %v: the script ended without an answer:\n%s", args, stderr.String())
			}
			got = l
		case <-time.After(clientLimit):
			t.Fatalf("python3-caldav step %v: no answer within %s:\n%s", args, clientLimit, stderr.String())
		}
		var out pyOut
		if err := json.Unmarshal([]byte(got), &out); err != nil {
			t.Fatalf("python3-caldav step %v answered no JSON (%v):\n%s", args, err, got)
		}
		if out.Error != "" {
			t.Fatalf("python3-caldav step %v failed:\n%s", args, out.Error)
		}
		return out
	}
}

// A session of python3-caldav, a client none of us wrote, against
// `assistant serve --http`, given only the server's root URL, a person's
// name and a token: discovery finds the two collections; events it saves
// (one with a property assistant does not model, one daily series) are
// what list_events shows; a time-range calendar-query finds them, and
// with expand the server itself sends the occurrences; a search of the
// titles finds those that hold the text and no other; an override of one
// occurrence saved with the whole object moves that occurrence in
// list_events; free-busy-query gives the busy times with that move;
// an all-day event is all-day there; a delete removes the
// event; a task saved in the tasks collection is in list_tasks, and once
// the client completes it, done there and no longer pending for the
// client's STATUS filters; sync-collection first gives
// every member, then only what a tool call changed, then reports the
// event a tool deleted as gone.
func TestCalDAVPythonClient(t *testing.T) { storetest.Engines(t, testCalDAVPythonClient) }

func testCalDAVPythonClient(t *testing.T) {
	python := caldavPython(t)
	script, err := filepath.Abs(filepath.Join("testdata", "caldav", "client.py"))
	if err != nil {
		t.Fatal(err)
	}
	d := newDAVSite(t, "alice")
	step := startPySession(t, python, script, d.base+"/", "alice", d.tokens["alice"])
	byName := map[string]string{} // collection's components → its URL

	t.Run("discover", func(t *testing.T) {
		out := step(t, "discover")
		if !strings.HasSuffix(out.Principal, "/dav/alice/") {
			t.Errorf("principal %q, want …/dav/alice/", out.Principal)
		}
		for _, c := range out.Calendars {
			byName[strings.Join(c.Components, ",")] = c.URL
		}
		if len(out.Calendars) != 2 || byName["VEVENT"] == "" || byName["VTODO"] == "" {
			t.Fatalf("calendars %+v, want two: one of VEVENT alone, one of VTODO alone", out.Calendars)
		}
		if !strings.HasSuffix(byName["VEVENT"], "/dav/alice/calendars/events/") || !strings.HasSuffix(byName["VTODO"], "/dav/alice/calendars/tasks/") {
			t.Errorf("collections %v, want …/dav/alice/calendars/events/ and …/tasks/", byName)
		}
	})
	if t.Failed() {
		return
	}

	var created map[string]string
	t.Run("create", func(t *testing.T) {
		created = step(t, "create").Created
		for _, name := range []string{"dentist", "holiday", "yoga"} {
			if !strings.HasPrefix(created[name], byName["VEVENT"]) {
				t.Fatalf("%s saved at %q, not in the events collection %s", name, created[name], byName["VEVENT"])
			}
		}
		got := d.events(t, "alice", "2026-10-05", "2026-10-11")
		var dentist, yoga, holiday []string
		for _, o := range got {
			switch o.Title {
			case "Day off":
				holiday = append(holiday, fmt.Sprintf("%s %s all-day=%v", o.Start, o.End, o.AllDay))
			case "Dentist":
				dentist = append(dentist, utcOf(t, o.Start))
			case "Yoga":
				yoga = append(yoga, o.Start)
			}
		}
		if want := []string{"2026-10-07T13:00:00Z"}; !slices.Equal(dentist, want) {
			t.Errorf("list_events shows the dentist at %v, want %v as the client wrote it:\n%+v", dentist, want, got)
		}
		if len(holiday) != 1 || !strings.HasPrefix(holiday[0], "2026-10-09") || !strings.HasSuffix(holiday[0], "all-day=true") {
			t.Errorf("list_events shows the all-day day off (DTSTART;VALUE=DATE:20261009) as %v, want one all-day event on 9 October", holiday)
		}
		wantYoga := []string{"2026-10-05T18:00:00+02:00", "2026-10-06T18:00:00+02:00", "2026-10-07T18:00:00+02:00", "2026-10-08T18:00:00+02:00", "2026-10-09T18:00:00+02:00"}
		if !slices.Equal(yoga, wantYoga) {
			t.Errorf("list_events shows yoga at %v, want the 5 daily ones at 18:00 Paris %v", yoga, wantYoga)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("read by time range", func(t *testing.T) {
		out := step(t, "search", "20261006T000000Z", "20261008T000000Z")
		plain := map[string]pyObject{}
		for _, o := range out.Plain {
			plain[o.URL] = o
		}
		if len(out.Plain) != 2 || plain[created["dentist"]].URL == "" || plain[created["yoga"]].URL == "" {
			t.Fatalf("calendar-query 6–8 October answered %+v, want the dentist and the yoga series", out.Plain)
		}
		if c := plain[created["dentist"]].Components; len(c) != 1 || c[0].Color != "teal" || c[0].DTStart != "20261007T130000Z" {
			t.Errorf("the dentist came back as %+v, want DTSTART 13:00Z and the client's X-E2E-COLOR:teal kept", c)
		}
		if c := plain[created["yoga"]].Components; len(c) != 1 || c[0].RRule != "FREQ=DAILY;COUNT=5" || c[0].DTStart != "20261005T160000Z" {
			t.Errorf("without expand the yoga series came back as %+v, want its master with RRULE FREQ=DAILY;COUNT=5 from 16:00Z on the 5th", c)
		}
		// With expand, the server sends the occurrences of the window, each
		// with its RECURRENCE-ID and no RRULE (RFC 4791 §9.6.5).
		var inst []string
		for _, o := range out.ExpandedRaw {
			for _, c := range o.Components {
				if c.RRule != "" {
					t.Errorf("with expand the server sent an RRULE in %s: %+v (RFC 4791 §9.6.5: the instances, not the rule)", o.URL, c)
				}
				if c.UID == "yoga-91ab@e2e.example" {
					inst = append(inst, c.RecurrenceID+"="+c.DTStart)
				}
			}
		}
		slices.Sort(inst)
		if want := []string{"20261006T160000Z=20261006T160000Z", "20261007T160000Z=20261007T160000Z"}; !slices.Equal(inst, want) {
			t.Errorf("expanded yoga instances %v, want %v", inst, want)
		}
		if len(out.Expanded) != 3 {
			t.Errorf("python3-caldav's search with expand gave %d objects, want 3 (two yoga, one dentist): %+v", len(out.Expanded), out.Expanded)
		}
	})

	t.Run("search by text", func(t *testing.T) {
		for _, c := range []struct {
			text string
			want []string
		}{
			{"Yoga", []string{created["yoga"]}},
			{"Dent", []string{created["dentist"]}},
			{"yoga", nil}, // python3-caldav asks for collation i;octet: the case counts
			{"Nothing of the kind", nil},
		} {
			if got := step(t, "textsearch", c.text).Found; !slices.Equal(got, c.want) {
				t.Errorf("python3-caldav's search of SUMMARY %q found %v, want %v (RFC 4791 §9.7.5 text-match)", c.text, got, c.want)
			}
		}
	})

	t.Run("update one occurrence", func(t *testing.T) {
		out := step(t, "override", created["yoga"], "20261007T160000Z", "20261007T170000Z", "Yoga (late)")
		var master, override bool
		for _, c := range out.Components {
			master = master || (c.RecurrenceID == "" && c.RRule == "FREQ=DAILY;COUNT=5")
			override = override || (c.RecurrenceID == "20261007T160000Z" && c.DTStart == "20261007T170000Z" && c.Summary == "Yoga (late)")
		}
		if !master || !override {
			t.Errorf("after saving the override the object reads %+v, want the master and the override of the 7th at 17:00Z", out.Components)
		}
		got := d.events(t, "alice", "2026-10-05", "2026-10-11")
		var lines []string
		for _, o := range got {
			if strings.HasPrefix(o.Title, "Yoga") {
				lines = append(lines, utcOf(t, o.Start)+" "+o.Title)
			}
		}
		want := []string{
			"2026-10-05T16:00:00Z Yoga", "2026-10-06T16:00:00Z Yoga", "2026-10-07T17:00:00Z Yoga (late)",
			"2026-10-08T16:00:00Z Yoga", "2026-10-09T16:00:00Z Yoga",
		}
		if !slices.Equal(lines, want) {
			t.Errorf("list_events after the override:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	})

	t.Run("free-busy", func(t *testing.T) {
		got := step(t, "freebusy", "20261006T000000Z", "20261008T000000Z").Busy
		want := []string{"20261006T160000Z/20261006T170000Z", "20261007T130000Z/20261007T140000Z", "20261007T170000Z/20261007T180000Z"}
		if !slices.Equal(got, want) {
			t.Errorf("free-busy-query of 6–7 October: busy %v, want %v (yoga, dentist, the moved yoga)", got, want)
		}
	})

	t.Run("delete", func(t *testing.T) {
		var gone bool
		if err := json.Unmarshal(step(t, "delete", created["dentist"]).Gone, &gone); err != nil || !gone {
			t.Errorf("after the delete the dentist's URL still loads (gone=%v, %v)", gone, err)
		}
		for _, o := range d.events(t, "alice", "2026-10-05", "2026-10-11") {
			if o.Title == "Dentist" {
				t.Errorf("list_events still shows the deleted dentist: %+v", o)
			}
		}
	})

	t.Run("a task saved and completed", func(t *testing.T) {
		out := step(t, "todo")
		url := out.Created["todo"]
		if !strings.HasPrefix(url, byName["VTODO"]) {
			t.Fatalf("the task was saved at %q, not in the tasks collection %s", url, byName["VTODO"])
		}
		if len(out.Pending) != 1 || out.Pending[0].URL != url || len(out.Pending[0].Components) != 1 || out.Pending[0].Components[0].Summary != "Renew the passport" {
			t.Errorf("python3-caldav's pending tasks after saving one: %+v, want the passport alone", out.Pending)
		}
		open := d.tasks(t, "alice", "open")
		if len(open) != 1 || open[0].Title != "Renew the passport" || utcOf(t, open[0].DueAt) != "2026-10-09T16:00:00Z" {
			t.Fatalf("list_tasks after the client saved a task: %+v, want “Renew the passport” due 16:00Z on 9 October", open)
		}
		out = step(t, "complete", url)
		if len(out.Pending) != 0 {
			t.Errorf("python3-caldav's pending tasks after completing the one: %+v, want none", out.Pending)
		}
		if len(out.All) != 1 || len(out.All[0].Components) != 1 || out.All[0].Components[0].Status != "COMPLETED" {
			t.Errorf("python3-caldav's tasks with the completed ones: %+v, want the passport with STATUS:COMPLETED", out.All)
		}
		if open := d.tasks(t, "alice", "open"); len(open) != 0 {
			t.Errorf("list_tasks shows %+v open after the client completed it", open)
		}
		if done := d.tasks(t, "alice", "done"); len(done) != 1 || done[0].Title != "Renew the passport" {
			t.Errorf("list_tasks status=done after the client completed the task: %+v", done)
		}
	})

	t.Run("sync by token", func(t *testing.T) {
		first := step(t, "sync")
		var urls []string
		for _, o := range first.Changed {
			urls = append(urls, o.URL)
		}
		slices.Sort(urls)
		if want := []string{created["holiday"], created["yoga"]}; !slices.Equal(urls, want) || first.Token == "" {
			t.Fatalf("the first sync (no token) gave %v and token %q, want %v and a token", urls, first.Token, want)
		}

		added := d.call(t, "alice", "add_event", "title=Standup", "start=2026-10-08T09:00", "duration=15")
		var a struct {
			Event struct{ ID, UID string }
		}
		if err := json.Unmarshal(added.Data, &a); err != nil || a.Event.UID == "" {
			t.Fatalf("add_event data %s: %v", added.Data, err)
		}
		second := step(t, "sync", first.Token)
		if len(second.Changed) != 1 || len(second.Changed[0].Components) != 1 || second.Changed[0].Components[0].UID != a.Event.UID ||
			second.Changed[0].Components[0].Summary != "Standup" || second.Changed[0].Components[0].DTStart != "20261008T070000Z" {
			t.Fatalf("the sync after add_event gave %+v, want the standup (UID %s, 07:00Z) alone", second.Changed, a.Event.UID)
		}
		if string(second.Gone) != "[]" || second.Token == first.Token {
			t.Errorf("the sync after add_event: gone %s, token %q (first %q); want none gone and a new token", second.Gone, second.Token, first.Token)
		}

		d.call(t, "alice", "delete_event", "id="+a.Event.ID)
		third := step(t, "sync", second.Token)
		var gone []string
		if err := json.Unmarshal(third.Gone, &gone); err != nil {
			t.Fatal(err)
		}
		if len(third.Changed) != 0 || !slices.Equal(gone, []string{second.Changed[0].URL}) {
			t.Errorf("the sync after delete_event gave changed %+v, gone %v; want %s gone alone", third.Changed, gone, second.Changed[0].URL)
		}
		if again := step(t, "sync", third.Token); len(again.Changed) != 0 || string(again.Gone) != "[]" {
			t.Errorf("a sync with no change since gave %+v and gone %s, want nothing", again.Changed, again.Gone)
		}
	})
}

// People whose names are not plain ASCII words, as python3-caldav signs
// in with them: “josé” (which python3-requests sends in ISO-8859-1, not
// UTF-8) and “Ann Lee” (a space in the URL). Each finds their own
// principal, escaped in its URL, and the two collections; each saves the
// same objects (the same UIDs) into their own calendar, and each sees
// their own in list_events.
func TestCalDAVPythonPersonNames(t *testing.T) { storetest.Engines(t, testCalDAVPythonPersonNames) }

func testCalDAVPythonPersonNames(t *testing.T) {
	python := caldavPython(t)
	script, err := filepath.Abs(filepath.Join("testdata", "caldav", "client.py"))
	if err != nil {
		t.Fatal(err)
	}
	people := map[string]string{"josé": "/dav/jos%C3%A9/", "Ann Lee": "/dav/Ann%20Lee/"}
	d := newDAVSite(t, "josé", "Ann Lee")
	for name, principal := range people {
		step := startPySession(t, python, script, d.base+"/", name, d.tokens[name])
		out := step(t, "discover")
		if out.Principal != d.base+principal || len(out.Calendars) != 2 {
			t.Errorf("%s: principal %q and %d calendars, want %s%s and 2", name, out.Principal, len(out.Calendars), d.base, principal)
			continue
		}
		created := step(t, "create").Created
		if !strings.HasPrefix(created["dentist"], d.base+principal+"calendars/events/") {
			t.Errorf("%s: the dentist was saved at %q, outside %scalendars/events/", name, created["dentist"], principal)
		}
	}
	for name := range people {
		var titles []string
		for _, o := range d.events(t, name, "2026-10-07", "2026-10-07") {
			titles = append(titles, o.Title)
		}
		slices.Sort(titles)
		if want := []string{"Dentist", "Yoga"}; !slices.Equal(titles, want) {
			t.Errorf("%s's list_events of 7 October: %q, want %q (their own, once)", name, titles, want)
		}
	}
}
