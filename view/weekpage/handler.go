package weekpage

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/assistant-dev/assistant/tz"
	"github.com/assistant-dev/assistant/view"
)

// Days is how many days the page shows: a week.
const Days = 7

// The bounds of ?from=: the years every tool takes (0001–9999), the last
// day of the week included.
var (
	MinFrom = tz.Date{Year: 1, Month: time.January, Day: 1}
	MaxFrom = tz.Date{Year: 9999, Month: time.December, Day: 31}.AddDays(-(Days - 1))
)

// Session is what the page reads for one signed-in person: their zone
// (to know this week) and their window of days (view.Load over the tools
// with that person's ToolContext).
type Session struct {
	Zone tz.Zone
	Load func(ctx context.Context, from, to tz.Date) (view.Window, error)
}

// HandlerOptions are what [Handler] needs from the server.
type HandlerOptions struct {
	// SignIn signs the request in and returns the person's session; when
	// it cannot, it has answered w itself (401 with a challenge, 503) and
	// returns false. The server passes caldav.SignIn's HTTP Basic here.
	SignIn func(w http.ResponseWriter, r *http.Request) (Session, bool)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Logger gets what a person should not see; nil discards.
	Logger *slog.Logger
	// Path is where the page is served, for its links ("/week").
	Path string
}

// Handler serves the week page: GET or HEAD, signed in by o.SignIn, the
// seven days from ?from=YYYY-MM-DD (a real day between [MinFrom] and
// [MaxFrom]; anything else gets 400 with one sentence), or without it the
// week of today (from its Monday) in the person's zone. It reads and
// changes nothing else; any other method gets 405.
func Handler(o HandlerOptions) http.Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Path == "" {
		o.Path = "/week"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			text(w, http.StatusMethodNotAllowed, "The week page is only read: open it with GET.")
			return
		}
		s, ok := o.SignIn(w, r)
		if !ok {
			return
		}
		q := r.URL.Query()
		var from tz.Date
		if v, set := q["from"]; set {
			d, err := tz.ParseDate(v[0])
			if len(v) > 1 || err != nil || d.Before(MinFrom) || d.After(MaxFrom) {
				text(w, http.StatusBadRequest, "“from” must be the first day to show, a real day written like 2026-12-07 between "+MinFrom.String()+" and "+MaxFrom.String()+", once.")
				return
			}
			from = d
		} else {
			today := s.Zone.Today(o.Now())
			from = today.AddDays(-((int(today.Weekday()) + 6) % 7))
		}
		win, err := s.Load(r.Context(), from, from.AddDays(Days-1))
		if err != nil {
			o.Logger.Error("reading the week page's days failed", "from", from.String(), "err", err)
			text(w, http.StatusInternalServerError, "The week could not be read just now; try again in a moment.")
			return
		}
		var b bytes.Buffer
		if err := Render(&b, win, Options{Path: o.Path, Min: MinFrom, Max: MaxFrom}); err != nil {
			o.Logger.Error("writing the week page failed", "err", err)
			text(w, http.StatusInternalServerError, "The week page could not be written; try again later.")
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		// No script at all, styles only inline, nothing fetched: should a
		// title ever slip through unescaped, it still cannot run.
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(b.Bytes())
		}
	})
}

// text writes msg as a plain-text answer with status code.
func text(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(msg + "\n"))
}
