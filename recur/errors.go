package recur

import (
	"fmt"
	"strings"
)

// Error is a refusal of bad recurrence input: Name is the argument or
// property it is about ("rrule", "DTSTART", "rdates") and Sentence the one
// sentence that says what to write instead; Error returns the sentence.
// Tools can turn it into an args.Error as it is.
//
// OnlyStart marks a rule refused only because its UNTIL ends it before a
// second occurrence: the series it makes is its DTSTART alone (RFC 5545
// §3.8.5.3), which a tool refuses as a rule that never repeats but a file
// may hold as it is (an export of a series cut down to one occurrence).
type Error struct {
	Name      string
	Sentence  string
	OnlyStart bool
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
