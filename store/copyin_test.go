package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// A batch of events large enough to go by COPY on PostgreSQL (copyMin)
// stores every text as given, COPY's escapes and markers included, with
// increasing ids in the batch's order, one journal row each; on SQLite
// the same batch stores the same.
func TestInsertEventsCopyTexts(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		texts := []string{`\N`, `\.`, ".", "a\tb", "a\nb", "a\r\nb", `back\slash`, `\\t`, `\`, "NULL", "", "é 💡", `"q"`, "x\\", "\x01ctl"}
		n := copyMin + 50
		es := make([]*calendar.Event, n)
		for i := range es {
			start, err := tz.ParseMoment(fmt.Sprintf("2026-11-%02dT09:00", 1+i%28))
			if err != nil {
				t.Fatal(err)
			}
			es[i] = &calendar.Event{UID: fmt.Sprintf("copy-%d", i), Title: texts[i%len(texts)] + "t",
				Location: texts[(i+1)%len(texts)], Notes: texts[(i+2)%len(texts)],
				Zone: tz.MustZone("Europe/Paris"), Start: start, CreatedAt: t0}
			es[i].SetLength(time.Hour, 0)
		}
		change := f.events(t, f.alice.ID, func(tx *Tx) error {
			return tx.InsertEvents(es, make([][]*calendar.Override, n))
		})
		for i := 1; i < n; i++ {
			if es[i].ID <= es[i-1].ID {
				t.Fatalf("event %d has id %d after %d: the ids are not in the batch's order", i, es[i].ID, es[i-1].ID)
			}
		}
		rows, err := f.s.DB().Query(`SELECT id, uid, title, location, notes FROM events WHERE owner_id = ? ORDER BY id`, f.alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		i := 0
		for ; rows.Next(); i++ {
			var id int64
			var uid, title, location, notes string
			if err := rows.Scan(&id, &uid, &title, &location, &notes); err != nil {
				t.Fatal(err)
			}
			e := es[i]
			if id != e.ID || uid != e.UID || title != e.Title || location != e.Location || notes != e.Notes {
				t.Errorf("row %d is (%d, %q, %q, %q, %q), not (%d, %q, %q, %q, %q)", i, id, uid, title, location, notes,
					e.ID, e.UID, e.Title, e.Location, e.Notes)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if i != n {
			t.Fatalf("%d events stored of %d", i, n)
		}
		c, _ := parseChange(change)
		var journaled int
		if err := f.s.DB().QueryRow(`SELECT count(*) FROM journal_rows WHERE change_id = ? AND tbl = 'events'`, c).Scan(&journaled); err != nil {
			t.Fatal(err)
		}
		if journaled != n {
			t.Errorf("%d journal rows of %d events", journaled, n)
		}
		if storetest.Engine(t) == storetest.Postgres && f.s.idDraws[EventsTable] == "" {
			t.Error("the batch did not go by COPY: no ids were drawn for events")
		}
		f.clock = f.clock.Add(time.Minute)
		if _, err := f.s.Undo(f.ctx, f.alice.ID, change); err != nil {
			t.Fatalf("undo of %s: %v", change, err)
		}
	})
}
