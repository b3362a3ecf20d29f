package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestRedoBatchedMatchesPerRow runs random scenarios of a large change
// (more rows than an undo batch: added notes and altered ones), its undo,
// something done meanwhile (by seed: another note taking an undone note's
// unique title, an undone note changed, nothing), and the redo (the undo of the
// undo) and its undo, on each engine: once with the rows an undo altered
// alike put back a statement a batch (revertAlike), once row by row
// (perRowRevert, the oracle). Every answer, every row and the whole
// journal must be the same both ways, and the batched way must have put
// rows back by batch.
func TestRedoBatchedMatchesPerRow(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		for seed := uint64(1); seed <= 3; seed++ {
			batched := 0
			revertAlikeHook = func(n int) { batched += n }
			got := redoScenario(t, seed, false)
			perRowRevert, revertAlikeHook = true, nil
			want := redoScenario(t, seed, true)
			perRowRevert = false
			if got != want {
				t.Fatalf("seed %d: batched and row by row differ:\n%s\n--- row by row:\n%s", seed, got, want)
			}
			if seed%3 == 0 && batched < 512 {
				t.Errorf("seed %d: %d rows put back by batch, want the redo's", seed, batched)
			}
		}
	})
}

// redoScenario plays scenario seed on a fresh fixture and gives what came
// of it: each undo's answer, the notes and the journal.
func redoScenario(t *testing.T, seed uint64, perRow bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 21))
	f := newFixture(t)
	if _, err := f.s.DB().Exec(`CREATE UNIQUE INDEX notes_title_live ON notes(owner_id, title) WHERE deleted_at IS NULL`); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var pre []int64
	for i := range rng.IntN(4) + 1 {
		id, _ := f.add(t, f.alice.ID, fmt.Sprintf("pre %d", i))
		pre = append(pre, id)
	}
	n := 513 + rng.IntN(800)
	var added []int64
	f.clock = f.clock.Add(time.Minute)
	big, err := f.s.Write(f.ctx, f.alice.ID, "import", func(tx *Tx) error {
		for i := range n {
			row := Row{"title": fmt.Sprintf("note %d %d", i, rng.IntN(1000))}
			if rng.IntN(3) > 0 {
				row["due"] = rng.Int64N(1 << 40)
			}
			if rng.IntN(4) == 0 {
				row["data"] = []byte{byte(rng.IntN(256)), 0, byte(i)}
			}
			if rng.IntN(4) == 0 {
				row["score"] = float64(rng.IntN(1000)) / 8
			}
			id, err := tx.Insert("notes", row)
			if err != nil {
				return err
			}
			added = append(added, id)
			if rng.IntN(200) == 0 {
				if err := tx.Update("notes", pre[rng.IntN(len(pre))], Row{"title": fmt.Sprintf("pre changed %d", i)}); err != nil {
					return err
				}
			}
			if i%300 == 299 {
				if err := tx.FlushJournal(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	step := func(what, change string) string {
		f.clock = f.clock.Add(time.Minute)
		c, err := f.s.Undo(f.ctx, f.alice.ID, change)
		fmt.Fprintf(&b, "%s of %s: %q", what, change, c)
		if err != nil {
			fmt.Fprintf(&b, " refused (%v): %s", errors.Is(err, ErrConflict), err)
		}
		b.WriteString("\n")
		return c
	}
	undo := step("undo", big)
	f.clock = f.clock.Add(time.Minute)
	victim := added[rng.IntN(len(added))]
	switch seed % 3 {
	case 1: // another note takes an undone one's title
		var title string
		if err := f.s.DB().QueryRow(`SELECT title FROM notes WHERE id = $1`, victim).Scan(&title); err != nil {
			t.Fatal(err)
		}
		f.add(t, f.alice.ID, title)
		b.WriteString("a note took the title of an undone one\n")
	case 2: // an undone note is changed outside the journal
		if _, err := f.s.DB().Exec(`UPDATE notes SET due = 7 WHERE id = $1`, victim); err != nil {
			t.Fatal(err)
		}
		b.WriteString("an undone note was changed\n")
	}
	if redo := step("redo", undo); redo != "" {
		step("undo", redo)
		step("redo", undo)
	}
	b.WriteString(dumpRows(t, f.s, `SELECT * FROM notes ORDER BY id`))
	b.WriteString(dumpRows(t, f.s, `SELECT change_id, seq, tbl, row_id, before, after FROM journal_rows ORDER BY change_id, seq`))
	b.WriteString(dumpRows(t, f.s, `SELECT id, owner_id, tool, summary, undoes, undone_by FROM changes ORDER BY id`))
	return b.String()
}

// dumpRows is every row q gives (with args), a line each.
func dumpRows(t *testing.T, s *Store, q string, args ...any) string {
	t.Helper()
	rows, err := s.DB().Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals, ptrs := make([]any, len(cols)), make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b bytes.Buffer
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if x, ok := v.([]byte); ok {
				v = string(x)
			}
			fmt.Fprintf(&b, "%v|", v)
		}
		b.WriteString("\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestImageFieldsSplitsEncodeRow splits images of random rows (texts
// with quotes, escapes and non-ASCII, blobs, numbers, nulls) as encodeRow
// writes them: the members, joined again, are the image, and each key is
// its column's name.
func TestImageFieldsSplitsEncodeRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 21))
	texts := []string{"", `"`, `\`, `a\"b`, "x}y", "[,]", "é ü 💡", "a\nb\t", "<&>", "\\\\"}
	for range 500 {
		cols := []string{"a", "b", "c", "d", "e"}
		vals := make([]any, len(cols))
		for i := range vals {
			switch rng.IntN(6) {
			case 0:
				vals[i] = nil
			case 1:
				vals[i] = rng.Int64N(1<<62) - 1<<61
			case 2:
				vals[i] = texts[rng.IntN(len(texts))] + texts[rng.IntN(len(texts))]
			case 3:
				vals[i] = []byte(texts[rng.IntN(len(texts))])
			case 4:
				vals[i] = rng.Float64() * 1e30
			case 5:
				vals[i] = rng.IntN(2) == 0
			}
		}
		img, err := encodeRow(cols, vals)
		if err != nil {
			t.Fatal(err)
		}
		fs, ok := imageFields(img)
		if !ok || len(fs) != len(cols) {
			t.Fatalf("%s: %d fields (%v), want %d", img, len(fs), ok, len(cols))
		}
		var parts []string
		for i, f := range fs {
			if string(f.key) != `"`+cols[i]+`"` {
				t.Fatalf("%s: key %d is %s", img, i, f.key)
			}
			parts = append(parts, string(f.key)+":"+string(f.value))
		}
		if again := "{" + strings.Join(parts, ",") + "}"; again != string(img) {
			t.Fatalf("joined again %s, not %s", again, img)
		}
	}
	for _, bad := range []string{"", "{", `{"a":1`, `{"a" 1}`, `{"a":"x}`, `[1]`, `{"a":1}x`, `{1:2}`} {
		if _, ok := imageFields([]byte(bad)); ok {
			t.Errorf("imageFields(%q) is ok", bad)
		}
	}
}
