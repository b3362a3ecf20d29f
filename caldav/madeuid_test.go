package caldav_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
)

// todoObject is a VTODO with uid and summary.
func todoObject(uid, summary string) string {
	return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:" + uid +
		"\r\nDTSTAMP:20261201T080000Z\r\nSUMMARY:" + summary + "\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
}

// TestMadeUIDsAreTheServers: a task the tools made before tasks had UIDs
// of their own is served with the UID "t<ID>@assistant"; a client may not give a new to-do a UID of that
// form, whether the task of that number is its own (409, the resource
// named), or not made yet (403): the task the server makes under that
// number later would share the UID. Whatever clients send, no two
// objects of the collection hold one UID, nor one name.
func TestMadeUIDsAreTheServers(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		// A task made before tasks had UIDs of their own: served as
		// "t1@assistant".
		var made int64
		if _, err := f.env.Store.Write(context.Background(), f.me.ID, "add_task", func(tx *store.Tx) error {
			var err error
			made, err = tx.InsertTask(task.Task{Title: "Made here", Priority: 4, Status: task.Open, CreatedAt: f.env.Now})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		id := task.Label(made)
		if code, _, body := f.as("GET", tasks1+id+".ics", nil, ""); code != 200 || !strings.Contains(body, "UID:"+id+"@assistant\r\n") {
			t.Fatalf("GET %s.ics: %d %s", id, code, body)
		}
		// One the tools make now has a UID of its own.
		now := f.idOf("add_task", `{"title":"Made now"}`)
		if code, _, body := f.as("GET", tasks1+now+".ics", nil, ""); code != 200 || strings.Contains(body, "UID:"+now+"@assistant") || !strings.Contains(body, "@assistant\r\n") {
			t.Errorf("GET %s.ics: %d %s, want a UID of its own", now, code, body)
		}
		code, _, body := f.as("PUT", tasks1+"squat.ics", calHeader, todoObject(id+"@assistant", "Squatter"))
		if code != 409 || !strings.Contains(body, "no-uid-conflict") || !strings.Contains(body, id+".ics") {
			t.Errorf("PUT of a new to-do with the UID of task %s: %d %s, want 409 naming %s.ics", id, code, body, id)
		}
		for _, uid := range []string{"t9@assistant", "t999999@assistant"} {
			code, _, body = f.as("PUT", tasks1+"future.ics", calHeader, todoObject(uid, "Squatter"))
			if code != 403 || !strings.Contains(body, "valid-calendar-object-resource") || !strings.Contains(body, uid) {
				t.Errorf("PUT of a new to-do with UID %s: %d %s, want 403 naming it", uid, code, body)
			}
		}
		// Nor an event: the task of that number would share the UID.
		for i, uid := range []string{id + "@assistant", "t77@assistant"} {
			code, _, body := f.as("PUT", events1+"ev"+strconv.Itoa(i)+".ics", calHeader, object(uid, "Event", ""))
			if code != 403 || !strings.Contains(body, uid) {
				t.Errorf("PUT of a new event with UID %s: %d %s, want 403 naming it", uid, code, body)
			}
		}
		// Not of the form: stored as sent.
		for i, uid := range []string{"t012@assistant", "T9@assistant", "t9@assistant.example", "t9x@assistant"} {
			if code, _, body := f.as("PUT", tasks1+"ok"+string(rune('a'+i))+".ics", calHeader, todoObject(uid, "Fine "+uid)); code != 201 {
				t.Errorf("PUT of a new to-do with UID %s: %d %s, want 201", uid, code, body)
			}
		}
		// Nor may a new object take the name the server serves an item
		// of a number under, given yet or not: the item would be listed
		// twice, and one of the two unreachable.
		for _, name := range []string{id + ".ics", "t9.ics", "t999999.ics"} {
			if code, _, body := f.as("PUT", tasks1+name, map[string]string{"Content-Type": "text/calendar", "If-None-Match": "*"}, todoObject("client-"+name, "Named like a made one")); code != 403 && code != 412 {
				t.Errorf("PUT of a new object as %s: %d %s, want 403 (412 where it exists)", name, code, body)
			}
		}
		if code, _, body := f.as("PUT", events1+"e9.ics", calHeader, object("client-e9", "Named like a made one", "")); code != 403 || !strings.Contains(body, "e<number>.ics") {
			t.Errorf("PUT of a new event as e9.ics: %d %s, want 403", code, body)
		}
		// Only the name the server gives is the item's: "t+1.ics" is none.
		for _, name := range []string{"t+1.ics", "t%2B1.ics", "t 1.ics", "t1 .ics"} {
			if code, _, body := f.as("GET", tasks1+name, nil, ""); code != 404 {
				t.Errorf("GET %s: %d %s, want 404", name, code, body)
			}
		}
		if code, _, body := f.as("PUT", tasks1+"t9x.ics", calHeader, todoObject("client-9", "Fine")); code != 201 {
			t.Fatalf("PUT t9x.ics: %d %s", code, body)
		}
		for i := range 12 {
			f.idOf("add_task", `{"title":"More `+strconv.Itoa(i)+`"}`)
		}
		hrefs := f.hrefs(tasks1)
		seen := map[string]bool{}
		for _, h := range hrefs {
			if seen[h] {
				t.Errorf("%s is listed twice: %v", h, hrefs)
			}
			seen[h] = true
		}
		uids := map[string]string{}
		for _, h := range hrefs {
			code, _, body := f.as("GET", h, nil, "")
			if code != 200 {
				t.Fatalf("GET %s: %d", h, code)
			}
			for _, line := range strings.Split(body, "\r\n") {
				if uid, ok := strings.CutPrefix(line, "UID:"); ok {
					if other, dup := uids[uid]; dup {
						t.Errorf("UID %s is served by %s and %s", uid, other, h)
					}
					uids[uid] = h
				}
			}
		}
		if len(uids) != 2+4+1+12 {
			t.Errorf("%d objects served, want %d: %v", len(uids), 2+4+1+12, hrefs)
		}
	})
}

// TestPutETagWhenStoredAsSent: a PUT whose object is stored as sent, but
// for the DTSTAMP the server sets, answers the ETag of what it stores (the
// next GET's); one the server writes otherwise answers none (RFC 9110
// §9.3.4), so the client reads it again.
func TestPutETagWhenStoredAsSent(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		f := open(t)
		id := f.idOf("add_task", `{"title":"Water plants","due":"2026-12-09T09:00","remind_before":[30]}`)
		path := tasks1 + id + ".ics"
		_, _, body := f.as("GET", path, nil, "")
		edited := strings.Replace(body, "SUMMARY:Water plants\r\n", "SUMMARY:Water the plants\r\n", 1)
		code, h, answer := f.as("PUT", path, calHeader, edited)
		if code != 204 || h.Get("ETag") == "" {
			t.Fatalf("PUT of its GET with a new title: %d, ETag %q %s", code, h.Get("ETag"), answer)
		}
		code, h2, stored := f.as("GET", path, nil, "")
		if code != 200 || h2.Get("ETag") != h.Get("ETag") || !strings.Contains(stored, "SUMMARY:Water the plants\r\n") {
			t.Errorf("GET after: %d, ETag %q, PUT's %q\n%s", code, h2.Get("ETag"), h.Get("ETag"), stored)
		}
		// The same with LF line ends, as a file editor may save it.
		lf := strings.ReplaceAll(strings.Replace(stored, "Water the plants", "Water all plants", 1), "\r\n", "\n")
		if code, h, answer := f.as("PUT", path, calHeader, lf); code != 204 || h.Get("ETag") == "" {
			t.Errorf("PUT with LF line ends: %d, ETag %q %s", code, h.Get("ETag"), answer)
		}
		// A phone's own writing is stored in the server's: no ETag.
		code, h, answer = f.as("PUT", tasks1+"phone-1.ics", calHeader, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phone//EN\r\nBEGIN:VTODO\r\n"+
			"UID:phone-1@example.com\r\nDTSTAMP:20261201T080000Z\r\nSUMMARY:Call back\r\nEND:VTODO\r\nEND:VCALENDAR\r\n")
		if code != 201 || h.Get("ETag") != "" {
			t.Errorf("PUT of a phone's object: %d, ETag %q %s, want 201 without", code, h.Get("ETag"), answer)
		}
	})
}
