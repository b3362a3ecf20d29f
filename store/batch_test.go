package store

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// batchRowsFor makes n notes whose column sets change every so often, so
// InsertMany splits them into runs and power-of-two statements.
func batchRowsFor(n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		r := Row{"title": fmt.Sprintf("note %d <&> “é”\n", i)}
		switch {
		case i%50 < 30:
			r["due"] = t0.Unix() + int64(i)
		case i%50 < 40:
			r["data"], r["score"] = []byte{byte(i), 0, 255}, float64(i)/3
		default:
			r["due"], r["updated_at"] = nil, "2026-01-01T00:00:00Z"
		}
		rows[i] = r
	}
	return rows
}

// journalAfter reads the after images change c recorded, by row id.
func journalAfter(t *testing.T, f *fixture, c string) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	rows, err := f.s.DB().Query(`SELECT row_id, after FROM journal_rows WHERE change_id = ?`, strings.TrimPrefix(c, "c"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var after string
		if err := rows.Scan(&id, &after); err != nil {
			t.Fatal(err)
		}
		out[id] = after
	}
	return out
}

func TestInsertManyJournalsWhatSelectReads(t *testing.T) {
	keepAdded = true
	defer func() { keepAdded = false }()
	storetest.Engines(t, func(t *testing.T) {
		for _, n := range []int{1, 3, 64, 65, 151} {
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				f := newFixture(t)
				rows := batchRowsFor(n)
				var ids []int64
				c, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
					var err error
					ids, err = tx.InsertMany("notes", rows)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(ids) != n {
					t.Fatalf("%d ids for %d rows", len(ids), n)
				}
				after := journalAfter(t, f, c)
				if len(after) != n {
					t.Fatalf("journal has %d rows, want %d", len(after), n)
				}
				err = f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
					for i, id := range ids {
						img, err := tx.image("notes", id, true)
						if err != nil {
							return err
						}
						if string(img) != after[id] {
							t.Errorf("n%d: journal %s, SELECT %s", id, after[id], img)
						}
						got, _ := tx.Get("notes", id)
						if got["title"] != rows[i]["title"] {
							t.Errorf("id %d (row %d) has title %q, want %q", id, i, got["title"], rows[i]["title"])
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				// Undo takes the whole batch back, which it does only when every
				// row still equals its journaled image.
				if _, err := f.s.Undo(f.ctx, f.alice.ID, c); err != nil {
					t.Fatalf("undo: %v", err)
				}
				for _, id := range ids {
					if r := f.get(t, f.alice.ID, id); r != nil {
						t.Fatalf("n%d still live after undo: %v", id, r)
					}
				}
			})
		}
	})
}

func TestInsertManyOwnership(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var ids []int64
		c, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
			var err error
			ids, err = tx.InsertMany("notes", batchRowsFor(5))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if f.get(t, f.bob.ID, id) != nil {
				t.Errorf("bob reads alice's n%d", id)
			}
			if f.get(t, f.alice.ID, id) == nil {
				t.Errorf("alice cannot read her n%d", id)
			}
		}
		if _, err := f.s.Undo(f.ctx, f.bob.ID, c); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob undoing alice's %s: %v, want ErrNotFound", c, err)
		}
		cases := []struct {
			name  string
			table string
			row   Row
			want  string
		}{
			{"owner", "notes", Row{"title": "x", "owner_id": f.bob.ID}, "set by the store"},
			{"id", "notes", Row{"title": "x", "id": 1}, "set by the store"},
			{"deleted", "notes", Row{"title": "x", "deleted_at": "2026-01-01T00:00:00Z"}, "set by the store"},
			{"column", "notes", Row{"title": "x", "nope": 1}, "no column"},
			{"table", "changes", Row{"tool": "x"}, "not registered"},
			{"not null", "notes", Row{"due": 1}, "NOT NULL"},
		}
		for _, c := range cases {
			ch, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
				_, err := tx.InsertMany(c.table, []Row{{"title": "kept?"}, c.row})
				return err
			})
			// Case and hyphen aside: SQLite says "NOT NULL constraint",
			// PostgreSQL "not-null constraint".
			if err == nil || !strings.Contains(strings.ToUpper(strings.ReplaceAll(err.Error(), "-", " ")), strings.ToUpper(c.want)) || ch != "" {
				t.Errorf("%s: change %q, error %v; want none and an error with %q", c.name, ch, err, c.want)
			}
		}
		var n int
		f.s.DB().QueryRow(`SELECT COUNT(*) FROM notes WHERE title = 'kept?'`).Scan(&n)
		if n != 0 {
			t.Errorf("%d rows of refused batches were kept", n)
		}
		err = f.s.Read(f.ctx, f.alice.ID, func(tx *Tx) error {
			_, err := tx.InsertMany("notes", batchRowsFor(1))
			return err
		})
		if err == nil {
			t.Error("InsertMany inside Read was allowed")
		}
	})
}

func TestInsertManyMixedWithInsert(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		var single, late int64
		var ids []int64
		c, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
			var err error
			if single, err = tx.Insert("notes", Row{"title": "single"}); err != nil {
				return err
			}
			if ids, err = tx.InsertMany("notes", batchRowsFor(70)); err != nil {
				return err
			}
			if err := tx.Update("notes", ids[3], Row{"title": "changed in the same write"}); err != nil {
				return err
			}
			if err := tx.Delete("notes", ids[4]); err != nil {
				return err
			}
			late, err = tx.Insert("notes", Row{"title": "late"})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if ids[0] != single+1 || late != ids[len(ids)-1]+1 {
			t.Errorf("ids %d, %v, %d are not in insertion order", single, ids, late)
		}
		ch, err := f.s.ChangeByID(f.ctx, f.alice.ID, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(ch.Rows) != 72 {
			t.Errorf("change has %d rows, want 72 (one per row, net)", len(ch.Rows))
		}
		if r := f.get(t, f.alice.ID, ids[3]); r["title"] != "changed in the same write" {
			t.Errorf("n%d = %v", ids[3], r)
		}
		if _, err := f.s.Undo(f.ctx, f.alice.ID, c); err != nil {
			t.Fatalf("undo: %v", err)
		}
		var live int
		f.s.DB().QueryRow(`SELECT COUNT(*) FROM notes WHERE deleted_at IS NULL`).Scan(&live)
		if live != 0 {
			t.Errorf("%d notes live after undoing the whole write", live)
		}
	})
}

// encodeRow must give the bytes encoding/json gives for the same map: undo
// compares images written by older binaries with fresh ones.
func TestEncodeRowMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	texts := []string{"", "plain", "a<b>&c", `quote " and \ back`, "tab\tnew\nline\r", "é ü 日本", "\u2028\u2029", "bad \xff utf8", "\x00\x1f\x7f", "🎉"}
	values := func() any {
		switch rng.IntN(8) {
		case 0:
			return nil
		case 1:
			return rng.Int64() - math.MaxInt64/2
		case 2:
			return []float64{0, 1.5, -2, 1e21, 1e-7, 123456789.125, math.MaxFloat64}[rng.IntN(7)]
		case 3:
			return []byte(texts[rng.IntN(len(texts))])
		case 4:
			return rng.IntN(2) == 0
		default:
			return texts[rng.IntN(len(texts))]
		}
	}
	for range 2000 {
		cols := []string{"updated_at", "id", "title", "b<c", "a", "data", "z"}
		rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
		cols = cols[:1+rng.IntN(len(cols))]
		vals := make([]any, len(cols))
		m := map[string]any{}
		for i, c := range cols {
			vals[i] = values()
			m[c] = vals[i]
			if b, ok := vals[i].([]byte); ok {
				m[c] = blob{base64Std(b)}
			}
		}
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeRow(cols, vals)
		if err != nil || string(got) != string(want) {
			t.Fatalf("encodeRow(%q, %#v)\ngot  %s (%v)\nwant %s", cols, vals, got, err, want)
		}
	}
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
