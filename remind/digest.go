package remind

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// MaxDigestTasks bounds the tasks one agenda lists; the rest are counted.
const MaxDigestTasks = 50

// DigestBody is a daily agenda: the day's event occurrences (overrides
// applied, cancelled ones left out) and the open tasks due that day or
// overdue.
type DigestBody struct {
	Day        string        `json:"day"` // "2026-10-05", in the person's zone
	Events     []DigestEvent `json:"events"`
	Tasks      []DigestTask  `json:"tasks"`
	TasksTotal int           `json:"tasks_total"` // may exceed len(Tasks)
}

// DigestEvent is one occurrence in an agenda.
type DigestEvent struct {
	ID       string `json:"id"` // occurrence id, "e7@20261005T070000Z"
	Title    string `json:"title"`
	Start    string `json:"start"` // RFC 3339 in the person's zone
	End      string `json:"end"`
	AllDay   bool   `json:"all_day"`
	Location string `json:"location,omitempty"`
}

// DigestTask is one task in an agenda.
type DigestTask struct {
	ID      string `json:"id"` // "t12"
	Title   string `json:"title"`
	Due     string `json:"due"` // "2026-10-05" or RFC 3339
	Overdue bool   `json:"overdue"`
}

// recordDigests adds the agenda of each day whose digest time came in
// (passed_at, now], once per person and day, whatever the time was.
func (e *Engine) recordDigests(tx *store.Tx, p person, st state, now time.Time, r *Result) error {
	passed := st.PassedAt
	for day := p.Zone.Today(passed); !day.After(p.Zone.Today(now)); day = day.AddDays(1) {
		at, _ := p.Zone.Instant(day.At(e.digest.Hour, e.digest.Minute))
		if !at.After(passed) || at.After(now) {
			continue
		}
		if done, err := tx.DigestRecorded(day.Basic()); err != nil {
			return err
		} else if done {
			continue
		}
		if err := e.insert(tx, p, "digest", day.Basic(), "digest", at, "", now, r); err != nil {
			return err
		}
	}
	return nil
}

// nextDigest is the first digest instant after now in zone.
func (e *Engine) nextDigest(zone tz.Zone, now time.Time) time.Time {
	day := zone.Today(now)
	for range 3 {
		if at, _ := zone.Instant(day.At(e.digest.Hour, e.digest.Minute)); at.After(now) {
			return at
		}
		day = day.AddDays(1)
	}
	return now.Add(24 * time.Hour)
}

// digestMessage fills m with the agenda of the day in d's occurrence.
func (e *Engine) digestMessage(ctx context.Context, p person, d *delivery, m *Message) error {
	mo, _, err := tz.ParseBasic(d.Occurrence)
	if err != nil {
		return err
	}
	day := mo.Date
	body := &DigestBody{Day: day.String(), Events: []DigestEvent{}, Tasks: []DigestTask{}}
	m.Digest = body
	m.Title = "Agenda for " + tz.FormatDateModel(day)
	from, to := p.Zone.DayBounds(day)
	err = e.s.Read(ctx, p.ID, func(tx *store.Tx) error {
		if err := digestEvents(tx, p, from, to, body); err != nil {
			return err
		}
		return digestTasks(tx, p, day, to, body)
	})
	var b strings.Builder
	b.WriteString(m.Title)
	if len(body.Events) == 0 {
		b.WriteString("\nNo events.")
	}
	for _, ev := range body.Events {
		fmt.Fprintf(&b, "\n%s %s (%s)", eventWhen(ev, day, p.Zone), ev.Title, ev.ID)
	}
	if body.TasksTotal == 0 {
		b.WriteString("\nNo tasks due.")
	}
	for _, t := range body.Tasks {
		mark := "due"
		if t.Overdue {
			mark = "overdue"
		}
		fmt.Fprintf(&b, "\n[%s] %s (%s), due %s", mark, t.Title, t.ID, dueWords(t.Due, p.Zone))
	}
	if n := body.TasksTotal - len(body.Tasks); n > 0 {
		fmt.Fprintf(&b, "\n… and %d more tasks", n)
	}
	if m.Late != "" {
		fmt.Fprintf(&b, "\n(sent %s late)", m.Late)
	}
	m.Text = b.String()
	return err
}

// eventWhen is how an agenda line of day says when an event starts: "all
// day", "09:00" on the day itself, or the whole time as the tools write it
// ("Sun 2026-10-04 22:00 (+02:00)") for one that began earlier.
func eventWhen(ev DigestEvent, day tz.Date, zone tz.Zone) string {
	if ev.AllDay {
		return "all day"
	}
	t, err := time.Parse(time.RFC3339, ev.Start)
	if err != nil {
		return ev.Start
	}
	local := zone.In(t)
	if local.Date != day {
		return tz.FormatModel(t, zone)
	}
	return fmt.Sprintf("%02d:%02d", local.Hour, local.Minute)
}

// dueWords renders a digest task's due (a date, or RFC 3339) as the tools
// write it: "Thu 2026-10-01" or "Mon 2026-10-05 09:00 (+02:00)".
func dueWords(due string, zone tz.Zone) string {
	if d, err := tz.ParseDate(due); err == nil {
		return tz.FormatDateModel(d)
	}
	if t, err := time.Parse(time.RFC3339, due); err == nil {
		return tz.FormatModel(t, zone)
	}
	return due
}

func digestEvents(tx *store.Tx, p person, from, to time.Time, body *DigestBody) error {
	// All-day series float with the person's zone, so their stored range
	// is a day wider on each side; a day's slack covers them.
	ids, err := tx.EventIDsBetween(from.Add(-24*time.Hour), to.Add(24*time.Hour))
	if err != nil {
		return err
	}
	type occ struct {
		ev    DigestEvent
		start time.Time
	}
	var list []occ
	for _, id := range ids {
		it, ok, err := loadEvent(tx, id, p.Zone)
		if err != nil || !ok || it.Dead {
			continue
		}
		add := func(key string, start, end time.Time, title string) {
			if !(start.Before(to) && (end.After(from) || (!end.After(start) && !start.Before(from)))) {
				return
			}
			ev := DigestEvent{ID: it.Label + "@" + key, Title: title, Start: tz.RFC3339(start, p.Zone),
				End: tz.RFC3339(end, p.Zone), AllDay: it.AllDay, Location: it.Location}
			list = append(list, occ{ev, start})
		}
		for _, o := range it.Series.Between(from, to) {
			if it.Over[o.Key()] == nil {
				add(o.Key(), o.Start, o.End, it.Title)
			}
		}
		for key, ov := range it.Over {
			if ov.Cancelled {
				continue
			}
			o, ok := it.OccurrenceAt(key)
			if !ok {
				continue
			}
			start, end := o.Start, o.End
			if !ov.Start.IsZero() {
				end = ov.Start.Add(o.End.Sub(o.Start))
				start = ov.Start
			}
			title := it.Title
			if ov.Title != "" {
				title = ov.Title
			}
			add(key, start, end, title)
		}
	}
	slices.SortFunc(list, func(a, b occ) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		return strings.Compare(a.ev.ID, b.ev.ID)
	})
	for _, o := range list {
		body.Events = append(body.Events, o.ev)
	}
	return nil
}

func digestTasks(tx *store.Tx, p person, day tz.Date, end time.Time, body *DigestBody) error {
	total, list, err := tx.OpenTasksDue(day.String(), end, MaxDigestTasks)
	if err != nil {
		return err
	}
	body.TasksTotal = total
	for _, dt := range list {
		t := DigestTask{ID: "t" + strconv.FormatInt(dt.ID, 10), Title: dt.Title, Due: dt.DueDate}
		if !dt.DueAt.IsZero() {
			t.Due = tz.RFC3339(dt.DueAt, p.Zone)
			t.Overdue = p.Zone.Today(dt.DueAt).Before(day)
		} else if d, err := tz.ParseDate(dt.DueDate); err == nil {
			t.Overdue = d.Before(day)
		}
		body.Tasks = append(body.Tasks, t)
	}
	return nil
}
