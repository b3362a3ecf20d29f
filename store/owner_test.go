package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// snapshot is every row of owner across the store's tables and the notes
// table, so a test can show that nothing of theirs was read into another
// person's answer or changed.
func (f *fixture) snapshot(t *testing.T, owner int64) map[string][]map[string]any {
	t.Helper()
	queries := map[string]string{
		"people":           `SELECT * FROM people WHERE id = ?`,
		"notes":            `SELECT * FROM notes WHERE owner_id = ? ORDER BY id`,
		"changes":          `SELECT * FROM changes WHERE owner_id = ? ORDER BY id`,
		"change_rows":      `SELECT r.* FROM change_rows r JOIN changes c ON c.id = r.change_id WHERE c.owner_id = ? ORDER BY 1, 2`,
		"idempotency_keys": `SELECT * FROM idempotency_keys WHERE owner_id = ? ORDER BY tool, key`,
		"access_tokens":    `SELECT * FROM access_tokens WHERE person_id = ? ORDER BY id`,
		"conversations":    `SELECT * FROM conversations WHERE owner_id = ? ORDER BY id`,
		"messages":         `SELECT * FROM messages WHERE owner_id = ? ORDER BY 1, 2`,
	}
	out := map[string][]map[string]any{}
	for table, q := range queries {
		rows, err := f.s.DB().Query(q, owner)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			m := map[string]any{}
			for i, c := range cols {
				m[c] = vals[i]
			}
			out[table] = append(out[table], m)
		}
		rows.Close()
	}
	return out
}

func TestOwnership(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		// Bob's world: a live note, a deleted one, a journal, a key, a chat, a token.
		bobNote, _ := f.add(t, f.bob.ID, "bob's secret")
		bobGone, _ := f.add(t, f.bob.ID, "bob's deleted")
		bobChange, err := f.s.Write(f.ctx, f.bob.ID, "delete_note", func(tx *Tx) error {
			if err := tx.SaveKey("add_note", "k1", "fp-bob", "n1"); err != nil {
				return err
			}
			return tx.Delete("notes", bobGone)
		})
		if err != nil {
			t.Fatal(err)
		}
		bobConv, err := f.s.NewConversation(f.ctx, f.bob.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.s.AppendMessages(f.ctx, f.bob.ID, bobConv, []json.RawMessage{json.RawMessage(`{"role":"user","content":"bob"}`)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.s.CreateToken(f.ctx, f.bob.ID, "bob's laptop"); err != nil {
			t.Fatal(err)
		}
		// Bob's own people row is journaled too (00008): a zone change of his.
		bobZone, _, err := f.s.SetZone(f.ctx, f.bob.ID, "America/Chicago", "set_time_zone")
		if err != nil || bobZone == "" {
			t.Fatalf("bob's zone change = %q, %v", bobZone, err)
		}
		// Alice has her own things too, so "nothing found" is not just an empty store.
		aliceNote, _ := f.add(t, f.alice.ID, "alice's")
		aliceConv, _ := f.s.NewConversation(f.ctx, f.alice.ID)

		before := f.snapshot(t, f.bob.ID)
		alice := f.alice.ID
		write := func(fn func(tx *Tx) error) error {
			_, err := f.s.Write(f.ctx, alice, "probe", fn)
			return err
		}
		read := func(fn func(tx *Tx) error) error { return f.s.Read(f.ctx, alice, fn) }

		cases := []struct {
			name string
			run  func() error
			want error // nil: the call may succeed, but must not touch bob
		}{
			{"Get bob's note", func() error { return read(func(tx *Tx) error { _, err := tx.Get("notes", bobNote); return err }) }, ErrNotFound},
			{"Get bob's deleted note", func() error { return read(func(tx *Tx) error { _, err := tx.Get("notes", bobGone); return err }) }, ErrNotFound},
			{"Update bob's note", func() error {
				return write(func(tx *Tx) error { return tx.Update("notes", bobNote, Row{"title": "pwned"}) })
			}, ErrNotFound},
			{"Update bob's deleted note", func() error {
				return write(func(tx *Tx) error { return tx.Update("notes", bobGone, Row{"title": "pwned"}) })
			}, ErrNotFound},
			{"Delete bob's note", func() error { return write(func(tx *Tx) error { return tx.Delete("notes", bobNote) }) }, ErrNotFound},
			{"Insert as bob", func() error {
				return write(func(tx *Tx) error { _, err := tx.Insert("notes", Row{"title": "x", "owner_id": f.bob.ID}); return err })
			}, errAny},
			{"Update owner to bob", func() error {
				return write(func(tx *Tx) error { return tx.Update("notes", aliceNote, Row{"owner_id": f.bob.ID}) })
			}, errAny},
			{"Undo bob's change", func() error { _, err := f.s.Undo(f.ctx, alice, bobChange); return err }, ErrNotFound},
			{"Get bob's person row", func() error { return read(func(tx *Tx) error { _, err := tx.Get("people", f.bob.ID); return err }) }, ErrNotFound},
			{"Update bob's zone", func() error {
				return write(func(tx *Tx) error { return tx.Update("people", f.bob.ID, Row{"zone": "Asia/Tokyo"}) })
			}, ErrNotFound},
			{"Update bob's name", func() error {
				return write(func(tx *Tx) error { return tx.Update("people", f.bob.ID, Row{"name": "mallory"}) })
			}, ErrNotFound},
			{"Delete bob's person row", func() error { return write(func(tx *Tx) error { return tx.Delete("people", f.bob.ID) }) }, ErrNotFound},
			{"Take bob's person row", func() error {
				return write(func(tx *Tx) error { return tx.Update("people", alice, Row{"owner_id": f.bob.ID}) })
			}, errAny},
			{"Add a person owned by alice", func() error {
				return write(func(tx *Tx) error {
					_, err := tx.Insert("people", Row{"name": "mallory", "zone": "UTC", "created": t0.Unix()})
					return err
				})
			}, errAny},
			{"Undo bob's zone change", func() error { _, err := f.s.Undo(f.ctx, alice, bobZone); return err }, ErrNotFound},
			{"SetZone changes only alice", func() error { return write(func(tx *Tx) error { _, err := tx.SetZone("Asia/Tokyo"); return err }) }, nil},
			{"ChangeByID bob's change", func() error { _, err := f.s.ChangeByID(f.ctx, alice, bobChange); return err }, ErrNotFound},
			{"Changes", func() error {
				ch, err := f.s.Changes(f.ctx, alice, 200)
				for _, c := range ch {
					if c.ID == bobChange {
						return fmt.Errorf("alice sees %s", c.ID)
					}
				}
				return err
			}, nil},
			{"LookupKey bob's key", func() error {
				return read(func(tx *Tx) error {
					fp, _, found, err := tx.LookupKey("add_note", "k1")
					if found || fp != "" {
						return fmt.Errorf("alice found bob's key %q", fp)
					}
					return err
				})
			}, nil},
			{"SaveKey bob's key name", func() error {
				return write(func(tx *Tx) error { return tx.SaveKey("add_note", "k1", "fp-alice", "n9") })
			}, nil},
			{"Messages of bob's chat", func() error { _, err := f.s.Messages(f.ctx, alice, bobConv); return err }, ErrNotFound},
			{"AppendMessages to bob's chat", func() error {
				return f.s.AppendMessages(f.ctx, alice, bobConv, []json.RawMessage{json.RawMessage(`{"role":"user"}`)})
			}, ErrNotFound},
			{"LastConversation", func() error {
				id, err := f.s.LastConversation(f.ctx, alice)
				if id != aliceConv {
					return fmt.Errorf("last conversation = %d, want alice's %d", id, aliceConv)
				}
				return err
			}, nil},
			{"raw Query filtered by owner", func() error {
				return read(func(tx *Tx) error {
					var n int
					if err := tx.queryRow(`SELECT count(*) FROM notes WHERE owner_id = ? AND id = ?`, tx.Owner(), bobNote).Scan(&n); err != nil || n != 0 {
						return fmt.Errorf("count = %d (%v)", n, err)
					}
					return nil
				})
			}, nil},
			{"Purge leaves bob's recent rows", func() error { _, err := f.s.Purge(f.ctx, 0); return err }, nil},
			{"DeletePerson alice", func() error { return f.s.DeletePerson(f.ctx, alice) }, nil},
		}
		// Purge(0) removes what was deleted strictly before now; bob's row was
		// deleted at this very second, so it must stay.
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				err := tc.run()
				switch {
				case tc.want == errAny && err == nil:
					t.Fatal("succeeded, want an error")
				case tc.want != nil && tc.want != errAny && !errors.Is(err, tc.want):
					t.Fatalf("err = %v, want %v", err, tc.want)
				case tc.want == nil && err != nil:
					t.Fatalf("err = %v", err)
				}
				if after := f.snapshot(t, f.bob.ID); !reflect.DeepEqual(before, after) {
					t.Fatalf("bob's data changed:\nbefore %v\nafter  %v", before, after)
				}
			})
		}
		// Alice is gone entirely, bob is whole.
		after := f.snapshot(t, alice)
		for table, rows := range after {
			if len(rows) != 0 {
				t.Errorf("after DeletePerson, alice still has %d rows in %s", len(rows), table)
			}
		}
	})
}

// errAny marks a case that must fail, with any error.
var errAny = errors.New("any error")
