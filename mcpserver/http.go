package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
)

// DefaultAddr is where ServeHTTP listens when given no address: loopback
// only, so nothing outside the machine can reach the tools by default.
const DefaultAddr = "127.0.0.1:8765"

// DefaultMaxBodyBytes caps an HTTP request body: a tool call's arguments
// are a few kilobytes, so 1 MiB is far above any honest request.
const DefaultMaxBodyBytes = 1 << 20

// DrainTimeout is how long ServeHTTP waits, once asked to stop, for open
// requests to finish before it closes their connections.
const DrainTimeout = 30 * time.Second

// Realm is the realm of the WWW-Authenticate challenge (RFC 6750 §3).
const Realm = "assistant"

// Authenticator maps a bearer token to the ToolContext its calls run with:
// the token's person (id, name, IANA zone), the clock and the store. A nil
// context with a nil error means the token is unknown or revoked (401); an
// error means the check itself failed (500, logged). It is called for every
// HTTP request, before any of the request is read.
type Authenticator func(ctx context.Context, bearerToken string) (*tools.ToolContext, error)

// toolContextKey is where the ToolContext rides in auth.TokenInfo.Extra,
// the SDK's channel from HTTP middleware to a tool handler
// (mcp.RequestExtra.TokenInfo).
const toolContextKey = "assistant/tool-context"

// requestContextKey is where the HTTP request's own context rides in
// auth.TokenInfo.Extra: the SDK ties a call's context to its HTTP request
// only from MCP 2026-07-28 on (StreamableHTTPOptions.
// PropagateRequestCancellation), so the handler ties it itself, and a call
// whose client went away stops whatever protocol version it spoke.
const requestContextKey = "assistant/request-context"

// requestContext returns the HTTP request's context of an HTTP call, or
// nil for a call over stdio.
func requestContext(req *mcp.CallToolRequest) context.Context {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil
	}
	rc, _ := req.Extra.TokenInfo.Extra[requestContextKey].(context.Context)
	return rc
}

// authedKey carries the checked ToolContext from our middleware to the
// SDK's bearer middleware inside the same request.
type authedKey struct{}

// HTTPHandler returns the MCP streamable HTTP endpoint for reg. Every
// request must carry "Authorization: Bearer TOKEN" (RFC 6750 §2.1); a
// missing or unknown token gets 401 with `WWW-Authenticate: Bearer
// realm="assistant"` and runs nothing. Each call runs with the ToolContext
// authn gives for that request's token, so two tokens for two people see
// only their own data. opts.Context is ignored.
//
// The endpoint is stateless (no Mcp-Session-Id): every request is checked
// on its own and no session can be taken over by another token. The SDK's
// DNS-rebinding protection stays on (a request that reached a loopback
// address with a non-loopback Host gets 403), and bodies above
// opts.MaxBodyBytes get 413.
func HTTPHandler(reg *tools.Registry, authn Authenticator, opts *Options) (http.Handler, error) {
	if authn == nil {
		return nil, errors.New("mcpserver: HTTPHandler needs an Authenticator")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Context = fromToken
	srv, err := New(reg, &o)
	if err != nil {
		return nil, err
	}
	maxBody := o.MaxBodyBytes
	if maxBody <= 0 {
		maxBody = DefaultMaxBodyBytes
	}
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{
			Stateless:                    true,
			Logger:                       o.Logger,
			MaxRequestBodyBytes:          maxBody,
			PropagateRequestCancellation: true,
		})
	// The SDK's bearer middleware is the only way to put a TokenInfo where
	// the SDK hands it to tool handlers; its verifier only picks up what our
	// middleware already checked, so authn runs once per request.
	sdkBearer := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		tc, _ := ctx.Value(authedKey{}).(*tools.ToolContext)
		if tc == nil {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: userID(tc), Extra: map[string]any{toolContextKey: tc, requestContextKey: ctx}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	limit := o.MaxConcurrent
	if limit <= 0 {
		limit = DefaultMaxConcurrent
	}
	slots := &perToken{max: limit, open: map[string]int{}}
	return lowerHost(checkOrigin(o.AllowedOrigins, bearer(authn, logger, slots, checkBody(maxBody, sdkBearer(streamable))))), nil
}

// lowerHost lower-cases the request's Host before next sees it: a host
// name is case-insensitive (RFC 3986 §3.2.2), and the SDK's DNS-rebinding
// check compares it with "localhost" as written, so "LOCALHOST:8765"
// would be refused while an Origin of any case is accepted (see
// [LoopbackOrigin]).
func lowerHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = strings.ToLower(r.Host)
		next.ServeHTTP(w, r)
	})
}

// bearer checks the Authorization header with authn before next sees the
// request, and holds one of the token's slots while next runs.
func bearer(authn Authenticator, logger *slog.Logger, slots *perToken, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok {
			challenge(w, "", "Send the header Authorization: Bearer TOKEN; make a token with: assistant token create --person NAME.")
			return
		}
		tc, err := authn(r.Context(), token)
		if err != nil {
			logger.Error("checking a bearer token failed", "err", err)
			if store.TroubleOf(err) == store.Unavailable {
				// The database is down or unreachable: a retry mends it.
				w.Header().Set("Retry-After", "5")
				http.Error(w, "The database could not be reached to check the token, so nothing was done; try again in a moment.", http.StatusServiceUnavailable)
				return
			}
			http.Error(w, "The token could not be checked; try again later.", http.StatusInternalServerError)
			return
		}
		if tc == nil {
			challenge(w, "invalid_token", "The bearer token is unknown or revoked; make a new one with: assistant token create --person NAME.")
			return
		}
		if !slots.enter(token) {
			tooMany(w, slots.max)
			return
		}
		defer slots.leave(token)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authedKey{}, tc)))
	})
}

// challenge writes 401 with a Bearer challenge (RFC 6750 §3); code is the
// error code ("invalid_token") or "" when no credentials came at all
// (RFC 6750 §3.1 says to send no error code then).
func challenge(w http.ResponseWriter, code, msg string) {
	c := `Bearer realm="` + Realm + `"`
	if code != "" {
		c += `, error="` + code + `"`
	}
	w.Header().Set("WWW-Authenticate", c)
	http.Error(w, msg, http.StatusUnauthorized)
}

// bearerToken returns the token of an "Authorization: Bearer TOKEN" header;
// the scheme name is case-insensitive (RFC 9110 §11.1).
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != "" && !strings.ContainsAny(token, " \t")
}

// userID names the person of tc for the SDK, which refuses a session
// reused by another user; stateless serving has no sessions, but the name
// costs nothing and keeps that guard if sessions are turned on.
func userID(tc *tools.ToolContext) string {
	if p, ok := tools.Get[tools.Person](tc); ok {
		return "person:" + strconv.FormatInt(p.ID, 10)
	}
	return ""
}

// fromToken is the ContextFunc of HTTP: the ToolContext the bearer
// middleware checked for this very request.
func fromToken(_ context.Context, req *mcp.CallToolRequest) (*tools.ToolContext, error) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil, errNoContext
	}
	tc, _ := req.Extra.TokenInfo.Extra[toolContextKey].(*tools.ToolContext)
	if tc == nil {
		return nil, errNoContext
	}
	return tc, nil
}

// ServeHTTP listens on addr (DefaultAddr when empty) with Listen and
// serves h until ctx is cancelled (SIGTERM in the binary), then drains: it
// stops accepting, lets open requests finish for up to DrainTimeout,
// closes what is left and returns nil. A failure to listen (see Listen) or
// serve is returned.
func ServeHTTP(ctx context.Context, addr string, h http.Handler) error {
	ln, err := Listen(ctx, addr)
	if err != nil {
		return err
	}
	return Serve(ctx, ln, h, nil)
}

// ErrBadAddr is (wrapped in) Listen's error when the address is not
// host:port with a port from 0 to 65535 (or a service name).
var ErrBadAddr = errors.New("not an address to listen on")

// ErrHostNotHere is (wrapped in) Listen's error when the host of the
// address does not resolve, or is an IP this machine does not have
// (EADDRNOTAVAIL).
var ErrHostNotHere = errors.New("not an address of this machine")

// ErrAddrInUse is (wrapped in) Listen's error when another program already
// listens on the address (EADDRINUSE).
var ErrAddrInUse = errors.New("address in use")

// ErrAddrDenied is (wrapped in) Listen's error when the system refuses the
// port to this user (EACCES: ports below 1024 need privileges on most
// systems).
var ErrAddrDenied = errors.New("port not allowed")

// Listen binds addr (host:port; DefaultAddr when empty) for TCP, so a
// caller can report the bound address (port 0 picks a free one) before
// serving. Its errors wrap ErrBadAddr, ErrHostNotHere, ErrAddrInUse or
// ErrAddrDenied when the address is at fault, so a host can tell a wrong
// value from a failure of its own.
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	if addr == "" {
		addr = DefaultAddr
	}
	_, port, err := net.SplitHostPort(addr)
	switch {
	case err == nil && port == "":
		err = errors.New("missing port")
	case err == nil:
		_, err = net.DefaultResolver.LookupPort(ctx, "tcp", port)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadAddr, err)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err == nil {
		return ln, nil
	}
	var dns *net.DNSError
	var addrErr *net.AddrError
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("%w: %w", ErrAddrInUse, err)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("%w: %w", ErrAddrDenied, err)
	case errors.Is(err, syscall.EADDRNOTAVAIL), errors.As(err, &dns), errors.As(err, &addrErr):
		return nil, fmt.Errorf("%w: %w", ErrHostNotHere, err)
	}
	return nil, err
}

// Loopback reports whether a is a loopback address (127.0.0.0/8, ::1),
// which nothing outside the machine can reach. A server bound elsewhere
// (0.0.0.0, a LAN address) sends bearer tokens and data in clear text over
// the network unless a reverse proxy with TLS is in front.
func Loopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}

// The HTTP server's timeouts when ServeOptions leaves them zero. A
// request's headers must arrive within DefaultReadHeaderTimeout and its
// whole body within DefaultReadTimeout of the request's start, or the
// connection is closed (a client that announces a body and sends it a
// byte at a time holds nothing for long); an answer must be written
// within DefaultWriteTimeout of the end of the headers, which leaves room
// for a call that runs to its deadline (tools.DefaultCallTimeout, 30 s);
// a kept-alive connection with no request is closed after
// DefaultIdleTimeout.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
)

// ServeOptions configures Serve's HTTP server; the zero value uses the
// Default timeouts and clear-text HTTP.
type ServeOptions struct {
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// CertFile and KeyFile, when both set, serve HTTPS with that
	// certificate chain and key (PEM files, as http.Server.ServeTLS reads
	// them).
	CertFile, KeyFile string
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Serve is ServeHTTP on a listener already bound; it closes ln. opts nil
// means the zero ServeOptions.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, opts *ServeOptions) error {
	var o ServeOptions
	if opts != nil {
		o = *opts
	}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: orDefault(o.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       orDefault(o.ReadTimeout, DefaultReadTimeout),
		WriteTimeout:      orDefault(o.WriteTimeout, DefaultWriteTimeout),
		// A shutdown must not wait on a client that never sends its
		// next request on a kept-alive connection.
		IdleTimeout: orDefault(o.IdleTimeout, DefaultIdleTimeout),
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() {
		if o.CertFile != "" && o.KeyFile != "" {
			done <- hs.ServeTLS(ln, o.CertFile, o.KeyFile)
			return
		}
		done <- hs.Serve(ln)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	drain, cancel := context.WithTimeout(context.Background(), DrainTimeout)
	defer cancel()
	err := hs.Shutdown(drain)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	if serveErr := <-done; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}
