package tools_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// TestOnce adds notes through Once.Run on a real store: a new item, a
// replayed key, a key reused with other arguments, the same item again
// within the duplicate window (whose key then names it), and
// allow_duplicate.
func TestOnce(t *testing.T) {
	e := tooltest.Open(t, time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC))
	if _, err := e.Store.DB().Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY,
		owner_id INTEGER NOT NULL REFERENCES people(id) ON DELETE CASCADE,
		title TEXT NOT NULL, deleted_at TEXT, updated_at TEXT)`); err != nil {
		t.Fatal(err)
	}
	alice := e.Person("alice", "Europe/Paris")
	// add runs Once for a note titled title: same finds a live note of that
	// title (by the ids the inserts gave, as the table has no typed store
	// methods to ask).
	noteIDs := map[string]int64{}
	add := func(title string, o tools.Once) (tools.Outcome, string, error) {
		o.Tool = "add_note"
		o.Fingerprint = tools.Fingerprint(map[string]any{"title": title, "allow_duplicate": o.AllowDuplicate})
		var out tools.Outcome
		var ref string
		_, err := e.Store.Write(e.Ctx, alice.ID, "add_note", func(tx *store.Tx) error {
			var err error
			out, ref, err = o.Run(tx, func(tx *store.Tx) (string, error) {
				id, ok := noteIDs[title]
				if !ok {
					return "", nil
				}
				if _, err := tx.Get("notes", id); err != nil {
					return "", nil // deleted, or its write was undone
				}
				return fmt.Sprintf("n%d", id), nil
			}, func(tx *store.Tx) (string, error) {
				id, err := tx.Insert("notes", store.Row{"title": title})
				if err == nil {
					noteIDs[title] = id
				}
				return fmt.Sprintf("n%d", id), err
			})
			return err
		})
		return out, ref, err
	}
	cases := []struct {
		name  string
		title string
		o     tools.Once
		out   tools.Outcome
		ref   string
		err   string
	}{
		{"new", "milk", tools.Once{Key: "k1"}, tools.Added, "n1", ""},
		{"the key again", "milk", tools.Once{Key: "k1"}, tools.Replayed, "n1", ""},
		{"the key with other arguments", "bread", tools.Once{Key: "k1"}, tools.Added, "", "The “key” “k1” was already used for n1 with other arguments"},
		{"the same item, no key", "milk", tools.Once{}, tools.Duplicate, "n1", ""},
		{"the same item, a new key", "milk", tools.Once{Key: "k2"}, tools.Duplicate, "n1", ""},
		{"that key names it now", "milk", tools.Once{Key: "k2"}, tools.Replayed, "n1", ""},
		{"allow_duplicate", "milk", tools.Once{AllowDuplicate: true}, tools.Added, "n2", ""},
		{"another item", "bread", tools.Once{}, tools.Added, "n3", ""},
	}
	for _, c := range cases {
		out, ref, err := add(c.title, c.o)
		if c.err != "" {
			var kc *tools.KeyConflict
			if err == nil || !strings.Contains(err.Error(), c.err) || !errors.As(err, &kc) || !errors.Is(err, store.ErrConflict) {
				t.Fatalf("%s: err = %v, want %q", c.name, err, c.err)
			}
			if res := tools.Fail(err); res.Code != tools.CodeConflict {
				t.Fatalf("%s: Fail = %d", c.name, res.Code)
			}
			continue
		}
		if err != nil || out != c.out || ref != c.ref {
			t.Fatalf("%s: Run = %v %q %v, want %v %q", c.name, out, ref, err, c.out, c.ref)
		}
	}
}

func TestReadOnce(t *testing.T) {
	names := []string{"key", "allow_duplicate"}
	a, err := args.New([]byte(`{"key":" k1 ","allow_duplicate":true}`), names, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := tools.ReadOnce(a, "add_note"); a.Err() != nil || o.Key != "k1" || !o.AllowDuplicate || o.Tool != "add_note" {
		t.Fatalf("ReadOnce = %+v %v", o, a.Err())
	}
	a, _ = args.New([]byte(`{"key":"`+strings.Repeat("k", 201)+`"}`), names, nil)
	tools.ReadOnce(a, "add_note")
	if a.Err() == nil || !strings.Contains(a.Err().Error(), "“key” may be at most 200 characters; this one has 201.") {
		t.Fatalf("long key: %v", a.Err())
	}
}
