package tools

import (
	"context"
	"sync"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// SessionPerson is the PersonSource of a session that outlives one call
// (an MCP stdio session, a chat): it keeps p, whose zone is already
// loaded, for the whole session, and before each call reads the person's
// row again with one prepared statement ([store.Store.PersonByID]).
// While the stored name and zone are the kept ones it answers the kept
// Person, loading no zone; a zone changed meanwhile (set_time_zone, its
// undo, `assistant person set-zone` in another process) replaces the kept
// Person from that call on, and a person deleted meanwhile fails the very
// next call with an error wrapping [store.ErrNotFound]. A stored zone that
// cannot be loaded is an error and keeps nothing. Safe for concurrent
// calls.
func SessionPerson(st *store.Store, p Person) PersonSource {
	var mu sync.Mutex
	kept := p
	return func(ctx context.Context) (Person, error) {
		sp, err := st.PersonByID(ctx, p.ID)
		if err != nil {
			return p, err
		}
		mu.Lock()
		cur := kept
		mu.Unlock()
		if cur.Name == sp.Name && cur.Zone.Name() == sp.Zone {
			return cur, nil
		}
		zone, err := tz.LoadZone(sp.Zone)
		if err != nil {
			return p, err
		}
		cur = Person{ID: sp.ID, Name: sp.Name, Zone: zone}
		mu.Lock()
		kept = cur
		mu.Unlock()
		return cur, nil
	}
}
