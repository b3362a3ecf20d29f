package feed_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/feed"
	"github.com/assistant-dev/assistant/ics"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
)

var t0 = time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)

// cal is an iCalendar file of one event and one task, each named by what.
func cal(what string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n" +
		"BEGIN:VEVENT\r\nUID:" + what + "-e@t\r\nDTSTAMP:20261001T000000Z\r\n" +
		"DTSTART;TZID=Europe/Paris:20261012T090000\r\nDTEND;TZID=Europe/Paris:20261012T100000\r\n" +
		"RRULE:FREQ=WEEKLY;COUNT=3\r\nSUMMARY:" + what + " weekly\r\nEND:VEVENT\r\n" +
		"BEGIN:VTODO\r\nUID:" + what + "-t@t\r\nDTSTAMP:20261001T000000Z\r\nDUE;VALUE=DATE:20261020\r\n" +
		"SUMMARY:" + what + " task\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
}

type fixture struct {
	env        *tooltest.Env
	srv        *httptest.Server
	alice, bob store.Person
	secret     string // alice's
	logs       *bytes.Buffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{env: tooltest.Open(t, t0), logs: &bytes.Buffer{}}
	st, ctx := f.env.Store, f.env.Ctx
	var err error
	if f.alice, err = st.AddPerson(ctx, "alice", "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	if f.bob, err = st.AddPerson(ctx, "bob", "America/New_York"); err != nil {
		t.Fatal(err)
	}
	f.env.Now = t0.Add(time.Hour)
	f.importFor(t, f.alice, cal("Alice"))
	f.importFor(t, f.bob, cal("Bob"))
	f.env.Now = t0.Add(2 * time.Hour)
	if f.secret, _, err = st.CreateFeedSecret(ctx, f.alice.ID, "Google"); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	mux := http.NewServeMux()
	mux.Handle(feed.Prefix, feed.Handler(st, feed.Options{Logger: log, MaxAge: 10 * time.Minute}))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) importFor(t *testing.T, p store.Person, file string) {
	t.Helper()
	if _, err := ics.Import(f.env.Ctx, f.env.Store, p, strings.NewReader(file), ics.ImportOptions{Source: "t.ics"}); err != nil {
		t.Fatal(err)
	}
}

type answer struct {
	code int
	h    http.Header
	body string
}

func (f *fixture) do(t *testing.T, method, path string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, string(b)}
}

func (f *fixture) url() string { return "/feed/" + f.secret + ".ics" }

func TestFeed(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := newFixture(t)
		f.env.Now = t0.Add(3 * time.Hour)
		a := f.do(t, "GET", f.url())
		if a.code != 200 || a.h.Get("Content-Type") != "text/calendar; charset=utf-8" || a.h.Get("Cache-Control") != "private, max-age=600" {
			t.Fatalf("GET = %d %v\n%s", a.code, a.h, a.body)
		}
		got, err := ics.Decode(strings.NewReader(a.body), ics.DecodeOptions{Zone: tz.MustZone("Europe/Paris")})
		if err != nil {
			t.Fatalf("the feed does not decode: %v\n%s", err, a.body)
		}
		if len(got.Events) != 1 || got.Events[0].Summary != "Alice weekly" || got.Events[0].Rule == nil ||
			len(got.Tasks) != 1 || got.Tasks[0].Summary != "Alice task" {
			t.Fatalf("the feed holds %+v, %+v; want alice's weekly event and her task", got.Events, got.Tasks)
		}
		if strings.Contains(a.body, "Bob") {
			t.Fatalf("alice's feed shows bob's calendar:\n%s", a.body)
		}
		etag := a.h.Get("ETag")
		// The newest change is the import at t0+1h.
		if !strings.HasPrefix(etag, `"`) || len(etag) < 10 || a.h.Get("Last-Modified") != t0.Add(time.Hour).Format(http.TimeFormat) {
			t.Fatalf("ETag %q, Last-Modified %q", etag, a.h.Get("Last-Modified"))
		}

		// A poll with what it was given: 304, no body, the same validators.
		for _, c := range [][]string{
			{"If-None-Match", etag},
			{"If-None-Match", `"other", W/` + etag},
			{"If-None-Match", "*"},
			{"If-Modified-Since", a.h.Get("Last-Modified")},
			{"If-Modified-Since", t0.Add(90 * time.Minute).Format(http.TimeFormat)},
		} {
			for _, m := range []string{"GET", "HEAD"} {
				b := f.do(t, m, f.url(), c...)
				if b.code != 304 || b.body != "" || b.h.Get("ETag") != etag || b.h.Get("Cache-Control") == "" {
					t.Errorf("%s with %s: %q = %d %v %q; want 304 with no body", m, c[0], c[1], b.code, b.h, b.body)
				}
			}
		}
		for _, c := range [][]string{
			{"If-None-Match", `"other"`},
			// If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2).
			{"If-None-Match", `"other"`, "If-Modified-Since", a.h.Get("Last-Modified")},
			{"If-Modified-Since", t0.Add(time.Hour - time.Second).Format(http.TimeFormat)},
			{"If-Modified-Since", "yesterday"},
			// A subscriber's clock ahead of ours proves nothing.
			{"If-Modified-Since", t0.Add(48 * time.Hour).Format(http.TimeFormat)},
		} {
			if b := f.do(t, "GET", f.url(), c...); b.code != 200 || !strings.Contains(b.body, "Alice weekly") {
				t.Errorf("GET with %q: %d; want 200 with the feed", c, b.code)
			}
		}

		// HEAD: the headers of GET, no body.
		h := f.do(t, "HEAD", f.url())
		if h.code != 200 || h.body != "" || h.h.Get("ETag") != etag || h.h.Get("Content-Type") != "text/calendar; charset=utf-8" {
			t.Errorf("HEAD = %d %v %q", h.code, h.h, h.body)
		}

		// A write moves the ETag; the old one gets the new file.
		f.env.Now = t0.Add(4 * time.Hour)
		f.importFor(t, f.alice, strings.Replace(cal("Alice"), "SUMMARY:Alice task", "SUMMARY:Alice task renamed", 1))
		b := f.do(t, "GET", f.url(), "If-None-Match", etag)
		if b.code != 200 || b.h.Get("ETag") == etag || !strings.Contains(b.body, "Alice task renamed") ||
			b.h.Get("Last-Modified") != "" {
			t.Fatalf("after a write: %d ETag %q (was %q) Last-Modified %q\n%s", b.code, b.h.Get("ETag"), etag, b.h.Get("Last-Modified"), b.body)
		}
		// A write of bob's leaves alice's feed as it was.
		etag2 := b.h.Get("ETag")
		f.env.Now = t0.Add(5 * time.Hour)
		f.importFor(t, f.bob, strings.Replace(cal("Bob"), "Bob task", "Bob task 2", 1))
		if c := f.do(t, "GET", f.url(), "If-None-Match", etag2); c.code != 304 {
			t.Errorf("bob's write changed alice's feed: %d", c.code)
		}
		// A zone change moves it too: floating dates are read in it.
		if _, _, err := f.env.Store.SetZone(f.env.Ctx, f.alice.ID, "Asia/Tokyo", "set_zone"); err != nil {
			t.Fatal(err)
		}
		if c := f.do(t, "GET", f.url(), "If-None-Match", etag2); c.code != 200 {
			t.Errorf("after a zone change: %d, want 200", c.code)
		}

		// Other methods: 405 naming the two.
		for _, m := range []string{"PUT", "POST", "DELETE", "PROPFIND"} {
			if c := f.do(t, m, f.url()); c.code != 405 || c.h.Get("Allow") != "GET, HEAD" || strings.Contains(c.body, "BEGIN:") {
				t.Errorf("%s = %d Allow %q", m, c.code, c.h.Get("Allow"))
			}
		}

		// Revoked, unknown, an access token, other shapes: one answer.
		token, _, err := f.env.Store.CreateToken(f.env.Ctx, f.alice.ID, "laptop")
		if err != nil {
			t.Fatal(err)
		}
		if err := f.env.Store.RevokeFeedSecret(f.env.Ctx, f.secret); err != nil {
			t.Fatal(err)
		}
		unknown := "asf_" + strings.Repeat("a", 52)
		var first string
		for _, p := range []string{f.url(), "/feed/" + unknown + ".ics", "/feed/" + token + ".ics", "/feed/" + f.secret, "/feed/", "/feed/x.ics",
			"/feed/" + strings.ToUpper(f.secret) + ".ics"} {
			for _, m := range []string{"GET", "HEAD"} {
				c := f.do(t, m, p)
				if c.code != 404 || c.h.Get("ETag") != "" || strings.Contains(c.body, "BEGIN:") {
					t.Errorf("%s %s = %d %v %q; want 404", m, p, c.code, c.h, c.body)
				}
				if m == "GET" && first == "" {
					first = c.body
				} else if m == "GET" && c.body != first {
					t.Errorf("GET %s says %q; a revoked feed said %q: want one sentence for all", p, c.body, first)
				}
			}
		}
		if !strings.HasSuffix(strings.TrimSpace(first), ".") || strings.Count(strings.TrimSpace(first), "\n") != 0 {
			t.Errorf("the 404 is not one sentence: %q", first)
		}
		if strings.Contains(f.logs.String(), f.secret[12:]) {
			t.Errorf("the log holds the secret:\n%s", f.logs.String())
		}
	})
}

// A person with no change yet: Last-Modified is when they were added,
// and the empty calendar is still a calendar.
func TestFeedOfNoChanges(t *testing.T) {
	env := tooltest.Open(t, t0)
	p, err := env.Store.AddPerson(env.Ctx, "carol", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := env.Store.CreateFeedSecret(env.Ctx, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	env.Now = t0.Add(time.Minute)
	h := feed.Handler(env.Store, feed.Options{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/feed/"+secret+".ics", nil))
	if rec.Code != 200 || rec.Header().Get("Last-Modified") != t0.Format(http.TimeFormat) || rec.Header().Get("Cache-Control") != "private, max-age=300" {
		t.Fatalf("GET = %d %v", rec.Code, rec.Header())
	}
	got, err := ics.Decode(rec.Body, ics.DecodeOptions{})
	if err != nil || len(got.Events)+len(got.Tasks) != 0 {
		t.Fatalf("an empty feed: %+v, %v", got, err)
	}
	// A mux that strips the prefix serves the same feed.
	rec = httptest.NewRecorder()
	http.StripPrefix("/feed", h).ServeHTTP(rec, httptest.NewRequest("GET", "/feed/"+secret+".ics", nil))
	if rec.Code != 200 {
		t.Errorf("behind StripPrefix: %d", rec.Code)
	}
	// A change within the second of the answer: no Last-Modified until
	// that second is over, and If-Modified-Since is not read meanwhile, so
	// a second change within that second cannot be hidden by it.
	env.Now = t0.Add(2 * time.Minute)
	if _, err := ics.Import(env.Ctx, env.Store, p, strings.NewReader(cal("Carol")), ics.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/feed/"+secret+".ics", nil))
	if lm := rec.Header().Get("Last-Modified"); lm != "" {
		t.Fatalf("Last-Modified of a change this second = %q, want none", lm)
	}
	if _, err := ics.Import(env.Ctx, env.Store, p, strings.NewReader(strings.Replace(cal("Carol"), "Carol task", "Carol task 2", 1)), ics.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	lm := t0.Add(2 * time.Minute).Format(http.TimeFormat)
	rec = httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/feed/"+secret+".ics", nil)
	req.Header.Set("If-Modified-Since", lm)
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "Carol task 2") {
		t.Errorf("If-Modified-Since within the second of the last change: %d, want the file", rec.Code)
	}
	// Once the second is over, its stamp is a validator.
	env.Now = t0.Add(3 * time.Minute)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/feed/"+secret+".ics", nil))
	if got := rec.Header().Get("Last-Modified"); got != lm {
		t.Errorf("Last-Modified once the second is over = %q, want %q", got, lm)
	}
	rec = httptest.NewRecorder()
	req = httptest.NewRequest("GET", "/feed/"+secret+".ics", nil)
	req.Header.Set("If-Modified-Since", lm)
	h.ServeHTTP(rec, req)
	if rec.Code != 304 {
		t.Errorf("If-Modified-Since of the settled stamp: %d, want 304", rec.Code)
	}
}

// A store that fails before the file starts: a sentence and a status,
// no validators, nothing of the database's words.
func TestFeedStoreDown(t *testing.T) {
	env := tooltest.Open(t, t0)
	p, _ := env.Store.AddPerson(env.Ctx, "dave", "UTC")
	secret, _, err := env.Store.CreateFeedSecret(env.Ctx, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	h := feed.Handler(env.Store, feed.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	env.Store.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/feed/"+secret+".ics", nil).WithContext(context.Background()))
	if rec.Code < 500 || rec.Header().Get("ETag") != "" || strings.Contains(rec.Body.String(), "sql") {
		t.Fatalf("store closed: %d %v %q", rec.Code, rec.Header(), rec.Body.String())
	}
	if !strings.Contains(logs.String(), secret[:12]) || strings.Contains(logs.String(), secret[12:]) {
		t.Errorf("the log should name the feed by its prefix only:\n%s", logs.String())
	}
}

func TestRedactPath(t *testing.T) {
	s := "asf_" + strings.Repeat("k", 52)
	for in, want := range map[string]string{
		"/feed/" + s + ".ics":        "/feed/asf_kkkkkkkk….ics",
		"/feed/" + s:                 "/feed/asf_kkkkkkkk…",
		"/feed/" + s + ".ics?x=1":    "/feed/asf_kkkkkkkk….ics?x=1",
		"/mcp":                       "/mcp",
		"/feed/asf_kk.ics":           "/feed/asf_kk.ics",
		"/dav/me/calendars/events/":  "/dav/me/calendars/events/",
		"/feed/" + s + "/more/x.ics": "/feed/asf_kkkkkkkk…/more/x.ics",
	} {
		if got := feed.RedactPath(in); got != want {
			t.Errorf("RedactPath(%q) = %q; want %q", in, got, want)
		}
	}
}

// ETag moves with each of its parts.
func TestETag(t *testing.T) {
	at := t0
	base := feed.ETag(1, "UTC", 31, at)
	for name, other := range map[string]string{
		"person": feed.ETag(2, "UTC", 31, at),
		"zone":   feed.ETag(1, "Europe/Paris", 31, at),
		"change": feed.ETag(1, "UTC", 32, at),
		"time":   feed.ETag(1, "UTC", 31, at.Add(time.Second)),
		"none":   feed.ETag(1, "UTC", 0, time.Time{}),
	} {
		if other == base {
			t.Errorf("the ETag does not move with the %s", name)
		}
	}
	if feed.ETag(1, "UTC", 31, at) != base || !strings.HasPrefix(base, `"`) || !strings.HasSuffix(base, `"`) {
		t.Errorf("ETag is not a stable quoted tag: %s", base)
	}
}
