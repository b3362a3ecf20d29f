package caldav

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-webdav/caldav"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// Prefix is where the CalDAV tree is served: principals are /dav/NAME/.
const Prefix = "/dav"

// The limits of one request. A body over MaxBody gets 413 before it is
// parsed; a REPORT answers at most MaxResults members (a sync-collection
// says it was cut with 507 and a token to go on from, RFC 6578 §3.6; a
// calendar-query is cut the same way); a time-range or an expand spans at
// most MaxRange, an expanded object at most MaxInstances occurrences and
// all the expanded objects of one report MaxExpanded, and a
// free-busy-query at most MaxBusy.
const (
	MaxBusy      = 20000
	MaxExpanded  = 10000
	MaxBody      = 4 << 20
	MaxResults   = 1000
	MaxRange     = 5 * 366 * 24 * time.Hour
	MaxInstances = 1000
)

// Realm is the realm of the Basic challenge (RFC 7617).
const Realm = "assistant"

// Options tunes [Handler].
type Options struct {
	// Logger gets what a person should not see (internal errors); nil
	// discards.
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// ReadOnly refuses every write (PUT, DELETE) with 403, and the
	// collections say so in their privileges, as `serve --read-only`
	// asks.
	ReadOnly bool
	// MaxConcurrent is how many requests one person may have open at
	// once; more get 429 with Retry-After. 0 is [DefaultMaxConcurrent].
	MaxConcurrent int
}

// DefaultMaxConcurrent is the open requests one person may have at once:
// a phone syncs one collection at a time, a desktop client a few.
const DefaultMaxConcurrent = 4

// server is one CalDAV handler over one store.
type server struct {
	st  *store.Store
	log *slog.Logger
	now func() time.Time
	lib *caldav.Handler

	mu       sync.Mutex
	open     map[int64]int // open requests by person
	limit    int
	readOnly bool
}

// Handler serves /.well-known/caldav and everything under [Prefix] for
// the people of st (RFC 4791, RFC 6578, RFC 6764). Every request under
// [Prefix] signs in with HTTP Basic (RFC 7617): the person's name as the
// user and one of their access tokens as the password; anything else
// gets 401 with a Basic challenge. A person reaches only /dav/THEIR-NAME/
// and what is below it; any other principal's path gets 403, whether it
// exists or not.
//
// The tree, for the person me:
//
//	/dav/me/                      principal (current-user-principal)
//	/dav/me/calendars/            calendar-home-set
//	/dav/me/calendars/events/     the VEVENT collection
//	/dav/me/calendars/tasks/      the VTODO collection
//	/dav/me/calendars/events/X.ics  one calendar object resource
//
// go-webdav's caldav.Handler answers discovery (PROPFIND of the root and
// the principal), OPTIONS and calendar-multiget; this package answers the
// rest, which the library lacks: PROPFIND of the home and the collections
// with getctag and sync-token, sync-collection (RFC 6578),
// calendar-query with expand, free-busy-query, and GET, PUT and DELETE
// with the preconditions of RFC 4791 §5.3.2 and RFC 9110 §13.
func Handler(st *store.Store, opts Options) http.Handler {
	s := &server{st: st, log: opts.Logger, now: opts.Now, open: map[int64]int{}, limit: opts.MaxConcurrent, readOnly: opts.ReadOnly}
	if s.limit <= 0 {
		s.limit = DefaultMaxConcurrent
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.lib = &caldav.Handler{Backend: &backend{s: s}, Prefix: Prefix}
	return s
}

// who is the signed-in person of one request.
type who struct {
	store.Person
	zone   tz.Zone
	client string // the User-Agent's first word, for the journal
}

type whoKey struct{}

func person(ctx context.Context) *who {
	w, _ := ctx.Value(whoKey{}).(*who)
	return w
}

// ServeHTTP signs the request in, bounds its body and routes it.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/.well-known/caldav" || r.URL.Path == "/.well-known/caldav/" {
		// RFC 6764 §5: the context path, where current-user-principal is
		// asked once signed in.
		http.Redirect(w, r, Prefix+"/", http.StatusMovedPermanently)
		return
	}
	if r.URL.Path != "/" && r.URL.Path != Prefix && !strings.HasPrefix(r.URL.Path, Prefix+"/") {
		plain(w, http.StatusNotFound, "Nothing is served here; CalDAV clients take this server's address, or "+Prefix+"/.")
		return
	}
	sp, zone, ok := SignIn(s.st, s.log, w, r)
	if !ok {
		return
	}
	p := &who{Person: sp, zone: zone, client: clientName(r.UserAgent())}
	if !s.enter(p.ID) {
		w.Header().Set("Retry-After", "1")
		plain(w, http.StatusTooManyRequests, fmt.Sprintf("You have %d requests open already; wait for one to end, then try again.", s.limit))
		return
	}
	defer s.leave(p.ID)
	r = r.WithContext(context.WithValue(r.Context(), whoKey{}, p))
	if r.ContentLength > MaxBody {
		plain(w, http.StatusRequestEntityTooLarge, "The request body is larger than the 4 MiB this server takes for one request; send one calendar object at a time.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)

	t := parsePath(r.URL.Path)
	if t.kind != atRoot && t.person != p.Name {
		plain(w, http.StatusForbidden, "This path belongs to another person; your calendars are under "+Prefix+"/"+p.Name+"/.")
		return
	}
	s.route(w, r, p, t)
}

// enter takes one of the person's request slots; false when all are taken.
func (s *server) enter(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[id] >= s.limit {
		return false
	}
	s.open[id]++
	return true
}

// leave gives the slot back.
func (s *server) leave(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[id]--; s.open[id] <= 0 {
		delete(s.open, id)
	}
}

// SignIn signs r in with HTTP Basic (RFC 7617) as CalDAV does, for
// every page of the server that a person opens with a name and password
// (CalDAV, the week page): the user is the person's name (any case, the
// surrounding spaces ignored; ISO-8859-1 read as such, see userName) and
// the password one of their access tokens. It returns the person and
// their stored zone (UTC when the stored name no longer loads). When the
// credentials are missing or wrong it answers w itself, 401 with the
// Basic challenge of [Realm]; when the store cannot be asked, 503 with
// Retry-After (or 500), logging why to log; and returns false. Nothing
// but the Authorization header is read: a token is never taken from the
// URL.
func SignIn(st *store.Store, log *slog.Logger, w http.ResponseWriter, r *http.Request) (store.Person, tz.Zone, bool) {
	p, zone, status := signIn(st, log, r)
	switch status {
	case 0:
		return p, zone, true
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Basic realm="`+Realm+`", charset="UTF-8"`)
		plain(w, status, "Sign in with your person's name as the user and an access token as the password; make a token with: assistant token create --person NAME.")
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "5")
		plain(w, status, "The database could not be reached to check the password, so nothing was done; try again in a moment.")
	default:
		plain(w, status, "The password could not be checked; try again later.")
	}
	return store.Person{}, tz.Zone{}, false
}

// signIn reads the Basic credentials of r: the person, their zone and 0
// when they are right, else the status to answer.
func signIn(st *store.Store, log *slog.Logger, r *http.Request) (store.Person, tz.Zone, int) {
	user, pass, ok := r.BasicAuth()
	if !ok || user == "" || pass == "" {
		return store.Person{}, tz.Zone{}, http.StatusUnauthorized
	}
	user = userName(user)
	p, err := st.PersonByToken(r.Context(), pass)
	if errors.Is(err, store.ErrNotFound) {
		return store.Person{}, tz.Zone{}, http.StatusUnauthorized
	}
	if err != nil {
		if log != nil {
			log.Error("checking an HTTP Basic password failed", "path", r.URL.Path, "err", err)
		}
		if store.TroubleOf(err) == store.Unavailable {
			return store.Person{}, tz.Zone{}, http.StatusServiceUnavailable
		}
		return store.Person{}, tz.Zone{}, http.StatusInternalServerError
	}
	if !strings.EqualFold(strings.TrimSpace(user), p.Name) {
		return store.Person{}, tz.Zone{}, http.StatusUnauthorized
	}
	zone, err := tz.LoadZone(p.Zone)
	if err != nil {
		zone = tz.UTC
	}
	return p, zone, 0
}

// route sends one signed-in request to its method's handler.
func (s *server) route(w http.ResponseWriter, r *http.Request, p *who, t target) {
	var err error
	switch {
	case s.readOnly && (r.Method == http.MethodPut || r.Method == http.MethodDelete):
		err = &httpError{code: http.StatusForbidden, precondition: "D:need-privileges",
			msg: "This server was started with --read-only, so nothing can be changed through it; change the calendar on a server started without it."}
	case r.Method == http.MethodOptions:
		// The library's Allow lists what its backend interface has; this
		// server refuses some of it (see below), which Allow leaves out.
		var drop []string
		if t.kind != atObject {
			drop = append(drop, "DELETE", "MKCOL", "MKCALENDAR")
		}
		if s.readOnly {
			drop = append(drop, "PUT", "DELETE", "PROPPATCH")
		}
		s.lib.ServeHTTP(&allowWriter{ResponseWriter: w, drop: drop}, r)
		return
	case r.Method == "PROPFIND" && (t.kind == atHome || t.kind == atCollection):
		err = s.propfind(w, r, p, t)
	case r.Method == "PROPFIND":
		// The library reads a body only when it is said to be XML (some
		// clients leave the header out) and fails on an empty one, which
		// RFC 4918 §9.1 reads as allprop.
		body, rerr := io.ReadAll(r.Body)
		if rerr != nil {
			err = rerr
			break
		}
		if len(bytes.TrimSpace(body)) == 0 {
			r.Header.Del("Content-Type")
			body = nil
		} else if r.Header.Get("Content-Type") == "" {
			r.Header.Set("Content-Type", "application/xml")
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if d := r.Header.Get("Depth"); d == "" || strings.EqualFold(d, "infinity") {
			// The tree below a principal is two levels; infinity (or no
			// Depth, RFC 4918 §9.1) is answered as 1, as for the home.
			r.Header.Set("Depth", "1")
		}
		s.lib.ServeHTTP(w, r)
		return
	case r.Method == "PROPPATCH":
		err = s.proppatch(w, r, t)
	case r.Method == "REPORT":
		err = s.report(w, r, p, t)
	case t.kind == atObject && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		err = s.get(w, r, p, t)
	case t.kind == atObject && r.Method == http.MethodPut:
		err = s.put(w, r, p, t)
	case t.kind == atObject && r.Method == http.MethodDelete:
		err = s.delete(w, r, p, t)
	case r.Method == "MKCALENDAR" || r.Method == "MKCOL":
		err = &httpError{code: http.StatusForbidden, msg: "This server has two fixed collections, events and tasks; new calendars cannot be made."}
	case r.Method == http.MethodDelete:
		err = &httpError{code: http.StatusForbidden, msg: "The collections cannot be deleted; delete their objects one by one."}
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && t.kind == atNothing:
		err = &httpError{code: http.StatusNotFound, msg: "Nothing is here; your calendars are under " + homePath(p.Name) + "."}
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		plain(w, http.StatusOK, "This is a CalDAV collection; add this server's address to a CalDAV client to see it.")
		return
	default:
		w.Header().Set("Allow", "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, REPORT")
		err = &httpError{code: http.StatusMethodNotAllowed, msg: r.Method + " is not served here."}
	}
	if err != nil {
		s.fail(w, r, err)
	}
}

// httpError is an answer other than success: a status, a sentence, and
// for a failed precondition its element (RFC 4918 §16, RFC 4791 §1.3).
type httpError struct {
	code         int
	msg          string
	precondition string // "C:valid-calendar-data", "D:valid-sync-token", …
	href         string // the conflicting resource of no-uid-conflict
}

func (e *httpError) Error() string { return e.msg }

// fail writes err: an *httpError as it says, a body too large as 413,
// a cancelled request as nothing, anything else as 500 (or 503 when the
// database is away) with a sentence, logged.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		if he.precondition != "" {
			writeError(w, he)
			return
		}
		plain(w, he.code, he.msg)
	case errors.As(err, &tooBig):
		plain(w, http.StatusRequestEntityTooLarge, "The request body is larger than the 4 MiB this server takes for one request; send one calendar object at a time.")
	case r.Context().Err() != nil:
		// The client went away: nobody reads the answer.
	case store.TroubleOf(err) == store.Unavailable:
		w.Header().Set("Retry-After", "5")
		plain(w, http.StatusServiceUnavailable, "The database could not be reached, so nothing was done; try again in a moment.")
	case store.TroubleOf(err) == store.Busy:
		s.log.Warn("a CalDAV request waited too long for another writer", "method", r.Method, "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", "5")
		plain(w, http.StatusServiceUnavailable, "Another program was writing to the database for longer than this request could wait, so nothing was done; try again in a moment.")
	default:
		s.log.Error("a CalDAV request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		msg := "The server failed on this request and changed nothing; its log says why."
		if store.TroubleOf(err) != store.NoTrouble {
			msg = s.st.Explain(err)
		}
		plain(w, http.StatusInternalServerError, msg)
	}
}

// plain writes a one-sentence text answer.
func plain(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(msg + "\n"))
}

// knownClients are the product tokens of CalDAV clients, as their
// User-Agent carries them, that name the client better than the first
// token (often "Mozilla/5.0").
var knownClients = []string{"DAVx5", "DAVdroid", "Thunderbird", "vdirsyncer", "Evolution", "iOS", "macOS", "dataaccessd",
	"CalendarAgent", "Fantastical", "Outlook", "tasks.org", "jtx", "python-caldav", "caldav", "Lightning"}

// clientName is the client's product token for the journal
// ("Thunderbird/115.3.1"): a known client's token where the User-Agent
// has one, else its first token unless that is Mozilla's, else "".
func clientName(ua string) string {
	tokens := strings.FieldsFunc(ua, func(r rune) bool { return r == ' ' || r == '(' || r == ')' || r == ';' || r == ',' })
	for _, k := range knownClients {
		for _, tok := range tokens {
			name, _, _ := strings.Cut(tok, "/")
			if strings.EqualFold(name, k) {
				return tok
			}
		}
	}
	if len(tokens) == 0 || strings.HasPrefix(tokens[0], "Mozilla/") {
		return ""
	}
	return tokens[0]
}

// allowWriter is an answer to OPTIONS whose Allow header leaves out the
// methods in drop.
type allowWriter struct {
	http.ResponseWriter
	drop  []string
	wrote bool
}

func (a *allowWriter) WriteHeader(code int) {
	if a.wrote {
		return
	}
	a.wrote = true
	if allow := a.Header().Get("Allow"); allow != "" && len(a.drop) > 0 {
		var keep []string
		for _, m := range strings.Split(allow, ",") {
			if m = strings.TrimSpace(m); m != "" && !slices.Contains(a.drop, m) {
				keep = append(keep, m)
			}
		}
		a.Header().Set("Allow", strings.Join(keep, ", "))
	}
	a.ResponseWriter.WriteHeader(code)
}

// Write writes the header first, as http.ResponseWriter does, so that
// an answer written without WriteHeader is filtered too.
func (a *allowWriter) Write(b []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	return a.ResponseWriter.Write(b)
}
