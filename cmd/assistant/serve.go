package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/caldav"
	"github.com/assistant-dev/assistant/feed"
	"github.com/assistant-dev/assistant/mcpserver"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
	"github.com/assistant-dev/assistant/view"
	"github.com/assistant-dev/assistant/view/weekpage"
)

// The paths of the HTTP server `assistant serve` and `assistant mcp --http`
// run: MCP at mcpPath (and mcpPath + "/"), CalDAV at wellKnownCalDAV
// (RFC 6764 §5) and under caldav.Prefix, the feed under feedPrefix.
const (
	mcpPath         = "/mcp"
	wellKnownCalDAV = "/.well-known/caldav"
	feedPrefix      = "/feed/"
	weekPath        = "/week"
)

func newServeCmd(a *app) *cobra.Command {
	var o mcpOptions
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR]",
		Short: "Serve MCP, CalDAV, the calendar feed and the week page on one HTTP port",
		Long: `Serve, on one HTTP port (--http, ` + mcpserver.DefaultAddr + ` by default): MCP at /mcp
for MCP clients, each request with "Authorization: Bearer TOKEN"; CalDAV for
calendar apps, whose account address is the server's root URL, signed in
with the person's name and one of their tokens as the password; each
person's read-only calendar feed under /feed/; and the week page at /week
for a browser, signed in as for CalDAV. Tokens come from
"assistant token create". The flags are those of "assistant mcp --http",
which serves the same. An address beyond this machine is refused unless
the server has TLS (--tls-cert and --tls-key) or a reverse proxy with TLS
is in front (--behind-tls-proxy): tokens and passwords must not cross the
network in clear text. SIGINT or SIGTERM stops taking requests and lets
open ones finish.`,
		Example: `  assistant person add alice --zone Europe/Paris
  assistant token create --person alice
  assistant serve
  assistant serve --http 0.0.0.0:8765 --tls-cert cert.pem --tls-key key.pem`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.HTTP == "" {
				return failf(exitInvalid, "“--http” must be host:port such as %s, not “”.", mcpserver.DefaultAddr)
			}
			a.useJSONLogs()
			return runMCP(cmd, a, o)
		},
	}
	mcpFlags(cmd, &o, mcpserver.DefaultAddr, "serve MCP, CalDAV and the feed on this address")
	return cmd
}

// serveHTTP is the HTTP half of [runMCP]: it binds o.HTTP, refuses an
// address beyond this machine in clear text (unless o.BehindTLSProxy),
// opens the store and serves [fronts] until ctx ends (SIGINT, SIGTERM),
// with the bounds of o (timeouts) on every request of every front.
func serveHTTP(ctx context.Context, a *app, o mcpOptions, reg *tools.Registry, opts *mcpserver.Options) error {
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
	tls := o.TLSCert != ""
	if !mcpserver.Loopback(ln.Addr()) && !tls && !o.BehindTLSProxy {
		return failf(exitInvalid, "“--http %s” reaches beyond this machine, where bearer tokens and data would travel in clear text; "+
			"serve HTTPS with --tls-cert and --tls-key, or put a reverse proxy with TLS in front and add --behind-tls-proxy, or keep --http on %s.", o.HTTP, mcpserver.DefaultAddr)
	}
	st, err := a.openStore(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	f, err := a.httpFronts(st, reg, opts)
	if err != nil {
		return fail(exitInternal, err)
	}
	addr := ln.Addr().String()
	scheme := "http"
	if tls {
		scheme = "https"
	}
	root := scheme + "://" + addr
	attrs := []any{"addr", addr, "url", root + mcpPath, "caldav", root + "/"}
	if f.Feed != nil {
		attrs = append(attrs, "feed", root+feedPrefix)
	}
	if f.Week != nil {
		attrs = append(attrs, "week", root+weekPath)
	}
	attrs = append(attrs, "db", st.Path(), "tools", len(reg.Names()))
	a.log.Info("serving "+f.names()+" over HTTP", attrs...)
	if !mcpserver.Loopback(ln.Addr()) && !tls {
		a.log.Info("listening beyond this machine in clear text, behind a TLS proxy (--behind-tls-proxy)", "addr", addr)
	}
	serveOpts := &mcpserver.ServeOptions{ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout, IdleTimeout: o.IdleTimeout,
		ReadHeaderTimeout: min(o.ReadTimeout, mcpserver.DefaultReadHeaderTimeout), CertFile: o.TLSCert, KeyFile: o.TLSKey}
	if err := mcpserver.Serve(ctx, ln, f.handler(), serveOpts); err != nil {
		return failf(exitInternal, "serving %s on %s failed: %v", f.names(), addr, err)
	}
	a.log.Info("stopped serving " + f.names())
	return nil
}

// httpFronts makes the handlers of the HTTP server on st: MCP with reg
// and opts, each request acting as its bearer token's person; CalDAV,
// each request signed in with HTTP Basic; the feed, read by its secret.
func (a *app) httpFronts(st *store.Store, reg *tools.Registry, opts *mcpserver.Options) (fronts, error) {
	m, err := mcpserver.HTTPHandler(reg, a.tokenPerson(st), opts)
	if err != nil {
		return fronts{}, err
	}
	return fronts{
		MCP:    m,
		CalDAV: caldav.Handler(st, caldav.Options{Logger: a.log, Now: a.now, ReadOnly: opts.ReadOnly}),
		Feed:   feed.Handler(st, feed.Options{Logger: a.log, Now: a.now}),
		Week:   a.weekPage(st),
	}, nil
}

// weekPage is the handler of the week page: each request signed in with
// HTTP Basic as CalDAV does ([caldav.SignIn]), its days read by
// [view.Load] through the read tools with the signed-in person's
// ToolContext, as the MCP front builds one per request. It has a registry
// of its own with every tool (it calls only list_events and list_tasks):
// --tools and --read-only choose what MCP clients see, not what a person
// may read of their own week.
func (a *app) weekPage(st *store.Store) http.Handler {
	reg := newRegistry()
	reg.Log = a.log
	return weekpage.Handler(weekpage.HandlerOptions{
		Path:   weekPath,
		Now:    a.now,
		Logger: a.log,
		SignIn: func(w http.ResponseWriter, r *http.Request) (weekpage.Session, bool) {
			p, zone, ok := caldav.SignIn(st, a.log, w, r)
			if !ok {
				return weekpage.Session{}, false
			}
			tc := a.toolContext(st, tools.Person{ID: p.ID, Name: p.Name, Zone: zone})
			return weekpage.Session{Zone: zone, Load: func(ctx context.Context, from, to tz.Date) (view.Window, error) {
				return view.Load(ctx, reg, tc, from, to)
			}}, true
		},
	})
}

// tokenPerson is the MCP [mcpserver.Authenticator] of st: a token's
// person, in their stored zone, with this run's clock.
func (a *app) tokenPerson(st *store.Store) mcpserver.Authenticator {
	return func(ctx context.Context, token string) (*tools.ToolContext, error) {
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
		return a.requestContext(st, tools.Person{ID: p.ID, Name: p.Name, Zone: zone}), nil
	}
}

// fronts are the handlers one HTTP server serves, each on its own paths
// (see [fronts.handler]). Each does its own authentication: MCP's bearer
// check, origin check and per-token limit wrap MCP alone, and CalDAV
// checks HTTP Basic itself.
type fronts struct {
	MCP    http.Handler // mcpserver.HTTPHandler
	CalDAV http.Handler // caldav.Handler
	Feed   http.Handler // the read-only feeds; nil: /feed/ is not served
	Week   http.Handler // the week page (weekpage.Handler); nil: /week is not served
}

// names names the fronts served, for the log.
func (f fronts) names() string {
	names := []string{"MCP", "CalDAV"}
	if f.Feed != nil {
		names = append(names, "the calendar feed")
	}
	if f.Week != nil {
		names = append(names, "the week page")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// handler routes a request by its path:
//
//	/mcp, /mcp/                          MCP (every method)
//	/.well-known/caldav, /dav, /dav/…    CalDAV (every method)
//	/feed/…                              the feed, when f.Feed is set
//	/week                                the week page, when f.Week is set
//	GET or HEAD /                        a short page naming the above
//	POST /                               404 saying MCP is at /mcp
//	any other method on /                CalDAV: the root URL is the
//	                                     account address clients are given,
//	                                     and they PROPFIND or OPTIONS it
//	anything else                        404 naming the endpoints
func (f fronts) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(mcpPath, f.MCP)
	mux.Handle(mcpPath+"/{$}", f.MCP)
	mux.Handle(wellKnownCalDAV, f.CalDAV)
	mux.Handle(caldav.Prefix, f.CalDAV)
	mux.Handle(caldav.Prefix+"/", f.CalDAV)
	if f.Feed != nil {
		mux.Handle(feedPrefix, f.Feed)
	}
	if f.Week != nil {
		mux.Handle(weekPath, f.Week)
	}
	mux.HandleFunc("GET /{$}", f.rootPage)
	mux.HandleFunc("POST /{$}", func(w http.ResponseWriter, r *http.Request) {
		plain(w, http.StatusNotFound, "MCP is served at "+rootURL(r)+strings.TrimPrefix(mcpPath, "/")+"; point the MCP client there.\n")
	})
	mux.Handle("/{$}", f.CalDAV)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		plain(w, http.StatusNotFound, "Nothing is served at "+r.URL.Path+"; "+rootURL(r)+" lists what is.\n")
	})
	return mux
}

// rootPage answers GET / with the endpoints, as URLs of the address the
// client used.
func (f fronts) rootPage(w http.ResponseWriter, r *http.Request) {
	root := rootURL(r)
	var b strings.Builder
	b.WriteString("assistant serves here:\n\n")
	fmt.Fprintf(&b, "MCP (streamable HTTP, header \"Authorization: Bearer TOKEN\"):\n  %smcp\n\n", root)
	fmt.Fprintf(&b, "CalDAV (the account address for calendar apps; user name: your person's name, password: one of your tokens):\n  %s\n\n", root)
	if f.Feed != nil {
		fmt.Fprintf(&b, "Calendar feed (read-only, for subscribing by URL; each person's secret address):\n  %sfeed/SECRET.ics\n\n", root)
	}
	if f.Week != nil {
		fmt.Fprintf(&b, "Week page (for a browser; sign in as for CalDAV, your person's name and one of your tokens):\n  %sweek\n\n", root)
	}
	b.WriteString("Tokens come from: assistant token create --person NAME\n")
	plain(w, http.StatusOK, b.String())
}

// rootURL is the server's root URL as the client reached it, ending in
// "/": the scheme and host a reverse proxy names (X-Forwarded-Proto,
// X-Forwarded-Host), else those of the request. It only words answers;
// nothing is decided by it.
func rootURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := firstValue(r.Header.Get("X-Forwarded-Proto")); p == "http" || p == "https" {
		scheme = p
	}
	host := r.Host
	if h := firstValue(r.Header.Get("X-Forwarded-Host")); h != "" {
		host = h
	}
	return scheme + "://" + host + "/"
}

// firstValue is the first of a comma-separated header's values (the one
// the proxy nearest the client wrote), trimmed and in lower case.
func firstValue(h string) string {
	v, _, _ := strings.Cut(h, ",")
	return strings.ToLower(strings.TrimSpace(v))
}

// plain writes msg as a plain-text answer with status code.
func plain(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(msg))
}
