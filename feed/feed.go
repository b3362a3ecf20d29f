// Package feed serves a person's calendar as a read-only iCalendar feed
// at a secret URL, /feed/SECRET.ics, for the calendar apps that
// "subscribe by URL" (Google Calendar, Outlook, Apple Calendar) and poll
// it. The secret is a feed secret ([store.Store.CreateFeedSecret]), never
// an access token: it reads the export of one person and nothing else,
// and `assistant feed revoke` ends it.
//
// Polling is cheap: every answer carries an ETag and a Last-Modified
// taken from the person's newest change in the journal, and a poll that
// sends them back (If-None-Match, If-Modified-Since; RFC 9110 §13.1) is
// answered 304 after two small queries, without building the file.
package feed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/ics"
	"github.com/assistant-dev/assistant/store"
)

// Prefix is the path the feeds are served under; [Handler] expects the
// whole path (mount it at "/feed/" without stripping the prefix).
const Prefix = "/feed/"

// Version is the version of the feed's format. It is part of every ETag,
// so raising it (when the export writes the same data differently) makes
// every subscriber fetch the feed again once.
const Version = 1

// DefaultMaxAge is how long a subscriber may keep a fetched feed before
// asking again (Cache-Control max-age), when [Options] does not say.
const DefaultMaxAge = 5 * time.Minute

// DefaultTimeout bounds the writing of one feed, when [Options] does not
// say: a subscriber that stops reading loses its connection then, so it
// does not hold the database snapshot the export reads from.
const DefaultTimeout = 2 * time.Minute

// Options tunes [Handler]. The zero value is the normal setting.
type Options struct {
	// Logger gets what a subscriber must not see (a failed export, a
	// database that cannot be reached), naming a feed by its prefix only;
	// nil discards.
	Logger *slog.Logger
	// Now is the clock; nil is the store's (st.Now), else time.Now.
	Now func() time.Time
	// MaxAge is the Cache-Control max-age; 0 is [DefaultMaxAge].
	MaxAge time.Duration
	// Timeout bounds writing one feed; 0 is [DefaultTimeout].
	Timeout time.Duration
}

// notFound is the one answer for an address that is no feed: an unknown
// secret, a revoked one, or a path of another shape read alike, so the
// answer tells nothing about which.
const notFound = "There is no calendar feed at this address; it may have been revoked."

// secretLen is the length of a feed secret: the marker and 52 base32
// characters (32 bytes), as [store.Store.CreateFeedSecret] makes them.
const secretLen = len(store.FeedSecretPrefix) + 52

// shown is how much of a secret logs and [RedactPath] keep: the prefix
// `assistant feed list` shows.
const shown = len(store.FeedSecretPrefix) + 8

// Handler serves GET and HEAD of /feed/SECRET.ics from st: the whole
// calendar of the secret's person (every event with its rule and changed
// occurrences, and the tasks), as [ics.Export] writes it with no window,
// streamed, with Content-Type text/calendar; charset=utf-8.
//
// Answers:
//   - 200 with the file; HEAD gives the same headers and no body, and
//     builds no file.
//   - 304 with no body when If-None-Match names the current ETag, or,
//     without If-None-Match, If-Modified-Since is not before Last-Modified
//     (RFC 9110 §13.1.1, §13.1.3, §13.2.2).
//   - 404 with one plain sentence for an unknown or revoked secret, the
//     same for both.
//   - 405 with Allow: GET, HEAD for other methods.
//   - 503 with Retry-After when the database cannot be reached, 500 for
//     another failure before the file starts; a failure while the file is
//     being written cuts the connection (http.ErrAbortHandler), so a
//     subscriber keeps its last good copy instead of a cut file.
//
// The ETag and Last-Modified come from the person's newest change in the
// journal and their zone (see [ETag]) and are read before the file, so a
// change made while it is written can only make the next poll fetch again,
// never hide that change. Cache-Control is "private, max-age=N": a
// person's calendar is no shared cache's to keep.
func Handler(st *store.Store, opts Options) http.Handler {
	h := &handler{st: st, opts: opts}
	if h.opts.Logger == nil {
		h.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if h.opts.Now == nil {
		h.opts.Now = st.Now
		if h.opts.Now == nil {
			h.opts.Now = time.Now
		}
	}
	if h.opts.MaxAge <= 0 {
		h.opts.MaxAge = DefaultMaxAge
	}
	if h.opts.Timeout <= 0 {
		h.opts.Timeout = DefaultTimeout
	}
	return h
}

type handler struct {
	st   *store.Store
	opts Options
}

// secretOf is the secret of a feed path ("/feed/SECRET.ics", or
// "SECRET.ics" when a mux stripped the prefix); ok is false for a path of
// another shape.
func secretOf(path string) (string, bool) {
	name, ok := strings.CutPrefix(path, Prefix)
	if !ok {
		name = strings.TrimPrefix(path, "/")
	}
	secret, ok := strings.CutSuffix(name, ".ics")
	if !ok || len(secret) != secretLen || !strings.HasPrefix(secret, store.FeedSecretPrefix) {
		return "", false
	}
	for _, c := range secret[len(store.FeedSecretPrefix):] {
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return "", false
		}
	}
	return secret, true
}

// RedactPath is path with the secret of a feed in it cut to the prefix
// `assistant feed list` shows ("/feed/asf_k3j9x2qa….ics"), for logs of
// requests; any other path comes back as it is.
func RedactPath(path string) string {
	i := strings.Index(path, store.FeedSecretPrefix)
	if i < 0 {
		return path
	}
	end := len(path)
	if j := strings.IndexAny(path[i:], "/.?#"); j >= 0 {
		end = i + j
	}
	if end-i <= shown {
		return path
	}
	return path[:i+shown] + "…" + path[end:]
}

// ETag is the entity tag of a person's feed (RFC 9110 §8.8.3): a strong
// tag hashed from the feed [Version], the person's id and zone (floating
// dates are read in it), and the number and time of their newest change
// in the journal (0 and the zero time when they have none; the time too,
// so a number reused after purge empties the journal is not taken for the
// old one). Any write of an event, occurrence or task is a change, so the
// tag moves with what the feed holds.
func ETag(personID int64, zone string, change int64, at time.Time) string {
	var unix int64
	if !at.IsZero() {
		unix = at.Unix()
	}
	h := sha256.Sum256(fmt.Appendf(nil, "feed %d\x00%d\x00%s\x00%d\x00%d", Version, personID, zone, change, unix))
	return `"` + hex.EncodeToString(h[:10]) + `"`
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "A calendar feed is only read: use GET or HEAD.", http.StatusMethodNotAllowed)
		return
	}
	secret, ok := secretOf(r.URL.Path)
	if !ok {
		http.Error(w, notFound, http.StatusNotFound)
		return
	}
	log := h.opts.Logger.With("feed", secret[:shown]+"…")
	ctx := r.Context()
	p, err := h.st.PersonByFeedSecret(ctx, secret)
	if errors.Is(err, store.ErrNotFound) {
		http.Error(w, notFound, http.StatusNotFound)
		return
	}
	if err != nil {
		h.failed(w, log, "checking a feed secret failed", err)
		return
	}
	var change int64
	var at time.Time
	if err := h.st.Read(ctx, p.ID, func(tx *store.Tx) error {
		var err error
		change, at, err = tx.LastChange()
		return err
	}); err != nil {
		h.failed(w, log, "reading a feed's last change failed", err)
		return
	}
	etag := ETag(p.ID, p.Zone, change, at)
	modified := at
	if modified.IsZero() {
		modified = p.Created
	}
	// Change times are whole seconds, so a second change within the same
	// second would carry the same stamp: a stamp is a validator only once
	// its second is over (RFC 9110 §8.8.2.2). Until then no Last-Modified
	// is sent and If-Modified-Since is not read; the ETag still is.
	now := h.opts.Now().UTC().Truncate(time.Second)
	settled := modified.Before(now)
	hd := w.Header()
	hd.Set("ETag", etag)
	if settled {
		hd.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	hd.Set("Cache-Control", "private, max-age="+strconv.Itoa(int(h.opts.MaxAge/time.Second)))
	if notModified(r, etag, modified, now, settled) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd.Set("Content-Type", "text/calendar; charset=utf-8")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, h.opts.Timeout)
	defer cancel()
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(h.opts.Timeout))
	cw := &counting{w: w}
	err = ics.Export(ctx, h.st, p, cw, time.Time{}, time.Time{})
	switch {
	case err == nil:
	case cw.n == 0:
		h.failed(w, log, "exporting a feed failed", err)
	default:
		if ctx.Err() == nil {
			log.Error("exporting a feed failed after it started; the connection is cut", "person", p.ID, "bytes", cw.n, "err", err)
		} else {
			log.Debug("a feed was not read to its end", "person", p.ID, "bytes", cw.n, "err", err)
		}
		// The status line is sent: only a cut connection tells the
		// subscriber that the file is not whole.
		panic(http.ErrAbortHandler)
	}
}

// failed answers a failure before the file started: 503 with Retry-After
// when the database cannot be reached (a retry mends it), else 500. The
// subscriber gets a sentence; the log gets the error.
func (h *handler) failed(w http.ResponseWriter, log *slog.Logger, what string, err error) {
	if errors.Is(err, context.Canceled) {
		log.Debug(what, "err", err)
		return
	}
	log.Error(what, "err", err)
	for _, k := range []string{"ETag", "Last-Modified", "Cache-Control", "Content-Type"} {
		w.Header().Del(k)
	}
	if store.TroubleOf(err) == store.Unavailable {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "The calendar could not be read just now; try again in a moment.", http.StatusServiceUnavailable)
		return
	}
	http.Error(w, "The calendar could not be read; try again later.", http.StatusInternalServerError)
}

// notModified applies the preconditions of a GET or HEAD (RFC 9110
// §13.2.2): If-None-Match when present, compared weakly (§8.8.3.2; "*"
// matches, the feed exists); else If-Modified-Since, ignored when it is
// no HTTP-date or later than now (a subscriber's clock ahead of ours
// would otherwise hide changes).
func notModified(r *http.Request, etag string, modified, now time.Time, settled bool) bool {
	if inm := r.Header.Values("If-None-Match"); len(inm) > 0 {
		for _, v := range inm {
			for _, tag := range strings.Split(v, ",") {
				tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
				if tag == "*" || tag == etag {
					return true
				}
			}
		}
		return false
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" || !settled {
		return false
	}
	t, err := http.ParseTime(ims)
	if err != nil || t.After(now) {
		return false
	}
	return !modified.After(t)
}

// counting passes writes on and counts the bytes that went.
type counting struct {
	w http.ResponseWriter
	n int64
}

func (c *counting) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
