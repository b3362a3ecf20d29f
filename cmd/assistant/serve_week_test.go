package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/mcpserver"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// weekSite is the HTTP server of `assistant serve` on a real SQLite
// store with two people, alice (Europe/Paris) and bob (America/New_York),
// each with a token and events added through the real tools, at a fixed
// clock: Wednesday 9 December 2026, 10:30 in Paris.
type weekSite struct {
	url    string
	tokens map[string]string
	ids    map[string]string // title → event or task id
}

// hostile is a title that would run as a script or break an attribute
// if the page did not escape it.
const hostile = `<script>alert("x")</script> & 'quotes' "too"`

func newWeekSite(t *testing.T) *weekSite {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "assistant.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := newApp(strings.NewReader(""), io.Discard, io.Discard)
	now := time.Date(2026, 12, 9, 10, 30, 0, 0, tz.MustZone("Europe/Paris").Location())
	a.now = func() time.Time { return now }
	s := &weekSite{tokens: map[string]string{}, ids: map[string]string{}}
	reg := newRegistry()
	add := func(who tools.Person, tool string, args map[string]any) {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, _ := reg.Call(ctx, a.toolContext(st, who), tool, raw)
		if res.Code != tools.CodeOK {
			t.Fatalf("%s %s as %s: %d %s", tool, raw, who.Name, res.Code, res.Err)
		}
		var d struct {
			ID   string `json:"id"`
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
			Event struct {
				ID string `json:"id"`
			} `json:"event"`
		}
		_ = json.Unmarshal(res.Data, &d)
		s.ids[args["title"].(string)] = d.ID + d.Task.ID + d.Event.ID
	}
	people := map[string]tools.Person{}
	for name, zone := range map[string]string{"alice": "Europe/Paris", "bob": "America/New_York"} {
		p, err := st.AddPerson(ctx, name, zone)
		if err != nil {
			t.Fatal(err)
		}
		if s.tokens[name], _, err = st.CreateToken(ctx, p.ID, "week page test"); err != nil {
			t.Fatal(err)
		}
		people[name] = tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(zone)}
	}
	add(people["alice"], "add_event", map[string]any{"title": "Stand-up", "start": "2026-12-07T09:30", "end": "2026-12-07T10:15"})
	add(people["alice"], "add_event", map[string]any{"title": hostile, "start": "2026-12-09T14:00", "end": "2026-12-09T15:00", "location": `Room "B" <2>`})
	add(people["alice"], "add_event", map[string]any{"title": "Trip", "start": "2026-12-10", "end": "2026-12-11"})
	add(people["alice"], "add_task", map[string]any{"title": "File the report", "due": "2026-12-08"})
	add(people["bob"], "add_event", map[string]any{"title": "Bob's dentist", "start": "2026-12-07T11:00", "end": "2026-12-07T12:00"})

	f, err := a.httpFronts(st, newRegistry(), &mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(f.handler())
	t.Cleanup(ts.Close)
	s.url = ts.URL
	return s
}

// get sends method to path, signed in as user with password when user is
// not "", and returns the answer with its body read.
func (s *weekSite) get(t *testing.T, method, path, user, password string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// TestWeekPageSignIn checks that /week signs in as CalDAV does: no
// credentials, a wrong password, another person's token or a token in
// the URL get 401 with the Basic challenge, and the page shows nothing.
func TestWeekPageSignIn(t *testing.T) {
	s := newWeekSite(t)
	for _, c := range []struct{ name, path, user, pass string }{
		{"no credentials", "/week", "", ""},
		{"a wrong password", "/week", "alice", "not-a-token"},
		{"bob's token as alice", "/week", "alice", s.tokens["bob"]},
		{"the token in the URL", "/week?token=" + url.QueryEscape(s.tokens["alice"]) + "&password=" + url.QueryEscape(s.tokens["alice"]), "", ""},
		{"the token as the user", "/week", s.tokens["alice"], ""},
	} {
		res, body := s.get(t, http.MethodGet, c.path, c.user, c.pass)
		if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), `Basic realm="assistant"`) {
			t.Errorf("%s: %d %q, want 401 with a Basic challenge", c.name, res.StatusCode, res.Header.Get("WWW-Authenticate"))
		}
		if strings.Contains(body, "Stand-up") || strings.Contains(body, "<html") {
			t.Errorf("%s: the answer shows the page:\n%s", c.name, short(body))
		}
		if !strings.Contains(body, "assistant token create") {
			t.Errorf("%s: the answer does not say how to sign in:\n%s", c.name, body)
		}
	}
	// The user name is matched as CalDAV matches it: any case.
	if res, body := s.get(t, http.MethodGet, "/week", "Alice", s.tokens["alice"]); res.StatusCode != http.StatusOK {
		t.Errorf("as Alice: %d %s", res.StatusCode, short(body))
	}
}

// TestWeekPageOwnData checks that each person sees their own week, in
// their own zone, and nothing of the other's, and that the page is
// served with the headers that keep it private and script-free.
func TestWeekPageOwnData(t *testing.T) {
	s := newWeekSite(t)
	res, body := s.get(t, http.MethodGet, "/week", "alice", s.tokens["alice"])
	if res.StatusCode != http.StatusOK {
		t.Fatalf("alice: %d %s", res.StatusCode, short(body))
	}
	for h, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Cache-Control":           "no-store",
		"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	} {
		if got := res.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	for _, want := range []string{
		"Week of 7 – 13 December 2026", "Europe/Paris", "Stand-up", "Trip", "File the report",
		`href="/week?from=2026-11-30"`, `href="/week?from=2026-12-14"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("alice's page lacks %q:\n%s", want, body)
		}
	}
	// 09:30 to 10:15, with 07:00 the first hour: 150 px down, 45 high
	// (html/template writes the offset's "+" as &#43;).
	standUp := regexp.MustCompile(`data-id="` + regexp.QuoteMeta(s.ids["Stand-up"]) + `(@\w+)?" data-start="2026-12-07T09:30:00&#43;01:00" data-end="2026-12-07T10:15:00&#43;01:00" style="top: 150px; height: 45px;`)
	if !standUp.MatchString(body) {
		t.Errorf("alice's page has no Stand-up block at 150px, 45px high:\n%s", body)
	}
	if strings.Contains(body, "Bob") || strings.Contains(body, "America/New_York") {
		t.Errorf("alice's page shows bob's data:\n%s", body)
	}

	res, body = s.get(t, http.MethodGet, "/week?from=2026-12-07", "bob", s.tokens["bob"])
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "Bob&#39;s dentist") || !strings.Contains(body, "America/New_York") {
		t.Errorf("bob: %d, want his event in his zone:\n%s", res.StatusCode, body)
	}
	for _, theirs := range []string{"Stand-up", "Trip", "File the report", "alert"} {
		if strings.Contains(body, theirs) {
			t.Errorf("bob's page shows alice's %q", theirs)
		}
	}

	if res, body := s.get(t, http.MethodHead, "/week", "alice", s.tokens["alice"]); res.StatusCode != http.StatusOK || body != "" {
		t.Errorf("HEAD /week: %d %q, want 200 and no body", res.StatusCode, short(body))
	}
	if res, body := s.get(t, http.MethodPost, "/week", "alice", s.tokens["alice"]); res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /week: %d %q %s, want 405 allowing GET and HEAD", res.StatusCode, res.Header.Get("Allow"), body)
	}
	if _, body := s.get(t, http.MethodGet, "/", "", ""); !strings.Contains(body, s.url+"/week\n") {
		t.Errorf("GET / does not name the week page:\n%s", body)
	}
}

// TestWeekPageEscapes checks that a title and a location with markup and
// quotes reach the page as text, in the block and in its attributes.
func TestWeekPageEscapes(t *testing.T) {
	s := newWeekSite(t)
	_, body := s.get(t, http.MethodGet, "/week?from=2026-12-09", "alice", s.tokens["alice"])
	if strings.Contains(body, "<script") || strings.Contains(body, `"x"`) || strings.Contains(body, `<2>`) {
		t.Errorf("the page holds the title's markup unescaped:\n%s", body)
	}
	for _, want := range []string{
		`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;quotes&#39; &#34;too&#34;`,
		`Room &#34;B&#34; &lt;2&gt;`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks the escaped %q:\n%s", want, body)
		}
	}
	// The block is whole: its attributes were not broken by the quotes.
	re := regexp.MustCompile(`<div class="ev[^"]*" data-id="` + regexp.QuoteMeta(s.ids[hostile]) + `(@\w+)?" data-start="2026-12-09T14:00:00&#43;01:00" data-end="2026-12-09T15:00:00&#43;01:00" style="top: 420px; height: 60px; left: 0%; width: 100%" title="[^"<>]*">`)
	if !re.MatchString(body) {
		t.Errorf("the hostile title's block is not whole:\n%s", body)
	}
}

// TestWeekPageBadFrom checks that a wrong ?from= gets 400 with one
// sentence naming it, and reads nothing.
func TestWeekPageBadFrom(t *testing.T) {
	s := newWeekSite(t)
	for _, from := range []string{"2026-13-01", "2026-02-30", "tomorrow", "", "07/12/2026", "2026-12-07T09:00", "0000-01-01", "9999-12-30", "2026-12-07&from=2026-12-14"} {
		res, body := s.get(t, http.MethodGet, "/week?from="+from, "alice", s.tokens["alice"])
		if res.StatusCode != http.StatusBadRequest || !strings.HasPrefix(body, "“from” must be") || strings.Count(strings.TrimSpace(body), ". ") != 0 ||
			strings.Contains(body, "Stand-up") {
			t.Errorf("from=%s: %d %q, want 400 with one sentence about “from”", from, res.StatusCode, body)
		}
	}
	// Without sign-in a bad from is still 401: nothing is said before.
	if res, _ := s.get(t, http.MethodGet, "/week?from=nope", "", ""); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("from=nope without sign-in: %d, want 401", res.StatusCode)
	}
	// The bounds themselves are days the page shows.
	for _, from := range []string{"0001-01-01", "9999-12-25"} {
		if res, body := s.get(t, http.MethodGet, "/week?from="+from, "alice", s.tokens["alice"]); res.StatusCode != http.StatusOK {
			t.Errorf("from=%s: %d %s, want the page", from, res.StatusCode, short(body))
		}
	}
}
