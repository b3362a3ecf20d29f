package caldav

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/ics"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// report answers REPORT (RFC 3253 §3.6) on a collection: calendar-query
// and calendar-multiget (RFC 4791 §7.8, §7.9), free-busy-query (§7.10) and
// sync-collection (RFC 6578 §3.2).
func (s *server) report(w http.ResponseWriter, r *http.Request, p *who, t target) error {
	root, err := parseXML(r.Body)
	if err != nil {
		return err
	}
	if root == nil {
		return &httpError{code: http.StatusBadRequest, msg: "A REPORT needs a body: calendar-query, calendar-multiget, free-busy-query or sync-collection."}
	}
	if t.kind != atCollection {
		return &httpError{code: http.StatusForbidden, precondition: "D:supported-report",
			msg: "Reports are answered on a collection, " + collectionPath(p.Name, store.DAVEvents) + " or " + collectionPath(p.Name, store.DAVTasks) + "."}
	}
	switch {
	case root.name == name(nsCalDAV, "calendar-multiget"):
		return s.multiget(w, r, p, t, root)
	case root.name == name(nsCalDAV, "calendar-query"):
		return s.query(w, r, p, t, root)
	case root.name == name(nsDAV, "sync-collection"):
		return s.syncCollection(w, r, p, t, root)
	case root.name == name(nsCalDAV, "free-busy-query"):
		return s.freeBusy(w, r, p, t, root)
	}
	return &httpError{code: http.StatusForbidden, precondition: "D:supported-report",
		msg: fmt.Sprintf("The report “%s” is not served; a collection answers calendar-query, calendar-multiget, free-busy-query and sync-collection.", clip(root.name.Local))}
}

// dataShape is how calendar-data is asked for: whether, and expanded over
// which window (RFC 4791 §9.6.5).
type dataShape struct {
	ctx            context.Context
	budget         *int // occurrences the request's expansions may still hold
	want           bool
	expand         bool
	expFrom, expTo time.Time
}

// shapeOf reads the calendar-data element of a report's prop.
func shapeOf(pr propRequest) (dataShape, error) {
	var d dataShape
	if pr.data == nil {
		return d, nil
	}
	d.want = true
	if e := pr.data.child(nsCalDAV, "expand"); e != nil {
		from, ok1 := httpDate(e.attr("start"))
		to, ok2 := httpDate(e.attr("end"))
		if !ok1 || !ok2 || !to.After(from) {
			return d, &httpError{code: http.StatusBadRequest, msg: "An expand needs start and end in UTC form, such as start=\"20261201T000000Z\" end=\"20270101T000000Z\", with end after start."}
		}
		if to.Sub(from) > MaxRange {
			return d, tooLong("expand")
		}
		d.expand, d.expFrom, d.expTo = true, from, to
		budget := MaxExpanded
		d.budget = &budget
	}
	return d, nil
}

// tooLong refuses a span of what (an element named after RFC 4791: an
// expand, a time-range) longer than the server reads.
func tooLong(what string) error {
	return &httpError{code: http.StatusForbidden, precondition: "C:max-date-time",
		msg: fmt.Sprintf("The %s spans at most 5 years; ask for a shorter one.", what)}
}

// props are the properties of one resource for a report, with its
// calendar-data as asked (expanded, when asked so).
func (d dataShape) props(res *resource, body []byte, pr propRequest, p *who) ([]prop, error) {
	ps := objectProps(res, body, propRequest{names: pr.names})
	if !d.want {
		return ps, nil
	}
	data := body
	if d.expand && res.event != nil {
		var err error
		if data, err = expand(d.ctx, res, body, p, d.expFrom, d.expTo, d.budget); err != nil {
			return nil, err
		}
	}
	for i := range ps {
		if ps[i].name == name(nsCalDAV, "calendar-data") {
			ps[i].inner = esc(string(data))
			return ps, nil
		}
	}
	return append(ps, prop{name(nsCalDAV, "calendar-data"), esc(string(data))}), nil
}

// multiget answers calendar-multiget: the named objects of the collection,
// 404 for each that is not there (another collection's or person's
// included), at most MaxResults hrefs.
func (s *server) multiget(w http.ResponseWriter, r *http.Request, p *who, t target, root *node) error {
	pr := readProps(root)
	shape, err := shapeOf(pr)
	if err != nil {
		return err
	}
	shape.ctx = r.Context()
	var hrefs []string
	seen := map[string]bool{}
	for _, c := range root.children {
		if h := strings.TrimSpace(c.text); c.name == name(nsDAV, "href") && !seen[h] && len(hrefs) <= MaxResults {
			seen[h] = true
			hrefs = append(hrefs, h)
		}
	}
	if len(hrefs) > MaxResults {
		return &httpError{code: http.StatusForbidden, precondition: "D:number-of-matches-within-limits",
			msg: fmt.Sprintf("A calendar-multiget names at most %d objects; ask in several.", MaxResults)}
	}
	own := collectionPath(p.Name, t.collection)
	return s.stream(w, r, p, func(tx *store.Tx, ms *multistatus) error {
		for _, h := range hrefs {
			obj := hrefObject(h, own, Prefix+"/"+p.Name+"/calendars/"+t.collection+"/")
			if obj == "" {
				ms.status(h, http.StatusNotFound)
				continue
			}
			res, ok, err := resolve(tx, t.collection, obj)
			if err != nil {
				return err
			}
			if !ok {
				ms.status(h, http.StatusNotFound)
				continue
			}
			if err := answer(ms, objectPath(p.Name, t.collection, res.name), res, pr, shape, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// hrefObject is the name of the object an href of a calendar-multiget
// names (RFC 4791 §7.9), or "" when it names none directly in the
// collection whose path is own (as this server writes it, escaped) or
// plain (the same unescaped). The href is split before its last segment
// is unescaped, once: a name may hold an escaped "%" or "/" (RFC 3986
// §2.4), as the hrefs PROPFIND and sync-collection give out do.
func hrefObject(h, own, plain string) string {
	u, err := url.Parse(h)
	if err != nil {
		return ""
	}
	dir, file := path.Split(u.EscapedPath())
	if d, err := url.PathUnescape(dir); err != nil || dir != own && d != plain {
		return ""
	}
	obj, err := url.PathUnescape(file)
	if err != nil {
		return ""
	}
	return obj
}

// window is a time-range of a filter (RFC 4791 §9.9), zero when absent.
type window struct {
	set      bool
	from, to time.Time
}

// rangeOf reads a time-range element: a missing start or end is open
// (RFC 4791 §9.9); the span is at most MaxRange.
func rangeOf(n *node) (window, error) {
	if n == nil {
		return window{}, nil
	}
	w := window{set: true, from: time.Unix(0, 0).UTC().AddDate(-1000, 0, 0), to: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)}
	if v := n.attr("start"); v != "" {
		t, ok := httpDate(v)
		if !ok {
			return w, badRange()
		}
		w.from = t
	}
	if v := n.attr("end"); v != "" {
		t, ok := httpDate(v)
		if !ok {
			return w, badRange()
		}
		w.to = t
	}
	if !w.to.After(w.from) {
		return w, badRange()
	}
	return w, nil
}

func badRange() error {
	return &httpError{code: http.StatusBadRequest, precondition: "C:valid-filter",
		msg: "A time-range takes start and end in UTC form, such as start=\"20261201T000000Z\" end=\"20270101T000000Z\", with end after start."}
}

// query answers calendar-query: the collection's objects that the filter
// selects, by component, time-range and the component's prop-filters
// (is-not-defined, text-match; RFC 4791 §7.8, §9.7.2, §9.7.5, §9.9: a
// client such as python3-caldav takes the answer as the matches and does
// not filter again). A param-filter or a time-range inside a prop-filter
// is not read (every object passes it: a superset). At most MaxResults
// objects, then 507 on the collection.
func (s *server) query(w http.ResponseWriter, r *http.Request, p *who, t target, root *node) error {
	pr := readProps(root)
	shape, err := shapeOf(pr)
	if err != nil {
		return err
	}
	shape.ctx = r.Context()
	f := root.child(nsCalDAV, "filter")
	vcal := f.child(nsCalDAV, "comp-filter")
	if f == nil || vcal == nil || !strings.EqualFold(vcal.attr("name"), "VCALENDAR") {
		return &httpError{code: http.StatusBadRequest, precondition: "C:valid-filter",
			msg: "A calendar-query needs a filter with a comp-filter named VCALENDAR (RFC 4791 §9.7)."}
	}
	comp := vcal.child(nsCalDAV, "comp-filter")
	var win window
	pfs, err := readPropFilters(comp)
	if err != nil {
		return err
	}
	if comp != nil {
		if !strings.EqualFold(comp.attr("name"), kindOf(t.collection)) {
			// Another component: this collection holds none.
			newMultistatus(w).send()
			return nil
		}
		if win, err = rangeOf(comp.child(nsCalDAV, "time-range")); err != nil {
			return err
		}
		if win.set && win.to.Sub(win.from) > MaxRange && win.from.Year() > 1 && win.to.Year() < 9999 {
			return tooLong("time-range")
		}
	}
	return s.stream(w, r, p, func(tx *store.Tx, ms *multistatus) error {
		list, err := s.listing(r.Context(), tx, t.collection, win)
		if err != nil {
			return err
		}
		n := 0
		for _, res := range list {
			if err := r.Context().Err(); err != nil {
				return err
			}
			if win.set && !overlaps(r.Context(), res, p, win) {
				continue
			}
			var body []byte
			if len(pfs) > 0 {
				if body, err = res.body(p); err != nil {
					return err
				}
				if !matchesProps(body, kindOf(t.collection), pfs) {
					continue
				}
			}
			if n == MaxResults {
				ms.status(collectionPath(p.Name, t.collection), http.StatusInsufficientStorage)
				break
			}
			n++
			if body == nil {
				if body, err = res.body(p); err != nil {
					return err
				}
			}
			ps, err := shape.props(res, body, pr, p)
			if err != nil {
				return err
			}
			ms.member(objectPath(p.Name, t.collection, res.name), pr, ps)
		}
		return nil
	})
}

// overlaps reports whether the resource has an occurrence in win: for an
// event, an occurrence of its series (not cancelled, at its moved time
// when moved) overlapping it; for a task, its due inside it, or no due
// (RFC 4791 §9.9: a VTODO with neither DTSTART nor DUE matches every
// range).
func overlaps(ctx context.Context, res *resource, p *who, win window) bool {
	if res.task != nil {
		if !res.task.HasDue {
			return true
		}
		at := res.task.Due.Start(p.zone)
		return !at.Before(win.from) && at.Before(win.to)
	}
	ins, cut, err := instances(ctx, res, p.zone, win.from, win.to, 1)
	return err == nil && (len(ins) > 0 || cut)
}

// expand writes body (one event object) as its occurrences in [from, to),
// each a VEVENT with its own DTSTART, DTEND and RECURRENCE-ID in UTC (a
// date for an all-day series) and no RRULE, RDATE or EXDATE (RFC 4791
// §9.6.5): the changed ones from their override's properties, the others
// from the series'. More than MaxInstances occurrences are refused, and
// so is a report whose expansions hold more than MaxExpanded in all
// (budget is what is left of it).
func expand(ctx context.Context, res *resource, body []byte, p *who, from, to time.Time, budget *int) ([]byte, error) {
	raw, err := ical.NewDecoder(bytes.NewReader(body)).Decode()
	if err != nil {
		return nil, err
	}
	var master *ical.Component
	byKey := map[string]*ical.Component{}
	for _, c := range raw.Children {
		if c.Name != ical.CompEvent {
			continue
		}
		rid := c.Props.Get(ical.PropRecurrenceID)
		if rid == nil {
			master = c
			continue
		}
		if key, ok := ridKey(rid, res.event); ok {
			byKey[key] = c
		}
	}
	out := ical.NewCalendar()
	out.Props.SetText(ical.PropVersion, "2.0")
	out.Props.SetText(ical.PropProductID, ics.ProdID)
	if master == nil {
		return nil, fmt.Errorf("caldav: object %s has no series to expand", res.name)
	}
	list, cut, err := instances(ctx, res, p.zone, from, to, min(MaxInstances, *budget))
	if err != nil {
		return nil, err
	}
	if cut && *budget < MaxInstances {
		return nil, &httpError{code: http.StatusForbidden, precondition: "D:number-of-matches-within-limits",
			msg: fmt.Sprintf("The objects of this report expand to more than %d occurrences in all; ask for fewer objects or a shorter range.", MaxExpanded)}
	}
	if cut {
		return nil, tooMany("expand")
	}
	*budget -= len(list)
	repeats := res.event.Repeats() || len(res.ovs) > 0
	for _, in := range list {
		src := master
		if c := byKey[in.key]; c != nil {
			src = c
		}
		c := ical.NewComponent(ical.CompEvent)
		for name, ps := range src.Props {
			switch name {
			case ical.PropRecurrenceRule, ical.PropRecurrenceDates, ical.PropExceptionDates, ical.PropDateTimeStart,
				ical.PropDateTimeEnd, ical.PropDuration, ical.PropRecurrenceID:
				continue
			}
			c.Props[name] = ps
		}
		c.Children = src.Children
		if res.event.AllDay {
			setDate(c, ical.PropDateTimeStart, in.start.In(p.zone.Location()))
			setDate(c, ical.PropDateTimeEnd, in.end.In(p.zone.Location()))
		} else {
			c.Props.SetDateTime(ical.PropDateTimeStart, in.start.UTC())
			c.Props.SetDateTime(ical.PropDateTimeEnd, in.end.UTC())
		}
		if repeats {
			rid := ical.NewProp(ical.PropRecurrenceID)
			if res.event.AllDay {
				d := in.original.Date
				rid.SetDate(time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC))
			} else {
				at, _ := res.event.Zone.Instant(in.original.DateTime)
				rid.SetDateTime(at.UTC())
			}
			c.Props.Set(rid)
		}
		out.Children = append(out.Children, c)
	}
	var b bytes.Buffer
	if len(out.Children) == 0 {
		// go-ical writes no calendar without a component; an object with
		// no occurrence in the window is an empty calendar.
		return []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:" + ics.ProdID + "\r\nEND:VCALENDAR\r\n"), nil
	}
	if err := ical.NewEncoder(&b).Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ridKey is the override key of a RECURRENCE-ID as WriteEventObject wrote
// it: a date, a UTC time, or a time in the series' zone.
func ridKey(p *ical.Prop, e *calendar.Event) (string, bool) {
	v := strings.TrimSpace(p.Value)
	if e.AllDay || strings.EqualFold(p.Params.Get(ical.ParamValue), "DATE") {
		if len(v) >= 8 {
			return v[:8], true
		}
		return "", false
	}
	if strings.HasSuffix(v, "Z") {
		return v, true
	}
	zone := e.Zone
	if id := p.Params.Get(ical.ParamTimezoneID); id != "" {
		if z, err := tz.LoadZone(id); err == nil {
			zone = z
		}
	}
	t, err := time.ParseInLocation("20060102T150405", v, zone.Location())
	if err != nil {
		return "", false
	}
	return t.UTC().Format("20060102T150405Z"), true
}

func tooMany(what string) error {
	return &httpError{code: http.StatusForbidden, precondition: "D:number-of-matches-within-limits",
		msg: fmt.Sprintf("The %s holds more than %d occurrences; ask for a shorter range.", what, MaxInstances)}
}

func setDate(c *ical.Component, prop string, t time.Time) {
	pr := ical.NewProp(prop)
	pr.SetDate(t)
	c.Props.Set(pr)
}

// freeBusy answers free-busy-query (RFC 4791 §7.10) on the events: one
// VFREEBUSY with the busy periods of every occurrence in the range; a
// range of more than MaxBusy occurrences is refused, never cut.
func (s *server) freeBusy(w http.ResponseWriter, r *http.Request, p *who, t target, root *node) error {
	win, err := rangeOf(root.child(nsCalDAV, "time-range"))
	if err != nil {
		return err
	}
	if !win.set {
		return &httpError{code: http.StatusBadRequest, precondition: "C:valid-filter",
			msg: "A free-busy-query needs a time-range, such as <C:time-range start=\"20261207T000000Z\" end=\"20261214T000000Z\"/> (RFC 4791 §7.10)."}
	}
	if win.to.Sub(win.from) > MaxRange {
		return tooLong("free-busy-query")
	}
	var busy, tentative [][2]time.Time
	if t.collection == store.DAVEvents {
		err = s.st.Read(r.Context(), p.ID, func(tx *store.Tx) error {
			list, err := s.listing(r.Context(), tx, t.collection, win)
			if err != nil {
				return err
			}
			for _, res := range list {
				if !overlaps(r.Context(), res, p, win) {
					continue
				}
				ins, cut, err := instances(r.Context(), res, p.zone, win.from, win.to, MaxBusy-len(busy)-len(tentative))
				if err != nil {
					return err
				}
				if cut {
					return &httpError{code: http.StatusForbidden, precondition: "D:number-of-matches-within-limits",
						msg: fmt.Sprintf("The range holds more than %d busy periods; ask for a shorter one.", MaxBusy)}
				}
				transp, status := busyKind(res)
				if transp == "TRANSPARENT" || status == "CANCELLED" {
					continue // takes no time (RFC 4791 §7.10)
				}
				for _, in := range ins {
					period := [2]time.Time{maxTime(in.start, win.from), minTime(in.end, win.to)}
					if status == "TENTATIVE" {
						tentative = append(tentative, period)
						continue
					}
					busy = append(busy, period)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	const f = "20060102T150405Z"
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:" + ics.ProdID + "\r\nBEGIN:VFREEBUSY\r\n")
	b.WriteString("DTSTAMP:" + s.now().UTC().Format(f) + "\r\n")
	b.WriteString("DTSTART:" + win.from.UTC().Format(f) + "\r\nDTEND:" + win.to.UTC().Format(f) + "\r\n")
	for _, m := range merge(busy) {
		b.WriteString("FREEBUSY:" + m[0].UTC().Format(f) + "/" + m[1].UTC().Format(f) + "\r\n")
	}
	for _, m := range merge(tentative) {
		b.WriteString("FREEBUSY;FBTYPE=BUSY-TENTATIVE:" + m[0].UTC().Format(f) + "/" + m[1].UTC().Format(f) + "\r\n")
	}
	b.WriteString("END:VFREEBUSY\r\nEND:VCALENDAR\r\n")
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(b.String()))
	return nil
}

// merge sorts periods and joins those that overlap or touch.
func merge(periods [][2]time.Time) [][2]time.Time {
	slices.SortFunc(periods, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	var merged [][2]time.Time
	for _, b := range periods {
		if n := len(merged); n > 0 && !b[0].After(merged[n-1][1]) {
			merged[n-1][1] = maxTime(merged[n-1][1], b[1])
			continue
		}
		merged = append(merged, b)
	}
	return merged
}

// busyKind is the series' TRANSP and STATUS, upper-cased, as its client
// sent them (assistant keeps them among the properties it does not
// model); "" when absent.
func busyKind(res *resource) (transp, status string) {
	if res.extra == "" {
		return "", ""
	}
	cal, err := ical.NewDecoder(strings.NewReader(res.extra)).Decode()
	if err != nil {
		return "", ""
	}
	for _, c := range cal.Children {
		if c.Name != ical.CompEvent || c.Props.Get(ical.PropRecurrenceID) != nil {
			continue
		}
		if p := c.Props.Get(ical.PropTransparency); p != nil {
			transp = strings.ToUpper(strings.TrimSpace(p.Value))
		}
		if p := c.Props.Get(ical.PropStatus); p != nil {
			status = strings.ToUpper(strings.TrimSpace(p.Value))
		}
	}
	return transp, status
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// syncCollection answers sync-collection (RFC 6578 §3.2): with no token,
// every member and the current token; with a token, the members changed
// or removed since it, read from the change journal from that point on,
// so its cost follows the changes, not the collection. An answer is cut
// after MaxResults journal rows or the client's nresults, with 507 on the
// collection and a token that goes on from the cut (§3.6). A token this
// server did not give, or one older than the journal's oldest kept change
// (purge), is refused with valid-sync-token (§3.2), and the client starts
// over.
func (s *server) syncCollection(w http.ResponseWriter, r *http.Request, p *who, t target, root *node) error {
	pr := readProps(root)
	shape, err := shapeOf(pr)
	if err != nil {
		return err
	}
	shape.ctx = r.Context()
	if lvl := strings.TrimSpace(root.child(nsDAV, "sync-level").text); lvl != "" && lvl != "1" {
		return &httpError{code: http.StatusForbidden, precondition: "D:supported-sync-level", msg: "Only sync-level 1 is served: the collections hold no collections."}
	}
	limit, asked := MaxResults, false
	if n := root.child(nsDAV, "limit").child(nsDAV, "nresults"); n != nil {
		asked = true
		v, err := strconv.Atoi(strings.TrimSpace(n.text))
		if err != nil || v < 1 {
			return &httpError{code: http.StatusBadRequest, msg: "A sync-collection's nresults is a positive whole number."}
		}
		limit = min(limit, v)
	}
	token := strings.TrimSpace(root.child(nsDAV, "sync-token").text)
	return s.stream(w, r, p, func(tx *store.Tx, ms *multistatus) error {
		now, err := latest(tx)
		if err != nil {
			return err
		}
		if token == "" {
			return s.syncAll(r.Context(), tx, ms, p, t, pr, shape, now, limit, asked)
		}
		from, ok := parseToken(token)
		if ok {
			ok, err = s.validPoint(tx, from, now)
			if err != nil {
				return err
			}
		}
		if !ok {
			return &httpError{code: http.StatusForbidden, precondition: "D:valid-sync-token",
				msg: "The sync token is not one this server gave, or is older than the change journal keeps; sync again from the start (an empty token)."}
		}
		rows, err := tx.ChangedRows(from.change, from.seq, limit+1)
		if err != nil {
			return err
		}
		cut := len(rows) > limit
		if cut {
			rows = rows[:limit]
		}
		next := now.token()
		if cut {
			last := rows[len(rows)-1]
			next = point{change: last.Change, at: last.At.Unix(), seq: last.Seq}.token()
		}
		var ids []int64
		seen := map[int64]bool{}
		for _, c := range rows {
			id := c.ID
			switch {
			case c.Table == store.OverridesTable && t.collection == store.DAVEvents:
				id = c.EventID
			case c.Table == store.EventsTable && t.collection == store.DAVEvents:
			case c.Table == "tasks" && t.collection == store.DAVTasks:
			default:
				continue
			}
			if id != 0 && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		if err := s.syncMembers(tx, ms, p, t, pr, shape, ids); err != nil {
			return err
		}
		if cut {
			ms.status(collectionPath(p.Name, t.collection), http.StatusInsufficientStorage)
		}
		ms.raw("<D:sync-token>" + esc(next) + "</D:sync-token>")
		return nil
	})
}

// syncAll is the first sync: every member, and the token of now. A
// client's nresults below the collection's size is refused (RFC 6578
// §3.7: a first sync has no point to go on from).
func (s *server) syncAll(ctx context.Context, tx *store.Tx, ms *multistatus, p *who, t target, pr propRequest, shape dataShape, now point, limit int, asked bool) error {
	list, err := s.listing(ctx, tx, t.collection, window{})
	if err != nil {
		return err
	}
	if asked && len(list) > limit {
		return &httpError{code: http.StatusForbidden, precondition: "D:number-of-matches-within-limits",
			msg: fmt.Sprintf("The collection holds %d objects, more than the %d asked for; a first sync lists them all, so ask without a limit.", len(list), limit)}
	}
	for _, res := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := answer(ms, objectPath(p.Name, t.collection, res.name), res, pr, shape, p); err != nil {
			return err
		}
	}
	ms.raw("<D:sync-token>" + esc(now.token()) + "</D:sync-token>")
	return nil
}

// validPoint reports whether a token's point can still be answered: its
// change is in the journal with the time the token names (a purge removes
// older changes, and the time tells a reused number), or, for the token of
// a person with no change, the person still has none (a purge keeps each
// person's newest change, so a journal never empties once written).
func (s *server) validPoint(tx *store.Tx, pt point, now point) (bool, error) {
	if pt.change == 0 {
		return now.change == 0, nil
	}
	if pt.change > now.change {
		return false, nil
	}
	at, ok, err := tx.ChangeTime(pt.change)
	if err != nil || !ok {
		return false, err
	}
	return at.Unix() == pt.at, nil
}

// syncMembers answers each changed item: its properties when it is live,
// else 404 under the name it was served by.
func (s *server) syncMembers(tx *store.Tx, ms *multistatus, p *who, t target, pr propRequest, shape dataShape, ids []int64) error {
	names, err := tx.DAVObjectsOfItems(t.collection, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		name, extra := itemName(t.collection, id), ""
		o, named := names[id]
		if named {
			name, extra = o.Name, o.Extra
		}
		res, ok, err := load(tx, t.collection, name, id, extra)
		if err != nil {
			return err
		}
		if ok && named {
			res.named = true
		} else if ok {
			if err := inherit(tx, []*resource{res}); err != nil {
				return err
			}
		}
		href := objectPath(p.Name, t.collection, name)
		if !ok {
			ms.status(href, http.StatusNotFound)
			continue
		}
		if err := answer(ms, href, res, pr, shape, p); err != nil {
			return err
		}
	}
	return nil
}

// parseToken reads a token [point.token] wrote.
func parseToken(s string) (point, bool) {
	rest, found := strings.CutPrefix(s, syncPrefix)
	if !found {
		return point{}, false
	}
	rest, q, dotted := strings.Cut(rest, ".")
	c, at, dashed := strings.Cut(rest, "-")
	pt := point{seq: -1}
	var err1, err2 error
	pt.change, err1 = strconv.ParseInt(c, 10, 64)
	pt.at, err2 = strconv.ParseInt(at, 10, 64)
	if !dashed || err1 != nil || err2 != nil || pt.change < 0 {
		return point{}, false
	}
	if dotted {
		seq, err := strconv.ParseInt(q, 10, 64)
		if err != nil || seq < 0 {
			return point{}, false
		}
		pt.seq = seq
	}
	return pt, true
}

// answer writes res as a member of ms under href: its properties, and its
// calendar data as shape asks for it (expanded, when asked so).
func answer(ms *multistatus, href string, res *resource, pr propRequest, shape dataShape, p *who) error {
	body, err := res.body(p)
	if err != nil {
		return err
	}
	ps, err := shape.props(res, body, pr, p)
	if err != nil {
		return err
	}
	ms.member(href, pr, ps)
	return nil
}
