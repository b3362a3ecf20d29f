package main

import (
	"context"
	"errors"
	"net"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/mcpserver"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// mcpOptions are the flags of `assistant mcp`.
type mcpOptions struct {
	HTTP     string   // "": stdio; else the address to serve streamable HTTP on
	ReadOnly bool     // serve only the tools that change nothing
	Tools    []string // serve only these tools; empty: all
}

func newMCPCmd(a *app) *cobra.Command {
	var o mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp [--http ADDR]",
		Short: "Serve the tools to MCP clients (stdio, or streamable HTTP with tokens)",
		Long: `Serve every tool as an MCP server. By default over standard input and output,
as the person --person picks, for desktop clients that start the server
themselves; standard output then carries nothing but the protocol. With
--http, serve streamable HTTP on ADDR (keep it on loopback, 127.0.0.1:8765,
unless a proxy with TLS is in front); every request needs
"Authorization: Bearer TOKEN" with a token from "assistant token create",
and acts as that token's person, in that person's stored zone. SIGINT or
SIGTERM stops taking requests and lets open ones finish.`,
		Example: `  assistant mcp
  assistant mcp --read-only
  assistant mcp --tools list_changes,undo
  assistant person add alice --zone Europe/Paris
  assistant token create --person alice
  assistant mcp --http 127.0.0.1:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.HTTP != "" {
				a.useJSONLogs()
			}
			return runMCP(cmd, a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.HTTP, "http", "", "serve streamable HTTP on this address, such as "+mcpserver.DefaultAddr)
	f.BoolVar(&o.ReadOnly, "read-only", false, "serve only the tools that change nothing")
	f.StringSliceVar(&o.Tools, "tools", nil, "serve only these tools (comma-separated names)")
	return cmd
}

// runMCP is the MCP front's entry point: stdio as one person, or HTTP with
// each request's bearer token naming its person.
func runMCP(cmd *cobra.Command, a *app, o mcpOptions) error {
	ctx := cmd.Context()
	reg := newRegistry()
	reg.Log = a.log
	opts := &mcpserver.Options{ReadOnly: o.ReadOnly, Tools: o.Tools, Logger: a.libraryLog()}
	if _, err := mcpserver.Select(reg, o.ReadOnly, o.Tools); err != nil {
		return usageError(cmd, "%v", err)
	}

	if o.HTTP == "" {
		st, p, err := a.session(ctx)
		if err != nil {
			return err
		}
		defer st.Close()
		a.log.Debug("serving MCP over stdio", "person", p.Name, "zone", p.Zone.Name(), "tools", len(reg.Names()))
		if err := mcpserver.ServeStdio(ctx, reg, a.toolContext(st, p), opts); err != nil {
			return fail(exitInternal, err)
		}
		return nil
	}

	if a.personSet || a.tzOverride != "" {
		a.log.Warn("--person and --tz do not apply over HTTP: each request acts as its token's person, in that person's stored zone")
	}
	// Bind before anything else, so a wrong address fails at once and the
	// log names the address really bound.
	ln, err := mcpserver.Listen(ctx, o.HTTP)
	if err != nil {
		return listenError(o.HTTP, err)
	}
	defer ln.Close()
	st, err := a.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	authn := func(ctx context.Context, token string) (*tools.ToolContext, error) {
		p, err := st.PersonByToken(ctx, token)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		zone, err := tz.LoadZone(p.Zone)
		if err != nil {
			return nil, err
		}
		return a.toolContext(st, tools.Person{ID: p.ID, Name: p.Name, Zone: zone}), nil
	}
	h, err := mcpserver.HTTPHandler(reg, authn, opts)
	if err != nil {
		return fail(exitInternal, err)
	}
	addr := ln.Addr().String()
	a.log.Info("serving MCP over streamable HTTP", "addr", addr, "url", "http://"+addr+"/mcp", "db", st.Path(), "tools", len(reg.Names()))
	if !mcpserver.Loopback(ln.Addr()) {
		a.log.Warn("listening beyond this machine without TLS: bearer tokens and data travel in clear text; "+
			"keep --http on 127.0.0.1 and put a reverse proxy with TLS (such as Caddy or nginx) in front", "addr", addr)
	}
	if err := mcpserver.Serve(ctx, ln, h); err != nil {
		return failf(exitInternal, "serving MCP on %s failed: %v", addr, err)
	}
	a.log.Info("stopped serving MCP")
	return nil
}

// listenError turns a failure to bind “--http” into one sentence: a wrong
// address, a port taken or refused is a wrong value (exit 1); anything
// else is the system's (exit 6).
func listenError(addr string, err error) error {
	switch {
	case errors.Is(err, mcpserver.ErrAddrInUse):
		return failf(exitInvalid, "%s is in use by another program; pick another port.", addr)
	case errors.Is(err, mcpserver.ErrAddrDenied):
		return failf(exitInvalid, "%s needs privileges this user lacks (ports below 1024 usually do); pick a port above 1023, such as %s.", addr, mcpserver.DefaultAddr)
	case errors.Is(err, mcpserver.ErrHostNotHere):
		host, _, _ := net.SplitHostPort(addr)
		return failf(exitInvalid, "“--http” names the host “%s”, which is not an address of this machine; use %s or one of this machine's own addresses.", host, mcpserver.DefaultAddr)
	case errors.Is(err, mcpserver.ErrBadAddr):
		return failf(exitInvalid, "“--http” must be host:port such as %s, not “%s”.", mcpserver.DefaultAddr, addr)
	}
	return failf(exitInternal, "cannot listen on %s: %v", addr, err)
}
