package tools

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// ToolContext carries what the host puts in for one call — the person, the
// clock, the store — and what a tool attaches for the host after it (what
// changed, for hooks, logs and undo). Nothing in it is ever sent to a
// model: its String shows type names only.
//
// Values are keyed by their type; use the generic helpers Insert, Get,
// Require, Remove and Contains for inbound values and InsertResult, Result
// and RequireResult for result metadata (Go methods take no type
// parameters). The zero ToolContext is empty and ready to use.
type ToolContext struct {
	slots   map[reflect.Type]any
	results map[reflect.Type]any
}

// Cloner is implemented by values that must be deep-copied for each
// dispatch. Values without it are copied as they are (a pointer or a
// handle such as *store.Store stays shared).
type Cloner interface {
	CloneForCall() any
}

// Person is who a call acts for. ID is the store's person id (every query
// filters by it); Zone is the person's IANA zone, which a run
// may override without storing it.
type Person struct {
	ID   int64
	Name string
	Zone tz.Zone
}

// Clock is where "now" comes from; tests and the binary's ASSISTANT_NOW
// set it.
type Clock func() time.Time

// MissingToolContext is the error of Require when the host did not put in a
// value of the named type: a wiring bug, never the model's fault.
type MissingToolContext struct {
	Type string
}

func (e *MissingToolContext) Error() string {
	return fmt.Sprintf("tool context has no %s: the host must insert it before the call", e.Type)
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// Insert puts v in tc under its type T, replacing any earlier value.
func Insert[T any](tc *ToolContext, v T) {
	if tc.slots == nil {
		tc.slots = map[reflect.Type]any{}
	}
	tc.slots[typeOf[T]()] = v
}

// Get returns the value of type T and whether it is there.
func Get[T any](tc *ToolContext) (T, bool) {
	v, ok := tc.slots[typeOf[T]()]
	if !ok {
		var zero T
		return zero, false
	}
	return v.(T), true
}

// Require returns the value of type T, or a *MissingToolContext error.
func Require[T any](tc *ToolContext) (T, error) {
	v, ok := Get[T](tc)
	if !ok {
		return v, &MissingToolContext{Type: typeOf[T]().String()}
	}
	return v, nil
}

// Remove takes the value of type T out of tc and returns it.
func Remove[T any](tc *ToolContext) (T, bool) {
	v, ok := Get[T](tc)
	if ok {
		delete(tc.slots, typeOf[T]())
	}
	return v, ok
}

// Contains reports whether tc holds a value of type T.
func Contains[T any](tc *ToolContext) bool {
	_, ok := tc.slots[typeOf[T]()]
	return ok
}

// InsertResult attaches result metadata of type T for the host to read
// after the call.
func InsertResult[T any](tc *ToolContext, v T) {
	if tc.results == nil {
		tc.results = map[reflect.Type]any{}
	}
	tc.results[typeOf[T]()] = v
}

// Result returns the result metadata of type T and whether a tool attached
// it.
func Result[T any](tc *ToolContext) (T, bool) {
	v, ok := tc.results[typeOf[T]()]
	if !ok {
		var zero T
		return zero, false
	}
	return v.(T), true
}

// RequireResult returns the result metadata of type T, or a
// *MissingToolContext error.
func RequireResult[T any](tc *ToolContext) (T, error) {
	v, ok := Result[T](tc)
	if !ok {
		return v, &MissingToolContext{Type: typeOf[T]().String()}
	}
	return v, nil
}

// ForCall returns the context one dispatch works on: a copy of the inbound
// values (each Cloner deep-copied, others shared) and a fresh, empty result
// map. The caller reads results back from the returned context.
func (tc *ToolContext) ForCall() *ToolContext {
	c := &ToolContext{slots: make(map[reflect.Type]any, len(tc.slots)), results: map[reflect.Type]any{}}
	for k, v := range tc.slots {
		if cl, ok := v.(Cloner); ok {
			v = cl.CloneForCall()
		}
		c.slots[k] = v
	}
	return c
}

// String lists the types held, never their values, so a context can be
// logged without leaking a person's data or a secret.
func (tc ToolContext) String() string {
	names := func(m map[reflect.Type]any) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k.String())
		}
		sort.Strings(out)
		return out
	}
	return fmt.Sprintf("ToolContext{values: [%s], results: [%s]}",
		strings.Join(names(tc.slots), ", "), strings.Join(names(tc.results), ", "))
}

// GoString is String, so %#v does not print values either.
func (tc ToolContext) GoString() string { return tc.String() }

// Now returns the current instant from the Clock in tc, or the wall clock
// when the host put none in.
func Now(tc *ToolContext) time.Time {
	if c, ok := Get[Clock](tc); ok && c != nil {
		return c()
	}
	return time.Now()
}

// PersonOf returns the Person of tc, or a *MissingToolContext error.
func PersonOf(tc *ToolContext) (Person, error) { return Require[Person](tc) }

// PersonSource reads the person afresh, for hosts whose session outlives a
// change of the person's zone (a chat, an MCP stdio session): the Registry
// calls it before each tool call, so a call made after set_time_zone (or
// after undoing it) reads times in the new zone. A host that overrides the
// zone for a run returns the override.
type PersonSource func(ctx context.Context) (Person, error)

// ExplainError turns the cause of an internal failure into a sentence
// saying what happened and what to do (the disk under the database is
// full, the database is read-only), or "" when it has none; the Registry
// then answers that sentence instead of InternalSentence, with the same
// CodeInternal. Hosts insert the store's.
type ExplainError func(error) string

// CurrentPerson returns the person from tc's PersonSource when it has one,
// else the Person in tc.
func CurrentPerson(ctx context.Context, tc *ToolContext) (Person, error) {
	if src, ok := Get[PersonSource](tc); ok && src != nil {
		return src(ctx)
	}
	return PersonOf(tc)
}

// Changed is result metadata a writing tool attaches: the change id of the
// journal ("c31") and the ids of the items it touched ("t12", "e7").
type Changed struct {
	Change string
	Items  []string
}
