package tz

import (
	"encoding/json"
	"fmt"
)

// MomentsJSON is ms as the JSON array of their canonical texts, the form a
// list of moments (EXDATEs, RDATEs, absolute reminders) is stored in:
// ["2026-10-05","2026-10-06T09:00"]; "[]" when ms is empty.
func MomentsJSON(ms []Moment) string {
	if len(ms) == 0 {
		return "[]"
	}
	texts := make([]string, len(ms))
	for i, m := range ms {
		texts[i] = m.String()
	}
	b, _ := json.Marshal(texts) // strings only: cannot fail
	return string(b)
}

// ParseMomentsJSON reads what MomentsJSON writes. Empty text and "[]" read
// as no moments; anything else that is not an array of canonical moment
// texts is an error naming the bad item.
func ParseMomentsJSON(s string) ([]Moment, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var texts []string
	if err := json.Unmarshal([]byte(s), &texts); err != nil {
		return nil, fmt.Errorf("a stored list of moments is not a JSON array of texts: %w", err)
	}
	out := make([]Moment, 0, len(texts))
	for _, t := range texts {
		m, err := ParseMoment(t)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
