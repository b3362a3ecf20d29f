package main

import (
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
)

// newRegistry builds the registry every front serves: the whole catalog
// (tasks, events and time, the journal), in the order models see it.
func newRegistry() *tools.Registry {
	return catalog.New()
}
