package main

import (
	"runtime/debug"
)

// Garbage collection of a long-running server (`assistant mcp`, `assistant
// serve`): its live heap is small (about 1 MiB between calls) and every
// answer allocates a few hundred kilobytes, so at Go's default (GOGC=100,
// a 4 MiB heap goal at the least) it collected every few calls: with a
// list page of 50 tasks, one collection per six calls, about a third of
// the server's CPU. serverGCPercent lets the heap grow to five times the
// live heap before collecting (one collection per 40-odd such calls, for
// about 12 MiB more resident memory), and serverMemoryLimit keeps a heap
// that grows anyway (a burst of large answers) from growing past it
// unchecked: near the limit the collector runs as often as it must.
const (
	serverGCPercent   = 400
	serverMemoryLimit = 256 << 20 // bytes
)

// serverGC sets the collector of a long-running server as the constants
// above say, unless the environment already chose (GOGC or GOMEMLIMIT,
// read by the Go runtime itself): getenv is os.Getenv. It reports whether
// it changed anything.
func serverGC(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(serverGCPercent)
	debug.SetMemoryLimit(serverMemoryLimit)
	return true
}
