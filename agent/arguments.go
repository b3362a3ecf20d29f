package agent

import (
	"bytes"
	"encoding/json"
)

// argumentsAsText rewrites a chat completion (or one chunk of a stream)
// whose tool calls carry "arguments" as a JSON value other than a string,
// as some OpenAI-compatible servers send them ({"title":"Dentist"} where
// OpenAI's API has the string "{\"title\":\"Dentist\"}"), so each becomes
// the string of that JSON. Both places a call can be are read:
// choices[].message.tool_calls (a whole answer) and
// choices[].delta.tool_calls (a stream chunk). null stays null (no
// arguments). raw comes back unchanged when nothing needed rewriting or it
// is not JSON of that shape (the decoder then says so).
func argumentsAsText(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`"arguments"`)) {
		return raw
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return raw
	}
	var choices []map[string]json.RawMessage
	if json.Unmarshal(top["choices"], &choices) != nil {
		return raw
	}
	changed := false
	for _, ch := range choices {
		for _, key := range []string{"message", "delta"} {
			if fixed, ok := callsAsText(ch[key]); ok {
				ch[key] = fixed
				changed = true
			}
		}
	}
	if !changed {
		return raw
	}
	b, err := json.Marshal(choices)
	if err != nil {
		return raw
	}
	top["choices"] = b
	out, err := json.Marshal(top)
	if err != nil {
		return raw
	}
	return out
}

// callsAsText rewrites the tool calls of one message or delta; ok is false
// when nothing changed.
func callsAsText(msg json.RawMessage) (json.RawMessage, bool) {
	if len(msg) == 0 {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return nil, false
	}
	var calls []map[string]json.RawMessage
	if json.Unmarshal(m["tool_calls"], &calls) != nil {
		return nil, false
	}
	changed := false
	for _, c := range calls {
		var fn map[string]json.RawMessage
		if json.Unmarshal(c["function"], &fn) != nil {
			continue
		}
		v := bytes.TrimSpace(fn["arguments"])
		if len(v) == 0 || v[0] == '"' || bytes.Equal(v, []byte("null")) {
			continue
		}
		var compact bytes.Buffer
		if json.Compact(&compact, v) != nil {
			continue
		}
		s, err := json.Marshal(compact.String())
		if err != nil {
			continue
		}
		fn["arguments"] = s
		b, err := json.Marshal(fn)
		if err != nil {
			continue
		}
		c["function"] = b
		changed = true
	}
	if !changed {
		return nil, false
	}
	b, err := json.Marshal(calls)
	if err != nil {
		return nil, false
	}
	m["tool_calls"] = b
	out, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	return out, true
}
