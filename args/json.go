package args

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A hand-written JSON reader (RFC 8259) instead of encoding/json: a call's
// arguments are read once, top level only, and every value stays a slice of
// one copy of the input until a getter asks for it. Decoding into
// map[string]any costs several allocations per argument; this costs one for
// the whole call. What it accepts and rejects as JSON matches encoding/json
// (a differential fuzz test holds it to that); unlike encoding/json, which
// turns them into U+FFFD, it reports text that is not valid Unicode (invalid
// UTF-8, a lone surrogate escape such as \ud800) so that New can refuse it.

// kind is the JSON type of a value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// maxDepth bounds nesting as encoding/json does, so a hostile input cannot
// exhaust the stack.
const maxDepth = 10000

// value is one JSON value inside the input. For a string, text is the
// content between the quotes, still escaped when esc is set (escapes or
// invalid UTF-8); for anything else it is the value's raw JSON text.
type value struct {
	kind kind
	esc  bool
	text string
}

// str returns the decoded content of a string value.
func (v value) str() string {
	if !v.esc {
		return v.text
	}
	return unescape(v.text)
}

// blank reports a string value that is empty or only white space and
// invisible format characters (U+200B).
func (v value) blank() bool {
	if v.kind != kindString {
		return false
	}
	for i := 0; i < len(v.text); i++ {
		switch c := v.text[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '\\' || c >= utf8.RuneSelf:
			return v.word() == "" // escapes, wider spaces, invisible characters
		default:
			return false
		}
	}
	return true
}

// reader walks JSON text; i is the next byte to read. bad is set when a
// string holds invalid UTF-8 or a lone surrogate escape (RFC 8259 §8.2).
type reader struct {
	s     string
	i     int
	depth int
	bad   bool
}

func (r *reader) space() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// value reads one value after optional white space; ok is false when the
// text is not valid JSON there.
func (r *reader) value() (v value, ok bool) {
	r.space()
	if r.i >= len(r.s) {
		return v, false
	}
	start := r.i
	switch c := r.s[r.i]; {
	case c == '"':
		text, esc, ok := r.str()
		return value{kind: kindString, esc: esc, text: text}, ok
	case c == '{' || c == '[':
		if !r.container() {
			return v, false
		}
		k := kindObject
		if c == '[' {
			k = kindArray
		}
		return value{kind: k, text: r.s[start:r.i]}, true
	case c == 't':
		return value{kind: kindBool, text: "true"}, r.word("true")
	case c == 'f':
		return value{kind: kindBool, text: "false"}, r.word("false")
	case c == 'n':
		return value{kind: kindNull, text: "null"}, r.word("null")
	case c == '-' || c >= '0' && c <= '9':
		if !r.number() {
			return v, false
		}
		return value{kind: kindNumber, text: r.s[start:r.i]}, true
	}
	return v, false
}

func (r *reader) word(w string) bool {
	if !strings.HasPrefix(r.s[r.i:], w) {
		return false
	}
	r.i += len(w)
	return true
}

// number reads RFC 8259 §6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func (r *reader) number() bool {
	if r.s[r.i] == '-' {
		r.i++
	}
	if r.i >= len(r.s) {
		return false
	}
	if r.s[r.i] == '0' {
		r.i++
	} else if !r.digits() {
		return false
	}
	if r.i < len(r.s) && r.s[r.i] == '.' {
		r.i++
		if !r.digits() {
			return false
		}
	}
	if r.i < len(r.s) && (r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.i++
		if r.i < len(r.s) && (r.s[r.i] == '+' || r.s[r.i] == '-') {
			r.i++
		}
		if !r.digits() {
			return false
		}
	}
	return true
}

// digits reads one or more ASCII digits.
func (r *reader) digits() bool {
	start := r.i
	for r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' {
		r.i++
	}
	return r.i > start
}

// str reads a string starting at its opening quote and returns its content
// between the quotes; esc reports content that needs unescape.
func (r *reader) str() (text string, esc, ok bool) {
	r.i++
	start := r.i
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case c == '"':
			text = r.s[start:r.i]
			r.i++
			return text, esc, true
		case c == '\\':
			esc = true
			r.i++
			if r.i >= len(r.s) {
				return "", false, false
			}
			switch r.s[r.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				r.i++
			case 'u':
				if r.i+5 > len(r.s) {
					r.i = len(r.s) // cut off inside the escape
					return "", false, false
				}
				if !isHex4(r.s[r.i+1 : r.i+5]) {
					return "", false, false
				}
				r1 := hex4(r.s[r.i+1 : r.i+5])
				r.i += 5
				if utf16.IsSurrogate(r1) {
					// a high surrogate must be followed by a low one
					if r1 < 0xdc00 && r.i+6 <= len(r.s) && r.s[r.i] == '\\' && r.s[r.i+1] == 'u' &&
						isHex4(r.s[r.i+2:r.i+6]) && utf16.DecodeRune(r1, hex4(r.s[r.i+2:r.i+6])) != utf8.RuneError {
						r.i += 6
					} else {
						r.bad = true
					}
				}
			default:
				return "", false, false
			}
		case c < 0x20:
			return "", false, false
		case c < utf8.RuneSelf:
			r.i++
		default:
			ru, size := utf8.DecodeRuneInString(r.s[r.i:])
			if ru == utf8.RuneError && size == 1 {
				esc, r.bad = true, true
			}
			r.i += size
		}
	}
	return "", false, false
}

// cutOff reports, after a failed read, that the text ended inside a value:
// everything read so far was valid JSON and more was needed, as when a
// model's output is cut at its length limit.
func (r *reader) cutOff() bool {
	if r.i >= len(r.s) {
		return true
	}
	rest := r.s[r.i:]
	for _, w := range []string{"true", "false", "null"} {
		if len(rest) < len(w) && strings.HasPrefix(w, rest) {
			return true
		}
	}
	return false
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// container reads an object or an array starting at its opening bracket.
func (r *reader) container() bool {
	r.depth++
	if r.depth > maxDepth {
		return false
	}
	defer func() { r.depth-- }()
	if r.s[r.i] == '{' {
		return r.object(nil)
	}
	r.i++
	r.space()
	if r.i < len(r.s) && r.s[r.i] == ']' {
		r.i++
		return true
	}
	for {
		if _, ok := r.value(); !ok {
			return false
		}
		r.space()
		if r.i >= len(r.s) {
			return false
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case ']':
			r.i++
			return true
		default:
			return false
		}
	}
}

// object reads an object starting at its opening brace, calling member (if
// not nil) with each name, decoded, and value in order; bad reports that the
// name or the value (at any depth) holds text that is not valid Unicode.
func (r *reader) object(member func(name string, v value, bad bool)) bool {
	r.i++
	r.space()
	if r.i < len(r.s) && r.s[r.i] == '}' {
		r.i++
		return true
	}
	for {
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != '"' {
			return false
		}
		wasBad := r.bad
		r.bad = false
		name, esc, ok := r.str()
		if !ok {
			return false
		}
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != ':' {
			return false
		}
		r.i++
		v, ok := r.value()
		if !ok {
			return false
		}
		if member != nil {
			if esc {
				name = unescape(name)
			}
			member(name, v, r.bad)
		}
		r.bad = r.bad || wasBad
		r.space()
		if r.i >= len(r.s) {
			return false
		}
		switch r.s[r.i] {
		case ',':
			r.i++
		case '}':
			r.i++
			return true
		default:
			return false
		}
	}
}

// items calls each with every element of a valid JSON array's raw text, in
// order, stopping when each returns false.
func items(array string, each func(v value) bool) {
	r := reader{s: array, i: 1}
	r.space()
	if r.i < len(r.s) && r.s[r.i] == ']' {
		return
	}
	for {
		v, ok := r.value()
		if !ok || !each(v) {
			return
		}
		r.space()
		if r.i >= len(r.s) || r.s[r.i] != ',' {
			return
		}
		r.i++
	}
}

// unescape decodes the content of a string the reader accepted. Invalid
// UTF-8 and lone surrogates become U+FFFD, as in encoding/json (New refuses
// arguments that hold them; nested values and quoted text may still).
func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			i++
			switch s[i] {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r1 := hex4(s[i+1 : i+5])
				i += 4
				if utf16.IsSurrogate(r1) {
					if len(s) >= i+7 && s[i+1] == '\\' && s[i+2] == 'u' && isHex4(s[i+3:i+7]) {
						r2 := hex4(s[i+3 : i+7])
						if dec := utf16.DecodeRune(r1, r2); dec != utf8.RuneError {
							b.WriteRune(dec)
							i += 6
							break
						}
					}
					r1 = utf8.RuneError
				}
				b.WriteRune(r1)
			default: // " \ /
				b.WriteByte(s[i])
			}
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r) // RuneError for an invalid byte, as encoding/json
			i += size
		}
	}
	return b.String()
}

func hex4(s string) rune {
	n, _ := strconv.ParseUint(s, 16, 32)
	return rune(n)
}
