package main

import (
	"context"
	"errors"

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
  assistant token create --person alice && assistant mcp --http 127.0.0.1:8765`,
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
	a.log.Info("serving MCP over streamable HTTP", "addr", o.HTTP, "db", st.Path(), "tools", len(reg.Names()))
	if err := mcpserver.ServeHTTP(ctx, o.HTTP, h); err != nil {
		return failf(exitInternal, "cannot serve on “%s”: %v", o.HTTP, err)
	}
	a.log.Info("stopped serving MCP")
	return nil
}
