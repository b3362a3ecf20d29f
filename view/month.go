package view

import (
	"fmt"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// monthCell is the width of a day in the small calendar: "[", the day in
// two columns, the busy mark, "]" (the brackets only for today).
const monthCell = 5

// MinMonthWidth is the narrowest month [Month] lays out: the week numbers
// and seven days; a smaller GridOptions.Width takes it.
const MinMonthWidth = 3 + 7*monthCell

// Month writes w, the weeks of a month as [MonthOf] gives them, as a small
// calendar (ISO week numbers, then Monday to Sunday, as `ncal -M -w` or
// `cal -m` lay them out) whose busy days carry a "•" and whose today is
// bracketed ("[ 7•]"), and under it one line per day of the month that
// holds something: its all-day events, its timed events with their
// times, its tasks, as many as the width holds and "+N more" for the
// rest. The month shown is the one of w's first Sunday (its first week
// always holds the 1st). Times are wall-clock times in w.Zone.
func Month(w Window, o GridOptions) string {
	if o.Now.IsZero() {
		o.Now = w.Now
	}
	width := max(o.Width, MinMonthWidth)
	var b strings.Builder
	line := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
		b.WriteByte('\n')
	}
	if len(w.Days) == 0 {
		return ""
	}
	month := w.From.AddDays(6)
	today := w.Zone.Today(o.Now)
	title := fmt.Sprintf("%s %d · %s", month.Month, month.Year, w.Zone.Name())
	line(paint(o.Colour, sgrBold, termCut(title, width)))
	head := "Wk "
	for _, n := range []string{"Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"} {
		head += " " + n + "  "
	}
	line(paint(o.Colour, sgrDim, strings.TrimRight(head, " ")))
	busy := func(d Day) bool { return len(d.AllDay)+len(d.Timed)+len(d.Tasks) > 0 }
	for wk := 0; wk+7 <= len(w.Days); wk += 7 {
		week := w.Days[wk : wk+7]
		if !inMonth(week[0].Date, month) && !inMonth(week[6].Date, month) {
			continue
		}
		_, n := week[0].Date.At(0, 0).AsUTC().ISOWeek()
		var row strings.Builder
		row.WriteString(paint(o.Colour, sgrDim, fmt.Sprintf("%2d ", n)))
		for _, d := range week {
			if !inMonth(d.Date, month) {
				row.WriteString(strings.Repeat(" ", monthCell))
				continue
			}
			mark := " "
			if busy(d) {
				mark = "•"
			}
			open, shut := " ", " "
			if d.Date == today {
				open, shut = "[", "]"
			}
			num := fmt.Sprintf("%2d", d.Date.Day)
			code := ""
			switch {
			case d.Date == today:
				code = sgrToday
			case busy(d):
				code = sgrBold
			}
			row.WriteString(open + paint(o.Colour, code, num) + mark + shut)
		}
		line(strings.TrimRight(row.String(), " "))
	}

	shown := false
	if len(w.Overdue) > 0 {
		shown = true
		line()
		var items []string
		for _, t := range w.Overdue {
			items = append(items, "☐ "+termClean(t.Title))
		}
		line(paint(o.Colour, sgrOverdue, "overdue"), "  ", fitItems(items, width-9))
	}
	first := true
	for _, d := range w.Days {
		if !inMonth(d.Date, month) || !busy(d) {
			continue
		}
		if first && !shown {
			line()
		}
		first, shown = false, true
		var items []string
		for _, ev := range d.AllDay {
			items = append(items, termClean(ev.Title))
		}
		for _, ev := range d.Timed {
			hm := w.Zone.In(ev.Start).String()[11:16]
			if ev.Start.Before(startOf(w.Zone, d.Date)) { // begun the day before: until when
				hm = "…–" + w.Zone.In(ev.End).String()[11:16]
				if ev.End.After(startOf(w.Zone, d.Date.AddDays(1))) { // and on past this day
					hm = "…–…"
				}
			}
			items = append(items, hm+" "+termClean(ev.Title))
		}
		for _, t := range d.Tasks {
			items = append(items, "☐ "+termClean(t.Title))
		}
		label := fmt.Sprintf("%s %2d", d.Date.Weekday().String()[:3], d.Date.Day)
		code := ""
		if d.Date == today {
			code = sgrToday
		}
		line(paint(o.Colour, code, label), "  ", fitItems(items, width-8))
	}
	if !shown {
		line()
		line("Nothing this month.")
	}
	if w.Cut {
		line(termCut(fmt.Sprintf("Not everything is shown: the window holds more than %d items.", MaxItems), width))
	}
	return b.String()
}

func inMonth(d, month tz.Date) bool { return d.Year == month.Year && d.Month == month.Month }

func startOf(z tz.Zone, d tz.Date) time.Time { t, _ := z.DayBounds(d); return t }

// fitItems joins items with " · " in at most width columns: the items
// that fit whole, then "+N more" for the others (the first one cut with
// "…" when even it does not fit).
func fitItems(items []string, width int) string {
	all := strings.Join(items, " · ")
	if termWidth(all) <= width {
		return all
	}
	for k := len(items) - 1; k >= 1; k-- {
		s := strings.Join(items[:k], " · ") + fmt.Sprintf(" · +%d more", len(items)-k)
		if termWidth(s) <= width {
			return s
		}
	}
	more := ""
	if len(items) > 1 {
		more = fmt.Sprintf(" · +%d more", len(items)-1)
	}
	return termCut(items[0], width-termWidth(more)) + more
}
