package recur

import (
	"fmt"
	"strings"
)

// Error is a refusal of bad recurrence input: Name is the argument or
// property it is about ("rrule", "DTSTART", "rdates") and Sentence the one
// sentence that says what to write instead; Error returns the sentence.
// Tools can turn it into an args.Error as it is.
type Error struct {
	Name     string
	Sentence string
}

func (e *Error) Error() string { return e.Sentence }

// fail builds an Error whose sentence starts with the quoted name
// (“rrule” …), the name being taken from those quotes.
func fail(format string, a ...any) error {
	s := fmt.Sprintf(format, a...)
	name := ""
	if rest, ok := strings.CutPrefix(s, "“"); ok {
		name, _, _ = strings.Cut(rest, "”")
	}
	return &Error{Name: name, Sentence: s}
}
