package tz

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MomentsJSON is ms as the JSON array of their canonical texts, the form a
// list of moments (EXDATEs, RDATEs, absolute reminders) is stored in:
// ["2026-10-05","2026-10-06T09:00"]; "[]" when ms is empty. A moment with
// Fold carries foldMark.
func MomentsJSON(ms []Moment) string {
	if len(ms) == 0 {
		return "[]"
	}
	texts := make([]string, len(ms))
	for i, m := range ms {
		texts[i] = m.Stored()
	}
	b, _ := json.Marshal(texts) // strings only: cannot fail
	return string(b)
}

// foldMark follows the text of a timed moment with Fold set in a stored
// list, since the list keeps no instant beside it: an RFC 9557 suffix
// annotation with an experimental key ("2026-10-25T02:30[_fold=1]" is the
// second 02:30 of that night).
const foldMark = "[_fold=1]"

// Stored is m's canonical text followed by foldMark when m has Fold: the
// form to keep where no instant is stored beside it.
func (m Moment) Stored() string {
	if m.HasTime && m.Fold {
		return m.String() + foldMark
	}
	return m.String()
}

// ParseStored reads what Stored writes, the inverse of Moment.Stored.
func ParseStored(s string) (Moment, error) {
	civil, fold := strings.CutSuffix(s, foldMark)
	m, err := ParseMoment(civil)
	if err != nil {
		return Moment{}, err
	}
	m.Fold = fold && m.HasTime
	return m, nil
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
		m, err := ParseStored(t)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
