// Package fields forwards, for the branches that still import it, to what
// moved into package tools: the argument readers (ReadWindow,
// ReadReminders, ReadCursor), the idempotency helpers (Fingerprint,
// KeyProp) and the schema properties the task and event tools share. New
// code imports tools; this package goes once no one imports it.
package fields

import (
	"github.com/assistant-dev/assistant/tools"
)

// Window is [tools.Window].
type Window = tools.Window

// DefaultDays is [tools.DefaultDays].
const DefaultDays = tools.DefaultDays

// The readers, now in package tools.
var (
	ReadWindow    = tools.ReadWindow
	ReadReminders = tools.ReadReminders
	ReadCursor    = tools.ReadCursor
	NextCursor    = tools.NextCursor
	Fingerprint   = tools.Fingerprint
	LimitProp     = tools.LimitProp
	OffRule       = tools.OffRule
	TooLong       = tools.TooLong
)

// The shared schema properties, now in package tools.
var (
	FromProp           = tools.FromProp
	ToProp             = tools.ToProp
	CursorProp         = tools.CursorProp
	RemindBeforeProp   = tools.RemindBeforeProp
	RemindAtProp       = tools.RemindAtProp
	KeyProp            = tools.KeyProp
	AllowDuplicateProp = tools.AllowDuplicateProp
)

// The bounds' words and the notes' room, now in package tools.
const (
	TitleWhat    = tools.TitleWhat
	LocationWhat = tools.LocationWhat
	NotesWhat    = tools.NotesWhat
	AnswerRoom   = tools.AnswerRoom
)
