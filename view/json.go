package view

import (
	"encoding/json"

	"github.com/assistant-dev/assistant/tz"
)

// The JSON form of a Window, for scripts (`assistant agenda --json`). Its
// names are the tools' (snake_case, as list_events and list_tasks give
// them) and are kept stable; docs/views.md shows the shape. Times are
// RFC 3339 with the person's offset; days are YYYY-MM-DD in the person's
// zone.

type jsonWindow struct {
	TimeZone string     `json:"time_zone"` // the person's IANA zone
	Now      string     `json:"now"`       // the view's clock
	From     string     `json:"from"`      // the first day shown
	To       string     `json:"to"`        // the last day shown (included)
	Overdue  []jsonTask `json:"overdue"`   // open tasks overdue from before From, oldest first
	Days     []jsonDay  `json:"days"`
	Cut      bool       `json:"cut"` // true when the window held more than MaxItems
}

type jsonDay struct {
	Date    string      `json:"date"`
	Weekday string      `json:"weekday"` // in English
	AllDay  []jsonEvent `json:"all_day"` // all-day events covering the day
	Events  []jsonEvent `json:"events"`  // timed occurrences overlapping the day, by start
	Tasks   []jsonTask  `json:"tasks"`   // open tasks due that day
}

type jsonEvent struct {
	ID       string `json:"id"`     // the occurrence id to quote
	Series   string `json:"series"` // the event id
	Title    string `json:"title"`
	Location string `json:"location,omitempty"`
	AllDay   bool   `json:"all_day"`
	// Start and End: instants in the person's zone for a timed event (End
	// exclusive); for an all-day one the first and last day (included), as
	// list_events gives them.
	Start    string `json:"start"`
	End      string `json:"end"`
	TimeZone string `json:"time_zone,omitempty"` // the event's own zone, when not the person's
	Now      bool   `json:"now,omitempty"`       // on at "now" (timed events only)
}

type jsonTask struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Priority int    `json:"priority"` // 1 urgent, 2 high, 3 medium, 4 none
	Due      string `json:"due"`      // the day it is due, in the person's zone
	DueAt    string `json:"due_at,omitempty"`
	Overdue  bool   `json:"overdue"`
}

// JSON is w in its JSON form for scripts, indented, ending with a
// newline. Its members: time_zone, now, from, to, overdue (tasks), days
// (each with date, weekday, all_day and events — both lists of events —
// and tasks), cut. An event has id, series, title, location (when it has
// one), all_day, start, end, time_zone (its own, when not the person's)
// and now (when on at now); a task has id, title, priority (1 urgent … 4
// none), due, due_at (when it has a time) and overdue. Lists are [] when
// empty, never null.
func JSON(w Window) ([]byte, error) {
	out := jsonWindow{TimeZone: w.Zone.Name(), Now: tz.RFC3339(w.Now, w.Zone), From: w.From.String(), To: w.To.String(),
		Overdue: jsonTasks(w, w.Overdue), Days: []jsonDay{}, Cut: w.Cut}
	for _, d := range w.Days {
		jd := jsonDay{Date: d.Date.String(), Weekday: d.Date.Weekday().String(), AllDay: []jsonEvent{}, Events: []jsonEvent{}, Tasks: jsonTasks(w, d.Tasks)}
		for _, e := range d.AllDay {
			jd.AllDay = append(jd.AllDay, jsonEventOf(w, e))
		}
		for _, e := range d.Timed {
			jd.Events = append(jd.Events, jsonEventOf(w, e))
		}
		out.Days = append(out.Days, jd)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func jsonEventOf(w Window, e Event) jsonEvent {
	j := jsonEvent{ID: e.ID, Series: e.Series, Title: e.Title, Location: e.Location, AllDay: e.AllDay, TimeZone: e.EventZone}
	if e.AllDay {
		j.Start, j.End = e.FirstDay.String(), e.LastDay.String()
		return j
	}
	j.Start, j.End = tz.RFC3339(e.Start, w.Zone), tz.RFC3339(e.End, w.Zone)
	j.Now = !e.Start.After(w.Now) && e.End.After(w.Now)
	return j
}

func jsonTasks(w Window, ts []Task) []jsonTask {
	out := []jsonTask{}
	for _, t := range ts {
		j := jsonTask{ID: t.ID, Title: t.Title, Priority: t.Priority, Due: t.Due.String(), Overdue: t.Overdue}
		if t.DueTime {
			j.DueAt = tz.RFC3339(t.DueAt, w.Zone)
		}
		out = append(out, j)
	}
	return out
}
