package events

import (
	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/item"
)

// The event aggregate is calendar's; the store reads and writes it.
type (
	event     = calendar.Event
	override  = calendar.Override
	prevStart = calendar.PrevStart
)

func label(id int64) string { return calendar.Label(id) }

// newUID makes an event's UID ([item.NewUID]).
func newUID() string { return item.NewUID() }
