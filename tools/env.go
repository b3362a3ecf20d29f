package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// Env is what one call of a tool works with, built once for the call by
// [NewEnv] (a tool made with [Define] gets it built by the skeleton): who
// the call acts for, in which zone, at which instant, on which store.
type Env struct {
	// Ctx is the call's context, with the Registry's deadline.
	Ctx context.Context
	// Tool is the tool's name ("add_task"), which the journal records
	// for each Write.
	Tool string
	// Person is who the call acts for; every store call filters by
	// Person.ID.
	Person Person
	// Zone is Person.Zone: the IANA zone the person's times are read
	// and shown in (a run may override it without storing it).
	Zone tz.Zone
	// Now is the call's one instant, read once from the host's [Clock]:
	// in UTC, truncated to the whole second. The store records every
	// time as whole seconds (created_at, updated_at, the journal), so a
	// Now of whole seconds compares the same before and after a round
	// trip through it (the duplicate window, a reminder already past,
	// "added 3 min ago"), and every answer of one call names one now.
	Now time.Time
	// Store is the person's store.
	Store *store.Store
	// TC is the call's ToolContext, for result metadata ([InsertResult]).
	TC *ToolContext
}

// NewEnv builds the Env of one call of the tool called tool from what the
// host put in tc: the Person, the *store.Store and the Clock ([Now]). A
// missing Person or store is a *MissingToolContext error: a wiring bug,
// answered as an internal error.
func NewEnv(ctx context.Context, tc *ToolContext, tool string) (*Env, error) {
	p, err := Require[Person](tc)
	if err != nil {
		return nil, err
	}
	s, err := Require[*store.Store](tc)
	if err != nil {
		return nil, err
	}
	return &Env{Ctx: ctx, Tool: tool, Person: p, Zone: p.Zone, Now: Now(tc).UTC().Truncate(time.Second), Store: s, TC: tc}, nil
}

// Read runs fn in one read transaction of e's person (store.Store.Read).
func (e *Env) Read(fn func(tx *store.Tx) error) error {
	return e.Store.Read(e.Ctx, e.Person.ID, fn)
}

// Write runs fn in one journaled write transaction of e's person, made by
// e.Tool (store.Store.Write), and returns the change id ("c31"; "" when
// fn wrote nothing).
func (e *Env) Write(fn func(tx *store.Tx) error) (string, error) {
	c, err := e.Store.Write(e.Ctx, e.Person.ID, e.Tool, func(tx *store.Tx) error {
		tx.AssumeZone(e.Zone.Name())
		return fn(tx)
	})
	if err == nil {
		// Known at once, so a call that runs out of time after the
		// commit says its change was saved ([Env.Changed] adds the items).
		e.Changed(c)
	}
	return c, err
}

// Changed attaches to the call, for the host, the change id a write made
// and the labels of the items it touched ("t12", "e7"); an empty change
// (nothing written) attaches nothing.
func (e *Env) Changed(change string, items ...string) {
	if change != "" && e.TC != nil {
		InsertResult(e.TC, Changed{Change: change, Items: items})
	}
}

// Define returns t with a Handler made of two steps:
//
//   - read reads the arguments from a into an In. It may use e.Zone and
//     e.Now, and must use nothing else of e: no store, no context, no
//     clock of its own. It records failures on a, as the args getters do.
//   - run acts on the In read, with the whole Env.
//
// For each call the skeleton builds the Env once ([NewEnv]), runs read,
// answers a failure kept on a with its sentence ([Invalid]) before run
// starts, then runs run. t.Handler must be nil; its Schema declares every
// name read asks for.
//
// [Registry.Add] probes read before the tool is added: it runs read twice,
// on empty arguments and on arguments that give every declared property a
// value of its type, with getters that panic on a name the schema does
// not declare ([args.Args.Strict]). A read that asks for such a name, or
// panics at all, makes Add panic at start-up, so a schema and its reader
// cannot drift apart. Calls run strict too: a getter on a branch the
// probes did not reach panics in the call, which the Registry answers as
// an internal error and logs.
func Define[In any](t Tool, read func(a *args.Args, e *Env) In, run func(e *Env, in In) ExecResult) Tool {
	if t.Handler != nil {
		panic("tools: Define: tool " + t.Name + " already has a Handler")
	}
	name := t.Name
	t.Handler = func(ctx context.Context, tc *ToolContext, a *args.Args) ExecResult {
		e, err := NewEnv(ctx, tc, name)
		if err != nil {
			return Internal(err)
		}
		a.Strict()
		a.SetNow(e.Now)
		in := read(a, e)
		if err := a.Err(); err != nil {
			return Invalid(err)
		}
		return run(e, in)
	}
	t.probe = func(s Schema) error {
		for _, raw := range []json.RawMessage{json.RawMessage(`{}`), probeArgs(s)} {
			if err := probeRead(name, s, raw, func(a *args.Args, e *Env) { read(a, e) }); err != nil {
				return err
			}
		}
		return nil
	}
	return t
}

// probeNow is the instant a probe reads at.
var probeNow = time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)

// probeRead runs read once on raw with strict getters and tells what went
// wrong.
func probeRead(tool string, s Schema, raw json.RawMessage, read func(a *args.Args, e *Env)) (err error) {
	a, aerr := args.New(raw, s.Names(), nil)
	if aerr != nil {
		return fmt.Errorf("tool %s: the probe arguments %s are refused: %v", tool, raw, aerr)
	}
	a.Strict()
	a.SetNow(probeNow)
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		var u *args.Undeclared
		if e, ok := p.(error); ok && errors.As(e, &u) {
			err = fmt.Errorf("tool %s reads the argument %q, which its schema does not declare; declare it in Schema.Properties or stop reading it", tool, u.Name)
			return
		}
		err = fmt.Errorf("tool %s: its read step panicked on the arguments %s: %v (read may use only the arguments, Env.Zone and Env.Now)", tool, raw, p)
	}()
	read(a, &Env{Ctx: context.Background(), Tool: tool, Person: Person{Zone: tz.UTC}, Zone: tz.UTC, Now: probeNow})
	return nil
}

// probeArgs gives every property of s a value of its type: the first of
// its Enum, its Minimum, or a moment for a text (which text, line, moment
// and date getters all take).
func probeArgs(s Schema) json.RawMessage {
	m := make(map[string]any, len(s.Properties))
	for _, p := range s.Properties {
		var v any
		num := func() any {
			if p.Minimum != nil {
				return json.Number(strconv.FormatFloat(*p.Minimum, 'f', -1, 64))
			}
			return 1
		}
		switch p.Type {
		case "string":
			v = "2026-10-05T09:00"
			if len(p.Enum) > 0 {
				v = p.Enum[0]
			}
		case "integer", "number":
			v = num()
		case "boolean":
			v = true
		case "array":
			if p.Items == "integer" {
				v = []any{num()}
			} else {
				v = []string{"2026-10-05T09:00"}
			}
		}
		m[p.Name] = v
	}
	b, err := json.Marshal(m)
	if err != nil { // strings, numbers and booleans only
		panic(err)
	}
	return b
}
