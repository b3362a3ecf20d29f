package view

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// GridOptions say how [Week] and [Month] lay out a window for a terminal.
type GridOptions struct {
	// Width is the terminal's width in columns; the output never passes
	// it, except below MinGridWidth, where it takes MinGridWidth.
	Width int
	// Colour writes ANSI SGR colours (ECMA-48); off, the text is plain.
	Colour bool
	// Now is the instant marked (today's column, the row of the hour);
	// zero takes the window's Now.
	Now time.Time
}

// MinGridWidth is the narrowest grid [Week] lays out: seven columns of
// three characters beside the hours.
const MinGridWidth = gridGutter + 7*(3+1) + 1

// gridGutter is the width of the hours column: "09:00" and the mark of now.
const gridGutter = 6

// Rows of the grid: wall-clock hours of the person's zone, from the
// earliest start (or 08:00) to the latest end (or 18:00), by half hours
// when an event starts or ends off the hour and the day fits in
// maxHalfHourRows rows, else by hours.
const (
	gridFirstHour   = 8
	gridLastHour    = 18
	maxHalfHourRows = 36
	maxAllDayRows   = 3
)

// WeekOf returns the ISO 8601 week holding d: its Monday and its Sunday.
func WeekOf(d tz.Date) (monday, sunday tz.Date) {
	back := (int(d.Weekday()) + 6) % 7 // days since Monday
	monday = d.AddDays(-back)
	return monday, monday.AddDays(6)
}

// MonthOf returns the weeks a month view shows for the month holding d:
// the Monday of the week of its first day to the Sunday of the week of its
// last day (at most six weeks, [MaxDays]).
func MonthOf(d tz.Date) (from, to tz.Date) {
	first := tz.Date{Year: d.Year, Month: d.Month, Day: 1}
	last := tz.Date{Year: d.Year, Month: d.Month, Day: daysInMonth(d.Year, d.Month)}
	from, _ = WeekOf(first)
	_, to = WeekOf(last)
	return from, to
}

func daysInMonth(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// gridEvent is one timed event as a day's column shows it: its wall-clock
// minutes within the day (clipped to the day) and its rows.
type gridEvent struct {
	ev         Event
	start, end int  // wall-clock minutes from the day's midnight, end > start
	clipStart  bool // began on an earlier day
	clipEnd    bool // ends on a later day
	r0, r1     int  // first and last row (inclusive)
	lane       int
	cluster    int
}

// gridCluster is a run of rows where a day's events overlap, split into
// lanes side by side.
type gridCluster struct{ lanes int }

// Week writes w (normally the seven days of an ISO week, Monday first) as
// a grid for a terminal: a title line, the days as columns, the all-day
// events in a band on top, the hours as rows with each timed event as a
// block over its rows (overlapping events side by side, and "+N" when
// more overlap than the column holds), the current time marked when it
// falls in the window, the days when the clocks change, and under the
// grid the tasks of each day and the overdue ones. Times are wall-clock
// times in w.Zone; titles are cut at rune boundaries with "…".
func Week(w Window, o GridOptions) string {
	g := newGrid(w, o)
	return g.render()
}

type grid struct {
	w        Window
	o        GridOptions
	zone     *time.Location
	now      time.Time
	col      int // width of a day's column
	lo, hi   int // first and last minute shown (whole hours)
	step     int // minutes per row
	rows     int
	events   [][]gridEvent
	clusters [][]gridCluster
	maxLanes int
	b        strings.Builder
}

func newGrid(w Window, o GridOptions) *grid {
	if o.Width < MinGridWidth {
		o.Width = MinGridWidth
	}
	if o.Now.IsZero() {
		o.Now = w.Now
	}
	g := &grid{w: w, o: o, zone: w.Zone.Location(), now: o.Now}
	n := len(w.Days)
	if n == 0 {
		n = 1
	}
	g.col = (o.Width-gridGutter-1)/n - 1
	if g.col > 40 {
		g.col = 40
	}
	g.maxLanes = max(1, (g.col+1)/4)
	g.place()
	return g
}

// wallMinutes reads instant t on day d's clock in minutes from midnight,
// clipped to the day: 0 at or before its start, 1440 at or after its end.
func (g *grid) wallMinutes(d tz.Date, t time.Time) (m int, clipped bool) {
	start, end := g.w.Zone.DayBounds(d)
	if !t.After(start) {
		return 0, t.Before(start)
	}
	if !t.Before(end) {
		return 24 * 60, t.After(end)
	}
	dt := g.w.Zone.In(t)
	return dt.Hour*60 + dt.Minute, false
}

// place reads each day's timed events into minutes, chooses the rows and
// puts the events in lanes.
func (g *grid) place() {
	g.lo, g.hi = gridFirstHour*60, gridLastHour*60
	offHour := false
	g.events = make([][]gridEvent, len(g.w.Days))
	for i, d := range g.w.Days {
		for _, ev := range d.Timed {
			s, cs := g.wallMinutes(d.Date, ev.Start)
			e, ce := g.wallMinutes(d.Date, ev.End)
			if s == 24*60 { // starts at the very end: nothing of it is on this day
				continue
			}
			if e <= s { // an empty event, or one ending in the repeated hour before its start's reading
				e = s + 1
			}
			g.events[i] = append(g.events[i], gridEvent{ev: ev, start: s, end: e, clipStart: cs, clipEnd: ce})
			g.lo = min(g.lo, s/60*60)
			g.hi = max(g.hi, (e+59)/60*60)
			if s%60 != 0 || (e%60 != 0 && e != s+1) {
				offHour = true
			}
		}
	}
	g.step = 60
	if offHour && (g.hi-g.lo)/30 <= maxHalfHourRows {
		g.step = 30
	}
	g.rows = (g.hi - g.lo) / g.step
	g.clusters = make([][]gridCluster, len(g.w.Days))
	for i := range g.events {
		evs := g.events[i]
		for j := range evs {
			evs[j].r0 = (evs[j].start - g.lo) / g.step
			evs[j].r1 = (evs[j].end-g.lo+g.step-1)/g.step - 1
			if evs[j].r1 < evs[j].r0 {
				evs[j].r1 = evs[j].r0
			}
		}
		sort.SliceStable(evs, func(a, b int) bool {
			if evs[a].r0 != evs[b].r0 {
				return evs[a].r0 < evs[b].r0
			}
			if evs[a].r1 != evs[b].r1 {
				return evs[a].r1 > evs[b].r1
			}
			return evs[a].ev.Start.Before(evs[b].ev.Start)
		})
		var laneEnd []int // last row of each lane in the current cluster
		clusterEnd := -1
		for j := range evs {
			if evs[j].r0 > clusterEnd {
				g.clusters[i] = append(g.clusters[i], gridCluster{})
				laneEnd = laneEnd[:0]
			}
			c := len(g.clusters[i]) - 1
			lane := -1
			for l, end := range laneEnd {
				if end < evs[j].r0 {
					lane = l
					break
				}
			}
			if lane < 0 {
				lane = len(laneEnd)
				laneEnd = append(laneEnd, 0)
			}
			laneEnd[lane] = evs[j].r1
			evs[j].lane, evs[j].cluster = lane, c
			g.clusters[i][c].lanes = max(g.clusters[i][c].lanes, lane+1)
			clusterEnd = max(clusterEnd, evs[j].r1)
		}
	}
}

func (g *grid) line(parts ...string) {
	for _, p := range parts {
		g.b.WriteString(p)
	}
	g.b.WriteByte('\n')
}

func (g *grid) render() string {
	g.title()
	g.header()
	g.allDay()
	g.rule("┼", "┤")
	g.hours()
	g.rule("┴", "┘")
	g.clockChanges()
	g.tasks()
	return g.b.String()
}

// weekTitle is "Week 13 · Mon 23 – Sun 29 March 2026 · Europe/Paris".
func (g *grid) title() {
	if len(g.w.Days) == 0 {
		return
	}
	first, last := g.w.From, g.w.To
	_, wk := first.At(0, 0).AsUTC().ISOWeek()
	span := fmt.Sprintf("%s %d – %s %d %s %d", first.Weekday().String()[:3], first.Day, last.Weekday().String()[:3], last.Day, last.Month, last.Year)
	if first.Month != last.Month || first.Year != last.Year {
		from := fmt.Sprintf("%s %d %s", first.Weekday().String()[:3], first.Day, first.Month)
		if first.Year != last.Year {
			from += fmt.Sprintf(" %d", first.Year)
		}
		span = fmt.Sprintf("%s – %s %d %s %d", from, last.Weekday().String()[:3], last.Day, last.Month, last.Year)
	}
	t := fmt.Sprintf("Week %d · %s · %s", wk, span, g.w.Zone.Name())
	g.line(paint(g.o.Colour, sgrBold, termCut(t, g.o.Width)))
}

func (g *grid) today() tz.Date { return g.w.Zone.Today(g.now) }

func (g *grid) header() {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", gridGutter))
	today := g.today()
	for _, d := range g.w.Days {
		label := fmt.Sprintf("%s %d", d.Date.Weekday().String()[:3], d.Date.Day)
		if g.col >= 13 {
			label = fmt.Sprintf("%s %d %s", d.Date.Weekday().String()[:3], d.Date.Day, d.Date.Month.String()[:3])
		}
		code := sgrBold
		if d.Date == today {
			label = "[" + label + "]"
			code = sgrToday
		}
		b.WriteString("│")
		b.WriteString(paint(g.o.Colour, code, termFit(label, g.col)))
	}
	b.WriteString("│")
	g.line(b.String())
}

// allDay writes the band of all-day events: one row per event of the
// fullest day, up to maxAllDayRows, the last saying "+N more" when a
// day holds more.
func (g *grid) allDay() {
	rows := 0
	for _, d := range g.w.Days {
		rows = max(rows, min(len(d.AllDay), maxAllDayRows))
	}
	for r := 0; r < rows; r++ {
		var b strings.Builder
		label := ""
		if r == 0 {
			label = "allday"
		}
		b.WriteString(termFit(label, gridGutter))
		for _, d := range g.w.Days {
			b.WriteString("│")
			text, code := "", ""
			switch {
			case r == maxAllDayRows-1 && len(d.AllDay) > maxAllDayRows:
				text = fmt.Sprintf("+%d more", len(d.AllDay)-r)
			case r < len(d.AllDay):
				ev := d.AllDay[r]
				text = termClean(ev.Title)
				if ev.FirstDay.Before(d.Date) {
					text = "→" + text
				}
				code = sgrAllDay
			}
			b.WriteString(paint(g.o.Colour, code, termFit(text, g.col)))
		}
		b.WriteString("│")
		g.line(b.String())
	}
}

func (g *grid) rule(cross, end string) {
	var b strings.Builder
	b.WriteString(strings.Repeat("─", gridGutter))
	for range g.w.Days {
		b.WriteString(cross)
		b.WriteString(strings.Repeat("─", g.col))
	}
	b.WriteString(end)
	g.line(b.String())
}

// nowRow is the day index and row of g.now, or -1s when the instant is
// not on a shown day and hour.
func (g *grid) nowRow() (day, row int) {
	today := g.today()
	for i, d := range g.w.Days {
		if d.Date == today {
			m, _ := g.wallMinutes(d.Date, g.now)
			if m >= g.lo && m < g.hi {
				return i, (m - g.lo) / g.step
			}
			return i, -1
		}
	}
	return -1, -1
}

func (g *grid) hours() {
	nowDay, nowRow := g.nowRow()
	for r := 0; r < g.rows; r++ {
		m := g.lo + r*g.step
		mark := " "
		if r == nowRow {
			mark = paint(g.o.Colour, sgrNow, "▸")
		}
		var b strings.Builder
		b.WriteString(fmt.Sprintf("%02d:%02d", m/60, m%60))
		b.WriteString(mark)
		for i := range g.w.Days {
			b.WriteString("│")
			b.WriteString(g.cell(i, r, i == nowDay && r == nowRow))
		}
		b.WriteString("│")
		g.line(b.String())
	}
}

// cell is day i's column at row r, g.col columns wide (with colour codes
// when asked).
func (g *grid) cell(i, r int, now bool) string {
	var here []*gridEvent
	for j := range g.events[i] {
		ev := &g.events[i][j]
		if ev.r0 <= r && r <= ev.r1 {
			here = append(here, ev)
		}
	}
	if len(here) == 0 {
		if now {
			return paint(g.o.Colour, sgrNow, strings.Repeat("─", g.col))
		}
		return strings.Repeat(" ", g.col)
	}
	lanes := g.clusters[i][here[0].cluster].lanes
	shown := min(lanes, g.maxLanes)
	width := (g.col - (shown - 1)) / shown
	var b strings.Builder
	for l := 0; l < shown; l++ {
		lw := width
		if l == shown-1 {
			lw = g.col - (shown-1)*(width+1)
		}
		if l > 0 {
			b.WriteString("╎")
		}
		overflow := lanes > shown && l == shown-1
		var in []*gridEvent
		for _, ev := range here {
			if ev.lane == l || (overflow && ev.lane >= l) {
				in = append(in, ev)
			}
		}
		switch {
		case len(in) == 0:
			b.WriteString(strings.Repeat(" ", lw))
		case overflow:
			b.WriteString(paint(g.o.Colour, sgrBold, termFit(fmt.Sprintf("+%d", len(in)), lw)))
		default:
			b.WriteString(paint(g.o.Colour, sgrLanes[l%len(sgrLanes)], termFit(g.blockText(in[0], r, lw), lw)))
		}
	}
	return b.String()
}

// blockText is what an event's block says on row r: its title on the
// first row (after its start time when the column is wide and the event
// starts off the row's boundary), its times on the second, and a dotted
// edge below (blank in colour, where the background shows the block).
func (g *grid) blockText(ev *gridEvent, r, width int) string {
	switch r {
	case ev.r0:
		title := termClean(ev.ev.Title)
		if title == "" {
			title = "(untitled)"
		}
		if width >= 14 && ev.start != g.lo+r*g.step && !ev.clipStart {
			title = clock(ev.start) + " " + title
		}
		return title
	case ev.r0 + 1:
		return g.timeRange(ev, width)
	}
	if g.o.Colour {
		return ""
	}
	return "┆"
}

// timeRange is "09:30–10:15", or what of it fits: "09–11" for whole
// hours, else the start alone; "…–10:15" for an event begun the day
// before.
func (g *grid) timeRange(ev *gridEvent, width int) string {
	from, to := clock(ev.start), clock(ev.end)
	if ev.clipStart {
		from = "…"
	}
	if ev.clipEnd {
		to = "…"
	}
	full := from + "–" + to
	if termWidth(full) <= width {
		return full
	}
	if ev.start%60 == 0 && ev.end%60 == 0 && !ev.clipStart && !ev.clipEnd {
		if short := fmt.Sprintf("%02d–%02d", ev.start/60, ev.end/60%24); termWidth(short) <= width {
			return short
		}
	}
	if termWidth(from) <= width {
		return from
	}
	if g.o.Colour {
		return ""
	}
	return "┆"
}

func clock(m int) string { return fmt.Sprintf("%02d:%02d", m/60%24, m%60) }

// clockChanges says on which days of the window the person's zone changes
// its offset (daylight saving time), as a reader would otherwise wonder
// why an hour is missing or twice.
func (g *grid) clockChanges() {
	for _, d := range g.w.Days {
		if s := clockChange(g.w.Zone, d.Date); s != "" {
			g.line(termCut(s, g.o.Width))
		}
	}
}

// clockChange is "Sun 29 March: clocks go forward 1 hour at 02:00 (CET →
// CEST)." for a day on which z's offset changes, else "".
func clockChange(z tz.Zone, d tz.Date) string {
	start, end := z.DayBounds(d)
	_, off0 := start.Zone()
	_, off1 := end.Add(-time.Second).Zone()
	if off0 == off1 {
		return ""
	}
	lo, hi := start, end.Add(-time.Second)
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(hi.Sub(lo) / 2)
		if _, o := mid.Zone(); o == off0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	name0, _ := lo.Zone()
	name1, _ := hi.Zone()
	at := hi.UTC().Add(time.Duration(off0) * time.Second).Format("15:04")
	way, by := "forward", off1-off0
	if by < 0 {
		way, by = "back", -by
	}
	amount := fmt.Sprintf("%d minutes", by/60)
	switch {
	case by == 3600:
		amount = "1 hour"
	case by%3600 == 0:
		amount = fmt.Sprintf("%d hours", by/3600)
	}
	return fmt.Sprintf("%s %d %s: clocks go %s %s at %s (%s → %s).", d.Weekday().String()[:3], d.Day, d.Month, way, amount, at, name0, name1)
}

// tasks lists the overdue tasks, then each day's tasks, one line each,
// under the day's name.
func (g *grid) tasks() {
	some := len(g.w.Overdue) > 0
	for _, d := range g.w.Days {
		some = some || len(d.Tasks) > 0
	}
	empty := !some
	for _, d := range g.w.Days {
		if len(d.AllDay) > 0 || len(d.Timed) > 0 {
			empty = false
		}
	}
	if empty {
		g.line("Nothing this week.")
	}
	if g.w.Cut {
		g.line(termCut(fmt.Sprintf("Not everything is shown: the window holds more than %d items.", MaxItems), g.o.Width))
	}
	if !some {
		return
	}
	g.line("")
	g.line(paint(g.o.Colour, sgrBold, "Tasks"))
	const label = 11 // "Mon 23 Mar " and "overdue    "
	for i, t := range g.w.Overdue {
		head := ""
		if i == 0 {
			head = "overdue"
		}
		g.taskLine(head, label, t, true)
	}
	for _, d := range g.w.Days {
		for i, t := range d.Tasks {
			head := ""
			if i == 0 {
				head = fmt.Sprintf("%s %d %s", d.Date.Weekday().String()[:3], d.Date.Day, d.Date.Month.String()[:3])
			}
			g.taskLine(head, label, t, false)
		}
	}
}

func (g *grid) taskLine(head string, label int, t Task, overdue bool) {
	box := "☐"
	if t.Done {
		box = "☑"
	}
	text := termClean(t.Title)
	switch t.Priority { // 1 urgent, 2 high (list_tasks' scale)
	case 1:
		text = "!! " + text
	case 2:
		text = "! " + text
	}
	if t.DueTime {
		text = g.w.Zone.In(t.DueAt).String()[11:16] + " " + text
	}
	if overdue {
		text += fmt.Sprintf(" (due %s %d %s)", t.Due.Weekday().String()[:3], t.Due.Day, t.Due.Month.String()[:3])
	}
	idPart := ""
	if t.ID != "" {
		idPart = " " + t.ID
	}
	room := g.o.Width - label - 2 - termWidth(idPart)
	body := termCut(text, room) + idPart
	code := ""
	if overdue || t.Overdue {
		code = sgrOverdue
	}
	g.line(termFit(head, label), box, " ", paint(g.o.Colour, code, body))
}
