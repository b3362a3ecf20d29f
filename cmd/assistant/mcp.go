package main

import (
	"github.com/spf13/cobra"
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
themselves. With --http, serve streamable HTTP on ADDR (loopback by
default); every request needs "Authorization: Bearer TOKEN" with a token
from "assistant token create", and acts as that token's person.`,
		Example: `  assistant mcp
  assistant mcp --read-only
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
	f.StringVar(&o.HTTP, "http", "", "serve streamable HTTP on this address, such as 127.0.0.1:8765")
	f.BoolVar(&o.ReadOnly, "read-only", false, "serve only the tools that change nothing")
	f.StringSliceVar(&o.Tools, "tools", nil, "serve only these tools (comma-separated names)")
	return cmd
}

// runMCP is the MCP front's entry point; the mcpserver package's owner
// fills it in.
func runMCP(cmd *cobra.Command, a *app, o mcpOptions) error {
	_ = o
	return notReady("mcp")
}
