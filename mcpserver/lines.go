package mcpserver

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes caps one line of stdio input (the SDK's own cap,
// mcp.DefaultMaxLineLength, 16 MiB). A longer line is answered with an
// Invalid Request error and skipped; the session goes on.
const MaxLineBytes = mcp.DefaultMaxLineLength

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
// It is its own mcp.Connection rather than a filter in front of the SDK's
// IOTransport: each line is decoded once, by jsonrpc.DecodeMessage as the
// SDK decodes, and the message itself is handed on, where the filter had
// the SDK decode the same bytes again (go-sdk v1.8.0's decoder takes a
// fresh 32 KiB buffer for every value it reads). Messages are written as
// IOTransport writes them (jsonrpc.EncodeMessage and a newline, one Write
// each); our error answers go through the same locked writer, so lines
// never interleave.
//
// Batches (JSON arrays) are checked as a whole and refused whole when any
// member is not a JSON-RPC message, when two calls share an id, or when an
// id is still being answered; the answers to a batch's calls are written
// together as one array once the last is ready (JSON-RPC 2.0 §6), as
// IOTransport does. Two differences from IOTransport (go-sdk v1.8.0,
// ioConn.Read): notifications in a batch are not waited for (IOTransport
// waits for an answer to them that never comes, so such a batch is never
// answered), and batches are served in every protocol version.
// IOTransport refuses them from MCP 2025-06-18 on, by ending the session,
// but learns the version through an unexported hook
// (serverConnection.sessionUpdated) that a connection outside the SDK
// cannot implement: lenient, and never a reason to end the session.
type lineTransport struct {
	r     io.ReadCloser
	w     io.WriteCloser
	log   *slog.Logger
	drain time.Duration // how long the end of input waits for answers; 0: DrainTimeout
	max   int           // the longest line in bytes, without its newline; 0: MaxLineBytes

	// readOnly tells whether the tool of a tools/call changes nothing;
	// with order, the session's calls keep their order (see callOrder).
	// serve sets both; nil runs calls as the SDK does, all at once.
	readOnly func(tool string) bool
	order    *callOrder
	// held are the answers this transport encodes itself (see
	// heldAnswers); serve sets it.
	held *heldAnswers
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
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
	log := t.log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &lineConn{
		in: &lineReader{
			max:   maxLine,
			src:   bufio.NewReaderSize(t.r, 64<<10),
			out:   out,
			calls: calls,
			drain: drain,
			log:   log,
		},
		r:        t.r,
		out:      out,
		readOnly: t.readOnly,
		order:    t.order,
		held:     t.held,
		calls:    calls,
		incoming: make(chan lineMsgs),
		closed:   make(chan struct{}),
	}
	// Reading happens in its own goroutine so that Close can end a Read
	// blocked on stdin, which mcp.Connection asks for (and IOTransport
	// does the same); it leaks when closing r does not end r.Read.
	go c.readLoop()
	return c, nil
}

// lockedWriter serialises whole messages: every message and every error
// answer is one Write.
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

// lineMsgs is what one good line carried (one message, or a batch's), or
// the error that ended reading.
type lineMsgs struct {
	msgs []jsonrpc.Message
	err  error
}

// lineConn is the mcp.Connection of a lineTransport.
type lineConn struct {
	in       *lineReader // used by readLoop alone
	r        io.Closer
	out      *lockedWriter
	calls    *openCalls
	incoming chan lineMsgs
	queue    []jsonrpc.Message // the rest of the last batch; the SDK reads from one goroutine
	readOnly func(tool string) bool
	order    *callOrder
	held     *heldAnswers

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

func (c *lineConn) readLoop() {
	for {
		msgs, err := c.in.read()
		select {
		case c.incoming <- lineMsgs{msgs, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements mcp.Connection: the next message of the input, io.EOF
// once it ended (and the calls read were answered) or the connection was
// closed, or the error that stopped reading.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return c.enter(m), nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case v := <-c.incoming:
		if v.err != nil {
			return nil, v.err
		}
		c.queue = v.msgs[1:]
		return c.enter(v.msgs[0]), nil
	}
}

// enter gives a tools/call its place in the session's order as it is
// handed to the SDK, which reads from one goroutine, in input order.
func (c *lineConn) enter(m jsonrpc.Message) jsonrpc.Message {
	r, ok := m.(*jsonrpc.Request)
	if !ok || c.order == nil || r.Method != "tools/call" || !r.IsCall() {
		return m
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(r.Params, &p) // checked by badParams when read
	c.order.enter(r, c.readOnly != nil && c.readOnly(p.Name))
	return m
}

// Write implements mcp.Connection. An answer to a call of a batch is held
// until the batch's last answer, and then all are written as one array.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	r, isAnswer := msg.(*jsonrpc.Response)
	var held splicedResult
	if isAnswer && r.Error == nil {
		// An answer held for this transport (see heldAnswers), taken
		// first so that it is forgotten even when it is not written.
		held, _ = c.held.take(r.Result)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !isAnswer {
		return c.write(msg)
	}
	if c.order != nil {
		defer c.order.answered(r.ID)
	}
	if held.CallToolResult != nil {
		// Its result is written here, in place of the SDK's token.
		result, err := held.encode()
		if err != nil {
			c.calls.answered(r.ID)
			return fmt.Errorf("encoding an answer: %w", err)
		}
		r = &jsonrpc.Response{ID: r.ID, Result: result, Extra: r.Extra}
		msg = r
	}
	if r.Error != nil {
		// The SDK words some errors in its decoder's terms; the client
		// gets the code and a sentence of ours.
		r = &jsonrpc.Response{ID: r.ID, Error: errorFor(r.Error), Extra: r.Extra}
		msg = r
	}
	batch, inBatch := c.calls.collect(r)
	if !inBatch {
		err := c.write(msg)
		// Struck off after the write, so the end of input is passed on
		// only once the answer left (or could not: then nothing more will).
		c.calls.answered(r.ID)
		return err
	}
	if batch == nil {
		return nil
	}
	data := []byte{'['}
	for i, m := range batch {
		if i > 0 {
			data = append(data, ',')
		}
		var err error
		if data, err = appendMessage(data, m); err != nil {
			return fmt.Errorf("encoding an answer of a batch: %w", err)
		}
	}
	_, err := c.out.Write(append(data, ']', '\n'))
	for _, m := range batch {
		c.calls.answered(m.ID)
	}
	return err
}

func (c *lineConn) write(msg jsonrpc.Message) error {
	data, err := appendMessage(nil, msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

// appendMessage appends msg to b as jsonrpc.EncodeMessage writes it. An
// answer's result is the SDK's own encoding of it (compact JSON, made by
// encoding/json in jsonrpc2.NewResponse), so it is copied in as it is:
// EncodeMessage would scan it once more only to copy it unchanged, which
// for a page of 50 tasks (about 19 kB) cost more than the page's SQL.
func appendMessage(b []byte, msg jsonrpc.Message) ([]byte, error) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error != nil || len(r.Result) == 0 {
		data, err := jsonrpc.EncodeMessage(msg)
		return append(b, data...), err
	}
	// {"jsonrpc":"2.0","id":7}: the frame without its result, whose
	// field comes last (jsonrpc2's wireCombined)
	head, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: r.ID})
	if err != nil || len(head) == 0 || head[len(head)-1] != '}' {
		data, err := jsonrpc.EncodeMessage(msg)
		return append(b, data...), err
	}
	b = slices.Grow(b, len(head)+len(r.Result)+len(`,"result":}`)+1)
	b = append(b, head[:len(head)-1]...)
	b = append(b, `,"result":`...)
	b = append(b, r.Result...)
	return append(b, '}'), nil
}

// Close implements mcp.Connection: it closes both ends, once, and stops
// the wait for open calls at the end of input.
func (c *lineConn) Close() error {
	c.calls.close()
	c.held.close()
	if c.order != nil {
		c.order.close()
	}
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.r.Close(), c.out.Close())
		close(c.closed)
	})
	return c.closeErr
}

// SessionID implements mcp.Connection; stdio has no sessions.
func (c *lineConn) SessionID() string { return "" }

// openCalls are the ids of the calls read and not yet answered, and the
// batches among them still waiting for answers.
type openCalls struct {
	mu      sync.Mutex
	ids     map[jsonrpc.ID]struct{}
	batches map[jsonrpc.ID]*callBatch
	wake    chan struct{} // a token after each answer
	closed  chan struct{}
	once    sync.Once
}

// callBatch gathers the answers to the calls of one batch, in the order
// of the calls.
type callBatch struct {
	at      map[jsonrpc.ID]int // the place of each call not yet answered
	answers []*jsonrpc.Response
}

func newOpenCalls() *openCalls {
	return &openCalls{
		ids:     map[jsonrpc.ID]struct{}{},
		batches: map[jsonrpc.ID]*callBatch{},
		wake:    make(chan struct{}, 1),
		closed:  make(chan struct{}),
	}
}

// add records the calls of one line; those of a batch are answered
// together.
func (o *openCalls) add(ids []jsonrpc.ID, batch bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, id := range ids {
		o.ids[id] = struct{}{}
	}
	if !batch || len(ids) == 0 {
		return
	}
	b := &callBatch{at: make(map[jsonrpc.ID]int, len(ids)), answers: make([]*jsonrpc.Response, len(ids))}
	for i, id := range ids {
		b.at[id] = i
		o.batches[id] = b
	}
}

func (o *openCalls) has(id jsonrpc.ID) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.ids[id]
	return ok
}

// collect files r with its batch. inBatch is false when r answers no call
// of a batch; all is the batch's answers once r is its last, else nil.
func (o *openCalls) collect(r *jsonrpc.Response) (all []*jsonrpc.Response, inBatch bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b, ok := o.batches[r.ID]
	if !ok {
		return nil, false
	}
	delete(o.batches, r.ID)
	b.answers[b.at[r.ID]] = r
	delete(b.at, r.ID)
	if len(b.at) > 0 {
		return nil, true
	}
	return b.answers, true
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

// lineReader reads the input line by line, decodes each good line into
// its messages and answers the others itself.
type lineReader struct {
	src   *bufio.Reader
	out   io.Writer
	calls *openCalls
	drain time.Duration
	max   int
	log   *slog.Logger

	line []byte // the line being read, reused: decoded messages do not alias it
}

// read returns the messages of the next good line. At the end of input it
// first waits for the calls read to be answered, then returns io.EOF; any
// other error is one of reading, or of writing an error answer.
func (l *lineReader) read() ([]jsonrpc.Message, error) {
	for {
		line, tooLong, err := l.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if left := l.calls.wait(l.drain); left > 0 {
					l.log.Warn("standard input ended; calls still running will not be answered", "calls", left)
				}
			}
			return nil, err
		}
		msgs, err := l.decode(line, tooLong)
		if err != nil || len(msgs) > 0 {
			return msgs, err
		}
	}
}

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

// decode returns the messages of line, a JSON-RPC message or a batch of
// them, and records the calls among them as open. It answers any other
// line itself and returns no messages; the error is one of writing that
// answer.
func (l *lineReader) decode(line []byte, tooLong bool) ([]jsonrpc.Message, error) {
	msg := bytes.TrimSpace(line)
	switch {
	case tooLong:
		return nil, l.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf(prefixInvalidRequest+"the line is longer than %d bytes; send a shorter message.", l.max), len(line))
	case len(msg) == 0:
		return nil, nil // a blank line carries nothing, as between NDJSON values
	case !json.Valid(msg):
		// jsonrpc.DecodeMessage reads the first value and ignores what
		// follows, so a line with more after its message is caught here.
		return nil, l.refuse(nil, jsonrpc.CodeParseError, parseError(msg), len(line))
	}
	var (
		msgs   []jsonrpc.Message
		ids    []jsonrpc.ID
		reason string // why the line is refused: a sentence of ours
	)
	if msg[0] == '[' {
		msgs, ids, reason = l.batch(msg)
	} else if m, err := jsonrpc.DecodeMessage(msg); err != nil {
		reason = invalidRequest(msg)
	} else if bad := badID(msg); bad != "" {
		reason = bad
	} else if bad := notMCP(m); bad != "" {
		reason = bad
	} else {
		msgs = []jsonrpc.Message{m}
		if r, ok := m.(*jsonrpc.Request); ok && r.ID.IsValid() {
			ids = []jsonrpc.ID{r.ID}
			if bad := badParams(r); bad != "" {
				return nil, l.refuse(idOf(msg), jsonrpc.CodeInvalidParams, bad, len(line))
			}
		}
	}
	if reason != "" {
		return nil, l.refuse(idOf(msg), jsonrpc.CodeInvalidRequest, reason, len(line))
	}
	l.calls.add(ids, msg[0] == '[')
	return msgs, nil
}

// batch decodes the members of the batch msg (a valid JSON array) as
// go-sdk decodes messages (jsonrpc.DecodeMessage) and returns them with
// the ids of its calls, or the sentence of an Invalid Request error that
// refuses the whole batch.
func (l *lineReader) batch(msg []byte) ([]jsonrpc.Message, []jsonrpc.ID, string) {
	var members []json.RawMessage
	if json.Unmarshal(msg, &members) != nil || len(members) == 0 {
		return nil, nil, prefixInvalidRequest + "the batch is empty; send at least one message in it."
	}
	msgs := make([]jsonrpc.Message, 0, len(members))
	var ids []jsonrpc.ID
	for i, raw := range members {
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, nil, fmt.Sprintf("%smessage %d of the batch: %s", prefixInvalidRequest, i+1, strings.TrimPrefix(invalidRequest(raw), prefixInvalidRequest))
		}
		if bad := cmp.Or(badID(raw), notMCP(m)); bad != "" {
			return nil, nil, fmt.Sprintf("%smessage %d of the batch: %s", prefixInvalidRequest, i+1, strings.TrimPrefix(bad, prefixInvalidRequest))
		}
		r, ok := m.(*jsonrpc.Request)
		if ok {
			if bad := badParams(r); bad != "" {
				return nil, nil, fmt.Sprintf("%smessage %d of the batch: %s", prefixInvalidRequest, i+1, strings.TrimPrefix(bad, prefixParams))
			}
		}
		msgs = append(msgs, m)
		if !ok || !r.ID.IsValid() {
			continue
		}
		if slices.Contains(ids, r.ID) {
			return nil, nil, fmt.Sprintf("%stwo calls of the batch have the id %v; give each call its own id.", prefixInvalidRequest, r.ID.Raw())
		}
		if l.calls.has(r.ID) {
			return nil, nil, fmt.Sprintf("%sthe id %v of the batch belongs to a call still running; give each call its own id.", prefixInvalidRequest, r.ID.Raw())
		}
		ids = append(ids, r.ID)
	}
	return msgs, ids, ""
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
	id := rawID(msg)
	if len(id) > 0 && id[0] == '"' && !utf8.Valid(id) {
		return nil // echoed, it would make the answer no JSON (RFC 8259 §8.1)
	}
	return id
}

// rawID is the id of msg as written, a string or a number, nil for
// anything else; its bytes may not be UTF-8 (badID refuses those).
func rawID(msg []byte) json.RawMessage {
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
