package events

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/assistant-dev/assistant/calendar"
)

// The event aggregate is calendar's; the store reads and writes it.
type (
	event     = calendar.Event
	override  = calendar.Override
	prevStart = calendar.PrevStart
)

func label(id int64) string { return calendar.Label(id) }

// newUID makes an RFC 5545 UID (§3.8.4.7): globally unique, opaque.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + "@assistant"
}
