package caldav

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/emersion/go-ical"
)

// propFilter is one CALDAV:prop-filter of a calendar-query's component
// filter (RFC 4791 §9.7.2): the property is defined (no child), not
// defined (is-not-defined), or has a value that contains text
// (text-match, §9.7.5; negate-condition turns it round).
type propFilter struct {
	name      string // the property's name, in capitals
	undefined bool   // is-not-defined
	match     bool   // a text-match is given
	text      string // its text
	negate    bool   // negate-condition="yes"
	octet     bool   // collation i;octet: the case counts
	// loose is set for what this server does not read (a time-range or
	// param-filter in a prop-filter): such a filter lets every
	// component pass, so the answer is a superset, never short.
	loose bool
}

// readPropFilters reads the prop-filters directly under comp, the
// comp-filter of the collection's component (VEVENT or VTODO). A
// text-match names a collation of RFC 4790 this server has
// (i;ascii-casemap, the default, or i;octet) or none; another is refused
// with the supported-collation precondition (RFC 4791 §7.5.1).
func readPropFilters(comp *node) ([]propFilter, error) {
	if comp == nil {
		return nil, nil
	}
	var out []propFilter
	for _, c := range comp.children {
		if c.name.Space != nsCalDAV || c.name.Local != "prop-filter" {
			continue
		}
		f := propFilter{name: strings.ToUpper(strings.TrimSpace(c.attr("name")))}
		// Every text-match names a collation this server has, also one
		// of a param-filter, which is not read.
		for _, pf := range append([]*node{c}, c.children...) {
			if pf != c && (pf.name.Space != nsCalDAV || pf.name.Local != "param-filter") {
				continue
			}
			if tm := pf.child(nsCalDAV, "text-match"); tm != nil {
				if err := knownCollation(tm.attr("collation")); err != nil {
					return nil, err
				}
			}
		}
		switch tm := c.child(nsCalDAV, "text-match"); {
		case c.child(nsCalDAV, "is-not-defined") != nil:
			f.undefined = true
		case c.child(nsCalDAV, "time-range") != nil || c.child(nsCalDAV, "param-filter") != nil:
			f.loose = true
		case tm != nil:
			f.match = true
			f.text = tm.text
			f.negate = strings.EqualFold(tm.attr("negate-condition"), "yes")
			f.octet = tm.attr("collation") == "i;octet"
		}
		out = append(out, f)
	}
	return out, nil
}

// matchesProps reports whether the calendar object in body passes fs:
// whether one of its components of kind (the series or one of its
// overrides, RFC 4791 §9.7.1) passes every filter. An object that cannot
// be read passes (the answer stays a superset).
func matchesProps(body []byte, kind string, fs []propFilter) bool {
	if len(fs) == 0 {
		return true
	}
	cal, err := ical.NewDecoder(bytes.NewReader(body)).Decode()
	if err != nil {
		return true
	}
	for _, comp := range cal.Children {
		if comp.Name != kind {
			continue
		}
		all := true
		for _, f := range fs {
			if !f.holds(comp) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// holds reports whether comp passes f (RFC 4791 §9.7.2, §9.7.5): a
// text-match needs the property defined and one of its values to contain
// the text (or, negated, none to).
func (f propFilter) holds(comp *ical.Component) bool {
	props := comp.Props[f.name]
	switch {
	case f.loose:
		return true
	case f.undefined:
		return len(props) == 0
	case !f.match:
		return len(props) > 0
	case len(props) == 0:
		return false
	}
	found := false
	for _, p := range props {
		v, err := p.Text()
		if err != nil {
			v = p.Value
		}
		if f.octet {
			found = found || strings.Contains(v, f.text)
		} else {
			found = found || strings.Contains(asciiLower(v), asciiLower(f.text))
		}
	}
	return found != f.negate
}

// asciiLower is s with A to Z as a to z and every other byte as it is:
// the i;ascii-casemap collation (RFC 4790 §9.2), which folds no other
// letter.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// knownCollation refuses a text-match collation other than
// i;ascii-casemap (the default, also when c is "") and i;octet, the two
// RFC 4791 §7.5.1 requires, with the supported-collation precondition.
func knownCollation(c string) error {
	switch c {
	case "", "i;ascii-casemap", "i;octet":
		return nil
	}
	return &httpError{code: http.StatusForbidden, precondition: "C:supported-collation",
		msg: fmt.Sprintf("The collation “%s” is not one this server has; leave it out, or write i;ascii-casemap or i;octet.", clip(c))}
}
