package store

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestArrayLiteralReadsBack binds random texts and integers, NULLs among
// them, as the text form of an array (arrayLiteral, which insertUnnest and
// the journal bind on PostgreSQL) and reads them back one by one with
// unnest: every element must come back as written, in order, whatever
// quotes, backslashes, braces, commas, spaces or the word NULL it holds.
func TestArrayLiteralReadsBack(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		if storetest.Engine(t) == storetest.Postgres {
			arrayLiteralReadsBack(t)
		}
	})
}

func arrayLiteralReadsBack(t *testing.T) {
	s, err := Open(context.Background(), storetest.Location(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bits := []string{"", "a", `"`, `\`, `\\"`, "{", "}", ",", " ", "NULL", "null", "é💡", "\n", "\t", "'", "x y"}
	rng := rand.New(rand.NewPCG(21, 1))
	for round := 0; round < 20; round++ {
		n := rng.IntN(60)
		var texts []*string
		var ints []*int64
		var ta, ia arrayLiteral
		ta.reset()
		ia.reset()
		for i := 0; i < n; i++ {
			if rng.IntN(5) == 0 {
				texts, ints = append(texts, nil), append(ints, nil)
				ta.null()
				ia.null()
				continue
			}
			var b strings.Builder
			for k := rng.IntN(5); k > 0; k-- {
				b.WriteString(bits[rng.IntN(len(bits))])
			}
			text, num := b.String(), rng.Int64()-rng.Int64()
			texts, ints = append(texts, &text), append(ints, &num)
			if i%2 == 0 {
				ta.text(text)
			} else {
				ta.textBytes([]byte(text))
			}
			ia.int(num)
		}
		rows, err := s.DB().Query(`SELECT t, i FROM unnest($1::text[], $2::bigint[]) AS u(t, i)`, ta.String(), ia.String())
		if err != nil {
			t.Fatalf("%s: %v", ta.String(), err)
		}
		var gotT []*string
		var gotI []*int64
		for rows.Next() {
			var tv *string
			var iv *int64
			if err := rows.Scan(&tv, &iv); err != nil {
				t.Fatal(err)
			}
			gotT, gotI = append(gotT, tv), append(gotI, iv)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		eq := func(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
		eqi := func(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
		if !slices.EqualFunc(gotT, texts, eq) || !slices.EqualFunc(gotI, ints, eqi) {
			t.Fatalf("round %d: %s read back otherwise", round, ta.String())
		}
	}
}
