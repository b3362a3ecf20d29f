// Package fields forwards, for the branches that still import it, to what
// moved into package tools: the argument readers (ReadWindow,
// ReadReminders, ReadCursor), the idempotency helpers (Fingerprint,
// KeyProp) and the schema properties the task and event tools share. New
// code imports tools; this package goes once no one imports it. Only the
// SkipPast hook (set by package remind) still lives here.
package fields

import (
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
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

// SkipPastReminders records as skipped, in tx, the reminders of the task
// or event label ("t12", "e7") whose time was already past at now when the
// item took its present form, and returns their instants for the answer
// to name (see [item.PastReminders]). Package remind sets it when it is linked
// in (remind.SkipPast), since remind reads the tools' tables and so
// cannot be imported by them; while it is nil, nothing is recorded.
var SkipPastReminders func(tx *store.Tx, label string, zone tz.Zone, now time.Time) ([]time.Time, error)

// SkipPast calls [SkipPastReminders] when it is set.
func SkipPast(tx *store.Tx, label string, zone tz.Zone, now time.Time) ([]time.Time, error) {
	if SkipPastReminders == nil {
		return nil, nil
	}
	return SkipPastReminders(tx, label, zone, now)
}
