package events

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// nextCount is how many upcoming occurrences get_event and add_event show.
const nextCount = 5

// seriesData is a whole event for programs (Data). Start and End are the
// first occurrence's, in RFC 3339 with time_zone's offset, or dates for an
// all-day event with End the last day.
type seriesData struct {
	ID           string   `json:"id"`
	UID          string   `json:"uid"`
	Title        string   `json:"title"`
	Location     string   `json:"location"`
	Notes        string   `json:"notes"`
	AllDay       bool     `json:"all_day"`
	Start        string   `json:"start"`
	End          string   `json:"end"`
	TimeZone     string   `json:"time_zone"`
	RRule        string   `json:"rrule,omitempty"`
	Repeats      string   `json:"repeats,omitempty"`
	ExDates      []string `json:"exdates"`
	RDates       []string `json:"rdates"`
	RemindBefore []int    `json:"remind_before"`
	RemindAt     []string `json:"remind_at"`
	// RemindOnce are one-time reminders from a calendar file's absolute
	// alarms: each fires once, at its instant.
	RemindOnce []string        `json:"remind_once,omitempty"`
	Next       []occData       `json:"next"`
	Exceptions []exceptionData `json:"exceptions"`
}

// exceptionData is one changed occurrence of a series.
type exceptionData struct {
	ID      string   `json:"id"`
	Changed []string `json:"changed"`
	Start   string   `json:"start,omitempty"`
	End     string   `json:"end,omitempty"`
}

// upcoming returns up to n occurrences of e that end after from, in
// order, looking at most a hundred years past from or past e's first
// occurrence, whichever is later (a series may start further ahead).
func upcoming(e *event, ovs map[string]*override, person tz.Zone, from time.Time, n int) []occ {
	lo := from
	if first, _, _ := calendar.Bounds(e, ovs); first.After(lo) {
		lo = first
	}
	return firstOccs(e, ovs, person, tools.Window{From: lo, To: lo.AddDate(100, 0, 0)}, n)
}

// describe gives e whole in lines for the model, and as Data.
func describe(e *event, ovs map[string]*override, person tz.Zone, now time.Time) ([]string, seriesData) {
	rem := e.Reminders()
	d := seriesData{ID: e.Label(), UID: e.UID, Title: e.Title, Location: e.Location, Notes: e.Notes, AllDay: e.AllDay,
		TimeZone: e.Zone.Name(), ExDates: texts(sortedMoments(e.ExDates, e.Zone)), RDates: texts(sortedMoments(e.RDates, e.Zone)), RemindBefore: rem.Before,
		RemindAt: texts(rem.At), Next: []occData{}, Exceptions: []exceptionData{}}
	if d.RemindBefore == nil {
		d.RemindBefore = []int{}
	}
	if once := e.Once(); len(once) > 0 {
		d.RemindOnce = item.OnceData(once, person)
	}
	first := occ{Event: e, Start: e.StartAt, End: e.EndAt, Zone: e.Zone, AllDay: e.AllDay, Title: e.Title}
	if e.AllDay {
		first.First, first.Last = e.Start.Date, e.End.Date.AddDays(-1)
		d.Start, d.End = first.First.String(), first.Last.String()
	} else {
		d.Start, d.End = tz.RFC3339(e.StartAt, e.Zone), tz.RFC3339(e.EndAt, e.Zone)
	}
	head := e.Label() + " " + quote(e.Title)
	if e.Location != "" {
		head += " @ " + e.Location
	}
	lines := []string{head}
	when := "When: " + span(&first, person) + ownZone(&first, person)
	if e.Repeats() {
		when = "Starts: " + span(&first, person) + ownZone(&first, person)
	}
	if !e.AllDay && e.Zone.Name() != person.Name() {
		when += ", in " + e.Zone.Name()
	}
	lines = append(lines, when)
	if e.Rule != nil {
		d.RRule = e.Rule.String()
		d.Repeats = describeRule(e, person)
		lines = append(lines, fmt.Sprintf("Repeats: %s (RRULE:%s)", d.Repeats, d.RRule))
	}
	if len(e.RDates) > 0 {
		lines = append(lines, "Also on (RDATE): "+firstOf(modelMoments(e.RDates, e, person)))
	}
	if e.Repeats() {
		next := upcoming(e, ovs, person, now, nextCount)
		if len(next) == 0 {
			lines = append(lines, "It has no occurrences after now.")
		} else {
			parts := make([]string, len(next))
			for i := range next {
				parts[i] = next[i].id() + " " + span(&next[i], person) + gapNote(&next[i])
				d.Next = append(d.Next, listDataOf(&next[i]))
			}
			lines = append(lines, "Next: "+strings.Join(parts, "; "))
		}
	}
	if len(e.ExDates) > 0 {
		lines = append(lines, "Deleted occurrences (EXDATE): "+firstOf(modelMoments(e.ExDates, e, person)))
	}
	if len(ovs) > 0 {
		keys := make([]string, 0, len(ovs))
		for k := range ovs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			ov := ovs[k]
			x := exceptionData{ID: e.Label() + "@" + k, Changed: changedFields(ov)}
			text := x.ID + " " + strings.Join(x.Changed, ", ")
			if ov.HasTime {
				o := occ{Event: e, Start: ov.StartAt, End: ov.EndAt, Zone: ov.Zone, AllDay: e.AllDay}
				if e.AllDay {
					o.First, o.Last = ov.Start.Date, ov.End.Date.AddDays(-1)
					x.Start, x.End = o.First.String(), o.Last.String()
				} else {
					x.Start, x.End = tz.RFC3339(ov.StartAt, ov.Zone), tz.RFC3339(ov.EndAt, ov.Zone)
				}
				text += " (now " + span(&o, person) + ")"
			}
			d.Exceptions = append(d.Exceptions, x)
			parts = append(parts, text)
		}
		lines = append(lines, "Changed occurrences: "+firstOfParts(parts))
	}
	if s := joinNonEmpty(rem.Describe(), item.DescribeOnce(e.Once(), person)); s != "" {
		lines = append(lines, "Reminders: "+s)
	}
	if e.Notes != "" {
		lines = append(lines, "Notes: "+item.FitNotes(e.Notes, tools.ModelLimit-tools.AnswerRoom-textLen(lines)))
	}
	return lines, d
}

// listShown is how many EXDATEs, RDATEs or changed occurrences a whole
// event's text lists before it only counts the rest; Data has them all.
const listShown = 20

// firstOf joins the first listShown of items, saying how many more there
// are: "a, b, c and 980 more".
func firstOf(items []string) string {
	if len(items) <= listShown {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:listShown], ", ") + fmt.Sprintf(" and %d more", len(items)-listShown)
}

// firstOfParts is firstOf for parts already separated by "; ".
func firstOfParts(parts []string) string {
	if len(parts) <= listShown {
		return strings.Join(parts, "; ")
	}
	return strings.Join(parts[:listShown], "; ") + fmt.Sprintf("; and %d more", len(parts)-listShown)
}

// textLen is the length in bytes of lines joined by line breaks.
func textLen(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

// changedFields names what an override changes.
func changedFields(o *override) []string {
	var out []string
	if o.Cancel {
		out = append(out, "cancelled")
	}
	if o.HasTime {
		out = append(out, "time")
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"title", o.Title}, {"location", o.Location}, {"notes", o.Notes}, {"remind_before", o.RemindBefore}, {"remind_at", o.RemindAt}} {
		if f.v != nil {
			out = append(out, f.name)
		}
	}
	return out
}

// momentInstant is where EXDATE or RDATE m of a series in zone falls: a
// date at 00:00 of that day.
func momentInstant(m tz.Moment, zone tz.Zone) time.Time {
	if !m.HasTime {
		return zone.StartOfDay(m.Date)
	}
	t, _ := zone.Instant(m.DateTime)
	return t
}

// sortedMoments is a sorted copy of EXDATEs or RDATEs of a series in
// zone: they are kept in the order they were written, which need not be
// the calendar's.
func sortedMoments(ms []tz.Moment, zone tz.Zone) []tz.Moment {
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b tz.Moment) int { return momentInstant(a, zone).Compare(momentInstant(b, zone)) })
	return out
}

// modelMoments gives e's EXDATEs or RDATEs sorted, as the model reads
// times: in the person's zone with weekday and offset, or the day alone
// for dates.
func modelMoments(ms []tz.Moment, e *event, person tz.Zone) []string {
	ms = sortedMoments(ms, e.Zone)
	out := make([]string, len(ms))
	for i, m := range ms {
		if m.HasTime && !e.AllDay {
			out[i] = tz.FormatModel(momentInstant(m, e.Zone), person)
		} else {
			out[i] = tz.FormatDateModel(m.Date)
		}
	}
	return out
}

// describeRule is e's rule in words (recur.Rule.Describe) with a timed
// UNTIL read in the person's zone, as every other time in an answer,
// rather than in UTC as RFC 5545 §3.3.10 stores it.
func describeRule(e *event, person tz.Zone) string {
	m, utc, ok := e.Rule.Until()
	if !ok || !m.HasTime {
		return e.Rule.Describe()
	}
	open, err := recur.ParseRule(withoutUntil(e.Rule))
	if err != nil {
		return e.Rule.Describe()
	}
	at, _ := e.Zone.Instant(m.DateTime)
	if utc {
		at = m.DateTime.AsUTC()
	}
	return open.Describe() + ", until " + tz.FormatModel(at, person)
}

// withoutUntil is the rule's text with UNTIL taken out.
func withoutUntil(r *recur.Rule) string {
	return calendar.PartsOf(r).Drop("UNTIL").String()
}

func texts(ms []tz.Moment) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// readGetEvent reads get_event's “id”.
func readGetEvent(a *args.Args, _ *tools.Env) ref { return readID(a) }

func getEvent(c *tools.Env, r ref) tools.ExecResult {
	var res tools.ExecResult
	err := c.Read(func(tx *store.Tx) error {
		t, err := resolve(tx, r, c.Zone)
		if err != nil {
			return err
		}
		ovs, err := tx.Overrides(t.E.ID)
		if err != nil {
			return err
		}
		if t.Occ == nil {
			lines, data := describe(t.E, ovs, c.Zone, c.Now)
			res = tools.SuccessWithData(strings.Join(lines, "\n"), map[string]any{"event": data})
			return nil
		}
		res = occurrenceResult(t.E, *t.Occ, ovs, c.Zone)
		return nil
	})
	if err != nil {
		return tools.Fail(err)
	}
	return res
}

// occurrenceResult shows one occurrence whole.
func occurrenceResult(e *event, r recur.Occurrence, ovs map[string]*override, person tz.Zone) tools.ExecResult {
	o, _ := shown(e, r, ovs, person)
	ov := ovs[o.Key()]
	head := o.id() + " " + quote(o.Title)
	if o.Location != "" {
		head += " @ " + o.Location
	}
	head += ", one occurrence of " + e.Label()
	if e.Rule != nil {
		head += " (" + describeRule(e, person) + ")"
	}
	lines := []string{head, "When: " + span(&o, person) + ownZone(&o, person) + gapNote(&o)}
	data := map[string]any{"occurrence": dataOf(&o), "series": e.Label()}
	if ov != nil && ov.HasTime {
		orig := newOcc(e, r)
		lines = append(lines, "Moved from: "+span(&orig, person))
		data["original_start"] = dataOf(&orig).Start
	}
	rem := e.Reminders()
	if ov != nil && (ov.RemindBefore != nil || ov.RemindAt != nil) {
		b, at := e.RemindBefore, e.RemindAt
		if ov.RemindBefore != nil {
			b = *ov.RemindBefore
		}
		if ov.RemindAt != nil {
			at = *ov.RemindAt
		}
		rem, _ = item.ParseReminders(b, at)
	}
	if s := rem.Describe(); s != "" {
		lines = append(lines, "Reminders: "+s)
	}
	if o.Notes != "" {
		lines = append(lines, "Notes: "+item.FitNotes(o.Notes, tools.ModelLimit-tools.AnswerRoom-textLen(lines)))
	}
	return tools.SuccessWithData(strings.Join(lines, "\n"), data)
}

// joinNonEmpty joins the non-empty parts with "; ".
func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}
