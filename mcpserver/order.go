package mcpserver

import (
	"context"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callOrder keeps the tool calls of one stdio session in the order they
// were read, as far as what they see is concerned: a call that changes
// data (a tool without readOnlyHint) starts only once every call read
// before it has finished, and a read-only call starts once every
// changing call read before it has finished; read-only calls in a row run
// together. So a list_tasks written right after an add_task, without
// waiting for its answer, always sees the task. The go-sdk starts every
// call of a session in its own goroutine as soon as it is read, with no
// order between them.
//
// A call takes its place when the transport reads it ([callOrder.enter]),
// before the SDK hands it to a goroutine, and marks it by its
// mcp.RequestExtra, which the SDK passes to the tool handler untouched. Its
// place is given up when its handler returns, when its answer is written
// (a call the SDK answers without running a handler, such as an unknown
// tool), or when the session closes.
type callOrder struct {
	mu        sync.Mutex
	lastWrite *place                       // the latest changing call, or nil
	reads     []*place                     // read-only calls read after lastWrite
	byExtra   map[*mcp.RequestExtra]*place // the calls whose handler has not run
	byID      map[jsonrpc.ID]*place        // the calls not yet answered
	closed    bool
}

// place is one call's place in a callOrder.
type place struct {
	done  chan struct{}
	once  sync.Once
	after []*place // the calls it waits for
	extra *mcp.RequestExtra
}

func (p *place) leave() { p.once.Do(func() { close(p.done) }) }

func (p *place) left() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func newCallOrder() *callOrder {
	return &callOrder{byExtra: map[*mcp.RequestExtra]*place{}, byID: map[jsonrpc.ID]*place{}}
}

// enter gives the tools/call r its place after every call entered before
// it; readOnly tells whether its tool changes nothing. It sets r.Extra
// when the transport left it nil.
func (o *callOrder) enter(r *jsonrpc.Request, readOnly bool) {
	extra, _ := r.Extra.(*mcp.RequestExtra)
	if extra == nil {
		extra = &mcp.RequestExtra{}
		r.Extra = extra
	}
	p := &place{done: make(chan struct{}), extra: extra}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		p.leave()
		return
	}
	o.reads = slices.DeleteFunc(o.reads, (*place).left)
	if o.lastWrite != nil && !o.lastWrite.left() {
		p.after = append(p.after, o.lastWrite)
	}
	if readOnly {
		o.reads = append(o.reads, p)
	} else {
		p.after = append(p.after, o.reads...)
		o.lastWrite, o.reads = p, nil
	}
	o.byExtra[extra] = p
	if r.ID.IsValid() {
		o.byID[r.ID] = p
	}
}

// wait blocks until the calls before the call of extra have finished, or
// ctx is done (its error is returned). The returned func gives up the
// call's place; it must be called when the call ends. A call that took no
// place (not read by this session's transport) waits for nothing.
func (o *callOrder) wait(ctx context.Context, extra *mcp.RequestExtra) (func(), error) {
	if o == nil || extra == nil {
		return func() {}, nil
	}
	o.mu.Lock()
	p := o.byExtra[extra]
	delete(o.byExtra, extra)
	o.mu.Unlock()
	if p == nil {
		return func() {}, nil
	}
	for _, q := range p.after {
		select {
		case <-q.done:
		case <-ctx.Done():
			p.leave()
			return func() {}, ctx.Err()
		}
	}
	return p.leave, nil
}

// answered gives up the place of the call with id, once its answer is
// written.
func (o *callOrder) answered(id jsonrpc.ID) {
	o.mu.Lock()
	p := o.byID[id]
	delete(o.byID, id)
	if p != nil {
		delete(o.byExtra, p.extra)
	}
	o.mu.Unlock()
	if p != nil {
		p.leave()
	}
}

// close gives up every place: nothing will be answered any more.
func (o *callOrder) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	for _, p := range o.byID {
		p.leave()
	}
	for _, p := range o.byExtra {
		p.leave()
	}
	clear(o.byID)
	clear(o.byExtra)
}
