package mcpserver

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/tools"
)

// ServeStdio serves reg over stdin and stdout (newline-delimited JSON-RPC,
// the MCP stdio transport) until the client closes stdin or ctx is
// cancelled; every call runs as base (the person the flags or config
// picked). Nothing but the protocol is written to stdout: logs go where
// opts.Logger and the Registry's Log send them, which must not be stdout.
// A cancelled ctx is a clean stop and returns nil.
func ServeStdio(ctx context.Context, reg *tools.Registry, base *tools.ToolContext, opts *Options) error {
	return serve(ctx, reg, base, opts, &mcp.StdioTransport{})
}

// ServeIO is ServeStdio over r and w instead of stdin and stdout (a pipe
// pair in tests and benchmarks).
func ServeIO(ctx context.Context, reg *tools.Registry, base *tools.ToolContext, opts *Options, r io.ReadCloser, w io.WriteCloser) error {
	return serve(ctx, reg, base, opts, &mcp.IOTransport{Reader: r, Writer: w})
}

func serve(ctx context.Context, reg *tools.Registry, base *tools.ToolContext, opts *Options, t mcp.Transport) error {
	srv, err := New(reg, Fixed(base, opts))
	if err != nil {
		return err
	}
	err = srv.Run(ctx, t)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

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
