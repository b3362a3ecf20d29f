package mcpserver

import (
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
)

// sessionContext is the ToolContext `assistant mcp` builds for a stdio
// session (cmd/assistant's toolContext): the person, the clock, the store
// and the person kept for the session (tools.Session), checked by each
// call's first transaction.
func sessionContext(st *store.Store, p tools.Person) *tools.ToolContext {
	tc := &tools.ToolContext{}
	tools.Insert(tc, p)
	tools.Insert(tc, tools.Clock(time.Now))
	tools.Insert(tc, st)
	tools.InsertSession(tc, tools.NewSession(st, p))
	tools.Insert(tc, tools.ExplainError(st.Explain))
	return tc
}
