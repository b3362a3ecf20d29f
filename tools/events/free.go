package events

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/fields"
	"github.com/assistant-dev/assistant/tz"
)

// taskBusy is how long an open task with a due time keeps a person busy:
// the half hour before it is due.
const taskBusy = 30 * time.Minute

// maxSlots is how many free slots find_free_time lists.
const maxSlots = 30

var clockPattern = regexp.MustCompile(`^([01]?[0-9]|2[0-4]):([0-5][0-9])$`)

// readClock reads a time of day "HH:MM" (24:00 allowed, as the end of the
// day) and returns minutes after midnight.
func readClock(a *args.Args, name string, def int) int {
	text := a.Text(name)
	if a.Err() != nil || text == "" {
		return def
	}
	m := clockPattern.FindStringSubmatch(text)
	if m == nil {
		a.Fail(name, fmt.Sprintf("“%s” must be a time of day such as 09:00 or 18:30, not %s.", name, args.Quote(text)))
		return def
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	if h == 24 && mi != 0 {
		a.Fail(name, fmt.Sprintf("“%s” must be a time of day from 00:00 to 24:00, not %s.", name, args.Quote(text)))
		return def
	}
	return h*60 + mi
}

type interval struct{ from, to time.Time }

func findFreeTime(ctx context.Context, tc *tools.ToolContext, a *args.Args) tools.ExecResult {
	c, err := host(ctx, tc)
	if err != nil {
		return tools.Internal(err)
	}
	w := fields.ReadWindow(a, c.zone, c.now)
	need := a.Number("duration", 30, 5, 24*60)
	dayStart := readClock(a, "day_start", 9*60)
	dayEnd := readClock(a, "day_end", 18*60)
	weekends := a.Flag("weekends")
	withTasks := a.Flag("tasks")
	if a.Err() == nil && dayEnd <= dayStart {
		a.Fail("day_end", fmt.Sprintf("“day_end” %02d:%02d must be after “day_start” %02d:%02d.", dayEnd/60, dayEnd%60, dayStart/60, dayStart%60))
	}
	if a.Err() == nil && dayEnd-dayStart < need {
		a.Fail("duration", fmt.Sprintf("“duration” %d minutes is longer than the working day from “day_start” to “day_end” (%d minutes).", need, dayEnd-dayStart))
	}
	if err := a.Err(); err != nil {
		return tools.Invalid(err)
	}
	// Free time in the past is of no use: start at now, on a quarter hour.
	from := w.From
	if now := c.now.Truncate(15 * time.Minute); now.Before(c.now) {
		if n := now.Add(15 * time.Minute); n.After(from) {
			from = n
		}
	} else if now.After(from) {
		from = now
	}
	var busy []interval
	err = c.s.Read(ctx, c.person.ID, func(tx *store.Tx) error {
		list, err := windowOccs(tx, c.zone, w, 0)
		if err != nil {
			return err
		}
		for _, o := range list {
			if !o.AllDay {
				busy = append(busy, interval{o.Start, o.End})
			}
		}
		if withTasks {
			dues, err := taskDues(tx, w.From, w.To.Add(taskBusy))
			if err != nil {
				return err
			}
			for _, d := range dues {
				busy = append(busy, interval{d.Add(-taskBusy), d})
			}
		}
		return nil
	})
	if err != nil {
		return result(err)
	}
	slices.SortFunc(busy, func(a, b interval) int { return a.from.Compare(b.from) })
	var free []interval
	total := 0
	for d := c.zone.Today(w.From); c.zone.StartOfDay(d).Before(w.To); d = d.AddDays(1) {
		if !weekends && (d.Weekday() == time.Saturday || d.Weekday() == time.Sunday) {
			continue
		}
		lo, _ := c.zone.Instant(d.At(0, 0).AddMinutes(dayStart))
		hi, _ := c.zone.Instant(d.At(0, 0).AddMinutes(dayEnd))
		lo, hi = later(lo, from), earlier(hi, w.To)
		for _, gap := range gaps(lo, hi, busy) {
			if gap.to.Sub(gap.from) >= time.Duration(need)*time.Minute {
				total++
				if len(free) < maxSlots {
					free = append(free, gap)
				}
			}
		}
	}
	shown := freeWindow(later(w.From, from), w.To, c.zone)
	var b strings.Builder
	hours := fmt.Sprintf("%02d:%02d–%02d:%02d", dayStart/60, dayStart%60, dayEnd/60, dayEnd%60)
	days := "weekdays"
	if weekends {
		days = "every day"
	}
	if len(free) == 0 {
		fmt.Fprintf(&b, "No free time of %s from %s within %s, %s (%s).", minutes(time.Duration(need)*time.Minute), shown, hours, days, c.zone.Name())
	} else {
		fmt.Fprintf(&b, "Free time of at least %s from %s within %s, %s (%s):", minutes(time.Duration(need)*time.Minute), shown, hours, days, c.zone.Name())
	}
	type slot struct {
		Start   string `json:"start"`
		End     string `json:"end"`
		Minutes int    `json:"minutes"`
	}
	data := make([]slot, 0, len(free))
	for _, f := range free {
		fmt.Fprintf(&b, "\n%s (%s)", timeSpan(f.from, f.to, c.zone), minutes(f.to.Sub(f.from)))
		data = append(data, slot{tz.RFC3339(f.from, c.zone), tz.RFC3339(f.to, c.zone), int(f.to.Sub(f.from) / time.Minute)})
	}
	if total > len(free) {
		fmt.Fprintf(&b, "\n… and %d more; ask for a shorter from/to window to see them.", total-len(free))
	}
	if !withTasks {
		b.WriteString("\n(Tasks were not counted; set “tasks” to count open tasks with a due time as busy.)")
	}
	return tools.SuccessWithData(b.String(), map[string]any{"free": data, "total": total, "time_zone": c.zone.Name(), "tasks_counted": withTasks})
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// gaps returns the parts of [lo, hi) that no busy interval covers; busy is
// sorted by start.
func gaps(lo, hi time.Time, busy []interval) []interval {
	var out []interval
	cur := lo
	for _, b := range busy {
		if !cur.Before(hi) {
			break
		}
		if !b.to.After(cur) || !b.from.Before(hi) {
			continue
		}
		if b.from.After(cur) {
			out = append(out, interval{cur, b.from})
		}
		cur = later(cur, b.to)
	}
	if cur.Before(hi) {
		out = append(out, interval{cur, hi})
	}
	return out
}

// taskDues returns the due instants in [from, to) of the owner's open,
// live tasks that have a due time (migrations/00002_tasks.sql: due_at is
// NULL for a date-only due).
func taskDues(tx *store.Tx, from, to time.Time) ([]time.Time, error) {
	rows, err := tx.Query(`SELECT due_at FROM tasks WHERE owner_id = ? AND status = 'open' AND deleted_at IS NULL
		AND due_at IS NOT NULL AND due_at >= ? AND due_at < ?`, tx.Owner(), from.Unix(), to.Unix())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			return nil, err
		}
		out = append(out, time.Unix(at, 0).UTC())
	}
	return out, rows.Err()
}

// freeWindow gives the searched window as list_events does
// (fields.Window.String): a “to” at midnight is the last day it includes,
// also when the search starts later than 00:00 because part of the first
// day is past: "Mon 2026-04-13 11:15 (+02:00) to the end of Mon 2026-04-13".
func freeWindow(from, to time.Time, zone tz.Zone) string {
	w := fields.Window{From: from, To: to}
	f, t := zone.In(from), zone.In(to)
	if t.Hour != 0 || t.Minute != 0 || f.Hour == 0 && f.Minute == 0 {
		return w.String(zone)
	}
	return tz.FormatModel(from, zone) + " to the end of " + tz.FormatDateModel(t.Date.AddDays(-1))
}
