package mcpserver

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/tools"
)

// ServeStdio serves reg over stdin and stdout (newline-delimited JSON-RPC,
// the MCP stdio transport) until the client closes stdin or ctx is
// cancelled; every call runs as base (the person the flags or config
// picked). Nothing but the protocol is written to stdout: logs go where
// opts.Logger and the Registry's Log send them, which must not be stdout.
//
// A line that is not a JSON-RPC message is answered with a JSON-RPC error
// and the session goes on; when stdin ends, the calls already read are
// answered first (see lineTransport). A client that goes away (stdin
// closed, stdout a broken pipe) and a cancelled ctx are clean stops and
// return nil. ServeStdio ignores SIGPIPE for the whole process: Go
// otherwise kills a process whose write to stdout meets a closed pipe
// (os/signal, "SIGPIPE"), in the middle of answering.
func ServeStdio(ctx context.Context, reg *tools.Registry, base *tools.ToolContext, opts *Options) error {
	signal.Ignore(syscall.SIGPIPE)
	return serve(ctx, reg, base, opts, &lineTransport{r: os.Stdin, w: nopCloser{os.Stdout}})
}

// ServeIO is ServeStdio over r and w instead of stdin and stdout (a pipe
// pair in tests and benchmarks); it closes both when the session ends.
func ServeIO(ctx context.Context, reg *tools.Registry, base *tools.ToolContext, opts *Options, r io.ReadCloser, w io.WriteCloser) error {
	return serve(ctx, reg, base, opts, &lineTransport{r: r, w: w})
}

func serve(ctx context.Context, reg *tools.Registry, base *tools.ToolContext, opts *Options, t *lineTransport) error {
	o := Fixed(base, opts)
	t.order = newCallOrder()
	t.held = newHeldAnswers()
	o.held = t.held
	t.readOnly = func(name string) bool {
		tool, ok := reg.Get(name)
		return ok && tool.ReadOnly
	}
	o.order = t.order
	srv, err := New(reg, o)
	if err != nil {
		return err
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	t.log = logger
	err = srv.Run(ctx, t)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil
	case errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed):
		return nil
	case clientGone(err):
		logger.Info("the client closed its end of standard output; answers not yet written were dropped", "error", err)
		return nil
	}
	return err
}

// clientGone reports whether err is a write to a client that closed its
// end: a broken pipe, or a pipe already closed.
func clientGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, fs.ErrClosed)
}

// nopCloser keeps stdout open when the session closes its writer: the
// process may still have to write there (nothing does today, but closing
// fd 1 would let a later open reuse it).
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Fixed returns a copy of opts (nil reads as the zero Options) whose
// Context gives every call base, for a server that acts for one person.
func Fixed(base *tools.ToolContext, opts *Options) *Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Context = func(context.Context, *mcp.CallToolRequest) (*tools.ToolContext, error) { return base, nil }
	return &o
}
