package ics

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// prescanByParser is what prescan finds, found by the parser: every line
// parsed into nodes. It is the oracle prescan is compared with
// (TestPrescanSameAsParser).
//
// It reads the stream a first time for what the items need before
// any is read: the VTIMEZONEs, and the years the items span, over which
// a VTIMEZONE is matched to an IANA zone.
func (d *decoder) prescanByParser(r io.Reader) error {
	minY, maxY := 9999, 0
	var p parser
	p.emit = func(c *node) {
		switch c.Name {
		case "VTIMEZONE":
			if id := c.Props.Get("TZID"); id != nil && strings.TrimSpace(id.Value) != "" {
				d.zr.vtz[normTZID(id.Value)] = c
			}
		case "VEVENT", "VTODO":
			if id := c.Props.Get("UID"); c.Name == "VEVENT" && id != nil && c.Props.Get("RECURRENCE-ID") != nil {
				if d.overridden == nil {
					d.overridden = map[string]bool{}
				}
				uid, _ := uidOf(id.Value)
				d.overridden[uid] = true
			}
			for _, name := range []string{"DTSTART", "DUE", "DTEND"} {
				if p := c.Props.Get(name); p != nil && len(p.Value) >= 4 {
					if y, err := strconv.Atoi(p.Value[:4]); err == nil && y > 0 {
						minY, maxY = min(minY, y), max(maxY, y)
					}
				}
			}
		}
	}
	if _, err := p.parseReader(r); err != nil {
		return err
	}
	if maxY == 0 {
		minY, maxY = 2000, 2030
	}
	// Go's zone data is reliable from 1970 on; older VTIMEZONE history is
	// not compared. Thirty years are enough to tell zones apart.
	d.zr.fromY = max(1970, minY, maxY-30)
	d.zr.toY = max(d.zr.fromY, maxY+1)
	return nil
}

// prescanInputs are the files the two prescans are compared on: the
// stream cases, a generated calendar, the shared real-world files
// (ASSISTANT_TESTDATA/ics) and broken shapes, each also with CRLF line
// ends and folded at every 7th byte.
func prescanInputs(t testing.TB) map[string][]byte {
	in := calendarFiles(t, 500, 3)
	const zone = "BEGIN:VTIMEZONE\nTZID:Custom\nBEGIN:STANDARD\nDTSTART:16010101T030000\nTZOFFSETFROM:+0200\nTZOFFSETTO:+0100\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10\nEND:STANDARD\nBEGIN:DAYLIGHT\nDTSTART:16010101T020000\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0200\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\nEND:DAYLIGHT\nEND:VTIMEZONE\n"
	for i, s := range []string{
		"BEGIN:VCALENDAR\n" + zone + "BEGIN:VEVENT\nUID:a\nDTSTART;TZID=Custom:20261005T090000\nEND:VEVENT\nBEGIN:VEVENT\nUID:a\nRECURRENCE-ID;TZID=Custom:20261005T090000\nDTSTART;TZID=Custom:20261006T090000\nEND:VEVENT\nEND:VCALENDAR\n",
		// a VTIMEZONE without its END, ended by the next component
		"BEGIN:VCALENDAR\n" + strings.Replace(zone, "END:VTIMEZONE\n", "", 1) + "BEGIN:VEVENT\nUID:b\nDTSTART:19990101T000000Z\nEND:VEVENT\nEND:VCALENDAR\n",
		// ended by END:VCALENDAR, and by the end of the file
		"BEGIN:VCALENDAR\n" + strings.Replace(zone, "END:VTIMEZONE\n", "", 1) + "END:VCALENDAR\n",
		"BEGIN:VCALENDAR\n" + strings.Replace(zone, "END:DAYLIGHT\nEND:VTIMEZONE\n", "", 1),
		// a VEVENT without END, one inside another, one outside any VCALENDAR
		"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:c\nDTSTART:20400101\nBEGIN:VEVENT\nUID:c\nRECURRENCE-ID:20400102\nEND:VEVENT\nEND:VCALENDAR\n",
		"BEGIN:VEVENT\nUID:d\nRECURRENCE-ID:20300101\nDTSTART:20300101\nEND:VEVENT\n",
		// lower case, spaces, folds in the UID and in the name, a BOM, CR
		"\xef\xbb\xbfbegin:vcalendar\r\nBegin: vevent \r\nuid:e\r\n f\r\nrecurrence-id:20260101\r\nDTST\r\n ART:18800101\r\nend:VEVENT\r\nEND:vcalendar\r\n",
		// RECURRENCE-ID in a VALARM, a second UID, a second DTSTART, bytes that are not UTF-8
		"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:g\xff\nUID:h\nDTSTART:21000101\nDTSTART:19000101\nBEGIN:VALARM\nRECURRENCE-ID:20260101\nEND:VALARM\nEND:VEVENT\nBEGIN:VEVENT\nUID:g\xff\nRECURRENCE-ID:20260101\nEND:VEVENT\nEND:VCALENDAR\n",
		// the Exchange 2010 quote, a broken line, a VJOURNAL and a VTODO with years
		"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:i\nDTSTART;TZID=\"W. Europe Standard Time:20200609T090000\"\nDTEND;X=\"a\nEND:VEVENT\nBEGIN:VJOURNAL\nDTSTART:17000101\nEND:VJOURNAL\nBEGIN:VTODO\nDUE:20500101\nEND:VTODO\nEND:VCALENDAR\n",
		// END of nothing, END of an outer component, two calendars
		"BEGIN:VCALENDAR\nEND:VALARM\nBEGIN:VEVENT\nUID:j\nRECURRENCE-ID:20260101\nBEGIN:VALARM\nEND:VEVENT\nEND:VCALENDAR\nBEGIN:VCALENDAR\n" + zone + "END:VCALENDAR\n",
		// a VTIMEZONE with broken lines, one inside a VEVENT
		"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:k\n" + strings.Replace(zone, "TZID:Custom", "TZID:Inner\nbroken line\nEND:NOTHING", 1) + "END:VEVENT\nEND:VCALENDAR\n",
		// components nested deeper than maxNesting, ended by a BEGIN of a
		// calendar component, by END:VCALENDAR, by their ENDs, or not at all
		"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:l\nRECURRENCE-ID:20260101\n" + strings.Repeat("BEGIN:X\nUID:z\n", 20) + "BEGIN:VEVENT\nUID:m\nRECURRENCE-ID:20260101\nEND:VEVENT\nEND:VCALENDAR\n",
		"BEGIN:VCALENDAR\n" + strings.Replace(zone, "BEGIN:STANDARD\n", strings.Repeat("BEGIN:STANDARD\nTZOFFSETTO:+0300\n", 10), 1) + "END:VCALENDAR\nBEGIN:VCALENDAR\n" + zone + "END:VCALENDAR\n",
		"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:n\n" + strings.Repeat("BEGIN:X\n", 12) + strings.Repeat("END:X\n", 12) + "RECURRENCE-ID:20260101\nEND:VEVENT\nEND:VCALENDAR\n",
		strings.Repeat("BEGIN:VEVENT\nUID:o\nRECURRENCE-ID:20260101\n", 12) + "BEGIN:VCALENDAR\n" + zone,
	} {
		in["broken-"+strconv.Itoa(i)+".ics"] = []byte(s)
	}
	for name, data := range maps(in) {
		in["crlf-"+name] = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
		in["folded-"+name] = fold7(data)
	}
	return in
}

// maps is a copy of m, to range over while m grows.
func maps(m map[string][]byte) map[string][]byte {
	c := make(map[string][]byte, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// fold7 folds every line of data after each 7th byte (RFC 5545 §3.1).
func fold7(data []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		for len(line) > 8 {
			out.Write(line[:7])
			out.WriteString("\n ")
			line = line[7:]
		}
		out.Write(line)
	}
	return out.Bytes()
}

// prescanDump is what a prescan found, as text to compare.
func prescanDump(t testing.TB, data []byte, scan func(*decoder, io.Reader) error) string {
	d := newDecoder(DecodeOptions{})
	if err := scan(d, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "years %d–%d\n", d.zr.fromY, d.zr.toY)
	var uids []string
	for uid := range d.overridden {
		uids = append(uids, uid)
	}
	slices.Sort(uids)
	fmt.Fprintf(&b, "overridden %q\n", uids)
	var ids []string
	for id := range d.zr.vtz {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "VTIMEZONE %q\n", id)
		dumpNode(&b, d.zr.vtz[id], "  ")
	}
	return b.String()
}

// dumpNode writes n, its properties with their lines and its components.
func dumpNode(b *strings.Builder, n *node, indent string) {
	fmt.Fprintf(b, "%s%s line %d\n", indent, n.Name, n.line)
	var names []string
	for name := range n.Props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for i, p := range n.Props[name] {
			fmt.Fprintf(b, "%s  %s %v %q line %d\n", indent, name, p.Params, p.Value, n.propLine(name, i))
		}
	}
	if len(n.children) != len(n.Children) {
		fmt.Fprintf(b, "%s  %d nodes for %d components\n", indent, len(n.children), len(n.Children))
	}
	for _, c := range n.children {
		dumpNode(b, c, indent+"  ")
	}
}

// TestPrescanSameAsParser compares prescan with prescanByParser, the
// prescan that parsed every line it needed into nodes: the same zones
// (the same nodes, line numbers included), the same UIDs with changed
// occurrences, the same years, on real files and on broken ones.
func TestPrescanSameAsParser(t *testing.T) {
	for name, data := range prescanInputs(t) {
		want := prescanDump(t, data, (*decoder).prescanByParser)
		got := prescanDump(t, data, (*decoder).prescan)
		if got != want {
			t.Errorf("%s: prescan found\n%s\nthe parser found\n%s", name, got, want)
		}
	}
}

// FuzzPrescan compares the two prescans on any bytes.
func FuzzPrescan(f *testing.F) {
	for _, data := range prescanInputs(f) {
		if len(data) < 4096 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := prescanDump(t, data, (*decoder).prescanByParser)
		if got := prescanDump(t, data, (*decoder).prescan); got != want {
			t.Fatalf("prescan found\n%s\nthe parser found\n%s", got, want)
		}
	})
}

// BenchmarkPrescan is the first reading of an import of the 50,000-event
// calendar of BenchmarkScaleImport, by prescan and by prescanByParser.
func BenchmarkPrescan(b *testing.B) {
	data, err := os.ReadFile(scaleFile(b, 50000))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		scan func(*decoder, io.Reader) error
	}{{"prescan", (*decoder).prescan}, {"parser", (*decoder).prescanByParser}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := c.scan(newDecoder(DecodeOptions{}), bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestImportFoldedNames: a fold may fall inside a property's name (RFC
// 5545 §3.1). An override whose RECURRENCE-ID, or a series whose UID, is
// so folded is imported as when unfolded: the first reading must not
// take the name's first part for the whole.
func TestImportFoldedNames(t *testing.T) {
	const head, tail = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n", "END:VCALENDAR\r\n"
	for _, c := range []struct{ uid, rid string }{
		{"UID:s", "RECURRENCE-ID:20250102T090000Z"},
		{"UID:s", "RECURRENCE-\r\n ID:20250102T090000Z"},
		{"U\r\n ID:s", "RECURRE\r\n NCE-ID:20250102T090000Z"},
	} {
		data := []byte(head + "BEGIN:VEVENT\r\nUID:s\r\nDTSTART:20250101T090000Z\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\n" +
			"BEGIN:VEVENT\r\n" + c.uid + "\r\n" + c.rid + "\r\nDTSTART:20250102T100000Z\r\nSUMMARY:moved\r\nEND:VEVENT\r\n" + tail)
		st, p := openStore(t)
		rep, err := Import(context.Background(), st, p, bytes.NewReader(data), ImportOptions{Source: "folded.ics"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events.Created != 1 || rep.Overrides.Created != 1 || len(rep.Skipped) != 0 {
			t.Errorf("%q, %q: %d events, %d overrides, skipped %+v; want 1, 1, none", c.uid, c.rid, rep.Events.Created, rep.Overrides.Created, rep.Skipped)
		}
	}
}
