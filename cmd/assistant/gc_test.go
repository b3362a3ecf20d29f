package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestServerGC: a server collects at serverGCPercent under
// serverMemoryLimit, unless GOGC or GOMEMLIMIT chose otherwise.
func TestServerGC(t *testing.T) {
	pct := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	})
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	for _, set := range []map[string]string{{"GOGC": "100"}, {"GOMEMLIMIT": "1GiB"}, {"GOGC": "off", "GOMEMLIMIT": "64MiB"}} {
		if serverGC(env(set)) {
			t.Errorf("%v: the collector was set", set)
		}
		if got := debug.SetGCPercent(100); got != 100 {
			t.Errorf("%v: GOGC %d, want 100 (left as it was)", set, got)
		}
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("%v: memory limit %d, want none", set, got)
		}
	}
	if !serverGC(env(nil)) {
		t.Fatal("no GOGC nor GOMEMLIMIT: the collector was not set")
	}
	if got := debug.SetGCPercent(100); got != serverGCPercent {
		t.Errorf("GOGC %d, want %d", got, serverGCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != serverMemoryLimit {
		t.Errorf("memory limit %d, want %d", got, serverMemoryLimit)
	}
}
