package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// TestInsertEventsImagesMatchSelect adds random events in batches
// (InsertEvents), after others and a deleted one, on each engine: every
// journal image must be byte for byte what SELECT * of the row gives (on
// SQLite they are made from the values bound, insertImaged, and on
// PostgreSQL from the values unnested, insertUnnest; the oracle is
// the row as stored), and the same as when every row is read back with
// RETURNING from a VALUES list (noImaged; on PostgreSQL the batch is
// otherwise one INSERT from unnest, insertUnnest); the undo and the redo
// of the batch go through.
func TestInsertEventsImagesMatchSelect(t *testing.T) {
	keepAdded = true
	defer func() { keepAdded = false }()
	storetest.Engines(t, func(t *testing.T) { sameAsReadBack(t, imagedScenario) })
}

// sameAsReadBack runs scenario with seeds 1 to 3, each again with
// noImaged set (every added row read back with RETURNING), and fails t
// when the two give different journals.
func sameAsReadBack(t *testing.T, scenario func(t *testing.T, seed uint64) string) {
	t.Helper()
	for seed := uint64(1); seed <= 3; seed++ {
		got := scenario(t, seed)
		noImaged = true
		want := scenario(t, seed)
		noImaged = false
		if got != want {
			t.Fatalf("seed %d: the journal differs from the one of rows read back:\n%s\n--- read back:\n%s", seed, got, want)
		}
	}
}

func imagedScenario(t *testing.T, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 24))
	f := newFixture(t)
	texts := []string{"", "Standup", `say "hi"`, `back\slash`, "é ü 💡", "two\nlines", "<&>", "'quoted'", "tab\there"}
	zones := []string{"Europe/Paris", "America/New_York", "UTC", "Asia/Kolkata"}
	mk := func(i int, first int64) *calendar.Event {
		allDay := rng.IntN(4) == 0
		text := fmt.Sprintf("2026-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28))
		if !allDay {
			text += fmt.Sprintf("T%02d:%02d", rng.IntN(24), 15*rng.IntN(4))
		}
		start, err := tz.ParseMoment(text)
		if err != nil {
			t.Fatal(err)
		}
		e := &calendar.Event{UID: fmt.Sprintf("u%d-%d@test", i, rng.IntN(1000)), Title: texts[rng.IntN(len(texts))] + "x",
			Location: texts[rng.IntN(len(texts))], Notes: texts[rng.IntN(len(texts))], AllDay: allDay,
			Zone: tz.MustZone(zones[rng.IntN(len(zones))]), Start: start, CreatedAt: t0.Add(time.Duration(rng.IntN(100)) * time.Second)}
		switch rng.IntN(3) {
		case 1:
			e.Rule = recur.MustRule("FREQ=WEEKLY;COUNT=3")
		case 2:
			e.Rule = recur.MustRule("FREQ=DAILY")
		}
		if rng.IntN(2) == 0 {
			e.RemindBefore = fmt.Sprintf("[%d]", rng.IntN(60))
		}
		if rng.IntN(4) == 0 {
			e.RemindOnce = `["2026-10-12T06:00:00Z"]`
		}
		if rng.IntN(5) == 0 && first != 0 {
			e.SplitFrom = first
		}
		if rng.IntN(5) == 0 {
			e.PrevStarts = []calendar.PrevStart{{Start: "2026-10-05T08:00", TZID: "Europe/Paris"}}
		}
		if allDay {
			e.SetLength(0, 1+rng.IntN(3))
		} else {
			e.SetLength(time.Duration(rng.IntN(180))*time.Minute, 0)
		}
		return e
	}
	var first int64
	f.events(t, f.alice.ID, func(tx *Tx) error {
		e := mk(-1, 0)
		id, err := tx.InsertEvent(e)
		first = id
		if err != nil {
			return err
		}
		gone := mk(-2, 0)
		if _, err := tx.InsertEvent(gone); err != nil {
			return err
		}
		return tx.DeleteEvent(gone.ID)
	})
	n := 100 + rng.IntN(400)
	f.clock = f.clock.Add(time.Minute)
	change := f.events(t, f.alice.ID, func(tx *Tx) error {
		es, ovs := make([]*calendar.Event, n), make([][]*calendar.Override, n)
		for i := range es {
			es[i] = mk(i, first)
		}
		return tx.InsertEvents(es, ovs)
	})
	var b bytes.Buffer
	err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
		stored, err := tx.images(`SELECT * FROM events WHERE owner_id = ?`, f.alice.ID)
		if err != nil {
			return err
		}
		c, _ := parseChange(change)
		rows, err := tx.loadRows(c, -1, 1<<20)
		if err != nil {
			return err
		}
		if len(rows) != n {
			return fmt.Errorf("%d journal rows of %d events", len(rows), n)
		}
		for _, r := range rows {
			if !bytes.Equal(r.after, stored[r.id]) {
				return fmt.Errorf("event %d: journal image\n%s\nSELECT * gives\n%s", r.id, r.after, stored[r.id])
			}
			fmt.Fprintf(&b, "%d %s\n", r.id, r.after)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.clock = f.clock.Add(time.Minute)
	undo, err := f.s.Undo(f.ctx, f.alice.ID, change)
	if err != nil {
		t.Fatalf("undo of %s: %v", change, err)
	}
	f.clock = f.clock.Add(time.Minute)
	if _, err := f.s.Undo(f.ctx, f.alice.ID, undo); err != nil {
		t.Fatalf("redo of %s: %v", change, err)
	}
	b.WriteString(dumpRows(t, f.s, `SELECT * FROM events ORDER BY id`))
	if !noImaged && f.s.layouts[EventsTable+"\x00"+joinCols(eventCols)] == nil {
		t.Error("no image layout of events: InsertEvents read its rows back")
	}
	if storetest.Engine(t) == storetest.Postgres && !noImaged {
		for _, c := range eventCols {
			if f.s.arrayTypes[EventsTable][c] == "" {
				t.Errorf("no array type for events.%s: InsertEvents went the VALUES way", c)
			}
		}
	}
	return b.String()
}

func joinCols(cols []string) string {
	var b bytes.Buffer
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c)
	}
	return b.String()
}

// TestInsertOneImageMatchesSelect adds random tasks one at a time, by
// Write and InsertTask and by AddTask (with its look for a task like it),
// on each engine: each journal image must
// be byte for byte what SELECT * gives of the row, and the whole journal
// the same as when every row is read back with RETURNING (noImaged); on
// SQLite the images are made from the values bound (insertOneImaged).
func TestInsertOneImageMatchesSelect(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) { sameAsReadBack(t, oneImagedScenario) })
}

func oneImagedScenario(t *testing.T, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 25))
	f := newFixture(t)
	texts := []string{"", "Water", `say "hi"`, `back\slash`, "é ü 💡", "two\nlines", "<&>", "'quoted'", "tab\there", "123", "-7"}
	zones := []string{"Europe/Paris", "America/New_York", "UTC", "Asia/Kolkata"}
	mk := func(i int) task.Task {
		tk := task.New(fmt.Sprintf("%s %d", texts[rng.IntN(len(texts))], i), t0.Add(time.Duration(rng.IntN(100))*time.Second))
		tk.Notes = texts[rng.IntN(len(texts))]
		tk.Priority = 1 + rng.IntN(4)
		if rng.IntN(2) == 0 {
			tk.Tags = []string{"home", []string{"work", "Café"}[rng.IntN(2)]}
		}
		if rng.IntN(3) > 0 {
			day := tz.Date{Year: 2026, Month: time.Month(1 + rng.IntN(12)), Day: 1 + rng.IntN(28)}
			if rng.IntN(2) == 0 {
				tk.Due = task.Day(day)
			} else {
				tk.Due = task.Timed(day.At(rng.IntN(24), 15*rng.IntN(4)), tz.MustZone(zones[rng.IntN(len(zones))]))
			}
			tk.HasDue = true
			if rng.IntN(3) == 0 {
				tk.Rule, tk.RepeatFrom = recur.MustRule("FREQ=WEEKLY;COUNT=3"), task.Schedule
			}
			if rng.IntN(2) == 0 {
				tk.Reminders = item.Reminders{Before: []int{rng.IntN(120)}}
			}
		}
		if rng.IntN(4) == 0 {
			tk.RemindOnce = []time.Time{t0.Add(time.Duration(1+rng.IntN(48)) * time.Hour)}
		}
		if rng.IntN(5) == 0 {
			tk.UID = fmt.Sprintf("u%d@test", i)
		}
		return tk
	}
	var changes []string
	for i := range 40 {
		tk := mk(i)
		f.clock = f.clock.Add(time.Second)
		if rng.IntN(2) == 0 {
			change, err := f.s.Write(f.ctx, f.alice.ID, "add_task", func(tx *Tx) error { _, err := tx.InsertTask(tk); return err })
			if err != nil {
				t.Fatal(err)
			}
			changes = append(changes, change)
			continue
		}
		_, change, added, err := f.s.AddTask(f.ctx, f.alice.ID, "add_task", f.alice.Zone, tk, f.clock.Add(-item.DuplicateWindow),
			func(ref string) string { return "added " + ref })
		if err != nil {
			t.Fatal(err)
		}
		if added {
			changes = append(changes, change)
		}
	}
	var b bytes.Buffer
	err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
		stored, err := tx.images(`SELECT * FROM tasks WHERE owner_id = ?`, f.alice.ID)
		if err != nil {
			return err
		}
		for _, change := range changes {
			c, _ := parseChange(change)
			rows, err := tx.loadRows(c, -1, 1<<20)
			if err != nil {
				return err
			}
			if len(rows) != 1 {
				return fmt.Errorf("%s: %d journal rows, want 1", change, len(rows))
			}
			r := rows[0]
			if !bytes.Equal(r.after, stored[r.id]) {
				return fmt.Errorf("%s: task %d: journal image\n%s\nSELECT * gives\n%s", change, r.id, r.after, stored[r.id])
			}
			fmt.Fprintf(&b, "%s %d %s\n", change, r.id, r.after)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) < 20 {
		t.Fatalf("only %d of 40 tasks added", len(changes))
	}
	b.WriteString(dumpRows(t, f.s, `SELECT * FROM tasks ORDER BY id`))
	if storetest.Engine(t) == storetest.SQLite && !noImaged && len(f.s.layouts) == 0 {
		t.Error("no image layout: every task was read back")
	}
	return b.String()
}
