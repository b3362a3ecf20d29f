package caldav

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/assistant-dev/assistant/store"
)

// The XML namespaces of the answers, with the prefixes they are written
// with.
const (
	nsDAV    = "DAV:"
	nsCalDAV = "urn:ietf:params:xml:ns:caldav"
	nsCS     = "http://calendarserver.org/ns/"
	nsApple  = "http://apple.com/ns/ical/"
	nsOwn    = "https://assistant.invalid/ns/"
)

var prefixes = map[string]string{nsDAV: "D", nsCalDAV: "C", nsCS: "CS", nsApple: "A", nsOwn: "X"}

// node is one element of a request body.
type node struct {
	name     xml.Name
	attrs    []xml.Attr
	children []*node
	text     string
}

// child is the first child named local in space, or nil.
func (n *node) child(space, local string) *node {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name.Space == space && c.name.Local == local {
			return c
		}
	}
	return nil
}

// attr is the value of the attribute local, "" when absent.
func (n *node) attr(local string) string {
	for _, a := range n.attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// maxDepth and maxNodes bound a request's XML: a body within MaxBody can
// still hold a deep or wide tree no CalDAV request needs.
const (
	maxProps = 100 // properties one request may ask for; more are not answered
	maxDepth = 32
	maxNodes = 200000
)

var errBadXML = &httpError{code: http.StatusBadRequest, msg: "The request body is not well-formed XML; send the PROPFIND or REPORT body RFC 4918 and RFC 4791 describe."}

// parseXML reads a request body into a tree; an empty body is nil.
func parseXML(r io.Reader) (*node, error) {
	d := xml.NewDecoder(r)
	d.Strict = true
	var stack []*node
	var root *node
	count := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, err
		}
		if err != nil {
			return nil, errBadXML
		}
		switch t := tok.(type) {
		case xml.StartElement:
			count++
			if len(stack) >= maxDepth || count > maxNodes {
				return nil, &httpError{code: http.StatusBadRequest, msg: "The request body nests or repeats elements far beyond what a CalDAV request needs."}
			}
			n := &node{name: t.Name, attrs: t.Attr}
			if len(stack) == 0 {
				if root != nil {
					return nil, errBadXML
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				n := stack[len(stack)-1]
				if len(n.text) < 4096 {
					n.text += string(t)
				}
			}
		}
	}
	if len(stack) != 0 {
		return nil, errBadXML
	}
	return root, nil
}

// propRequest is what a PROPFIND or REPORT asks of each member: some
// properties by name, all, or their names.
type propRequest struct {
	names    []xml.Name
	all      bool
	nameOnly bool
	// data is the calendar-data element when asked for (its comp, expand).
	data *node
}

// readProps reads the D:prop, D:allprop or D:propname children of n; with
// none, every property (RFC 4918 §9.1: an empty PROPFIND is allprop).
func readProps(n *node) propRequest {
	var pr propRequest
	if n == nil {
		pr.all = true
		return pr
	}
	if p := n.child(nsDAV, "prop"); p != nil {
		seen := map[xml.Name]bool{}
		for _, c := range p.children {
			if seen[c.name] || len(seen) == maxProps {
				continue // asked twice: answered once
			}
			seen[c.name] = true
			pr.names = append(pr.names, c.name)
			if c.name.Space == nsCalDAV && c.name.Local == "calendar-data" {
				pr.data = c
			}
		}
		return pr
	}
	if n.child(nsDAV, "propname") != nil {
		pr.nameOnly = true
		return pr
	}
	pr.all = true
	return pr
}

// wants reports whether the request asks for property space:local.
func (pr propRequest) wants(space, local string) bool {
	if pr.all {
		return true
	}
	for _, n := range pr.names {
		if n.Space == space && n.Local == local {
			return true
		}
	}
	return false
}

// prop is one property's value as inner XML (already escaped), keyed by
// its name.
type prop struct {
	name  xml.Name
	inner string
}

// multistatus builds a 207 answer (RFC 4918 §13), streamed: once more
// than flushAt bytes are waiting they go out, so an answer of many members
// holds no more than that in memory. A failure after the first bytes went
// out can only end the connection (the client sees a cut answer, never a
// wrong one).
type multistatus struct {
	w       http.ResponseWriter
	buf     bytes.Buffer
	started bool
}

// flushAt is how many bytes a multistatus keeps before sending them.
const flushAt = 64 << 10

func newMultistatus(w http.ResponseWriter) *multistatus {
	m := &multistatus{w: w}
	m.buf.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	m.buf.WriteString(`<D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" xmlns:A="http://apple.com/ns/ical/" xmlns:X="https://assistant.invalid/ns/">`)
	return m
}

// open writes one member's properties: those found (200) and those asked
// for and not had (404).
func (m *multistatus) member(href string, pr propRequest, have []prop) {
	m.buf.WriteString("<D:response><D:href>")
	xmlText(&m.buf, href)
	m.buf.WriteString("</D:href>")
	var found []prop
	var missing []xml.Name
	if pr.all || pr.nameOnly {
		found = have
	} else {
		for _, n := range pr.names {
			ok := false
			for _, p := range have {
				if p.name == n {
					found = append(found, p)
					ok = true
					break
				}
			}
			if !ok {
				missing = append(missing, n)
			}
		}
	}
	if len(found) > 0 {
		m.buf.WriteString("<D:propstat><D:prop>")
		for _, p := range found {
			if pr.nameOnly {
				p.inner = ""
			}
			element(&m.buf, p.name, p.inner)
		}
		m.buf.WriteString("</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>")
	}
	if len(missing) > 0 {
		m.buf.WriteString("<D:propstat><D:prop>")
		for _, n := range missing {
			element(&m.buf, n, "")
		}
		m.buf.WriteString("</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>")
	}
	m.buf.WriteString("</D:response>")
	m.flush(false)
}

// flush sends what waits once it is over flushAt (or always, at the end).
func (m *multistatus) flush(end bool) {
	if !end && m.buf.Len() < flushAt {
		return
	}
	if !m.started {
		m.started = true
		m.w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		if end {
			m.w.Header().Set("Content-Length", strconv.Itoa(m.buf.Len()))
		}
		m.w.WriteHeader(http.StatusMultiStatus)
	}
	_, _ = m.w.Write(m.buf.Bytes())
	m.buf.Reset()
}

// status writes a member that is only a status: 404 for a removed member
// of a sync-collection, 507 for a cut answer (RFC 6578 §3.6).
func (m *multistatus) status(href string, code int) {
	m.buf.WriteString("<D:response><D:href>")
	xmlText(&m.buf, href)
	m.buf.WriteString("</D:href><D:status>HTTP/1.1 " + strconv.Itoa(code) + " " + http.StatusText(code) + "</D:status></D:response>")
}

// raw appends an element outside any response (D:sync-token).
func (m *multistatus) raw(s string) { m.buf.WriteString(s) }

// send ends the answer.
func (m *multistatus) send() {
	m.buf.WriteString("</D:multistatus>\n")
	m.flush(true)
}

// abort ends a request that failed after its answer began: the
// connection is cut, so the client cannot take a part for the whole.
func (m *multistatus) abort() {
	if m.started {
		panic(http.ErrAbortHandler)
	}
}

// element writes <P:local>inner</P:local>, declaring a namespace of its
// own when the name's is not one of the answer's.
func element(b *bytes.Buffer, n xml.Name, inner string) {
	p, ok := prefixes[n.Space]
	local := n.Local
	if !ok {
		b.WriteString("<U:" + local + ` xmlns:U="`)
		xmlText(b, n.Space)
		b.WriteString(`"`)
		p = "U"
	} else {
		b.WriteString("<" + p + ":" + local)
	}
	if inner == "" {
		b.WriteString("/>")
		return
	}
	b.WriteString(">" + inner + "</" + p + ":" + local + ">")
}

// xmlText writes s escaped for XML text or attribute values.
func xmlText(b *bytes.Buffer, s string) {
	_ = xml.EscapeText(b, []byte(s))
}

// esc is s escaped for XML.
func esc(s string) string {
	var b bytes.Buffer
	xmlText(&b, s)
	return b.String()
}

// hrefElem is a D:href of path.
func hrefElem(path string) string { return "<D:href>" + esc(path) + "</D:href>" }

// writeError writes a failed precondition (RFC 4918 §16): the status, and
// a D:error body naming the precondition, with the sentence beside it.
func writeError(w http.ResponseWriter, e *httpError) {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	b.WriteString(`<D:error xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:X="https://assistant.invalid/ns/">`)
	if e.href != "" {
		b.WriteString("<" + e.precondition + ">" + hrefElem(e.href) + "</" + e.precondition + ">")
	} else {
		b.WriteString("<" + e.precondition + "/>")
	}
	b.WriteString("<X:message>")
	xmlText(&b, e.msg)
	b.WriteString("</X:message></D:error>\n")
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(e.code)
	_, _ = w.Write(b.Bytes())
}

// Where a path points.
type kind int

const (
	atRoot       kind = iota // /dav/
	atPrincipal              // /dav/NAME/
	atHome                   // /dav/NAME/calendars/
	atCollection             // /dav/NAME/calendars/events/
	atObject                 // /dav/NAME/calendars/events/X.ics
	atNothing                // anything else under /dav
)

// target is a parsed path under Prefix.
type target struct {
	kind       kind
	person     string
	collection string // store.DAVEvents or store.DAVTasks
	name       string // the object's last segment
}

// parsePath reads a request path (already unescaped).
func parsePath(p string) target {
	rest := strings.Trim(strings.TrimPrefix(p, Prefix), "/")
	if rest == "" {
		return target{kind: atRoot}
	}
	parts := strings.Split(rest, "/")
	t := target{person: parts[0], kind: atNothing}
	switch {
	case len(parts) == 1:
		t.kind = atPrincipal
	case parts[1] != "calendars":
	case len(parts) == 2:
		t.kind = atHome
	case parts[2] != "events" && parts[2] != "tasks":
	case len(parts) == 3:
		t.kind, t.collection = atCollection, parts[2]
	case len(parts) == 4 && parts[3] != "" && parts[3] != "." && parts[3] != "..":
		t.kind, t.collection, t.name = atObject, parts[2], parts[3]
	}
	return t
}

// principalPath is the principal's URL path, escaped.
func principalPath(name string) string { return Prefix + "/" + url.PathEscape(name) + "/" }

// homePath is the calendar home's URL path.
func homePath(name string) string { return principalPath(name) + "calendars/" }

// collectionPath is a collection's URL path.
func collectionPath(name, collection string) string { return homePath(name) + collection + "/" }

// objectPath is a resource's URL path.
func objectPath(name, collection, object string) string {
	return collectionPath(name, collection) + url.PathEscape(object)
}

// stream answers a multistatus that fn builds inside one consistent read
// of the person's data; a failure before the first bytes went out is
// answered as fail says, one after them cuts the connection.
func (s *server) stream(w http.ResponseWriter, r *http.Request, p *who, fn func(tx *store.Tx, ms *multistatus) error) error {
	ms := newMultistatus(w)
	if err := s.st.Read(r.Context(), p.ID, func(tx *store.Tx) error { return fn(tx, ms) }); err != nil {
		ms.abort()
		return err
	}
	ms.send()
	return nil
}
