package args

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// The grammar Moment reads, hand-parsed in one pass (ISO 8601 basic and
// extended forms, RFC 3339, and the RFC 9557 bracketed annotation):
//
//	moment  = date [ sep time [ offset ] ] [ "[" ["!"] annot "]" ]
//	date    = year "-" MM "-" DD | year MM DD
//	year    = 4DIGIT | ("+" | "-") 6DIGIT
//	sep     = "T" | "t" | " "
//	time    = HH [ ":" MM [ ":" SS [ frac ] ] ] | HH [ MM [ SS [ frac ] ] ]
//	frac    = ("." | ",") 1*9DIGIT
//	offset  = "Z" | "z" | ("+" | "-") HH [ [":"] MM ]
//	annot   = IANA zone name | ("+" | "-") HH [ [":"] MM ]
//
// HH is 00–23, MM 00–59, SS 00–60 (a leap second reads as :59). Seconds and
// fractions are cut, never rounded. The year must end up in 0001–9999.

// parsed is one moment as written.
type parsed struct {
	date    tz.Date
	hasTime bool
	hour    int
	minute  int
	// offset (Z or ±HH:MM), written after the time, in seconds east of UTC
	hasOffset bool
	offset    int
	isZ       bool // the offset was Z: the local offset is not known (RFC 9557 §4.3.6)
	critical  bool // the annotation is marked "!": it must not be overridden (RFC 9557 §3.3)
	// the bracketed annotation: an IANA zone, or an offset
	zone          string
	hasZoneOffset bool
	zoneOffset    int
}

// problem is why a moment was refused; each has its own sentence.
type problem uint8

const (
	fine      problem = iota
	badForm           // not the grammar
	noSuchDay         // 2026-02-30, 2026-13-01
	badClock          // 24:00, 09:60
	badYear           // outside 0001–9999, before or after moving
	badZone           // an unknown IANA name in brackets
	badOffset         // an offset the bracketed zone does not have then (RFC 9557 §3.4)
	pastTime          // a time alone ("9am") that has already gone by today
	bareHour          // an hour alone ("9", "tomorrow 9"): am or pm?
)

// momentReader walks one moment's text.
type momentReader struct {
	s string
	i int
}

func (r *momentReader) more() bool { return r.i < len(r.s) }

func (r *momentReader) is(c byte) bool { return r.i < len(r.s) && r.s[r.i] == c }

func (r *momentReader) digit() bool { return r.i < len(r.s) && r.s[r.i] >= '0' && r.s[r.i] <= '9' }

// num reads exactly n digits.
func (r *momentReader) num(n int) (int, bool) {
	if r.i+n > len(r.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(r.s[r.i : r.i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	r.i += n
	return v, true
}

// parseMoment reads s (already trimmed) by the grammar above. zoneErr is
// tz's error when the problem is badZone.
func parseMoment(s string) (p parsed, why problem, zoneErr error) {
	r := momentReader{s: s}
	// date
	var year, month, day int
	var ok bool
	if r.is('+') || r.is('-') {
		neg := r.s[0] == '-'
		r.i++
		if year, ok = r.num(6); !ok {
			return p, badForm, nil
		}
		if neg {
			if year == 0 {
				return p, badForm, nil // -000000 is not a year (ISO 8601)
			}
			year = -year
		}
	} else if year, ok = r.num(4); !ok {
		return p, badForm, nil
	}
	if r.is('-') {
		r.i++
		month, ok = r.num(2)
		if ok && r.is('-') {
			r.i++
			day, ok = r.num(2)
		} else {
			ok = false
		}
	} else {
		month, ok = r.num(2)
		if ok {
			day, ok = r.num(2)
		}
	}
	if !ok || r.digit() {
		return p, badForm, nil
	}
	// time
	if r.is('T') || r.is('t') || r.is(' ') {
		r.i++
		p.hasTime = true
		if p.hour, ok = r.num(2); !ok {
			return p, badForm, nil
		}
		sec := 0
		if r.is(':') {
			r.i++
			if p.minute, ok = r.num(2); !ok {
				return p, badForm, nil
			}
			if r.is(':') {
				r.i++
				if sec, ok = r.num(2); !ok {
					return p, badForm, nil
				}
				if !r.fraction() {
					return p, badForm, nil
				}
			}
		} else if r.digit() {
			if p.minute, ok = r.num(2); !ok {
				return p, badForm, nil
			}
			if r.digit() {
				if sec, ok = r.num(2); !ok {
					return p, badForm, nil
				}
				if !r.fraction() {
					return p, badForm, nil
				}
			}
		}
		if r.digit() {
			return p, badForm, nil
		}
		if r.is('Z') || r.is('z') {
			r.i++
			p.hasOffset, p.isZ = true, true
		} else if r.is('+') || r.is('-') {
			if p.offset, ok = r.offset(); !ok {
				return p, badForm, nil
			}
			p.hasOffset = true
		}
		if p.hour > 23 || p.minute > 59 || sec > 60 {
			return p, badClock, nil
		}
	}
	// annotation
	if r.is('[') {
		r.i++
		if r.is('!') {
			r.i++
			p.critical = true
		}
		end := strings.IndexByte(r.s[r.i:], ']')
		if end < 0 || r.i+end+1 != len(r.s) {
			return p, badForm, nil
		}
		inner := r.s[r.i : r.i+end]
		if inner == "" {
			return p, badForm, nil
		}
		if inner[0] == '+' || inner[0] == '-' {
			ar := momentReader{s: inner}
			if p.zoneOffset, ok = ar.offset(); !ok || ar.more() {
				return p, badForm, nil
			}
			p.hasZoneOffset = true
		} else {
			if !zoneName(inner) {
				return p, badForm, nil
			}
			if abbr, ok := tz.Abbreviation(inner); ok {
				return p, badZone, &tz.ZoneError{Name: inner, Abbreviation: abbr}
			}
			p.zone = inner
		}
		r.i = len(r.s)
	}
	if r.more() {
		return p, badForm, nil
	}
	if year < 1 || year > 9999 {
		return p, badYear, nil
	}
	d, ok := tz.NewDate(year, time.Month(month), day)
	if !ok {
		return p, noSuchDay, nil
	}
	p.date = d
	if p.zone != "" {
		z, err := tz.LoadZone(p.zone)
		if err != nil {
			return p, badZone, err
		}
		if p.hasTime && p.hasOffset && !p.isZ && p.critical {
			// RFC 9557 §3.4: an offset and a zone marked critical that
			// disagree on the instant must be acted on; the time is not
			// guessed. Without "!" the offset wins.
			t := p.date.At(p.hour, p.minute).AsUTC().Add(-time.Duration(p.offset) * time.Second)
			if _, off := t.In(z.Location()).Zone(); off != p.offset {
				return p, badOffset, &offsetError{written: p.offset, has: off, zone: p.zone, civil: p.date.At(p.hour, p.minute)}
			}
		}
	}
	if p.hasTime && p.hasOffset && p.hasZoneOffset && p.critical && !p.isZ && p.offset != p.zoneOffset {
		return p, badOffset, &offsetError{written: p.offset, has: p.zoneOffset, zone: offsetText(p.zoneOffset), civil: p.date.At(p.hour, p.minute)}
	}
	return p, fine, nil
}

// offsetError is an offset that contradicts the bracketed zone (badOffset).
type offsetError struct {
	written, has int // seconds east of UTC
	zone         string
	civil        tz.DateTime
}

func (e *offsetError) Error() string { return "offset and zone disagree" }

// offsetText writes seconds east of UTC as ±HH:MM.
func offsetText(off int) string {
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%c%02d:%02d", sign, off/3600, off/60%60)
}

// fraction reads an optional fraction of a second, which is then cut.
func (r *momentReader) fraction() bool {
	if !r.is('.') && !r.is(',') {
		return true
	}
	r.i++
	n := 0
	for r.digit() {
		r.i++
		n++
	}
	return n >= 1 && n <= 9
}

// offset reads ±HH[[:]MM] and returns seconds east of UTC; -00:00 is UTC
// (RFC 3339 §4.3: the offset is unknown, so the instant is the UTC one).
func (r *momentReader) offset() (int, bool) {
	sign := 1
	if r.s[r.i] == '-' {
		sign = -1
	}
	r.i++
	h, ok := r.num(2)
	if !ok {
		return 0, false
	}
	m := 0
	if r.is(':') {
		r.i++
		if m, ok = r.num(2); !ok {
			return 0, false
		}
	} else if r.digit() {
		if m, ok = r.num(2); !ok {
			return 0, false
		}
	}
	if h > 23 || m > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60), true
}

// zoneName reports text that may be a zone name, worth asking tz about
// (which suggests the closest real name): short, one line, no path tricks.
func zoneName(s string) bool {
	if s == "" || len(s) > 64 || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '[' || c == ']' {
			return false
		}
	}
	return true
}

// zoneSentence is the sentence for an unknown zone name written as the
// argument name (bracketed on a moment when inBrackets), built from tz's
// suggestion so that the rejected name is quoted like every other value.
// A time zone abbreviation is answered with the zones it stands for, home
// (the person's zone) first when it uses it.
func zoneSentence(name, written string, inBrackets bool, err error, home tz.Zone) string {
	lead := "“" + name + "” must be an IANA time zone name"
	if inBrackets {
		lead = "“" + name + "” must name an IANA time zone in its brackets"
	}
	var ze *tz.ZoneError
	if !errors.As(err, &ze) {
		return lead + ": " + sentence(err.Error())
	}
	got := quote(written)
	switch {
	case ze.Abbreviation != "":
		return lead + ", not the abbreviation " + got + "; write the zone of the place, such as " +
			tz.AbbreviationHint(ze.Abbreviation, home) + "."
	case strings.HasPrefix(ze.Suggestion, "Etc/GMT"):
		return lead + " such as Europe/Paris, not " + got + "; for that fixed offset write " +
			ze.Suggestion + " (POSIX inverts the sign)."
	case ze.Suggestion != "":
		return lead + ", not " + got + "; the closest real name is " + ze.Suggestion + "."
	}
	return lead + " such as Europe/Paris or America/New_York, not " + got + "."
}

// resolve turns a parsed moment into the civil moment in zone: an offset
// names an instant (and wins over a bracketed zone), kept by the reading's
// Fold in a repeated hour; a bracketed zone alone
// reads the civil time there (RFC 5545 gap and fold rules, via tz.Instant);
// a plain civil time, or a day, is kept as written.
func (p parsed) resolve(zone tz.Zone) (tz.Moment, problem) {
	if !p.hasTime {
		return tz.DayMoment(p.date), fine
	}
	dt := p.date.At(p.hour, p.minute)
	var t time.Time
	switch {
	case p.hasOffset:
		t = dt.AsUTC().Add(-time.Duration(p.offset) * time.Second)
	case p.hasZoneOffset:
		t = dt.AsUTC().Add(-time.Duration(p.zoneOffset) * time.Second)
	case p.zone != "":
		z, _ := tz.LoadZone(p.zone)
		t, _ = z.Instant(dt)
	default:
		return tz.TimeMoment(dt), fine
	}
	moved := zone.In(t)
	if moved.Year < 1 || moved.Year > 9999 {
		return tz.Moment{}, badYear
	}
	return tz.TimeMoment(moved), fine
}

const (
	dayExample    = "a day (2026-10-05)"
	momentExample = "a day (2026-10-05) or a day with a time (2026-10-05T09:00)"
	// with a now set, the sentences offer the relative words too
	dayWordsExample    = "a day (2026-10-05) or a word such as tomorrow"
	momentWordsExample = "a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am"
)

// examples are the forms a refused moment's sentence offers: with the
// relative words when a now is set.
func (a *Args) examples() (day, moment string) {
	if a.now.IsZero() {
		return dayExample, momentExample
	}
	return dayWordsExample, momentWordsExample
}

// dayHint says what is wrong with the day of text, written YYYY-MM-DD
// (with or without a time after it): ": months run from 01 to 12", or
// ": February 2026 has 28 days"; "" when text is not of that form.
func dayHint(text string) string {
	if len(text) < 10 || text[4] != '-' || text[7] != '-' {
		return ""
	}
	y, errY := strconv.Atoi(text[:4])
	m, errM := strconv.Atoi(text[5:7])
	if errY != nil || errM != nil || y < 1 {
		return ""
	}
	if m < 1 || m > 12 {
		return ": months run from 01 to 12"
	}
	last := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC)
	return fmt.Sprintf(": %s %04d has %d days", time.Month(m), y, last.Day())
}

// momentSentence is the sentence for a refused moment; what describes the
// expected form.
func momentSentence(name, what string, why problem, zoneErr error, v value, home tz.Zone) string {
	switch why {
	case noSuchDay:
		return "“" + name + "” must be a day that exists on the calendar, not " + shown(v) + dayHint(v.str()) + "."
	case badClock:
		return "“" + name + "” must have a time of day from 00:00 to 23:59, not " + shown(v) + "."
	case badYear:
		return "“" + name + "” must fall in the years 0001 to 9999, not " + shown(v) + "."
	case badZone:
		v.text, v.esc = zoneWritten(v.str()), false
		return zoneSentence(name, v.text, true, zoneErr, home)
	case bareHour:
		var be *bareHourError
		if errors.As(zoneErr, &be) {
			return bareHourSentence(name, strings.Join(strings.Fields(v.word()), " "), be)
		}
	case pastTime:
		var pe *pastError
		if errors.As(zoneErr, &pe) {
			return pastSentence(name, pe)
		}
	case badOffset:
		var oe *offsetError
		if errors.As(zoneErr, &oe) && (oe.zone[0] == '+' || oe.zone[0] == '-') {
			return "“" + name + "” has the offset " + offsetText(oe.written) + " and, in brackets, the offset " + oe.zone + "; write one of them."
		}
		if errors.As(zoneErr, &oe) {
			return "“" + name + "” has the offset " + offsetText(oe.written) + ", but " + oe.zone + " is at " + offsetText(oe.has) +
				" then; write " + oe.civil.String() + offsetText(oe.has) + "[" + oe.zone + "], or leave out the offset or the zone."
		}
	}
	return "“" + name + "” must be " + what + ", not " + shown(v) + "."
}

// zoneWritten is the zone name inside a moment's brackets.
func zoneWritten(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i >= 0 {
		s = strings.TrimPrefix(strings.TrimSuffix(s[i+1:], "]"), "!")
	}
	return s
}

// sentence ends tz's error text as a sentence.
func sentence(s string) string {
	if s == "" {
		return "."
	}
	switch s[len(s)-1] {
	case '.', '?', '!':
		return s
	}
	return s + "."
}

// moment reads and resolves one moment value: the grammar above, else a
// relative moment at the call's now ([Args.SetNow]).
func (a *Args) moment(name string, v value, zone tz.Zone) (tz.Moment, bool) {
	_, example := a.examples()
	if v.kind != kindString {
		a.fail(name, momentSentence(name, example, badForm, nil, v, a.home))
		return tz.Moment{}, false
	}
	p, why, zerr := parseMoment(v.word())
	if why == fine {
		var m tz.Moment
		if m, why = p.resolve(zone); why == fine {
			return m, true
		}
	} else if why == badForm {
		if r, rwhy, rerr, ok := a.relative(name, v.word(), zone); ok {
			if rwhy == fine {
				return r.m, true
			}
			why, zerr = rwhy, rerr
		}
	}
	home := a.home
	if home == (tz.Zone{}) {
		home = zone
	}
	a.fail(name, momentSentence(name, example, why, zerr, v, home))
	return tz.Moment{}, false
}

// Moment returns a day or a day with a time, in zone (the person's, or the
// zone a tool names such as an event's time_zone; never the process's TZ),
// and whether it was given. The text follows the grammar above; a time with
// an offset or Z names an instant and is moved into zone (an offset wins
// over a bracketed zone), keeping which of two equal readings it is in the
// repeated hour of a fall-back change (tz.DateTime.Fold), so zone.Instant
// gives back the instant written; a time with only a bracketed zone
// ("2026-10-05T09:00[America/New_York]") is read in that zone, by RFC 5545
// §3.3.5's gap and fold rules, then moved; a plain civil time is kept as
// written, even inside a DST gap. A day stays a day whatever is attached.
// Absent gives (zero, false) without an error.
func (a *Args) Moment(name string, zone tz.Zone) (tz.Moment, bool) {
	v, ok := a.get(name)
	if !ok {
		return tz.Moment{}, false
	}
	return a.moment(name, v, zone)
}

// MomentZone returns the IANA zone written in brackets on the moment
// argument name ("2026-10-05T09:00[America/New_York]" gives
// America/New_York), and whether there was one. A bracketed offset
// ("[+03:00]") is not a zone. A value Moment would refuse is an error here
// too, with the same sentence.
func (a *Args) MomentZone(name string) (tz.Zone, bool) {
	v, ok := a.get(name)
	if !ok {
		return tz.Zone{}, false
	}
	_, example := a.examples()
	if v.kind != kindString {
		a.fail(name, momentSentence(name, example, badForm, nil, v, a.home))
		return tz.Zone{}, false
	}
	p, why, zerr := parseMoment(v.word())
	if why == badForm && !a.now.IsZero() {
		if _, rwhy, _ := parseRelative(v.word(), a.now, a.home, a.home, a.pastClock); rwhy != badForm {
			// relative words name no zone; Moment reads them, or refuses
			return tz.Zone{}, false
		}
	}
	if why != fine {
		a.fail(name, momentSentence(name, example, why, zerr, v, a.home))
		return tz.Zone{}, false
	}
	if p.zone == "" {
		return tz.Zone{}, false
	}
	z, _ := tz.LoadZone(p.zone)
	return z, true
}

// Date returns a civil day and whether it was given: "2026-10-05" or
// "20261005"; a civil date-time gives its day (a bracketed IANA zone may
// follow), but an instant (an offset, Z or a bracketed offset on a time) is
// refused, since its day depends on a zone. Impossible days are refused,
// never rolled into the next month. Absent gives (zero, false).
func (a *Args) Date(name string) (tz.Date, bool) {
	v, ok := a.get(name)
	if !ok {
		return tz.Date{}, false
	}
	example, _ := a.examples()
	if v.kind != kindString {
		a.fail(name, momentSentence(name, example, badForm, nil, v, a.home))
		return tz.Date{}, false
	}
	p, why, zerr := parseMoment(v.word())
	if why == badForm {
		home := a.home
		if home == (tz.Zone{}) {
			home = tz.UTC
		}
		if r, rwhy, rerr, ok := a.relative(name, v.word(), home); ok {
			if rwhy == fine {
				return r.m.Date, true
			}
			why, zerr = rwhy, rerr
		}
	}
	if why == fine && p.hasTime && (p.hasOffset || p.hasZoneOffset) {
		a.fail(name, "“"+name+"” must be a calendar day (2026-10-05), not an instant with an offset or Z such as "+shown(v)+".")
		return tz.Date{}, false
	}
	if why != fine {
		a.fail(name, momentSentence(name, example, why, zerr, v, a.home))
		return tz.Date{}, false
	}
	return p.date, true
}

// Zone returns an IANA time zone argument ("Europe/Paris") and whether it
// was given; absent or blank gives (zero, false). An unknown name is an
// error carrying tz's sentence, which suggests the closest real name; a
// time zone abbreviation ("CEST", "IST", and the legacy names EST, CET, HST
// too) is an error naming the zones it stands for ([tz.AbbreviationHint]),
// the person's zone ([Args.SetHome]) first when it uses it.
func (a *Args) Zone(name string) (tz.Zone, bool) {
	v, ok := a.get(name)
	if !ok {
		return tz.Zone{}, false
	}
	if v.kind != kindString {
		a.fail(name, "“"+name+"” must be an IANA time zone name (Europe/Paris), not "+shown(v)+".")
		return tz.Zone{}, false
	}
	s := v.word()
	if s == "" {
		return tz.Zone{}, false
	}
	if !zoneName(s) {
		// no zone looks like this: no need for tz's suggestion
		a.fail(name, "“"+name+"” must be an IANA time zone name (Europe/Paris), not "+shown(v)+".")
		return tz.Zone{}, false
	}
	if abbr, ok := tz.Abbreviation(s); ok {
		// even one that is also a legacy zone name: EST has no summer time
		a.fail(name, zoneSentence(name, s, false, &tz.ZoneError{Name: s, Abbreviation: abbr}, a.home))
		return tz.Zone{}, false
	}
	z, err := tz.LoadZone(s)
	if err != nil {
		a.fail(name, zoneSentence(name, s, false, err, a.home))
		return tz.Zone{}, false
	}
	return z, true
}

// MomentList returns a list of moments, each read as Moment reads one in
// zone: empty when absent; a JSON array of texts, or one text alone as a
// list of one. Blank items are dropped. The first refused item fails with
// Moment's sentence.
func (a *Args) MomentList(name string, zone tz.Zone) []tz.Moment {
	v, ok := a.get(name)
	if !ok {
		return nil
	}
	if v.kind != kindArray {
		if m, ok := a.moment(name, v, zone); ok {
			return []tz.Moment{m}
		}
		return nil
	}
	var list []tz.Moment
	items(v.text, func(it value) bool {
		if it.blank() {
			return true // a blank item is no item, as for List
		}
		m, ok := a.moment(name, it, zone)
		if ok {
			list = append(list, m)
		}
		return ok
	})
	if a.err != nil {
		return nil
	}
	return list
}

// When is one moment read whole by the grammar above: the civil day or
// day and time as written, the zone it is in, the instant it names, and
// whether a daylight-saving gap moved that instant. [ParseMoment] and
// [Args.When] make it; a tool reads a moment once and takes from it what
// it needs.
type When struct {
	// Moment is the civil day, or day and time, as written, in Zone. A
	// time is kept as written even inside a DST gap of Zone; a time
	// written with an offset, Z or a bracketed offset names an instant
	// and is the reading of Zone's clock at it (with Fold in a repeated
	// hour, so Zone.Instant gives the instant back).
	Moment tz.Moment
	// Zone is the IANA zone Moment is in: the zone written in brackets
	// ("2026-10-05T09:00[America/New_York]"), else the zone the reader
	// was given (a bracketed offset, "[+03:00]", is not a zone).
	Zone tz.Zone
	// Bracketed is true when Zone was written in brackets.
	Bracketed bool
	// At is the instant, in UTC: Zone.Instant(Moment) for a time (RFC
	// 5545 §3.3.5: a time in a gap is moved forward by the gap's length,
	// the first of two readings in a repeated hour unless Fold), 00:00 of
	// the day in Zone for a day (Zone.StartOfDay).
	At time.Time
	// Moved is true when the time as written does not exist in Zone (it
	// falls in a DST gap), so At is later than Moment reads.
	Moved bool
}

// In is the moment as zone z's clock reads it: a day stays the day; a
// time in w's own zone, not bracketed, is Moment as written; any other
// time is the reading of z's clock at At. For a When read in z, it is what
// [Args.Moment] gives for z.
func (w When) In(z tz.Zone) tz.Moment {
	if !w.Moment.HasTime || !w.Bracketed && w.Zone.Name() == z.Name() {
		return w.Moment
	}
	return tz.TimeMoment(z.In(w.At))
}

// ParseMoment reads s, the text of the argument name, by the moment
// grammar above, in zone (the person's, or a zone the tool names; never
// the process's TZ) unless s names its own zone in brackets; see [When] for
// what it gives. Surrounding white space is ignored. A refused text is an
// *[Error] naming name with the sentence [Args.Moment] gives, zone first
// among the zones a refused abbreviation stands for.
func ParseMoment(name, s string, zone tz.Zone) (When, error) {
	v := value{kind: kindString, text: s}
	w, why, zerr := readWhen(v, zone)
	if why != fine {
		return When{}, &Error{Name: name, Sentence: momentSentence(name, momentExample, why, zerr, v, zone)}
	}
	return w, nil
}

// When reads the moment argument name once, as [ParseMoment] reads it,
// and whether it was given; a refused value is a failure kept on a, with
// the sentence [Args.Moment] gives. Absent gives (zero, false) without an
// error.
func (a *Args) When(name string, zone tz.Zone) (When, bool) {
	v, ok := a.get(name)
	if !ok {
		return When{}, false
	}
	home := a.home
	if home == (tz.Zone{}) {
		home = zone
	}
	_, example := a.examples()
	if v.kind != kindString {
		a.fail(name, momentSentence(name, example, badForm, nil, v, home))
		return When{}, false
	}
	w, why, zerr := readWhen(v, zone)
	if why == badForm {
		if r, rwhy, rerr, ok := a.relative(name, v.word(), zone); ok {
			if rwhy == fine {
				return relativeWhen(r, zone), true
			}
			why, zerr = rwhy, rerr
		}
	}
	if why != fine {
		a.fail(name, momentSentence(name, example, why, zerr, v, home))
		return When{}, false
	}
	return w, true
}

// relativeWhen is the [When] of a relative moment read in zone.
func relativeWhen(r relative, zone tz.Zone) When {
	w := When{Moment: r.m, Zone: zone}
	if !r.m.HasTime {
		w.At = zone.StartOfDay(r.m.Date).UTC()
		return w
	}
	at, moved := zone.Instant(r.m.DateTime)
	w.At, w.Moved = at.UTC(), moved
	return w
}

// readWhen parses and resolves one string value for [When].
func readWhen(v value, zone tz.Zone) (When, problem, error) {
	p, why, zerr := parseMoment(v.word())
	if why != fine {
		return When{}, why, zerr
	}
	w := When{Zone: zone}
	if p.zone != "" {
		w.Zone, _ = tz.LoadZone(p.zone) // parseMoment loaded it already
		w.Bracketed = true
	}
	switch {
	case !p.hasTime:
		w.Moment = tz.DayMoment(p.date)
		w.At = w.Zone.StartOfDay(p.date).UTC()
		return w, fine, nil
	case !p.hasOffset && !p.hasZoneOffset:
		w.Moment = tz.TimeMoment(p.date.At(p.hour, p.minute)) // as written, even in a gap
	default:
		if w.Moment, why = p.resolve(w.Zone); why != fine {
			return When{}, why, nil
		}
	}
	at, moved := w.Zone.Instant(w.Moment.DateTime)
	w.At, w.Moved = at.UTC(), moved
	return w, fine, nil
}
