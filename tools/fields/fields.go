// Package fields reads the arguments that the task and event tools share —
// the list window, reminders, the page cursor, idempotency keys and the
// duplicate window — so that both kinds of item read them the same way and
// answer with the same sentences (design §3, §5, §6).
package fields

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Window is a half-open span of instants [From, To). An item matches when
// it overlaps the window (design §3).
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
// DefaultDays after “from”. A “to” not after “from” is a failure recorded
// on a.
func ReadWindow(a *args.Args, zone tz.Zone, now time.Time) Window {
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

// Reminder limits: how far ahead a relative reminder may be (four weeks,
// in minutes) and how many of each kind an item may have.
const (
	MaxRemindBefore = 40320
	MaxReminders    = 10
)

// Reminders are an item's reminders (design §5): Before is minutes before
// the start or due of each occurrence (RFC 5545 relative triggers), At are
// absolute moments in the item's zone (absolute triggers).
type Reminders struct {
	Before []int
	At     []tz.Moment
}

// ReadReminders reads “remind_before” (a list of minutes, 0 to
// MaxRemindBefore) and “remind_at” (a list of moments in zone), at most
// MaxReminders each. Repeated values are kept once, in the order given.
func ReadReminders(a *args.Args, zone tz.Zone) Reminders {
	var r Reminders
	seen := map[int]bool{}
	for _, n := range a.NumberList("remind_before", 0, MaxRemindBefore) {
		if !seen[n] {
			seen[n] = true
			r.Before = append(r.Before, n)
		}
	}
	seenAt := map[tz.Moment]bool{}
	for _, m := range a.MomentList("remind_at", zone) {
		if !seenAt[m] {
			seenAt[m] = true
			r.At = append(r.At, m)
		}
	}
	if len(r.Before) > MaxReminders {
		a.Fail("remind_before", fmt.Sprintf("“remind_before” may hold at most %d reminders, not %d.", MaxReminders, len(r.Before)))
	}
	if len(r.At) > MaxReminders {
		a.Fail("remind_at", fmt.Sprintf("“remind_at” may hold at most %d reminders, not %d.", MaxReminders, len(r.At)))
	}
	return r
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
	if s := strings.TrimSpace(beforeJSON); s != "" {
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

// Fingerprint is a stable SHA-256 hex digest of v's canonical JSON (maps
// with sorted keys), used to tell a repeated call with an idempotency key
// from a different call that reuses the key.
func Fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprintf("%#v", v))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// DuplicateWindow is how recent an item with the same normalised title,
// the same due or start and the same other fields (rule, length, place,
// priority, tags) must be to count as a duplicate (design §6).
const DuplicateWindow = 10 * time.Minute

// NormTitle is title as compared for the duplicate window: case-folded,
// runs of spaces collapsed, and trailing punctuation dropped, so "Buy milk"
// and "buy  milk." match.
func NormTitle(title string) string {
	f := strings.Fields(strings.ToLower(title))
	s := strings.Join(f, " ")
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// Schema properties the task and event tools share, so both describe
// them in the same words.
var (
	FromProp           = tools.Str("from", "Start of the window: a day (2026-10-05) or a day and time (2026-10-05T09:00) in the person's zone. Default: today 00:00.")
	ToProp             = tools.Str("to", "End of the window: a day (2026-10-11: that whole day is included) or a day and time (2026-10-11T18:00: up to that moment, which is not included). Default: 7 days after from.")
	CursorProp         = tools.Str("cursor", "The next-page cursor a previous answer gave (such as o20). Leave out for the first page.")
	RemindBeforeProp   = tools.Ints("remind_before", "Reminders as minutes before the start or due, for example [10, 1440] for 10 minutes and 1 day before.")
	RemindAtProp       = tools.Strs("remind_at", "Reminders at fixed moments, such as [\"2026-10-05T08:00\"], in the item's zone.")
	KeyProp            = tools.Str("key", "Optional idempotency key: repeating a call with the same key returns the first result instead of creating a second item.")
	AllowDuplicateProp = tools.Bool("allow_duplicate", "Create the item even if the same one (same title, time and other fields) was made in the last 10 minutes.")
)

// LimitProp describes “limit” with its default and maximum.
func LimitProp(def, most int) tools.Property {
	return tools.Int("limit", fmt.Sprintf("How many to show, 1 to %d (default %d).", most, def)).Range(1, float64(most))
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

// SkipPastReminders records as skipped, in tx, the reminders of the task
// or event label ("t12", "e7") whose time was already past at now when the
// item took its present form, and returns their instants for the answer
// to name (see [PastReminders]). Package remind sets it when it is linked
// in (remind.SkipPast), since remind reads the tools' tables and so
// cannot be imported by them; while it is nil, nothing is recorded.
var SkipPastReminders func(tx *store.Tx, label string, zone tz.Zone, now time.Time) ([]time.Time, error)

// SkipPast calls [SkipPastReminders] when it is set.
func SkipPast(tx *store.Tx, label string, zone tz.Zone, now time.Time) ([]time.Time, error) {
	if SkipPastReminders == nil {
		return nil, nil
	}
	return SkipPastReminders(tx, label, zone, now)
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
