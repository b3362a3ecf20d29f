package tz

import (
	"math/rand/v2"
	"testing"
)

// TestDistanceWithin compares distanceWithin with distance on random
// pairs of short strings over a small alphabet (so that swaps and near
// misses are common) and on real zone names.
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
		full := distance(a, b)
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
