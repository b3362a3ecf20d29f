// Package weekpage writes a [view.Window] of up to seven days as one plain
// HTML page for a browser — the week page that `assistant serve` serves at
// /week — and serves it ([Handler]) to a person signed in by the server.
//
// The page is a grid: days as columns, the hours of the day as rows, each
// timed event a block whose top and height in pixels are its start and end
// in minutes of the day ([HourHeight] pixels to the hour, so one pixel a
// minute), the all-day events in a band above the hours, each day's tasks
// under its column, the current time as a line across today's column, and
// links to the previous and the next week. Below 700 CSS pixels of width
// (a phone) the same page reads as a list: each day in turn, its events in
// time order with their times written out, and its tasks. There is no
// script on the page: html/template writes it, escaping every title, and
// the handler forbids scripts with a Content-Security-Policy.
package weekpage

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/tz"
	"github.com/assistant-dev/assistant/view"
)

// HourHeight is the height of one hour row, in CSS pixels: one pixel a
// minute, so an event from 09:30 to 10:15 is 45 pixels high and starts 30
// pixels below the 09:00 line.
const HourHeight = 60

// The hours shown when no event asks for more: an event or the current
// time outside them widens the rows to their hours.
const (
	defaultFirstHour = 7
	defaultLastHour  = 21 // the row from 20:00 to 21:00 is the last
)

// Options are what the page needs besides the window.
type Options struct {
	// Path is the page's own path, for the links to the previous, the
	// next and this week ("/week" when empty); they add ?from=YYYY-MM-DD.
	Path string
	// Min and Max bound the first day a link may ask for (the handler's
	// bounds, see [MinFrom] and [MaxFrom]); a link past them is left out.
	// Zero dates leave the links unbounded.
	Min, Max tz.Date
}

// page is what the template writes: the window laid out.
type page struct {
	Heading    string // "7 – 13 December 2026"
	Zone       string // "Europe/Paris"
	ZoneNote   string // "CET, UTC+01:00" at the window's now
	Prev, Next string // hrefs, "" when past the bounds
	This       string // href of the week of today
	IsThis     bool   // the window holds today
	NDays      int
	HourPx     int
	GridPx     int // the height of the hour rows
	Hours      []hourRow
	Days       []dayCol
	Overdue    []taskItem
	Cut        bool
	MaxItems   int
	NowLabel   string // "Sun 6 Dec 14:05"
}

// hourRow is one hour's label at the left of the grid.
type hourRow struct {
	Hour  int
	Label string // "09:00"
	Top   int    // px from the top of the hour rows
}

// dayCol is one day's column.
type dayCol struct {
	N       int    // 1-based column
	Date    string // 2026-12-07
	Label   string // "Mon 7 Dec"
	Long    string // "Monday 7 December 2026"
	Today   bool
	Weekend bool
	Shift   string // "clocks change: CEST → CET", when the day's offset changes
	AllDay  []chip
	Timed   []block
	Tasks   []taskItem
	Now     *nowLine
}

// chip is an all-day event in the band above the hours.
type chip struct {
	ID, Title, Location string
	Span                string // "5 – 9 Dec" for an event of several days, else ""
	Start, End          string // its first day and the day after its last
}

// block is a timed event's box in a day's column.
type block struct {
	ID, Series, Title, Location string
	Time                        string // "09:30 – 10:15", with "…" where it runs past the day
	Start, End                  string // RFC 3339 instants in the person's zone
	Top, Height                 int    // px from the top of the hour rows
	Left, Width                 string // % of the column, for events side by side
	On                          bool   // on now
	Zone                        string // the event's own zone when not the person's
	from, to                    int    // minutes of the day shown
	lane, lanes                 int
}

// taskItem is one task under a day (or in the overdue list).
type taskItem struct {
	ID, Title string
	Due       string // "14:00", or "due 2 Dec" in the overdue list
	High      bool   // priority 1
	Done      bool
	Overdue   bool
}

// nowLine marks the current time in today's column.
type nowLine struct {
	Top   int
	Label string // "14:05"
}

// layout turns w into the page the template writes.
func layout(w view.Window, o Options) page {
	path := o.Path
	if path == "" {
		path = "/week"
	}
	loc := w.Zone.Location()
	now := w.Now.In(loc)
	today := w.Zone.Today(w.Now)
	abbr, off := now.Zone()
	p := page{
		Heading:  heading(w.From, w.To),
		Zone:     w.Zone.Name(),
		ZoneNote: fmt.Sprintf("%s, UTC%s", abbr, offset(off)),
		This:     path,
		NDays:    len(w.Days),
		HourPx:   HourHeight,
		Cut:      w.Cut,
		MaxItems: view.MaxItems,
		NowLabel: now.Format("Mon 2 Jan 15:04"),
	}
	n := len(w.Days)
	if n == 0 {
		n = w.From.DaysUntil(w.To) + 1
	}
	if prev := w.From.AddDays(-n); inBounds(prev, o) {
		p.Prev = path + "?from=" + prev.String()
	}
	if next := w.From.AddDays(n); inBounds(next, o) {
		p.Next = path + "?from=" + next.String()
	}
	first, last := defaultFirstHour, defaultLastHour
	for i, d := range w.Days {
		start, end := w.Zone.DayBounds(d.Date)
		c := dayCol{
			N:       i + 1,
			Date:    d.Date.String(),
			Label:   start.Format("Mon 2 Jan"),
			Long:    start.Format("Monday 2 January 2006"),
			Today:   d.Date == today,
			Weekend: d.Date.Weekday() == time.Saturday || d.Date.Weekday() == time.Sunday,
			Shift:   shift(start, end),
		}
		if c.Today {
			p.IsThis = true
		}
		for _, e := range d.AllDay {
			c.AllDay = append(c.AllDay, chip{ID: e.ID, Title: e.Title, Location: e.Location,
				Span: span(e.FirstDay, e.LastDay), Start: e.FirstDay.String(), End: e.LastDay.AddDays(1).String()})
		}
		for _, e := range d.Timed {
			b := place(e, w.Zone, start, end)
			b.On = !now.Before(e.Start) && now.Before(e.End)
			first = min(first, b.from/60)
			last = max(last, (b.to+59)/60)
			c.Timed = append(c.Timed, b)
		}
		lanes(c.Timed)
		for _, t := range d.Tasks {
			c.Tasks = append(c.Tasks, task(t, w.Zone, false))
		}
		if c.Today {
			m := minuteOfDay(now, start, end)
			c.Now = &nowLine{Top: m, Label: now.Format("15:04")}
			first = min(first, m/60)
			last = max(last, m/60+1)
		}
		p.Days = append(p.Days, c)
	}
	last = min(last, 24)
	for i := range p.Days {
		for j := range p.Days[i].Timed {
			b := &p.Days[i].Timed[j]
			b.Top = (b.from - first*60) * HourHeight / 60
			b.Height = (b.to - b.from) * HourHeight / 60
		}
		if nl := p.Days[i].Now; nl != nil {
			nl.Top = (nl.Top - first*60) * HourHeight / 60
		}
	}
	for h := first; h < last; h++ {
		p.Hours = append(p.Hours, hourRow{Hour: h, Label: fmt.Sprintf("%02d:00", h), Top: (h - first) * HourHeight})
	}
	p.GridPx = (last - first) * HourHeight
	for _, t := range w.Overdue {
		p.Overdue = append(p.Overdue, task(t, w.Zone, true))
	}
	return p
}

// inBounds reports whether a link may ask for d.
func inBounds(d tz.Date, o Options) bool {
	return (o.Min.IsZero() || !d.Before(o.Min)) && (o.Max.IsZero() || !d.After(o.Max))
}

// place lays e out in the day [start, end): its minutes of the day as the
// wall clock of z reads them (a block before the day's start begins at
// 0, one past its end stops at 24:00), and its times as text.
func place(e view.Event, z tz.Zone, start, end time.Time) block {
	loc := z.Location()
	b := block{ID: e.ID, Series: e.Series, Title: e.Title, Location: e.Location, Zone: e.EventZone,
		Start: e.Start.In(loc).Format(time.RFC3339), End: e.End.In(loc).Format(time.RFC3339)}
	b.from = minuteOfDay(e.Start, start, end)
	b.to = minuteOfDay(e.End, start, end)
	if !e.End.Before(end) {
		b.to = 24 * 60
	}
	if b.to < b.from {
		// The clocks went back between start and end (a fall-back day):
		// the wall clock reads an earlier time at the end, so the block
		// keeps its real length from its start (it was 0 px high).
		b.to = min(b.from+int(e.End.Sub(e.Start)/time.Minute), 24*60)
	}
	layout := "15:04"
	if e.ClockChanges(z) {
		// "02:30 CEST – 02:00 CET" tells the two readings apart.
		layout = "15:04 MST"
	}
	from, to := e.Start.In(loc).Format(layout), e.End.In(loc).Format(layout)
	if e.Start.Before(start) {
		from = "… " + e.Start.In(loc).Format("Mon 15:04")
	}
	if e.End.After(end) {
		to = e.End.In(loc).Format("Mon 15:04") + " …"
	}
	if e.End.Equal(e.Start) {
		b.Time = from
	} else {
		b.Time = from + " – " + to
	}
	return b
}

// minuteOfDay is the minute of the day [start, end) at which the wall
// clock reads t: 0 before start, 1440 at or past end.
func minuteOfDay(t, start, end time.Time) int {
	switch {
	case t.Before(start):
		return 0
	case !t.Before(end):
		return 24 * 60
	}
	lt := t.In(start.Location())
	return lt.Hour()*60 + lt.Minute()
}

// lanes puts the blocks of one day that overlap side by side: each
// cluster of blocks that overlap one another (directly or through
// others) is split into as many lanes as it needs at once, each block in
// the first lane free at its start.
func lanes(bs []block) {
	idx := make([]int, len(bs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := bs[idx[a]], bs[idx[b]]
		if x.from != y.from {
			return x.from < y.from
		}
		return x.to > y.to
	})
	var cluster []int
	var ends []int // the end of the last block in each lane
	clusterEnd := -1
	flush := func() {
		for _, i := range cluster {
			bs[i].lanes = len(ends)
		}
		cluster, ends = cluster[:0], ends[:0]
	}
	for _, i := range idx {
		b := &bs[i]
		// A zero-length block still takes a minute, so that two at the
		// same time stand side by side.
		to := max(b.to, b.from+1)
		if len(cluster) > 0 && b.from >= clusterEnd {
			flush()
		}
		lane := -1
		for l, e := range ends {
			if e <= b.from {
				lane = l
				break
			}
		}
		if lane < 0 {
			lane = len(ends)
			ends = append(ends, 0)
		}
		ends[lane] = to
		b.lane = lane
		cluster = append(cluster, i)
		clusterEnd = max(clusterEnd, to)
	}
	flush()
	for i := range bs {
		w := 100.0 / float64(bs[i].lanes)
		bs[i].Left = percent(float64(bs[i].lane) * w)
		bs[i].Width = percent(w)
	}
}

// percent writes a share of a column for CSS.
func percent(f float64) string {
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
	return s + "%"
}

// task is one task as a line under its day (or, overdue, with its day).
func task(t view.Task, z tz.Zone, withDay bool) taskItem {
	it := taskItem{ID: t.ID, Title: t.Title, High: t.Priority == 1, Done: t.Done, Overdue: t.Overdue}
	if t.DueTime {
		it.Due = t.DueAt.In(z.Location()).Format("15:04")
	}
	if withDay {
		d := time.Date(t.Due.Year, t.Due.Month, t.Due.Day, 0, 0, 0, 0, time.UTC).Format("Mon 2 Jan 2006")
		if it.Due != "" {
			d += " " + it.Due
		}
		it.Due = "due " + d
	}
	return it
}

// heading names the days from..to: "7 – 13 December 2026",
// "30 November – 6 December 2026", "28 December 2026 – 3 January 2027".
func heading(from, to tz.Date) string {
	switch {
	case from == to:
		return fmt.Sprintf("%d %s %d", from.Day, from.Month, from.Year)
	case from.Year != to.Year:
		return fmt.Sprintf("%d %s %d – %d %s %d", from.Day, from.Month, from.Year, to.Day, to.Month, to.Year)
	case from.Month != to.Month:
		return fmt.Sprintf("%d %s – %d %s %d", from.Day, from.Month, to.Day, to.Month, to.Year)
	}
	return fmt.Sprintf("%d – %d %s %d", from.Day, to.Day, to.Month, to.Year)
}

// span names the days of an all-day event of several days, "" for one.
func span(first, last tz.Date) string {
	if first == last {
		return ""
	}
	short := func(d tz.Date) string { return fmt.Sprintf("%d %s", d.Day, d.Month.String()[:3]) }
	return short(first) + " – " + short(last)
}

// shift says how the clocks change on the day [start, end), or "".
func shift(start, end time.Time) string {
	a, offA := start.Zone()
	b, offB := end.Add(-time.Nanosecond).Zone()
	if offA == offB {
		return ""
	}
	if offB < offA {
		return fmt.Sprintf("clocks go back: %s → %s", a, b)
	}
	return fmt.Sprintf("clocks go forward: %s → %s", a, b)
}

// offset writes seconds east of UTC as +01:00.
func offset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	return fmt.Sprintf("%s%02d:%02d", sign, sec/3600, sec/60%60)
}
