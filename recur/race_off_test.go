//go:build !race

package recur

// raceOn is true when the tests run under the race detector.
const raceOn = false
