package caldav

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"time"

	"github.com/assistant-dev/assistant/store"
)

// syncPrefix begins every sync token (RFC 6578 §3.2: a URI). The rest is
// "N-T": the journal's change number N and the Unix time T it was
// written (a number SQLite may give again after a purge emptied the
// journal is told apart by its time), and ".S" for a point inside the
// change, after its row S (numbered from 0), when an answer was cut
// there. "0-0" is the token of a person with no change yet.
const syncPrefix = "urn:x-assistant:sync:"

// point is a place in a person's journal: after change (at its time), or
// inside it after row seq when seq ≥ 0.
type point struct {
	change int64
	at     int64 // Unix seconds
	seq    int64 // -1: the whole change
}

// token is the sync token of pt.
func (pt point) token() string {
	t := syncPrefix + strconv.FormatInt(pt.change, 10) + "-" + strconv.FormatInt(pt.at, 10)
	if pt.seq >= 0 {
		t += "." + strconv.FormatInt(pt.seq, 10)
	}
	return t
}

// latest is the point after the owner's newest change.
func latest(tx *store.Tx) (point, error) {
	n, at, err := tx.LastChange()
	if err != nil {
		return point{}, err
	}
	pt := point{change: n, seq: -1}
	if n > 0 {
		pt.at = at.Unix()
	}
	return pt, nil
}

// collectionNames are the display names of the two collections.
var collectionNames = map[string]string{store.DAVEvents: "Calendar", store.DAVTasks: "Tasks"}

// readPrivileges is what anyone may do on a read-only server.
const readPrivileges = `<D:privilege><D:read/></D:privilege><D:privilege><D:read-current-user-privilege-set/></D:privilege>`

// privileges is what the owner may do in their collections (RFC 3744
// §5.4): DAVx5 and Apple take a collection without write as read-only.
const privileges = `<D:privilege><D:read/></D:privilege><D:privilege><D:write/></D:privilege>` +
	`<D:privilege><D:write-properties/></D:privilege><D:privilege><D:write-content/></D:privilege>` +
	`<D:privilege><D:bind/></D:privilege><D:privilege><D:unbind/></D:privilege>` +
	`<D:privilege><D:read-current-user-privilege-set/></D:privilege>`

// privileges is the current-user-privilege-set of the home and the
// collections.
func (s *server) privileges() string {
	if s.readOnly {
		return readPrivileges
	}
	return privileges
}

// reports is the supported-report-set of a collection (RFC 3253 §3.1.5).
const reports = `<D:supported-report><D:report><C:calendar-query/></D:report></D:supported-report>` +
	`<D:supported-report><D:report><C:calendar-multiget/></D:report></D:supported-report>` +
	`<D:supported-report><D:report><C:free-busy-query/></D:report></D:supported-report>` +
	`<D:supported-report><D:report><D:sync-collection/></D:report></D:supported-report>`

func name(space, local string) xml.Name { return xml.Name{Space: space, Local: local} }

// homeProps are the properties of the calendar home.
func (s *server) homeProps(p *who) []prop {
	return []prop{
		{name(nsDAV, "resourcetype"), "<D:collection/>"},
		{name(nsDAV, "displayname"), esc(p.Name)},
		{name(nsDAV, "current-user-principal"), hrefElem(principalPath(p.Name))},
		{name(nsDAV, "owner"), hrefElem(principalPath(p.Name))},
		{name(nsDAV, "current-user-privilege-set"), s.privileges()},
	}
}

// collectionProps are the properties of one collection; now is the
// point after the owner's newest change, its CTag and sync token.
func (s *server) collectionProps(p *who, collection string, now point) []prop {
	comp := kindOf(collection)
	return []prop{
		{name(nsDAV, "resourcetype"), "<D:collection/><C:calendar/>"},
		{name(nsDAV, "displayname"), esc(collectionNames[collection])},
		{name(nsDAV, "current-user-principal"), hrefElem(principalPath(p.Name))},
		{name(nsDAV, "owner"), hrefElem(principalPath(p.Name))},
		{name(nsDAV, "current-user-privilege-set"), s.privileges()},
		{name(nsDAV, "supported-report-set"), reports},
		{name(nsDAV, "sync-token"), esc(now.token())},
		{name(nsCS, "getctag"), esc(now.token())},
		{name(nsCalDAV, "supported-calendar-component-set"), `<C:comp name="` + comp + `"/>`},
		{name(nsCalDAV, "supported-calendar-data"), `<C:calendar-data content-type="text/calendar" version="2.0"/>`},
		{name(nsCalDAV, "calendar-description"), esc(collectionNames[collection] + " of " + p.Name + ", kept by assistant")},
		{name(nsCalDAV, "calendar-timezone-id"), esc(p.zone.Name())},
		{name(nsCalDAV, "max-resource-size"), strconv.Itoa(MaxBody)},
		{name(nsApple, "calendar-color"), colors[collection]},
	}
}

var colors = map[string]string{store.DAVEvents: "#2E7D32FF", store.DAVTasks: "#1565C0FF"}

// objectProps are the properties of one object with its body; calendar
// data only when asked for (it is the body again).
func objectProps(res *resource, body []byte, pr propRequest) []prop {
	ps := []prop{
		{name(nsDAV, "resourcetype"), ""},
		{name(nsDAV, "getetag"), esc(etag(body))},
		{name(nsDAV, "getcontenttype"), "text/calendar; charset=utf-8; component=" + kindOf(res.collection)},
		{name(nsDAV, "getcontentlength"), strconv.Itoa(len(body))},
		{name(nsDAV, "getlastmodified"), res.modTime().UTC().Format(http.TimeFormat)},
	}
	if !pr.all && pr.wants(nsCalDAV, "calendar-data") {
		ps = append(ps, prop{name(nsCalDAV, "calendar-data"), esc(string(body))})
	}
	return ps
}

// propfind answers PROPFIND of the home or a collection (RFC 4918 §9.1),
// with Depth 0 or 1 (infinity is taken as 1: the tree is two levels).
func (s *server) propfind(w http.ResponseWriter, r *http.Request, p *who, t target) error {
	root, err := parseXML(r.Body)
	if err != nil {
		return err
	}
	if root != nil && (root.name.Space != nsDAV || root.name.Local != "propfind") {
		return &httpError{code: http.StatusBadRequest, msg: "A PROPFIND body is a DAV:propfind element (RFC 4918 §14.20)."}
	}
	pr := readProps(root)
	deep := r.Header.Get("Depth") != "0"
	return s.stream(w, r, p, func(tx *store.Tx, ms *multistatus) error {
		now, err := latest(tx)
		if err != nil {
			return err
		}
		cols := []string{store.DAVEvents, store.DAVTasks}
		if t.kind == atHome {
			ms.member(homePath(p.Name), pr, s.homeProps(p))
			if !deep {
				return nil
			}
		} else {
			cols = []string{t.collection}
		}
		for _, c := range cols {
			ms.member(collectionPath(p.Name, c), pr, s.collectionProps(p, c, now))
		}
		if t.kind != atCollection || !deep {
			return nil
		}
		list, err := s.listing(r.Context(), tx, t.collection, window{})
		if err != nil {
			return err
		}
		for _, res := range list {
			if err := r.Context().Err(); err != nil {
				return err
			}
			body, err := res.body(p)
			if err != nil {
				return err
			}
			ms.member(objectPath(p.Name, res.collection, res.name), pr, objectProps(res, body, pr))
		}
		return nil
	})
}

// proppatch answers PROPPATCH (RFC 4918 §9.2): the collections' properties
// are fixed, so each property asked to change is refused with 403 in a
// 207, which clients take as "not kept" (a colour or order picked on the
// phone stays on the phone).
func (s *server) proppatch(w http.ResponseWriter, r *http.Request, t target) error {
	root, err := parseXML(r.Body)
	if err != nil {
		return err
	}
	if root == nil || root.name.Space != nsDAV || root.name.Local != "propertyupdate" {
		return &httpError{code: http.StatusBadRequest, msg: "A PROPPATCH body is a DAV:propertyupdate element (RFC 4918 §14.19)."}
	}
	ms := newMultistatus(w)
	ms.raw("<D:response><D:href>" + esc(r.URL.Path) + "</D:href><D:propstat><D:prop>")
	for _, op := range root.children {
		for _, pr := range op.children {
			for _, c := range pr.children {
				var b = &ms.buf
				element(b, c.name, "")
			}
		}
	}
	ms.raw("</D:prop><D:status>HTTP/1.1 403 Forbidden</D:status></D:propstat></D:response>")
	ms.send()
	return nil
}

// httpDate parses a CalDAV time (RFC 5545 UTC form, "20261005T070000Z").
func httpDate(s string) (time.Time, bool) {
	t, err := time.Parse("20060102T150405Z", s)
	return t, err == nil
}
