// Package tools is the core that every front shares: the definition of a
// tool (name, description, JSON Schema of its arguments, handler), the
// Registry that calls tools by name from raw JSON arguments, the ExecResult
// every tool answers with, and the ToolContext that carries the person, the
// clock and the store into a call.
//
// A tool's handler is best made with [Define]: a read step that turns the
// arguments into a typed value, probed at [Registry.Add] against the
// schema, and a run step that gets the call's [Env] (person, zone, now,
// store). [Fail] maps the errors of the store, of package recur and of
// package args to result codes and sentences; [Once] is the idempotency
// key and duplicate check of a tool that adds an item. The package also
// holds the argument readers and schema properties the task and event
// tools share ([ReadWindow], [ReadReminders], [ReadCursor], [FromProp]…).
//
// The package knows nothing of OpenAI or MCP; each front derives its own
// form of a tool from the one definition here.
package tools

import (
	"context"
	"encoding/json"

	"github.com/assistant-dev/assistant/args"
)

// Handler runs one tool call. It reads its arguments from a (already checked
// against the schema's property names and required list), takes the person,
// clock and store from tc, and returns an ExecResult. A handler never
// panics on bad input; a panic is caught by the Registry and answered as an
// internal error.
type Handler func(ctx context.Context, tc *ToolContext, a *args.Args) ExecResult

// Tool is one tool, defined once.
type Tool struct {
	// Name is the model-facing name, snake_case ("add_task").
	Name string
	// Title is a short human title ("Add a task"), for MCP clients.
	Title string
	// Description tells the model when and how to use the tool.
	Description string
	// Schema describes the arguments; it is always a flat object.
	Schema Schema
	// Output is the JSON Schema of a success's Data (an object schema),
	// served as the MCP outputSchema that clients check structuredContent
	// against. Derive it from the Go type Data is marshalled from with
	// OutputOf, or, for Data built as a map, give its members with
	// Schema.Output. Empty declares none.
	Output json.RawMessage
	// ReadOnly: the tool changes nothing. Destructive: it may delete or
	// overwrite. Idempotent: repeating a call with the same arguments has no
	// further effect. These become MCP tool annotations.
	ReadOnly, Destructive, Idempotent bool
	// Handler runs a call. [Define] makes one from a read step and a run
	// step, which Registry.Add probes.
	Handler Handler

	probe func(Schema) error // set by Define: runs the read step on probe arguments
}

// Schema is the JSON Schema of a tool's arguments: always one flat
// {"type":"object"} with properties, required and a description on every
// property, and none of anyOf, oneOf, allOf or $ref, so that every major
// model API takes it.
type Schema struct {
	Properties []Property
	Required   []string
}

// Property is one argument. Type is a JSON Schema type: "string",
// "integer", "number", "boolean" or "array" (Items then names the item
// type, "string" or "integer"). A member of an Output schema may also be
// an "object", or an "array" of Items "object" (Obj, Objs); an argument
// never is.
type Property struct {
	Name        string
	Type        string
	Items       string
	Description string
	Enum        []string
	Minimum     *float64
	Maximum     *float64
	// Example is a value of the argument as JSON ("t12", "\"Call the
	// plumber\""), shown by the refusal of a call that leaves a required
	// argument out or blank, so the sentence says what to write. It is
	// not part of the schema sent to models. See [Property.Like].
	Example string

	nested json.RawMessage // the derived schema of an Output member (Nested, NestedList)
}
