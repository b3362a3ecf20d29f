package caldav_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/caldav"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/tasks"
	"github.com/assistant-dev/assistant/tools/tooltest"
)

// fixture is one store served over CalDAV through httptest, with people
// and their tokens.
type fixture struct {
	t   testing.TB
	env *tooltest.Env
	srv *httptest.Server
	me  tools.Person
	tok string
}

func open(t testing.TB) *fixture {
	t.Helper()
	env := tooltest.Open(t, time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC), events.Register, tasks.Register, changes.Register)
	f := &fixture{t: t, env: env}
	f.me = env.Person("me", "Europe/Paris")
	f.tok = f.token(f.me)
	f.srv = httptest.NewServer(caldav.Handler(env.Store, caldav.Options{Now: func() time.Time { return env.Now }}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) token(p tools.Person) string {
	f.t.Helper()
	tok, _, err := f.env.Store.CreateToken(context.Background(), p.ID, "test")
	if err != nil {
		f.t.Fatal(err)
	}
	return tok
}

// do sends one request as user with password; user "" sends none.
func (f *fixture) do(method, path, user, pass string, header map[string]string, body string) (int, http.Header, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// as sends a request as the fixture's person.
func (f *fixture) as(method, path string, header map[string]string, body string) (int, http.Header, string) {
	f.t.Helper()
	return f.do(method, path, "me", f.tok, header, body)
}

func (f *fixture) call(tool, raw string) tools.ExecResult {
	f.t.Helper()
	res, _ := f.env.Call(f.me, tool, raw)
	if res.Code != 0 {
		f.t.Fatalf("%s %s: %d %s", tool, raw, res.Code, res.Err)
	}
	return res
}

func (f *fixture) lastChange() int64 {
	f.t.Helper()
	var n int64
	err := f.env.Store.Read(context.Background(), f.me.ID, func(tx *store.Tx) error {
		var err error
		n, _, err = tx.LastChange()
		return err
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

const events1 = "/dav/me/calendars/events/"

func object(uid, summary, extra string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:" + uid +
		"\r\nDTSTAMP:20261201T080000Z\r\nDTSTART;TZID=Europe/Paris:20261207T090000\r\nDTEND;TZID=Europe/Paris:20261207T093000\r\n" +
		"RRULE:FREQ=WEEKLY;COUNT=10\r\nSUMMARY:" + summary + "\r\n" + extra + "END:VEVENT\r\nEND:VCALENDAR\r\n"
}

var calHeader = map[string]string{"Content-Type": "text/calendar; charset=utf-8"}

func TestSignIn(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		code, h, _ := f.do("PROPFIND", "/dav/", "", "", nil, "")
		if code != 401 || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Basic ") {
			t.Fatalf("no credentials: %d %q", code, h.Get("WWW-Authenticate"))
		}
		for _, c := range []struct{ user, pass string }{{"me", "wrong"}, {"bob", f.tok}, {"me", ""}} {
			if code, _, _ := f.do("PROPFIND", "/dav/", c.user, c.pass, nil, ""); code != 401 {
				t.Errorf("%s/%s: %d, want 401", c.user, c.pass, code)
			}
		}
		// An empty PROPFIND is allprop (RFC 4918 §9.1), on every path.
		for _, path := range []string{"/", "/dav/", "/dav/me/", "/dav/me/calendars/", events1} {
			for _, ct := range []string{"", "application/xml"} {
				if code, _, body := f.as("PROPFIND", path, map[string]string{"Depth": "0", "Content-Type": ct}, ""); code != 207 {
					t.Errorf("empty PROPFIND of %s (Content-Type %q): %d %s", path, ct, code, body)
				}
			}
		}
		code, h, _ = f.do("PROPFIND", "/.well-known/caldav", "", "", nil, "")
		if code != 301 || h.Get("Location") != "/dav/" {
			t.Errorf("well-known: %d %q", code, h.Get("Location"))
		}
		code, _, body := f.as("PROPFIND", "/dav/", map[string]string{"Depth": "0"},
			`<propfind xmlns="DAV:"><prop><current-user-principal/></prop></propfind>`)
		if code != 207 || !strings.Contains(body, "/dav/me/") {
			t.Fatalf("principal: %d %s", code, body)
		}
		code, _, body = f.as("PROPFIND", "/dav/me/", map[string]string{"Depth": "0"},
			`<propfind xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><prop><C:calendar-home-set/></prop></propfind>`)
		if code != 207 || !strings.Contains(body, "/dav/me/calendars/") {
			t.Fatalf("home set: %d %s", code, body)
		}
	})
}

func TestHomeListsBothCollections(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		f.call("add_event", `{"title":"Standup","start":"2026-12-07T09:00","duration":15}`)
		code, _, body := f.as("PROPFIND", "/dav/me/calendars/", map[string]string{"Depth": "1"},
			`<propfind xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/"><prop>
			<resourcetype/><C:supported-calendar-component-set/><CS:getctag/><sync-token/><current-user-privilege-set/></prop></propfind>`)
		if code != 207 {
			t.Fatalf("%d %s", code, body)
		}
		for _, want := range []string{"/dav/me/calendars/events/", "/dav/me/calendars/tasks/", `<C:comp name="VEVENT"/>`, `<C:comp name="VTODO"/>`, "<C:calendar/>", "<D:write/>", "urn:x-assistant:sync:"} {
			if !strings.Contains(body, want) {
				t.Errorf("home listing lacks %s:\n%s", want, body)
			}
		}
		code, _, body = f.as("PROPFIND", events1, map[string]string{"Depth": "1"},
			`<propfind xmlns="DAV:"><prop><getetag/><getcontenttype/></prop></propfind>`)
		if code != 207 || !strings.Contains(body, "/dav/me/calendars/events/e1.ics") || !strings.Contains(body, "<D:getetag>&#34;") {
			t.Fatalf("collection listing: %d %s", code, body)
		}
	})
}

var etagRe = regexp.MustCompile(`"[0-9a-f]{24}"`)

func TestPutGetDelete(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		path := events1 + "abc-123.ics"
		obj := object("abc-123", "Yoga", "ATTENDEE;CN=Ann:mailto:ann@example.org\r\nX-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC\r\n")
		hdr := map[string]string{"Content-Type": "text/calendar", "If-None-Match": "*", "User-Agent": "DAVx5/4.4 (test)"}
		code, h, body := f.as("PUT", path, hdr, obj)
		if code != 201 || h.Get("ETag") != "" {
			t.Fatalf("create: %d etag %q %s", code, h.Get("ETag"), body)
		}
		before := f.lastChange()
		code, h, body = f.as("GET", path, nil, "")
		if code != 200 || !etagRe.MatchString(h.Get("ETag")) {
			t.Fatalf("get: %d %q %s", code, h.Get("ETag"), body)
		}
		for _, want := range []string{"UID:abc-123", "SUMMARY:Yoga", "ATTENDEE;CN=Ann:mailto:ann@example.org", "X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC", "RRULE:FREQ=WEEKLY;COUNT=10"} {
			if !strings.Contains(body, want) {
				t.Errorf("GET lacks %s:\n%s", want, body)
			}
		}
		tag := h.Get("ETag")
		if code, _, _ := f.as("GET", path, map[string]string{"If-None-Match": tag}, ""); code != 304 {
			t.Errorf("conditional GET: %d", code)
		}
		// The model sees what the client wrote.
		res := f.call("list_events", `{"from":"2026-12-07","to":"2026-12-08"}`)
		if !strings.Contains(res.Out, "Yoga") {
			t.Errorf("list_events does not show the PUT event: %s", res.Out)
		}
		// The same object again changes nothing.
		if code, _, _ := f.as("PUT", path, calHeader, obj); code != 204 {
			t.Errorf("same PUT: %d", code)
		}
		if got := f.lastChange(); got != before {
			t.Errorf("a PUT that changes nothing made change %d (was %d)", got, before)
		}
		// A lost race: 412, nothing written.
		if code, _, _ := f.as("PUT", path, map[string]string{"Content-Type": "text/calendar", "If-Match": `"000000000000000000000000"`}, object("abc-123", "Pilates", "")); code != 412 {
			t.Errorf("stale If-Match: %d", code)
		}
		if code, _, _ := f.as("PUT", path, map[string]string{"Content-Type": "text/calendar", "If-None-Match": "*"}, object("abc-123", "Pilates", "")); code != 412 {
			t.Errorf("If-None-Match * on an existing one: %d", code)
		}
		code, _, _ = f.as("PUT", path, map[string]string{"Content-Type": "text/calendar", "If-Match": tag}, object("abc-123", "Pilates", ""))
		if code != 204 {
			t.Fatalf("PUT with the right If-Match: %d", code)
		}
		ch := f.call("list_changes", `{}`)
		if !strings.Contains(ch.Out, "over CalDAV from DAVx5/4.4") {
			t.Errorf("list_changes does not name the client: %s", ch.Out)
		}
		// Another resource may not take the same UID.
		code, _, body = f.as("PUT", events1+"other.ics", calHeader, object("abc-123", "Copy", ""))
		if code != 409 || !strings.Contains(body, "no-uid-conflict") || !strings.Contains(body, "abc-123.ics") {
			t.Errorf("UID taken: %d %s", code, body)
		}
		code, _, _ = f.as("DELETE", path, nil, "")
		if code != 204 {
			t.Fatalf("delete: %d", code)
		}
		if code, _, _ := f.as("GET", path, nil, ""); code != 404 {
			t.Errorf("GET after DELETE: %d", code)
		}
		f.call("undo", `{}`)
		if code, _, body := f.as("GET", path, nil, ""); code != 200 || !strings.Contains(body, "Pilates") {
			t.Errorf("undo of a CalDAV delete: %d %s", code, body)
		}
	})
}

func TestBadInputStoresNothing(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		before := f.lastChange()
		noUID := strings.Replace(object("x", "No UID", ""), "UID:x\r\n", "", 1)
		twoUIDs := strings.Replace(object("a", "A", ""), "END:VCALENDAR", "BEGIN:VEVENT\r\nUID:b\r\nDTSTAMP:20261201T080000Z\r\nDTSTART:20261208T090000Z\r\nSUMMARY:B\r\nEND:VEVENT\r\nEND:VCALENDAR", 1)
		cases := []struct {
			name, method, path, body string
			header                   map[string]string
			code                     int
		}{
			{"malformed PROPFIND", "PROPFIND", events1, "<propfind xmlns='DAV:'><prop>", map[string]string{"Depth": "1"}, 400},
			{"malformed REPORT", "REPORT", events1, "<<<", nil, 400},
			{"a body of 10 MB", "PUT", events1 + "big.ics", strings.Repeat("X", 10<<20), calHeader, 413},
			{"no UID", "PUT", events1 + "n.ics", noUID, calHeader, 403},
			{"two UIDs", "PUT", events1 + "t.ics", twoUIDs, calHeader, 403},
			{"a VEVENT among the tasks", "PUT", "/dav/me/calendars/tasks/e.ics", object("e", "E", ""), calHeader, 403},
			{"not iCalendar", "PUT", events1 + "j.ics", "{}", map[string]string{"Content-Type": "application/json"}, 415},
			{"garbage iCalendar", "PUT", events1 + "g.ics", "BEGIN:VCALENDAR\r\nnonsense", calHeader, 403},
			{"an unknown report", "REPORT", events1, `<x xmlns="urn:other"/>`, nil, 403},
			{"a bad sync token", "REPORT", events1, `<sync-collection xmlns="DAV:"><sync-token>http://other/1</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`, nil, 403},
			{"MKCALENDAR", "MKCALENDAR", "/dav/me/calendars/new/", "", nil, 403},
		}
		for _, c := range cases {
			code, _, body := f.as(c.method, c.path, c.header, c.body)
			if code != c.code {
				t.Errorf("%s: %d, want %d: %s", c.name, code, c.code, body)
			}
			if strings.Contains(body, "goroutine") || strings.Contains(body, "*ics.") || strings.Contains(body, "SELECT") {
				t.Errorf("%s: the answer shows internals: %s", c.name, body)
			}
		}
		if got := f.lastChange(); got != before {
			t.Errorf("bad input wrote change %d", got)
		}
	})
}

func TestSyncCollectionFollowsTheJournal(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		// Five events in one change of five rows: a token after it is
		// after all of them.
		f.seed(5)
		f.call("add_task", `{"title":"A task"}`)
		sync := func(token string, extra string) (int, string) {
			code, _, body := f.as("REPORT", events1, nil, `<sync-collection xmlns="DAV:"><sync-token>`+token+`</sync-token><sync-level>1</sync-level>`+extra+`<prop><getetag/></prop></sync-collection>`)
			return code, body
		}
		tokenRe := regexp.MustCompile(`<D:sync-token>([^<]+)</D:sync-token>`)
		code, body := sync("", "")
		if code != 207 || strings.Count(body, "<D:response>") != 5 {
			t.Fatalf("first sync: %d %s", code, body)
		}
		tok := tokenRe.FindStringSubmatch(body)[1]
		code, body = sync(tok, "")
		if code != 207 || strings.Count(body, "<D:response>") != 0 {
			t.Fatalf("nothing changed: %d %s", code, body)
		}
		f.call("add_event", `{"title":"New","start":"2026-12-10T09:00","duration":30}`)
		f.call("add_task", `{"title":"Not an event"}`)
		f.call("delete_event", `{"id":"e2"}`)
		code, body = sync(tok, "")
		if code != 207 || strings.Count(body, "<D:response>") != 2 || !strings.Contains(body, "e6.ics") ||
			!strings.Contains(body, "e2.ics</D:href><D:status>HTTP/1.1 404") {
			t.Fatalf("after an add and a delete: %d %s", code, body)
		}
		// A cut answer goes on from where it stopped.
		code, body = sync(tok, `<limit><nresults>1</nresults></limit>`)
		if code != 207 || !strings.Contains(body, "507") || strings.Count(body, "<D:getetag>") != 1 {
			t.Fatalf("cut: %d %s", code, body)
		}
		next := tokenRe.FindStringSubmatch(body)[1]
		code, body = sync(next, "")
		if code != 207 || !strings.Contains(body, "e2.ics") || strings.Contains(body, "e6.ics") {
			t.Fatalf("after the cut: %d %s", code, body)
		}
		// Tasks are in their own collection.
		code, _, body = f.as("REPORT", "/dav/me/calendars/tasks/", nil, `<sync-collection xmlns="DAV:"><sync-token>`+tok+`</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`)
		if code != 207 || strings.Count(body, "<D:response>") != 1 {
			t.Fatalf("tasks: %d %s", code, body)
		}
	})
}

func TestOtherPeopleAreOutOfReach(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		f.call("add_event", `{"title":"Secret","start":"2026-12-07T09:00","duration":15}`)
		bob := f.env.Person("bob", "UTC")
		btok := f.token(bob)
		before := f.lastChange()
		for _, c := range []struct{ method, path, depth, body string }{
			{"PROPFIND", "/dav/me/", "infinity", ""},
			{"PROPFIND", "/dav/me/calendars/", "1", ""},
			{"PROPFIND", events1, "1", ""},
			{"PROPFIND", events1 + "e1.ics", "0", ""},
			{"REPORT", events1, "1", `<C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><getetag/></prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>`},
			{"REPORT", events1, "1", `<sync-collection xmlns="DAV:"><sync-token/><prop><getetag/></prop></sync-collection>`},
			{"GET", events1 + "e1.ics", "", ""},
			{"PUT", events1 + "x.ics", "", object("x", "X", "")},
			{"DELETE", events1 + "e1.ics", "", ""},
		} {
			code, _, body := f.do(c.method, c.path, "bob", btok, map[string]string{"Depth": c.depth, "Content-Type": "text/calendar"}, c.body)
			if code != 403 || strings.Contains(body, "Secret") {
				t.Errorf("bob %s %s: %d %s", c.method, c.path, code, body)
			}
		}
		// Bob's own multiget naming my object finds nothing.
		code, _, body := f.do("REPORT", "/dav/bob/calendars/events/", "bob", btok, nil,
			`<C:calendar-multiget xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><C:calendar-data/></prop><href>/dav/me/calendars/events/e1.ics</href><href>/dav/bob/calendars/events/e1.ics</href></C:calendar-multiget>`)
		if code != 207 || strings.Contains(body, "Secret") || strings.Count(body, "404") != 2 {
			t.Errorf("bob's multiget: %d %s", code, body)
		}
		if got := f.lastChange(); got != before {
			t.Errorf("bob changed my data: change %d", got)
		}
	})
}

func TestQueryExpandAndFreeBusy(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		f.call("add_event", `{"title":"Weekly","start":"2026-12-07T09:00","duration":60,"rrule":"FREQ=WEEKLY"}`)
		f.call("add_event", `{"title":"Later","start":"2027-03-01T09:00","duration":60}`)
		q := `<C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><getetag/><C:calendar-data><C:expand start="20261207T000000Z" end="20261221T000000Z"/></C:calendar-data></prop>
		<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range start="20261207T000000Z" end="20261221T000000Z"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
		code, _, body := f.as("REPORT", events1, map[string]string{"Depth": "1"}, q)
		if code != 207 || strings.Count(body, "<D:response>") != 1 || strings.Contains(body, "Later") {
			t.Fatalf("query: %d %s", code, body)
		}
		for _, want := range []string{"RECURRENCE-ID:20261207T080000Z", "RECURRENCE-ID:20261214T080000Z", "DTSTART:20261214T080000Z"} {
			if !strings.Contains(body, want) {
				t.Errorf("expanded data lacks %s: %s", want, body)
			}
		}
		if strings.Contains(body, "RRULE") {
			t.Errorf("expanded data keeps the RRULE: %s", body)
		}
		code, _, body = f.as("REPORT", events1, nil, `<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:time-range start="20261207T000000Z" end="20261215T000000Z"/></C:free-busy-query>`)
		if code != 200 || !strings.Contains(body, "FREEBUSY:20261207T080000Z/20261207T090000Z") || !strings.Contains(body, "FREEBUSY:20261214T080000Z/20261214T090000Z") {
			t.Errorf("free-busy: %d %s", code, body)
		}
	})
}

// A person's open requests are bounded: with every slot held by a PUT
// whose body has not arrived, the next request gets 429, and another
// person is served all the same.
func TestOpenRequestsArePerPerson(t *testing.T) {
	f := open(t)
	bob := f.env.Person("bob", "UTC")
	btok := f.token(bob)
	writers := map[int]*io.PipeWriter{}
	// Registered after the server's Close, so it runs first: a failure
	// below ends the slow PUTs instead of leaving Close waiting on them.
	t.Cleanup(func() {
		for _, pw := range writers {
			pw.CloseWithError(io.ErrUnexpectedEOF)
		}
	})
	type result struct{ i, code int }
	done := make(chan result, 4*caldav.DefaultMaxConcurrent)
	slow := func(i int) {
		pr, pw := io.Pipe()
		writers[i] = pw
		req, _ := http.NewRequest("PUT", f.srv.URL+events1+fmt.Sprintf("slow%d.ics", i), pr)
		req.SetBasicAuth("me", f.tok)
		req.Header.Set("Content-Type", "text/calendar")
		// A connection of its own: one that answered 429 before its body
		// ended is not handed to the next PUT.
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		go func() {
			resp, err := client.Do(req)
			if err != nil {
				done <- result{i, 0}
				return
			}
			resp.Body.Close()
			done <- result{i, resp.StatusCode}
		}()
		if _, err := pw.Write([]byte("BEGIN:VCALENDAR\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	for i := range caldav.DefaultMaxConcurrent {
		slow(i)
	}
	// Each slow PUT holds its slot once its headers are read; a probe that
	// came first may have taken a slot and turned one away, which then
	// tries again. Wait (bounded) until the probe itself is refused.
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case r := <-done:
			if r.code != 429 {
				t.Fatalf("slow PUT %d ended early: %d", r.i, r.code)
			}
			writers[r.i].Close()
			slow(r.i)
			continue
		default:
		}
		code, h, _ := f.as("PROPFIND", events1, map[string]string{"Depth": "0"}, "")
		if code == 429 && h.Get("Retry-After") != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a request beyond the limit: %d, want 429", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, _, _ := f.do("PROPFIND", "/dav/bob/calendars/events/", "bob", btok, map[string]string{"Depth": "0"}, ""); code != 207 {
		t.Errorf("another person while my slots are taken: %d, want 207", code)
	}
	for i, pw := range writers {
		fmt.Fprintf(pw, "VERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:slow%d\r\nDTSTAMP:20261201T080000Z\r\nDTSTART:20261207T090000Z\r\nSUMMARY:Slow\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", i)
		pw.Close()
	}
	for range writers {
		if r := <-done; r.code != 201 {
			t.Errorf("slow PUT %d: %d, want 201", r.i, r.code)
		}
	}
	if code, _, _ := f.as("PROPFIND", events1, map[string]string{"Depth": "0"}, ""); code != 207 {
		t.Errorf("after the slow PUTs ended: %d", code)
	}
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	f := open(t)
	f.call("add_event", `{"title":"Kept","start":"2026-12-07T09:00","duration":15}`)
	ro := httptest.NewServer(caldav.Handler(f.env.Store, caldav.Options{ReadOnly: true}))
	defer ro.Close()
	f.srv = ro
	before := f.lastChange()
	if code, _, body := f.as("PUT", events1+"x.ics", calHeader, object("x", "X", "")); code != 403 || !strings.Contains(body, "--read-only") {
		t.Errorf("PUT on a read-only server: %d %s", code, body)
	}
	if code, _, _ := f.as("DELETE", events1+"e1.ics", nil, ""); code != 403 {
		t.Errorf("DELETE on a read-only server: %d", code)
	}
	// OPTIONS offers no write there.
	if _, h, _ := f.as("OPTIONS", events1+"e1.ics", nil, ""); h.Get("Allow") == "" || strings.Contains(h.Get("Allow"), "PUT") || strings.Contains(h.Get("Allow"), "DELETE") {
		t.Errorf("OPTIONS on a read-only server allows %q", h.Get("Allow"))
	}
	code, _, body := f.as("PROPFIND", events1, map[string]string{"Depth": "0"}, `<propfind xmlns="DAV:"><prop><current-user-privilege-set/></prop></propfind>`)
	if code != 207 || strings.Contains(body, "<D:write/>") || !strings.Contains(body, "<D:read/>") {
		t.Errorf("privileges on a read-only server: %d %s", code, body)
	}
	if code, _, _ := f.as("GET", events1+"e1.ics", nil, ""); code != 200 {
		t.Errorf("GET on a read-only server: %d", code)
	}
	if f.lastChange() != before {
		t.Error("a read-only server wrote")
	}
}

// A PUT that changes only what assistant does not model (an attendee,
// an app's X- property) is still a change: the ETag moves and the other
// clients' sync-collection reports it.
func TestExtraOnlyChangeIsSynced(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		path := events1 + "x.ics"
		if code, _, body := f.as("PUT", path, calHeader, object("x", "Talk", "X-APP-COLOR:red\r\n")); code != 201 {
			t.Fatalf("create: %d %s", code, body)
		}
		_, h, _ := f.as("GET", path, nil, "")
		tag := h.Get("ETag")
		_, _, body := f.as("REPORT", events1, nil, `<sync-collection xmlns="DAV:"><sync-token/><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`)
		tok := regexp.MustCompile(`<D:sync-token>([^<]+)</D:sync-token>`).FindStringSubmatch(body)[1]
		if code, _, _ := f.as("PUT", path, calHeader, object("x", "Talk", "X-APP-COLOR:blue\r\n")); code != 204 {
			t.Fatalf("extra-only PUT: %d", code)
		}
		code, h, body := f.as("GET", path, nil, "")
		if code != 200 || h.Get("ETag") == tag || !strings.Contains(body, "X-APP-COLOR:blue") {
			t.Errorf("after an extra-only change: %d %s (was %s) %s", code, h.Get("ETag"), tag, body)
		}
		_, _, body = f.as("REPORT", events1, nil, `<sync-collection xmlns="DAV:"><sync-token>`+tok+`</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`)
		if !strings.Contains(body, "x.ics") {
			t.Errorf("sync after an extra-only change does not report it: %s", body)
		}
	})
}

// Expanding or asking free-busy of a series of one occurrence a minute
// costs what the answer holds: a small window is answered in full, one of
// more occurrences than the bounds is refused, and a far override does not
// widen the work.
func TestDenseSeriesIsBounded(t *testing.T) {
	f := open(t)
	minutely := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:m\r\nDTSTAMP:20261201T000000Z\r\n" +
		"DTSTART;TZID=Europe/Berlin:20200101T000000\r\nDURATION:PT1M\r\nRRULE:FREQ=MINUTELY\r\nSUMMARY:tick\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:m\r\nDTSTAMP:20261201T000000Z\r\nRECURRENCE-ID;TZID=Europe/Berlin:20230101T000000\r\n" +
		"DTSTART;TZID=Europe/Berlin:20230101T000200\r\nDURATION:PT1M\r\nSUMMARY:moved tick\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
	if code, _, body := f.as("PUT", events1+"m.ics", calHeader, minutely); code != 201 {
		t.Fatalf("PUT: %d %s", code, body)
	}
	query := func(start, end string) (int, string) {
		code, _, body := f.as("REPORT", events1, nil, `<C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><C:calendar-data><C:expand start="`+start+`" end="`+end+`"/></C:calendar-data></prop>
		<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:time-range start="`+start+`" end="`+end+`"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`)
		return code, body
	}
	code, body := query("20261201T000000Z", "20261201T001000Z")
	if code != 207 || strings.Count(body, "BEGIN:VEVENT") != 10 || strings.Contains(body, "RRULE") {
		t.Errorf("ten minutes: %d, %d occurrences\n%s", code, strings.Count(body, "BEGIN:VEVENT"), body)
	}
	if code, body := query("20220101T000000Z", "20261230T000000Z"); code != 403 || !strings.Contains(body, "number-of-matches-within-limits") {
		t.Errorf("five years: %d %s", code, body)
	}
	code, _, body = f.as("REPORT", events1, nil, `<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:time-range start="20220101T000000Z" end="20261230T000000Z"/></C:free-busy-query>`)
	if code != 403 || !strings.Contains(body, "busy periods") {
		t.Errorf("free-busy over five years: %d %s", code, body)
	}
	code, _, body = f.as("REPORT", events1, nil, `<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"/>`)
	if code != 400 {
		t.Errorf("free-busy without a range: %d %s", code, body)
	}
	// A window with no occurrence: an expanded object with no RRULE.
	code, _, body = f.as("REPORT", events1, nil, `<C:calendar-multiget xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><C:calendar-data><C:expand start="20190101T000000Z" end="20190201T000000Z"/></C:calendar-data></prop><href>/dav/me/calendars/events/m.ics</href></C:calendar-multiget>`)
	if code != 207 || strings.Contains(body, "RRULE") || strings.Contains(body, "BEGIN:VEVENT") {
		t.Errorf("expand of an empty window: %d %s", code, body)
	}
	// The moved occurrence, expanded where it went, carries its own title.
	code, body = query("20221231T230000Z", "20221231T230300Z")
	if code != 207 || !strings.Contains(body, "moved tick") || !strings.Contains(body, "RECURRENCE-ID:20221231T230000Z") || !strings.Contains(body, "DTSTART:20221231T230200Z") || strings.Contains(body, "DTSTART:20221231T230000Z") {
		t.Errorf("the moved occurrence: %d %s", code, body)
	}
}

// An object deleted and made again under another name with the same UID:
// the old name is reported gone, and undoing the delete is refused with a
// sentence while the new one holds the UID.
func TestSameUIDUnderANewName(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		if code, _, _ := f.as("PUT", events1+"a.ics", calHeader, object("same", "First", "")); code != 201 {
			t.Fatal(code)
		}
		_, _, body := f.as("REPORT", events1, nil, `<sync-collection xmlns="DAV:"><sync-token/><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`)
		tok := regexp.MustCompile(`<D:sync-token>([^<]+)</D:sync-token>`).FindStringSubmatch(body)[1]
		if code, _, _ := f.as("DELETE", events1+"a.ics", nil, ""); code != 204 {
			t.Fatal(code)
		}
		deleted := f.call("list_changes", `{"limit":1}`)
		if code, _, _ := f.as("PUT", events1+"b.ics", calHeader, object("same", "Second", "")); code != 201 {
			t.Fatal(code)
		}
		_, _, body = f.as("REPORT", events1, nil, `<sync-collection xmlns="DAV:"><sync-token>`+tok+`</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`)
		if !strings.Contains(body, "a.ics</D:href><D:status>HTTP/1.1 404") || !strings.Contains(body, "b.ics</D:href><D:propstat>") {
			t.Errorf("sync after a delete and a new name: %s", body)
		}
		change := regexp.MustCompile(`c\d+`).FindString(deleted.Out)
		res, _ := f.env.Call(f.me, "undo", `{"change":"`+change+`"}`)
		if res.Code != 5 || !strings.Contains(res.Err, "another live item now holds its UID") {
			t.Errorf("undo of the delete while the UID is taken: %d %s", res.Code, res.Err)
		}
	})
}

// A purge that empties the journal makes every older token invalid, even
// when SQLite numbers new changes as the purged ones were (RFC 6578
// §3.2), and the token of an empty calendar is invalid once changes came
// and went.
func TestTokensAfterPurge(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		syncFrom := func(tok string) (int, string) {
			code, _, body := f.as("REPORT", events1, nil, `<sync-collection xmlns="DAV:"><sync-token>`+tok+`</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>`)
			return code, body
		}
		tokenRe := regexp.MustCompile(`<D:sync-token>([^<]+)</D:sync-token>`)
		_, body := syncFrom("")
		empty := tokenRe.FindStringSubmatch(body)[1]
		for i := range 3 {
			f.call("add_event", fmt.Sprintf(`{"title":"Old %d","start":"2026-12-0%dT09:00","duration":30}`, i, i+2))
		}
		_, body = syncFrom("")
		old := tokenRe.FindStringSubmatch(body)[1]
		f.call("delete_event", `{"id":"e1"}`)
		f.env.Now = f.env.Now.Add(200 * 24 * time.Hour)
		if _, err := f.env.Store.Purge(context.Background(), 90*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		// Every change is past the purge's age, yet the CTag does not go
		// back to the empty calendar's, whose token stays refused.
		code, _, body := f.as("PROPFIND", events1, map[string]string{"Depth": "0"}, `<propfind xmlns="DAV:" xmlns:CS="http://calendarserver.org/ns/"><prop><CS:getctag/></prop></propfind>`)
		if code != 207 || strings.Contains(body, ">"+empty+"<") {
			t.Errorf("the CTag after a purge is the empty calendar's: %s", body)
		}
		if code, body := syncFrom(empty); code != 403 {
			t.Errorf("the empty calendar's token right after a purge: %d %s", code, body)
		}
		for i := range 5 {
			f.call("add_event", fmt.Sprintf(`{"title":"New %d","start":"2027-07-0%dT09:00","duration":30}`, i, i+2))
		}
		for name, tok := range map[string]string{"old": old, "empty": empty} {
			if code, body := syncFrom(tok); code != 403 || !strings.Contains(body, "valid-sync-token") {
				t.Errorf("the %s token after a purge: %d %s", name, code, body)
			}
		}
		code, _, body = f.as("PROPFIND", events1, map[string]string{"Depth": "0"}, `<propfind xmlns="DAV:" xmlns:CS="http://calendarserver.org/ns/"><prop><CS:getctag/></prop></propfind>`)
		if code != 207 || strings.Contains(body, ">"+old+"<") {
			t.Errorf("the CTag after a purge is the old one: %s", body)
		}
	})
}

// A request cannot make an answer larger than what it asks deserves:
// properties asked many times are answered once.
func TestRepeatedPropertiesAnsweredOnce(t *testing.T) {
	f := open(t)
	f.call("add_event", `{"title":"One","start":"2026-12-07T09:00","duration":15}`)
	code, _, body := f.as("PROPFIND", events1, map[string]string{"Depth": "1"},
		`<propfind xmlns="DAV:"><prop>`+strings.Repeat("<getetag/>", 50000)+`</prop></propfind>`)
	if code != 207 || strings.Count(body, "<D:getetag>") != 1 {
		t.Errorf("%d, %d ETags", code, strings.Count(body, "<D:getetag>"))
	}
	if code, _, _ := f.as("GET", "/dav/me/x/y", nil, ""); code != 404 {
		t.Errorf("GET of nothing: %d", code)
	}
	if code, _, _ := f.as("GET", events1+"e1.ics", map[string]string{"If-Match": `"nope"`}, ""); code != 412 {
		t.Errorf("GET with a stale If-Match: %d", code)
	}
	code, _, body = f.as("PROPFIND", "/dav/me/", map[string]string{"Depth": "infinity"}, "")
	if code != 207 || !strings.Contains(body, "/dav/me/calendars/") {
		t.Errorf("PROPFIND of the principal at depth infinity: %d %s", code, body)
	}
}

// An object that cannot be kept as sent is refused whole, never stored in
// part: an unreadable rule, a line that is no iCalendar, components run
// together by a bare CR.
func TestPartlyReadObjectsAreRefused(t *testing.T) {
	f := open(t)
	before := f.lastChange()
	for name, body := range map[string]string{
		"bad rule":   strings.Replace(object("r", "R", ""), "RRULE:FREQ=WEEKLY;COUNT=10", "RRULE:FREQ=DAILY;BYDAY=XX", 1),
		"not a line": strings.Replace(object("l", "L", ""), "SUMMARY:L\r\n", "SUMMARY:L\r\nnot a property line\r\n", 1),
		"bare CR":    strings.Replace(object("c", "C", ""), "END:VEVENT\r\nEND:VCALENDAR", "END:VEVENT\rBEGIN:VEVENT\r\nUID:c\r\nRECURRENCE-ID;TZID=Europe/Paris:20261214T090000\r\nSUMMARY:two\r\nEND:VEVENT\r\nEND:VCALENDAR", 1),
		"bad EXDATE": strings.Replace(object("x", "X", ""), "RRULE:", "EXDATE;TZID=Europe/Paris:2026-12-14\r\nRRULE:", 1),
		// Cut short in the upload: an import reads such a file up to its
		// end, but a client's object must come whole.
		"no END": strings.TrimSuffix(object("e", "E", ""), "END:VEVENT\r\nEND:VCALENDAR\r\n"),
	} {
		code, _, body := f.as("PUT", events1+"bad.ics", calHeader, body)
		if code != 403 || !strings.Contains(body, "valid-calendar-object-resource") {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	if f.lastChange() != before {
		t.Error("a refused object was stored")
	}
	// What cannot be kept but costs the sender nothing it would miss (an
	// alarm after the start) is no reason to refuse.
	ok := strings.Replace(object("a", "A", ""), "END:VEVENT", "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:PT5M\r\nEND:VALARM\r\nEND:VEVENT", 1)
	if code, _, body := f.as("PUT", events1+"a.ics", calHeader, ok); code != 201 {
		t.Errorf("an alarm after the start: %d %s", code, body)
	}
}

// One report's expansions are bounded in all, not only per object (past
// the bound the answer is refused, or cut off when it had begun), and an
// object named twice in a multiget is answered once.
func TestReportExpansionsAreBoundedInAll(t *testing.T) {
	f := open(t)
	for i := range 25 {
		f.call("add_event", fmt.Sprintf(`{"title":"Tick %d","start":"2026-12-01T00:%02d","duration":1,"rrule":"FREQ=MINUTELY;INTERVAL=60"}`, i, i))
	}
	q := `<C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><C:calendar-data><C:expand start="20261201T000000Z" end="20261220T000000Z"/></C:calendar-data></prop>
		<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"/></C:comp-filter></C:filter></C:calendar-query>`
	req, _ := http.NewRequest("REPORT", f.srv.URL+events1, strings.NewReader(q))
	req.SetBasicAuth("me", f.tok)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		complete := rerr == nil && strings.HasSuffix(strings.TrimSpace(string(body)), "</D:multistatus>")
		if resp.StatusCode != 403 && complete {
			t.Errorf("25 objects of 456 occurrences each: %d, a whole answer of %d bytes", resp.StatusCode, len(body))
		}
	}
	code, _, body := f.as("REPORT", events1, nil, `<C:calendar-multiget xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><getetag/></prop>`+
		strings.Repeat("<href>/dav/me/calendars/events/e1.ics</href>", 3000)+`</C:calendar-multiget>`)
	if code != 207 || strings.Count(body, "<D:response>") != 1 {
		t.Errorf("one object named 3000 times: %d, %d answers", code, strings.Count(body, "<D:response>"))
	}
}

// A text longer than an item keeps is refused, not cut.
func TestLongTextIsRefusedNotCut(t *testing.T) {
	f := open(t)
	long := strings.Replace(object("long", "L", ""), "SUMMARY:L\r\n", "SUMMARY:L\r\nDESCRIPTION:"+strings.Repeat("word ", 4000)+"\r\n", 1)
	if code, _, body := f.as("PUT", events1+"long.ics", calHeader, long); code != 403 || !strings.Contains(body, "DESCRIPTION has") || strings.Contains(body, "imported") {
		t.Errorf("a 20,000-character description: %d %s", code, body)
	}
}

// A repeating to-do without DUE is refused, not stored without its rule:
// tasks repeat from their due, and the client would lose the RRULE at
// its next sync. The sentence says what is wrong, not what an import
// would have made of it.
func TestRepeatingTodoWithoutDueIsRefused(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		for name, extra := range map[string]string{
			"start.ics": "DTSTART:20261222T090000Z\r\n",
			"none.ics":  "",
		} {
			todo := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:" + name + "\r\nDTSTAMP:20261201T080000Z\r\n" +
				extra + "RRULE:FREQ=DAILY\r\nSUMMARY:Water the plants\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
			code, _, body := f.as("PUT", "/dav/me/calendars/tasks/"+name, calHeader, todo)
			if code != 403 || !strings.Contains(body, "needs a DUE") || strings.Contains(body, "imported") {
				t.Errorf("PUT of a repeating VTODO without DUE (%s): %d %s", name, code, body)
			}
			// The sentence names the RRULE's line.
			line := strings.Count(todo[:strings.Index(todo, "RRULE:")], "\n") + 1
			if !strings.Contains(body, fmt.Sprintf("Line %d of the object", line)) {
				t.Errorf("PUT of %s: the refusal does not name the RRULE's line %d: %s", name, line, body)
			}
		}
		if res := f.call("list_tasks", `{}`); strings.Contains(res.Out, "Water the plants") {
			t.Errorf("a refused VTODO was stored: %s", res.Out)
		}
		// With a DUE it repeats.
		todo := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:due\r\nDTSTAMP:20261201T080000Z\r\n" +
			"DTSTART:20261222T090000Z\r\nDUE:20261222T100000Z\r\nRRULE:FREQ=DAILY\r\nSUMMARY:Water the plants\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
		if code, _, body := f.as("PUT", "/dav/me/calendars/tasks/due.ics", calHeader, todo); code != 201 {
			t.Fatalf("PUT of a repeating VTODO with DUE: %d %s", code, body)
		}
		if code, _, body := f.as("GET", "/dav/me/calendars/tasks/due.ics", nil, ""); code != 200 || !strings.Contains(body, "RRULE:FREQ=DAILY") {
			t.Errorf("GET of the repeating VTODO: %d %s", code, body)
		}
	})
}

// Free-busy leaves out transparent and cancelled events and marks
// tentative ones (RFC 4791 §7.10).
func TestFreeBusyReadsTranspAndStatus(t *testing.T) {
	f := open(t)
	one := func(uid, start, extra string) string {
		return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:" + uid + "\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:" + start +
			"\r\nDURATION:PT1H\r\nSUMMARY:" + uid + "\r\n" + extra + "END:VEVENT\r\nEND:VCALENDAR\r\n"
	}
	for _, o := range []struct{ uid, start, extra string }{
		{"free", "20270301T100000Z", "TRANSP:TRANSPARENT\r\n"},
		{"maybe", "20270301T120000Z", "STATUS:TENTATIVE\r\n"},
		{"busy", "20270301T140000Z", "STATUS:CONFIRMED\r\n"},
	} {
		if code, _, body := f.as("PUT", events1+o.uid+".ics", calHeader, one(o.uid, o.start, o.extra)); code != 201 {
			t.Fatalf("%s: %d %s", o.uid, code, body)
		}
	}
	code, _, body := f.as("REPORT", events1, nil, `<C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:time-range start="20270301T000000Z" end="20270302T000000Z"/></C:free-busy-query>`)
	if code != 200 || strings.Contains(body, "20270301T100000Z/") ||
		!strings.Contains(body, "FREEBUSY;FBTYPE=BUSY-TENTATIVE:20270301T120000Z/20270301T130000Z") ||
		!strings.Contains(body, "FREEBUSY:20270301T140000Z/20270301T150000Z") {
		t.Errorf("free-busy: %d %s", code, body)
	}
}

// A series a client sent keeps the properties assistant does not model on
// both halves of a "following" edit by the model.
func TestSplitKeepsClientProperties(t *testing.T) {
	f := open(t)
	obj := object("yoga", "Yoga", "ATTENDEE;CN=Ann:mailto:ann@example.org\r\nCLASS:PRIVATE\r\nX-FOO:bar\r\n")
	if code, _, body := f.as("PUT", events1+"yoga.ics", calHeader, obj); code != 201 {
		t.Fatalf("%d %s", code, body)
	}
	f.call("update_event", `{"id":"e1@20261221T080000Z","scope":"following","title":"Yoga B"}`)
	for _, path := range []string{events1 + "yoga.ics", events1 + "e2.ics"} {
		code, _, body := f.as("GET", path, nil, "")
		if code != 200 || !strings.Contains(body, "ATTENDEE;CN=Ann:mailto:ann@example.org") || !strings.Contains(body, "CLASS:PRIVATE") || !strings.Contains(body, "X-FOO:bar") {
			t.Errorf("%s after a split: %d %s", path, code, body)
		}
	}
}

// A calendar-multiget takes the hrefs PROPFIND gives out, whatever the
// object's name holds: an escaped "%" (python3-caldav escapes a UID with
// a "/" into such a name), a space or a non-ASCII letter. Each href is
// unescaped once, as a PUT's path is.
func TestMultigetTakesTheHrefsListed(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		names := map[string]string{ // as PUT, escaped → UID
			"x%252Fy%40test.ics":      "x/y@test",
			"%E2%98%83%20snow%25.ics": "snow",
			"plain.ics":               "plain",
		}
		for name, uid := range names {
			if code, _, body := f.as("PUT", events1+name, calHeader, object(uid, "T "+uid, "")); code != 201 {
				t.Fatalf("PUT %s: %d %s", name, code, body)
			}
		}
		code, _, body := f.as("PROPFIND", events1, map[string]string{"Depth": "1"}, `<propfind xmlns="DAV:"><prop><getetag/></prop></propfind>`)
		if code != 207 {
			t.Fatalf("PROPFIND: %d %s", code, body)
		}
		var hrefs []string
		for _, m := range regexp.MustCompile(`<(?:D:)?href>([^<]*\.ics)</(?:D:)?href>`).FindAllStringSubmatch(body, -1) {
			hrefs = append(hrefs, m[1])
		}
		if len(hrefs) != len(names) {
			t.Fatalf("PROPFIND lists %d objects, want %d:\n%s", len(hrefs), len(names), body)
		}
		// The same names written as a client may: "@" left as it is.
		hrefs = append(hrefs, events1+"x%252Fy@test.ics")
		for _, h := range hrefs {
			code, _, body := f.as("REPORT", events1, map[string]string{"Depth": "1"},
				`<C:calendar-multiget xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><getetag/><C:calendar-data/></prop><href>`+h+`</href></C:calendar-multiget>`)
			if code != 207 || strings.Contains(body, "404") || !strings.Contains(body, "BEGIN:VEVENT") {
				t.Errorf("multiget of %s: %d\n%s", h, code, body)
			}
		}
		// What is not in the collection is still not found.
		for _, h := range []string{events1 + "x%2Fy%40test.ics", events1 + "snow%.ics", "/dav/me/calendars/tasks/plain.ics", events1 + "../events/plain.ics"} {
			code, _, body := f.as("REPORT", events1, map[string]string{"Depth": "1"},
				`<C:calendar-multiget xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns="DAV:"><prop><getetag/></prop><href>`+h+`</href></C:calendar-multiget>`)
			if code != 207 || !strings.Contains(body, "404") {
				t.Errorf("multiget of %s: %d, want a 404 in it\n%s", h, code, body)
			}
		}
	})
}

// An iPhone's event with a structured location is stored as it comes:
// Apple writes a “;” in the unquoted X-TITLE parameter of
// X-APPLE-STRUCTURED-LOCATION as “\;”, which was read as the end of the
// parameter and the whole object refused, so the phone could not save
// it. The property is given back, its parameter quoted.
func TestAppleStructuredLocationIsKept(t *testing.T) {
	dir := os.Getenv("ASSISTANT_TESTDATA")
	if dir == "" {
		t.Skip("ASSISTANT_TESTDATA is unset; set it to the shared test data folder to PUT the real-world iPhone sample")
	}
	b, err := os.ReadFile(filepath.Join(dir, "ics", "apple-iphone-structured-location.ics"))
	if err != nil {
		t.Fatal(err)
	}
	f := open(t)
	if code, _, body := f.as("PUT", events1+"iphone.ics", calHeader, string(b)); code != 201 {
		t.Fatalf("PUT of the iPhone's event: %d %s", code, body)
	}
	code, _, body := f.as("GET", events1+"iphone.ics", nil, "")
	unfolded := strings.ReplaceAll(body, "\r\n ", "")
	if code != 200 || !strings.Contains(unfolded, `X-TITLE="Hauptstraße 1-5\; 4041 Linz"`) || !strings.Contains(unfolded, ":geo:48.309978,14.283197") {
		t.Errorf("GET of the iPhone's event: %d\n%s", code, body)
	}
}

// OPTIONS lists only what the server serves where it is asked: no DELETE
// or MKCOL on a collection or above (both are refused 403 there), and no
// writes on a read-only server.
func TestOptionsAllowWhatIsServed(t *testing.T) {
	f := open(t)
	if code, _, body := f.as("PUT", events1+"o.ics", calHeader, object("o", "O", "")); code != 201 {
		t.Fatalf("PUT: %d %s", code, body)
	}
	for _, path := range []string{
		"/dav/me/",
		"/dav/me/calendars/",
		events1,
		"/dav/me/calendars/tasks/",
		events1 + "o.ics",
	} {
		code, h, body := f.as("OPTIONS", path, nil, "")
		allow := h.Get("Allow")
		if code >= 300 || allow == "" {
			t.Errorf("OPTIONS %s: %d %q %s", path, code, allow, body)
			continue
		}
		methods := strings.Split(strings.ReplaceAll(allow, " ", ""), ",")
		if path != events1+"o.ics" && (slices.Contains(methods, "DELETE") || slices.Contains(methods, "MKCOL")) {
			t.Errorf("OPTIONS %s allows %s", path, allow)
		}
		if path == events1+"o.ics" && (!slices.Contains(methods, "PUT") || !slices.Contains(methods, "DELETE")) {
			t.Errorf("OPTIONS of an object allows %s", allow)
		}
	}
}
