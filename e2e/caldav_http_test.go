package e2e

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// Raw WebDAV requests to `assistant serve`: another person's collections
// out of reach by every method, and bad input refused with a clear 4xx
// that stores nothing.

// icsEvent is a one-VEVENT iCalendar object with uid and summary on 7
// October 2026 (extra is put inside the VEVENT as it is).
func icsEvent(uid, summary, extra string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//e2e//raw//EN\r\nBEGIN:VEVENT\r\nUID:" + uid +
		"\r\nDTSTAMP:20261001T080000Z\r\nDTSTART:20261007T080000Z\r\nDTEND:20261007T090000Z\r\nSUMMARY:" + summary +
		"\r\n" + extra + "END:VEVENT\r\nEND:VCALENDAR\r\n"
}

// WebDAV and CalDAV bodies of the requests below.
const (
	propAll  = `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`
	propETag = `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>`
	query    = `<?xml version="1.0"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
		`<D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">` +
		`<C:time-range start="20260101T000000Z" end="20270101T000000Z"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
	todoQuery = `<?xml version="1.0"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
		`<D:prop><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"/></C:comp-filter></C:filter></C:calendar-query>`
	freeBusy = `<?xml version="1.0"?><C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav">` +
		`<C:time-range start="20260101T000000Z" end="20270101T000000Z"/></C:free-busy-query>`
	proppatch = `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:displayname>Taken</D:displayname></D:prop></D:set></D:propertyupdate>`
)

// syncReport is a sync-collection REPORT from token ("" for everything).
func syncReport(token string) string {
	return `<?xml version="1.0"?><D:sync-collection xmlns:D="DAV:"><D:sync-token>` + token +
		`</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`
}

// multiget is a calendar-multiget REPORT naming hrefs.
func multiget(hrefs []string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>`)
	for _, h := range hrefs {
		b.WriteString("<D:href>" + h + "</D:href>")
	}
	b.WriteString("</C:calendar-multiget>")
	return b.String()
}

// objectsOf lists person's object hrefs in a collection with their
// ETags, as the person sees them (PROPFIND Depth 1, then GET each).
func (d *davSite) objectsOf(t *testing.T, person, collection string) map[string]string {
	t.Helper()
	r := d.as(t, person, "PROPFIND", collection, propETag, "Depth", "1", "Content-Type", "application/xml")
	if r.status != http.StatusMultiStatus {
		t.Fatalf("%s's PROPFIND of %s: %d %s", person, collection, r.status, r.body)
	}
	out := map[string]string{}
	for _, h := range hrefs(r.body) {
		if !strings.HasSuffix(h, ".ics") {
			continue
		}
		g := d.as(t, person, "GET", h, "")
		if g.status != http.StatusOK || g.header.Get("ETag") == "" {
			t.Fatalf("%s's GET of %s: %d, ETag %q", person, h, g.status, g.header.Get("ETag"))
		}
		out[h] = g.header.Get("ETag") + "\n" + g.body
	}
	return out
}

// Two people on one server: bob, signed in as himself, reaches none of
// alice's principal, home, collections or objects by any method —
// PROPFIND at every depth, REPORT (calendar-query, calendar-multiget,
// sync-collection, free-busy-query), GET, HEAD, PUT, DELETE, PROPPATCH,
// MKCALENDAR, MOVE, COPY — each answered 403 or 404 (405 for the
// methods the server does not take at all) without a word of her data;
// a multiget or sync of his own collection naming her objects, or a
// PROPFIND of the root at depth infinity, gives nothing of hers either;
// her token with his name and his with hers are refused. Afterwards her
// objects, ETags and change list are as they were, and his calendar is
// still empty.
func TestCalDAVTwoPeople(t *testing.T) { storetest.Engines(t, testCalDAVTwoPeople) }

func testCalDAVTwoPeople(t *testing.T) {
	d := newDAVSite(t, "alice", "bob")
	d.call(t, "alice", "add_event", "title=Secret meeting of alice", "start=2026-10-07T10:00")
	d.call(t, "alice", "add_task", "title=Secret task of alice", "due=2026-10-09")
	if r := d.as(t, "alice", "PUT", "/dav/alice/calendars/events/alice-put.ics", icsEvent("alice-put@e2e.example", "Secret PUT of alice", ""),
		"Content-Type", "text/calendar; charset=utf-8", "If-None-Match", "*"); r.status != http.StatusCreated {
		t.Fatalf("alice's own PUT: %d %s", r.status, r.body)
	}
	const (
		principal = "/dav/alice/"
		home      = "/dav/alice/calendars/"
		events    = "/dav/alice/calendars/events/"
		tasks     = "/dav/alice/calendars/tasks/"
	)
	evs, tks := d.objectsOf(t, "alice", events), d.objectsOf(t, "alice", tasks)
	if len(evs) != 2 || len(tks) != 1 {
		t.Fatalf("alice sees %d events and %d tasks over CalDAV, want 2 and 1: %v %v", len(evs), len(tks), evs, tks)
	}
	var objects []string
	for h := range evs {
		objects = append(objects, h)
	}
	for h := range tks {
		objects = append(objects, h)
	}
	slices.Sort(objects)
	aliceChanges, bobChanges := d.changes(t, "alice"), d.changes(t, "bob")

	// leaks reports what of alice's a body bob got holds: her titles,
	// UIDs or calendar data, or (unless named is set, for an answer that
	// may echo the hrefs bob sent) the hrefs of her objects.
	leaksBut := func(body string, named bool) string {
		words := []string{"secret", "alice-put@e2e.example", "BEGIN:V"}
		if !named {
			words = append(words, objects...)
		}
		for _, s := range words {
			if strings.Contains(strings.ToLower(body), strings.ToLower(s)) {
				return s
			}
		}
		return ""
	}
	leaks := func(body string) string { return leaksBut(body, false) }
	type probe struct {
		method, path, body string
		headers            []string
	}
	var probes []probe
	for _, p := range append([]string{principal, home, events, tasks, events + "nothing.ics"}, objects...) {
		for _, depth := range []string{"0", "1", "infinity"} {
			probes = append(probes, probe{"PROPFIND", p, propAll, []string{"Depth", depth}})
		}
		probes = append(probes, probe{"GET", p, "", nil}, probe{"HEAD", p, "", nil}, probe{"DELETE", p, "", nil},
			probe{"PROPPATCH", p, proppatch, nil})
	}
	for _, c := range []string{events, tasks} {
		probes = append(probes,
			probe{"REPORT", c, query, []string{"Depth", "1"}},
			probe{"REPORT", c, todoQuery, []string{"Depth", "1"}},
			probe{"REPORT", c, multiget(objects), []string{"Depth", "1"}},
			probe{"REPORT", c, syncReport(""), []string{"Depth", "1"}},
			probe{"REPORT", c, syncReport("urn:x-assistant:sync:0"), []string{"Depth", "1"}},
			probe{"REPORT", c, freeBusy, []string{"Depth", "1"}},
			probe{"PUT", c + "bob-was-here.ics", icsEvent("bob-was-here@e2e.example", "Bob was here", ""), []string{"Content-Type", "text/calendar"}},
			probe{"MKCALENDAR", home + "bobs/", "", nil},
		)
	}
	for _, o := range objects {
		probes = append(probes,
			probe{"PUT", o, icsEvent("bob-overwrite@e2e.example", "Bob overwrote this", ""), []string{"Content-Type", "text/calendar"}},
			probe{"MOVE", o, "", []string{"Destination", d.base + "/dav/bob/calendars/events/moved.ics"}},
			probe{"COPY", o, "", []string{"Destination", d.base + "/dav/bob/calendars/events/copied.ics"}},
		)
	}
	// Other spellings of her paths.
	for _, p := range []string{"/dav/ALICE/calendars/events/", "/dav/%61lice/calendars/events/", "/dav/alice/calendars/events/../events/"} {
		probes = append(probes, probe{"PROPFIND", p, propAll, []string{"Depth", "1"}}, probe{"REPORT", p, query, []string{"Depth", "1"}})
	}
	for _, p := range probes {
		r := d.as(t, "bob", p.method, p.path, p.body, append([]string{"Content-Type", "application/xml"}, p.headers...)...)
		allowed := []int{http.StatusForbidden, http.StatusNotFound}
		if p.method == "MKCALENDAR" || p.method == "MOVE" || p.method == "COPY" || p.method == "PROPPATCH" {
			allowed = append(allowed, http.StatusMethodNotAllowed, http.StatusNotImplemented)
		}
		if strings.Contains(p.path, "..") {
			allowed = append(allowed, http.StatusMovedPermanently, http.StatusPermanentRedirect, http.StatusTemporaryRedirect)
		}
		if !slices.Contains(allowed, r.status) {
			t.Errorf("bob: %s %s %v: %d, want one of %v; body %.300q", p.method, p.path, p.headers, r.status, allowed, r.body)
		}
		if s := leaks(r.body); s != "" {
			t.Errorf("bob: %s %s %v: the answer holds alice's %q:\n%.600s", p.method, p.path, p.headers, s, r.body)
		}
	}

	// His own collections: a multiget naming her objects may echo the
	// hrefs, each with 403 or 404 and nothing more; a sync of everything
	// names none of hers.
	for _, c := range []string{"/dav/bob/calendars/events/", "/dav/bob/calendars/tasks/"} {
		r := d.as(t, "bob", "REPORT", c, multiget(objects), "Depth", "1", "Content-Type", "application/xml")
		if s := leaksBut(r.body, true); s != "" || r.status >= 500 || strings.Contains(r.body, " 200 ") {
			t.Errorf("bob: multiget of his %s naming alice's objects: %d, and the answer holds %q or a 200:\n%.600s", c, r.status, s, r.body)
		}
		r = d.as(t, "bob", "REPORT", c, syncReport(""), "Depth", "1", "Content-Type", "application/xml")
		if s := leaks(r.body); s != "" || r.status != http.StatusMultiStatus {
			t.Errorf("bob: sync-collection of his %s: %d, and the answer holds alice's %q:\n%.600s", c, r.status, s, r.body)
		}
	}
	for _, p := range []string{"/", "/dav/", "/dav/bob/", "/dav/bob/calendars/"} {
		r := d.as(t, "bob", "PROPFIND", p, propAll, "Depth", "infinity", "Content-Type", "application/xml")
		if strings.Contains(r.body, "/dav/alice") || leaks(r.body) != "" {
			t.Errorf("bob: PROPFIND %s Depth infinity: %d, the answer names alice's tree:\n%.600s", p, r.status, r.body)
		}
	}

	// Crossed names and tokens.
	for _, c := range []struct{ user, password string }{{"bob", d.tokens["alice"]}, {"alice", d.tokens["bob"]}, {"alice", ""}} {
		r := d.do(t, c.user, c.password, "PROPFIND", events, strings.NewReader(propAll), "Depth", "1", "Content-Type", "application/xml")
		if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Basic") || leaks(r.body) != "" {
			t.Errorf("PROPFIND of alice's events as %q with the wrong token: %d, WWW-Authenticate %q, want 401 with a Basic challenge; body %.300q",
				c.user, r.status, r.header.Get("WWW-Authenticate"), r.body)
		}
	}

	// Her data as it was; nothing of hers in his.
	if got := d.objectsOf(t, "alice", events); !mapsEqual(got, evs) {
		t.Errorf("alice's events over CalDAV changed:\nbefore %v\nafter  %v", evs, got)
	}
	if got := d.objectsOf(t, "alice", tasks); !mapsEqual(got, tks) {
		t.Errorf("alice's tasks over CalDAV changed:\nbefore %v\nafter  %v", tks, got)
	}
	if got := d.changes(t, "alice"); got != aliceChanges {
		t.Errorf("alice's change list changed:\nbefore %s\nafter  %s", aliceChanges, got)
	}
	if got := d.changes(t, "bob"); got != bobChanges {
		t.Errorf("bob's change list changed:\nbefore %s\nafter  %s", bobChanges, got)
	}
	if got := d.events(t, "bob", "2026-10-01", "2026-10-31"); len(got) != 0 {
		t.Errorf("bob's list_events shows %+v, want nothing", got)
	}
	if got := d.objectsOf(t, "bob", "/dav/bob/calendars/events/"); len(got) != 0 {
		t.Errorf("bob's events collection holds %v, want nothing", got)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Bad input over raw HTTP, each refused with a clear 4xx, a sentence and
// no Go, SQL or stack trace, and nothing stored (the change list as it
// was, the resource not there): malformed XML in PROPFIND and REPORT
// (400), a 10 MB PUT with and without Content-Length (413), and PUTs of
// an object without UID, two events with two UIDs, two events with one
// UID and no RECURRENCE-ID, a VEVENT into the tasks collection, a VTODO
// into the events collection, an empty VCALENDAR and text that is no
// iCalendar. A good PUT afterwards is stored, so the refusals were about
// the input.
func TestCalDAVBadInput(t *testing.T) { storetest.Engines(t, testCalDAVBadInput) }

func testCalDAVBadInput(t *testing.T) {
	d := newDAVSite(t, "alice")
	const events, tasks = "/dav/alice/calendars/events/", "/dav/alice/calendars/tasks/"
	before := d.changes(t, "alice")
	clear := func(t *testing.T, what string, r davReply, want ...int) {
		t.Helper()
		if !slices.Contains(want, r.status) {
			t.Errorf("%s: %d, want one of %v; body %.300q", what, r.status, want, r.body)
		}
		for _, bad := range []string{"goroutine", "panic", ".go:", "runtime error", "sql:", "pq:", "SQLSTATE", "*errors."} {
			if strings.Contains(r.body, bad) {
				t.Errorf("%s: the answer shows %q to a person:\n%s", what, bad, r.body)
			}
		}
		if strings.TrimSpace(r.body) == "" {
			t.Errorf("%s: %d with an empty body, want a sentence that says what is wrong", what, r.status)
		}
		if got := d.changes(t, "alice"); got != before {
			t.Errorf("%s changed the change list:\nbefore %s\nafter  %s", what, before, got)
		}
	}
	xmlHeader := []string{"Content-Type", "application/xml"}
	t.Run("malformed XML", func(t *testing.T) {
		broken := `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:getetag></D:prop>`
		for _, p := range []string{"/", "/dav/alice/", "/dav/alice/calendars/", events, tasks} {
			clear(t, "PROPFIND "+p+" with malformed XML", d.as(t, "alice", "PROPFIND", p, broken, append(xmlHeader, "Depth", "1")...), http.StatusBadRequest)
		}
		for _, body := range []string{
			`<?xml version="1.0"?><C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:filter>`,
			`not XML at all`,
			`<?xml version="1.0"?><D:sync-collection xmlns:D="DAV:"><D:sync-token></D:sync-collection>`,
		} {
			clear(t, "REPORT with "+body, d.as(t, "alice", "REPORT", events, body, append(xmlHeader, "Depth", "1")...), http.StatusBadRequest)
		}
	})

	t.Run("10 MB body", func(t *testing.T) {
		big := icsEvent("big@e2e.example", "Big", "DESCRIPTION:"+strings.Repeat("x", 10<<20)+"\r\n")
		r := d.do(t, "alice", d.tokens["alice"], "PUT", events+"big.ics", strings.NewReader(big), "Content-Type", "text/calendar")
		clear(t, "a 10 MB PUT with its Content-Length", r, http.StatusRequestEntityTooLarge)
		// Without Content-Length (chunked): the server finds out as it reads.
		r = d.do(t, "alice", d.tokens["alice"], "PUT", events+"big.ics", io.MultiReader(strings.NewReader(big)), "Content-Type", "text/calendar")
		clear(t, "a 10 MB chunked PUT", r, http.StatusRequestEntityTooLarge)
		r = d.do(t, "alice", d.tokens["alice"], "REPORT", events, io.MultiReader(bytes.NewReader([]byte(`<?xml version="1.0"?><!-- `+strings.Repeat("x", 10<<20)+` -->`))), "Content-Type", "application/xml", "Depth", "1")
		clear(t, "a 10 MB chunked REPORT", r, http.StatusRequestEntityTooLarge)
		if g := d.as(t, "alice", "GET", events+"big.ics", ""); g.status != http.StatusNotFound {
			t.Errorf("GET big.ics after the refused PUTs: %d, want 404", g.status)
		}
	})

	calendar := func(inner string) string {
		return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//e2e//raw//EN\r\n" + inner + "END:VCALENDAR\r\n"
	}
	vevent := func(uid, summary, start string) string {
		u := ""
		if uid != "" {
			u = "UID:" + uid + "\r\n"
		}
		return "BEGIN:VEVENT\r\n" + u + "DTSTAMP:20261001T080000Z\r\nDTSTART:" + start + "\r\nDURATION:PT1H\r\nSUMMARY:" + summary + "\r\nEND:VEVENT\r\n"
	}
	vtodo := "BEGIN:VTODO\r\nUID:todo-1@e2e.example\r\nDTSTAMP:20261001T080000Z\r\nSUMMARY:A task in the wrong place\r\nEND:VTODO\r\n"
	puts := []struct{ name, path, body string }{
		{"an event without UID", events + "no-uid.ics", calendar(vevent("", "No UID", "20261007T080000Z"))},
		{"two events with two UIDs", events + "two-uids.ics", calendar(vevent("one@e2e.example", "One", "20261007T080000Z") + vevent("two@e2e.example", "Two", "20261008T080000Z"))},
		{"two events with one UID and no RECURRENCE-ID", events + "one-uid-twice.ics", calendar(vevent("same@e2e.example", "First", "20261007T080000Z") + vevent("same@e2e.example", "Second", "20261008T080000Z"))},
		{"an event into the tasks collection", tasks + "event.ics", calendar(vevent("wrong-place@e2e.example", "An event among tasks", "20261007T080000Z"))},
		{"a task into the events collection", events + "todo.ics", calendar(vtodo)},
		{"an empty VCALENDAR", events + "empty.ics", calendar("")},
		{"text that is no iCalendar", events + "text.ics", "Lunch with Sam on Tuesday\r\n"},
	}
	for _, p := range puts {
		t.Run(p.name, func(t *testing.T) {
			r := d.as(t, "alice", "PUT", p.path, p.body, "Content-Type", "text/calendar; charset=utf-8")
			clear(t, "PUT of "+p.name, r, http.StatusBadRequest, http.StatusForbidden, http.StatusConflict,
				http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity)
			if g := d.as(t, "alice", "GET", p.path, ""); g.status != http.StatusNotFound {
				t.Errorf("GET %s after the refused PUT: %d, want 404:\n%s", p.path, g.status, g.body)
			}
		})
	}

	t.Run("a good PUT afterwards", func(t *testing.T) {
		r := d.as(t, "alice", "PUT", events+"good.ics", icsEvent("good@e2e.example", "Good one", ""), "Content-Type", "text/calendar; charset=utf-8")
		if r.status != http.StatusCreated {
			t.Fatalf("a good PUT after the bad ones: %d %s", r.status, r.body)
		}
		var titles []string
		for _, o := range d.events(t, "alice", "2026-10-01", "2026-10-31") {
			titles = append(titles, o.Title)
		}
		if !slices.Equal(titles, []string{"Good one"}) {
			t.Errorf("list_events after the bad PUTs and one good: %q, want [Good one] alone", titles)
		}
		if got := d.objectsOf(t, "alice", tasks); len(got) != 0 {
			t.Errorf("the tasks collection holds %v, want nothing", got)
		}
	})
}

// The ETag rule that keeps a client from overwriting what it has not
// seen (RFC 4791 §5.3.4, RFC 9110 §13.1): once the model changed an event
// a client wrote, the client's PUT or DELETE with the old ETag in
// If-Match is refused with 412 and the model's version stays; a PUT with
// If-None-Match: * on a name in use is refused too; with the new ETag the
// client's PUT goes through, the change list names it, and the model's
// undo brings its own version back. A PUT of the same object again is no
// change.
func TestCalDAVStaleETag(t *testing.T) { storetest.Engines(t, testCalDAVStaleETag) }

func testCalDAVStaleETag(t *testing.T) {
	d := newDAVSite(t, "alice")
	const path = "/dav/alice/calendars/events/race.ics"
	ctype := []string{"Content-Type", "text/calendar; charset=utf-8"}
	title := func(t *testing.T) string {
		t.Helper()
		got := d.events(t, "alice", "2026-10-07", "2026-10-07")
		if len(got) != 1 {
			t.Fatalf("list_events of 7 October: %+v, want the one event", got)
		}
		return got[0].Title
	}
	if r := d.as(t, "alice", "PUT", path, icsEvent("race@e2e.example", "Written by the phone", ""), append(ctype, "If-None-Match", "*")...); r.status != http.StatusCreated {
		t.Fatalf("first PUT: %d %s", r.status, r.body)
	}
	old := d.as(t, "alice", "GET", path, "").header.Get("ETag")
	series := d.events(t, "alice", "2026-10-07", "2026-10-07")[0].Series
	d.call(t, "alice", "update_event", "id="+series, "title=Changed by the model")
	now := d.as(t, "alice", "GET", path, "").header.Get("ETag")
	if old == "" || now == old {
		t.Fatalf("the ETag before the model's change %q, after %q: want two different ETags", old, now)
	}
	before := d.changes(t, "alice")

	stale := icsEvent("race@e2e.example", "Stale edit of the phone", "")
	for _, c := range []struct {
		what    string
		method  string
		body    string
		headers []string
	}{
		{"PUT with the old ETag", "PUT", stale, append(ctype, "If-Match", old)},
		{"PUT with If-None-Match: * on a name in use", "PUT", stale, append(ctype, "If-None-Match", "*")},
		{"DELETE with the old ETag", "DELETE", "", []string{"If-Match", old}},
	} {
		if r := d.as(t, "alice", c.method, path, c.body, c.headers...); r.status != http.StatusPreconditionFailed {
			t.Errorf("%s: %d, want 412; body %.300q", c.what, r.status, r.body)
		}
		if got := title(t); got != "Changed by the model" {
			t.Errorf("after the refused %s list_events shows %q, want the model's “Changed by the model”", c.what, got)
		}
	}
	if got := d.changes(t, "alice"); got != before {
		t.Errorf("the refused writes changed the change list:\nbefore %s\nafter  %s", before, got)
	}

	fresh := icsEvent("race@e2e.example", "Edit of the phone after a sync", "")
	if r := d.as(t, "alice", "PUT", path, fresh, append(ctype, "If-Match", now)...); r.status != http.StatusNoContent && r.status != http.StatusOK {
		t.Fatalf("PUT with the current ETag: %d, want 204; body %s", r.status, r.body)
	}
	if got := title(t); got != "Edit of the phone after a sync" {
		t.Errorf("after the PUT with the current ETag list_events shows %q", got)
	}
	after := d.changes(t, "alice")
	if after == before || !strings.Contains(after, "Edit of the phone after a sync") && !strings.Contains(after, "CalDAV") {
		t.Errorf("the change list after the client's PUT does not show it:\n%s", after)
	}
	if r := d.as(t, "alice", "PUT", path, fresh, ctype...); r.status >= 300 {
		t.Errorf("the same PUT again: %d %s", r.status, r.body)
	}
	if got := d.changes(t, "alice"); got != after {
		t.Errorf("a PUT of the same object again made a change:\nbefore %s\nafter  %s", after, got)
	}
	d.call(t, "alice", "undo")
	if got := title(t); got != "Changed by the model" {
		t.Errorf("after undo of the client's PUT list_events shows %q, want the model's “Changed by the model” back", got)
	}
}
