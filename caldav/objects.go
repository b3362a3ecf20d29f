package caldav

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/ics"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
)

// resource is one calendar object resource as stored: the item that holds
// it and the name it is served under.
type resource struct {
	collection string
	name       string
	id         int64
	extra      string
	named      bool // a client named it (a dav_objects row)
	// one of these is set: the event and its live overrides, or the task.
	event *calendar.Event
	ovs   map[string]*calendar.Override
	task  *task.Task
}

// body renders the resource as one iCalendar object; the same stored rows
// give the same bytes, so their hash is the ETag.
func (res *resource) body(p *who) ([]byte, error) {
	var b bytes.Buffer
	var err error
	if res.event != nil {
		ovs := make([]*calendar.Override, 0, len(res.ovs))
		for _, o := range res.ovs {
			ovs = append(ovs, o)
		}
		slices.SortFunc(ovs, func(a, b *calendar.Override) int { return strings.Compare(a.Key, b.Key) })
		err = ics.WriteEventObject(&b, res.event, ovs, res.extra, p.zone)
	} else {
		err = ics.WriteTaskObject(&b, *res.task, res.extra, p.zone)
	}
	return b.Bytes(), err
}

// etag is the strong ETag of a body (RFC 9110 §8.8.3), quoted.
func etag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// itemName is the name of an item no client named: "e12.ics", "t7.ics".
func itemName(collection string, id int64) string {
	if collection == store.DAVTasks {
		return task.Label(id) + ".ics"
	}
	return calendar.Label(id) + ".ics"
}

// idOfName reads an item name back: 12 for "e12.ics" in the events.
func idOfName(collection, name string) (int64, bool) {
	letter := "e"
	if collection == store.DAVTasks {
		letter = "t"
	}
	digits, ok := strings.CutSuffix(strings.TrimPrefix(name, letter), ".ics")
	if !ok || !strings.HasPrefix(name, letter) || digits == "" || digits[0] == '0' ||
		strings.ContainsFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) {
		// Only the name itemName gives: ParseInt also reads "+1", and
		// "t+1.ics" served task 1 under a second name.
		return 0, false
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	return id, err == nil
}

// load reads item id of collection with its extra properties under name;
// ok is false when it is not live.
func load(tx *store.Tx, collection, name string, id int64, extra string) (*resource, bool, error) {
	res := &resource{collection: collection, name: name, id: id, extra: extra}
	if collection == store.DAVEvents {
		e, err := tx.Event(id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		ovs, err := tx.Overrides(id)
		if err != nil {
			return nil, false, err
		}
		res.event, res.ovs = e, ovs
		return res, true, nil
	}
	t, err := tx.Task(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	res.task = &t
	return res, true, nil
}

// resolve finds the live resource named name in collection: one a client
// named, or an item served under its own name that no client renamed.
func resolve(tx *store.Tx, collection, name string) (*resource, bool, error) {
	o, named, err := tx.DAVObjectByName(collection, name)
	if err != nil {
		return nil, false, err
	}
	if named {
		res, ok, err := load(tx, collection, name, o.ItemID, o.Extra)
		if ok {
			res.named = true
		}
		return res, ok, err
	}
	id, ok := idOfName(collection, name)
	if !ok {
		return nil, false, nil
	}
	other, err := tx.DAVObjectsOfItems(collection, []int64{id})
	if err != nil || len(other) > 0 {
		// A client named the item otherwise: it is served there only.
		return nil, false, err
	}
	res, ok, err := load(tx, collection, name, id, "")
	if err != nil || !ok {
		return res, ok, err
	}
	return res, ok, inherit(tx, []*resource{res})
}

// inherit gives each event of list that no client named, and that a
// "following" edit split from a series a client sent, the properties
// assistant does not model of that series (attendees, privacy, an app's
// own), so the rest of a series keeps them after the split. It follows
// [calendar.Event.SplitFrom] up to [calendar.MaxPrevStarts] splits back,
// one query a step.
func inherit(tx *store.Tx, list []*resource) error {
	want := map[int64][]*resource{} // split-from id → resources waiting for it
	for _, r := range list {
		if r.event != nil && !r.named && r.extra == "" && r.event.SplitFrom != 0 {
			want[r.event.SplitFrom] = append(want[r.event.SplitFrom], r)
		}
	}
	for range calendar.MaxPrevStarts {
		if len(want) == 0 {
			return nil
		}
		ids := make([]int64, 0, len(want))
		for id := range want {
			ids = append(ids, id)
		}
		names, err := tx.DAVObjectsOfItems(store.DAVEvents, ids)
		if err != nil {
			return err
		}
		next := map[int64][]*resource{}
		for id, rs := range want {
			if o, ok := names[id]; ok {
				for _, r := range rs {
					r.extra = o.Extra
				}
				continue
			}
			parent, err := tx.Event(id)
			if err != nil || parent.SplitFrom == 0 {
				continue // gone, or the first of its line: nothing to take
			}
			next[parent.SplitFrom] = append(next[parent.SplitFrom], rs...)
		}
		want = next
	}
	return nil
}

// get answers GET and HEAD of one object (RFC 4791 §5.3.4), with
// If-None-Match answered by 304.
func (s *server) get(w http.ResponseWriter, r *http.Request, p *who, t target) error {
	var body []byte
	err := s.st.Read(r.Context(), p.ID, func(tx *store.Tx) error {
		res, ok, err := resolve(tx, t.collection, t.name)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(t)
		}
		body, err = res.body(p)
		return err
	})
	if err != nil {
		return err
	}
	tag := etag(body)
	w.Header().Set("ETag", tag)
	if im := r.Header.Get("If-Match"); im != "" && !matches(im, tag) {
		return &httpError{code: http.StatusPreconditionFailed, msg: "The object changed since you read it (its ETag differs)."}
	}
	if matches(r.Header.Get("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.Header().Set("Content-Type", "text/calendar; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	return nil
}

func notFound(t target) error {
	return &httpError{code: http.StatusNotFound, msg: fmt.Sprintf("There is no calendar object “%s” in your %s.", t.name, t.collection)}
}

// matches reports whether an If-Match or If-None-Match header names tag
// (or is "*"); weak tags compare by their opaque part (RFC 9110 §13.1).
func matches(header, tag string) bool {
	for _, h := range strings.Split(header, ",") {
		h = strings.TrimPrefix(strings.TrimSpace(h), "W/")
		if h == "*" || h == tag {
			return true
		}
	}
	return false
}

// kindOf is the component a collection holds.
func kindOf(collection string) string {
	if collection == store.DAVTasks {
		return "VTODO"
	}
	return "VEVENT"
}

// put stores one calendar object (RFC 4791 §5.3.2): the object is read
// whole, checked against the collection and the preconditions, and
// written in one journaled change that names the client, replacing what
// the store held for its UID. A PUT that changes nothing writes nothing.
// No ETag is answered: the stored object is assistant's rendering, not
// the client's bytes (RFC 4791 §5.3.4).
func (s *server) put(w http.ResponseWriter, r *http.Request, p *who, t target) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !strings.EqualFold(mt, "text/calendar") {
			return &httpError{code: http.StatusUnsupportedMediaType, precondition: "C:supported-calendar-data",
				msg: "A calendar object is sent as Content-Type: text/calendar."}
		}
	}
	if len(t.name) > 255 {
		return &httpError{code: http.StatusBadRequest, msg: "A resource name is at most 255 bytes; pick a shorter one, such as the UID followed by .ics."}
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	obj, err := ics.ParseObject(data, p.zone, s.now())
	var oe *ics.ObjectError
	if errors.As(err, &oe) {
		return &httpError{code: http.StatusForbidden, precondition: "C:" + oe.Precondition, msg: oe.Error()}
	}
	if err != nil {
		return err
	}
	if lost := obj.Lost(); len(lost) > 0 {
		return &httpError{code: http.StatusForbidden, precondition: "C:" + ics.ValidCalendarObjectResource,
			msg: fmt.Sprintf("Line %d of the object cannot be kept as sent (%s), so nothing was stored; correct it or leave it out.",
				lost[0].Line, lost[0].Fault())}
	}
	if obj.Kind != kindOf(t.collection) {
		other := store.DAVEvents
		if t.collection == store.DAVEvents {
			other = store.DAVTasks
		}
		return &httpError{code: http.StatusForbidden, precondition: "C:supported-calendar-component",
			msg: fmt.Sprintf("The %s collection holds %ss only; put this %s into %s.", t.collection, kindOf(t.collection), obj.Kind, collectionPath(p.Name, other))}
	}
	created, tag := false, ""
	_, err = s.st.Write(r.Context(), p.ID, "caldav", func(tx *store.Tx) error {
		have, exists, err := resolve(tx, t.collection, t.name)
		if err != nil {
			return err
		}
		if err := checkConditions(r, p, have, exists); err != nil {
			return err
		}
		if exists {
			uid := have.uid()
			if uid != obj.UID {
				return &httpError{code: http.StatusForbidden, precondition: "C:no-uid-conflict",
					href: objectPath(p.Name, t.collection, t.name),
					msg:  fmt.Sprintf("This resource holds the UID “%s”; a PUT may not change it. Put the object with UID “%s” under a name of its own.", clip(uid), clip(obj.UID))}
			}
		} else if _, own := idOfName(t.collection, t.name); own {
			// The server serves its items no client named as "t<ID>.ics"
			// and "e<ID>.ics": a new object under such a name would share
			// it with the item of that number.
			return &httpError{code: http.StatusForbidden,
				msg: fmt.Sprintf("Names of the form %s<number>.ics are the server's own, for the items it makes; put the object under another name, such as its UID followed by .ics.", t.name[:1])}
		} else if err := s.uidFree(tx, p, t, obj); err != nil {
			return err
		}
		id, isNew, changed, err := ics.PutObject(tx, p.zone, obj)
		if err != nil {
			return err
		}
		created = !exists
		if changed || !exists || have.extra != obj.Extra || isNew {
			if err := tx.SaveDAVObject(store.DAVObject{Collection: t.collection, Name: t.name, UID: obj.UID, ItemID: id, Extra: obj.Extra}); err != nil {
				return err
			}
		}
		if exists && !changed && have.extra != obj.Extra {
			// Only properties assistant does not model changed: still a
			// change for the other clients' next sync.
			if err := tx.TouchDAVItem(t.collection, id); err != nil {
				return err
			}
		}
		verb := "changed"
		if created {
			verb = "added"
		}
		tx.Summarize(fmt.Sprintf("%s %s “%s” over CalDAV%s", verb, strings.ToLower(kindName(t.collection)), clip(objTitle(obj)), client(p)))
		if res, ok, err := resolve(tx, t.collection, t.name); err == nil && ok {
			if body, err := res.body(p); err == nil && sameButStamp(data, body) {
				tag = etag(body)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if tag != "" {
		w.Header().Set("ETag", tag)
	}
	if created {
		w.Header().Set("Location", objectPath(p.Name, t.collection, t.name))
		w.WriteHeader(http.StatusCreated)
		return nil
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// sameButStamp reports whether the stored object's body is the one a PUT
// sent, line for line (CRLF or LF alike), but for DTSTAMP, the time of the
// last change (RFC 5545 §3.8.7.2), which the server sets: a client that
// sends back what it read with its own edit gets the ETag of what is
// stored. Without one, vdirsyncer keeps the object as changed on the
// server too, and its next local edit is a conflict.
func sameButStamp(sent, stored []byte) bool {
	lines := func(b []byte) []string {
		out := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
		return slices.DeleteFunc(out, func(l string) bool { return strings.HasPrefix(l, "DTSTAMP:") || strings.HasPrefix(l, "DTSTAMP;") })
	}
	return slices.Equal(lines(sent), lines(stored))
}

// uid is the UID the resource holds.
func (res *resource) uid() string {
	if res.event != nil {
		return res.event.UID
	}
	if res.task.UID == "" {
		return task.MadeUID(res.task.ID)
	}
	return res.task.UID
}

// uidFree refuses a new resource whose UID another resource of the
// collection holds (RFC 4791 §5.3.2.1, no-uid-conflict), naming it, and a
// new to-do whose UID has the form of the server's own ([task.MadeID])
// but names none of the owner's tasks (403, valid-calendar-object-resource).
func (s *server) uidFree(tx *store.Tx, p *who, t target, obj *ics.Object) error {
	var id int64
	var err error
	if t.collection == store.DAVEvents {
		var e *calendar.Event
		if e, err = tx.EventByUID(obj.UID); err == nil {
			id = e.ID
		}
	} else {
		var tk task.Task
		if tk, err = tx.TaskByUID(obj.UID); err == nil {
			id = tk.ID
		}
	}
	if _, made := task.MadeID(obj.UID); made && errors.Is(err, store.ErrNotFound) {
		// The form of the UIDs this server gives its tasks without one:
		// held by a new resource, the task of that number would share it
		// (an event never is one).
		return &httpError{code: http.StatusForbidden, precondition: "C:valid-calendar-object-resource",
			msg: fmt.Sprintf("The UID “%s” has the form this server gives tasks without a UID of their own (t<number>@assistant); give the %s a UID of its own, such as a UUID.",
				clip(obj.UID), strings.ToLower(kindName(t.collection)))}
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	names, err := tx.DAVObjectsOfItems(t.collection, []int64{id})
	if err != nil {
		return err
	}
	name := itemName(t.collection, id)
	if o, ok := names[id]; ok {
		name = o.Name
	}
	return &httpError{code: http.StatusConflict, precondition: "C:no-uid-conflict", href: objectPath(p.Name, t.collection, name),
		msg: fmt.Sprintf("Another resource, %s, already holds the UID “%s”; change that one instead.", name, clip(obj.UID))}
}

// checkConditions answers If-Match and If-None-Match (RFC 9110 §13.1):
// 412 when the resource is not in the state the client expects.
func checkConditions(r *http.Request, p *who, have *resource, exists bool) error {
	ifMatch, ifNone := r.Header.Get("If-Match"), r.Header.Get("If-None-Match")
	if ifMatch == "" && ifNone == "" {
		return nil
	}
	tag := ""
	if exists {
		body, err := have.body(p)
		if err != nil {
			return err
		}
		tag = etag(body)
	}
	lost := &httpError{code: http.StatusPreconditionFailed, msg: "The object changed since you read it (its ETag differs), so nothing was written; read it again and redo the change."}
	if ifMatch != "" && (!exists || !matches(ifMatch, tag)) {
		if !exists {
			lost.msg = "The object is gone (deleted since you read it), so nothing was written."
		}
		return lost
	}
	if ifNone != "" && exists && matches(ifNone, tag) {
		lost.msg = "An object of this name exists already, so nothing was written; read it and change it instead."
		return lost
	}
	return nil
}

// delete removes one object (RFC 4918 §9.6), journaled, so undo puts it
// back.
func (s *server) delete(w http.ResponseWriter, r *http.Request, p *who, t target) error {
	_, err := s.st.Write(r.Context(), p.ID, "caldav", func(tx *store.Tx) error {
		have, exists, err := resolve(tx, t.collection, t.name)
		if err != nil {
			return err
		}
		if !exists {
			return notFound(t)
		}
		if err := checkConditions(r, p, have, true); err != nil {
			return err
		}
		title := ""
		if have.event != nil {
			title = have.event.Title
			err = tx.DeleteEvent(have.id)
		} else {
			title = have.task.Title
			err = tx.DeleteTask(have.id)
		}
		if err != nil {
			return err
		}
		tx.Summarize(fmt.Sprintf("deleted %s “%s” over CalDAV%s", strings.ToLower(kindName(t.collection)), clip(title), client(p)))
		return nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// kindName names one item of a collection.
func kindName(collection string) string {
	if collection == store.DAVTasks {
		return "Task"
	}
	return "Event"
}

// client is " from DAVx5/4.4" for the journal, or "".
func client(p *who) string {
	if p.client == "" {
		return ""
	}
	return " from " + clip(p.client)
}

// clip cuts s to 60 characters for a sentence.
func clip(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// listing is every live resource of a collection, for a PROPFIND of
// depth 1 or the first sync-collection; with win set, of the events only
// those whose stored bounds reach it (a superset of those with an
// occurrence in it, which the caller checks), so a time-range query reads
// the series that can touch its range, not the calendar.
func (s *server) listing(ctx context.Context, tx *store.Tx, collection string, win window) ([]*resource, error) {
	var out []*resource
	if collection == store.DAVEvents {
		var live []*calendar.Event
		if win.set {
			err := tx.EachEventOverlapping(win.from.Unix()-1, win.to.Unix()+1, func(e *calendar.Event) error {
				live = append(live, e)
				return nil
			})
			if err != nil {
				return nil, err
			}
		} else {
			spans, err := tx.LiveEvents()
			if err != nil {
				return nil, err
			}
			for _, sp := range spans {
				live = append(live, sp.Event)
			}
		}
		ovs, err := tx.AllOverrides()
		if err != nil {
			return nil, err
		}
		ids := make([]int64, 0, len(live))
		for _, e := range live {
			ids = append(ids, e.ID)
		}
		names, err := tx.DAVObjectsOfItems(collection, ids)
		if err != nil {
			return nil, err
		}
		for _, e := range live {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			res := &resource{collection: collection, id: e.ID, event: e, ovs: map[string]*calendar.Override{}}
			for _, o := range ovs[e.ID] {
				res.ovs[o.Key] = o
			}
			res.name = itemName(collection, res.id)
			if o, ok := names[res.id]; ok {
				res.name, res.extra, res.named = o.Name, o.Extra, true
			}
			out = append(out, res)
		}
		return out, inherit(tx, out)
	}
	ts, err := tx.Tasks(store.TaskFilter{})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(ts))
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	names, err := tx.DAVObjectsOfItems(collection, ids)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		res := &resource{collection: collection, id: ts[i].ID, task: &ts[i], name: itemName(collection, ts[i].ID)}
		if o, ok := names[res.id]; ok {
			res.name, res.extra, res.named = o.Name, o.Extra, true
		}
		out = append(out, res)
	}
	return out, nil
}

// modTime is when the resource was made, for getlastmodified.
func (res *resource) modTime() time.Time {
	if res.event != nil {
		return res.event.CreatedAt
	}
	if !res.task.UpdatedAt.IsZero() {
		return res.task.UpdatedAt
	}
	return res.task.CreatedAt
}

// objTitle is the SUMMARY of an object's master or task.
func objTitle(obj *ics.Object) string {
	if obj.Event != nil {
		return obj.Event.Title
	}
	return obj.Task.Title
}
