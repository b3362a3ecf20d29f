package mcpserver

import (
	"context"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// sessionContext is the ToolContext `assistant mcp` builds for a stdio
// session (cmd/assistant's toolContext): the person, the clock, the store
// and a PersonSource that re-reads the person before each call.
func sessionContext(st *store.Store, p tools.Person) *tools.ToolContext {
	tc := &tools.ToolContext{}
	tools.Insert(tc, p)
	tools.Insert(tc, tools.Clock(time.Now))
	tools.Insert(tc, st)
	tools.Insert(tc, tools.PersonSource(func(ctx context.Context) (tools.Person, error) {
		sp, err := st.PersonByID(ctx, p.ID)
		if err != nil {
			return p, err
		}
		zone, err := tz.LoadZone(sp.Zone)
		if err != nil {
			return p, err
		}
		return tools.Person{ID: sp.ID, Name: sp.Name, Zone: zone}, nil
	}))
	tools.Insert(tc, tools.ExplainError(st.Explain))
	return tc
}
