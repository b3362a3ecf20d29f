package tools

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/tz"
)

// The argument readers the task and event tools share — the list window,
// reminders, the page cursor — so that both kinds of item read them the
// same way and answer with the same sentences.

// Window is a half-open span of instants [From, To). An item matches when
// it overlaps the window.
type Window struct {
	From, To time.Time
	// Explicit is true when the call gave “from” or “to”.
	Explicit bool
}

// DefaultDays is the length of the default window: today 00:00 in the
// person's zone to the same time DefaultDays days later.
const DefaultDays = 7

// ReadWindow reads “from” and “to” as moments in zone. A date-only “from”
// is 00:00 of that day; a date-only “to” is the end of that day (00:00 of
// the next), so from=2026-10-05 to=2026-10-05 is that whole day. A missing
// “from” is today 00:00 (or DefaultDays before “to”); a missing “to” is
// DefaultDays after “from”. A window reaching past the calendar's last
// day, 9999-12-31, ends there. A “to” not after “from” is a failure
// recorded on a.
func ReadWindow(a *args.Args, zone tz.Zone, now time.Time) Window {
	a.SetPastClock() // "from 8am" at 10:00 is this morning, not refused as past
	fromM, hasFrom := a.Moment("from", zone)
	toM, hasTo := a.Moment("to", zone)
	w := Window{Explicit: hasFrom || hasTo}
	if hasFrom {
		w.From, _ = zone.MomentInstant(fromM)
	}
	if hasTo {
		if toM.HasTime {
			w.To, _ = zone.Instant(toM.DateTime)
		} else {
			w.To = zone.StartOfDay(toM.Date.AddDays(1))
		}
	}
	switch {
	case !hasFrom && !hasTo:
		today := zone.Today(now)
		w.From = zone.StartOfDay(today)
		w.To = zone.StartOfDay(today.AddDays(DefaultDays))
	case !hasFrom:
		end := zone.In(w.To)
		w.From, _ = zone.Instant(end.Date.AddDays(-DefaultDays).At(end.Hour, end.Minute))
	case !hasTo:
		start := zone.In(w.From)
		w.To, _ = zone.Instant(start.Date.AddDays(DefaultDays).At(start.Hour, start.Minute))
	}
	// The calendar ends with 9999-12-31 (docs/time.md): a window reaching
	// past it, such as the default one from its last days, stops there.
	if end := zone.LastHeld(); w.To.After(end) {
		w.To = end
	}
	if a.Err() == nil && !w.To.After(w.From) {
		a.Fail("to", fmt.Sprintf("“to” must be after “from”; the window %s to %s is empty, so write a later “to”, such as %s.",
			fromM, toM, zone.Today(w.From).AddDays(1)))
	}
	return w
}

// Contains reports whether an item spanning [start, end) overlaps w. An
// item with no length (end not after start) matches when start is in w.
func (w Window) Contains(start, end time.Time) bool {
	if !end.After(start) {
		return !start.Before(w.From) && start.Before(w.To)
	}
	return start.Before(w.To) && end.After(w.From)
}

// String gives the window as the model reads it, in zone: "Mon 2026-11-30
// to Sun 2026-12-06" when it is whole days, with times otherwise. The "to"
// day of a whole-day window is the last day it includes.
func (w Window) String(zone tz.Zone) string {
	from, to := zone.In(w.From), zone.In(w.To)
	if from.Hour == 0 && from.Minute == 0 && to.Hour == 0 && to.Minute == 0 {
		last := to.Date.AddDays(-1)
		if last == from.Date {
			return tz.FormatDateModel(from.Date)
		}
		return tz.FormatDateModel(from.Date) + " to " + tz.FormatDateModel(last)
	}
	return tz.FormatModel(w.From, zone) + " to " + tz.FormatModel(w.To, zone)
}

// ReadReminders reads “remind_before” (a list of minutes, 0 to
// [item.MaxRemindBefore]) and “remind_at” (a list of moments in zone), at most
// [item.MaxReminders] each. Repeated values are kept once, in the order given.
func ReadReminders(a *args.Args, zone tz.Zone) item.Reminders {
	r := item.Reminders{
		Before: item.Unique(a.MinutesList("remind_before", 0, item.MaxRemindBefore)),
		At:     item.Unique(a.MomentList("remind_at", zone)),
	}
	if len(r.Before) > item.MaxReminders {
		a.Fail("remind_before", fmt.Sprintf("“remind_before” may hold at most %d reminders, not %d; keep the ones that matter most, such as [10, 1440].", item.MaxReminders, len(r.Before)))
	}
	if len(r.At) > item.MaxReminders {
		a.Fail("remind_at", fmt.Sprintf("“remind_at” may hold at most %d reminders, not %d; keep the ones that matter most.", item.MaxReminders, len(r.At)))
	}
	return r
}

// ReadCursor reads “cursor”, the text a previous page gave as its next
// cursor (an offset into the same listing), and returns the offset. A
// cursor past total is refused.
func ReadCursor(a *args.Args, total int) int {
	c := a.Text("cursor")
	if c == "" {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimPrefix(c, "o"))
	if err != nil || n < 0 || !strings.HasPrefix(c, "o") {
		a.Fail("cursor", fmt.Sprintf("“cursor” must be the cursor a previous answer gave (such as o20), not %s.", args.Quote(c)))
		return 0
	}
	if n > total {
		a.Fail("cursor", fmt.Sprintf("“cursor” %s is past the end: there are %d items now. Ask again without a cursor.", c, total))
		return 0
	}
	return n
}

// NextCursor returns the cursor of the page after the one at offset with
// limit items, or "" when that page was the last.
func NextCursor(offset, limit, total int) string {
	if offset+limit >= total {
		return ""
	}
	return "o" + strconv.Itoa(offset+limit)
}

// TitleWhat, LocationWhat and NotesWhat name what to write instead in
// [TooLong]'s sentence for “title”, “location” and “notes”, so tasks and
// events say the same.
const (
	TitleWhat    = "title (put details in “notes”)"
	LocationWhat = "place (put details in “notes”)"
	NotesWhat    = "note"
)

// AnswerRoom is how many bytes of a one-item answer (get_task, get_event,
// and the answers of writes that show the item whole) the text around the
// notes may leave to them: the notes get what is left of [ModelLimit]
// after the other lines and this reserve, kept for the lines a write adds
// (warnings, notes on the rule) and the sentence that says they were cut.
const AnswerRoom = 2048
