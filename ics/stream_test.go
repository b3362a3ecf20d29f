package ics

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/ics/icstest"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tz"
)

// streamCases is a file of what streaming must get right: a changed
// occurrence before its series, a second series with a UID already read,
// a cancelled series, an occurrence with no series, a title too long, a
// rule that never repeats, events without UID, a task.
var streamCases = icsLines(
	"BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//t//EN",
	"BEGIN:VEVENT", "UID:early", "RECURRENCE-ID:20261007T090000Z", "DTSTART:20261007T110000Z", "DTEND:20261007T120000Z", "SUMMARY:Moved", "END:VEVENT",
	"BEGIN:VEVENT", "UID:early", "DTSTART:20261005T090000Z", "DTEND:20261005T100000Z", "RRULE:FREQ=DAILY;COUNT=5", "SUMMARY:Series", "END:VEVENT",
	"BEGIN:VEVENT", "UID:twice", "DTSTART:20261005T090000Z", "SUMMARY:First", "END:VEVENT",
	"BEGIN:VEVENT", "UID:twice", "DTSTART:20261006T090000Z", "SUMMARY:Second", "END:VEVENT",
	"BEGIN:VEVENT", "UID:gone", "DTSTART:20261005T090000Z", "STATUS:CANCELLED", "SUMMARY:Off", "END:VEVENT",
	"BEGIN:VEVENT", "UID:alone", "RECURRENCE-ID:20261005T090000Z", "DTSTART:20261005T100000Z", "SUMMARY:Lost", "END:VEVENT",
	"BEGIN:VEVENT", "UID:long", "DTSTART:20261005T090000Z", "SUMMARY:"+strings.Repeat("x", 600), "END:VEVENT",
	"BEGIN:VEVENT", "UID:never", "DTSTART:20261005T090000Z", "RRULE:FREQ=DAILY;UNTIL=20261001T000000Z", "SUMMARY:Never", "END:VEVENT",
	"BEGIN:VEVENT", "DTSTART:20261008T090000Z", "SUMMARY:No UID", "END:VEVENT",
	"BEGIN:VEVENT", "DTSTART:20261008T090000Z", "SUMMARY:No UID", "END:VEVENT",
	"BEGIN:VTODO", "UID:todo", "DUE;VALUE=DATE:20261010", "SUMMARY:Task", "DTSTART;VALUE=DATE:20261009", "END:VTODO",
	"BEGIN:VEVENT", "UID:late", "DTSTART:20261009T090000Z", "SUMMARY:Late", "BEGIN:VALARM", "TRIGGER:-PT10M", "ACTION:DISPLAY", "END:VALARM", "END:VEVENT",
	"END:VCALENDAR")

// onlyReader hides a reader's Seek, as standard input's pipe has none.
type onlyReader struct{ io.Reader }

// TestImportStreamedAsWhole imports each real-world file, the file of
// streamCases and a generated one three ways into a person each — the
// whole file decoded and planned first then written (the import as it
// was, kept as the oracle), streamed from a file, and streamed from a
// reader that cannot seek — and wants the same report and the same
// export of what was stored, and again for a second import of the same
// file (everything unchanged).
func TestImportStreamedAsWhole(t *testing.T) {
	storetest.Engines(t, func(t *testing.T) {
		files := calendarFiles(t, 3000, 7)
		st, _ := openStore(t)
		fixed := time.Date(2026, 10, 5, 7, 0, 0, 0, time.UTC)
		st.Now = func() time.Time { return fixed }
		ctx := context.Background()
		n := 0
		for name, data := range files {
			n++
			whole := addPerson(t, st, "whole"+strings.Repeat("w", n))
			fromFile := addPerson(t, st, "file"+strings.Repeat("f", n))
			fromPipe := addPerson(t, st, "pipe"+strings.Repeat("p", n))
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			for round := range 2 {
				want := importWhole(t, st, whole, data, fixed)
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Import(ctx, st, fromFile, f, ImportOptions{Source: "calendar.ics"})
				f.Close()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				piped, err := Import(ctx, st, fromPipe, onlyReader{bytes.NewReader(data)}, ImportOptions{Source: "calendar.ics"})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for how, rep := range map[string]Report{"from a file": got, "from a pipe": piped} {
					if rep.Events != want.Events || rep.Overrides != want.Overrides || rep.Tasks != want.Tasks {
						t.Errorf("%s, import %d %s: events %+v, overrides %+v, tasks %+v; read whole: %+v, %+v, %+v",
							name, round+1, how, rep.Events, rep.Overrides, rep.Tasks, want.Events, want.Overrides, want.Tasks)
					}
					if !reflect.DeepEqual(rep.Skipped, want.Skipped) || !reflect.DeepEqual(rep.Repaired, want.Repaired) {
						t.Errorf("%s, import %d %s: skipped\n%+v\nrepaired %+v\nread whole: skipped\n%+v\nrepaired %+v",
							name, round+1, how, rep.Skipped, rep.Repaired, want.Skipped, want.Repaired)
					}
				}
				if round == 0 && want.Rows() == 0 && name == "cases.ics" {
					t.Fatalf("%s: nothing imported", name)
				}
			}
			// A series with a changed occurrence is written after the
			// others when streamed, so its id (and place in an export)
			// may differ: the components are compared in order of text.
			a, b, c := exportOf(t, st, whole), exportOf(t, st, fromFile), exportOf(t, st, fromPipe)
			if a != b || a != c {
				t.Errorf("%s: what was stored differs; read whole:\n%s\nstreamed from a file:\n%s\nfrom a pipe:\n%s", name, a, b, c)
			}
		}
	})
}

// importWhole is the import as it was before it streamed: the whole file
// decoded, then planned, then written in one transaction.
func importWhole(t *testing.T, st *store.Store, p store.Person, data []byte, now time.Time) Report {
	t.Helper()
	zone := tz.MustZone(p.Zone)
	cal := DecodeBytes(data, DecodeOptions{Zone: zone, Now: now})
	plan := planRows(cal, zone, now)
	rep := Report{Skipped: append(cal.Skipped, plan.skipped()...), Repaired: cal.Repaired}
	if _, err := st.Write(context.Background(), p.ID, "import", func(tx *store.Tx) error {
		return plan.apply(tx, &rep, ImportOptions{Source: "calendar.ics"}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	return rep
}

func exportOf(t *testing.T, st *store.Store, p store.Person) string {
	t.Helper()
	var b bytes.Buffer
	if err := Export(context.Background(), st, p, &b, time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(b.String(), "BEGIN:")
	slices.Sort(parts)
	return strings.Join(parts, "BEGIN:")
}

func icsLines(lines ...string) string { return strings.Join(lines, "\r\n") + "\r\n" }

// countingSeeker is a file in memory that counts the bytes read from it
// and calls at, once, when more than after bytes have been read.
type countingSeeker struct {
	*bytes.Reader
	read  int
	after int
	at    func()
}

func (c *countingSeeker) Read(b []byte) (int, error) {
	n, err := c.Reader.Read(b)
	c.read += n
	if c.at != nil && c.read > c.after {
		c.at()
		c.at = nil
	}
	return n, err
}

// TestImportStopsReading fails an import's write (the person is gone)
// and cancels another mid-file: the file is read on its own goroutine
// while the import writes, and both end the reading early (the file is
// read once whole for its zones, then not to its end again), with the
// error said and nothing written.
func TestImportStopsReading(t *testing.T) {
	var buf bytes.Buffer
	if err := icstest.Calendar(&buf, 10000, 3); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	st, p := openStore(t)
	gone := store.Person{ID: p.ID + 100, Name: "gone", Zone: p.Zone}
	f := &countingSeeker{Reader: bytes.NewReader(data)}
	if _, err := Import(context.Background(), st, gone, f, ImportOptions{Source: "big.ics"}); err == nil {
		t.Fatal("an import for no person was written")
	}
	if f.read >= 2*len(data) {
		t.Errorf("after its write failed the import read the file to its end (%d bytes of a %d-byte file)", f.read, len(data))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f = &countingSeeker{Reader: bytes.NewReader(data), after: len(data) + len(data)/4, at: cancel}
	_, err := Import(ctx, st, p, f, ImportOptions{Source: "big.ics"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled import = %v, want context.Canceled", err)
	}
	if f.read >= 2*len(data) {
		t.Errorf("a cancelled import read the file to its end (%d bytes of a %d-byte file)", f.read, len(data))
	}
	var n int
	if err := st.DB().QueryRow(`SELECT (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM changes)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows written by imports that failed (%v)", n, err)
	}
}

// calendarFiles are the stream cases, a generated calendar of n events
// (seed) and the shared real-world files (ASSISTANT_TESTDATA/ics), by
// name.
func calendarFiles(t testing.TB, n int, seed uint64) map[string][]byte {
	files := map[string][]byte{"cases.ics": []byte(streamCases)}
	var gen bytes.Buffer
	if err := icstest.Calendar(&gen, n, seed); err != nil {
		t.Fatal(err)
	}
	files["generated.ics"] = gen.Bytes()
	if root := os.Getenv("ASSISTANT_TESTDATA"); root != "" {
		paths, _ := filepath.Glob(filepath.Join(root, "ics", "*.ics"))
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Base(p)] = data
		}
	}
	return files
}
