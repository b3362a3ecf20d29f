package tasks

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// Bounds on what a task holds, in characters (Unicode code points). A value
// over a bound is refused with a sentence, never cut.
const (
	MaxTitle = task.MaxTitle
	MaxNotes = task.MaxNotes
	MaxTag   = task.MaxTag
	MaxTags  = task.MaxTags
	MaxKey   = task.MaxKey
)

var taskID = regexp.MustCompile(`^[tT]?([0-9]{1,18})$`)

// readTaskID is the read step of the tools that take only “id”.
func readTaskID(a *args.Args, _ *tools.Env) int64 { return readID(a) }

// readID reads “id”, a task id as answers quote it ("t12"; "12" also).
func readID(a *args.Args) int64 {
	s := a.NeededLine("id")
	if a.Err() != nil {
		return 0
	}
	m := taskID.FindStringSubmatch(s)
	var id int64
	if m != nil {
		id, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if id <= 0 {
		a.Fail("id", fmt.Sprintf("“id” must be a task id as answers show it, such as “t12”, not %s.", args.Quote(s)))
		return 0
	}
	return id
}

func tooLong(a *args.Args, name, what string, s string, most int) {
	tools.TooLong(a, name, what, s, most)
}

// readTitle reads “title” as one line; needed is true for add_task.
func readTitle(a *args.Args, needed bool) (string, bool) {
	var s string
	if needed {
		s = a.NeededLine("title")
	} else {
		s = a.Line("title")
	}
	tooLong(a, "title", tools.TitleWhat, s, MaxTitle)
	return s, s != ""
}

func readNotes(a *args.Args) (string, bool) {
	s := a.Body("notes")
	tooLong(a, "notes", tools.NotesWhat, s, MaxNotes)
	return s, s != ""
}

// readDue reads a due once ([args.Args.When]): a day (floating), or a
// day and time pinned to the zone written in brackets on it, else the
// person's zone, kept as written even in a DST gap (the answer says it
// was moved).
func readDue(a *args.Args, person tz.Zone) (task.Due, bool) {
	w, ok := a.When("due", person)
	if !ok || a.Err() != nil {
		return task.Due{}, false
	}
	if !w.Moment.HasTime {
		return task.Day(w.Moment.Date), true
	}
	d := task.Due{Moment: w.Moment, Zone: w.Zone, At: w.At, Moved: w.Moved}
	if !w.Zone.Holds(d.At) {
		// Kept civil text and RFC 5545 DATE-TIMEs have four-digit years.
		a.Fail("due", fmt.Sprintf("“due” %s falls outside the years 0001 to 9999 in UTC, the span the calendar holds; write a due between 0001-01-02 and 9999-12-30.", d.Moment))
		return task.Due{}, false
	}
	return d, true
}

// readTags reads a list of tags named name: a leading "#" is dropped, a tag
// is one word (no spaces or commas) of at most MaxTag characters, and
// repeats (ignoring case) are kept once.
func readTags(a *args.Args, name string) []string {
	var out []string
	for _, raw := range a.List(name) {
		tag := strings.TrimSpace(strings.TrimLeft(raw, "#"))
		switch {
		case tag == "":
			a.Fail(name, fmt.Sprintf("“%s” holds %s, which is no tag; write tags as words such as “home”.", name, args.Quote(raw)))
			return nil
		case strings.IndexFunc(tag, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == '#' }) >= 0:
			a.Fail(name, fmt.Sprintf("Each tag in “%s” is one word without spaces, commas or “#” inside, such as “errands” or “deep-work”; not %s. Give several tags as a list.", name, args.Quote(raw)))
			return nil
		case utf8.RuneCountInString(tag) > MaxTag:
			a.Fail(name, fmt.Sprintf("Each tag in “%s” may be at most %d characters; %s has %d. Write a shorter tag, such as “errands”.", name, MaxTag, args.Quote(tag), utf8.RuneCountInString(tag)))
			return nil
		}
		// No call can be right with this many distinct tags: stop, so a
		// list of 100,000 is not read with a scan of all kept so far for
		// each (checkTagCount counts a shorter one).
		if out = task.AddTag(out, tag); len(out) > maxTagList {
			a.Fail(name, fmt.Sprintf("A task may have at most %d tags; “%s” names more than %d. Use fewer tags.", MaxTags, name, maxTagList))
			return nil
		}
	}
	return out
}

// maxTagList is the most distinct tags one list is read to, far past
// [MaxTags], so checkTagCount can say how many it would give.
const maxTagList = 1000

func checkTagCount(a *args.Args, name string, tags []string) {
	if len(tags) > MaxTags {
		a.Fail(name, fmt.Sprintf("A task may have at most %d tags; “%s” would give it %d. Use fewer tags.", MaxTags, name, len(tags)))
	}
}

// readRule reads “rrule”, an RFC 5545 RRULE value ("RRULE:" optional).
func readRule(a *args.Args) (*recur.Rule, bool) {
	s := a.Line("rrule")
	if s == "" || a.Err() != nil {
		return nil, false
	}
	r, err := recur.ParseRule(s)
	if err != nil {
		failRule(a, err, fmt.Sprintf("“rrule” must be an RFC 5545 rule such as “FREQ=WEEKLY;BYDAY=MO”, not %s.", args.Quote(s)))
		return nil, false
	}
	return r, true
}

func readRepeatFrom(a *args.Args) (string, bool) {
	s := a.OneOf("repeat_from", "", "schedule", "completion")
	return s, s != ""
}

func readPriority(a *args.Args) (int, bool) {
	if !a.Has("priority") {
		return 0, false
	}
	p := a.Number("priority", 4, 1, 4)
	return p, a.Err() == nil
}

// checkRepeat checks a rule against the due it repeats from and the way it
// repeats, once both are known.
func checkRepeat(a *args.Args, rule *recur.Rule, repeatFrom string, d task.Due, hasDue bool, person tz.Zone) {
	if a.Err() != nil || rule == nil {
		return
	}
	if !hasDue {
		a.Fail("rrule", "A repeating task needs a “due”, the first time it is due; give “due” with “rrule”, such as 2026-10-05 or 2026-10-05T09:00.")
		return
	}
	if !d.HasTime && (rule.Freq() == recur.Hourly || rule.Freq() == recur.Minutely) {
		a.Fail("rrule", fmt.Sprintf("“rrule” repeats %s, but a task due on a day with no time can repeat at most daily; give “due” a time (such as %sT09:00) or use FREQ=DAILY.",
			rule.Freq(), d.Date))
		return
	}
	s := recur.Series{Start: d.Moment, Zone: d.SeriesZone(person), Rule: rule}
	err := s.Check()
	if err == nil {
		err = s.CheckOccurs()
	}
	if err != nil {
		failRule(a, err, err.Error())
		return
	}
	if repeatFrom == task.FromCompletion && !task.PlainRule(rule) {
		a.Fail("rrule", fmt.Sprintf("With “repeat_from” completion, “rrule” must be a plain rule (FREQ with INTERVAL, COUNT or UNTIL) such as “FREQ=DAILY;INTERVAL=3”, not %s, whose BY parts only a schedule can follow.", args.Quote(rule.String())))
	}
}

// readReminders reads remind_before and remind_at in zone, saying which of
// the two were given.
func readReminders(a *args.Args, zone tz.Zone) (r item.Reminders, before, at bool) {
	before, at = a.Has("remind_before"), a.Has("remind_at")
	r = tools.ReadReminders(a, zone)
	return r, before && len(r.Before) > 0, at && len(r.At) > 0
}

// failRule refuses a rule recur did not take: the sentence of a
// [recur.Error] under the argument it names (its “start” is the task's
// “due”), else other under “rrule”.
func failRule(a *args.Args, err error, other string) {
	var re *recur.Error
	switch {
	case errors.As(err, &re) && re.Name == "start":
		a.Fail("due", strings.Replace(re.Sentence, "“start”", "“due”", 1))
	case errors.As(err, &re):
		a.Fail("rrule", re.Sentence)
	default:
		a.Fail("rrule", other)
	}
}
