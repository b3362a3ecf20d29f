package tools

import (
	"context"
	"sync"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// Session is the person of a session that outlives one call (an MCP stdio
// session, a chat), kept between calls with its zone already loaded. A
// host inserts it with [InsertSession]; the Registry then answers each
// call with the kept person and leaves the check that it is still the
// stored one to the call's first transaction ([store.WithPersonCheck]),
// which on PostgreSQL rides with that transaction's first round trip
// instead of costing one of its own. When the check finds the name or
// zone changed (set_time_zone, its undo, `assistant person set-zone` in
// another process), nothing of the call was written: the person is read
// again and the call runs once more in the new zone. A call that made no
// transaction has the person read after it, and runs again in the same
// way when the zone had changed and it wrote nothing. Safe for concurrent
// calls.
type Session struct {
	st *store.Store
	id int64
	mu sync.Mutex
	p  Person
}

// NewSession keeps p, read from st, for a session.
func NewSession(st *store.Store, p Person) *Session {
	return &Session{st: st, id: p.ID, p: p}
}

// Kept is the person as last read.
func (s *Session) Kept() Person {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p
}

// Read reads the person's row again with one prepared statement
// ([store.Store.PersonByID]) and answers the kept person while the stored
// name and zone are the kept ones, loading no zone; a changed zone
// replaces the kept person, and a person deleted meanwhile is an error
// wrapping [store.ErrNotFound]. A stored zone that cannot be loaded is an
// error and keeps nothing.
func (s *Session) Read(ctx context.Context) (Person, error) {
	kept := s.Kept()
	sp, err := s.st.PersonByID(ctx, s.id)
	if err != nil {
		return kept, err
	}
	if kept.Name == sp.Name && kept.Zone.Name() == sp.Zone {
		return kept, nil
	}
	zone, err := tz.LoadZone(sp.Zone)
	if err != nil {
		return kept, err
	}
	cur := Person{ID: sp.ID, Name: sp.Name, Zone: zone}
	s.mu.Lock()
	s.p = cur
	s.mu.Unlock()
	return cur, nil
}

// InsertSession puts s in tc for the Registry, and its Read as tc's
// PersonSource for the readers of [CurrentPerson].
func InsertSession(tc *ToolContext, s *Session) {
	Insert(tc, s)
	Insert(tc, PersonSource(s.Read))
}

// SessionPerson is the PersonSource of a session that outlives one call:
// [Session.Read] of a Session keeping p. Before each call it reads the
// person's row again; a host that inserts the Session itself
// ([InsertSession]) lets the call's first transaction check it instead.
func SessionPerson(st *store.Store, p Person) PersonSource {
	return NewSession(st, p).Read
}
