// Package args reads one tool call's arguments (design §2, "Args").
//
// An Args is made from the raw JSON arguments of one call, checked against
// the names the tool takes and the names it requires, then read one
// argument at a time with typed getters. Getters are sticky: the first
// failure is kept and returned by Err, later getters return zero values, so
// a handler reads every argument and checks Err once. Every failure is one
// sentence that names the argument in typographic quotes (“due”), says what
// to write, gives an example where one helps and quotes the rejected value.
//
// Absent means missing or JSON null, for every getter.
package args

import (
	"slices"
	"strings"
	"unicode/utf8"
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
	// room for a typical call's arguments in the same allocation as Args
	room [12]member
}

// New decodes raw (a JSON object, RFC 8259; empty input or null read as {})
// and checks it before any getter: raw must be one object, every name in it
// must be in accepted (else the sentence lists the accepted names), every
// name in required must be present and not null. When a name appears twice
// the last value counts, as in encoding/json. The error is an *Error.
// Numbers are kept as their JSON text (as with encoding/json's UseNumber)
// until a getter reads them.
func New(raw []byte, accepted, required []string) (*Args, error) {
	a := &Args{}
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
	ok := false
	if r.s[r.i] == '{' {
		r.depth = 1
		ok = r.object(func(name string, v value) {
			if !slices.Contains(accepted, name) {
				if !sawUnknown {
					unknown, sawUnknown = name, true
				}
				return
			}
			for i := range a.members {
				if a.members[i].name == name {
					a.members[i].v = v
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
	if !ok || r.i != len(r.s) {
		return nil, &Error{Sentence: "The arguments must be one JSON object of names and values " +
			`({"title": "Call mom"}), not ` + quote(r.s) + "."}
	}
	if sawUnknown {
		return nil, unknownName(unknown, accepted)
	}
	if err := a.requireAll(required); err != nil {
		return nil, err
	}
	return a, nil
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
			return missing(name)
		}
	}
	return nil
}

func missing(name string) *Error {
	return &Error{Name: name, Sentence: "“" + name + "” is required and was not given."}
}

// lookup returns the value of name when present and not null.
func (a *Args) lookup(name string) (value, bool) {
	for i := range a.members {
		if a.members[i].name == name {
			v := a.members[i].v
			return v, v.kind != kindNull
		}
	}
	return value{}, false
}

// get is lookup for a getter: nothing once a failure is kept.
func (a *Args) get(name string) (value, bool) {
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

// Err returns the first getter failure (an *Error), or nil.
func (a *Args) Err() error { return a.err }

// Has reports whether name is present and not null (false once a getter
// has failed).
func (a *Args) Has(name string) bool {
	_, ok := a.get(name)
	return ok
}

// Names returns the names present and not null, sorted.
func (a *Args) Names() []string {
	var names []string
	for _, m := range a.members {
		if m.v.kind != kindNull {
			names = append(names, m.name)
		}
	}
	slices.Sort(names)
	return names
}

// maxQuoted is how many runes of a rejected value a sentence repeats.
const maxQuoted = 40

// quote gives a rejected value for a sentence: in typographic quotes, on one
// line, cut on a rune boundary with … when long.
func quote(s string) string {
	s = cleanLine(s)
	if utf8.RuneCountInString(s) > maxQuoted {
		n := 0
		for i := range s {
			if n == maxQuoted {
				s = s[:i] + "…"
				break
			}
			n++
		}
	}
	return "“" + s + "”"
}

// shown is a value as a sentence repeats it: a string's content, any other
// value's JSON text.
func shown(v value) string {
	if v.kind == kindString {
		return quote(v.str())
	}
	return quote(v.text)
}
