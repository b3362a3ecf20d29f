package ics

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
)

func openStore(t testing.TB) (*store.Store, store.Person) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.LocationFrom(t, migrated), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, addPerson(t, st, "ann")
}

// addPerson adds the person name (a name the store has no one of yet) in
// Europe/Berlin to st, as openStore adds ann: a suite that imports many
// files gives each its own person in one store, whose rows the tests read
// by owner_id, rather than a database each (a PostgreSQL database takes
// longer to make and drop than the import it would hold).
func addPerson(t testing.TB, st *store.Store, name string) store.Person {
	t.Helper()
	p, err := st.AddPerson(context.Background(), name, "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// migrated is the template of the PostgreSQL databases openStore makes:
// an empty one that store.Open brought up to date, for as long as the
// migration files stay the same (a SQLite location is a new file).
var migrated = tooltest.Migrated

func countRows(t *testing.T, st *store.Store, owner int64, table string) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM `+table+` WHERE owner_id = ? AND deleted_at IS NULL`, owner).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestImportIdempotentUndoable imports every shared file twice: the second
// import changes nothing; one undo takes the first import back whole. Each
// file goes to a person of its own, with nothing stored yet.
func TestImportIdempotentUndoable(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		dir := testdataICS(t)
		files, _ := filepath.Glob(filepath.Join(dir, "*.ics"))
		ctx := context.Background()
		st, _ := openStore(t)
		for i, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				p := addPerson(t, st, fmt.Sprintf("p%d", i))
				data, _ := os.ReadFile(f)
				dry, err := Import(ctx, st, p, bytes.NewReader(data), ImportOptions{DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if countRows(t, st, p.ID, "events")+countRows(t, st, p.ID, "tasks") != 0 || dry.Change != "" {
					t.Fatalf("a dry run wrote rows")
				}
				first, err := Import(ctx, st, p, bytes.NewReader(data), ImportOptions{Source: filepath.Base(f)})
				if err != nil {
					t.Fatal(err)
				}
				if first.Events != dry.Events || first.Tasks != dry.Tasks || first.Overrides != dry.Overrides {
					t.Errorf("dry run said %+v %+v %+v, the import did %+v %+v %+v", dry.Events, dry.Overrides, dry.Tasks, first.Events, first.Overrides, first.Tasks)
				}
				if first.Rows() == 0 || first.Change == "" {
					t.Fatalf("nothing imported: %+v", first)
				}
				again, err := Import(ctx, st, p, bytes.NewReader(data), ImportOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if again.Rows() != 0 || again.Change != "" {
					t.Fatalf("a second import changed %d rows (%+v %+v %+v)", again.Rows(), again.Events, again.Overrides, again.Tasks)
				}
				if _, err := st.Undo(ctx, p.ID, first.Change); err != nil {
					t.Fatal(err)
				}
				if n := countRows(t, st, p.ID, "events") + countRows(t, st, p.ID, "tasks") + countRows(t, st, p.ID, "event_overrides"); n != 0 {
					t.Fatalf("undo left %d rows", n)
				}
			})
		}
	})
}

func TestImportUpdatesWhatChanged(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		st, p := openStore(t)
		ctx := context.Background()
		src := "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x1\r\nDTSTART;TZID=Europe/Paris:20261005T090000\r\nDTEND;TZID=Europe/Paris:20261005T100000\r\nSUMMARY:Standup\r\nRRULE:FREQ=DAILY;COUNT=5\r\nEND:VEVENT\r\n" +
			"BEGIN:VEVENT\r\nUID:x2\r\nDTSTART:20261006T120000Z\r\nSUMMARY:Lunch\r\nEND:VEVENT\r\n" +
			"BEGIN:VTODO\r\nUID:t1\r\nSUMMARY:Pay rent\r\nDUE;VALUE=DATE:20261101\r\nPRIORITY:1\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
		if _, err := Import(ctx, st, p, strings.NewReader(src), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(src, "SUMMARY:Lunch", "SUMMARY:Long lunch", 1)
		changed = strings.Replace(changed, "END:VEVENT\r\nBEGIN:VEVENT\r\nUID:x2", "END:VEVENT\r\nBEGIN:VEVENT\r\nUID:x1\r\nRECURRENCE-ID;TZID=Europe/Paris:20261007T090000\r\nDTSTART;TZID=Europe/Paris:20261007T110000\r\nDTEND;TZID=Europe/Paris:20261007T120000\r\nSUMMARY:Standup\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:x2", 1)
		rep, err := Import(ctx, st, p, strings.NewReader(changed), ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events != (Counts{Updated: 1, Unchanged: 1}) || rep.Overrides != (Counts{Created: 1}) || rep.Tasks != (Counts{Unchanged: 1}) {
			t.Fatalf("report %+v %+v %+v", rep.Events, rep.Overrides, rep.Tasks)
		}
		var title, key, start string
		if err := st.DB().QueryRow(`SELECT title FROM events WHERE owner_id = ? AND uid = 'x2'`, p.ID).Scan(&title); err != nil || title != "Long lunch" {
			t.Fatalf("title %q, %v", title, err)
		}
		if err := st.DB().QueryRow(`SELECT recurrence_id, start_local FROM event_overrides WHERE owner_id = ?`, p.ID).Scan(&key, &start); err != nil || key != "20261007T070000Z" || start != "2026-10-07T11:00" {
			t.Fatalf("override %q %q %v", key, start, err)
		}
	})
}

// TestExportRoundTrip imports the shared files, exports them, and imports
// the export for a person with nothing stored: the same rows come back,
// and the exported file parses with go-ical too.
func TestExportRoundTrip(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		dir := testdataICS(t)
		files, _ := filepath.Glob(filepath.Join(dir, "*.ics"))
		ctx := context.Background()
		st, _ := openStore(t)
		st2 := st
		for i, f := range files {
			t.Run(filepath.Base(f), func(t *testing.T) {
				p := addPerson(t, st, fmt.Sprintf("a%d", i))
				data, _ := os.ReadFile(f)
				if _, err := Import(ctx, st, p, bytes.NewReader(data), ImportOptions{}); err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := Export(ctx, st, p, &out, time.Time{}, time.Time{}); err != nil {
					t.Fatal(err)
				}
				checkPhysical(t, 0, out.Bytes())
				if _, err := ical.NewDecoder(bytes.NewReader(out.Bytes())).Decode(); err != nil {
					t.Fatalf("go-ical cannot read the export: %v", err)
				}
				p2 := addPerson(t, st2, fmt.Sprintf("b%d", i))
				rep, err := Import(ctx, st2, p2, bytes.NewReader(out.Bytes()), ImportOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.Skipped) > 0 {
					t.Errorf("re-import skipped %+v", rep.Skipped)
				}
				for _, q := range []string{
					// The RRULE and the series' end (last_at) are compared by
					// their occurrences below: the export writes UNTIL in UTC
					// (RFC 5545 §3.3.10), where the file may have had a local one.
					`SELECT uid, title, location, notes, all_day, start_local, end_local, tzid, start_at, end_at, exdates, rdates, first_at, remind_before, remind_at FROM events WHERE owner_id = ? ORDER BY uid`,
					`SELECT e.uid, o.recurrence_id, o.cancelled, COALESCE(o.title,'~'), COALESCE(o.start_local,'~'), COALESCE(o.end_at,0), COALESCE(o.remind_before,'~') FROM event_overrides o JOIN events e ON e.id = o.event_id WHERE o.owner_id = ? ORDER BY 1, 2`,
					`SELECT uid, title, notes, COALESCE(due_date,''), COALESCE(due_time,''), COALESCE(due_zone,''), priority, tags, COALESCE(rrule,''), COALESCE(repeat_from,''), remind_before, remind_at, status, COALESCE(completed_at,0) FROM tasks WHERE owner_id = ? ORDER BY uid`,
				} {
					a, b := dump(t, st, p.ID, q), dump(t, st2, p2.ID, q)
					if a != b {
						t.Errorf("rows differ after export and import:\n%s\n---\n%s", a, b)
					}
				}
				if a, b := occurrences(t, st, p.ID), occurrences(t, st2, p2.ID); a != b {
					t.Errorf("occurrences differ after export and import:\n%s\n---\n%s", a, b)
				}
			})
		}
	})
}

// occurrences lists the first 500 occurrence starts of each stored series
// (UTC), by UID.
func occurrences(t *testing.T, st *store.Store, owner int64) string {
	t.Helper()
	rows, err := st.DB().Query(`SELECT uid, all_day, start_local, tzid, COALESCE(rrule,''), exdates, rdates, end_at - start_at FROM events WHERE owner_id = ? ORDER BY uid`, owner)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var uid, start, zone, rule, ex, rd string
		var allDay, dur int64
		if err := rows.Scan(&uid, &allDay, &start, &zone, &rule, &ex, &rd, &dur); err != nil {
			t.Fatal(err)
		}
		s := recur.Series{Zone: tz.MustZone(zone), Duration: time.Duration(dur) * time.Second}
		s.Start, _ = tz.ParseMoment(start)
		if rule != "" {
			s.Rule = recur.MustRule(rule)
		}
		s.ExDates, _ = tz.ParseMomentsJSON(ex)
		s.RDates, _ = tz.ParseMomentsJSON(rd)
		fmt.Fprintf(&b, "%s:", uid)
		for _, o := range s.All(500) {
			b.WriteString(" " + o.Start.UTC().Format(time.RFC3339))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// dump is the rows of q, one line each, its values joined by " | ". q
// takes owner as its one ? when it has one; a query without a placeholder
// is sent without it (PostgreSQL refuses an argument a query does not use).
func dump(t *testing.T, st *store.Store, owner int64, q string) string {
	t.Helper()
	var args []any
	if strings.Contains(q, "?") {
		args = append(args, owner)
	}
	rows, err := st.DB().Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			b.WriteString(strings.ReplaceAll(fmt.Sprint(v), "\n", `\n`) + " | ")
		}
		b.WriteString("\n")
	}
	return b.String()
}
