package ics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

var objNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// splitObjects cuts a file into calendar object resources as a CalDAV
// client would PUT them: per VCALENDAR, the components of each kind and
// UID with every VTIMEZONE of the file. Components without UID are left
// out.
func splitObjects(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	var p parser
	out := map[string][]byte{}
	for ri, root := range p.parse(data) {
		var zones []*ical.Component
		groups := map[string][]*ical.Component{}
		var order []string
		for _, c := range root.children {
			if c.Name == ical.CompTimezone {
				zones = append(zones, c.Component)
				continue
			}
			u := c.Props.Get("UID")
			if u == nil || strings.TrimSpace(u.Value) == "" || (c.Name != ical.CompEvent && c.Name != ical.CompToDo) {
				continue
			}
			k := fmt.Sprintf("%d %s %s", ri, c.Name, strings.TrimSpace(unescapeText(u.Value)))
			if groups[k] == nil {
				order = append(order, k)
			}
			groups[k] = append(groups[k], c.Component)
		}
		for _, k := range order {
			var b bytes.Buffer
			b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//split//EN\r\n")
			for _, c := range append(append([]*ical.Component{}, zones...), groups[k]...) {
				writeRaw(&b, c)
			}
			b.WriteString("END:VCALENDAR\r\n")
			out[k] = b.Bytes()
		}
	}
	return out
}

// writeObject is the GET body of the item of uid as stored now.
func writeObject(t *testing.T, tx *store.Tx, kind, uid, extra string, person tz.Zone) []byte {
	t.Helper()
	var b bytes.Buffer
	if kind == ical.CompToDo {
		tk, err := tx.TaskByUID(uid)
		if err != nil {
			t.Fatalf("%s: %v", uid, err)
		}
		if err := WriteTaskObject(&b, tk, extra, person); err != nil {
			t.Fatalf("%s: %v", uid, err)
		}
		return b.Bytes()
	}
	e, err := tx.EventByUID(uid)
	if err != nil {
		t.Fatalf("%s: %v", uid, err)
	}
	ovs, err := tx.Overrides(e.ID)
	if err != nil {
		t.Fatal(err)
	}
	var list []*calendar.Override
	for _, o := range ovs {
		list = append(list, o)
	}
	if err := WriteEventObject(&b, e, list, extra, person); err != nil {
		t.Fatalf("%s: %v", uid, err)
	}
	return b.Bytes()
}

// TestObjectRoundTripFiles cuts each shared file into objects and sends
// each through ParseObject → PutObject → WriteEventObject or
// WriteTaskObject → ParseObject → PutObject: the second PUT changes no
// row, its extra properties are the first's, and writing twice gives the
// same bytes. An object refused is refused with an *ObjectError that
// names a precondition.
func TestObjectRoundTripFiles(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, _ := openStore(t)
		st.Now = func() time.Time { return objNow }
		files, _ := filepath.Glob(filepath.Join(testdataICS(t), "*.ics"))
		ctx := context.Background()
		person := tz.MustZone("Europe/Berlin")
		accepted := 0
		for i, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p := addPerson(t, st, fmt.Sprintf("o%d", i))
			objs := splitObjects(t, data)
			keys := make([]string, 0, len(objs))
			for k := range objs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			parsed := map[string]*Object{}
			for _, k := range keys {
				obj, err := ParseObject(objs[k], person, objNow)
				var oe *ObjectError
				if err != nil {
					if !errors.As(err, &oe) || oe.Precondition == "" || !strings.HasSuffix(oe.Error(), ".") {
						t.Errorf("%s %s: refused without a precondition: %v", filepath.Base(f), k, err)
					}
					continue
				}
				parsed[k] = obj
			}
			accepted += len(parsed)
			if _, err := st.Write(ctx, p.ID, "dav_put", func(tx *store.Tx) error {
				for _, k := range keys {
					if obj := parsed[k]; obj != nil {
						if _, created, changed, err := PutObject(tx, person, obj); err != nil || !created || !changed {
							return fmt.Errorf("%s: created %t changed %t: %w", k, created, changed, err)
						}
					}
				}
				return nil
			}); err != nil {
				t.Fatalf("%s: %v", filepath.Base(f), err)
			}
			rows := func() string {
				var b strings.Builder
				for _, q := range roundTripRows {
					b.WriteString(dump(t, st, p.ID, q))
				}
				return b.String()
			}
			before := rows()
			bodies := map[string][]byte{}
			if err := st.Read(ctx, p.ID, func(tx *store.Tx) error {
				for k, obj := range parsed {
					body := writeObject(t, tx, obj.Kind, obj.UID, obj.Extra, person)
					if again := writeObject(t, tx, obj.Kind, obj.UID, obj.Extra, person); !bytes.Equal(body, again) {
						t.Errorf("%s: two writes of the same rows differ:\n%s\n---\n%s", k, body, again)
					}
					bodies[k] = body
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			change, err := st.Write(ctx, p.ID, "dav_put", func(tx *store.Tx) error {
				for _, k := range keys {
					body, ok := bodies[k]
					if !ok {
						continue
					}
					back, err := ParseObject(body, person, objNow)
					if err != nil {
						return fmt.Errorf("%s: the written object is refused: %w\n%s", k, err, body)
					}
					if back.Extra != parsed[k].Extra {
						t.Errorf("%s: extra after the round trip:\n%s\n--- want:\n%s", k, back.Extra, parsed[k].Extra)
					}
					_, created, changed, err := PutObject(tx, person, back)
					if err != nil {
						return err
					}
					if created || changed {
						t.Errorf("%s: PUT of its own GET created %t changed %t\n%s", k, created, changed, body)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(f), err)
			}
			if change != "" {
				t.Errorf("%s: a PUT of what is stored recorded change %s", filepath.Base(f), change)
			}
			if after := rows(); after != before {
				t.Errorf("%s: rows changed by the round trip:\n%s\n--- before:\n%s", filepath.Base(f), after, before)
			}
		}
		if accepted < 50 {
			t.Errorf("only %d objects accepted from the shared files", accepted)
		}
	})
}

const extraBody = "BEGIN:VCALENDAR\r\n" +
	"VERSION:2.0\r\n" +
	"PRODID:-//Apple Inc.//iPhone OS 17//EN\r\n" +
	"BEGIN:VEVENT\r\n" +
	"UID:meet-1@example.com\r\n" +
	"DTSTAMP:20260101T000000Z\r\n" +
	"DTSTART;TZID=America/New_York:20261005T090000\r\n" +
	"DTEND;TZID=America/New_York:20261005T100000\r\n" +
	"RRULE:FREQ=WEEKLY;COUNT=4\r\n" +
	"SUMMARY:Planning\r\n" +
	"SEQUENCE:3\r\n" +
	"STATUS:CONFIRMED\r\n" +
	"TRANSP:OPAQUE\r\n" +
	"CATEGORIES:Work,Planning\r\n" +
	"ORGANIZER;CN=Bob:mailto:bob@example.com\r\n" +
	"ATTENDEE;CN=\"Ann, A.\";ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:ann@example.com\r\n" +
	"ATTENDEE;CN=Cy;PARTSTAT=NEEDS-ACTION:mailto:cy@example.com\r\n" +
	"X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC\r\n" +
	"BEGIN:VALARM\r\n" +
	"ACTION:DISPLAY\r\n" +
	"TRIGGER:-PT15M\r\n" +
	"END:VALARM\r\n" +
	"END:VEVENT\r\n" +
	"BEGIN:VEVENT\r\n" +
	"UID:meet-1@example.com\r\n" +
	"RECURRENCE-ID;TZID=America/New_York:20261012T090000\r\n" +
	"DTSTART;TZID=America/New_York:20261012T110000\r\n" +
	"DTEND;TZID=America/New_York:20261012T120000\r\n" +
	"SUMMARY:Planning (moved)\r\n" +
	"ATTENDEE;CN=Cy;PARTSTAT=DECLINED:mailto:cy@example.com\r\n" +
	"X-APPLE-OVERRIDE:yes\r\n" +
	"END:VEVENT\r\n" +
	"END:VCALENDAR\r\n"

// unfold joins folded lines, so a test looks for a property whole.
func unfold(b []byte) string {
	return strings.ReplaceAll(string(b), "\r\n ", "")
}

func putBody(t *testing.T, st *store.Store, p store.Person, body string) (obj *Object, id int64, created, changed bool, change string) {
	t.Helper()
	obj, err := ParseObject([]byte(body), tz.MustZone(p.Zone), objNow)
	if err != nil {
		t.Fatalf("ParseObject: %v", err)
	}
	change, err = st.Write(context.Background(), p.ID, "dav_put", func(tx *store.Tx) error {
		var err error
		id, created, changed, err = PutObject(tx, tz.MustZone(p.Zone), obj)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return obj, id, created, changed, change
}

func getBody(t *testing.T, st *store.Store, p store.Person, kind, uid, extra string) []byte {
	t.Helper()
	var body []byte
	if err := st.Read(context.Background(), p.ID, func(tx *store.Tx) error {
		body = writeObject(t, tx, kind, uid, extra, tz.MustZone(p.Zone))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return body
}

// The properties assistant does not model come back in their component:
// ATTENDEE with its parameters, ORGANIZER, CATEGORIES, SEQUENCE, STATUS,
// X-APPLE-*, the override's own; the modelled ones are not extra, and an
// identical second PUT changes nothing.
func TestObjectExtraSurvives(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		obj, id, created, changed, change := putBody(t, st, p, extraBody)
		if !created || !changed || change == "" || id == 0 {
			t.Fatalf("first PUT: id %d created %t changed %t change %q", id, created, changed, change)
		}
		if obj.Kind != "VEVENT" || obj.UID != "meet-1@example.com" || len(obj.Overrides) != 1 || obj.Event.Zone.Name() != "America/New_York" {
			t.Fatalf("parsed %+v", obj)
		}
		for _, not := range []string{"SUMMARY", "DTSTART", "RRULE", "DTSTAMP", "UID:", "TRIGGER"} {
			if strings.Contains(obj.Extra, "\n"+not) {
				t.Errorf("extra holds modelled %s:\n%s", not, obj.Extra)
			}
		}
		body := unfold(getBody(t, st, p, "VEVENT", obj.UID, obj.Extra))
		comps := strings.Split(body, "BEGIN:VEVENT")
		if len(comps) != 3 {
			t.Fatalf("%d VEVENTs written:\n%s", len(comps)-1, body)
		}
		master, override := comps[1], comps[2]
		for _, want := range []string{
			`ATTENDEE;CN="Ann, A.";PARTSTAT=ACCEPTED;ROLE=REQ-PARTICIPANT:mailto:ann@example.com`,
			"ATTENDEE;CN=Cy;PARTSTAT=NEEDS-ACTION:mailto:cy@example.com",
			"ORGANIZER;CN=Bob:mailto:bob@example.com", "CATEGORIES:Work,Planning", "SEQUENCE:3",
			"STATUS:CONFIRMED", "TRANSP:OPAQUE", "X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC", "SUMMARY:Planning\r\n",
		} {
			if !strings.Contains(master, want) {
				t.Errorf("the series lacks %s:\n%s", want, master)
			}
		}
		for _, want := range []string{"ATTENDEE;CN=Cy;PARTSTAT=DECLINED:mailto:cy@example.com", "X-APPLE-OVERRIDE:yes", "SUMMARY:Planning (moved)"} {
			if !strings.Contains(override, want) {
				t.Errorf("the override lacks %s:\n%s", want, override)
			}
		}
		if strings.Contains(override, "X-APPLE-TRAVEL") || strings.Contains(master, "X-APPLE-OVERRIDE") {
			t.Errorf("extra properties went to the wrong component:\n%s", body)
		}
		if strings.Count(body, "RECURRENCE-ID") != 1 || strings.Count(master, "SUMMARY") != 1 {
			t.Errorf("a property written twice:\n%s", body)
		}
		// The same body again: nothing written, no change recorded.
		_, id2, created, changed, change := putBody(t, st, p, extraBody)
		if id2 != id || created || changed || change != "" {
			t.Errorf("identical PUT: id %d/%d created %t changed %t change %q", id2, id, created, changed, change)
		}
		// The GET body PUT back: the same extra, nothing written.
		back, _, created, changed, change := putBody(t, st, p, body)
		if back.Extra != obj.Extra || created || changed || change != "" {
			t.Errorf("PUT of the GET: created %t changed %t change %q; extra\n%s\n--- want\n%s", created, changed, change, back.Extra, obj.Extra)
		}
	})
}

// Removing an override from the object deletes it; moving DTSTART keeps
// the old start in PrevStarts; the event keeps its id.
func TestObjectReplaces(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		_, id, _, _, _ := putBody(t, st, p, extraBody)
		i := strings.Index(extraBody, "BEGIN:VEVENT\r\nUID:meet-1@example.com\r\nRECURRENCE-ID")
		alone := extraBody[:i] + "END:VCALENDAR\r\n"
		_, id2, created, changed, change := putBody(t, st, p, alone)
		if id2 != id || created || !changed || change == "" {
			t.Fatalf("PUT without the override: id %d/%d created %t changed %t", id2, id, created, changed)
		}
		if n := countRows(t, st, p.ID, "event_overrides"); n != 0 {
			t.Errorf("%d overrides left after the PUT without one", n)
		}
		moved := strings.Replace(strings.Replace(alone, "20261005T090000", "20261006T080000", 1), "20261005T100000", "20261006T090000", 1)
		putBody(t, st, p, moved)
		if err := st.Read(context.Background(), p.ID, func(tx *store.Tx) error {
			e, err := tx.EventByUID("meet-1@example.com")
			if err != nil {
				return err
			}
			if e.ID != id || e.Start.String() != "2026-10-06T08:00" || len(e.PrevStarts) != 1 || e.PrevStarts[0].Start != "2026-10-05T09:00" {
				t.Errorf("after the move: id %d start %s prev %+v", e.ID, e.Start, e.PrevStarts)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, st, p.ID, "events"); n != 1 {
			t.Errorf("%d events after three PUTs of one UID", n)
		}
	})
}

const todoBody = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
	"BEGIN:VTODO\r\nUID:todo-1@example.com\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:File taxes\r\n" +
	"DUE;TZID=Europe/Berlin:20261015T170000\r\nDTSTART;TZID=Europe/Berlin:20261001T090000\r\n" +
	"STATUS:IN-PROCESS\r\nPERCENT-COMPLETE:40\r\nCATEGORIES:home\r\nPRIORITY:1\r\nX-APPLE-SORT-ORDER:12\r\n" +
	"END:VTODO\r\nEND:VCALENDAR\r\n"

// A to-do keeps what a task cannot hold (its start, IN-PROCESS, the
// percentage) as extra, and a task the tools made is found and left
// unchanged by the PUT of its own GET.
func TestObjectTask(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		obj, id, created, changed, _ := putBody(t, st, p, todoBody)
		if obj.Kind != "VTODO" || !created || !changed || id == 0 || obj.Task.Priority != 1 || len(obj.Task.Tags) != 1 {
			t.Fatalf("parsed %+v created %t changed %t", obj, created, changed)
		}
		body := unfold(getBody(t, st, p, "VTODO", obj.UID, obj.Extra))
		for _, want := range []string{"STATUS:IN-PROCESS", "PERCENT-COMPLETE:40", "DTSTART;TZID=Europe/Berlin:20261001T090000", "X-APPLE-SORT-ORDER:12", "CATEGORIES:home", "DUE;TZID=Europe/Berlin:20261015T170000"} {
			if !strings.Contains(body, want) {
				t.Errorf("the to-do lacks %s:\n%s", want, body)
			}
		}
		if strings.Count(body, "STATUS") != 1 {
			t.Errorf("STATUS written twice:\n%s", body)
		}
		if _, _, created, changed, change := putBody(t, st, p, body); created || changed || change != "" {
			t.Errorf("PUT of the GET: created %t changed %t change %q", created, changed, change)
		}
		// A task of the tools: no UID of its own.
		made := task.New("Call the bank", objNow)
		made.HasDue, made.Due = true, task.Day(tz.Date{Year: 2026, Month: 3, Day: 2})
		var mid int64
		if _, err := st.Write(context.Background(), p.ID, "add_task", func(tx *store.Tx) error {
			var err error
			mid, err = tx.InsertTask(made)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		uid := task.Label(mid) + "@assistant"
		mbody := getBody(t, st, p, "VTODO", uid, "")
		if !strings.Contains(string(mbody), "UID:"+uid+"\r\n") {
			t.Fatalf("the made task's object has no UID %s:\n%s", uid, mbody)
		}
		_, id2, created, changed, change := putBody(t, st, p, string(mbody))
		if id2 != mid || created || changed || change != "" {
			t.Errorf("PUT of a made task's GET: id %d/%d created %t changed %t change %q", id2, mid, created, changed, change)
		}
		done := strings.Replace(string(mbody), "STATUS:NEEDS-ACTION", "STATUS:COMPLETED", 1)
		if _, id3, _, changed, _ := putBody(t, st, p, done); id3 != mid || !changed {
			t.Errorf("completing the made task: id %d changed %t", id3, changed)
		}
		if err := st.Read(context.Background(), p.ID, func(tx *store.Tx) error {
			tk, err := tx.Task(mid)
			if tk.UID != "" || tk.Status != task.Done {
				t.Errorf("the made task after the PUT: uid %q status %s", tk.UID, tk.Status)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	})
}

// An event the tools made (a UID, reminders before) is written and PUT
// back without a change.
func TestObjectToolEventUnchanged(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		berlin := tz.MustZone("Europe/Berlin")
		start, _ := tz.ParseMoment("2026-10-05T09:00")
		e := &calendar.Event{UID: "0f1e2d3c@assistant", Title: "Standup", Location: "Room 1", Notes: "notes",
			Zone: berlin, Start: start, Rule: recur.MustRule("FREQ=WEEKLY;BYDAY=MO,WE"), RemindBefore: "[10]", RemindAt: "[]", CreatedAt: objNow}
		e.SetLength(30*time.Minute, 0)
		if _, err := st.Write(context.Background(), p.ID, "add_event", func(tx *store.Tx) error {
			_, err := tx.InsertEvent(e)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		body := getBody(t, st, p, "VEVENT", e.UID, "")
		_, id, created, changed, change := putBody(t, st, p, string(body))
		if id != e.ID || created || changed || change != "" {
			t.Errorf("PUT of a made event's GET: id %d/%d created %t changed %t\n%s", id, e.ID, created, changed, body)
		}
	})
}

// Every body that is no calendar object resource is refused with a
// sentence and the precondition it breaks.
func TestObjectRefusals(t *testing.T) {
	ev := func(uid, extra string) string {
		s := "BEGIN:VEVENT\r\n"
		if uid != "" {
			s += "UID:" + uid + "\r\n"
		}
		return s + "DTSTART:20261005T090000Z\r\n" + extra + "END:VEVENT\r\n"
	}
	cal := func(parts ...string) string {
		return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + strings.Join(parts, "") + "END:VCALENDAR\r\n"
	}
	todo := "BEGIN:VTODO\r\nUID:a\r\nSUMMARY:x\r\nEND:VTODO\r\n"
	for _, c := range []struct {
		name, body, pre, says string
	}{
		{"empty", "", ValidCalendarData, "empty"},
		{"not iCalendar", "hello world\r\n", ValidCalendarData, "BEGIN:VCALENDAR"},
		{"two VCALENDARs", cal(ev("a", "")) + cal(ev("a", "")), ValidCalendarObjectResource, "2 VCALENDAR"},
		{"no component", cal(), ValidCalendarObjectResource, "no VEVENT or VTODO"},
		{"only a VTIMEZONE", cal("BEGIN:VTIMEZONE\r\nTZID:X\r\nEND:VTIMEZONE\r\n"), ValidCalendarObjectResource, "no VEVENT"},
		{"no UID", cal(ev("", "")), ValidCalendarObjectResource, "has no UID"},
		{"two UIDs", cal(ev("a", ""), ev("b", "")), ValidCalendarObjectResource, "two UIDs"},
		{"mixed", cal(ev("a", ""), todo), ValidCalendarObjectResource, "mixes VEVENT and VTODO"},
		{"journal", cal("BEGIN:VJOURNAL\r\nUID:a\r\nEND:VJOURNAL\r\n"), SupportedCalendarComponent, "VJOURNAL"},
		{"only an override", cal(ev("a", "RECURRENCE-ID:20261005T090000Z\r\n")), ValidCalendarObjectResource, "only changed occurrences"},
		{"two masters", cal(ev("a", ""), ev("a", "")), ValidCalendarObjectResource, "no RECURRENCE-ID"},
		{"a to-do override", cal("BEGIN:VTODO\r\nUID:a\r\nRECURRENCE-ID:20261005T090000Z\r\nEND:VTODO\r\n"), ValidCalendarObjectResource, "changed occurrence"},
		{"no DTSTART", cal("BEGIN:VEVENT\r\nUID:a\r\nSUMMARY:x\r\nEND:VEVENT\r\n"), ValidCalendarObjectResource, "DTSTART"},
		{"cancelled series", cal(ev("a", "STATUS:CANCELLED\r\n")), ValidCalendarObjectResource, "delete its resource"},
		{"one occurrence twice", cal(ev("a", "RRULE:FREQ=DAILY;COUNT=3\r\n"), ev("a", "RECURRENCE-ID:20261006T090000Z\r\nSUMMARY:x\r\n"), ev("a", "RECURRENCE-ID:20261006T090000Z\r\nSUMMARY:y\r\n")),
			ValidCalendarObjectResource, "same occurrence"},
		{"a UID with a carriage return", cal(ev("a\rb", "")), ValidCalendarData, "control character"},
		{"a long UID", cal(ev(strings.Repeat("u", 1001), "")), ValidCalendarObjectResource, "shorter UID"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj, err := ParseObject([]byte(c.body), tz.MustZone("Europe/Berlin"), objNow)
			var oe *ObjectError
			if !errors.As(err, &oe) {
				t.Fatalf("accepted (%+v) or not an ObjectError: %v", obj, err)
			}
			msg := oe.Error()
			if oe.Precondition != c.pre || !strings.Contains(msg, c.says) || !strings.HasSuffix(msg, ".") ||
				strings.Contains(msg, "*ics") || strings.Contains(msg, "%!") || strings.Count(msg, "\n") > 0 {
				t.Errorf("%s: %q", oe.Precondition, msg)
			}
		})
	}
}

// A TZID that names an IANA zone needs no VTIMEZONE (RFC 7809): the event
// keeps its zone, with nothing repaired.
func TestObjectIANAWithoutVTimezone(t *testing.T) {
	body := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:z@example.com\r\n" +
		"DTSTART;TZID=Asia/Tokyo:20261005T090000\r\nDTEND;TZID=Asia/Tokyo:20261005T093000\r\nSUMMARY:Call\r\n" +
		"END:VEVENT\r\nEND:VCALENDAR\r\n"
	obj, err := ParseObject([]byte(body), tz.MustZone("Europe/Berlin"), objNow)
	if err != nil {
		t.Fatal(err)
	}
	if obj.Event.Zone.Name() != "Asia/Tokyo" || obj.Event.StartAt != time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC) || len(obj.Repaired)+len(obj.Skipped) != 0 {
		t.Errorf("zone %s start %s repaired %+v skipped %+v", obj.Event.Zone.Name(), obj.Event.StartAt, obj.Repaired, obj.Skipped)
	}
	var b bytes.Buffer
	if err := WriteEventObject(&b, obj.Event, nil, obj.Extra, tz.MustZone("Europe/Berlin")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "TZID:Asia/Tokyo") || !strings.Contains(b.String(), "DTSTART;TZID=Asia/Tokyo:20261005T090000") {
		t.Errorf("written without its zone:\n%s", b.String())
	}
}

// FuzzParseObject feeds arbitrary bytes to ParseObject: it never panics,
// refuses with an *ObjectError, and what it accepts writes to an object
// it accepts again, of the same kind and UID.
func FuzzParseObject(f *testing.F) {
	f.Add([]byte(extraBody))
	f.Add([]byte(todoBody))
	f.Add([]byte("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nDTSTART;VALUE=DATE:20261005\nRRULE:FREQ=YEARLY\nEND:VEVENT\nBEGIN:VEVENT\nUID:a\nRECURRENCE-ID;VALUE=DATE:20271005\nDTSTART;VALUE=DATE:20271006\nEND:VEVENT\nEND:VCALENDAR\n"))
	person := tz.MustZone("Europe/Paris")
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := ParseObject(data, person, objNow)
		if err != nil {
			var oe *ObjectError
			if !errors.As(err, &oe) || oe.Precondition == "" {
				t.Fatalf("refused without a precondition: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if obj.Kind == "VTODO" {
			tk := obj.Task
			tk.ID = 1
			err = WriteTaskObject(&b, tk, obj.Extra, person)
		} else {
			err = WriteEventObject(&b, obj.Event, obj.Overrides, obj.Extra, person)
		}
		if err != nil {
			t.Fatalf("write: %v", err)
		}
		back, err := ParseObject(b.Bytes(), person, objNow)
		if err != nil {
			t.Fatalf("the written object is refused: %v\n%s", err, b.Bytes())
		}
		if back.Kind != obj.Kind || back.UID != obj.UID {
			t.Fatalf("written back as %s %q, was %s %q", back.Kind, back.UID, obj.Kind, obj.UID)
		}
	})
}

// A CalDAV object of a series without end, started before its zone's rule
// of today (New York, 1995), carries the changes up to the rule of 2007
// and the rule itself, so a client that reads its VTIMEZONE places this
// summer's occurrences right.
func TestObjectOpenSeriesCarriesTheRule(t *testing.T) {
	body := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:ny@example.com\r\n" +
		"DTSTART;TZID=America/New_York:19950105T100000\r\nDTEND;TZID=America/New_York:19950105T110000\r\n" +
		"RRULE:FREQ=WEEKLY;BYDAY=TH\r\nSUMMARY:Weekly\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
	obj, err := ParseObject([]byte(body), tz.MustZone("Europe/Berlin"), objNow)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteEventObject(&b, obj.Event, nil, obj.Extra, tz.MustZone("Europe/Berlin")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"RDATE:20061029T020000", "DTSTART:20070311T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the object lacks %q:\n%s", want, b.String())
		}
	}
}
