package store

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

func TestPeople(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		cases := []struct {
			name, zone string
			want       error
			sentence   string
		}{
			{"carol", "Asia/Tokyo", nil, ""},
			{"alice", "Europe/Paris", ErrConflict, "a person named “alice” already exists"},
			{"  ", "Europe/Paris", errAny, "“name” must not be blank"},
			{"dan", "Mars/Olympus", errAny, "“zone” must be an IANA time zone such as “Europe/Paris”; “Mars/Olympus” is not one"},
			{"dan", "Local", errAny, "not “Local”"},
		}
		for _, c := range cases {
			_, err := f.s.AddPerson(f.ctx, c.name, c.zone)
			if (c.want == nil) != (err == nil) || (c.want != nil && c.want != errAny && !errors.Is(err, c.want)) ||
				(err != nil && !strings.Contains(err.Error(), c.sentence)) {
				t.Errorf("AddPerson(%q, %q) = %v, want %v %q", c.name, c.zone, err, c.want, c.sentence)
			}
		}
		p, err := f.s.EnsurePerson(f.ctx, "alice", "Asia/Tokyo")
		if err != nil || p.ID != f.alice.ID || p.Zone != "Europe/Paris" {
			t.Fatalf("EnsurePerson existing = %+v, %v; want alice kept in Europe/Paris", p, err)
		}
		p, err = f.s.EnsurePerson(f.ctx, "erin", "UTC")
		if err != nil || p.Name != "erin" || !p.Created.Equal(t0) {
			t.Fatalf("EnsurePerson new = %+v, %v", p, err)
		}
		if _, _, err := f.s.SetZone(f.ctx, f.alice.ID, "Asia/Tokyo", "set_zone"); err != nil {
			t.Fatal(err)
		}
		if p, _ := f.s.PersonByID(f.ctx, f.alice.ID); p.Zone != "Asia/Tokyo" {
			t.Fatalf("zone after SetZone = %q", p.Zone)
		}
		if _, _, err := f.s.SetZone(f.ctx, 999, "UTC", "set_zone"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("SetZone unknown = %v", err)
		}
		if _, err := f.s.PersonByName(f.ctx, "nobody"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("PersonByName unknown = %v", err)
		}
		all, err := f.s.People(f.ctx)
		if err != nil || len(all) != 4 || all[0].Name != "alice" || all[3].Name != "erin" {
			t.Fatalf("People = %+v, %v", all, err)
		}
		if err := f.s.DeletePerson(f.ctx, 999); !errors.Is(err, ErrNotFound) {
			t.Fatalf("DeletePerson unknown = %v", err)
		}
		if _, err := f.s.Write(f.ctx, 999, "x", func(*Tx) error { return nil }); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Write for unknown person = %v", err)
		}
	})
}

func TestTxRules(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.add(t, f.alice.ID, "x")
		cases := []struct {
			name string
			fn   func(tx *Tx) error
			want string
		}{
			{"unregistered table", func(tx *Tx) error { _, err := tx.Insert("changes", Row{"tool": "x"}); return err }, `table "changes" is not registered`},
			{"injected table", func(tx *Tx) error { return tx.Delete("notes; DROP TABLE notes", 1) }, "is not registered"},
			{"unknown column", func(tx *Tx) error { _, err := tx.Insert("notes", Row{"title": "x", "nope": 1}); return err }, `has no column "nope"`},
			{"injected column", func(tx *Tx) error { return tx.Update("notes", id, Row{"title = 'x', owner_id": 2}) }, "has no column"},
			{"managed column", func(tx *Tx) error { _, err := tx.Insert("notes", Row{"title": "x", "deleted_at": "now"}); return err }, "set by the store"},
			{"missing row", func(tx *Tx) error { return tx.Update("notes", 999, Row{"title": "x"}) }, "n999 does not exist or was deleted"},
		}
		for _, c := range cases {
			_, err := f.s.Write(f.ctx, f.alice.ID, "probe", c.fn)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
			}
		}
		err := f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			if _, err := tx.Insert("notes", Row{"title": "x"}); err == nil {
				return errors.New("Insert allowed in Read")
			}
			if _, err := tx.execWrite(`DELETE FROM notes`); err == nil {
				return errors.New("Exec allowed in Read")
			}
			return tx.SaveKey("a", "b", "c", "d")
		})
		if err == nil || !strings.Contains(err.Error(), "SaveKey inside Read") {
			t.Fatalf("Read allowed a write: %v", err)
		}
		if c, err := f.s.Write(f.ctx, f.alice.ID, "noop", func(tx *Tx) error { return tx.Update("notes", id, Row{}) }); c != "" || err != nil {
			t.Fatalf("empty Write = %q, %v; want no change", c, err)
		}
	})
}

func TestImagesRoundTrip(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var id int64
		_, err := f.s.Write(f.ctx, f.alice.ID, "add", func(tx *Tx) error {
			var err error
			id, err = tx.Insert("notes", Row{"title": "x", "data": []byte{0, 0xff, 'a'}, "score": 2.5, "due": int64(1 << 40)})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := f.get(t, f.alice.ID, id)
		f.clock = t0.Add(time.Hour)
		f.update(t, f.alice.ID, id, Row{"data": nil, "score": nil, "due": nil, "title": "y"})
		if _, err := f.s.Undo(f.ctx, f.alice.ID, ""); err != nil {
			t.Fatal(err)
		}
		got := f.get(t, f.alice.ID, id)
		for k, v := range want {
			if g, w := jsonOf(got[k]), jsonOf(v); g != w {
				t.Errorf("%s after undo = %s, want %s", k, g, w)
			}
		}
	})
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestUndoOutsideJournalAndPurged(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		id, c1 := f.add(t, f.alice.ID, "x")
		if _, err := f.s.DB().Exec(`UPDATE notes SET title = 'raw' WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
		_, err := f.s.Undo(f.ctx, f.alice.ID, c1)
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "n1 was changed since c1 outside the change journal") {
			t.Fatalf("undo over a raw change = %v", err)
		}
		id2, c2 := f.add(t, f.alice.ID, "y")
		if _, err := f.s.DB().Exec(`DELETE FROM notes WHERE id = ?`, id2); err != nil {
			t.Fatal(err)
		}
		_, err = f.s.Undo(f.ctx, f.alice.ID, c2)
		if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "n2 no longer exists") {
			t.Fatalf("undo of a purged row = %v", err)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, "c0"); err == nil || !strings.Contains(err.Error(), "“change” must be a change id") {
			t.Fatalf("undo c0 = %v", err)
		}
	})
}

func TestKeys(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		_, err := f.s.Write(f.ctx, f.alice.ID, "add_note", func(tx *Tx) error {
			if _, _, found, err := tx.LookupKey("add_note", "k"); found || err != nil {
				t.Errorf("LookupKey before SaveKey = %v, %v", found, err)
			}
			return tx.SaveKey("add_note", "k", "fp", "n1")
		})
		if err != nil {
			t.Fatal(err)
		}
		err = f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			fp, ref, found, err := tx.LookupKey("add_note", "k")
			if fp != "fp" || ref != "n1" || !found {
				t.Errorf("LookupKey = %q %q %v", fp, ref, found)
			}
			if _, _, found, _ := tx.LookupKey("add_event", "k"); found {
				t.Error("a key is per tool")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// Kept at least 24 h, even when purging everything older than an hour.
		f.clock = t0.Add(23 * time.Hour)
		if c, _ := f.s.Purge(f.ctx, time.Hour); c.Keys != 0 {
			t.Fatalf("purged a key younger than 24 h")
		}
		f.clock = t0.Add(25 * time.Hour)
		if c, _ := f.s.Purge(f.ctx, time.Hour); c.Keys != 1 {
			t.Fatalf("kept a key older than 24 h: %+v", c)
		}
	})
}

func TestTokens(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		plain, tok, err := f.s.CreateToken(f.ctx, f.alice.ID, "laptop")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(plain, tok.Prefix) || !strings.HasPrefix(plain, "ast_") || len(plain) < 40 {
			t.Fatalf("token %q, prefix %q", plain, tok.Prefix)
		}
		var stored int
		f.s.DB().QueryRow(`SELECT count(*) FROM access_tokens WHERE hash = ? OR prefix = ? OR label = ?`, plain, plain, plain).Scan(&stored)
		if stored != 0 {
			t.Fatal("the plain token is stored")
		}
		plain2, _, _ := f.s.CreateToken(f.ctx, f.bob.ID, "phone")
		for _, c := range []struct {
			token string
			want  int64
		}{{plain, f.alice.ID}, {" " + plain + "\n", f.alice.ID}, {plain2, f.bob.ID}, {plain + "x", 0}, {"", 0}, {tok.Prefix, 0}} {
			p, err := f.s.PersonByToken(f.ctx, c.token)
			if p.ID != c.want || (c.want == 0 && !errors.Is(err, ErrNotFound)) {
				t.Errorf("PersonByToken(%q) = %d, %v; want %d", c.token, p.ID, err, c.want)
			}
		}
		list, _ := f.s.Tokens(f.ctx)
		if len(list) != 2 || !list[0].LastUsed.Equal(t0) || list[0].Label != "laptop" {
			t.Fatalf("Tokens = %+v", list)
		}
		if err := f.s.RevokeToken(f.ctx, "ast_"); err == nil {
			t.Fatal("revoked by a too short prefix")
		}
		if err := f.s.RevokeToken(f.ctx, "ast_zzzzzzzz"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("revoke unknown = %v", err)
		}
		if err := f.s.RevokeToken(f.ctx, tok.Prefix); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.PersonByToken(f.ctx, plain); !errors.Is(err, ErrNotFound) {
			t.Fatalf("revoked token still works: %v", err)
		}
		if p, _ := f.s.PersonByToken(f.ctx, plain2); p.ID != f.bob.ID {
			t.Fatal("revoking alice's token broke bob's")
		}
		list, _ = f.s.Tokens(f.ctx)
		if !list[0].Revoked.Equal(t0) || !list[1].Revoked.IsZero() {
			t.Fatalf("after revoke: %+v", list)
		}
	})
}

func TestConversations(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.s.LastConversation(f.ctx, f.alice.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("LastConversation with none = %v", err)
		}
		c1, _ := f.s.NewConversation(f.ctx, f.alice.ID)
		c2, _ := f.s.NewConversation(f.ctx, f.alice.ID)
		msgs := []json.RawMessage{
			json.RawMessage(`{"role":"user","content":"hi"}`),
			json.RawMessage(`{"role":"assistant","content":"","tool_calls":[{"id":"1"}]}`),
		}
		f.clock = t0.Add(time.Minute)
		if err := f.s.AppendMessages(f.ctx, f.alice.ID, c1, msgs[:1]); err != nil {
			t.Fatal(err)
		}
		if err := f.s.AppendMessages(f.ctx, f.alice.ID, c1, msgs[1:]); err != nil {
			t.Fatal(err)
		}
		if err := f.s.AppendMessages(f.ctx, f.alice.ID, c1, []json.RawMessage{json.RawMessage(`nope`)}); err == nil {
			t.Fatal("appended a message that is not JSON")
		}
		if last, _ := f.s.LastConversation(f.ctx, f.alice.ID); last != c1 {
			t.Fatalf("last = %d, want the one updated last, %d (not %d)", last, c1, c2)
		}
		got, err := f.s.Messages(f.ctx, f.alice.ID, c1)
		if err != nil || len(got) != 2 || string(got[0]) != string(msgs[0]) || string(got[1]) != string(msgs[1]) {
			t.Fatalf("Messages = %s, %v", got, err)
		}
	})
}

func TestPurge(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		old, _ := f.add(t, f.alice.ID, "old")
		live, _ := f.add(t, f.alice.ID, "live")
		if _, err := f.s.Write(f.ctx, f.alice.ID, "delete_note", func(tx *Tx) error { return tx.Delete("notes", old) }); err != nil {
			t.Fatal(err)
		}
		conv, _ := f.s.NewConversation(f.ctx, f.alice.ID)
		f.clock = t0.AddDate(0, 0, 100)
		recent, _ := f.add(t, f.alice.ID, "recent")
		if _, err := f.s.Write(f.ctx, f.alice.ID, "delete_note", func(tx *Tx) error { return tx.Delete("notes", recent) }); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Purge(f.ctx, -time.Hour); err == nil {
			t.Fatal("purged with a negative age")
		}
		c, err := f.s.Purge(f.ctx, 90*24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if c.Rows["notes"] != 1 || c.Changes != 3 || c.Conversations != 1 {
			t.Fatalf("Purge = %+v, want 1 note, 3 changes, 1 conversation", c)
		}
		var n int
		f.s.DB().QueryRow(`SELECT count(*) FROM notes`).Scan(&n)
		if n != 2 || f.get(t, f.alice.ID, live) == nil {
			t.Fatalf("%d notes left, want live and recent", n)
		}
		if _, err := f.s.Messages(f.ctx, f.alice.ID, conv); !errors.Is(err, ErrNotFound) {
			t.Fatal("old conversation kept")
		}
		ch, _ := f.s.Changes(f.ctx, f.alice.ID, 10)
		if len(ch) != 2 {
			t.Fatalf("changes left = %+v", ch)
		}
	})
}
