package caldav

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/assistant-dev/assistant/store"
)

// Prefix is where the CalDAV tree is served: principals are /dav/NAME/.
const Prefix = "/dav"

// Options tunes [Handler].
type Options struct {
	// Logger gets what a person should not see (internal errors); nil
	// discards.
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Handler serves /.well-known/caldav and everything under [Prefix]
// for the people of st, each request signed in with HTTP Basic (the
// person's name and one of their tokens).
func Handler(st *store.Store, opts Options) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "CalDAV is not served yet.", http.StatusNotImplemented)
	})
}
