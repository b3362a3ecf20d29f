package main

import (
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
)

// newRegistry builds the registry every front serves. Until the task and
// event tools land in tools/catalog (catalog.New), it registers the tools
// that exist; switching to the catalog is this one function.
func newRegistry() *tools.Registry {
	r := tools.NewRegistry()
	changes.Register(r)
	return r
}
