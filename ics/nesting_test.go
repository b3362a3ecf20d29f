package ics

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// nestedFile is a calendar whose VEVENT "a" holds n components one inside
// the other, followed by VEVENT "b": what a file of BEGIN lines sent to
// stall the reader looks like. With ended, n END lines follow the BEGIN
// lines, of another name.
func nestedFile(n int, ended bool) []byte {
	var b bytes.Buffer
	b.WriteString("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nDTSTART:20261005T090000Z\n")
	b.WriteString(strings.Repeat("BEGIN:X\nSUMMARY:x\n", n))
	if ended {
		b.WriteString(strings.Repeat("END:Y\n", n))
	}
	b.WriteString("BEGIN:VEVENT\nUID:b\nDTSTART:20261006T090000Z\nEND:VEVENT\nEND:VCALENDAR\n")
	return b.Bytes()
}

// TestNestingBounded: a component inside maxNesting others is left out
// with all it holds, in one line of the report; the components around
// it and after it are read as before, and the report stays short
// however deep the file goes.
func TestNestingBounded(t *testing.T) {
	if maxNesting < 3 || maxNesting > 16 {
		t.Fatalf("maxNesting is %d; RFC 5545 nests three deep, and a bound far above that is none", maxNesting)
	}
	for _, c := range []struct {
		n     int
		ended bool
	}{{3, true}, {100, true}, {20000, true}, {3, false}, {100, false}, {20000, false}} {
		n := c.n
		cal := DecodeBytes(nestedFile(n, c.ended), DecodeOptions{})
		var uids []string
		for _, e := range cal.Events {
			uids = append(uids, e.UID)
		}
		if fmt.Sprint(uids) != "[a b]" {
			t.Errorf("n=%d, ended %v: events %v, want [a b]", n, c.ended, uids)
		}
		deep := 0
		for _, s := range cal.Skipped {
			if s.Reason == tooDeep {
				deep++
				if s.Line != 5+2*(maxNesting-2) {
					t.Errorf("n=%d: the component left out is named at line %d, want %d", n, s.Line, 5+2*(maxNesting-2))
				}
			}
		}
		if want := min(1, max(0, n-(maxNesting-2))); deep != want {
			t.Errorf("n=%d: %d lines say a component is nested too deep, want %d", n, deep, want)
		}
		if len(cal.Skipped) > 50 {
			t.Errorf("n=%d: %d lines in the report, want at most 50", n, len(cal.Skipped))
		}
	}
	// A VALARM three deep, as RFC 5545 nests it, is read.
	cal := DecodeBytes([]byte("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:c\nDTSTART:20261005T090000Z\nBEGIN:VALARM\nACTION:DISPLAY\nTRIGGER:-PT5M\nEND:VALARM\nEND:VEVENT\nEND:VCALENDAR\n"), DecodeOptions{})
	if len(cal.Events) != 1 || len(cal.Events[0].Alarms.RemindBefore) != 1 || len(cal.Skipped) != 0 {
		t.Errorf("a VALARM in a VEVENT: %+v, skipped %+v", cal.Events, cal.Skipped)
	}
}

// BenchmarkDecodeNested reads nestedFile at two depths: ns/line stays
// the same from one to the other (with no bound on the open components
// the second took 80 times the first, 56 µs a line).
func BenchmarkDecodeNested(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		data := nestedFile(n, true)
		b.Run(fmt.Sprintf("components=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				DecodeBytes(data, DecodeOptions{})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(3*n), "ns/line")
		})
	}
}

// TestReportBounded: a file of broken lines gets maxLineReports of them
// listed and one line for the rest, grave as they are, so the report
// stays small however large the file; lines read in spite of a fault
// likewise.
func TestReportBounded(t *testing.T) {
	n := 3 * maxLineReports
	var b bytes.Buffer
	b.WriteString("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nDTSTART:20261005T090000Z\n")
	b.WriteString(strings.Repeat("x\n", n))
	b.WriteString(strings.Repeat("SUMMARY:caf\xe9\n", n))
	b.WriteString("END:VEVENT\nEND:VCALENDAR\n")
	cal := DecodeBytes(b.Bytes(), DecodeOptions{})
	if len(cal.Events) != 1 {
		t.Fatalf("%d events, want 1", len(cal.Events))
	}
	for _, c := range []struct {
		name  string
		list  []Skipped
		grave bool
	}{{"skipped", cal.Skipped, true}, {"repaired", cal.Repaired, false}} {
		if len(c.list) != maxLineReports+1 {
			t.Fatalf("%s: %d lines, want %d", c.name, len(c.list), maxLineReports+1)
		}
		last := c.list[len(c.list)-1]
		if want := fmt.Sprintf("%d more lines from here on", n-maxLineReports); !strings.Contains(last.Reason, want) || last.grave != c.grave {
			t.Errorf("%s: the last line is %+v, want %q, grave %v", c.name, last, want, c.grave)
		}
	}
	// A CalDAV PUT of it is refused for what it would lose (Object.Lost).
	obj, err := ParseObject(b.Bytes(), tz.UTC, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if lost := obj.Lost(); len(lost) != maxLineReports+1 {
		t.Errorf("the object lost %d lines, want %d", len(lost), maxLineReports+1)
	}
}

// TestObjectPropsBounded: ParseObject reads at most maxObjectProps
// properties of a body and refuses one that holds more, before it holds
// them all; a body under the bound is read.
func TestObjectPropsBounded(t *testing.T) {
	body := func(n int) []byte {
		return []byte("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20261005T090000Z\r\n" +
			strings.Repeat("X-A;B=\"x:y\":z\r\n", n) + "END:VEVENT\r\nEND:VCALENDAR\r\n")
	}
	if _, err := ParseObject(body(maxObjectProps-10), tz.UTC, time.Now()); err != nil {
		t.Errorf("%d properties: %v", maxObjectProps-8, err)
	}
	_, err := ParseObject(body(maxObjectProps+10), tz.UTC, time.Now())
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d properties", maxObjectProps)) {
		t.Errorf("%d properties: %v, want a refusal naming the bound", maxObjectProps+12, err)
	}
}
