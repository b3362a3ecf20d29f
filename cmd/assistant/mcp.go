package main

import (
	"errors"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/mcpserver"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
)

// mcpOptions are the flags of `assistant mcp`.
type mcpOptions struct {
	HTTP     string   // "": stdio; else the address to serve streamable HTTP on
	ReadOnly bool     // serve only the tools that change nothing
	Tools    []string // serve only these tools; empty: all

	CallTimeout    time.Duration // the deadline of one tool call (stdio and HTTP)
	BehindTLSProxy bool          // allow a non-loopback --http without --tls-cert
	TLSCert        string        // serve HTTPS with this certificate chain (PEM)
	TLSKey         string        // and this key (PEM)
	AllowOrigins   []string      // browser origins served besides loopback ones
	MaxConcurrent  int           // open HTTP requests per token
	ReadTimeout    time.Duration // a request's headers and body
	WriteTimeout   time.Duration // an answer
	IdleTimeout    time.Duration // a kept-alive connection with no request
}

func newMCPCmd(a *app) *cobra.Command {
	var o mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp [--http ADDR]",
		Short: "Serve the tools to MCP clients (stdio, or streamable HTTP with tokens)",
		Long: `Serve the tools as an MCP server: every tool, or those --tools
names (groups or tool names, comma-separated or the flag repeated), read
ones only with --read-only. By default over standard input and output,
as the person --person picks, for desktop clients that start the server
themselves; standard output then carries nothing but the protocol. With
--http, serve streamable HTTP on ADDR; every request needs
"Authorization: Bearer TOKEN" with a token from "assistant token create",
and acts as that token's person, in that person's stored zone. An address
beyond this machine is refused unless the server has TLS (--tls-cert and
--tls-key) or a reverse proxy with TLS is in front (--behind-tls-proxy).
Browser requests from pages not on this machine get 403 (--allow-origin
adds an origin). Each token may have --max-concurrent requests open;
more get 429. Every tool call stops after --call-timeout. SIGINT or
SIGTERM stops taking requests and lets open ones finish. The --http
port serves CalDAV and the calendar feed too, as "assistant serve" does.`,
		Example: `  assistant mcp
  assistant mcp --read-only
  assistant mcp --tools tasks
  assistant mcp --tools calendar --read-only
  assistant mcp --tools tasks,list_events
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
	mcpFlags(cmd, &o, "", "serve streamable HTTP on this address, such as "+mcpserver.DefaultAddr)
	return cmd
}

// mcpFlags declares the flags `assistant mcp` and `assistant serve`
// share on cmd, into o; --http defaults to httpDefault and says httpUsage.
func mcpFlags(cmd *cobra.Command, o *mcpOptions, httpDefault, httpUsage string) {
	f := cmd.Flags()
	f.StringVar(&o.HTTP, "http", httpDefault, httpUsage)
	f.BoolVar(&o.ReadOnly, "read-only", false, "serve only the tools that change nothing (with --tools, those of its choice; CalDAV read-only too)")
	f.StringSliceVar(&o.Tools, "tools", nil, "serve only these tools: groups (all, tasks, calendar, read-only) or tool names, comma-separated")
	_ = cmd.RegisterFlagCompletionFunc("tools", completeTools)
	f.DurationVar(&o.CallTimeout, "call-timeout", tools.DefaultCallTimeout, "stop a tool call that runs longer than this")
	f.BoolVar(&o.BehindTLSProxy, "behind-tls-proxy", false, "allow --http on an address beyond this machine without --tls-cert: a reverse proxy with TLS is in front")
	f.StringVar(&o.TLSCert, "tls-cert", "", "serve HTTPS with this certificate chain (a PEM file; needs --tls-key)")
	f.StringVar(&o.TLSKey, "tls-key", "", "the private key of --tls-cert (a PEM file)")
	f.StringSliceVar(&o.AllowOrigins, "allow-origin", nil, "also serve browser requests from these origins, such as https://app.example (pages on this machine always are)")
	f.IntVar(&o.MaxConcurrent, "max-concurrent", mcpserver.DefaultMaxConcurrent, "requests one token may have open at once over HTTP; more get 429")
	f.DurationVar(&o.ReadTimeout, "read-timeout", mcpserver.DefaultReadTimeout, "close an HTTP connection whose request is not read whole within this")
	f.DurationVar(&o.WriteTimeout, "write-timeout", mcpserver.DefaultWriteTimeout, "close an HTTP connection whose answer is not written within this; keep it above --call-timeout")
	f.DurationVar(&o.IdleTimeout, "idle-timeout", mcpserver.DefaultIdleTimeout, "close a kept-alive HTTP connection idle this long")
}

// runMCP is the entry point of `assistant mcp` and `assistant serve`: MCP
// over stdio as one person, or (with --http) the HTTP server of
// [serveHTTP], where each MCP request's bearer token names its person.
func runMCP(cmd *cobra.Command, a *app, o mcpOptions) error {
	ctx := cmd.Context()
	a.service = true
	serverGC(os.Getenv)
	reg := newRegistry()
	reg.Log = a.log
	if err := checkMCPOptions(o); err != nil {
		return err
	}
	reg.CallTimeout = o.CallTimeout
	// The tools are chosen here, as the chat chooses its own, before the
	// store is opened or a port bound; the server gets only those. ReadOnly
	// still goes with them: CalDAV follows it.
	reg, err := catalog.Select(reg, o.Tools, o.ReadOnly)
	if err != nil {
		return usageError(cmd, "“--tools” is wrong: %v", err)
	}
	opts := &mcpserver.Options{ReadOnly: o.ReadOnly, Logger: a.libraryLog(),
		MaxConcurrent: o.MaxConcurrent, AllowedOrigins: o.AllowOrigins}

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

	return serveHTTP(ctx, a, o, reg, opts)
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

// checkMCPOptions refuses flag values of `assistant mcp` that cannot work,
// each with one sentence (exit 1).
func checkMCPOptions(o mcpOptions) error {
	switch {
	case o.CallTimeout <= 0:
		return failf(exitInvalid, "“--call-timeout” must be a positive duration such as %s, not “%s”.", tools.DefaultCallTimeout, o.CallTimeout)
	case o.HTTP == "":
		return nil
	case (o.TLSCert == "") != (o.TLSKey == ""):
		return failf(exitInvalid, "“--tls-cert” and “--tls-key” go together: give both PEM files, or neither.")
	case o.MaxConcurrent < 1:
		return failf(exitInvalid, "“--max-concurrent” must be at least 1, not “%d”.", o.MaxConcurrent)
	case o.ReadTimeout <= 0 || o.WriteTimeout <= 0 || o.IdleTimeout <= 0:
		return failf(exitInvalid, "“--read-timeout”, “--write-timeout” and “--idle-timeout” must be positive durations such as 30s.")
	case o.WriteTimeout <= o.CallTimeout:
		return failf(exitInvalid, "“--write-timeout” (%s) must be longer than “--call-timeout” (%s), or a call that runs to its deadline loses its answer.", o.WriteTimeout, o.CallTimeout)
	}
	for _, origin := range o.AllowOrigins {
		if u, err := url.Parse(origin); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return failf(exitInvalid, "“--allow-origin” takes an origin such as https://app.example (scheme, host and port only), not “%s”.", origin)
		}
	}
	return nil
}
