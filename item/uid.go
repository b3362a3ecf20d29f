package item

import (
	"crypto/rand"
	"encoding/hex"
)

// NewUID makes the UID of an event or a task the tools add: 32 random
// hexadecimal digits and "@assistant", globally unique and opaque, as RFC
// 5545 §3.8.4.7 asks, so two databases' items never share one (a client
// that syncs both, or a file of one imported into the other, tells them
// apart).
func NewUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + "@assistant"
}
