package ics

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	ical "github.com/emersion/go-ical"

	"github.com/assistant-dev/assistant/args"
)

// The content-line layer is ours rather than go-ical's Decoder because that
// decoder gives up on the whole calendar at the first bad line (and panics on
// a quoted parameter that runs to the end of the line, as one Exchange 2010
// export has), and keeps no line numbers. Here every logical line is checked
// on its own: a bad one is reported by its line number and skipped, and the
// rest still builds go-ical's Component tree.

// node is a parsed component with the line numbers the mapping reports.
type node struct {
	*ical.Component
	line     int      // the BEGIN line
	lines    []propAt // the line of each property, in file order
	children []*node
	// byName is lines by property name, made by the first propLine: a
	// node is read without it, and a report of many lines looks each up
	// at once, not by going through lines each time.
	byName map[string][]int
}

// propAt is the line a property of a node was read from.
type propAt struct {
	name string
	line int
}

// propLine returns the line of the i-th property called name.
func (n *node) propLine(name string, i int) int {
	if n.byName == nil {
		n.byName = make(map[string][]int, len(n.lines))
		for _, at := range n.lines {
			n.byName[at.name] = append(n.byName[at.name], at.line)
		}
	}
	if l := n.byName[name]; i < len(l) {
		return l[i]
	}
	return n.line
}

// parser turns the bytes of a file into a tree of nodes.
type parser struct {
	skipped  []Skipped
	repaired []Skipped
	// emit, when set, gets each component of a VCALENDAR (a VEVENT, a
	// VTODO, a VTIMEZONE, with their own components) as soon as its END
	// line is read, and the component is not kept in its calendar's node:
	// a file is then read component by component, never held whole.
	emit func(*node)
	// props is room for the first value of a property in a node's Props,
	// handed out a slot at a time (firstProp): most properties come once
	// in their component, and a slice made for each was a third of what a
	// 50,000-event import allocated reading. ats is room for nodes' lines,
	// handed out eight at a time (linesRoom).
	props []ical.Prop
	ats   []propAt
	// params are the Params read for each parameter text, shared by the
	// properties written with it (decodeLine), up to maxSharedParams.
	params map[string]ical.Params
	// deep counts the components open inside one begun at maxNesting
	// (itself included): what they hold is not read.
	deep int
	// more counts the lines skipped and repaired past maxLineReports;
	// moreLost says a repair among those counted is one repairLost made.
	more     [2]unlisted
	moreLost bool
	// maxProps, when set, is the most properties kept (kept counts
	// them); tooMany says a property past it was read and dropped.
	maxProps, kept int
	tooMany        bool
}

// maxNesting is how many components may be open at once: VCALENDAR,
// VEVENT and VALARM are three (RFC 5545 §3.6). A component begun inside
// that many is left out, with all it holds, so a file of nothing but
// BEGIN lines costs no more to read than its size: the END of a
// component looks for it among the open ones, and with no bound a
// hundred thousand open components made that search quadratic.
const maxNesting = 8

// endsDeep says whether prop, read inside a component nested too deep
// (parser.deep), ends that one too: a BEGIN of a calendar component or
// END:VCALENDAR, which end every component a VCALENDAR holds.
func endsDeep(prop ical.Prop, stack []*node) bool {
	if len(stack) == 0 || stack[0].Name != ical.CompCalendar {
		return false
	}
	name := strings.ToUpper(strings.TrimSpace(prop.Value))
	return prop.Name == "BEGIN" && topLevel[name] || prop.Name == "END" && name == ical.CompCalendar
}

// tooDeep is the report's line for a component begun inside maxNesting
// others.
var tooDeep = fmt.Sprintf("a component inside %d others is left out, with all it holds", maxNesting)

// firstProp is a slice of one element, prop, of capacity one, taken from
// p.props: appending to it copies it out.
func (p *parser) firstProp(prop ical.Prop) []ical.Prop {
	if len(p.props) == cap(p.props) {
		p.props = make([]ical.Prop, 0, 256)
	}
	p.props = append(p.props, prop)
	i := len(p.props) - 1
	return p.props[i : i+1 : i+1]
}

// linesRoom is an empty slice of capacity eight for a node's lines,
// taken from p.ats: appending a ninth copies it out.
func (p *parser) linesRoom() []propAt {
	if cap(p.ats)-len(p.ats) < 8 {
		p.ats = make([]propAt, 0, 512)
	}
	i := len(p.ats)
	p.ats = p.ats[:i+8]
	return p.ats[i : i : i+8]
}

func (p *parser) skip(line int, comp, reason string) {
	if len(p.skipped) >= maxLineReports {
		p.more[0].count(line)
		return
	}
	p.skipped = append(p.skipped, Skipped{Line: line, Component: comp, Reason: reason, grave: true})
}

// repair lists a line read in spite of a fault; why words it, called
// only for a line that is listed.
func (p *parser) repair(line int, comp string, why func() string) {
	if len(p.repaired) >= maxLineReports {
		p.more[1].count(line)
		return
	}
	p.repaired = append(p.repaired, Skipped{Line: line, Component: comp, Reason: why()})
}

// repairLost is repair of a fault whose sender would miss what the
// repair made up (a component's END the file lacks: [Object.Lost]
// refuses it over CalDAV), though an import reads it.
func (p *parser) repairLost(line int, comp, reason string) {
	if len(p.repaired) >= maxLineReports {
		p.more[1].count(line)
		p.moreLost = true
		return
	}
	p.repaired = append(p.repaired, Skipped{Line: line, Component: comp, Reason: reason, grave: true})
}

// maxLineReports is how many lines the parser lists as skipped, and as
// repaired; the rest are counted in one line each. A report line is
// some 70 bytes for as little as two of the file: a 4 MB body of broken
// lines made a report of 400 MB.
const maxLineReports = 1000

// unlisted counts the report lines past maxLineReports, from the line of
// the first.
type unlisted struct{ n, from int }

func (u *unlisted) count(line int) {
	if u.n == 0 {
		u.from = line
	}
	u.n++
}

// summary is the line the report gets for the lines not listed.
func (u unlisted) summary(what string, grave bool) Skipped {
	return Skipped{Line: u.from, Reason: fmt.Sprintf("%d more lines from here on %s, not listed one by one", u.n, what), grave: grave}
}

// parse reads every VCALENDAR in data (a file may hold several one after
// another) and returns their top-level nodes. It never fails: what cannot be
// read is listed in p.skipped.
func (p *parser) parse(data []byte) []*node {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	return p.lines(func() ([]byte, bool, error) {
		if len(data) == 0 {
			return nil, false, nil
		}
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		return raw, true, nil
	})
}

// parseReader is parse of a stream, read a line at a time: only the
// line being read and the open components are held (with p.emit set, a
// component at a time). An error is one from r.
func (p *parser) parseReader(r io.Reader) ([]*node, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	var long []byte
	var readErr error
	roots := p.lines(func() ([]byte, bool, error) {
		long = long[:0]
		for {
			b, err := br.ReadSlice('\n')
			switch {
			case err == bufio.ErrBufferFull:
				long = append(long, b...)
				continue
			case err == io.EOF:
				if len(long) == 0 && len(b) == 0 {
					return nil, false, nil
				}
			case err != nil:
				readErr = err
				return nil, false, err
			}
			if len(long) > 0 {
				long = append(long, b...)
				b = long
			}
			return bytes.TrimSuffix(b, []byte("\n")), true, nil
		}
	})
	return roots, readErr
}

// lines builds the nodes from the raw lines next gives (without their
// "\n"), until it says there are no more or fails.
func (p *parser) lines(next func() ([]byte, bool, error)) []*node {
	var (
		roots []*node
		stack []*node
		cur   strings.Builder
		start int
		have  bool
	)
	flush := func() {
		if have {
			p.line(cur.String(), start, &stack, &roots)
		}
		cur.Reset()
		have = false
	}
	lineNo := 0
	for {
		raw, ok, err := next()
		if !ok || err != nil {
			break
		}
		lineNo++
		raw = bytes.TrimSuffix(raw, []byte("\r"))
		if len(raw) == 0 {
			continue
		}
		// RFC 5545 §3.1: a line starting with a space or a tab continues the
		// previous one; the single whitespace character is dropped, so a fold
		// may fall anywhere, even between "\" and "n" of an escape.
		if raw[0] == ' ' || raw[0] == '\t' {
			if have {
				cur.Write(raw[1:])
			} else if len(bytes.TrimSpace(raw)) > 0 {
				p.skip(lineNo, "", "a continuation line with no line before it")
			}
			continue
		}
		flush()
		start, have = lineNo, true
		cur.Write(raw)
	}
	flush()
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		p.repairLost(n.line, n.Name, fmt.Sprintf("BEGIN:%s has no END:%s; the file ends first, so it is read up to there", args.Clip(n.Name), args.Clip(n.Name)))
		p.close(&stack, &roots)
	}
	if p.more[0].n > 0 {
		p.skipped = append(p.skipped, p.more[0].summary("could not be read and are skipped", true))
	}
	if p.more[1].n > 0 {
		p.repaired = append(p.repaired, p.more[1].summary("were read in spite of a fault", p.moreLost))
	}
	return roots
}

// topLevel are the components RFC 5545 §3.6 allows only directly in
// VCALENDAR.
var topLevel = map[string]bool{"VEVENT": true, "VTODO": true, "VJOURNAL": true, "VFREEBUSY": true, "VTIMEZONE": true}

// close pops the innermost open component and attaches it to its parent.
func (p *parser) close(stack *[]*node, roots *[]*node) {
	s := *stack
	n := s[len(s)-1]
	*stack = s[:len(s)-1]
	if len(*stack) == 0 {
		if n.Name == ical.CompCalendar {
			*roots = append(*roots, n)
		}
		return
	}
	if len(*stack) == 1 && p.emit != nil && (*stack)[0].Name == ical.CompCalendar {
		p.emit(n)
		return
	}
	parent := (*stack)[len(*stack)-1]
	parent.children = append(parent.children, n)
	parent.Children = append(parent.Children, n.Component)
}

// line handles one logical (unfolded) line.
func (p *parser) line(text string, lineNo int, stack *[]*node, roots *[]*node) {
	if !utf8.ValidString(text) {
		// RFC 5545 §3.1.4: the stream is UTF-8. As a calendar client does,
		// keep the line and show each broken sequence as U+FFFD, saying so.
		text = strings.ToValidUTF8(text, "\uFFFD")
		comp := ""
		if len(*stack) > 0 {
			comp = (*stack)[len(*stack)-1].Name
		}
		p.repair(lineNo, comp, func() string {
			return "bytes that are not UTF-8 are read as “\uFFFD”; write the file as UTF-8 to keep them"
		})
	}
	prop, reason := p.decodeLine(text)
	if reason != "" {
		fixed, ok := repairLine(text)
		if !ok {
			comp := ""
			if len(*stack) > 0 {
				comp = (*stack)[len(*stack)-1].Name
			}
			p.skip(lineNo, comp, reason)
			return
		}
		prop, _ = decodeLine(fixed)
		p.repair(lineNo, "", func() string { return "read " + quote(text) + " as " + quote(fixed) })
	}
	if p.deep > 0 && !endsDeep(prop, *stack) {
		// inside a component nested too deep: only its nesting is followed
		switch prop.Name {
		case "BEGIN":
			p.deep++
		case "END":
			p.deep--
		}
		return
	}
	p.deep = 0
	switch prop.Name {
	case "BEGIN":
		name := strings.ToUpper(strings.TrimSpace(prop.Value))
		if len(*stack) == 0 && name != ical.CompCalendar {
			p.skip(lineNo, name, "a component outside BEGIN:VCALENDAR")
		}
		if topLevel[name] && len(*stack) > 1 && (*stack)[0].Name == ical.CompCalendar {
			// A calendar component is a child of VCALENDAR only (RFC 5545
			// §3.6): one begun inside another means the one before lost
			// its END line. It ends there, so the rest of the file still
			// comes in rather than nesting, unseen, under the broken one.
			for len(*stack) > 1 {
				n := (*stack)[len(*stack)-1]
				p.repairLost(n.line, n.Name, fmt.Sprintf("BEGIN:%s has no END:%s before BEGIN:%s, so it is read as ending there", args.Clip(n.Name), args.Clip(n.Name), args.Clip(name)))
				p.close(stack, roots)
			}
		}
		if len(*stack) >= maxNesting {
			p.skip(lineNo, name, tooDeep)
			p.deep = 1
			return
		}
		n := &node{Component: ical.NewComponent(name), line: lineNo, lines: p.linesRoom()}
		*stack = append(*stack, n)
	case "END":
		name := strings.ToUpper(strings.TrimSpace(prop.Value))
		depth := -1
		for i := len(*stack) - 1; i >= 0; i-- {
			if (*stack)[i].Name == name {
				depth = i
				break
			}
		}
		if depth < 0 {
			p.skip(lineNo, name, "END:"+args.Clip(name)+" closes no open component")
			return
		}
		for len(*stack)-1 > depth {
			n := (*stack)[len(*stack)-1]
			p.repairLost(n.line, n.Name, fmt.Sprintf("BEGIN:%s has no END:%s before END:%s, so it is read as ending there", args.Clip(n.Name), args.Clip(n.Name), args.Clip(name)))
			p.close(stack, roots)
		}
		p.close(stack, roots)
	default:
		if len(*stack) == 0 {
			p.skip(lineNo, "", "a property outside BEGIN:VCALENDAR")
			return
		}
		if p.maxProps > 0 {
			if p.kept >= p.maxProps {
				p.tooMany = true
				return
			}
			p.kept++
		}
		n := (*stack)[len(*stack)-1]
		if have := n.Props[prop.Name]; have != nil {
			n.Props[prop.Name] = append(have, prop)
		} else {
			n.Props[prop.Name] = p.firstProp(prop)
		}
		n.lines = append(n.lines, propAt{prop.Name, lineNo})
	}
}

// maxSharedParams is how many distinct parameter texts a parser keeps
// the Params of (parser.params).
const maxSharedParams = 256

// decodeLine is [decodeLine], with the Params of a parameter text read
// before (";TZID=Europe/Paris", the same on most DTSTART and DTEND lines
// of a file) shared rather than made again: a map for each was a tenth of
// what a 50,000-event import allocated. Decoded Params are only read.
func (p *parser) decodeLine(s string) (ical.Prop, string) {
	name, value, reason := splitLine(s, nil)
	if reason != "" {
		return ical.Prop{}, reason
	}
	prop := ical.Prop{Name: name, Value: value}
	raw := s[nameEnd(s) : len(s)-len(value)-1]
	if raw == "" {
		return prop, ""
	}
	if ps, ok := p.params[raw]; ok {
		prop.Params = ps
		return prop, ""
	}
	splitLine(s, &prop.Params)
	if p.params == nil {
		p.params = make(map[string]ical.Params)
	}
	if len(p.params) < maxSharedParams {
		p.params[raw] = prop.Params
	}
	return prop, ""
}

// decodeLine splits one content line into name, parameters and value
// (RFC 5545 §3.1). It returns a reason when the line breaks the grammar.
// Params is nil for a property without parameters (most are): a large
// import made a map for each of its hundreds of thousands of properties.
func decodeLine(s string) (ical.Prop, string) {
	var prop ical.Prop
	name, value, reason := splitLine(s, &prop.Params)
	if reason != "" {
		return ical.Prop{}, reason
	}
	prop.Name, prop.Value = name, value
	return prop, ""
}

// splitLine is decodeLine giving the name (upper case) and the value,
// and the parameters into *params when params is not nil (nil when
// there are none): the same grammar, the same reasons.
// unquotedEnd is where the unquoted parameter value at the start of s
// ends: the index of its first “;”, “:”, “,” or “"”, or -1. A “;” or “,”
// after a backslash is the value's own: Apple's calendars write them so
// in such a value (X-APPLE-STRUCTURED-LOCATION's X-TITLE, “1-5\; 4041
// Linz”), where RFC 5545 §3.2 would quote the value, and the line is read
// as they mean it rather than as parameters that cannot be. A “:” ends
// the parameters even after a backslash, as RFC 5545 reads it.
func unquotedEnd(s string) int {
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+1 < len(s) && (s[j+1] == ';' || s[j+1] == ',') {
				j++
			}
		case ';', ':', ',', '"':
			return j
		}
	}
	return -1
}

func splitLine(s string, params *ical.Params) (name, value, reason string) {
	i := nameEnd(s)
	if i < 0 {
		return "", "", "no “:” between the property name and its value"
	}
	name = strings.ToUpper(s[:i])
	if r := badName(name); r != "" {
		return "", "", r
	}
	s = s[i:]
	for len(s) > 0 && s[0] == ';' {
		s = s[1:]
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return "", "", "a parameter of " + name + " has no “=”"
		}
		pname := strings.ToUpper(s[:eq])
		if r := badName(pname); r != "" {
			return "", "", "parameter of " + name + ": " + r
		}
		s = s[eq+1:]
		for {
			var v string
			if len(s) > 0 && s[0] == '"' {
				end := strings.IndexByte(s[1:], '"')
				if end < 0 {
					return "", "", "the quoted value of parameter " + pname + " is not closed"
				}
				v, s = s[1:1+end], s[2+end:]
			} else {
				end := unquotedEnd(s)
				if end < 0 {
					return "", "", "parameter " + pname + " runs to the end of the line, so " + name + " has no value"
				}
				if s[end] == '"' {
					return "", "", "a “\"” inside the unquoted value of parameter " + pname
				}
				v, s = s[:end], s[end:]
			}
			if params != nil {
				if *params == nil {
					*params = make(ical.Params, 2)
				}
				(*params)[pname] = append((*params)[pname], v)
			}
			if len(s) == 0 {
				return "", "", "parameter " + pname + " runs to the end of the line, so " + name + " has no value"
			}
			if s[0] != ',' {
				break
			}
			s = s[1:]
		}
		if s[0] != ';' && s[0] != ':' {
			return "", "", "unexpected “" + s[:1] + "” after parameter " + pname
		}
	}
	if len(s) == 0 || s[0] != ':' {
		return "", "", "no “:” between the property name and its value"
	}
	return name, s[1:], ""
}

// nameEnd is the index of the first “;” or “:” in s, -1 when there is
// none: strings.IndexAny, without the set it builds on every call.
func nameEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == ';' || s[i] == ':' {
			return i
		}
	}
	return -1
}

// badName checks an iana-token or x-name (RFC 5545 §3.1): letters, digits
// and "-"; a name starting with "X" must be "X-…".
func badName(name string) string {
	if name == "" {
		return "an empty property name"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return "the name " + quote(name) + " has a character other than letters, digits and “-”"
		}
	}
	if name == "X" {
		return "the name “X” is not a valid extension name (those start with “X-”)"
	}
	return ""
}

// repairLine fixes the one broken shape seen in real exports that can be
// read without guessing: a quoted parameter whose closing quote comes after
// the value, as Exchange 2010 wrote
// DTSTART;TZID="W. Europe Standard Time:20200609T090000".
func repairLine(s string) (string, bool) {
	if !strings.HasSuffix(s, `"`) || strings.Count(s, `"`) != 2 {
		return "", false
	}
	q := strings.IndexByte(s, '"')
	inner := s[q+1 : len(s)-1]
	c := strings.LastIndexByte(inner, ':')
	if c < 0 {
		return "", false
	}
	fixed := s[:q+1] + inner[:c] + `":` + inner[c+1:]
	if _, r := decodeLine(fixed); r != "" {
		return "", false
	}
	return fixed, true
}

// quote puts s in typographic quotes for a sentence, cut to a readable length.
func quote(s string) string { return args.Quote(s) }

// unescapeText decodes a TEXT value (RFC 5545 §3.3.11): "\\", "\;", "\,",
// "\n" and "\N". It is lenient where go-ical's Prop.Text is not: an unknown
// escape keeps its character, a lone trailing backslash is kept, and an
// unescaped comma stays part of the text instead of ending it.
func unescapeText(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n', 'N':
			b.WriteByte('\n')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// splitTextList splits a TEXT list value (CATEGORIES) on unescaped commas and
// unescapes each item.
func splitTextList(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ',':
			out = append(out, unescapeText(s[start:i]))
			start = i + 1
		}
	}
	return append(out, unescapeText(s[start:]))
}
