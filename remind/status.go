package remind

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// StatusLimit is how many entries each section of a status report lists.
const StatusLimit = 20

// Entry is one reminder in a status report.
type Entry struct {
	DeliveryID string    // "" for an upcoming reminder not yet due
	Item       string    // "t12", "e7", "digest"
	Title      string    // the item's title as it is now
	Occurrence string    // RECURRENCE-ID form; "" for a task without a due
	Trigger    string    // "before:15", "at:…", "digest"
	FireAt     time.Time // when it is (was) due
	SentAt     time.Time // zero unless sent
	Attempts   int
	NextTry    time.Time // a pending retry's time
	Error      string    // the last failure, or why it was skipped
}

// PersonStatus is one person's reminders, each section newest first except
// Upcoming (soonest first).
type PersonStatus struct {
	Name, Zone string
	Upcoming   []Entry // not yet due, and due ones waiting for a retry
	Sent       []Entry
	Late       []Entry // of the sent, those more than LateAfter after their time
	Skipped    []Entry
	Failed     []Entry
}

// Status brings the index up to date with the items (it records and sends
// nothing) and reports every person's reminders.
func (e *Engine) Status(ctx context.Context) ([]PersonStatus, error) {
	people, err := e.persons(ctx)
	if err != nil {
		return nil, err
	}
	now := e.now()
	var out []PersonStatus
	for _, p := range people {
		ps := PersonStatus{Name: p.Name, Zone: p.Zone.Name()}
		var r Result
		if err := e.rebuild(ctx, p, now, &r); err != nil {
			return nil, err
		}
		if _, err := e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error {
			st, err := e.sync(tx, p, now, &r)
			if err != nil {
				return err
			}
			return saveState(tx, st)
		}); err != nil {
			return nil, err
		}
		err := e.s.Read(ctx, p.ID, func(tx *store.Tx) error {
			titles := map[string]string{}
			title := func(label string) string {
				if label == "digest" {
					return "daily agenda"
				}
				if t, ok := titles[label]; ok {
					return t
				}
				t := label
				if it, ok, err := loadItem(tx, label, p.Zone); err == nil && ok {
					t = it.Title
				}
				titles[label] = t
				return t
			}
			if err := upcoming(tx, p, title, &ps); err != nil {
				return err
			}
			sections := []struct {
				into *[]Entry
				q    string
			}{
				{&ps.Sent, `status = 'sent' ORDER BY sent_at DESC, id DESC`},
				{&ps.Late, `status = 'sent' AND sent_at - fire_at > ` + fmt.Sprint(int64(LateAfter/time.Second)) +
					` ORDER BY sent_at DESC, id DESC`},
				{&ps.Skipped, `status = 'skipped' ORDER BY fire_at DESC, id DESC`},
				{&ps.Failed, `status = 'failed' ORDER BY fire_at DESC, id DESC`},
			}
			for _, s := range sections {
				list, err := entries(tx, s.q, title)
				if err != nil {
					return err
				}
				*s.into = list
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, ps)
	}
	return out, nil
}

func entries(tx *store.Tx, cond string, title func(string) string) ([]Entry, error) {
	rows, err := tx.Query(`SELECT delivery_id, item, occurrence, trigger, fire_at, coalesce(sent_at, 0), attempts,
		next_attempt, status, last_error FROM reminder_deliveries WHERE owner_id = ? AND `+cond+` LIMIT ?`,
		tx.Owner(), StatusLimit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var en Entry
		var fire, sent, next int64
		var status string
		if err := rows.Scan(&en.DeliveryID, &en.Item, &en.Occurrence, &en.Trigger, &fire, &sent, &en.Attempts,
			&next, &status, &en.Error); err != nil {
			return nil, err
		}
		en.FireAt = time.Unix(fire, 0).UTC()
		if sent > 0 {
			en.SentAt = time.Unix(sent, 0).UTC()
		}
		if status == "pending" {
			en.NextTry = time.Unix(next, 0).UTC()
		}
		out = append(out, en)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	for i := range out {
		out[i].Title = title(out[i].Item)
	}
	return out, nil
}

// upcoming lists the due deliveries waiting for a retry, then the next
// fires of the items that fire soonest.
func upcoming(tx *store.Tx, p person, title func(string) string, ps *PersonStatus) error {
	waiting, err := entries(tx, `status IN ('pending', 'claimed') ORDER BY next_attempt, id`, title)
	if err != nil {
		return err
	}
	ps.Upcoming = waiting
	rows, err := tx.Query(`SELECT item, next_fire FROM remind_next WHERE owner_id = ? AND next_fire IS NOT NULL
		ORDER BY next_fire, item LIMIT ?`, tx.Owner(), StatusLimit)
	if err != nil {
		return err
	}
	type next struct {
		label string
		at    int64
	}
	var list []next
	for rows.Next() {
		var n next
		if err := rows.Scan(&n.label, &n.at); err != nil {
			rows.Close()
			return err
		}
		list = append(list, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, n := range list {
		it, ok, err := loadItem(tx, n.label, p.Zone)
		if err != nil || !ok {
			continue
		}
		at := time.Unix(n.at, 0).UTC()
		for _, f := range it.between(at, at) {
			ps.Upcoming = append(ps.Upcoming, Entry{Item: n.label, Title: it.Title, Occurrence: f.Occurrence,
				Trigger: f.Trigger, FireAt: f.At})
		}
	}
	if len(ps.Upcoming) > StatusLimit {
		ps.Upcoming = ps.Upcoming[:StatusLimit]
	}
	return nil
}

// WriteStatus renders reports as text for a terminal, instants in each
// person's zone.
func WriteStatus(w io.Writer, reports []PersonStatus) error {
	var b strings.Builder
	for i, ps := range reports {
		if i > 0 {
			b.WriteString("\n")
		}
		zone, err := tz.LoadZone(ps.Zone)
		if err != nil {
			zone = tz.UTC
		}
		fmt.Fprintf(&b, "%s (%s)\n", ps.Name, ps.Zone)
		section := func(name string, list []Entry, line func(Entry) string) {
			fmt.Fprintf(&b, "  %s: %d\n", name, len(list))
			for _, en := range list {
				fmt.Fprintf(&b, "    %s  %s “%s” %s%s\n", tz.FormatModel(en.FireAt, zone), en.Item, en.Title,
					describeTrigger(en), line(en))
			}
		}
		section("upcoming", ps.Upcoming, func(en Entry) string {
			if !en.NextTry.IsZero() {
				return fmt.Sprintf("  retry at %s after %s: %s", tz.FormatModel(en.NextTry, zone), attempts(en.Attempts), en.Error)
			}
			if en.DeliveryID != "" {
				return "  due now  " + en.DeliveryID
			}
			return ""
		})
		section("sent", ps.Sent, func(en Entry) string {
			return "  sent " + tz.FormatModel(en.SentAt, zone) + "  " + en.DeliveryID
		})
		section("late", ps.Late, func(en Entry) string {
			return "  sent " + humanDuration(en.SentAt.Sub(en.FireAt)) + " late  " + en.DeliveryID
		})
		section("skipped", ps.Skipped, func(en Entry) string { return "  " + en.Error })
		section("failed", ps.Failed, func(en Entry) string {
			return fmt.Sprintf("  after %s: %s  %s", attempts(en.Attempts), en.Error, en.DeliveryID)
		})
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describeTrigger says what a trigger is in words: "15 min before
// 20261005T070000Z".
func describeTrigger(en Entry) string {
	kind, val, _ := strings.Cut(en.Trigger, ":")
	switch kind {
	case "before":
		var n int
		fmt.Sscan(val, &n)
		return humanDuration(time.Duration(n)*time.Minute) + " before" + occSuffix(en.Occurrence)
	case "at":
		return "at " + val + occSuffix(en.Occurrence)
	case "digest":
		return "for " + en.Occurrence
	}
	return en.Trigger
}

func occSuffix(occ string) string {
	if occ == "" {
		return ""
	}
	return " (" + occ + ")"
}

// attempts is "1 attempt" or "3 attempts".
func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
