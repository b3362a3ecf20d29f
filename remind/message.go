package remind

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// Message is the JSON payload every notifier receives (one object; the
// stdout notifier writes it as one line). Instants are RFC 3339 with the
// offset in force in the person's zone.
type Message struct {
	// DeliveryID is the same on every resend of one delivery: delivery is
	// at least once (a retry, or a crash between the send and its record,
	// sends it again), so receivers drop a message whose id they have seen
	// ("rd_" and 24 hex digits).
	DeliveryID string `json:"delivery_id"`
	// Kind is "reminder" or "digest".
	Kind string `json:"kind"`
	// Title is the item's title (a digest's: "Agenda for Mon 2026-10-05");
	// Text is one human line (several for a digest).
	Title  string    `json:"title"`
	Text   string    `json:"text"`
	Person PersonRef `json:"person"`
	// Item and Occurrence are set for a reminder.
	Item       *ItemRef       `json:"item,omitempty"`
	Occurrence *OccurrenceRef `json:"occurrence,omitempty"`
	// Trigger is "before:15" (minutes before the start or due),
	// "at:2026-10-05T08:00" (an absolute moment, in the person's zone;
	// "at:2026-10-05T12:30[Europe/Paris]" when it was set in another: an
	// event's own zone, or --tz) or
	// "once:2026-10-12T06:00:00Z" (a one-time reminder, remind_once, from
	// a calendar file's absolute alarm).
	Trigger string `json:"trigger,omitempty"`
	// FireAt is when the reminder was due; SentAt when this attempt went
	// out; LateSeconds the difference (0 when on time), Late the same in
	// words ("2 h 5 min") when it is more than a minute.
	FireAt      string `json:"fire_at"`
	SentAt      string `json:"sent_at"`
	LateSeconds int64  `json:"late_seconds"`
	Late        string `json:"late,omitempty"`
	// Attempt counts from 1; a resend after a crash or failure has a higher
	// number and the same DeliveryID.
	Attempt int `json:"attempt"`
	// SnoozeOf is set on a snoozed reminder: the delivery id that was put
	// off (the first send's, or an earlier snooze's). Its own DeliveryID
	// is the first send's with "-s1", "-s2", … (store.SnoozeID), and
	// Trigger is the first send's.
	SnoozeOf string `json:"snooze_of,omitempty"`
	// Digest is set for a daily agenda.
	Digest *DigestBody `json:"digest,omitempty"`
	// Notes are the item's notes (an occurrence's own when it has them),
	// for notifiers that write prose, such as Mail; the JSON leaves them
	// out and keeps its documented shape.
	Notes string `json:"-"`
}

// PersonRef names who the message is for.
type PersonRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Zone string `json:"zone"`
}

// ItemRef is the task or event a reminder is about.
type ItemRef struct {
	ID       string `json:"id"`   // "t12", "e7"
	Kind     string `json:"kind"` // "task" or "event"
	Title    string `json:"title"`
	Location string `json:"location,omitempty"`
}

// OccurrenceRef is the occurrence a reminder is about: ID as the tools
// quote it ("e7@20261005T070000Z", "t12@20261005"; "t12" for a task with no
// due), its start or due, and Date for an all-day event or date-only due.
type OccurrenceRef struct {
	ID     string `json:"id"`
	Start  string `json:"start,omitempty"`
	AllDay bool   `json:"all_day"`
	Date   string `json:"date,omitempty"`
}

// message builds the payload of d for its attempt now. The item is read
// as it is at send time; when it is gone, what the delivery row knows is
// sent.
func (e *Engine) message(ctx context.Context, p person, d *delivery) (*Message, error) {
	now := e.now()
	late := now.Sub(d.FireAt)
	if late < 0 {
		late = 0
	}
	m := &Message{DeliveryID: d.ID, Kind: "reminder", Person: PersonRef{ID: p.ID, Name: p.Name, Zone: p.Zone.Name()},
		Trigger: d.Trigger, FireAt: tz.RFC3339(d.FireAt, p.Zone), SentAt: tz.RFC3339(now, p.Zone),
		LateSeconds: int64(late / time.Second), Attempt: d.Attempt}
	if late > LateAfter {
		m.Late = humanDuration(late)
	}
	if d.Item == "digest" {
		m.Kind, m.Trigger = "digest", ""
		return m, e.digestMessage(ctx, p, d, m)
	}
	origin, trig := d.FireAt, d.Trigger
	if store.IsSnoozeTrigger(d.Trigger) {
		// A snooze says what its chain's first send said, from its row.
		err := e.s.Read(ctx, p.ID, func(tx *store.Tx) error {
			s, found, err := tx.SnoozeByID(d.ID)
			if found {
				origin, trig, m.SnoozeOf = s.OriginFireAt, s.Trigger, s.Snoozed
			}
			return err
		})
		if err != nil {
			return m, err
		}
		m.Trigger = trig
	}
	m.Item = &ItemRef{ID: d.Item, Title: d.Item}
	m.Occurrence = &OccurrenceRef{ID: d.Item}
	if d.Occurrence != "" {
		m.Occurrence.ID = d.Item + "@" + d.Occurrence
	}
	var it *watched
	err := e.s.Read(ctx, p.ID, func(tx *store.Tx) error {
		var err error
		it, _, err = loadItem(tx, d.Item, p.Zone)
		return err
	})
	if it != nil {
		m.Item.Kind, m.Item.Title, m.Item.Location, m.Notes = it.Kind, it.Title, it.Location, it.Notes
	}
	var start time.Time
	if it != nil && d.Occurrence != "" {
		if ov := it.Over[d.Occurrence]; ov != nil && ov.Title != "" {
			m.Item.Title = ov.Title
		}
		if ov := it.Over[d.Occurrence]; ov != nil && ov.Notes != nil {
			m.Notes = *ov.Notes
		}
		for _, f := range it.Between(origin, origin) {
			if f.Occurrence == d.Occurrence && f.Trigger == trig {
				start = f.Start
			}
		}
		m.Occurrence.AllDay = it.AllDay
		if it.AllDay {
			if mo, _, err := tz.ParseBasic(d.Occurrence); err == nil {
				m.Occurrence.Date = mo.Date.String()
			}
		}
	}
	if m.Item.Kind == "" {
		m.Item.Kind = map[byte]string{'t': "task", 'e': "event"}[d.Item[0]]
	}
	if !start.IsZero() {
		m.Occurrence.Start = tz.RFC3339(start, p.Zone)
	}
	m.Title = m.Item.Title
	m.Text = reminderText(m, start, now, p.Zone)
	if m.SnoozeOf != "" {
		m.Text += " (snoozed)"
	}
	return m, err
}

// leadWords gives d, a minute or more, in whole units as reminders are
// set ("15 min", "2 h", "1 day", "1 week": [item.Lead]), or else in
// words: to the minute below a day ("2 h 30 min", "13 h 59 min"), to the
// nearest hour from a day on ("6 days 23 h", "7 days" for 6 days 23 h 58
// min), never as hundreds of minutes.
func leadWords(d time.Duration) string {
	m := int(d / time.Minute)
	if l := item.Lead(m); m < 60 || !strings.HasSuffix(l, " min") {
		return l
	}
	if d < 24*time.Hour {
		return humanDuration(time.Duration(m) * time.Minute)
	}
	h := int((d + 30*time.Minute) / time.Hour)
	if h%24 == 0 {
		return item.Lead(h * 60)
	}
	return humanDuration(time.Duration(h) * time.Hour)
}

// reminderText is the one line a person reads: "Standup: starts Mon
// 2026-10-05 09:00 (+02:00), in 15 min." with "(sent 2 h late)" when late;
// an event sent after it began "started …, 20 min ago" (one already over
// is not sent at all: see Engine.ended).
func reminderText(m *Message, start, now time.Time, zone tz.Zone) string {
	var b strings.Builder
	b.WriteString(m.Title)
	verb := "starts"
	if m.Item.Kind == "task" {
		verb = "due"
	}
	switch {
	case start.IsZero():
		b.WriteString(": reminder")
	case m.Occurrence.AllDay:
		fmt.Fprintf(&b, ": %s %s", verb, m.Occurrence.Date)
		if d, err := tz.ParseDate(m.Occurrence.Date); err == nil {
			b.Reset()
			fmt.Fprintf(&b, "%s: %s %s", m.Title, verb, tz.FormatDateModel(d))
		}
	default:
		if verb == "starts" && !start.After(now) {
			verb = "started" // sent late, after the event began
		}
		fmt.Fprintf(&b, ": %s %s", verb, tz.FormatModel(start, zone))
		if d := start.Sub(now); d >= time.Minute {
			fmt.Fprintf(&b, ", in %s", leadWords(d))
		} else if d <= -time.Minute {
			fmt.Fprintf(&b, ", %s ago", leadWords(-d))
		}
	}
	if m.Item.Location != "" {
		fmt.Fprintf(&b, " at %s", m.Item.Location)
	}
	b.WriteString(".")
	if m.Late != "" {
		fmt.Fprintf(&b, " (sent %s late)", m.Late)
	}
	return b.String()
}
