package ics

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	ical "github.com/emersion/go-ical"
)

// prescan reads the stream a first time for what the items need before
// any is read: the VTIMEZONEs, the UIDs of the VEVENTs that change an
// occurrence (those with a RECURRENCE-ID), and the years the items span,
// over which a VTIMEZONE is matched to an IANA zone. What the stream gets
// wrong is reported by the second reading, not here.
//
// It follows the components as [parser] does (the same repairs of a
// missing END, the same unfolding, the same grammar for the lines it
// reads), but builds a node only for a VTIMEZONE: of the other
// components it reads the BEGIN and END lines and, directly in a
// VEVENT or VTODO, the first UID, DTSTART, DUE and DTEND and whether a
// RECURRENCE-ID is there. On a 50,000-event file that is 18 allocations
// where a parse of those lines made a million, and a third of its time
// (BenchmarkPrescan); the import's writing waits for it.
func (d *decoder) prescan(r io.Reader) error {
	s := prescanner{d: d, minY: 9999}
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	var long []byte
	lineNo := 0
	for {
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], raw...)
			for err == bufio.ErrBufferFull {
				raw, err = br.ReadSlice('\n')
				long = append(long, raw...)
			}
			raw = long
		}
		if err != nil && err != io.EOF {
			return err
		}
		if err == io.EOF && len(raw) == 0 {
			break
		}
		lineNo++
		s.physical(bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r")), lineNo)
		if err == io.EOF {
			break
		}
	}
	s.flush()
	for len(s.stack) > 0 {
		s.pop()
	}
	if s.maxY == 0 {
		s.minY, s.maxY = 2000, 2030
	}
	// Go's zone data is reliable from 1970 on; older VTIMEZONE history is
	// not compared. Thirty years are enough to tell zones apart.
	d.zr.fromY = max(1970, s.minY, s.maxY-30)
	d.zr.toY = max(d.zr.fromY, s.maxY+1)
	return nil
}

// prescanner is the state of a prescan.
type prescanner struct {
	d          *decoder
	minY, maxY int
	// stack holds the names of the open components, outermost first, as
	// parser's stack does.
	stack []string
	// cur is the logical line being gathered (its folds undone) when it
	// is one to read (keep), begun at line start; have says one is begun.
	cur   []byte
	start int
	have  bool
	keep  bool
	// deep is parser's: the components open inside one begun at
	// maxNesting, itself included.
	deep int
	// zp is the parser of the VTIMEZONEs (pop).
	zp parser
	// What the open component directly inside a VCALENDAR holds so far.
	top struct {
		uid          []byte // the first UID's value, copied (room reused)
		haveUID, rid bool
		// years of the first DTSTART, DUE and DTEND, 0 for none or for
		// a value that does not start with one; seen says the first of
		// each was read.
		years [3]int
		seen  [3]bool
		zone  []tzLine
	}
}

// tzLine is a logical line of a VTIMEZONE and its line number, kept until
// its END for a parser to make the VTIMEZONE's node of.
type tzLine struct {
	text string
	no   int
}

// physical takes one line of the stream, without its line break.
func (s *prescanner) physical(raw []byte, lineNo int) {
	if len(raw) == 0 {
		return
	}
	// RFC 5545 §3.1: a line that starts with a space or a tab continues
	// the one before, its first character dropped.
	if raw[0] == ' ' || raw[0] == '\t' {
		if s.have && s.keep {
			s.cur = append(s.cur, raw[1:]...)
		}
		return
	}
	s.flush()
	s.start, s.have = lineNo, true
	s.keep = true
	if len(s.stack) >= 2 && s.stack[1] != "VTIMEZONE" {
		// A name with no “;” or “:” after it on this line may go on in
		// the next (a fold may fall anywhere, RFC 5545 §3.1): that line
		// is kept, and read whole.
		for i, c := range raw {
			if c == ';' || c == ':' {
				s.keep = prescanned(raw[:i])
				break
			}
		}
	}
	if s.keep {
		s.cur = append(s.cur[:0], raw...)
	}
}

// prescanned says whether the prescan reads a line of this name in a
// component other than a VTIMEZONE, the name whole on the line's first
// row.
func prescanned(name []byte) bool {
	for _, keep := range [...]string{"BEGIN", "END", "DTSTART", "DUE", "DTEND", "UID", "RECURRENCE-ID"} {
		if len(name) == len(keep) && bytes.EqualFold(name, []byte(keep)) {
			return true
		}
	}
	return false
}

// flush reads the logical line gathered, if one is.
func (s *prescanner) flush() {
	if !s.have || !s.keep {
		s.have = false
		return
	}
	s.have = false
	// text is read while cur holds it: what is kept of it is copied.
	text := unsafe.String(unsafe.SliceData(s.cur), len(s.cur))
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	inZone := len(s.stack) >= 2 && s.stack[1] == "VTIMEZONE"
	name, value, reason := splitLine(text, nil)
	if reason != "" {
		fixed, ok := repairLine(text)
		if !ok {
			if inZone {
				s.top.zone = append(s.top.zone, tzLine{strings.Clone(text), s.start})
			}
			return
		}
		name, value, _ = splitLine(fixed, nil)
	}
	if s.deep > 0 && len(s.stack) > 0 && s.stack[0] == ical.CompCalendar &&
		(name == "BEGIN" && topLevel[compName(value)] || name == "END" && compName(value) == ical.CompCalendar) {
		s.deep = 0 // as endsDeep
	}
	if s.deep > 0 {
		if inZone {
			s.top.zone = append(s.top.zone, tzLine{strings.Clone(text), s.start})
		}
		switch name {
		case "BEGIN":
			s.deep++
		case "END":
			s.deep--
		}
		return
	}
	switch name {
	case "BEGIN":
		comp := compName(value)
		if topLevel[comp] && len(s.stack) > 1 && s.stack[0] == ical.CompCalendar {
			for len(s.stack) > 1 {
				s.pop()
			}
		}
		if len(s.stack) >= maxNesting {
			if len(s.stack) >= 2 && s.stack[1] == "VTIMEZONE" {
				s.top.zone = append(s.top.zone, tzLine{strings.Clone(text), s.start})
			}
			s.deep = 1
			return
		}
		s.stack = append(s.stack, comp)
		if len(s.stack) == 2 {
			s.top.uid, s.top.haveUID, s.top.rid, s.top.zone = s.top.uid[:0], false, false, nil
			s.top.years, s.top.seen = [3]int{}, [3]bool{}
		}
		if len(s.stack) >= 2 && s.stack[1] == "VTIMEZONE" {
			s.top.zone = append(s.top.zone, tzLine{strings.Clone(text), s.start})
		}
		return
	case "END":
		comp := compName(value)
		depth := -1
		for i := len(s.stack) - 1; i >= 0; i-- {
			if s.stack[i] == comp {
				depth = i
				break
			}
		}
		if depth < 0 {
			if inZone {
				s.top.zone = append(s.top.zone, tzLine{strings.Clone(text), s.start})
			}
			return
		}
		if inZone && depth >= 1 {
			s.top.zone = append(s.top.zone, tzLine{strings.Clone(text), s.start})
		}
		for len(s.stack) > depth {
			s.pop()
		}
		return
	}
	if inZone {
		s.top.zone = append(s.top.zone, tzLine{strings.Clone(text), s.start})
		return
	}
	if len(s.stack) != 2 {
		return
	}
	switch name {
	case "UID":
		if !s.top.haveUID {
			s.top.uid, s.top.haveUID = append(s.top.uid[:0], value...), true
		}
	case "RECURRENCE-ID":
		s.top.rid = true
	case "DTSTART", "DUE", "DTEND":
		i := 0
		switch name {
		case "DUE":
			i = 1
		case "DTEND":
			i = 2
		}
		if s.top.seen[i] {
			return
		}
		s.top.seen[i] = true
		if len(value) >= 4 {
			if y, err := strconv.Atoi(value[:4]); err == nil && y > 0 {
				s.top.years[i] = y
			}
		}
	}
}

// compName is the component a BEGIN or END line names, as parser reads
// it: upper case, without white space around.
func compName(v string) string {
	v = strings.TrimSpace(v)
	for _, known := range [...]string{"VEVENT", "VALARM", "VTODO", "VTIMEZONE", "STANDARD", "DAYLIGHT", ical.CompCalendar} {
		if strings.EqualFold(v, known) {
			return known
		}
	}
	return strings.Clone(strings.ToUpper(v)) // v may be read from prescanner.cur
}

// pop closes the innermost open component. A component directly inside
// a VCALENDAR is done then, as parser emits it: a VTIMEZONE is parsed
// from the lines kept, a VEVENT's or VTODO's readings are taken.
func (s *prescanner) pop() {
	comp := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	if len(s.stack) != 1 || s.stack[0] != ical.CompCalendar {
		return
	}
	switch comp {
	case "VTIMEZONE":
		// One parser makes every VTIMEZONE's node, its room reused.
		p := &s.zp
		p.skipped, p.repaired, p.deep, p.more = p.skipped[:0], p.repaired[:0], 0, [2]unlisted{}
		var zone *node
		p.emit = func(n *node) {
			if zone == nil {
				zone = n
			}
		}
		var stack, roots []*node
		p.line("BEGIN:VCALENDAR", 0, &stack, &roots)
		for _, l := range s.top.zone {
			p.line(l.text, l.no, &stack, &roots)
		}
		for len(stack) > 1 {
			p.close(&stack, &roots)
		}
		if zone != nil {
			if id := zone.Props.Get("TZID"); id != nil && strings.TrimSpace(id.Value) != "" {
				s.d.zr.vtz[normTZID(id.Value)] = zone
			}
		}
	case "VEVENT", "VTODO":
		for _, y := range s.top.years {
			if y > 0 {
				s.minY, s.maxY = min(s.minY, y), max(s.maxY, y)
			}
		}
		if comp == "VEVENT" && s.top.haveUID && s.top.rid {
			if s.d.overridden == nil {
				s.d.overridden = map[string]bool{}
			}
			uid, _ := uidOf(string(s.top.uid))
			s.d.overridden[s.d.eventUID(uid)] = true
		}
	}
	s.top.zone = nil
}
