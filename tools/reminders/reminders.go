// Package reminders holds the tool that works on reminders once they were
// sent: snooze ("remind me again in 10 minutes"), which puts a sent
// reminder off so the reminders job (package remind) sends it once more at
// the new time, under the first send's delivery id with "-s1", "-s2", …
// (docs/reminders.md, "Snooze").
package reminders

import (
	"fmt"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/remind"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Register adds snooze to r.
func Register(r *tools.Registry) {
	r.Add(Snooze())
}

// DefaultMinutes is how long snooze puts a reminder off when neither
// minutes nor until is given.
const DefaultMinutes = 10

// maxMinutes is the longest snooze in minutes (remind.MaxSnooze).
const maxMinutes = int(remind.MaxSnooze / time.Minute)

// Data is snooze's structured answer.
type Data struct {
	// ID is the delivery id the reminder fires again under ("rd_…-s1").
	ID string `json:"id"`
	// Snoozed is the delivery put off.
	Snoozed string `json:"snoozed"`
	// Item is the task or event ("t12", "e7").
	Item string `json:"item"`
	// FireAt is when it fires again, RFC 3339 in the person's zone.
	FireAt string `json:"fire_at"`
	// Change is the change id; undo it to take the snooze back.
	Change string `json:"change"`
	// Replaced are snoozes of the same reminder still waiting that this
	// one replaced.
	Replaced []string `json:"replaced,omitempty"`
}

// Snooze is the snooze tool: `id` (a delivery id, or a task or event id
// meaning its latest sent reminder), and `minutes` (default 10; lengths
// such as 1h are read too) or `until` (a moment, relative words
// included). The answer says when it fires again, in the person's zone,
// and the change id; Data is [Data].
func Snooze() tools.Tool {
	return tools.Define(tools.Tool{
		Name:        "snooze",
		Title:       "Snooze a reminder",
		Description: "Puts off a reminder that went off: it is sent again later.",
		Schema: tools.Schema{Properties: []tools.Property{
			tools.Str("id", "Its delivery_id, or a task/event id for its last."),
			tools.Int("minutes", "Default 10; or a length, such as 1h.").Range(1, float64(maxMinutes)),
			tools.Str("until", "A moment instead."),
		}, Required: []string{"id"}},
		Output: tools.OutputOf[Data](),
	}, readSnooze, snooze)
}

type snoozeArgs struct {
	ref string
	at  time.Time
}

// readSnooze reads “id”, and “minutes” or “until”, into the new time.
func readSnooze(a *args.Args, e *tools.Env) snoozeArgs {
	ref := a.Line("id")
	if a.Err() == nil && !remind.IsSnoozeRef(ref) {
		a.Fail("id", fmt.Sprintf("“id” must be the delivery_id the reminder came with (such as rd_4881ba5d44c573b6c2fc488f) or a task or event id such as t12 or e7, not %s.", args.Quote(ref)))
	}
	if a.Has("minutes") && a.Has("until") {
		a.Fail("until", "Give “minutes” or “until”, not both.")
		return snoozeArgs{}
	}
	in := snoozeArgs{ref: ref, at: e.Now.Add(time.Duration(a.Minutes("minutes", DefaultMinutes, 1, maxMinutes)) * time.Minute)}
	if m, ok := a.Moment("until", e.Zone); ok {
		if !m.HasTime {
			a.Fail("until", fmt.Sprintf("“until” needs a time of day, such as %sT09:00 or tomorrow 9am, not only the day %s.", m.Date, m.Date))
			return in
		}
		in.at, _ = e.Zone.Instant(m.DateTime)
		switch {
		case !in.at.After(e.Now):
			a.Fail("until", fmt.Sprintf("“until” %s has already passed; give a later moment, or “minutes” from now.", tz.FormatModel(in.at, e.Zone)))
		case in.at.Sub(e.Now) > remind.MaxSnooze:
			a.Fail("until", fmt.Sprintf("“until” %s is more than a year away; set the task's or event's reminder instead.", tz.FormatModel(in.at, e.Zone)))
		}
	}
	return in
}

func snooze(e *tools.Env, in snoozeArgs) tools.ExecResult {
	s, err := remind.Snooze(e.Ctx, e.Store, e.Person.ID, e.Zone, in.ref, in.at, e.Now, e.Tool)
	if err != nil {
		return tools.Fail(err)
	}
	e.Changed(s.Change, s.Item)
	what := s.Item
	if s.Title != "" {
		what += " “" + s.Title + "”"
	}
	out := fmt.Sprintf("Snoozed the reminder of %s: it goes off again %s, as %s. Change %s; undo it to take the snooze back.",
		what, tz.FormatModel(s.FireAt, e.Zone), s.ID, s.Change)
	if len(s.Replaced) > 0 {
		out += " It replaces the snooze " + strings.Join(s.Replaced, ", ") + ", which was still waiting."
	}
	return tools.SuccessWithData(out, Data{ID: s.ID, Snoozed: s.Snoozed, Item: s.Item,
		FireAt: tz.RFC3339(s.FireAt, e.Zone), Change: s.Change, Replaced: s.Replaced})
}
