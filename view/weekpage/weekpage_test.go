package weekpage

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
	"github.com/assistant-dev/assistant/view"
)

var update = flag.Bool("update", false, "rewrite the golden pages under testdata")

var paris = tz.MustZone("Europe/Paris")

// at is an instant on Paris's wall clock.
func at(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, paris.Location())
}

// day is a civil day.
func day(y int, m time.Month, d int) tz.Date { return tz.Date{Year: y, Month: m, Day: d} }

// timed is a timed occurrence as Load gives it.
func timed(id, title string, start, end time.Time) view.Event {
	return view.Event{ID: id, Series: strings.Split(id, "@")[0], Title: title, Start: start, End: end,
		FirstDay: paris.Today(start), LastDay: paris.Today(end.Add(-time.Nanosecond))}
}

// week is a hand-made window of seven days from from, with events put on
// each day they overlap, as Load does.
func week(from tz.Date, now time.Time, evs ...view.Event) view.Window {
	w := view.Window{Zone: paris, Now: now, From: from, To: from.AddDays(6)}
	for i := range 7 {
		d := view.Day{Date: from.AddDays(i)}
		start, end := paris.DayBounds(d.Date)
		for _, e := range evs {
			if e.AllDay {
				if !d.Date.Before(e.FirstDay) && !d.Date.After(e.LastDay) {
					d.AllDay = append(d.AllDay, e)
				}
			} else if e.Start.Before(end) && (e.End.After(start) || e.End.Equal(e.Start) && !e.Start.Before(start)) {
				d.Timed = append(d.Timed, e)
			}
		}
		w.Days = append(w.Days, d)
	}
	return w
}

// blocks are the blocks of the page by id and day.
func blocks(p page) map[string]block {
	m := map[string]block{}
	for _, d := range p.Days {
		for _, b := range d.Timed {
			m[b.ID+" "+d.Date] = b
		}
	}
	return m
}

// TestLayoutPlaces checks where blocks go: one pixel a minute from the
// first hour shown, side by side when at once, cut at midnight on both
// days, the rows widened to an early event and the line of now.
func TestLayoutPlaces(t *testing.T) {
	w := week(day(2026, 12, 7), at(2026, 12, 9, 10, 30),
		timed("e1", "Stand-up", at(2026, 12, 7, 9, 30), at(2026, 12, 7, 10, 15)),
		timed("e2", "Review", at(2026, 12, 8, 14, 0), at(2026, 12, 8, 16, 30)),
		timed("e3", "Call", at(2026, 12, 8, 15, 0), at(2026, 12, 8, 16, 0)),
		timed("e4", "Later", at(2026, 12, 8, 16, 30), at(2026, 12, 8, 17, 0)),
		timed("e5", "Night", at(2026, 12, 11, 22, 0), at(2026, 12, 12, 1, 0)),
		timed("e6", "Ping", at(2026, 12, 9, 10, 30), at(2026, 12, 9, 10, 30)),
		timed("e7", "Now", at(2026, 12, 9, 10, 0), at(2026, 12, 9, 11, 0)),
	)
	p := layout(w, Options{})
	if p.Hours[0].Hour != 0 || len(p.Hours) != 24 || p.GridPx != 24*HourHeight {
		t.Fatalf("hours %d..%d (%d px), want 0..23 for the night event", p.Hours[0].Hour, p.Hours[len(p.Hours)-1].Hour, p.GridPx)
	}
	bs := blocks(p)
	for key, want := range map[string]struct {
		top, height int
		left, width string
		on          bool
	}{
		"e1 2026-12-07": {570, 45, "0%", "100%", false},
		"e2 2026-12-08": {840, 150, "0%", "50%", false},
		"e3 2026-12-08": {900, 60, "50%", "50%", false},
		"e4 2026-12-08": {990, 30, "0%", "100%", false}, // starts as the review ends: not beside it
		"e5 2026-12-11": {1320, 120, "0%", "100%", false},
		"e5 2026-12-12": {0, 60, "0%", "100%", false},
		"e6 2026-12-09": {630, 0, "50%", "50%", false}, // a moment, not a span: never on
		"e7 2026-12-09": {600, 60, "0%", "50%", true},
	} {
		b, ok := bs[key]
		if !ok {
			t.Errorf("no block %s", key)
			continue
		}
		if b.Top != want.top || b.Height != want.height || b.Left != want.left || b.Width != want.width || b.On != want.on {
			t.Errorf("%s: top %d height %d left %s width %s on %v, want %+v", key, b.Top, b.Height, b.Left, b.Width, b.On, want)
		}
	}
	if got := bs["e5 2026-12-11"].Time; got != "22:00 – Sat 01:00 …" {
		t.Errorf("the night's time on Friday: %q", got)
	}
	if got := bs["e5 2026-12-12"].Time; got != "… Fri 22:00 – 01:00" {
		t.Errorf("the night's time on Saturday: %q", got)
	}
	if n := p.Days[2].Now; n == nil || n.Top != 630 || n.Label != "10:30" || p.Days[1].Now != nil {
		t.Errorf("the line of now: %+v, want on Wednesday at 630 px", p.Days[2].Now)
	}
	if p.Prev != "/week?from=2026-11-30" || p.Next != "/week?from=2026-12-14" || !p.IsThis {
		t.Errorf("links %q %q (this week %v)", p.Prev, p.Next, p.IsThis)
	}

	// With nothing early or late, the rows are 07:00 to 21:00.
	q := layout(week(day(2026, 12, 14), at(2026, 12, 9, 10, 30),
		timed("e1", "Stand-up", at(2026, 12, 14, 9, 30), at(2026, 12, 14, 10, 15))), Options{Path: "/w", Min: day(2026, 12, 1), Max: day(2026, 12, 20)})
	if q.Hours[0].Hour != 7 || len(q.Hours) != 14 || blocks(q)["e1 2026-12-14"].Top != 150 {
		t.Errorf("hours from %d, %d rows, stand-up at %d px; want 7, 14, 150", q.Hours[0].Hour, len(q.Hours), blocks(q)["e1 2026-12-14"].Top)
	}
	if q.Prev != "/w?from=2026-12-07" || q.Next != "" || q.IsThis {
		t.Errorf("links within bounds: %q %q (this week %v), want no next past 2026-12-20", q.Prev, q.Next, q.IsThis)
	}
}

// TestLayoutClockChanges checks the weeks of Paris's clock changes: the
// day says so, and events are placed by the wall clock.
func TestLayoutClockChanges(t *testing.T) {
	// 25 October 2026: 03:00 CEST is 02:00 CET; the day has 25 hours.
	back := week(day(2026, 10, 19), at(2026, 10, 20, 12, 0),
		timed("e1", "Across the change", at(2026, 10, 25, 1, 30), at(2026, 10, 25, 3, 30)))
	p := layout(back, Options{})
	if p.Days[6].Shift != "clocks go back: CEST → CET" || p.Days[5].Shift != "" {
		t.Errorf("shifts %q %q", p.Days[5].Shift, p.Days[6].Shift)
	}
	// Three hours pass, but the wall clock reads 01:30 to 03:30; the
	// rows start at 01:00 for it.
	if b := blocks(p)["e1 2026-10-25"]; p.Hours[0].Hour != 1 || b.Top != 30 || b.Height != 120 {
		t.Errorf("the event across the change: top %d height %d from hour %d, want 30 and 120 from 1", b.Top, b.Height, p.Hours[0].Hour)
	}
	// Half an hour from the first 02:30 ends at the second 02:00: the
	// wall clock reads backwards, and the block keeps its 30 minutes
	// (it was 0 px high), its times saying which reading is which.
	first230 := time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)
	rep := layout(week(day(2026, 10, 19), at(2026, 10, 20, 12, 0),
		timed("e2", "In the repeated hour", first230, first230.Add(30*time.Minute))), Options{})
	if b := blocks(rep)["e2 2026-10-25"]; b.Height != 30 || b.Time != "02:30 CEST – 02:00 CET" {
		t.Errorf("the event in the repeated hour: height %d, %q; want 30 and “02:30 CEST – 02:00 CET”", b.Height, b.Time)
	}
	// 29 March 2026: 02:00 CET is 03:00 CEST; the day has 23 hours.
	fwd := layout(week(day(2026, 3, 23), at(2026, 3, 20, 12, 0),
		timed("e1", "After", at(2026, 3, 29, 3, 0), at(2026, 3, 29, 4, 0))), Options{})
	if fwd.Days[6].Shift != "clocks go forward: CET → CEST" {
		t.Errorf("spring shift %q", fwd.Days[6].Shift)
	}
	if b := blocks(fwd)["e1 2026-03-29"]; fwd.Hours[0].Hour != 3 || b.Top != 0 || b.Height != 60 {
		t.Errorf("the event after the change: top %d height %d from hour %d, want 0 and 60 from 3", b.Top, b.Height, fwd.Hours[0].Hour)
	}
}

// TestHeading checks the heading across months and years.
func TestHeading(t *testing.T) {
	for _, c := range []struct {
		from tz.Date
		want string
	}{
		{day(2026, 12, 7), "7 – 13 December 2026"},
		{day(2026, 11, 30), "30 November – 6 December 2026"},
		{day(2026, 12, 28), "28 December 2026 – 3 January 2027"},
	} {
		if got := heading(c.from, c.from.AddDays(6)); got != c.want {
			t.Errorf("heading(%s): %q, want %q", c.from, got, c.want)
		}
	}
}

// TestRenderGolden compares the page of a fixed week, clock and data
// with testdata/week.html (go test -update rewrites it): the whole
// document, so any change to the markup is seen in review.
func TestRenderGolden(t *testing.T) {
	long := strings.Repeat("A very long title that goes on ", 6)
	w := week(day(2026, 10, 19), at(2026, 10, 21, 14, 5),
		timed("e1@20261019T073000Z", "Stand-up", at(2026, 10, 19, 9, 30), at(2026, 10, 19, 10, 15)),
		timed("e2", long, at(2026, 10, 20, 14, 0), at(2026, 10, 20, 16, 30)),
		timed("e3", `Tom & Jerry's "party" <b>`, at(2026, 10, 21, 13, 0), at(2026, 10, 21, 15, 0)),
		timed("e4", "Across the change", at(2026, 10, 25, 1, 30), at(2026, 10, 25, 3, 30)),
		view.Event{ID: "e5@20261022", Series: "e5", Title: "Conference", AllDay: true, Location: "Lyon",
			Start: paris.StartOfDay(day(2026, 10, 22)), End: paris.StartOfDay(day(2026, 10, 24)), FirstDay: day(2026, 10, 22), LastDay: day(2026, 10, 23)},
	)
	w.Days[1].Tasks = []view.Task{{ID: "t1", Title: "Pay the rent", Priority: 1, Due: day(2026, 10, 20)}}
	w.Days[2].Tasks = []view.Task{{ID: "t2", Title: "Call back", Due: day(2026, 10, 21), DueTime: true, DueAt: at(2026, 10, 21, 11, 0), Overdue: true}}
	w.Overdue = []view.Task{{ID: "t3", Title: "Renew the passport", Due: day(2026, 10, 2), Overdue: true}}
	var b bytes.Buffer
	if err := Render(&b, w, Options{Min: MinFrom, Max: MaxFrom}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "week.html")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./view/weekpage -update writes it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("the page differs from %s (go test ./view/weekpage -update rewrites it; check the diff):\n%s", golden, b.String())
	}
	for _, bad := range []string{"<b>", `"party"`, "<script"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
}

// signedIn is a Session over a fixed window, counting the reads.
func signedIn(w view.Window, err error, reads *[]tz.Date) func(http.ResponseWriter, *http.Request) (Session, bool) {
	return func(http.ResponseWriter, *http.Request) (Session, bool) {
		return Session{Zone: paris, Load: func(_ context.Context, from, to tz.Date) (view.Window, error) {
			*reads = append(*reads, from, to)
			w.From, w.To = from, to
			return w, err
		}}, true
	}
}

// TestHandler checks the handler's own part: the week of today from its
// Monday by default, ?from= read strictly and bounded, a failed read
// answered with a sentence that hides its cause, and GET and HEAD only.
func TestHandler(t *testing.T) {
	now := at(2026, 12, 10, 8, 0) // a Thursday
	var reads []tz.Date
	h := Handler(HandlerOptions{Now: func() time.Time { return now }, SignIn: signedIn(week(day(2026, 12, 7), now), nil, &reads)})
	get := func(method, target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
		return rec
	}
	if rec := get("GET", "/week"); rec.Code != 200 || len(reads) != 2 || reads[0] != day(2026, 12, 7) || reads[1] != day(2026, 12, 13) {
		t.Errorf("GET /week: %d, read %v, want the days 2026-12-07 to 2026-12-13", rec.Code, reads)
	}
	reads = nil
	if rec := get("GET", "/week?from=2026-12-10"); rec.Code != 200 || len(reads) != 2 || reads[0] != day(2026, 12, 10) || reads[1] != day(2026, 12, 16) {
		t.Errorf("GET /week?from=2026-12-10: %d, read %v", rec.Code, reads)
	}
	reads = nil
	for _, q := range []string{"from=", "from=2026-12-1", "from=+2026-12-10", "from=2026-12-10&from=2026-12-11", "from=9999-12-26", "from=0000-12-31"} {
		rec := get("GET", "/week?"+q)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), "“from” must be") {
			t.Errorf("?%s: %d %q, want 400 naming “from”", q, rec.Code, rec.Body.String())
		}
	}
	if len(reads) != 0 {
		t.Errorf("a bad from read %v", reads)
	}
	rec := get("GET", "/week?from=0001-01-01")
	if rec.Code != 200 || strings.Contains(rec.Body.String(), "previous week") || !strings.Contains(rec.Body.String(), "next week") {
		t.Errorf("the first week of the year 1: %d; want no link before it", rec.Code)
	}
	if rec := get("PUT", "/week"); rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("PUT: %d %q", rec.Code, rec.Header().Get("Allow"))
	}

	failing := Handler(HandlerOptions{SignIn: signedIn(view.Window{}, errors.New("SQL logic error: no such table events"), &reads)})
	rec = httptest.NewRecorder()
	failing.ServeHTTP(rec, httptest.NewRequest("GET", "/week", nil))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "SQL") || !strings.HasSuffix(rec.Body.String(), ".\n") {
		t.Errorf("a failed read: %d %q, want 500 with a sentence and no cause", rec.Code, rec.Body.String())
	}

	refused := Handler(HandlerOptions{SignIn: func(w http.ResponseWriter, _ *http.Request) (Session, bool) {
		w.WriteHeader(http.StatusUnauthorized)
		return Session{}, false
	}})
	rec = httptest.NewRecorder()
	refused.ServeHTTP(rec, httptest.NewRequest("GET", "/week?from=bad", nil))
	if rec.Code != 401 {
		t.Errorf("not signed in, a bad from: %d, want the sign-in's 401 first", rec.Code)
	}
}
