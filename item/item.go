// Package item holds what tasks and events share as data: the bounds on
// their text, their reminders (relative, at a moment, and one-time), the
// normalised title and the window that tell a duplicate, and the preview
// of their notes. It reads no clock and no database.
package item

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/tz"
)

// Bounds on the text of a task or an event, in characters (Unicode code
// points). Tasks and events share them so a model meets one rule; a value
// over a bound is refused with TooLong's sentence and nothing is stored,
// never cut.
const (
	MaxTitle    = 200
	MaxLocation = 200
	MaxNotes    = 10000
	// MaxQuery bounds the search text of list_tasks and list_events.
	MaxQuery = 200
	// MaxKey bounds an idempotency key (“key” of add_task, add_event).
	MaxKey = 200
)

// FitNotes returns notes whole when they take at most room bytes; else
// their first part, cut at a line break or space near the end of room when
// there is one, and a sentence saying how many characters were left out.
// The stored notes are never cut, and the answer's Data holds them whole:
// a notes field of MaxNotes 4-byte characters is 40 KB, more than a model
// turn (tools.ModelLimit), so the text shows what fits instead of spilling.
func FitNotes(notes string, room int) string {
	if len(notes) <= room {
		return notes
	}
	room = max(room, 0)
	cut := room
	for cut > 0 && !utf8.RuneStart(notes[cut]) {
		cut--
	}
	head := notes[:cut]
	if i := lastBreak(head); i >= len(head)-200 && i > 0 {
		head = head[:i]
	}
	rest := utf8.RuneCountInString(notes) - utf8.RuneCountInString(head)
	return head + fmt.Sprintf("\n[%d more characters of these notes do not fit in one answer; they are kept as written.]", rest)
}

func lastBreak(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' || s[i] == ' ' {
			return i
		}
	}
	return -1
}

// NotesPreview is how many characters of notes a list's Data carries for
// each item; get_task and get_event give them whole.
const NotesPreview = 100

// Preview returns the first NotesPreview characters of notes, cut at a
// space or line break near the end when there is one, and whether more
// follows.
func Preview(notes string) (head string, more bool) {
	if utf8.RuneCountInString(notes) <= NotesPreview {
		return notes, false
	}
	n, cut := 0, len(notes)
	for i := range notes {
		if n == NotesPreview {
			cut = i
			break
		}
		n++
	}
	head = notes[:cut]
	if i := lastBreak(head); i >= len(head)-30 && i > 0 {
		head = head[:i]
	}
	return head, true
}

// Reminder limits: how far ahead a relative reminder may be (four weeks,
// in minutes) and how many of each kind an item may have.
const (
	MaxRemindBefore = 40320
	MaxReminders    = 10
)

// Reminders are an item's reminders: Before is minutes before
// the start or due of each occurrence (RFC 5545 relative triggers), At are
// absolute moments in the item's zone (absolute triggers).
type Reminders struct {
	Before []int
	At     []tz.Moment
}

// Empty reports whether r has no reminder at all.
func (r Reminders) Empty() bool { return len(r.Before) == 0 && len(r.At) == 0 }

// BeforeJSON is Before as JSON for a TEXT column: "[]" when empty.
func (r Reminders) BeforeJSON() string {
	if len(r.Before) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(r.Before)
	return string(b)
}

// AtJSON is At as a JSON array of canonical moment texts: "[]" when empty.
func (r Reminders) AtJSON() string { return tz.MomentsJSON(r.At) }

// ParseReminders reads the stored JSON forms written by BeforeJSON and
// AtJSON; empty text reads as no reminders.
func ParseReminders(beforeJSON, atJSON string) (Reminders, error) {
	var r Reminders
	if s := strings.TrimSpace(beforeJSON); s == "[]" {
		r.Before = []int{} // as json.Unmarshal leaves it, without its cost
	} else if s != "" {
		if err := json.Unmarshal([]byte(s), &r.Before); err != nil {
			return r, fmt.Errorf("stored remind_before %q: %w", s, err)
		}
	}
	at, err := tz.ParseMomentsJSON(strings.TrimSpace(atJSON))
	if err != nil {
		return r, fmt.Errorf("stored remind_at: %w", err)
	}
	r.At = at
	return r, nil
}

// Describe gives the reminders in words: "30 min and 1 day before; at Tue
// 2026-12-01 08:00", or "" when there are none.
func (r Reminders) Describe() string {
	var parts []string
	if len(r.Before) > 0 {
		leads := make([]string, len(r.Before))
		for i, n := range r.Before {
			leads[i] = Lead(n)
		}
		parts = append(parts, strings.Join(leads, ", ")+" before")
	}
	if len(r.At) > 0 {
		ats := make([]string, len(r.At))
		for i, m := range r.At {
			ats[i] = m.String()
		}
		parts = append(parts, "at "+strings.Join(ats, ", "))
	}
	return strings.Join(parts, "; ")
}

// Lead gives a number of minutes in the largest whole unit: "0 min",
// "45 min", "2 h", "1 day", "1 week".
func Lead(minutes int) string {
	switch {
	case minutes >= 10080 && minutes%10080 == 0:
		return plural(minutes/10080, "week")
	case minutes >= 1440 && minutes%1440 == 0:
		return plural(minutes/1440, "day")
	case minutes >= 60 && minutes%60 == 0:
		return strconv.Itoa(minutes/60) + " h"
	}
	return strconv.Itoa(minutes) + " min"
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// DuplicateWindow is how recent an item with the same normalised title,
// the same due or start and the same other fields (rule, length, place,
// priority, tags) must be to count as a duplicate.
const DuplicateWindow = 10 * time.Minute

// NormTitle is title as compared for the duplicate window: case-folded,
// runs of spaces collapsed, and trailing punctuation dropped, so "Buy milk"
// and "buy  milk." match.
func NormTitle(title string) string {
	f := strings.Fields(strings.ToLower(title))
	s := strings.Join(f, " ")
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// PastReminders is the warning for reminders whose time had already
// passed when they were set, which never fire: "the reminder time Mon
// 2026-10-05 08:45 (+02:00) has already passed; it will not fire." (the
// first five named, the rest counted); "" when ts is empty. The times are
// shown in zone.
func PastReminders(ts []time.Time, zone tz.Zone) string {
	if len(ts) == 0 {
		return ""
	}
	const shown = 5
	names := make([]string, 0, min(len(ts), shown))
	for _, t := range ts[:min(len(ts), shown)] {
		names = append(names, tz.FormatModel(t, zone))
	}
	if len(ts) == 1 {
		return "the reminder time " + names[0] + " has already passed; it will not fire."
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	if len(ts) > shown {
		list = strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(ts)-shown)
	}
	return "the reminder times " + list + " have already passed; they will not fire."
}

// OnceJSON is the stored form of one-time reminders (remind_once,
// migrations/00009_reminders.sql): the instants as RFC 3339 UTC texts,
// ["2026-10-05T07:00:00Z"]; "[]" when there are none. Each fires once, at
// its instant, however the item repeats (an absolute alarm, RFC 5545
// §3.8.6.3).
func OnceJSON(ts []time.Time) string {
	texts := make([]string, len(ts))
	for i, t := range ts {
		texts[i] = t.UTC().Format(time.RFC3339)
	}
	b, _ := json.Marshal(texts)
	return string(b)
}

// ParseOnce reads what OnceJSON writes; "" reads as none.
func ParseOnce(s string) ([]time.Time, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var texts []string
	if err := json.Unmarshal([]byte(s), &texts); err != nil {
		return nil, fmt.Errorf("stored remind_once %q: %w", s, err)
	}
	out := make([]time.Time, 0, len(texts))
	for _, x := range texts {
		t, err := time.Parse(time.RFC3339, x)
		if err != nil {
			return nil, fmt.Errorf("stored remind_once %q: %w", s, err)
		}
		out = append(out, t.UTC())
	}
	return out, nil
}

// DescribeOnce gives one-time reminders in words, in zone: "once at Mon
// 2026-10-05 09:00 (+02:00)", or "" when there are none.
func DescribeOnce(ts []time.Time, zone tz.Zone) string {
	if len(ts) == 0 {
		return ""
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = tz.FormatModel(t, zone)
	}
	return "once at " + strings.Join(names, ", ")
}

// OnceData is one-time reminders as a list's data: RFC 3339 with the
// offset of zone; never nil.
func OnceData(ts []time.Time, zone tz.Zone) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = tz.RFC3339(t, zone)
	}
	return out
}

// MissedReminders is the note of an undo that brought back reminders whose
// time passed while the change it undid was in place: "The reminder time
// Mon 2026-10-05 09:45 (+02:00) of t3 passed meanwhile; it goes out now,
// late, as one the reminders job missed while it was down (skipped when
// more than its --max-late late)." (the first five named, the rest
// counted); "" when ts is empty. The times are shown in zone.
func MissedReminders(ts []time.Time, zone tz.Zone) string {
	if len(ts) == 0 {
		return ""
	}
	const shown = 5
	names := make([]string, 0, min(len(ts), shown))
	for _, t := range ts[:min(len(ts), shown)] {
		names = append(names, tz.FormatModel(t, zone))
	}
	if len(ts) == 1 {
		return "The reminder time " + names[0] + " passed meanwhile; it goes out now, late, as one the reminders job " +
			"missed while it was down (skipped when more than its --max-late late)."
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	if len(ts) > shown {
		list = strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(ts)-shown)
	}
	return "The reminder times " + list + " passed meanwhile; they go out now, late, as ones the reminders job " +
		"missed while it was down (skipped when more than its --max-late late)."
}
