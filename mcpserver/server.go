// Package mcpserver serves the tools of a [tools.Registry] to MCP clients
// (docs/design.md, "Fronts"; docs/mcp.md) with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): over stdio for desktop clients
// and over streamable HTTP with bearer tokens mapped to people.
//
// Every tool is registered raw (mcp.Server.AddTool with the registry's own
// JSON Schema), so the arguments reach args.Args exactly as the client sent
// them: "15" for an integer and "true" for a flag are read there, as in
// chat, instead of being refused by the SDK's validator. A tool's
// ExecResult becomes a CallToolResult: a failure is a result with isError
// and the sentence as text, never a JSON-RPC error; Data becomes
// structuredContent.
//
// The package does not know the store: the host hands in the ToolContext
// (the person, the clock, the store) for stdio, or an Authenticator that
// turns a bearer token into one for HTTP.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/tools"
)

// Name is the server name sent in the MCP initialize result (serverInfo).
const Name = "assistant"

// Instructions is the server's "instructions" text: how a model should use
// the tools, sent once at initialization. MCP has no system prompt, so the
// rules every tool follows (tools.Conventions) are said here, once, as the
// chat says them in its system prompt, rather than in every description.
// A server without current_time or undo leaves out the line that names it
// (see instructionsFor), so the text never sends a model to a tool it
// cannot call.
var Instructions = instructionsFor(nil)

// instructionLines are the parts of Instructions, each with the tool it
// names ("" for none); one that starts with a space goes on the line
// before it.
var instructionLines = []struct{ text, tool string }{
	{"These tools keep one person's tasks and calendar.", ""},
	{" current_time gives the person's date, time and time zone now.", "current_time"},
	{tools.Conventions("2026-12-02"), ""},
	{"- Every change can be undone with undo and the change id of its answer.", "undo"},
}

// ContextFunc gives the ToolContext one call runs with: the person, the
// clock and the store. An error, or a nil context, refuses the call with a
// JSON-RPC error and runs nothing.
type ContextFunc func(ctx context.Context, req *mcp.CallToolRequest) (*tools.ToolContext, error)

// Options configures a server. The zero value serves every tool.
type Options struct {
	// ReadOnly serves only the tools whose Tool.ReadOnly is set
	// (`assistant mcp --read-only`); with Tools, the tools of both.
	ReadOnly bool
	// Tools, when not empty, serves only the tools these names choose, in
	// the registry's order: tool names, "all" or "read-only", read by
	// [tools.Registry.Select]. A name that is none of these, or a writing
	// tool named together with ReadOnly, is an error. (`assistant mcp
	// --tools`, which also takes the catalog's groups, chooses with
	// catalog.Select and hands New the tools chosen.)
	Tools []string
	// Context gives each call its ToolContext. ServeStdio and HTTPHandler
	// set it themselves; New without it refuses every call.
	Context ContextFunc
	// Version is the serverInfo version; empty uses the binary's module
	// version, or "dev".
	Version string
	// Limit is the spill limit in bytes of text per result; zero means
	// tools.ModelLimit (16 KiB).
	Limit int
	// Logger receives the SDK's and the HTTP front's log; nil discards it.
	// Tool failures are logged by the Registry (Registry.Log).
	Logger *slog.Logger
	// MaxBodyBytes caps an HTTP request body (413 above it); zero means
	// DefaultMaxBodyBytes. Not used over stdio.
	MaxBodyBytes int64
	// MaxConcurrent caps the HTTP requests one bearer token may have open
	// at once (429 with Retry-After past it); zero means
	// DefaultMaxConcurrent. Not used over stdio.
	MaxConcurrent int
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose
	// requests are served over HTTP besides loopback ones; a request with
	// any other Origin header gets 403. Not used over stdio.
	AllowedOrigins []string

	// order keeps a stdio session's calls in order (see callOrder), and
	// held lets its transport write the answers it can encode itself (see
	// heldAnswers); both set by serve.
	order *callOrder
	held  *heldAnswers
}

// errNoContext refuses a call when the host gave no ToolContext.
var errNoContext = errors.New("mcpserver: no tool context for this call (the host must set Options.Context)")

// New returns an MCP server named "assistant" that serves the tools of reg
// chosen by opts (all of them by default), each registered raw with its
// Schema.JSON as inputSchema, its Title, and annotations from
// Tool.ReadOnly, Destructive and Idempotent (openWorldHint false: the tools
// touch only the person's own store), and the tool's Output as
// outputSchema, which a success's structuredContent follows (a failure
// has none: MCP clients check structuredContent only when isError is not
// set).
//
// The error is [tools.Registry.Select]'s sentence: a name in opts.Tools
// that is no tool or group, or a writing tool asked for with
// opts.ReadOnly.
func New(reg *tools.Registry, opts *Options) (*mcp.Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	served, err := reg.Select(o.Tools, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Tasks and calendar", Version: version(o.Version)},
		&mcp.ServerOptions{
			Instructions: instructionsFor(served),
			Logger:       o.Logger,
			// No logging capability and no list-changed notices: the tool
			// set is fixed for the life of the server, and a client that
			// subscribes to changes would hold a stream open for nothing.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		})
	limit := o.Limit
	if limit <= 0 {
		limit = tools.ModelLimit
	}
	getContext := o.Context
	if getContext == nil {
		getContext = func(context.Context, *mcp.CallToolRequest) (*tools.ToolContext, error) { return nil, errNoContext }
	}
	srv.AddReceivingMiddleware(protocolErrors(served, o.held))
	for _, t := range served.Tools() {
		srv.AddTool(Tool(t), handler(served, t.Name, getContext, limit, o.order))
	}
	return srv, nil
}

// Tool returns the MCP form of t: name, title, description, inputSchema
// (exactly t.Schema.JSON()), outputSchema (t.Output, when declared) and
// annotations. Every hint is written out, so
// a client never falls back to the MCP defaults (destructive, open world).
func Tool(t tools.Tool) *mcp.Tool {
	destructive, openWorld := t.Destructive, false
	var output any
	if len(t.Output) > 0 {
		output = t.Output
	}
	return &mcp.Tool{
		OutputSchema: output,
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  t.Schema.JSON(),
		Annotations: &mcp.ToolAnnotations{
			Title:           t.Title,
			ReadOnlyHint:    t.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}
}

func handler(reg *tools.Registry, name string, getContext ContextFunc, limit int, order *callOrder) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if rc := requestContext(req); rc != nil {
			// Over HTTP the call ends when its request does: the client
			// went away, or the server is shutting down.
			var cancel context.CancelCauseFunc
			ctx, cancel = context.WithCancelCause(ctx)
			stop := context.AfterFunc(rc, func() { cancel(context.Cause(rc)) })
			defer stop()
			defer cancel(nil)
		}
		done, err := order.wait(ctx, req.Extra)
		defer done()
		if err != nil {
			res, _ := reg.Call(ctx, nil, name, nil) // a done ctx: the Registry words it
			return Result(res, limit), nil
		}
		tc, err := getContext(ctx, req)
		if err != nil {
			return nil, err
		}
		if tc == nil {
			return nil, errNoContext
		}
		var raw []byte
		if req.Params != nil {
			raw = arguments(req.Params.Arguments)
		}
		res, _ := reg.Call(ctx, tc, name, raw)
		return Result(res, limit), nil
	}
}

// arguments returns the "arguments" of a tools/call as the Registry reads
// them: a JSON string is read for the text it holds, as chat reads the
// arguments of an OpenAI tool call, so "" (and null, or none) is {} and
// "{\"n\":1}" is {"n":1}; anything else is passed on as it is.
func arguments(raw json.RawMessage) []byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '"' {
		return raw
	}
	var s string
	if json.Unmarshal(t, &s) != nil {
		return raw
	}
	return []byte(s)
}

// Result renders r as a CallToolResult, cut to limit bytes of text
// (tools.ModelLimit when limit ≤ 0) by ExecResult.Spill:
//   - a failure is isError with the sentence as its one text content;
//   - a success (a spilled one too: isError follows OriginalCode)
//     has its text as content and Data as structuredContent, kept whole. The
//     MCP schema (2025-06-18, "structuredContent") wants an object there, so
//     any other JSON value is wrapped as {"result": value}.
func Result(r tools.ExecResult, limit int) *mcp.CallToolResult {
	if limit <= 0 {
		limit = tools.ModelLimit
	}
	r = r.Spill(limit)
	out := &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: r.TextOut()}},
		IsError: !r.OK(),
	}
	switch {
	case r.OK() && r.DataMarshaled() && r.Data[0] == '{':
		out.StructuredContent = marshaledJSON(r.Data)
	case r.OK() && r.DataValid():
		out.StructuredContent = structured(r.Data)
	}
	return out
}

// marshaledJSON is structuredContent that json.Marshal wrote (see
// tools.ExecResult.DataMarshaled): encoding/json writes it back as a
// json.RawMessage, and a tools/call answer holding it is written by
// splicedResult, which copies it in without reading it again.
type marshaledJSON []byte

// MarshalJSON implements json.Marshaler: m as it is.
func (m marshaledJSON) MarshalJSON() ([]byte, error) { return m, nil }

// splicedResult is a tools/call answer whose structuredContent is
// marshaledJSON; protocolErrors hands it to the SDK in place of the
// CallToolResult, whose methods it has (the SDK still sets _meta and
// the result type on it after the handler).
type splicedResult struct {
	*mcp.CallToolResult
	// held, when not 0, numbers the answer its stdio transport writes
	// itself (see heldAnswers): the SDK is given heldToken(held) to encode.
	held uint64
}

// structuredPlaceholder stands for structuredContent while the rest of
// the answer is encoded: `"structuredContent":0` cannot occur inside a
// JSON string, whose quotes are escaped.
var structuredPlaceholder = []byte(`"structuredContent":0`)

// MarshalJSON writes r as the SDK's CallToolResult.MarshalJSON does, but
// encodes only the small part (the text, _meta, isError) and copies the
// structured content in as it is: the SDK's encoding read the 20 kB of a
// list page's structured content once more only to copy it unchanged,
// which the SDK's framing then reads again (a page of 50 tasks cost more
// to encode than to read from SQLite). An answer in any other shape is
// left to the SDK's own encoding. A held answer is its token here: its
// transport writes it with encode.
func (r splicedResult) MarshalJSON() ([]byte, error) {
	if r.held != 0 {
		return append(heldToken(r.held), '}'), nil
	}
	return r.encode()
}

// textPlaceholder stands for the text of a result's one text content
// while the rest of the answer is encoded: a text of one NUL, which
// encoding/json writes as \u0000, so `"text":"\u0000"` cannot occur
// inside another JSON string, whose quotes are escaped.
var textPlaceholder = []byte(`"text":"\u0000"`)

// encode writes r as MarshalJSON says. The text of an answer's one plain
// text content (no _meta, no annotations) is encoded here too, once
// (json.Marshal of the string, as TextContent.MarshalJSON encodes it):
// through the SDK, the 5 kB of a list page's text were encoded by
// TextContent.MarshalJSON and then read again by the encoder of the
// result that holds it, only to be copied unchanged.
func (r splicedResult) encode() ([]byte, error) {
	data, ok := r.StructuredContent.(marshaledJSON)
	if !ok {
		return r.CallToolResult.MarshalJSON()
	}
	c := *r.CallToolResult
	c.StructuredContent = json.RawMessage(`0`)
	var text []byte
	if tc, ok := plainText(c.Content); ok {
		var err error
		if text, err = json.Marshal(tc.Text); err != nil {
			return nil, err
		}
		c.Content = []mcp.Content{&mcp.TextContent{Text: "\x00"}}
	}
	b, err := c.MarshalJSON()
	if err != nil {
		return nil, err
	}
	s := bytes.Index(b, structuredPlaceholder)
	if s < 0 || bytes.Count(b, structuredPlaceholder) != 1 {
		return r.CallToolResult.MarshalJSON()
	}
	t := -1
	if text != nil {
		if t = bytes.Index(b, textPlaceholder); t < 0 || bytes.Count(b, textPlaceholder) != 1 {
			return r.CallToolResult.MarshalJSON()
		}
	}
	out := make([]byte, 0, len(b)+len(data)+len(text))
	// The two placeholders in the order they come, each replaced by its
	// value after its key and colon.
	type cut struct {
		at, n int
		key   int
		value []byte
	}
	cuts := []cut{{s, len(structuredPlaceholder), len(structuredPlaceholder) - 1, data}}
	if t >= 0 {
		tc := cut{t, len(textPlaceholder), len(`"text":`), text}
		if t < s {
			cuts = []cut{tc, cuts[0]}
		} else {
			cuts = append(cuts, tc)
		}
	}
	from := 0
	for _, k := range cuts {
		out = append(out, b[from:k.at+k.key]...)
		out = append(out, k.value...)
		from = k.at + k.n
	}
	return append(out, b[from:]...), nil
}

// plainText is the one content of contents when it is a text without
// _meta or annotations, which encode writes itself.
func plainText(contents []mcp.Content) (*mcp.TextContent, bool) {
	if len(contents) != 1 {
		return nil, false
	}
	tc, ok := contents[0].(*mcp.TextContent)
	if !ok || tc == nil || tc.Meta != nil || tc.Annotations != nil {
		return nil, false
	}
	return tc, true
}

// structured returns data, valid JSON, as structuredContent: an object as
// it is, any other JSON value wrapped as {"result": value}. It is not
// copied: the SDK encodes it once, when the answer is written.
func structured(data json.RawMessage) any {
	d := bytes.TrimSpace(data)
	if d[0] == '{' {
		return json.RawMessage(d)
	}
	return map[string]json.RawMessage{"result": json.RawMessage(d)}
}

// instructionsFor is the instructions of a server of served: the
// sentences of instructionLines whose tool served has (every one when
// served is nil).
func instructionsFor(served *tools.Registry) string {
	var b strings.Builder
	for _, l := range instructionLines {
		if l.tool != "" && served != nil {
			if _, ok := served.Get(l.tool); !ok {
				continue
			}
		}
		if b.Len() > 0 && !strings.HasPrefix(l.text, " ") {
			b.WriteByte('\n')
		}
		b.WriteString(l.text)
	}
	return b.String()
}

// version is v, else the main module's version from the build, else "dev".
func version(v string) string {
	if v != "" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
