package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The week page in a real browser: `assistant serve` (the binary) serves
// /week, headless Chromium (Debian's chromium, driven over the DevTools
// protocol by chromedp) signs in with HTTP Basic as a person would and
// loads it, and the test measures where each event's block is drawn.
// Like the CalDAV clients, a missing chromium skips the test, or fails it
// under CI=true, where .ci/run installs it.

// browserLimit bounds everything one browser test does, generous for a
// loaded two-core machine: starting Chromium alone can take seconds.
const browserLimit = 3 * time.Minute

// chromiumPath finds Chromium: CHROMIUM names it, else the first of
// Debian's and others' names on PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH; CI=true, where .ci/run installs it with apt-get")
	}
	t.Skip("no chromium on PATH; skipped outside CI (Debian: apt-get install chromium)")
	return ""
}

// browser starts headless Chromium for t, in a tab whose every request
// carries authorization (the Authorization header: Chromium takes no
// credentials in the URL) and whose viewport is width × height CSS
// pixels; a page that opens a JavaScript dialog fails t.
func browser(t *testing.T, authorization string, width, height int64, mobile bool) context.Context {
	t.Helper()
	path := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), browserLimit)
	t.Cleanup(cancel)
	// The profile is removed by hand rather than by t.TempDir: Chromium's
	// helper processes may still write in it for a moment after the
	// browser ends, and a RemoveAll that fails then must not fail the test.
	profile, err := os.MkdirTemp("", "assistant-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; ; i++ {
			err := os.RemoveAll(profile)
			if err == nil {
				return
			}
			if i == 50 {
				t.Logf("the Chromium profile %s is left behind: %v", profile, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // the tests may run as root, where Chromium's sandbox will not start
		chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	var emulate []chromedp.EmulateViewportOption
	if mobile {
		emulate = append(emulate, chromedp.EmulateMobile, chromedp.EmulatePortrait)
	}
	err = chromedp.Do(bctx,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
				Headers: network.Headers{"Authorization": authorization}})
			return err
		}),
		chromedp.EmulateViewport(width, height, emulate...),
	)
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	if err := chromedp.Listen(bctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			t.Errorf("the page opened a %s dialog: %q", d.Type, d.Message)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return bctx
}

// shot takes a screenshot of the tab, writes it to t's folder as name
// and returns it decoded; a screenshot that is not a PNG of the
// viewport's size fails t.
func shot(t *testing.T, ctx context.Context, name string, width, height int) image.Image {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("ASSISTANT_SCREENSHOTS") // a folder to keep them in, to look at
	if dir == "" {
		dir = t.TempDir()
	}
	file := filepath.Join(dir, t.Name()+"-"+name)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the screenshot %s (%d bytes) is no PNG: %v", file, len(b), err)
	}
	if got := img.Bounds().Size(); got.X != width || got.Y != height {
		t.Errorf("the screenshot %s is %v, want %dx%d", file, got, width, height)
	}
	return img
}

// rect is an element's box in CSS pixels of the page.
type rect struct{ Left, Top, Right, Bottom float64 }

// drawn is what the page shows, as the browser laid it out.
type drawn struct {
	Cols []struct {
		Date string
		Box  rect
	}
	Hours []struct {
		Hour int
		Top  float64 // offsetTop in the hours' column (no transform)
	}
	HoursBox rect
	HoursOn  bool // the hours' column is displayed
	Events   []struct {
		ID, Start, End, Title, Date, Text string
		Box                               rect
	}
	Chips []struct {
		ID, Date string
		Box      rect
	}
	Heads []struct {
		Date string
		Box  rect
	}
	Now *struct {
		Date string
		Box  rect
	}
	Tasks       []string
	ScrollWidth float64
	Title       string
}

// measure reads the laid-out page.
const measure = `(() => {
  const box = e => { const r = e.getBoundingClientRect(); return {Left: r.left + scrollX, Top: r.top + scrollY, Right: r.right + scrollX, Bottom: r.bottom + scrollY}; };
  const hours = document.querySelector('.hours');
  const now = document.querySelector('.now');
  return {
    Cols: [...document.querySelectorAll('.col')].map(c => ({Date: c.dataset.date, Box: box(c)})),
    Hours: [...document.querySelectorAll('.hour')].map(h => ({Hour: +h.dataset.hour, Top: h.offsetTop})),
    HoursBox: box(hours),
    HoursOn: getComputedStyle(hours).display !== 'none',
    Events: [...document.querySelectorAll('.ev')].map(e => ({ID: e.dataset.id, Start: e.dataset.start, End: e.dataset.end,
      Title: e.querySelector('.t').textContent, Date: e.closest('.col').dataset.date, Text: e.innerText, Box: box(e)})),
    Chips: [...document.querySelectorAll('.chip')].map(e => ({ID: e.dataset.id, Date: e.parentElement.dataset.date, Box: box(e)})),
    Heads: [...document.querySelectorAll('.day-head')].map(e => ({Date: e.dataset.date, Box: box(e)})),
    Now: now && getComputedStyle(now).display !== 'none' ? {Date: now.closest('.col').dataset.date, Box: box(now)} : null,
    Tasks: [...document.querySelectorAll('.task .t')].map(e => e.textContent),
    ScrollWidth: document.documentElement.scrollWidth,
    Title: document.title,
  };
})()`

// weekEvent is an event the test adds and then looks for on the page.
type weekEvent struct {
	title, start, end string // as add_event takes them, in Europe/Paris
}

// hostileTitle would run a script, load an image or break an attribute
// if the page let it through as markup.
const hostileTitle = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'"> & 'q' "q"`

// weekFixture is alice's and bob's install with the week of Monday
// 5 October 2026 (the e2e clock: 09:00 that Monday in Paris), served by
// `assistant serve`.
func weekFixture(t *testing.T) (*davSite, []weekEvent) {
	d := newDAVSite(t, "alice", "bob")
	evs := []weekEvent{
		{"Stand-up", "2026-10-05T09:30", "2026-10-05T10:15"},
		{"Design review", "2026-10-06T14:00", "2026-10-06T16:30"},
		{"Overlapping call", "2026-10-06T15:00", "2026-10-06T16:00"},
		{"Early train", "2026-10-08T07:45", "2026-10-08T08:05"},
		{"Night shift", "2026-10-09T22:00", "2026-10-10T01:00"},
		{hostileTitle, "2026-10-11T12:00", "2026-10-11T13:00"},
	}
	for _, e := range evs {
		d.call(t, "alice", "add_event", "title="+e.title, "start="+e.start, "end="+e.end)
	}
	d.call(t, "alice", "add_event", "title=Holiday", "start=2026-10-07")
	d.call(t, "alice", "add_task", "title=Pay the rent", "due=2026-10-07")
	d.call(t, "bob", "add_event", "title=Bob's own meeting", "start=2026-10-05T11:00", "end=2026-10-05T12:00")
	return d, evs
}

// basic is the Authorization header of HTTP Basic for user and password.
func basic(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// load opens /week in ctx and returns what the browser drew.
func load(t *testing.T, ctx context.Context, url string) drawn {
	t.Helper()
	res, err := chromedp.RunResponse(ctx, chromedp.Navigate(url))
	if err != nil {
		t.Fatalf("loading %s: %v", url, err)
	}
	if res.Status != 200 {
		t.Fatalf("loading %s: status %d, want 200", url, res.Status)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](measure))
	if err != nil {
		t.Fatal(err)
	}
	var d drawn
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("the page's measures: %v\n%s", err, raw)
	}
	return d
}

// minutes is the minute of the day of a civil time "2026-10-05T09:30".
func minutes(civil string) int {
	tm, err := time.Parse("2006-01-02T15:04", civil)
	if err != nil {
		panic(err)
	}
	return tm.Hour()*60 + tm.Minute()
}

// near reports whether a and b are within a pixel and a half.
func near(a, b float64) bool { return math.Abs(a-b) <= 1.5 }

// TestWeekPageInChromium loads alice's week in headless Chromium at a
// desktop's width and checks that each event is drawn in its day's
// column, its top and height in pixels following its start and end in
// minutes along the hour rows; that two events at once stand side by
// side; that an event past midnight is on both days; that the all-day
// event, the task and the current time are where they belong; that a
// hostile title is text and runs nothing; that bob's event is not there;
// and takes a screenshot whose pixels show an event's colour inside its
// block.
func TestWeekPageInChromium(t *testing.T) {
	site, evs := weekFixture(t)
	ctx := browser(t, basic("alice", site.tokens["alice"]), 1280, 900, false)
	d := load(t, ctx, site.base+"/week")

	if d.Title != "Week of 5 – 11 October 2026" {
		t.Errorf("the page's title is %q, want the week of 5 October (a script ran, or the wrong week)", d.Title)
	}
	if len(d.Cols) != 7 || d.Cols[0].Date != "2026-10-05" || d.Cols[6].Date != "2026-10-11" {
		t.Fatalf("columns %+v, want the seven days from 2026-10-05", d.Cols)
	}
	col := map[string]rect{}
	for i, c := range d.Cols {
		col[c.Date] = c.Box
		if i > 0 && !(c.Box.Left >= d.Cols[i-1].Box.Right-1) {
			t.Errorf("column %s is not right of %s: %+v %+v", c.Date, d.Cols[i-1].Date, c.Box, d.Cols[i-1].Box)
		}
		if c.Box.Right-c.Box.Left < 100 {
			t.Errorf("column %s is %.0f px wide at 1280 px", c.Date, c.Box.Right-c.Box.Left)
		}
	}
	// The hour rows: their labels one hour apart, the same height each,
	// from the top of the columns.
	if !d.HoursOn || len(d.Hours) < 2 || !near(d.HoursBox.Top, d.Cols[0].Box.Top) {
		t.Fatalf("hour rows %+v (column top %.1f), want labels level with the columns", d.Hours, d.Cols[0].Box.Top)
	}
	first := d.Hours[0].Hour
	hourPx := d.Hours[1].Top - d.Hours[0].Top
	for i, h := range d.Hours {
		if h.Hour != first+i || !near(h.Top, float64(i)*hourPx) {
			t.Errorf("hour row %d: %+v, want hour %d at %.1f px", i, h, first+i, float64(i)*hourPx)
		}
	}
	if hourPx < 20 {
		t.Fatalf("an hour is %.1f px high, too small to read", hourPx)
	}
	// The night shift runs to 01:00, so the rows start at midnight.
	if first != 0 {
		t.Errorf("the first hour row is %d, want 0 for the night shift's 00:00–01:00", first)
	}
	y := func(date string, min int) float64 { return col[date].Top + float64(min-first*60)*hourPx/60 }

	type piece struct {
		date     string
		from, to int // minutes of the day
	}
	pieces := map[string][]piece{}
	for _, e := range evs {
		sd, ed := e.start[:10], e.end[:10]
		if sd == ed {
			pieces[e.title] = []piece{{sd, minutes(e.start), minutes(e.end)}}
		} else {
			pieces[e.title] = []piece{{sd, minutes(e.start), 24 * 60}, {ed, 0, minutes(e.end)}}
		}
	}
	seen := map[string]int{}
	boxes := map[string]rect{}
	for _, b := range d.Events {
		ps, ok := pieces[b.Title]
		if !ok {
			t.Errorf("a block %q (%s) on %s that alice has no event for", b.Title, b.ID, b.Date)
			continue
		}
		var p *piece
		for i := range ps {
			if ps[i].date == b.Date {
				p = &ps[i]
			}
		}
		if p == nil {
			t.Errorf("%q is drawn on %s, want it on %v", b.Title, b.Date, ps)
			continue
		}
		seen[b.Title]++
		boxes[b.Title+"@"+b.Date] = b.Box
		c := col[b.Date]
		if b.Box.Left < c.Left-1 || b.Box.Right > c.Right+1 || b.Box.Right-b.Box.Left < 20 {
			t.Errorf("%q on %s spans x %.1f–%.1f, outside its column %.1f–%.1f", b.Title, b.Date, b.Box.Left, b.Box.Right, c.Left, c.Right)
		}
		if !near(b.Box.Top, y(b.Date, p.from)) || !near(b.Box.Bottom, y(b.Date, p.to)) {
			t.Errorf("%q on %s is drawn from y %.1f to %.1f, want %.1f to %.1f (%02d:%02d–%02d:%02d at %.0f px an hour)",
				b.Title, b.Date, b.Box.Top, b.Box.Bottom, y(b.Date, p.from), y(b.Date, p.to), p.from/60, p.from%60, p.to/60, p.to%60, hourPx)
		}
	}
	for title, ps := range pieces {
		if seen[title] != len(ps) {
			t.Errorf("%q is drawn %d times, want %d (%v)", title, seen[title], len(ps), ps)
		}
	}
	// Two events at once stand side by side, not one over the other.
	a, b := boxes["Design review@2026-10-06"], boxes["Overlapping call@2026-10-06"]
	if a.Right > b.Left+1 && b.Right > a.Left+1 {
		t.Errorf("the design review (x %.1f–%.1f) and the call (x %.1f–%.1f) overlap", a.Left, a.Right, b.Left, b.Right)
	}
	// The hostile title is text: shown whole, and nothing of it ran.
	if _, ok := boxes[hostileTitle+"@2026-10-11"]; !ok {
		t.Errorf("the hostile title is not shown as its own text on 11 October")
	}
	if len(d.Chips) != 1 || d.Chips[0].Date != "2026-10-07" || d.Chips[0].Box.Left < col["2026-10-07"].Left-1 || d.Chips[0].Box.Right > col["2026-10-07"].Right+1 ||
		d.Chips[0].Box.Bottom > col["2026-10-07"].Top+1 {
		t.Errorf("all-day events %+v, want the holiday above the hours of 7 October", d.Chips)
	}
	if len(d.Tasks) != 1 || d.Tasks[0] != "Pay the rent" {
		t.Errorf("tasks %q, want the rent", d.Tasks)
	}
	// Now is Monday 5 October, 09:00.
	if d.Now == nil || d.Now.Date != "2026-10-05" || !near(d.Now.Box.Top, y("2026-10-05", 9*60)) {
		t.Errorf("the line of now: %+v, want on 2026-10-05 at y %.1f", d.Now, y("2026-10-05", 9*60))
	}
	if d.ScrollWidth > 1280 {
		t.Errorf("the page is %.0f px wide in a 1280 px window", d.ScrollWidth)
	}

	img := shot(t, ctx, "week.png", 1280, 900)
	// Inside the stand-up's block, near its lower right corner (clear of
	// its text), the screenshot has the events' colour; in the same
	// column an hour later, it has not.
	su := boxes["Stand-up@2026-10-05"]
	if su.Bottom > 900 {
		t.Fatalf("the stand-up is below the window (y %.0f)", su.Bottom)
	}
	evColour := img.At(int(su.Right)-4, int(su.Bottom)-3)
	empty := img.At(int(su.Right)-4, int(su.Bottom)+60)
	if !sameColour(evColour, color.RGBA{0xdb, 0xe8, 0xfb, 0xff}) || sameColour(empty, evColour) {
		t.Errorf("the screenshot at the stand-up's block has %v and an hour below %v; want the events' blue #dbe8fb, then another colour", evColour, empty)
	}

	// Bob's page has his event, not alice's, in the same browser build.
	bctx := browser(t, basic("bob", site.tokens["bob"]), 1280, 900, false)
	bd := load(t, bctx, site.base+"/week?from=2026-10-05")
	if len(bd.Events) != 1 || bd.Events[0].Title != "Bob's own meeting" {
		t.Errorf("bob's page shows %+v, want his meeting alone", bd.Events)
	}
}

// sameColour reports whether two colours are within a few steps of each
// channel (the screenshot's colour profile may round).
func sameColour(a, b color.Color) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) bool { return math.Abs(float64(x>>8)-float64(y>>8)) <= 6 }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

// TestWeekPageInChromiumPhone loads the same week at a phone's width
// (390 CSS pixels): the page becomes a list, and every event is shown
// whole within the width, each day's heading above its events, the days
// and each day's events in time order, with their times written out and
// nothing wider than the screen.
func TestWeekPageInChromiumPhone(t *testing.T) {
	site, evs := weekFixture(t)
	ctx := browser(t, basic("alice", site.tokens["alice"]), 390, 844, true)
	d := load(t, ctx, site.base+"/week")
	shot(t, ctx, "week-phone.png", 390, 844)

	if d.HoursOn {
		t.Errorf("the hour rows are shown at 390 px; the list has none")
	}
	if d.ScrollWidth > 390 {
		t.Errorf("the page is %.0f px wide on a 390 px screen", d.ScrollWidth)
	}
	head := map[string]rect{}
	for i, h := range d.Heads {
		head[h.Date] = h.Box
		if i > 0 && h.Box.Top < d.Heads[i-1].Box.Bottom {
			t.Errorf("the heading of %s is not below that of %s", h.Date, d.Heads[i-1].Date)
		}
	}
	want := 0
	for _, e := range evs {
		want++
		if e.start[:10] != e.end[:10] {
			want++
		}
	}
	if len(d.Events) != want {
		t.Errorf("%d blocks on the phone, want %d", len(d.Events), want)
	}
	for i, b := range d.Events {
		w, h := b.Box.Right-b.Box.Left, b.Box.Bottom-b.Box.Top
		if b.Box.Left < 0 || b.Box.Right > 390 || w < 200 || h < 14 {
			t.Errorf("%q on %s is drawn at %+v on a 390 px screen, want it whole and readable", b.Title, b.Date, b.Box)
		}
		if b.Box.Top < head[b.Date].Bottom {
			t.Errorf("%q is above the heading of its day %s", b.Title, b.Date)
		}
		if next := b.Date; i > 0 && b.Box.Top < d.Events[i-1].Box.Bottom-1 {
			t.Errorf("%q (%s) is not below %q (%s)", b.Title, next, d.Events[i-1].Title, d.Events[i-1].Date)
		}
		if !strings.Contains(b.Text, "–") {
			t.Errorf("%q shows no times on the phone: %q", b.Title, b.Text)
		}
	}
	if len(d.Events) > 0 {
		if got := d.Events[0]; got.Title != "Stand-up" || !strings.HasPrefix(got.Text, "09:30 – 10:15") {
			t.Errorf("the first event on the phone is %q %q, want the stand-up at 09:30 – 10:15", got.Title, got.Text)
		}
	}
	if fmt.Sprint(d.Tasks) != "[Pay the rent]" {
		t.Errorf("tasks on the phone: %q", d.Tasks)
	}
}
