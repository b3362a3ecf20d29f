package fields

import (
	"fmt"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
)

// Bounds on the text of a task or an event, in characters (Unicode code
// points). Tasks and events share them so a model meets one rule; a value
// over a bound is refused with TooLong's sentence and nothing is stored,
// never cut.
const (
	MaxTitle    = 200
	MaxLocation = 200
	MaxNotes    = 10000
)

// TooLong records on a that argument name holds s of more than most
// characters, with a sentence asking for a shorter what ("title (put
// details in “notes”)", "note"). It does nothing when s fits.
func TooLong(a *args.Args, name, what, s string, most int) {
	if n := utf8.RuneCountInString(s); n > most {
		a.Fail(name, fmt.Sprintf("“%s” may be at most %d characters; this one has %d. Write a shorter %s.", name, most, n, what))
	}
}

// TitleWhat and NotesWhat name what to write instead in TooLong's sentence
// for “title” and “notes”, so tasks and events say the same.
const (
	TitleWhat    = "title (put details in “notes”)"
	LocationWhat = "place (put details in “notes”)"
	NotesWhat    = "note"
)
