package mcpserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
)

// heldAnswers are the tools/call answers of one stdio session that its
// transport encodes itself, as it writes them. The SDK encodes an answer
// with encoding/json, which reads the bytes of a json.Marshaler once more
// to compact them: for a list_tasks page of 50 (about 19 kB, already compact)
// that read and its copies cost about as much as the client's read of the
// whole line. A held answer gives the SDK a token to encode instead
// (heldToken: a small object no real result can be), and lineConn.Write
// puts the answer itself where the token is (splicedResult.encode), byte
// for byte what the SDK would have written: the SDK's own changes to the
// result after the handler (_meta, the result type) are made on the same
// CallToolResult before the answer is written.
//
// Tokens are numbered, never by the call's id, so an answer cannot go
// out under another call's id even when a client reuses an id early.
// Only the stdio transport sets one up: over HTTP the SDK writes answers,
// and none is held.
type heldAnswers struct {
	mu      sync.Mutex
	last    uint64
	answers map[uint64]splicedResult // held, not yet written
}

func newHeldAnswers() *heldAnswers {
	return &heldAnswers{answers: map[uint64]splicedResult{}}
}

// heldPrefix starts every token: a key no MCP result has (a NUL, escaped).
const heldPrefix = `{"\u0000held":`

// heldToken is what the SDK encodes for the held answer n, without its
// closing brace.
func heldToken(n uint64) []byte {
	return strconv.AppendUint([]byte(heldPrefix), n, 10)
}

// hold keeps r and returns it marked with its token.
func (h *heldAnswers) hold(r splicedResult) splicedResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last++
	r.held = h.last
	h.answers[h.last] = r
	return r
}

// take returns the answer whose token result is, and forgets it; false
// when result is no token of h.
func (h *heldAnswers) take(result json.RawMessage) (splicedResult, bool) {
	if h == nil || len(result) > len(heldPrefix)+21 || !bytes.HasPrefix(result, []byte(heldPrefix)) || result[len(result)-1] != '}' {
		return splicedResult{}, false
	}
	n, err := strconv.ParseUint(string(result[len(heldPrefix):len(result)-1]), 10, 64)
	if err != nil {
		return splicedResult{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.answers[n]
	delete(h.answers, n)
	return r, ok
}

// pending is how many answers h still holds.
func (h *heldAnswers) pending() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.answers)
}

// close forgets every answer: nothing more will be written.
func (h *heldAnswers) close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.answers)
}
