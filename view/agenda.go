package view

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/assistant-dev/assistant/tz"
)

// Options say how a renderer lays out its text.
type Options struct {
	// Width is the most columns a line takes (an east-asian wide rune
	// counts two); 0 means DefaultWidth, and less than MinWidth is
	// MinWidth.
	Width int
	// Colour adds ANSI SGR escapes (bold headings, red overdue, green
	// now, faint ids); without it the text is plain.
	Colour bool
}

// DefaultWidth is the width a view lays out for when it is not given one
// (standard output is not a terminal): 80 columns.
const DefaultWidth = 80

// MinWidth is the narrowest layout a view makes; a narrower width is
// taken as this.
const MinWidth = 60

func (o Options) width() int {
	switch {
	case o.Width == 0:
		return DefaultWidth
	case o.Width < MinWidth:
		return MinWidth
	}
	return o.Width
}

// ANSI SGR sequences (ECMA-48 §8.3.117).
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiFaint = "\x1b[2m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
)

// whenWidth is the width of the time column: "09:00–09:30".
const whenWidth = 11

// Agenda writes w as an agenda: the overdue tasks on top, with how long
// each is overdue, then each day under a heading ("Monday 5 October
// 2026", marked Today, Tomorrow or Yesterday, and the hour the clocks
// change on a DST day): the day's all-day events, its timed events in
// time order with their times in the person's zone (and in the event's
// own zone, named by its city, when it has another), then the tasks due
// that day. The event on at w.Now is marked "▶"; an event crossing
// midnight is shown on each of its days. Each line ends with the id to
// quote (e7@20261005T070000Z, t12) and fits o's width, a long title cut
// with "…" (east-asian wide runes count two columns). A window that was
// Cut ends with a sentence saying so.
func Agenda(w Window, o Options) string {
	a := agenda{w: w, o: o, width: o.width(), today: w.Zone.Today(w.Now)}
	if len(w.Overdue) > 0 {
		a.heading("Overdue", "")
		for _, t := range w.Overdue {
			a.task(t, shortDate(t.Due))
		}
		a.b.WriteString("\n")
	}
	for i, d := range w.Days {
		if i > 0 {
			a.b.WriteString("\n")
		}
		a.day(d)
	}
	if w.Cut {
		a.b.WriteString("\n")
		a.line(a.paint(ansiRed, termCut(fmt.Sprintf("The window holds more than %d events and tasks; only the first %d are shown.", MaxItems, MaxItems), a.width)))
	}
	return a.b.String()
}

type agenda struct {
	w     Window
	o     Options
	width int
	today tz.Date
	b     strings.Builder
}

func (a *agenda) paint(sgr, s string) string {
	if !a.o.Colour || s == "" {
		return s
	}
	return sgr + s + ansiReset
}

func (a *agenda) line(s string) {
	a.b.WriteString(strings.TrimRight(s, " "))
	a.b.WriteString("\n")
}

func (a *agenda) heading(title, mark string) {
	s := title
	if mark != "" {
		s += " · " + mark
	}
	s = termCut(s, a.width)
	a.line(a.paint(ansiBold, s))
}

func (a *agenda) day(d Day) {
	title := d.Date.Weekday().String() + " " + fmt.Sprintf("%d %s %d", d.Date.Day, d.Date.Month, d.Date.Year)
	var marks []string
	switch a.today.DaysUntil(d.Date) {
	case 0:
		marks = append(marks, "Today")
	case 1:
		marks = append(marks, "Tomorrow")
	case -1:
		marks = append(marks, "Yesterday")
	}
	if c := dayClockChange(a.w.Zone, d.Date); c != "" {
		marks = append(marks, c)
	}
	a.heading(title, strings.Join(marks, " · "))
	if len(d.AllDay)+len(d.Timed)+len(d.Tasks) == 0 {
		a.line("  " + a.paint(ansiFaint, "nothing planned"))
		return
	}
	for _, e := range d.AllDay {
		text := e.Title
		if e.FirstDay != e.LastDay {
			text += fmt.Sprintf(" (day %d of %d)", e.FirstDay.DaysUntil(d.Date)+1, e.FirstDay.DaysUntil(e.LastDay)+1)
		}
		a.row("", "all day", text, e.Location, e.ID, "")
	}
	for _, e := range d.Timed {
		a.event(d, e)
	}
	for _, t := range d.Tasks {
		when := "due"
		if t.DueTime {
			when = "due " + wallClock(t.DueAt, a.w.Zone)
		}
		a.task(t, when)
	}
}

// zoneCity is the place an IANA zone is named after, as people say it:
// "New York" for America/New_York, "UTC" for UTC.
func zoneCity(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return strings.ReplaceAll(name, "_", " ")
}

// shortDate is d as "Thu 1 Oct".
func shortDate(d tz.Date) string {
	return fmt.Sprintf("%s %d %s", d.Weekday().String()[:3], d.Day, d.Month.String()[:3])
}

// wallClock is t's wall-clock time in z, "09:00".
func wallClock(t time.Time, z tz.Zone) string { return t.In(z.Location()).Format("15:04") }

// dayClockChange says how the clocks change on d in z ("clocks go forward
// 1h at 02:00"), or "" on a day without a change.
func dayClockChange(z tz.Zone, d tz.Date) string {
	start, end := z.DayBounds(d)
	_, off0 := start.Zone()
	_, off1 := end.Zone()
	if off0 == off1 {
		return ""
	}
	// The change is the start of the zone's period holding the day's last
	// instant; it is said at the wall-clock time before it (02:00 in
	// Paris in March, 03:00 in October), as people say it.
	change, _ := end.Add(-time.Nanosecond).ZoneBounds()
	at := change.UTC().Add(time.Duration(off0) * time.Second).Format("15:04")
	shift, way := (off1-off0)/60, "forward"
	if shift < 0 {
		shift, way = -shift, "back"
	}
	by := fmt.Sprintf("%dh", shift/60)
	switch {
	case shift%60 != 0 && shift >= 60:
		by = fmt.Sprintf("%dh%02dm", shift/60, shift%60)
	case shift%60 != 0:
		by = fmt.Sprintf("%dm", shift)
	}
	return fmt.Sprintf("clocks go %s %s at %s", way, by, at)
}

func (a *agenda) event(d Day, e Event) {
	z := a.w.Zone
	start, end := wallClock(e.Start, z), wallClock(e.End, z)
	var note string
	switch {
	case e.FirstDay == e.LastDay:
		if e.ClockChanges(z) {
			// "02:30–02:00" alone reads as ending before it starts.
			note = e.Start.In(z.Location()).Format("15:04 MST") + "–" + e.End.In(z.Location()).Format("15:04 MST")
		}
	case d.Date == e.FirstDay:
		end = "…"
		note = "until " + e.End.In(z.Location()).Format("Mon 15:04")
	case d.Date == e.LastDay:
		start = "…"
		note = "since " + e.Start.In(z.Location()).Format("Mon 15:04")
	default:
		start, end = "…", "…"
		note = "since " + e.Start.In(z.Location()).Format("Mon 15:04") + ", until " + e.End.In(z.Location()).Format("Mon 15:04")
	}
	if e.EventZone != "" {
		if ez, err := tz.LoadZone(e.EventZone); err == nil {
			own := wallClock(e.Start, ez) + "–" + wallClock(e.End, ez) + " " + zoneCity(e.EventZone)
			note = strings.TrimPrefix(note+"; "+own, "; ")
		}
	}
	mark := ""
	if !e.Start.After(a.w.Now) && e.End.After(a.w.Now) {
		mark = "▶"
	}
	text := e.Title
	if note != "" {
		text += " (" + note + ")"
	}
	a.row(mark, start+"–"+end, text, e.Location, e.ID, "")
}

func (a *agenda) task(t Task, when string) {
	text := "☐ " + t.Title
	switch t.Priority {
	case 1:
		text += " (urgent)"
	case 2:
		text += " (high)"
	}
	late := ""
	if t.Overdue {
		late = a.overdueFor(t)
	}
	a.row("", when, text, "", t.ID, late)
}

// overdueFor says how long t has been overdue at Now: "3 days overdue"
// for a task due on a day or more than a day ago, "2 hours overdue",
// "5 minutes overdue".
func (a *agenda) overdueFor(t Task) string {
	if days := t.Due.DaysUntil(a.today); days > 0 && (!t.DueTime || a.w.Now.Sub(t.DueAt) >= 24*time.Hour) {
		return plural(days, "day") + " overdue"
	}
	if !t.DueTime {
		return "overdue"
	}
	late := a.w.Now.Sub(t.DueAt)
	if late >= time.Hour {
		return plural(int(late/time.Hour), "hour") + " overdue"
	}
	return plural(max(1, int(late/time.Minute)), "minute") + " overdue"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// row writes one line: the mark (▶ or blank), the time column, the text
// (with " · location"), a red note (how long overdue), and the id at the
// right edge; the text is cut to make room.
func (a *agenda) row(mark, when, text, location, id, late string) {
	if location != "" {
		text += " · " + location
	}
	text = oneLine(text)
	lead := "  "
	if mark != "" {
		lead = mark + " "
	}
	when = padCols(when, whenWidth)
	room := a.width - termWidth(lead) - whenWidth - 2 - 2 - termWidth(id)
	if late != "" {
		room -= 2 + termWidth(late)
	}
	text = termCut(text, max(room, 1))
	gap := max(room-termWidth(text), 0) + 2
	var b strings.Builder
	if mark != "" {
		b.WriteString(a.paint(ansiGreen+ansiBold, mark) + " ")
	} else {
		b.WriteString(lead)
	}
	if mark != "" {
		b.WriteString(a.paint(ansiGreen, when))
	} else {
		b.WriteString(a.paint(ansiCyan, when))
	}
	b.WriteString("  ")
	b.WriteString(text)
	if late != "" {
		b.WriteString("  " + a.paint(ansiRed, late))
	}
	b.WriteString(strings.Repeat(" ", gap))
	b.WriteString(a.paint(ansiFaint, id))
	a.line(b.String())
}

// oneLine replaces each control character of s (newline, tab, ESC…)
// with a space, so a title prints on one line and cannot move the cursor
// or colour the screen.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// padCols adds spaces to s up to n columns.
func padCols(s string, n int) string {
	if c := termWidth(s); c < n {
		return s + strings.Repeat(" ", n-c)
	}
	return s
}
