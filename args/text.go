package args

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns the string argument name, trimmed of white space, with
// Line's invisible format characters dropped; "" when absent or blank.
// Any other JSON type is an error.
func (a *Args) Text(name string) string {
	v, ok := a.get(name)
	if !ok {
		return ""
	}
	if v.kind != kindString {
		a.fail(name, "“"+name+"” must be text (a JSON string), not "+shown(v)+".")
		return ""
	}
	return v.word()
}

// word is a string value as the getters of one word or value read it
// (Text, a moment, a zone, a number, a flag, a choice): on one line by
// [Args.Line]'s rules and trimmed, so an invisible character pasted in
// front of a value that looks right (U+200B) does not make it wrong.
func (v value) word() string { return strings.TrimSpace(cleanLine(v.str())) }

// Needed is Text for an argument that must be present and not blank.
func (a *Args) Needed(name string) string {
	return a.needed(name, a.Text(name))
}

func (a *Args) needed(name, s string) string {
	if s == "" && a.err == nil {
		if a.present(name) {
			a.fail(name, blank(name).Sentence)
		} else {
			a.fail(name, missing(name).Sentence)
		}
	}
	return s
}

// Line returns a one-line text (a title, a place, a subject): every line or
// paragraph separator (LF, CR, CRLF, TAB, VT, FF, NEL, U+2028, U+2029)
// becomes one space, other control characters (Unicode Cc) are dropped, and
// so are the invisible format characters (Unicode Cf: U+200B ZERO WIDTH
// SPACE, U+FEFF, U+2060 WORD JOINER, U+00AD SOFT HYPHEN, the bidi marks,
// embeddings, overrides and isolates of the "Trojan Source" set, …), which
// would make a text that looks the same compare unequal. Kept of Cf: U+200C
// ZWNJ, U+200D ZWJ and the Egyptian hieroglyph format controls when they
// stand between two letters, marks or symbols they join (👩‍💻, Indic and
// Persian words); the tag characters of an emoji tag sequence (the flag of
// Scotland); the visible prepended concatenation marks (U+0600–U+0605 …).
// Then the result is trimmed. "" when absent or nothing is left. Any other
// JSON type is an error.
func (a *Args) Line(name string) string {
	v, ok := a.get(name)
	if !ok {
		return ""
	}
	if v.kind != kindString {
		a.fail(name, "“"+name+"” must be one line of text (a JSON string), not "+shown(v)+".")
		return ""
	}
	return strings.TrimSpace(cleanLine(v.str()))
}

// InvisibleOnly reports whether name is a text that holds characters, none
// of which Line keeps but white space (a zero-width joiner, a bidi mark):
// the getters read it as absent, which a caller for whom absent means
// "everything" may want to refuse instead.
func (a *Args) InvisibleOnly(name string) bool {
	for i := range a.members {
		if m := a.members[i]; m.name == name {
			return m.v.kind == kindString && m.v.blank() && strings.TrimSpace(m.v.str()) != ""
		}
	}
	return false
}

// NeededLine is Line for an argument that must be present and not blank.
func (a *Args) NeededLine(name string) string {
	return a.needed(name, a.Line(name))
}

// isSeparator reports the runes Line turns into a space.
func isSeparator(r rune) bool {
	switch r {
	case '\n', '\r', '\t', '\v', '\f', '\u0085', '\u2028', '\u2029':
		return true
	}
	return false
}

// isBidiControl reports the bidi embeddings, overrides and isolates, which
// can make displayed text read differently from its logical order.
func isBidiControl(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// special reports a rune Line drops, turns into a space, or keeps only
// where it stands (a Cf joiner or tag).
func special(r rune) bool {
	return unicode.IsControl(r) || isSeparator(r) || unicode.Is(unicode.Cf, r)
}

// isJoiner reports the format characters kept between the characters they
// join: ZWNJ, ZWJ and the Egyptian hieroglyph format controls.
func isJoiner(r rune) bool {
	return r == '\u200c' || r == '\u200d' || r >= 0x13430 && r <= 0x1343f
}

// joinable reports a rune a joiner may stand next to: a letter, a mark
// (virama, variation selector), or a symbol (emoji, emoji modifier).
func joinable(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.In(r, unicode.So, unicode.Sk)
}

// isTag reports the tag characters that spell an emoji tag sequence after
// U+1F3F4 (🏴 + "gbsct" + CANCEL TAG is the flag of Scotland).
func isTag(r rune) bool { return r >= 0xe0020 && r <= 0xe007f }

// isPrependedMark reports the prepended concatenation marks, format
// characters that are drawn (the Arabic number sign spans the digits after
// it), so Line keeps them.
func isPrependedMark(r rune) bool {
	switch {
	case r >= '\u0600' && r <= '\u0605', r == '\u06dd', r == '\u070f', r == '\u0890', r == '\u0891',
		r == '\u08e2', r == 0x110bd, r == 0x110cd:
		return true
	}
	return false
}

// CleanLine applies Line's rules, except the trim, to text that did not
// come through Line: a search compares its query with stored titles and
// notes through it, so that text stored before these rules (a title with a
// U+200B inside) is still found by what it looks like.
func CleanLine(s string) string { return cleanLine(s) }

// cleanLine applies Line's rules except the trim. Text without anything to
// change is returned as is, without copying.
func cleanLine(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if special(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	prev, _ := utf8.DecodeLastRuneInString(s[:i]) // the last rune written
	if i == 0 {
		prev = ' '
	}
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\r' && i < len(s) && s[i] == '\n':
			// CRLF is one line break, so one space
			continue
		case isSeparator(r):
			r = ' '
		case unicode.IsControl(r):
			continue
		case !unicode.Is(unicode.Cf, r), isPrependedMark(r):
		case isJoiner(r):
			next, _ := utf8.DecodeRuneInString(s[i:])
			if !joinable(prev) || i == len(s) || !joinable(next) {
				continue
			}
		case isTag(r):
			if prev != 0x1f3f4 && !isTag(prev) {
				continue
			}
		default:
			continue
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// Body returns text kept as written (notes, descriptions): a leading byte
// order mark (U+FEFF, left by a pasted file) is dropped, CRLF and lone CR
// become LF, NEL becomes LF, tabs and line feeds are kept, other control
// characters (Unicode Cc) are dropped, trailing white space is trimmed and
// leading indentation kept; format characters inside (ZWJ, bidi marks) are
// kept as written. "" when absent. Any other JSON type is an error.
func (a *Args) Body(name string) string {
	v, ok := a.get(name)
	if !ok {
		return ""
	}
	if v.kind != kindString {
		a.fail(name, "“"+name+"” must be text (a JSON string), not "+shown(v)+".")
		return ""
	}
	return CleanBody(v.str())
}

// CleanBody applies [Args.Body]'s rules to text that did not come through
// Body (a DESCRIPTION read from an iCalendar file).
func CleanBody(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c == 0xc2 {
			clean = false // 0xc2 leads the C1 controls; checked rune by rune below
			break
		}
	}
	if !clean {
		var b strings.Builder
		b.Grow(len(s))
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch {
			case r == '\r':
				if i < len(s) && s[i] == '\n' {
					i++
				}
				b.WriteByte('\n')
			case r == '\u0085':
				b.WriteByte('\n')
			case r == '\n' || r == '\t':
				b.WriteRune(r)
			case unicode.IsControl(r):
			default:
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	return strings.TrimRightFunc(s, unicode.IsSpace)
}

// Flag returns a yes/no argument: false when absent; a JSON boolean, or the
// text "true" or "false" (trimmed, lower case) as models often write them.
// Anything else is an error.
func (a *Args) Flag(name string) bool {
	v, ok := a.get(name)
	if !ok {
		return false
	}
	switch {
	case v.kind == kindBool:
		return v.text == "true"
	case v.kind == kindString:
		switch v.word() {
		case "true":
			return true
		case "false":
			return false
		}
	}
	a.fail(name, "“"+name+"” must be true or false, not "+shown(v)+".")
	return false
}

// List returns a list of texts: empty when absent; a JSON array of strings,
// or one string alone as a list of one. Each item is one line, cleaned as
// [Args.Line] cleans one (invisible format characters such as U+200B
// dropped, so "\u200bhome" is "home"), then trimmed; blank items are
// dropped. An item of any other JSON type (null too) is an error.
func (a *Args) List(name string) []string {
	v, ok := a.get(name)
	if !ok {
		return nil
	}
	switch v.kind {
	case kindString:
		if s := strings.TrimSpace(cleanLine(v.str())); s != "" {
			return []string{s}
		}
		return nil
	case kindArray:
		var list []string
		bad := false
		items(v.text, func(it value) bool {
			if it.kind != kindString {
				bad = true
				return false
			}
			if s := strings.TrimSpace(cleanLine(it.str())); s != "" {
				if list == nil {
					list = make([]string, 0, 4)
				}
				list = append(list, s)
			}
			return true
		})
		if !bad {
			return list
		}
	}
	a.fail(name, "“"+name+`” must be a list of texts (["home", "errands"]) or one text, not `+shown(v)+".")
	return nil
}

// OneOf returns an argument that must be one of choices: def when absent or
// blank; otherwise the trimmed text, matched exactly or else ignoring ASCII
// case, and returned as spelled in choices. Anything else is an error whose
// sentence lists the choices.
func (a *Args) OneOf(name, def string, choices ...string) string {
	v, ok := a.get(name)
	if !ok {
		return def
	}
	if v.kind == kindString {
		s := v.word()
		if s == "" {
			return def
		}
		for _, c := range choices {
			if s == c {
				return c
			}
		}
		for _, c := range choices {
			if strings.EqualFold(s, c) {
				return c
			}
		}
	}
	a.fail(name, "“"+name+"” must be one of "+orList(choices)+", not "+shown(v)+".")
	return ""
}

// orList joins choices as "a, b or c".
func orList(choices []string) string {
	switch len(choices) {
	case 0:
		return "nothing"
	case 1:
		return choices[0]
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}
