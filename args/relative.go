package args

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/tz"
)

// The relative moments a person or a model writes, read at the call's now
// ([Args.SetNow]) in the zone the moment is read in (the person's, or the
// zone a tool names such as an event's time_zone). Words are matched
// without regard to case; spaces (any Unicode space) and commas between
// words are free; "at" may stand before a time. docs/time.md ("Relative
// dates and lengths") has the same grammar as tables, tested row by row:
//
//	relative = "now"
//	         | "in" count unit            ; minutes, hours: elapsed time
//	         | "in" length                ; with minutes or hours (1h30m, 1.5 hours): elapsed
//	         | count unit "ago"           ; minutes, hours: elapsed time
//	         | day [ ["at"] clock ]
//	         | clock ["on"] day           ; 9am tomorrow, 14:00 monday
//	         | clock                      ; today, and it must be ahead
//	         | "tonight" [ ["at"] clock ] ; today 20:00 (or an evening clock), ahead
//	         | "midnight"                 ; 00:00 at the start of tomorrow
//	day      = "today" | "tomorrow" | "yesterday"
//	         | weekday | "next" weekday   ; the next such day, never today
//	         | "this" weekday             ; the next such day, today included
//	         | "next week"                ; the Monday of next week (ISO 8601)
//	         | "in" count ("days"|"weeks") | count ("days"|"weeks") "ago" ; a day, as tomorrow
//	clock    = H ["am"|"pm"] | H ":" MM ["am"|"pm"] | "noon" | "eod" | "end of day"
//	count    = 1*6DIGIT | "a" | "an"
//
// A clock without am or pm is a 24-hour H:MM (9:30, 17:30); a bare hour
// needs am or pm (9am), and is refused with a sentence asking for one.
// "eod" and "end of day" are 17:00, noon 12:00. "midnight" with a day is
// refused: the start or the end of that day is for the writer to say.
// length is the grammar of [Args.Minutes].

// Fixed hours of the words that name a time of day, in minutes after
// midnight.
const (
	tonightClock  = 20 * 60 // "tonight"
	endOfDayClock = 17 * 60 // "eod", "end of day": the end of a working day
	noonClock     = 12 * 60
)

// maxRelative is the longest text read as a relative moment, in bytes;
// anything longer is refused as outside the grammar before any word is
// read, so a hostile megabyte costs nothing.
const maxRelative = 64

// relative is one relative moment as read.
type relative struct {
	m       tz.Moment // the day, or the civil day and time, in the zone read in
	instant bool      // m is an instant's reading ("in 2 hours", "now"), with Fold
	note    string    // what a fixed-hour word stands for, for the echo
}

// pastError is a time alone that has already gone by today (pastTime).
type pastError struct {
	clock string      // the clock as written ("9am")
	now   tz.DateTime // now, in the zone
	zone  string      // the zone's name
}

func (e *pastError) Error() string { return "the time is past" }

// relWords splits s into lower-case words: runs of letters, and runs of
// digits with the ':' and '.' inside them ("9:30", "1.5"); spaces and
// commas only separate. ok is false for any other character.
func relWords(s string) (words []string, ok bool) {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == ',' || c == '\t':
			i++
		case c >= utf8.RuneSelf:
			// a space of another kind (no-break, thin, ideographic) is a
			// space too, as a phone's keyboard may type one
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(r) {
				return nil, false
			}
			i += n
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				j++
			}
			words = append(words, strings.ToLower(s[i:j]))
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ':' || s[j] == '.') {
				j++
			}
			words = append(words, s[i:j])
			i = j
		default:
			return nil, false
		}
	}
	return words, len(words) > 0
}

// weekdays are the names a weekday is written with.
var weekdays = map[string]time.Weekday{
	"monday": time.Monday, "mon": time.Monday,
	"tuesday": time.Tuesday, "tue": time.Tuesday, "tues": time.Tuesday,
	"wednesday": time.Wednesday, "wed": time.Wednesday,
	"thursday": time.Thursday, "thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday,
	"friday": time.Friday, "fri": time.Friday,
	"saturday": time.Saturday, "sat": time.Saturday,
	"sunday": time.Sunday, "sun": time.Sunday,
}

// unit is a length a count multiplies.
type unit uint8

const (
	noUnit unit = iota
	minutes
	hours
	days
	weeks
)

// units are the names of the units "in 2 hours" and a duration take.
var units = map[string]unit{
	"m": minutes, "min": minutes, "mins": minutes, "minute": minutes, "minutes": minutes,
	"h": hours, "hr": hours, "hrs": hours, "hour": hours, "hours": hours,
	"d": days, "day": days, "days": days,
	"w": weeks, "wk": weeks, "wks": weeks, "week": weeks, "weeks": weeks,
}

// count reads a count: 1 to 6 digits, or "a"/"an" for one.
func count(w string) (int, bool) {
	if w == "a" || w == "an" {
		return 1, true
	}
	return isoDigits(w)
}

// clockWords reads a clock at the start of words and returns minutes after
// midnight and how many words it took (0 when words do not start with a
// clock). why is badClock for a clock out of range (25:00, 13pm).
func clockWords(words []string) (minute, used int, note string, why problem) {
	if len(words) == 0 {
		return 0, 0, "", fine
	}
	switch words[0] {
	case "noon":
		return noonClock, 1, "", fine
	case "midnight":
		return 0, 1, "midnight is 00:00 at the start of tomorrow", fine
	case "eod":
		return endOfDayClock, 1, "end of day is 17:00", fine
	case "end":
		if len(words) >= 3 && words[1] == "of" && words[2] == "day" {
			return endOfDayClock, 3, "end of day is 17:00", fine
		}
		return 0, 0, "", fine
	}
	w := words[0]
	if w[0] < '0' || w[0] > '9' {
		return 0, 0, "", fine
	}
	hs, ms, colon := strings.Cut(w, ":")
	if len(hs) == 0 || len(hs) > 2 || colon && len(ms) != 2 || strings.Contains(w, ".") {
		return 0, 0, "", badForm
	}
	h, _ := strconv.Atoi(hs)
	m := 0
	if colon {
		m, _ = strconv.Atoi(ms)
	}
	used = 1
	if len(words) > 1 && (words[1] == "am" || words[1] == "pm") {
		if h < 1 || h > 12 || m > 59 {
			return 0, 2, "", badClock
		}
		h %= 12
		if words[1] == "pm" {
			h += 12
		}
		used = 2
	} else if !colon {
		if h > 23 {
			return 0, 0, "", badForm
		}
		return h * 60, 1, "", bareHour // a bare "9": write 9am, 9pm or 09:00
	} else if h > 23 || m > 59 {
		return 0, 1, "", badClock
	}
	return h*60 + m, used, "", fine
}

// dayWords reads a day at the start of words, from today (the day now falls
// on in the zone), and how many words it took (0 when none). "in 3 days"
// and "3 days ago" are days, as "tomorrow" is: a clock may follow.
func dayWords(words []string, today tz.Date) (d tz.Date, used int, note string) {
	next := func(wd time.Weekday) tz.Date {
		n := (int(wd) - int(today.Weekday()) + 7) % 7
		if n == 0 {
			n = 7 // never today: today is "today"
		}
		return today.AddDays(n)
	}
	switch w := words[0]; w {
	case "today":
		return today, 1, ""
	case "tomorrow":
		return today.AddDays(1), 1, ""
	case "yesterday":
		return today.AddDays(-1), 1, ""
	case "this":
		if len(words) >= 2 {
			if wd, ok := weekdays[words[1]]; ok {
				n := (int(wd) - int(today.Weekday()) + 7) % 7
				return today.AddDays(n), 2, "this " + words[1] + " is the coming " + wd.String() + ", today included"
			}
		}
	case "next":
		if len(words) < 2 {
			return d, 0, ""
		}
		if words[1] == "week" {
			// ISO 8601 weeks start on Monday
			back := (int(today.Weekday()) + 6) % 7
			return today.AddDays(7 - back), 2, "next week is its Monday"
		}
		if wd, ok := weekdays[words[1]]; ok {
			return next(wd), 2, "next " + words[1] + " is the coming " + wd.String()
		}
	case "in":
		if len(words) >= 3 {
			n, ok := count(words[1])
			if u := units[words[2]]; ok && (u == days || u == weeks) {
				if u == weeks {
					n *= 7
				}
				return today.AddDays(n), 3, ""
			}
		}
	default:
		if wd, ok := weekdays[w]; ok {
			return next(wd), 1, ""
		}
		if len(words) >= 3 && words[2] == "ago" {
			n, ok := count(w)
			if u := units[words[1]]; ok && (u == days || u == weeks) {
				if u == weeks {
					n *= 7
				}
				return today.AddDays(-n), 3, ""
			}
		}
	}
	return d, 0, ""
}

// parseRelative reads s (trimmed) as a relative moment at now in zone.
// why is badForm when s is not one (the caller then gives its own
// sentence), badClock for a clock out of range, badYear for a day outside
// 0001–9999, pastTime (with a *pastError) for a time alone already past.
//
// Day words count from the person's today (home's date at now; zone's when
// home is the zero Zone), and a clock is read in zone, the zone a plain
// time of the argument is in: for a New York event, "tomorrow 9am" said in
// Paris early on Wednesday is Thursday 09:00 in New York.
func parseRelative(s string, now time.Time, zone, home tz.Zone, pastOK bool) (r relative, why problem, err error) {
	if len(s) > maxRelative {
		return r, badForm, nil
	}
	words, ok := relWords(s)
	if !ok {
		return r, badForm, nil
	}
	nowDT := zone.In(now)
	today := nowDT.Date
	if home != (tz.Zone{}) {
		today = home.In(now).Date
	}
	at := func(t time.Time) (relative, problem, error) {
		dt := zone.In(t)
		if dt.Year < 1 || dt.Year > 9999 {
			return relative{}, badYear, nil
		}
		return relative{m: tz.TimeMoment(dt), instant: true}, fine, nil
	}
	// now; in N minutes|hours; N minutes|hours ago
	if len(words) == 1 && words[0] == "now" {
		return at(now)
	}
	if len(words) == 3 && (words[0] == "in" || words[2] == "ago") {
		w, sign := words[1], 1
		if words[2] == "ago" {
			w, sign = words[0], -1
		}
		u := units[words[2]]
		if sign < 0 {
			u = units[words[1]]
		}
		if n, ok := count(w); ok && (u == minutes || u == hours) {
			d := time.Duration(n) * time.Minute
			if u == hours {
				d = time.Duration(n) * time.Hour
			}
			return at(now.Add(time.Duration(sign) * d))
		}
	}
	// in LENGTH: any length the length reader takes (1h30m, 1.5 hours),
	// elapsed; "in 3 days" and "in a week" stay days, as tomorrow is
	if len(words) >= 3 && words[0] == "in" && hasClockUnit(words[1:]) {
		if n, ok := parseMinutes(strings.Join(words[1:], " ")); ok {
			return at(time.Unix(now.Unix()+int64(n)*60, int64(now.Nanosecond())))
		}
	}
	// tonight [clock]
	if words[0] == "tonight" {
		if len(words) == 1 {
			return todayClock(s, tonightClock, "tonight is 20:00", today, now, zone, pastOK)
		}
		rest := words[1:]
		if rest[0] == "at" {
			rest = rest[1:]
		}
		minute, n, _, why := clockWords(rest)
		if n == 0 || n != len(rest) || why == badClock {
			return r, clockProblem(why), nil
		}
		if why == bareHour {
			if minute < 12*60 {
				minute += 12 * 60 // tonight 9 is 21:00
			}
		} else if minute < 12*60 {
			return r, badForm, nil // tonight 9am
		}
		return todayClock(s, minute, "", today, now, zone, pastOK)
	}
	// midnight: the coming one, at the start of tomorrow
	if len(words) == 1 && words[0] == "midnight" {
		d := today.AddDays(1)
		if d.Year > 9999 {
			return r, badYear, nil
		}
		return relative{m: tz.TimeMoment(d.At(0, 0)), note: "midnight is 00:00 at the start of tomorrow"}, fine, nil
	}
	// day [at] [clock]
	d, used, note := dayWords(words, today)
	if used == 0 {
		// a clock alone: today, ahead of now; or a clock then a day
		minute, n, cnote, why := clockWords(words)
		if n == 0 || why == badClock {
			return r, clockProblem(why), nil
		}
		if words[0] == "midnight" {
			return r, badForm, nil // midnight of which night: refused
		}
		if n == len(words) {
			if why == bareHour {
				return r, bareHour, &bareHourError{hour: minute / 60}
			}
			return todayClock(s, minute, cnote, today, now, zone, pastOK)
		}
		rest := words[n:]
		if rest[0] == "on" {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return r, badForm, nil
		}
		d, used, note = dayWords(rest, today)
		if used == 0 || used != len(rest) {
			return r, badForm, nil
		}
		if why == bareHour {
			return r, bareHour, &bareHourError{hour: minute / 60}
		}
		if d.Year < 1 || d.Year > 9999 {
			return r, badYear, nil
		}
		return relative{m: tz.TimeMoment(d.At(minute/60, minute%60)), note: joinNotes(note, cnote)}, fine, nil
	}
	if d.Year < 1 || d.Year > 9999 {
		return r, badYear, nil
	}
	rest := words[used:]
	if len(rest) == 0 {
		return relative{m: tz.DayMoment(d), note: note}, fine, nil
	}
	if rest[0] == "at" {
		rest = rest[1:]
	}
	minute, n, cnote, why := clockWords(rest)
	if n == 0 || n != len(rest) || why == badClock {
		return r, clockProblem(why), nil
	}
	if rest[0] == "midnight" {
		return r, badForm, nil // the start or the end of that day: refused
	}
	if why == bareHour {
		return r, bareHour, &bareHourError{hour: minute / 60}
	}
	return relative{m: tz.TimeMoment(d.At(minute/60, minute%60)), note: joinNotes(note, cnote)}, fine, nil
}

// hasClockUnit reports whether words name minutes or hours: such a
// length is elapsed time, while "in 3 days" or "in 2 weeks 3 days" is a
// day.
func hasClockUnit(words []string) bool {
	for _, w := range words {
		if u := units[w]; u == minutes || u == hours {
			return true
		}
	}
	return false
}

// clockProblem is why a clock that does not complete the words is
// refused: its own range sentence, or the grammar's.
func clockProblem(why problem) problem {
	if why == badClock {
		return badClock
	}
	return badForm
}

// bareHourError is an hour written without am, pm or minutes ("tomorrow
// 9"), which could be morning or evening (bareHour).
type bareHourError struct{ hour int }

func (e *bareHourError) Error() string { return "the hour has no am or pm" }

// bareHourSentence asks for am or pm, or for minutes after an hour past
// 12 ("14" can only be 14:00).
func bareHourSentence(name string, v string, e *bareHourError) string {
	h := strconv.Itoa(e.hour)
	want := h + "am or " + h + "pm"
	switch {
	case e.hour == 0:
		want = "12am or 00:00"
	case e.hour > 12:
		want = h + ":00"
	}
	return "“" + name + "” " + quote(v) + " has an hour without am or pm; write " + want + "."
}

// todayClock is today (the person's) at minute in zone, which must still
// be ahead of now as an instant unless pastOK. On a day the clocks go back, a clock in
// the repeated hour whose first pass is gone is its second pass when that
// is still ahead.
func todayClock(s string, minute int, note string, today tz.Date, now time.Time, zone tz.Zone, pastOK bool) (relative, problem, error) {
	dt := today.At(minute/60, minute%60)
	if pastOK {
		return relative{m: tz.TimeMoment(dt), note: note}, fine, nil
	}
	now = now.Truncate(time.Minute)
	if first, _ := zone.Instant(dt); !first.After(now) {
		second := dt
		second.Fold = true
		if t, _ := zone.Instant(second); !t.After(now) || t.Equal(first) {
			return relative{}, pastTime, &pastError{clock: strings.Join(strings.Fields(s), " "), now: zone.In(now), zone: zone.Name()}
		}
		dt = second
	}
	return relative{m: tz.TimeMoment(dt), note: note}, fine, nil
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ", " + b
}

// pastSentence is the sentence for a time alone already past today.
func pastSentence(name string, pe *pastError) string {
	again := "tomorrow " + pe.clock
	if pe.clock == "tonight" {
		again = "tomorrow 20:00"
	}
	return "“" + name + "” " + quote(pe.clock) + " is already past today (it is " +
		tz.FormatDateModel(pe.now.Date) + " " + twoDigits(pe.now.Hour) + ":" + twoDigits(pe.now.Minute) + " in " + pe.zone +
		"); write " + again + ", or a day and time such as " + pe.now.Date.AddDays(1).String() + "T09:00."
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// Reading is a relative moment one call read, for the answer to echo
// ([Args.Readings]): Name is the argument, Text what was written
// ("tomorrow 9am"), As the moment it was read as, in the zone it was read
// in ("Wed 2026-12-02 09:00 (+01:00)", or "Wed 2026-12-02" for a day,
// followed by the zone's name when it is not the person's), and Note what
// a fixed word stands for ("tonight is 20:00"), or "".
type Reading struct {
	Name, Text, As, Note string
}

// Sentence is the reading as one line of an answer:
// “Read “tomorrow 9am” (due) as Wed 2026-12-02 09:00 (+01:00).”
func (r Reading) Sentence() string {
	s := "Read " + quote(r.Text) + " (" + r.Name + ") as " + r.As
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s + "."
}

// SetNow gives the call's now, at which relative moments ("tomorrow 9am",
// "in 2 hours") are read; without it (the zero time) they are refused as
// outside the grammar, and sentences do not offer them. The registry sets
// it from the call's clock for every front.
func (a *Args) SetNow(t time.Time) { a.now = t }

// SetPastClock makes a time alone ("8am", "tonight", "eod") read as today
// at that time even when it has gone by, for arguments that bound a window
// ("what is on since 8am"), rather than refusing it as past; a moment
// meant to come (a due, a start) keeps the refusal. Call it before the
// getters.
func (a *Args) SetPastClock() { a.pastClock = true }

// Readings returns the relative moments read so far, in the order read,
// each argument and text once.
func (a *Args) Readings() []Reading { return a.reads }

// relative reads the text s of the argument name as a relative moment in
// zone, when a now is set. handled is false when s is not one (the caller
// gives its own badForm sentence); otherwise why and err say why it was
// refused, or the moment is recorded for the echo and returned.
func (a *Args) relative(name, s string, zone tz.Zone) (m relative, why problem, err error, handled bool) {
	if a.now.IsZero() {
		return m, badForm, nil, false
	}
	r, why, err := parseRelative(s, a.now, zone, a.home, a.pastClock)
	if why == badForm {
		return r, why, nil, false
	}
	if why != fine {
		return r, why, err, true
	}
	as := tz.FormatDateModel(r.m.Date)
	if r.m.HasTime {
		t, _ := zone.Instant(r.m.DateTime)
		as = tz.FormatModel(t, zone)
	}
	if a.home != (tz.Zone{}) && zone.Name() != a.home.Name() {
		as += " " + zone.Name()
	}
	rd := Reading{Name: name, Text: strings.Join(strings.Fields(s), " "), As: as, Note: r.note}
	for _, old := range a.reads {
		if old.Name == rd.Name && old.Text == rd.Text {
			return r, fine, nil, true
		}
	}
	a.reads = append(a.reads, rd)
	return r, fine, nil, true
}
