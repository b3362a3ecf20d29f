//go:build race

package recur

// raceOn is true when the tests run under the race detector, which makes
// the single-goroutine differential tests about ten times slower; they
// then try as many cases as under -short.
const raceOn = true
