package store

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assistant-dev/assistant/migrations"
	"github.com/assistant-dev/assistant/store/storetest"
)

func (f *fixture) zone(t *testing.T, id int64) string {
	t.Helper()
	p, err := f.s.PersonByID(f.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return p.Zone
}

// A zone change is one journaled change: list_changes shows it, undo puts
// the zone back and walks on to the change before, and redo works.
func TestZoneChangeJournaled(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		note, _ := f.add(t, f.alice.ID, "milk")
		c, was, err := f.s.SetZone(f.ctx, f.alice.ID, "Asia/Tokyo", "set_time_zone")
		if err != nil || c == "" || was != "Europe/Paris" {
			t.Fatalf("SetZone = %q, %q, %v; want a change from Europe/Paris", c, was, err)
		}
		if z := f.zone(t, f.alice.ID); z != "Asia/Tokyo" {
			t.Fatalf("zone = %q", z)
		}
		if again, was, err := f.s.SetZone(f.ctx, f.alice.ID, "Asia/Tokyo", "set_time_zone"); again != "" || was != "Asia/Tokyo" || err != nil {
			t.Fatalf("same zone again = %q, %q, %v; want no change", again, was, err)
		}
		got, err := f.s.ChangeByID(f.ctx, f.alice.ID, c)
		if err != nil {
			t.Fatal(err)
		}
		want := ChangeRow{Table: "people", ID: f.alice.ID, Label: "time zone of person 1", Action: "changed"}
		if got.Tool != "set_time_zone" || got.Summary != "time zone Europe/Paris → Asia/Tokyo" ||
			len(got.Rows) != 1 || got.Rows[0] != want {
			t.Fatalf("change = %+v, want set_time_zone “time zone Europe/Paris → Asia/Tokyo” with %+v", got, want)
		}

		steps := []struct {
			change   string // "" = latest
			zone     string
			noteLive bool
		}{
			{"", "Europe/Paris", true}, // undoes the zone change, not the add
			{"", "Europe/Paris", false},
			{c, "", false}, // already undone: refused
		}
		var undos []string
		for i, s := range steps {
			u, err := f.s.Undo(f.ctx, f.alice.ID, s.change)
			if s.zone == "" {
				if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), c+" was already undone by "+undos[0]) {
					t.Fatalf("step %d: undo of an undone zone change = %v", i, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			undos = append(undos, u)
			if z := f.zone(t, f.alice.ID); z != s.zone {
				t.Fatalf("step %d: zone = %q, want %q", i, z, s.zone)
			}
			if live := f.get(t, f.alice.ID, note) != nil; live != s.noteLive {
				t.Fatalf("step %d: note live = %v, want %v", i, live, s.noteLive)
			}
		}
		// Redo the zone change by undoing its undo.
		if _, err := f.s.Undo(f.ctx, f.alice.ID, undos[0]); err != nil {
			t.Fatal(err)
		}
		if z := f.zone(t, f.alice.ID); z != "Asia/Tokyo" {
			t.Fatalf("after redo zone = %q", z)
		}
		if f.zone(t, f.bob.ID) != "America/New_York" {
			t.Fatal("bob's zone moved")
		}
	})
}

// A later zone change blocks undoing an earlier one until it is undone,
// and a change made outside the journal blocks it for good.
func TestZoneUndoRefusedOverLaterChange(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		c1, _, _ := f.s.SetZone(f.ctx, f.alice.ID, "Asia/Tokyo", "set_time_zone")
		c2, _, _ := f.s.SetZone(f.ctx, f.alice.ID, "UTC", "person set-zone")
		_, err := f.s.Undo(f.ctx, f.alice.ID, c1)
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "time zone of person 1 was changed since by "+c2+" (person set-zone); undo "+c2+" first") {
			t.Fatalf("undo under a later change = %v", err)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, c2); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, c1); err != nil || f.zone(t, f.alice.ID) != "Europe/Paris" {
			t.Fatalf("undo = %v, zone %q", err, f.zone(t, f.alice.ID))
		}

		c3, _, _ := f.s.SetZone(f.ctx, f.alice.ID, "Asia/Tokyo", "set_time_zone")
		if _, err := f.s.DB().Exec(`UPDATE people SET name = 'alicia' WHERE id = ?`, f.alice.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, c3); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "outside the change journal") {
			t.Fatalf("undo over an unjournaled rename = %v", err)
		}
	})
}

// The people row keeps its shape whatever code writes it: owner_id is the
// row's own id, it is never soft-deleted, and no Write adds a person.
func TestPeopleRowRules(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var owner int64
		var updated string
		if err := f.s.DB().QueryRow(`SELECT owner_id, updated_at FROM people WHERE id = ?`, f.bob.ID).Scan(&owner, &updated); err != nil {
			t.Fatal(err)
		}
		if owner != f.bob.ID || updated != "2026-10-05T07:00:00Z" {
			t.Fatalf("a new person's row: owner_id %d, updated_at %q; want %d and the clock", owner, updated, f.bob.ID)
		}
		cases := []struct {
			name string
			fn   func(tx *Tx) error
			want string
		}{
			{"soft delete", func(tx *Tx) error { return tx.Delete("people", f.alice.ID) }, "never soft-deleted"},
			{"insert", func(tx *Tx) error {
				_, err := tx.Insert("people", Row{"name": "mallory", "zone": "UTC", "created": t0.Unix()})
				return err
			}, "owns only their own row"},
			{"insert many", func(tx *Tx) error {
				_, err := tx.InsertMany("people", []Row{{"name": "mallory", "zone": "UTC", "created": t0.Unix()}})
				return err
			}, "owns only their own row"},
			{"owner", func(tx *Tx) error { return tx.Update("people", f.alice.ID, Row{"owner_id": f.bob.ID}) }, "set by the store"},
			{"raw owner", func(tx *Tx) error {
				_, err := tx.execWrite(`UPDATE people SET owner_id = ? WHERE id = ?`, f.bob.ID, tx.Owner())
				return err
			}, "owner_id must stay equal to id"},
			{"bad zone", func(tx *Tx) error { _, err := tx.SetZone("Mars/Base"); return err }, "“Mars/Base” is not one"},
			{"Local", func(tx *Tx) error { _, err := tx.SetZone("Local"); return err }, "not “Local”"},
		}
		for _, c := range cases {
			ch, err := f.s.Write(f.ctx, f.alice.ID, "probe", c.fn)
			if err == nil || ch != "" || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: change %q, err %v; want an error with %q", c.name, ch, err, c.want)
			}
		}
		all, _ := f.s.People(f.ctx)
		if len(all) != 2 || f.zone(t, f.alice.ID) != "Europe/Paris" {
			t.Fatalf("people after refused writes = %+v", all)
		}
	})
}

// Purge never removes a person, and DeletePerson still removes everything
// of theirs, zone changes included.
func TestPeopleRowPurgeAndDelete(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		f.s.SetZone(f.ctx, f.alice.ID, "Asia/Tokyo", "set_time_zone")
		f.s.SetZone(f.ctx, f.bob.ID, "Asia/Tokyo", "set_time_zone")
		f.clock = t0.AddDate(1, 0, 0)
		c, err := f.s.Purge(f.ctx, 0)
		// Each has one change, their newest, which a purge keeps (the
		// point their sync tokens name).
		if err != nil || c.Rows["people"] != 0 || c.Changes != 0 {
			t.Fatalf("Purge = %+v, %v; want no people and each one's newest change kept", c, err)
		}
		if all, _ := f.s.People(f.ctx); len(all) != 2 {
			t.Fatalf("people after Purge = %+v", all)
		}
		f.s.SetZone(f.ctx, f.alice.ID, "UTC", "set_time_zone")
		if err := f.s.DeletePerson(f.ctx, f.alice.ID); err != nil {
			t.Fatal(err)
		}
		for table, rows := range f.snapshot(t, f.alice.ID) {
			if len(rows) != 0 {
				t.Errorf("after DeletePerson alice still has %d rows in %s", len(rows), table)
			}
		}
		var n int
		f.s.DB().QueryRow(`SELECT count(*) FROM journal_rows WHERE tbl = 'people' AND row_id = ?`, f.alice.ID).Scan(&n)
		if n != 0 {
			t.Errorf("%d journal rows of alice's person row survive her deletion", n)
		}
		if f.zone(t, f.bob.ID) != "Asia/Tokyo" {
			t.Error("bob changed")
		}
	})
}

// A database made before 00008 gets owner_id and updated_at filled in for
// the people it has, and their zone changes journal from then on.
func TestPeopleJournalMigration(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ctx := context.Background()
		// The history of the test's engine, cut before 00008.
		history, files := migrations.SQLite, &migrationFiles
		if storetest.Engine(t) == storetest.Postgres {
			history, files = migrations.Postgres, &pgMigrationFiles
		}
		old := fstest.MapFS{}
		entries, err := fs.ReadDir(history, ".")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() >= "00008_" { // 00008 and every later one
				continue
			}
			b, _ := fs.ReadFile(history, e.Name())
			old[e.Name()] = &fstest.MapFile{Data: b}
		}
		saved := *files
		*files = old
		t.Cleanup(func() { *files = saved })
		path := storetest.Location(t)
		s, err := Open(ctx, path, &Options{Now: func() time.Time { return t0 }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().Exec(`INSERT INTO people (name, zone, created) VALUES ('alice', 'Europe/Paris', ?), ('bob', 'UTC', ?)`,
			t0.Unix(), t0.Add(time.Hour).Unix()); err != nil {
			t.Fatal(err)
		}
		s.Close()

		*files = saved
		s, err = Open(ctx, path, &Options{Now: func() time.Time { return t0.AddDate(0, 1, 0) }})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rows, err := s.DB().Query(`SELECT id, owner_id, updated_at, deleted_at IS NULL FROM people ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var id, owner int64
			var upd string
			var live bool
			if err := rows.Scan(&id, &owner, &upd, &live); err != nil {
				t.Fatal(err)
			}
			if owner != id || !live {
				t.Errorf("person %d: owner_id %d, live %v", id, owner, live)
			}
			got = append(got, upd)
		}
		rows.Close()
		if strings.Join(got, " ") != "2026-10-05T07:00:00Z 2026-10-05T08:00:00Z" {
			t.Fatalf("updated_at filled in = %v, want each person's created", got)
		}
		c, _, err := s.SetZone(ctx, 1, "Asia/Tokyo", "set_time_zone")
		if err != nil || c == "" {
			t.Fatalf("SetZone after the upgrade = %q, %v", c, err)
		}
		if _, err := s.Undo(ctx, 1, c); err != nil {
			t.Fatal(err)
		}
		if p, _ := s.PersonByID(ctx, 1); p.Zone != "Europe/Paris" {
			t.Fatalf("zone after undo = %q", p.Zone)
		}
	})
}
