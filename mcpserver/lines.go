package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes caps one line of stdio input (the SDK's own cap,
// mcp.DefaultMaxLineLength, 16 MiB). A longer line is answered with an
// Invalid Request error and skipped; the session goes on.
const MaxLineBytes = mcp.DefaultMaxLineLength

// maxNesting is how deep go-sdk v1.8.0 lets a message's objects and arrays
// nest (internal/json's defaultMaxDepth); deeper input makes its stdio
// reader fail, which would end the session, so such a line is answered
// here instead.
const maxNesting = 1000

// lineTransport is the MCP stdio transport (newline-delimited JSON-RPC,
// MCP 2025-06-18 "Transports: stdio") made robust to a bad client:
//
//   - A line that is not JSON gets a Parse error (-32700, id null) and one
//     that is JSON but not a JSON-RPC message an Invalid Request error
//     (-32600, its id when one can be read, else null), as JSON-RPC 2.0 §5.1
//     asks, and the session goes on. go-sdk's own reader ends the session on
//     the first such line and leaves the calls already read unanswered.
//   - When stdin ends, every call already read is answered before the SDK
//     hears of the end (for at most DrainTimeout): `printf '…' | assistant
//     mcp` gets all its answers. The SDK alone cancels those calls and drops
//     their answers.
//
// Good lines reach the SDK's IOTransport unchanged but for the spaces
// around them; our own error answers go through the same locked writer as
// the SDK's messages, each in one Write, so lines never interleave.
//
// Batches (JSON arrays) are checked as a whole and refused whole when any
// member is not a JSON-RPC message, when two calls share an id, or when an
// id is still being answered. The SDK refuses batches once the session
// speaks MCP 2025-06-18 or later, but it learns the version through a hook
// this wrapper cannot pass on, so here batches are served in every
// version: lenient, and never a reason to end the session.
type lineTransport struct {
	r     io.ReadCloser
	w     io.WriteCloser
	log   *slog.Logger
	drain time.Duration // how long the end of input waits for answers; 0: DrainTimeout
	max   int           // the longest line in bytes, without its newline; 0: MaxLineBytes
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &lockedWriter{w: t.w}
	calls := newOpenCalls()
	drain := t.drain
	if drain <= 0 {
		drain = DrainTimeout
	}
	maxLine := t.max
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	in := &lineReader{
		max:    maxLine,
		src:    bufio.NewReaderSize(t.r, 64<<10),
		closer: t.r,
		out:    out,
		calls:  calls,
		drain:  drain,
		log:    t.log,
	}
	// Our reader already caps lines; a second cap in the SDK would count
	// differently and end the session instead of answering.
	inner, err := (&mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &answeringConn{Connection: inner, calls: calls}, nil
}

// lockedWriter serialises whole messages: the SDK writes each message with
// one Write (under its own lock, which our answers do not take).
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// answeringConn is the SDK's connection with the calls it answers struck
// off the open calls.
type answeringConn struct {
	mcp.Connection
	calls *openCalls
}

func (c *answeringConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	// Struck off after the write, so the end of input is passed on only
	// once the answer left (or could not: then nothing more will).
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.calls.answered(r.ID)
	}
	return err
}

func (c *answeringConn) Close() error {
	c.calls.close()
	return c.Connection.Close()
}

// openCalls are the ids of the calls read and not yet answered.
type openCalls struct {
	mu     sync.Mutex
	ids    map[jsonrpc.ID]struct{}
	wake   chan struct{} // a token after each answer
	closed chan struct{}
	once   sync.Once
}

func newOpenCalls() *openCalls {
	return &openCalls{ids: map[jsonrpc.ID]struct{}{}, wake: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (o *openCalls) add(ids []jsonrpc.ID) {
	o.mu.Lock()
	for _, id := range ids {
		o.ids[id] = struct{}{}
	}
	o.mu.Unlock()
}

func (o *openCalls) has(id jsonrpc.ID) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.ids[id]
	return ok
}

func (o *openCalls) answered(id jsonrpc.ID) {
	o.mu.Lock()
	delete(o.ids, id)
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func (o *openCalls) close() { o.once.Do(func() { close(o.closed) }) }

// wait returns once every open call is answered, the connection is closed,
// or limit has passed; it reports how many calls were left unanswered.
func (o *openCalls) wait(limit time.Duration) int {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		o.mu.Lock()
		n := len(o.ids)
		o.mu.Unlock()
		if n == 0 {
			return 0
		}
		select {
		case <-o.wake:
		case <-o.closed:
			return n
		case <-timer.C:
			return n
		}
	}
}

// lineReader hands the SDK's reader one good JSON-RPC line at a time and
// answers the others itself.
type lineReader struct {
	src    *bufio.Reader
	closer io.Closer
	out    io.Writer
	calls  *openCalls
	drain  time.Duration
	max    int
	log    *slog.Logger

	line []byte // the line being read
	msg  []byte // the good line handed on, trimmed, with its newline
	rest []byte // what of msg the SDK has not read yet
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.rest) == 0 {
		line, tooLong, err := l.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if left := l.calls.wait(l.drain); left > 0 {
					l.log.Warn("standard input ended; calls still running will not be answered", "calls", left)
				}
			}
			return 0, err
		}
		if err := l.check(line, tooLong); err != nil {
			return 0, err
		}
	}
	n := copy(p, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

func (l *lineReader) Close() error { return l.closer.Close() }

// next reads one line, without its newline; the last line may lack one. A
// line longer than l.max is read to its end but not kept.
func (l *lineReader) next() (line []byte, tooLong bool, err error) {
	l.line = l.line[:0]
	for {
		chunk, err := l.src.ReadSlice('\n')
		if !tooLong && len(l.line)+len(chunk) > l.max+1 {
			tooLong, l.line = true, l.line[:0]
		}
		if !tooLong {
			l.line = append(l.line, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(l.line) == 0 && !tooLong:
			return nil, false, err
		case err != nil && !errors.Is(err, io.EOF):
			return nil, false, err
		}
		line = bytes.TrimSuffix(l.line, []byte{'\n'})
		return line, tooLong || len(line) > l.max, nil
	}
}

// check hands line on (l.rest) when it is a JSON-RPC message or batch the
// SDK will read without failing, and answers it otherwise. The error is
// one of writing the answer.
func (l *lineReader) check(line []byte, tooLong bool) error {
	msg := bytes.TrimSpace(line)
	switch {
	case tooLong:
		return l.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: the line is longer than %d bytes", l.max), len(line))
	case len(msg) == 0:
		return nil // a blank line carries nothing, as between NDJSON values
	case !json.Valid(msg):
		var v json.RawMessage
		reason := "it is not JSON"
		if err := json.Unmarshal(msg, &v); err != nil {
			reason = err.Error()
		}
		return l.refuse(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON ("+reason+"); send one JSON-RPC message per line", len(line))
	}
	ids, err := l.callIDs(msg)
	if err != nil {
		return l.refuse(idOf(msg), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error(), len(line))
	}
	l.calls.add(ids)
	l.msg = append(append(l.msg[:0], msg...), '\n')
	l.rest = l.msg
	return nil
}

// callIDs checks that msg (valid JSON) is a JSON-RPC message or a batch of
// them, read as go-sdk reads them (jsonrpc.DecodeMessage), and returns the
// ids of its calls.
func (l *lineReader) callIDs(msg []byte) ([]jsonrpc.ID, error) {
	if msg[0] != '[' {
		m, err := jsonrpc.DecodeMessage(msg)
		if err != nil {
			return nil, err
		}
		if r, ok := m.(*jsonrpc.Request); ok && r.ID.IsValid() {
			return []jsonrpc.ID{r.ID}, nil
		}
		return nil, nil
	}
	var members []json.RawMessage
	if err := json.Unmarshal(msg, &members); err != nil {
		return nil, err
	}
	if len(members) == 0 {
		return nil, errors.New("the batch is empty")
	}
	if nesting(msg) > maxNesting {
		return nil, fmt.Errorf("the batch nests deeper than %d levels", maxNesting)
	}
	var ids []jsonrpc.ID
	for i, raw := range members {
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, fmt.Errorf("message %d of the batch: %v", i+1, err)
		}
		r, ok := m.(*jsonrpc.Request)
		if !ok || !r.ID.IsValid() {
			continue
		}
		for _, id := range ids {
			if id == r.ID {
				return nil, fmt.Errorf("two calls of the batch have the id %v", r.ID.Raw())
			}
		}
		if l.calls.has(r.ID) {
			return nil, fmt.Errorf("the id %v of the batch belongs to a call still running", r.ID.Raw())
		}
		ids = append(ids, r.ID)
	}
	return ids, nil
}

// refuse writes a JSON-RPC error response for a line the SDK is not
// given, in one Write.
func (l *lineReader) refuse(id json.RawMessage, code int64, message string, size int) error {
	l.log.Warn("answered a line of standard input that is not a JSON-RPC message", "code", code, "error", message, "bytes", size)
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return err
	}
	_, err = l.out.Write(append(b, '\n'))
	return err
}

// idOf returns the id of msg when it has a usable one (a string or a
// number, JSON-RPC 2.0 §4), else nil, which is written as null (§5).
func idOf(msg []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &probe) != nil || len(probe.ID) == 0 {
		return nil
	}
	if c := probe.ID[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
		return probe.ID
	}
	return nil
}

// nesting returns how deep the objects and arrays of the valid JSON b
// nest.
func nesting(b []byte) int {
	depth, most := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			most = max(most, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return most
}
