package fields

import (
	"fmt"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
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

// AnswerRoom is how many bytes of a one-item answer (get_task, get_event,
// and the answers of writes that show the item whole) the text around the
// notes may leave to them: the notes get what is left of tools.ModelLimit
// after the other lines and this reserve, kept for the lines a write adds
// (warnings, notes on the rule) and the sentence that says they were cut.
const AnswerRoom = 2048
