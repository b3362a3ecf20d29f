// Package args reads one tool call's arguments.
//
// An [Args] is made by [New] from the raw JSON arguments of one call,
// checked against the names the tool takes and the names it requires, then
// read one argument at a time with typed getters ([Args.Text],
// [Args.Line], [Args.Number], [Args.List], [Args.Flag], [Args.Moment] …).
// Getters are sticky: the first failure is kept and returned by
// [Args.Err], later getters return zero values, so a handler reads every
// argument and checks Err once (docs/design.md, "Contracts"). Every failure is one
// sentence that names the argument in typographic quotes (“due”), says what
// to write, gives an example where one helps and quotes the rejected value.
//
// A moment (a day, or a day and time, with an optional offset or zone in
// brackets) is read once with [Args.When], or from any text with
// [ParseMoment]: the civil time as written, its zone, its instant and
// whether a DST gap moved it.
//
// Absent means missing, JSON null, or a text that is empty or only white
// space and invisible format characters ("", "\u200b"), for every getter
// and for Has and Names: a model that fills
// every optional argument with "" has given none of them. A required
// argument given as "" is refused with its own sentence.
package args

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/tz"
)

// Error is a failed argument: Name is the argument ("" for the arguments as
// a whole) and Sentence the one sentence for the model.
type Error struct {
	Name     string
	Sentence string
}

// Error returns the sentence.
func (e *Error) Error() string { return e.Sentence }

// member is one argument: its name and its JSON value.
type member struct {
	name string
	v    value
}

// Args holds the decoded arguments of one call. Make it with New; it is not
// safe for concurrent use.
type Args struct {
	members []member
	err     error
	home    tz.Zone // the person's zone, for sentences about zones
	// now is the call's instant, at which relative moments are read
	// (SetNow); zero reads none.
	now time.Time
	// pastClock lets a time alone ("8am") be today's even when it is past
	// (SetPastClock): the bound of a window, not a moment to come.
	pastClock bool
	reads     []Reading // relative moments read, for the answer to echo
	// accepted are the names New was given; strict makes a getter for
	// any other name panic (see Strict).
	accepted []string
	strict   bool
	// room for a typical call's arguments in the same allocation as Args
	room [12]member
}

// New decodes raw (a JSON object, RFC 8259; empty input or null read as {})
// and checks it before any getter: raw must be one object, every name in it
// must be in accepted (else the sentence lists the accepted names), every
// name in required must be present, not null and not blank. Text anywhere in
// a value that is not valid Unicode (invalid UTF-8, a lone surrogate escape
// such as \ud800, RFC 8259 §8.2) is refused naming the argument, never kept
// as U+FFFD; input that ends inside the object (a model's output cut at its
// length limit) gets a sentence asking for the whole object again. A name
// given twice with two values is refused naming both (RFC 8259 §4 leaves
// the meaning open, and encoding/json's last one may not be the one
// meant); twice with the same value counts once. The error is an *Error.
// Numbers are kept as their JSON text (as with encoding/json's UseNumber)
// until a getter reads them.
func New(raw []byte, accepted, required []string) (*Args, error) {
	a := &Args{accepted: accepted}
	a.members = a.room[:0]
	r := reader{s: string(raw)}
	r.space()
	if r.i == len(r.s) {
		if err := a.requireAll(required); err != nil {
			return nil, err
		}
		return a, nil
	}
	unknown, sawUnknown := "", false
	badName, sawBad := "", false
	var twice *Error
	ok := false
	if r.s[r.i] == '{' {
		r.depth = 1
		ok = r.object(func(name string, v value, bad bool) {
			if bad && !sawBad {
				badName, sawBad = name, true
			}
			if !slices.Contains(accepted, name) {
				if !sawUnknown {
					unknown, sawUnknown = name, true
				}
				return
			}
			for i := range a.members {
				if a.members[i].name == name {
					if twice == nil {
						twice = givenTwice(name, a.members[i].v, v)
					}
					return
				}
			}
			a.members = append(a.members, member{name, v})
		})
	} else if strings.HasPrefix(r.s[r.i:], "null") {
		r.i += 4
		ok = true
	}
	r.space()
	if !ok && r.cutOff() {
		return nil, &Error{Sentence: "The arguments are cut off: the JSON object stops before its end, after " +
			quoteTail(r.s) + "; send the whole object again, complete."}
	}
	if !ok || r.i != len(r.s) {
		return nil, &Error{Sentence: "The arguments must be one JSON object of names and values " +
			`({"title": "Call mom"}), not ` + quote(r.s) + "."}
	}
	if sawBad {
		return nil, invalidText(badName, accepted)
	}
	if sawUnknown {
		return nil, unknownName(unknown, accepted)
	}
	if twice != nil {
		return nil, twice
	}
	if err := a.requireAll(required); err != nil {
		return nil, err
	}
	return a, nil
}

// givenTwice is the failure of name given as before and then as v, or nil
// when the two are one value: the same text (once decoded), or the same
// JSON but for the white space between its tokens.
func givenTwice(name string, before, v value) *Error {
	if before.kind == v.kind && (before.str() == v.str() || compactJSON(before.text) == compactJSON(v.text)) {
		return nil
	}
	shown := func(v value) string {
		if v.kind == kindString && before.kind != v.kind {
			return quote(`"` + v.text + `"`) // 1 and "1" told apart
		}
		return quote(v.text)
	}
	return &Error{Name: name, Sentence: "“" + name + "” is given twice, as " + shown(before) +
		" and as " + shown(v) + "; give it once, with the value you mean."}
}

// compactJSON is the JSON text s without the white space between tokens
// (s itself when it is no JSON).
func compactJSON(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}

// CheckNames returns the *Error New gives when the arguments raw, a JSON
// object, give a name twice with two values; nil otherwise, and nil for
// raw that is not a JSON object. It is for a front that decodes arguments
// with encoding/json, which keeps the last value.
func CheckNames(raw []byte) error {
	r := reader{s: string(raw)}
	r.space()
	if r.i == len(r.s) || r.s[r.i] != '{' {
		return nil
	}
	r.depth = 1
	seen := map[string]value{}
	var found *Error
	r.object(func(name string, v value, _ bool) {
		before, ok := seen[name]
		switch {
		case !ok:
			seen[name] = v
		case found == nil:
			found = givenTwice(name, before, v)
		}
	})
	if found == nil {
		return nil
	}
	return found
}

// CheckText returns the *Error New gives when the arguments raw, a JSON
// object, hold text that is not valid Unicode (invalid UTF-8, a lone
// surrogate escape), naming the first argument that does; nil otherwise,
// and nil for raw that is not a JSON object at all. It is for a front that
// decodes arguments with encoding/json, which keeps such text as U+FFFD.
func CheckText(raw []byte) error {
	r := reader{s: string(raw)}
	r.space()
	if r.i == len(r.s) || r.s[r.i] != '{' {
		return nil
	}
	r.depth = 1
	var found *Error
	r.object(func(name string, v value, bad bool) {
		if bad && found == nil {
			found = InvalidText(name)
		}
	})
	if found == nil {
		return nil
	}
	return found
}

// InvalidText is the failure of the argument name when its text is not
// valid Unicode, as [New] gives it; for a front that reads arguments
// itself (command-line name=value pairs). A name that is not valid UTF-8
// itself is not repeated.
func InvalidText(name string) *Error {
	if !utf8.ValidString(name) {
		return invalidText(name, nil)
	}
	return invalidText(name, []string{name})
}

// invalidText is the failure of an argument whose text is not valid Unicode:
// invalid UTF-8, or a lone UTF-16 surrogate escape such as \ud800
// (RFC 8259 §8.2), which would otherwise be kept as U+FFFD.
func invalidText(name string, accepted []string) *Error {
	const what = " is not valid Unicode text (it has broken UTF-8 or a lone surrogate escape such as \\ud800); send it again as valid UTF-8."
	if !slices.Contains(accepted, name) {
		return &Error{Sentence: "An argument" + what}
	}
	return &Error{Name: name, Sentence: "“" + name + "”" + what}
}

func unknownName(name string, accepted []string) *Error {
	if len(accepted) == 0 {
		return &Error{Name: name, Sentence: "“" + name + "” is not one of this tool's arguments; it takes none."}
	}
	return &Error{Name: name, Sentence: "“" + name + "” is not one of this tool's arguments, which are: " +
		strings.Join(accepted, ", ") + "."}
}

func (a *Args) requireAll(required []string) error {
	for _, name := range required {
		if _, ok := a.lookup(name); !ok {
			if a.present(name) {
				return blank(name)
			}
			return missing(name)
		}
	}
	return nil
}

func blank(name string) *Error {
	return &Error{Name: name, Sentence: "“" + name + "” must not be empty or only white space."}
}

func missing(name string) *Error {
	return &Error{Name: name, Sentence: "“" + name + "” is required and was not given."}
}

// lookup returns the value of name when given: present, not null and not
// a blank text.
func (a *Args) lookup(name string) (value, bool) {
	for i := range a.members {
		if a.members[i].name == name {
			v := a.members[i].v
			return v, v.kind != kindNull && !v.blank()
		}
	}
	return value{}, false
}

// present reports whether name is there and not null, blank or not.
func (a *Args) present(name string) bool {
	for i := range a.members {
		if a.members[i].name == name {
			return a.members[i].v.kind != kindNull
		}
	}
	return false
}

// get is lookup for a getter: nothing once a failure is kept. In strict
// mode a name New did not accept panics first, failure or not, so that
// every getter a reading step runs is checked.
func (a *Args) get(name string) (value, bool) {
	if a.strict && !slices.Contains(a.accepted, name) {
		panic(&Undeclared{Name: name})
	}
	if a.err != nil {
		return value{}, false
	}
	return a.lookup(name)
}

// fail keeps the first failure.
func (a *Args) fail(name, sentence string) {
	if a.err == nil {
		a.err = &Error{Name: name, Sentence: sentence}
	}
}

// Undeclared is the panic value of a getter, on an Args made [Args.Strict],
// that asks for a name not among the names New accepted: the code reading
// the arguments and the schema declaring them have drifted apart. It is a
// mistake in the program, never in the call.
type Undeclared struct {
	Name string
}

func (e *Undeclared) Error() string {
	return "args: the argument " + e.Name + " is read but not declared"
}

// Strict makes every later getter (and Has) that asks for a name New was
// not given as accepted panic with an *[Undeclared], whether or not a
// failure is already kept. Without it such a name reads as absent. A tool
// skeleton sets it so that a reader and its schema cannot drift.
func (a *Args) Strict() { a.strict = true }

// SetHome gives the person's zone, which a sentence refusing a time zone
// abbreviation ("CEST") lists first among the zones it stands for when the
// person's zone uses it. Without it the zones come in the database's order.
func (a *Args) SetHome(z tz.Zone) { a.home = z }

// Err returns the first getter failure (an *Error), or nil.
func (a *Args) Err() error { return a.err }

// Has reports whether name is given: present, not null and not a blank
// text (false once a getter has failed).
func (a *Args) Has(name string) bool {
	_, ok := a.get(name)
	return ok
}

// Names returns the names given (present, not null, not a blank text),
// sorted.
func (a *Args) Names() []string {
	var names []string
	for _, m := range a.members {
		if m.v.kind != kindNull && !m.v.blank() {
			names = append(names, m.name)
		}
	}
	slices.Sort(names)
	return names
}

// MaxQuoted is how many characters (runes) of a rejected value a sentence
// repeats; a longer value is cut there, on a rune boundary, and ends in “…”,
// so a hostile megabyte-long value gives a short sentence.
const MaxQuoted = 60

// Quote gives a rejected value for a sentence: in typographic quotes, on
// one line ([Args.Line]'s rules, without the trim), cut to [MaxQuoted]
// runes with “…” when longer. Bytes that are not UTF-8 show as U+FFFD.
// Every sentence that repeats what was written should use it.
func Quote(s string) string { return quote(s) }

// quote is [Quote].
func quote(s string) string { return "“" + Clip(s) + "”" }

// Clip is [Quote] without the quotes: s on one line, cut to [MaxQuoted]
// runes with “…” when longer, for a value a sentence names without
// quoting it (a component name in an import report).
func Clip(s string) string {
	return clip(cleanLine(strings.ToValidUTF8(clip(s, 4*MaxQuoted), "\uFFFD")), MaxQuoted)
}

// quoteTail is [Quote] for the end of s: its last [MaxQuoted] runes, with
// “…” in front when cut.
func quoteTail(s string) string {
	if len(s) > 4*MaxQuoted {
		s = s[len(s)-4*MaxQuoted:]
		for len(s) > 0 && !utf8.RuneStart(s[0]) {
			s = s[1:]
		}
		s = "…" + s
	}
	s = cleanLine(strings.ToValidUTF8(s, "\uFFFD"))
	if n := utf8.RuneCountInString(s); n > MaxQuoted {
		i := 0
		for range n - MaxQuoted {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		s = "…" + strings.TrimPrefix(s[i:], "…")
	}
	return "“" + s + "”"
}

// clip cuts s to its first n runes, on a rune boundary, ending it in “…”
// when it was longer.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// shown is a value as a sentence repeats it: a string's content, any other
// value's JSON text.
func shown(v value) string {
	if v.kind == kindString {
		return quote(v.str())
	}
	return quote(v.text)
}
