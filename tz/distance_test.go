package tz

import (
	"math/rand/v2"
	"testing"
)

// TestDistanceWithin compares distanceWithin with osaByRecursion on
// random pairs of short strings over a small alphabet (so that swaps and
// near misses are common) and on real zone names.
func TestDistanceWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, r.IntN(9))
		for i := range b {
			b[i] = "abcz/_"[r.IntN(6)]
		}
		return string(b)
	}
	check := func(a, b string) {
		t.Helper()
		full := osaByRecursion([]rune(a), []rune(b), map[[2]int]int{})
		for limit := 0; limit <= 4; limit++ {
			if got, want := distanceWithin(a, b, limit), min(full, limit+1); got != want {
				t.Fatalf("distanceWithin(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
			}
		}
	}
	for range 200000 {
		check(word(), word())
	}
	ix := zoneIndex()
	for i := range ix.keys {
		check(ix.keys[i], "europeparis")
		check(ix.cities[i], "pari")
		check(ix.cities[i], "zürich")
	}
}

// osaByRecursion is the optimal string alignment distance of x and y
// worked out from its definition, top down: the test's oracle.
func osaByRecursion(x, y []rune, memo map[[2]int]int) int {
	if len(x) == 0 || len(y) == 0 {
		return len(x) + len(y)
	}
	key := [2]int{len(x), len(y)}
	if d, ok := memo[key]; ok {
		return d
	}
	sub := 1
	if x[len(x)-1] == y[len(y)-1] {
		sub = 0
	}
	d := min(osaByRecursion(x[:len(x)-1], y, memo)+1, osaByRecursion(x, y[:len(y)-1], memo)+1,
		osaByRecursion(x[:len(x)-1], y[:len(y)-1], memo)+sub)
	if len(x) > 1 && len(y) > 1 && x[len(x)-1] == y[len(y)-2] && x[len(x)-2] == y[len(y)-1] {
		d = min(d, osaByRecursion(x[:len(x)-2], y[:len(y)-2], memo)+1)
	}
	memo[key] = d
	return d
}
