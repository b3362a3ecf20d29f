package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// JSON returns the schema as a JSON Schema object:
// {"type":"object","properties":{…},"required":[…]}. Properties keep their
// declared order. additionalProperties is left out on purpose: some model
// APIs reject the keyword, and Args refuses unknown names anyway.
func (s Schema) JSON() json.RawMessage {
	b, err := json.Marshal(s.Map())
	if err != nil { // only strings, numbers and slices: cannot fail
		panic(err)
	}
	return b
}

// Map returns the schema as a map, the shape the MCP and OpenAI SDKs take.
func (s Schema) Map() map[string]any {
	props := orderedProps(s.Properties)
	m := map[string]any{
		"type":       "object",
		"properties": props,
	}
	req := s.Required
	if req == nil {
		req = []string{}
	}
	m["required"] = req
	return m
}

// orderedProps marshals properties in declaration order.
type orderedProps []Property

func (o orderedProps) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, p := range o {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(p.Name)
		v, err := json.Marshal(p.jsonSchema())
		if err != nil {
			return nil, err
		}
		buf = append(buf, k...)
		buf = append(buf, ':')
		buf = append(buf, v...)
	}
	return append(buf, '}'), nil
}

func (p Property) jsonSchema() map[string]any {
	m := map[string]any{"type": p.Type, "description": p.Description}
	if p.Type == "array" {
		m["items"] = map[string]any{"type": p.Items}
	}
	if p.nested != nil {
		var n map[string]any
		if err := json.Unmarshal(p.nested, &n); err != nil { // made by OutputOf: cannot fail
			panic(err)
		}
		if p.Type == "array" {
			m["items"] = n
		} else {
			for k, v := range n {
				m[k] = v
			}
		}
	}
	if p.Description == "" {
		delete(m, "description")
	}
	if len(p.Enum) > 0 {
		m["enum"] = p.Enum
	}
	if p.Minimum != nil {
		m["minimum"] = *p.Minimum
	}
	if p.Maximum != nil {
		m["maximum"] = *p.Maximum
	}
	return m
}

// Names returns the property names in declared order.
func (s Schema) Names() []string {
	out := make([]string, len(s.Properties))
	for i, p := range s.Properties {
		out[i] = p.Name
	}
	return out
}

// Property returns the property called name.
func (s Schema) Property(name string) (Property, bool) {
	for _, p := range s.Properties {
		if p.Name == name {
			return p, true
		}
	}
	return Property{}, false
}

var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// Check reports the first way t breaks the rules every front relies on: a
// snake_case name of at most 64 characters, a description, a handler, and a
// flat object schema whose every property has a known type, a description,
// a unique name, and whose required names are all properties.
func (t Tool) Check() error {
	if !toolName.MatchString(t.Name) {
		return fmt.Errorf("tool name %q must be snake_case, at most 64 characters", t.Name)
	}
	if t.Description == "" {
		return fmt.Errorf("tool %s has no description", t.Name)
	}
	if t.Handler == nil {
		return fmt.Errorf("tool %s has no handler", t.Name)
	}
	seen := map[string]bool{}
	for _, p := range t.Schema.Properties {
		if !toolName.MatchString(p.Name) {
			return fmt.Errorf("tool %s: property name %q must be snake_case", t.Name, p.Name)
		}
		if seen[p.Name] {
			return fmt.Errorf("tool %s: property %s declared twice", t.Name, p.Name)
		}
		seen[p.Name] = true
		if p.Description == "" {
			return fmt.Errorf("tool %s: property %s has no description", t.Name, p.Name)
		}
		switch p.Type {
		case "string", "integer", "number", "boolean":
			if p.Items != "" {
				return fmt.Errorf("tool %s: property %s is not an array but names items", t.Name, p.Name)
			}
		case "array":
			if p.Items != "string" && p.Items != "integer" {
				return fmt.Errorf("tool %s: array property %s must have items string or integer", t.Name, p.Name)
			}
		default:
			return fmt.Errorf("tool %s: property %s has type %q; use string, integer, number, boolean or array", t.Name, p.Name, p.Type)
		}
	}
	for _, r := range t.Schema.Required {
		if !seen[r] {
			return fmt.Errorf("tool %s: required %s is not a property", t.Name, r)
		}
	}
	if len(t.Output) > 0 {
		var out struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(t.Output, &out); err != nil || out.Type != "object" {
			return fmt.Errorf("tool %s: Output must be a JSON Schema of type object", t.Name)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(t.Schema.Required)))) != len(t.Schema.Required) {
		return fmt.Errorf("tool %s: a required name is listed twice", t.Name)
	}
	return nil
}

// Str, Int, Num, Bool, Strs and Ints build properties tersely in tool
// definitions.
func Str(name, desc string) Property { return Property{Name: name, Type: "string", Description: desc} }
func Int(name, desc string) Property { return Property{Name: name, Type: "integer", Description: desc} }
func Num(name, desc string) Property { return Property{Name: name, Type: "number", Description: desc} }
func Bool(name, desc string) Property {
	return Property{Name: name, Type: "boolean", Description: desc}
}
func Strs(name, desc string) Property {
	return Property{Name: name, Type: "array", Items: "string", Description: desc}
}
func Ints(name, desc string) Property {
	return Property{Name: name, Type: "array", Items: "integer", Description: desc}
}

// OneOf returns p limited to the given values.
func (p Property) OneOf(values ...string) Property { p.Enum = values; return p }

// Like returns p with example, a value of it written as in a call
// (t12, Call the plumber), as its Example.
func (p Property) Like(example string) Property {
	b, _ := json.Marshal(example) // a string: cannot fail
	p.Example = string(b)
	return p
}

// Range returns p with an inclusive minimum and maximum.
func (p Property) Range(least, most float64) Property {
	p.Minimum, p.Maximum = &least, &most
	return p
}

// Obj and Objs build members of an Output schema: an object, and an array
// of objects, whose own members are not spelled out.
func Obj(name, desc string) Property { return Property{Name: name, Type: "object", Description: desc} }
func Objs(name, desc string) Property {
	return Property{Name: name, Type: "array", Items: "object", Description: desc}
}

// Nested and NestedList build members of an Output schema that hold a T,
// and a list of T, where T is the struct type the member is marshalled
// from: the member's schema is derived from T by OutputOf.
func Nested[T any](name, desc string) Property {
	return Property{Name: name, Type: "object", Description: desc, nested: OutputOf[T]()}
}
func NestedList[T any](name, desc string) Property {
	return Property{Name: name, Type: "array", Items: "object", Description: desc, nested: OutputOf[T]()}
}

// WithDefault returns p, a Nested or NestedList member, with the default
// value v (as JSON) written on its member field: the value a program
// takes when the field is left out of a row (omitempty). It panics when
// p has no such field, at start-up.
func (p Property) WithDefault(field string, v any) Property {
	var n map[string]any
	if err := json.Unmarshal(p.nested, &n); err != nil {
		panic("tools: " + p.Name + " is not a Nested or NestedList member")
	}
	props, _ := n["properties"].(map[string]any)
	f, ok := props[field].(map[string]any)
	if !ok {
		panic("tools: " + p.Name + " has no field " + field)
	}
	f["default"] = v
	b, err := json.Marshal(n)
	if err != nil {
		panic("tools: " + err.Error())
	}
	p.nested = b
	return p
}

// Output returns s as the JSON Schema of a result's Data:
// {"type":"object","properties":{…},"required":[…]}, open to members it
// does not name, so a new member does not break a client that checks.
func (s Schema) Output() json.RawMessage { return s.JSON() }

// OutputOf returns the JSON Schema of T, the Go type a tool's Data is
// marshalled from, as encoding/json writes it (fields by their json
// names, omitempty ones not required; github.com/google/jsonschema-go,
// jsonschema.For), for Tool.Output. T must be a struct; it panics
// otherwise, at start-up.
func OutputOf[T any]() json.RawMessage {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic("tools: " + err.Error())
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic("tools: " + err.Error())
	}
	return b
}
