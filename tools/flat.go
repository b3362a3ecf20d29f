package tools

import (
	"encoding/json"
	"fmt"
)

// CheckFlat checks a JSON Schema against the rule every major model API
// takes: a flat {"type":"object"} with properties, each with one plain type
// and a description, and no anyOf, oneOf, allOf, not or $ref at any level.
// It checks the JSON itself, so it also catches schemas a front rewrites.
func CheckFlat(schema []byte) error {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		return fmt.Errorf("schema is not a JSON object: %v", err)
	}
	if m["type"] != "object" {
		return fmt.Errorf(`schema type is %v, not "object"`, m["type"])
	}
	if err := noCombinators("", m); err != nil {
		return err
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		return fmt.Errorf("schema has no properties object")
	}
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			return fmt.Errorf("property %s is not an object", name)
		}
		typ, ok := pm["type"].(string)
		if !ok {
			return fmt.Errorf("property %s has no single type", name)
		}
		if typ == "object" {
			return fmt.Errorf("property %s is a nested object", name)
		}
		if d, _ := pm["description"].(string); d == "" {
			return fmt.Errorf("property %s has no description", name)
		}
	}
	return nil
}

func noCombinators(path string, v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			switch k {
			case "anyOf", "oneOf", "allOf", "not", "$ref", "$defs", "definitions":
				return fmt.Errorf("schema uses %s at %q", k, path)
			}
			if err := noCombinators(path+"/"+k, sub); err != nil {
				return err
			}
		}
	case []any:
		for _, sub := range x {
			if err := noCombinators(path, sub); err != nil {
				return err
			}
		}
	}
	return nil
}
