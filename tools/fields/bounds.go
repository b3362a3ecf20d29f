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
	// MaxQuery bounds the search text of list_tasks and list_events.
	MaxQuery = 200
	// MaxKey bounds an idempotency key (“key” of add_task, add_event).
	MaxKey = 200
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

// FitNotes returns notes whole when they take at most room bytes; else
// their first part, cut at a line break or space near the end of room when
// there is one, and a sentence saying how many characters were left out.
// The stored notes are never cut, and the answer's Data holds them whole:
// a notes field of MaxNotes 4-byte characters is 40 KB, more than a model
// turn (tools.ModelLimit), so the text shows what fits instead of spilling.
func FitNotes(notes string, room int) string {
	if len(notes) <= room {
		return notes
	}
	room = max(room, 0)
	cut := room
	for cut > 0 && !utf8.RuneStart(notes[cut]) {
		cut--
	}
	head := notes[:cut]
	if i := lastBreak(head); i >= len(head)-200 && i > 0 {
		head = head[:i]
	}
	rest := utf8.RuneCountInString(notes) - utf8.RuneCountInString(head)
	return head + fmt.Sprintf("\n[%d more characters of these notes do not fit in one answer; they are kept as written.]", rest)
}

func lastBreak(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' || s[i] == ' ' {
			return i
		}
	}
	return -1
}

// NotesPreview is how many characters of notes a list's Data carries for
// each item; get_task and get_event give them whole.
const NotesPreview = 100

// Preview returns the first NotesPreview characters of notes, cut at a
// space or line break near the end when there is one, and whether more
// follows.
func Preview(notes string) (head string, more bool) {
	if utf8.RuneCountInString(notes) <= NotesPreview {
		return notes, false
	}
	n, cut := 0, len(notes)
	for i := range notes {
		if n == NotesPreview {
			cut = i
			break
		}
		n++
	}
	head = notes[:cut]
	if i := lastBreak(head); i >= len(head)-30 && i > 0 {
		head = head[:i]
	}
	return head, true
}
