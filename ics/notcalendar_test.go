package ics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/assistant-dev/assistant/store/storetest"
)

// TestImportRefusesWhatIsNoCalendar: input with no VCALENDAR at all is
// refused with one sentence and writes nothing, while a calendar with some
// bad lines is still imported with those lines listed.
func TestImportRefusesWhatIsNoCalendar(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		cases := []struct {
			name, data string
			refused    string // the whole sentence; "" when the import goes ahead
		}{
			{"empty", "", "notes.txt is not an iCalendar file: it is empty"},
			{"blank lines", "\r\n\n  \n", "notes.txt is not an iCalendar file: it is empty"},
			{"markdown", "# Sources\n\n- one: two\n- three\n", "notes.txt is not an iCalendar file: it has no BEGIN:VCALENDAR line"},
			{"a bare VEVENT", "BEGIN:VEVENT\r\nUID:x\r\nDTSTART:20261005T090000Z\r\nEND:VEVENT\r\n", "notes.txt is not an iCalendar file: it has no BEGIN:VCALENDAR line"},
			{"calendar with a bad line", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nthis line is broken\r\nBEGIN:VEVENT\r\nUID:ok@x\r\nSUMMARY:Fine\r\nDTSTART:20261005T090000Z\r\nDTEND:20261005T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", ""},
		}
		st, _ := openStore(t)
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				p := addPerson(t, st, fmt.Sprintf("p%d", i))
				rep, err := Import(context.Background(), st, p, strings.NewReader(c.data), ImportOptions{Source: "notes.txt"})
				if c.refused == "" {
					if err != nil {
						t.Fatalf("Import = %v; want the event imported and the bad line skipped", err)
					}
					if rep.Events.Created != 1 || len(rep.Skipped) == 0 {
						t.Fatalf("want 1 event and the bad line skipped, got %+v", rep)
					}
					return
				}
				if !errors.Is(err, ErrNotCalendar) || err.Error() != c.refused {
					t.Fatalf("Import = %v; want ErrNotCalendar saying %q", err, c.refused)
				}
				if rep.Change != "" || countRows(t, st, p.ID, "events")+countRows(t, st, p.ID, "tasks") != 0 {
					t.Fatalf("a refused import wrote something: %+v", rep)
				}
			})
		}
	})
}

// An event whose END:VEVENT line is lost ends where the next calendar
// component begins (RFC 5545 §3.6 nests them only in VCALENDAR): the
// events after it come in, and the report names the broken one; a lost
// END:VALARM inside an event still closes with the event.
func TestImportEventWithoutEnd(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		ev := func(uid, extra string) string {
			return "BEGIN:VEVENT\r\nUID:" + uid + "@x\r\nSUMMARY:" + uid + "\r\nDTSTART:20261005T090000Z\r\nDTEND:20261005T100000Z\r\n" + extra
		}
		data := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" +
			ev("one", "END:VEVENT\r\n") +
			ev("two", "") + // no END:VEVENT
			ev("three", "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VEVENT\r\n") + // no END:VALARM
			ev("four", "END:VEVENT\r\n") +
			"BEGIN:VTODO\r\nUID:todo@x\r\nSUMMARY:Todo\r\n" + // no END:VTODO
			ev("five", "END:VEVENT\r\n") +
			"END:VCALENDAR\r\n"
		st, _ := openStore(t)
		p := addPerson(t, st, "ada")
		rep, err := Import(context.Background(), st, p, strings.NewReader(data), ImportOptions{Source: "cal.ics"})
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		rows, err := st.DB().Query(`SELECT title FROM events WHERE owner_id = ? AND deleted_at IS NULL ORDER BY title`, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			rows.Scan(&s)
			titles = append(titles, s)
		}
		rows.Close()
		got := strings.Join(titles, ",")
		if !strings.Contains(got, "five") || !strings.Contains(got, "four") || !strings.Contains(got, "three") || !strings.Contains(got, "one") {
			t.Errorf("imported %q; want one, three, four and five at least", got)
		}
		var said []string
		for _, s := range rep.Repaired {
			said = append(said, s.Reason)
		}
		if all := strings.Join(said, "\n"); !strings.Contains(all, "BEGIN:VEVENT has no END:VEVENT before BEGIN:VEVENT") ||
			!strings.Contains(all, "BEGIN:VTODO has no END:VTODO before BEGIN:VEVENT") {
			t.Errorf("the report says:\n%s", all)
		}
	})
}

// A file that ends inside a VEVENT is imported with that event, and the
// report lists the missing END under what was read in spite of a fault,
// not as skipped.
func TestCutShortFileReportsARepair(t *testing.T) {
	st, p := openStore(t)
	data := "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:cut\r\nSUMMARY:trunc\r\nDTSTART:20261210T100000Z\r\n"
	rep, err := Import(context.Background(), st, p, strings.NewReader(data), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events.Created != 1 {
		t.Fatalf("created %d events, want the one the file holds", rep.Events.Created)
	}
	for _, s := range rep.Skipped {
		if strings.Contains(s.Reason, "has no END") {
			t.Errorf("the missing END is listed as skipped: %+v", s)
		}
	}
	var said []string
	for _, s := range rep.Repaired {
		said = append(said, s.Reason)
	}
	if all := strings.Join(said, "\n"); !strings.Contains(all, "BEGIN:VEVENT has no END:VEVENT; the file ends first, so it is read up to there") {
		t.Errorf("read in spite of a fault:\n%s", all)
	}
}
