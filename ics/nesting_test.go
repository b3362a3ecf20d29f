package ics

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
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
