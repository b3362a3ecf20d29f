package ics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// The real-world files and their facts live in the shared test data
// (ASSISTANT_TESTDATA/ics); they are read from there, never copied.

func testdataICS(t testing.TB) string {
	t.Helper()
	root := os.Getenv("ASSISTANT_TESTDATA")
	if root == "" {
		t.Skip("ASSISTANT_TESTDATA is unset; set it to the shared test data folder (with ics/) to run the real-world iCalendar tests")
	}
	return filepath.Join(root, "ics")
}

// personZone is the zone floating times are read in for these tests; the
// facts about floating times compare wall clocks, so any zone would do.
var personZone = tz.MustZone("Europe/Paris")

type expectFile struct {
	LineEndings    string            `json:"line_endings"`
	EndsWithNL     *bool             `json:"ends_with_newline"`
	Counts         map[string]int    `json:"counts"`
	CalendarProps  map[string]any    `json:"calendar"`
	Facts          []expectFact      `json:"facts"`
	Occurrences    []json.RawMessage `json:"occurrences"`
	Alarms         []expectAlarm     `json:"alarms"`
	AlarmsChecked  string            `json:"alarms_checked_with"`
	UnsureComments []string          `json:"unsure"`
}

type expectFact struct {
	Fact   string          `json:"fact"`
	Expect json.RawMessage `json:"expect"`
	Sure   bool            `json:"sure"`
}

type expectAlarm struct {
	On       string            `json:"on"`
	Trigger  string            `json:"trigger"`
	FiresAt  string            `json:"fires_at"`
	Examples map[string]string `json:"examples"`
	Sure     *bool             `json:"sure"`
}

type expectOcc struct {
	UID                 string            `json:"uid"`
	Summary             string            `json:"summary"`
	FirstThree          []json.RawMessage `json:"first_three"`
	FirstThreeRRule     []string          `json:"first_three_rrule_instances"`
	FirstThreeByStart   []string          `json:"first_three_by_start"`
	InstancesUTC        []string          `json:"instances_utc"`
	Instances           []map[string]any  `json:"instances"`
	Excluded            []string          `json:"excluded_examples"`
	Absent              []string          `json:"absent"`
	Total               int               `json:"total"`
	VisibleTotal        int               `json:"visible_total"`
	Last                json.RawMessage   `json:"last"`
	LastSure            *bool             `json:"last_sure"`
	Sure                bool              `json:"sure"`
	AfterDSTEnd         string            `json:"after_dst_end"`
	SecondInstanceDueAt string            `json:"second_instance_due"`
}

// tally counts what the table checks against what it only reads.
type tally struct{ checked, read int }

func TestExpectations(t *testing.T) {
	dir := testdataICS(t)
	raw, err := os.ReadFile(filepath.Join(dir, "expectations.json"))
	if err != nil {
		t.Fatalf("reading expectations.json: %v", err)
	}
	var exp struct {
		Files map[string]expectFile `json:"files"`
	}
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatalf("expectations.json: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.ics"))
	if len(files) == 0 {
		t.Fatalf("no .ics files in %s", dir)
	}
	var total tally
	names := make([]string, 0, len(exp.Files))
	for n := range exp.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, f := range files {
		if _, ok := exp.Files[filepath.Base(f)]; !ok {
			t.Errorf("%s has no entry in expectations.json", filepath.Base(f))
		}
	}
	for _, name := range names {
		ef := exp.Files[name]
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			cal := DecodeBytes(data, DecodeOptions{Zone: personZone})
			fileZones = nil
			for _, z := range cal.Zones {
				fileZones = append(fileZones, z.Zone)
			}
			c := &checker{t: t, cal: cal, data: data}
			c.file(ef)
			for _, f := range ef.Facts {
				c.fact(f)
			}
			for _, o := range ef.Occurrences {
				c.occurrence(o)
			}
			for _, a := range ef.Alarms {
				c.alarm(a)
			}
			c.read += len(ef.UnsureComments)
			t.Logf("%s: %d checked, %d only read", name, c.checked, c.read)
			total.checked += c.checked
			total.read += c.read
		})
	}
	t.Logf("expectations: %d assertions checked, %d facts only read (free text, sure:false, or nothing the model keeps)", total.checked, total.read)
	if total.checked < 150 {
		t.Errorf("only %d facts were checked; the classifier lost track of expectations.json", total.checked)
	}
}

type checker struct {
	t    *testing.T
	cal  *Calendar
	data []byte
	tally
}

func (c *checker) ok(cond bool, format string, args ...any) {
	c.t.Helper()
	c.checked++
	if !cond {
		c.t.Errorf(format, args...)
	}
}

func (c *checker) file(ef expectFile) {
	crlf := bytes.Contains(c.data, []byte("\r\n"))
	switch ef.LineEndings {
	case "CRLF":
		c.ok(crlf, "line endings: want CRLF")
	case "LF":
		c.ok(!crlf, "line endings: want LF")
	}
	if ef.EndsWithNL != nil {
		c.ok(bytes.HasSuffix(c.data, []byte("\n")) == *ef.EndsWithNL, "ends_with_newline: want %v", *ef.EndsWithNL)
	}
	for k, want := range ef.Counts {
		c.ok(c.cal.Counts[k] == want, "count of %s: got %d, want %d", k, c.cal.Counts[k], want)
	}
	for k, v := range ef.CalendarProps {
		got, has := c.cal.Props[k]
		switch want := v.(type) {
		case nil:
			c.ok(!has, "calendar %s: want absent, got %q", k, got)
		case string:
			if i := strings.Index(want, " ("); i > 0 && got != want {
				want = want[:i] // an annotation in brackets
			}
			c.ok(got == want, "calendar %s: got %q, want %q", k, got, want)
		}
	}
}

// when is one time written in expectations.json: a date, a UTC instant,
// an instant with its offset in the item's zone, or a floating wall clock.
// fileZones are the zones the file being checked uses.
var fileZones []tz.Zone

type when struct {
	kind   byte // 'd' date, 'z' UTC, 'o' offset, 'f' floating
	date   tz.Date
	civil  tz.DateTime
	at     time.Time
	offset string
	zones  []tz.Zone // other zones whose offset may be shown
}

var whenRE = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2})?)?`)

func parseWhen(s string) (when, bool) {
	s = strings.TrimSpace(s)
	m := whenRE.FindStringSubmatch(s)
	if m == nil {
		return when{}, false
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	d, _ := strconv.Atoi(m[3])
	date, ok := tz.NewDate(y, time.Month(mo), d)
	if !ok {
		return when{}, false
	}
	if m[4] == "" {
		return when{kind: 'd', date: date}, true
	}
	h, _ := strconv.Atoi(m[4])
	mi, _ := strconv.Atoi(m[5])
	w := when{civil: date.At(h, mi), date: date, zones: fileZones}
	switch {
	case m[7] == "Z":
		w.kind, w.at = 'z', time.Date(y, time.Month(mo), d, h, mi, 0, 0, time.UTC)
	case m[7] != "":
		w.kind, w.offset = 'o', m[7]
		at, err := time.Parse("2006-01-02T15:04:05Z07:00", fmt.Sprintf("%s-%s-%sT%s:%s:00%s", m[1], m[2], m[3], m[4], m[5], m[7]))
		if err != nil {
			return when{}, false
		}
		w.at = at
	default:
		w.kind = 'f'
	}
	return w, true
}

// match reports whether instant at (a day, when allDay) read in z is w.
func (w when) match(at time.Time, z tz.Zone, allDay bool, day tz.Date) bool {
	switch w.kind {
	case 'd':
		if allDay {
			return day == w.date
		}
		return z.Today(at) == w.date
	case 'z':
		return at.Equal(w.at)
	case 'o':
		if !at.Equal(w.at) {
			return false
		}
		if tz.FormatOffset(at, z) == w.offset {
			return true
		}
		// An RDATE written in another zone is shown with that zone's
		// offset; the model keeps it in the series' zone.
		for _, other := range w.zones {
			if tz.FormatOffset(at, other) == w.offset {
				return true
			}
		}
		return false
	default:
		return z.In(at) == w.civil
	}
}

func startOf(e *Event) time.Time {
	t, _ := e.Zone.MomentInstant(e.Start)
	return t
}

func endOf(e *Event) time.Time {
	if e.AllDay {
		return e.Zone.StartOfDay(e.End.Date.AddDays(1))
	}
	t, _ := e.Zone.MomentInstant(e.End)
	return t
}

var doubleQuoted = regexp.MustCompile(`^"([^"]+)"`)

var quotedName = regexp.MustCompile(`'((?:[^'\\]|\\.|'s )+)'`)

// named returns the events a fact is about: those whose summary is the
// quoted name in the fact ("'Form 3' (TZID …)"), the first or second event
// when the fact says so, else all.
func (c *checker) named(fact string) []*Event {
	var out []*Event
	m := quotedName.FindStringSubmatch(fact)
	if strings.HasPrefix(fact, `"`) {
		m = doubleQuoted.FindStringSubmatch(fact)
	}
	if m != nil {
		name := strings.ReplaceAll(m[1], `\'`, "'")
		for i := range c.cal.Events {
			if strings.TrimSpace(c.cal.Events[i].Summary) == strings.TrimSpace(name) {
				out = append(out, &c.cal.Events[i])
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	switch {
	case strings.HasPrefix(fact, "first event") && len(c.cal.Events) > 0:
		return []*Event{&c.cal.Events[0]}
	case strings.HasPrefix(fact, "second event") && len(c.cal.Events) > 1:
		return []*Event{&c.cal.Events[1]}
	case strings.HasPrefix(fact, "event 1") && len(c.cal.Events) > 0:
		return []*Event{&c.cal.Events[0]}
	case strings.HasPrefix(fact, "event 2") && len(c.cal.Events) > 1:
		return []*Event{&c.cal.Events[1]}
	case strings.HasPrefix(fact, "master"):
		for i := range c.cal.Events {
			if c.cal.Events[i].RecurrenceID == nil {
				out = append(out, &c.cal.Events[i])
			}
		}
		return out
	}
	for i := range c.cal.Events {
		out = append(out, &c.cal.Events[i])
	}
	return out
}

func (c *checker) task(name string) *Task {
	for i := range c.cal.Tasks {
		if strings.TrimSpace(c.cal.Tasks[i].Summary) == name {
			return &c.cal.Tasks[i]
		}
	}
	return nil
}

// fact classifies one fact by its wording and the shape of its expectation
// and checks what the model keeps; the rest is counted as read.
func (c *checker) fact(f expectFact) {
	c.t.Helper()
	var v any
	_ = json.Unmarshal(f.Expect, &v)
	lower := strings.ToLower(f.Fact)
	readOnly := []string{"attendee", "x-", "partstat", "physical line", "continuation", "dtstamp", "sequence", "transp",
		"vtimezone tzids", "is referenced by nothing", "not referenced", "has tzoffsetfrom", "define transitions",
		"python3-icalendar 4.0.3 returns", "comes after the vevent", "pre-2007", "central european rules", "altrep",
		"is written with escaped commas", "fixed +07:00", "tzids are windows display names", "no vevent has a uid",
		"no valarm has an action", "no priority anywhere", "all dtstart/due of todos are floating", "statuses",
		"version and prodid", "sits between", "all 96 vevents", "no vtimezone (", "dtstart has tzid", "every dtstart value",
		"durations:", "uses duration", "using duration", "the 11 rrule masters", "only one of the five", "folded in the middle",
		"is a backward-compatibility", "leading space", "all 36 events", "continuation starts with two spaces, one is content)\"",
		"is an unknown property", "rrule until is a utc date-time on a date-valued", "has a malformed line", "dates that also carry tzid",
		"must not appear on", "are outlook globalobjectids", "each matches a master instance", "placed before and after",
		"comes from two uids", "override 'an updated event'", "an empty unknown", "second vtimezone has no tzid",
		"some vtimezone rrules", "has dtstart:-", "has a date until", "a property named just", "is cancelled with rrule",
		"repeats every saturday", "no instance remains", "at least 6 folds", "full history"}
	if !f.Sure {
		c.read++
		return
	}
	for _, r := range readOnly {
		if strings.Contains(lower, r) {
			c.factReadOnly(f, lower, v)
			return
		}
	}
	switch want := v.(type) {
	case []any:
		c.factList(f, lower, want)
	case string:
		c.factString(f, lower, want)
	case float64:
		c.factNumber(f, lower, int(want))
	case map[string]any:
		c.factMap(f, lower, want)
	default:
		c.read++
	}
}

// factReadOnly still checks the read-only facts whose answer the model
// keeps in another form.
func (c *checker) factReadOnly(f expectFact, lower string, v any) {
	switch {
	case strings.Contains(lower, "no instance remains"):
		evs := c.named("master")
		if len(evs) == 0 {
			c.ok(false, "%s: no master", f.Fact)
			return
		}
		from := personZone.StartOfDay(tz.Date{Year: 2026, Month: 2, Day: 26})
		ins := c.cal.Instances(evs[0].UID, from, from.Add(24*time.Hour))
		found := false
		for _, in := range ins {
			if in.Event.AllDay && !in.Event.Start.Date.After(tz.Date{Year: 2026, Month: 2, Day: 26}) && !in.Event.End.Date.Before(tz.Date{Year: 2026, Month: 2, Day: 26}) {
				found = true
			}
		}
		c.ok(!found, "%s: an instance remains on 2026-02-26: %+v", f.Fact, ins)
	case strings.Contains(lower, "placed before and after"):
		uid := "frs5bom08phjhek3rfseulju04@google.com"
		ins := c.cal.Instances(uid, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2038, 12, 31, 0, 0, 0, 0, time.UTC))
		years := map[int]int{}
		for _, in := range ins {
			if d := in.Event.Zone.Today(in.Start); d.Month == 1 && d.Day == 1 {
				years[d.Year]++
			}
		}
		good := true
		for y := 2002; y <= 2037; y++ {
			if years[y] != 1 {
				good = false
			}
		}
		c.ok(good, "%s: New Year instances by year: %v", f.Fact, years)
	case strings.Contains(lower, "comes from two uids"):
		ins := c.allInstances(time.Date(2002, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2012, 1, 1, 0, 0, 0, 0, time.UTC))
		per := map[int]int{}
		for _, in := range ins {
			if in.Event.Summary == "Christmas" {
				per[in.Event.Zone.Today(in.Start).Year]++
			}
		}
		good := true
		for y := 2002; y <= 2011; y++ {
			if per[y] != 1 {
				good = false
			}
		}
		c.ok(good, "%s: Christmas by year %v", f.Fact, per)
	case strings.Contains(lower, "no vevent has a uid"):
		uids := map[string]bool{}
		for _, e := range c.cal.Events {
			uids[e.UID] = true
		}
		c.ok(len(uids) == len(c.cal.Events) && len(c.cal.Events) == 4, "%s: the four events must keep four distinct made-up UIDs, got %d", f.Fact, len(uids))
	case strings.Contains(lower, "leading space"):
		want, _ := v.([]any)
		for _, w := range want {
			s, _ := w.(string)
			found := false
			for _, e := range c.cal.Events {
				found = found || e.Summary == s
			}
			c.ok(found, "%s: no SUMMARY %q", f.Fact, s)
		}
	case strings.Contains(lower, "has dtstart:-"):
		tk := c.task("Buy Pete's Birthday Gift")
		c.ok(tk != nil && !tk.HasDue && !tk.HasStart && len(c.cal.Events)+len(c.cal.Tasks) == 10, "%s: want the task kept without its broken dates, and all 10 items", f.Fact)
		c.ok(c.skippedAt("DUE") && c.skippedAt("DTSTART"), "%s: the broken DUE and DTSTART must be listed as skipped", f.Fact)
	case strings.Contains(lower, "a property named just"):
		c.ok(c.skippedAt("“X”"), "%s: the X property must be listed as skipped", f.Fact)
	case strings.Contains(lower, "second vtimezone has no tzid"):
		c.ok(c.skippedAt("VTIMEZONE without TZID") && len(c.cal.Events) == 3, "%s", f.Fact)
	case strings.Contains(lower, "an empty unknown"):
		c.ok(c.skippedAt("X-UNKNOWN"), "%s", f.Fact)
	case strings.Contains(lower, "has a malformed line"):
		c.ok(len(c.cal.Events) == 4, "%s: got %d events", f.Fact, len(c.cal.Events))
	case strings.Contains(lower, "is cancelled with rrule"):
		evs := c.named(f.Fact)
		c.ok(len(evs) == 1 && evs[0].Status == "CANCELLED" && len(evs[0].Series().All(5)) == 1, "%s", f.Fact)
	case strings.Contains(lower, "repeats every saturday"):
		evs := c.named(f.Fact)
		if c.okOne(f, evs) {
			c.firstN(f.Fact, evs[0], v.([]any))
		}
	case strings.Contains(lower, "no priority anywhere"):
		all := true
		for _, tk := range c.cal.Tasks {
			all = all && tk.Priority == 4
		}
		c.ok(all, "%s: every task should have priority 4 (none)", f.Fact)
	case strings.Contains(lower, "all dtstart/due of todos are floating"):
		all := true
		for _, tk := range c.cal.Tasks {
			all = all && (!tk.HasDue && !tk.HasStart || tk.Floating)
		}
		c.ok(all, "%s", f.Fact)
	case strings.Contains(lower, "zones actually referenced"):
	default:
		c.read++
	}
}

func (c *checker) skippedAt(sub string) bool {
	for _, s := range c.cal.Skipped {
		if strings.Contains(s.Reason, sub) || s.Component == sub {
			return true
		}
	}
	return false
}

func (c *checker) okOne(f expectFact, evs []*Event) bool {
	c.t.Helper()
	if len(evs) == 0 {
		c.ok(false, "%s: no such event", f.Fact)
		return false
	}
	return true
}

func (c *checker) allInstances(from, to time.Time) []Instance {
	seen := map[string]bool{}
	var out []Instance
	for _, e := range c.cal.Events {
		if !seen[e.UID] {
			seen[e.UID] = true
			out = append(out, c.cal.Instances(e.UID, from, to)...)
		}
	}
	return out
}

// firstN checks the first occurrences of e's series against want.
func (c *checker) firstN(label string, e *Event, want []any) {
	c.t.Helper()
	start := startOf(e)
	ins := c.cal.Instances(e.UID, start.AddDate(0, 0, -1), start.AddDate(40, 0, 0))
	for i, w := range want {
		s, _ := w.(string)
		wh, ok := parseWhen(s)
		if !ok {
			continue // "...", prose
		}
		if i >= len(ins) {
			c.ok(false, "%s: instance %d missing, want %s", label, i, s)
			continue
		}
		c.ok(wh.match(ins[i].Start, ins[i].Event.Zone, false, tz.Date{}), "%s: instance %d starts %s (%s), want %s", label, i, tz.RFC3339(ins[i].Start, ins[i].Event.Zone), ins[i].Event.Start, s)
	}
}

func (c *checker) factList(f expectFact, lower string, want []any) {
	c.t.Helper()
	evs := c.named(f.Fact)
	switch {
	case strings.Contains(lower, "instances dated in calendar year 2006"):
		ins := c.allInstances(personZone.StartOfDay(tz.Date{Year: 2006, Month: 1, Day: 1}), personZone.StartOfDay(tz.Date{Year: 2007, Month: 1, Day: 1}))
		var got []string
		for _, in := range ins {
			got = append(got, in.Event.Zone.Today(in.Start).String()+" "+in.Event.Summary)
		}
		var w []string
		for _, x := range want {
			p := x.([]any)
			w = append(w, p[0].(string)+" "+p[1].(string))
		}
		sort.Strings(got)
		c.ok(strings.Join(got, "|") == strings.Join(w, "|"), "%s:\n got %v\nwant %v", f.Fact, got, w)
	case strings.Contains(lower, "events: summary, start, end, status"):
		for _, x := range want {
			p := x.([]any)
			es := c.named("'" + p[0].(string) + "'")
			if !c.okOne(f, es) {
				continue
			}
			e := es[0]
			ws, _ := parseWhen(p[1].(string))
			we, _ := parseWhen(p[2].(string))
			st, _ := p[3].(string)
			c.ok(ws.match(startOf(e), e.Zone, false, e.Start.Date) && we.match(endOf(e), e.Zone, false, e.End.Date) && e.Status == st,
				"%s: %q is %s–%s %q", f.Fact, e.Summary, tz.RFC3339(startOf(e), e.Zone), tz.RFC3339(endOf(e), e.Zone), e.Status)
		}
	case strings.Contains(lower, "completed todos"):
		for _, x := range want {
			p := x.([]any)
			tk := c.task(p[0].(string))
			w, _ := parseWhen(p[1].(string))
			c.ok(tk != nil && tk.Done && w.match(tk.Completed, personZone, false, tz.Date{}), "%s: %v", f.Fact, p)
		}
	case len(want) == 2:
		a, okA := parseWhen(fmt.Sprint(want[0]))
		b, okB := parseWhen(fmt.Sprint(want[1]))
		if !okA || !okB {
			c.read++
			return
		}
		found := false
		var seen []string
		for _, e := range evs {
			if a.match(startOf(e), e.Zone, e.AllDay, e.Start.Date) && b.match(endOf(e), e.Zone, e.AllDay, e.End.Date) {
				found = true
			}
			seen = append(seen, tz.RFC3339(startOf(e), e.Zone)+"/"+tz.RFC3339(endOf(e), e.Zone))
		}
		c.ok(found, "%s: want %v–%v among %v", f.Fact, want[0], want[1], seen)
	default:
		c.read++
	}
}

func (c *checker) factString(f expectFact, lower, want string) {
	c.t.Helper()
	evs := c.named(f.Fact)
	field := func(e *Event) string {
		switch {
		case strings.Contains(lower, "description"):
			return e.Description
		case strings.Contains(lower, "location"):
			return e.Location
		case strings.Contains(lower, "uid"):
			return e.UID
		default:
			return e.Summary
		}
	}
	if w, ok := parseWhen(want); ok {
		// A moment: an item starting then (a task's due when the fact
		// names a DUE).
		if strings.Contains(f.Fact, "DUE") {
			tk := c.task(quotedName.FindStringSubmatch(f.Fact)[1])
			c.ok(tk != nil && tk.HasDue && w.match(mustInstant(tk.Zone, tk.Due), tk.Zone, !tk.Due.HasTime, tk.Due.Date), "%s: %+v", f.Fact, tk)
			return
		}
		if strings.Contains(lower, "recurrence-id") && w.kind == 'd' {
			found := false
			for _, e := range c.cal.Events {
				found = found || (e.RecurrenceID != nil && e.RecurrenceID.Date == w.date)
			}
			c.ok(found, "%s: no override for %s", f.Fact, want)
			return
		}
		if strings.Contains(lower, "dtstart == dtend") {
			c.ok(c.okOne(f, evs) && evs[0].Start == evs[0].End && w.match(startOf(evs[0]), evs[0].Zone, false, tz.Date{}), "%s", f.Fact)
			return
		}
		found := false
		for _, e := range evs {
			found = found || w.match(startOf(e), e.Zone, e.AllDay, e.Start.Date)
		}
		c.ok(found, "%s: no event starts %s", f.Fact, want)
		return
	}
	switch {
	case strings.Contains(lower, "rrule"):
		rule := strings.Fields(want)[0]
		found := false
		for _, e := range evs {
			found = found || (e.Rule != nil && e.Rule.String() == recur.MustRule(rule).String())
		}
		c.ok(found, "%s: no event has RRULE %s", f.Fact, rule)
	case strings.Contains(lower, "todo description"):
		found := false
		for _, tk := range c.cal.Tasks {
			found = found || tk.Description == want
		}
		c.ok(found, "%s: no task has DESCRIPTION %q", f.Fact, want)
	case strings.Contains(lower, "contains"):
		found := false
		for _, e := range evs {
			found = found || strings.Contains(field(e), want)
		}
		c.ok(found, "%s: no event contains %q", f.Fact, want)
	case strings.Contains(lower, "summary") || strings.Contains(lower, "description") || strings.Contains(lower, "location") || strings.Contains(lower, "uid"):
		found := false
		var seen []string
		for _, e := range evs {
			found = found || field(e) == want
			seen = append(seen, field(e))
		}
		c.ok(found, "%s: want %q, have %q", f.Fact, want, seen)
	default:
		c.read++
	}
}

func mustInstant(z tz.Zone, m tz.Moment) time.Time {
	t, _ := z.MomentInstant(m)
	return t
}

func (c *checker) factNumber(f expectFact, lower string, want int) {
	c.t.Helper()
	got := -1
	switch {
	case strings.Contains(lower, "distinct uids"):
		u := map[string]bool{}
		for _, e := range c.cal.Events {
			u[e.UID] = true
		}
		got = len(u)
	case strings.Contains(lower, "with recurrence-id"):
		got = 0
		for _, e := range c.cal.Events {
			if e.RecurrenceID != nil {
				got++
			}
		}
	case strings.Contains(lower, "events with rrule"):
		got = 0
		for _, e := range c.cal.Events {
			if e.Rule != nil {
				got++
			}
		}
	case strings.Contains(lower, "recurring vtodos"):
		got = 0
		for _, tk := range c.cal.Tasks {
			if tk.Rule != nil {
				got++
			}
		}
	case strings.Contains(lower, "empty summary"):
		got = 0
		for _, e := range c.cal.Events {
			if e.Summary == "" {
				got++
			}
		}
	case strings.Contains(lower, "one-off 'easter'"):
		got = 0
		for _, e := range c.cal.Events {
			if e.Summary == "Easter" && e.Rule == nil {
				got++
			}
		}
	default:
		c.read++
		return
	}
	c.ok(got == want, "%s: got %d, want %d", f.Fact, got, want)
}

func (c *checker) factMap(f expectFact, lower string, want map[string]any) {
	c.t.Helper()
	evs := c.named(f.Fact)
	switch {
	case want["end_exclusive"] != nil || want["last_day"] != nil:
		first, _ := parseWhen(fmt.Sprint(want["start"]))
		if want["first_day"] != nil {
			first, _ = parseWhen(fmt.Sprint(want["first_day"]))
		}
		var last tz.Date
		if s, ok := want["end_exclusive"].(string); ok {
			w, _ := parseWhen(s)
			last = w.date.AddDays(-1)
		} else {
			w, _ := parseWhen(fmt.Sprint(want["last_day"]))
			last = w.date
		}
		found := false
		for _, e := range evs {
			found = found || (e.AllDay && e.Start.Date == first.date && e.End.Date == last)
		}
		c.ok(found, "%s: no all-day event %s to %s", f.Fact, first.date, last)
	case strings.Contains(lower, "masters with rrule"):
		u := map[string]bool{}
		masters, single := 0, 0
		for _, e := range c.cal.Events {
			if e.RecurrenceID == nil && !u[e.UID] {
				u[e.UID] = true
				if e.Rule != nil {
					masters++
				} else {
					single++
				}
			}
		}
		c.ok(masters == int(want["rrule_masters"].(float64)) && single == int(want["single"].(float64)), "%s: %d masters, %d single", f.Fact, masters, single)
	case strings.Contains(lower, "dtstart kinds"):
		got := map[string]int{}
		for _, e := range c.cal.Events {
			switch {
			case e.AllDay:
				got["all-day date"]++
			case e.Floating:
				got["floating"]++
			case e.Zone.Name() == "UTC":
				got["UTC"]++
			}
		}
		for k, v := range want {
			c.ok(got[k] == int(v.(float64)), "%s: %s got %d want %v", f.Fact, k, got[k], v)
		}
	case strings.Contains(lower, "zones actually referenced"):
		for k, v := range want {
			c.ok(c.cal.Zones[k].Zone.Name() == v, "%s: %s read as %s (%s), want %v", f.Fact, k, c.cal.Zones[k].Zone.Name(), c.cal.Zones[k].How, v)
		}
	case strings.Contains(lower, "vtodo status values"):
		got := map[string]int{}
		for _, tk := range c.cal.Tasks {
			got[tk.Status]++
		}
		for k, v := range want {
			c.ok(got[k] == int(v.(float64)), "%s: %s got %d want %v", f.Fact, k, got[k], v)
		}
	case strings.Contains(lower, "priority values"):
		for k, v := range want {
			tk := c.task(k)
			c.ok(tk != nil && tk.Priority == PriorityFromICal(int(v.(float64))), "%s: %s", f.Fact, k)
		}
	case want["recurrence_id"] != nil:
		w, _ := parseWhen(want["recurrence_id"].(string))
		found := false
		for _, e := range c.cal.Events {
			if e.RecurrenceID != nil && e.Summary == want["summary"] {
				// the RECURRENCE-ID is a civil time in the master's zone
				if m := c.masterOf(e.UID); m != nil {
					t, _ := m.Zone.MomentInstant(*e.RecurrenceID)
					found = found || w.match(t, m.Zone, false, tz.Date{})
				}
			}
		}
		c.ok(found, "%s", f.Fact)
	case want["description"] != nil && want["start"] != nil:
		w, _ := parseWhen(want["start"].(string))
		found := false
		for _, e := range c.cal.Events {
			found = found || (e.Description == want["description"] && w.match(startOf(&e), e.Zone, false, tz.Date{}))
		}
		c.ok(found, "%s", f.Fact)
	case want["dtstart"] != nil && want["rrule"] != nil:
		m := c.masterOf(c.cal.Events[0].UID)
		w, _ := parseWhen(want["dtstart"].(string))
		c.ok(m != nil && w.match(startOf(m), m.Zone, false, tz.Date{}) && m.Rule.String() == recur.MustRule(want["rrule"].(string)).String(), "%s: dtstart/rrule", f.Fact)
		for _, key := range []string{"rdate", "exdate"} {
			var got []string
			list := m.RDates
			if key == "exdate" {
				list = m.ExDates
			}
			for _, x := range list {
				got = append(got, x.String())
			}
			sort.Strings(got)
			var ws []string
			for _, x := range want[key].([]any) {
				ws = append(ws, x.(string))
			}
			c.ok(strings.Join(got, ",") == strings.Join(ws, ","), "%s: %s got %v want %v", f.Fact, key, got, ws)
		}
	case want["summary"] != nil && want["start"] != nil:
		ws, _ := parseWhen(want["start"].(string))
		we, _ := parseWhen(want["end"].(string))
		es := c.named("'" + want["summary"].(string) + "'")
		c.ok(len(es) == 1 && ws.match(startOf(es[0]), es[0].Zone, false, tz.Date{}) && we.match(endOf(es[0]), es[0].Zone, false, tz.Date{}) && es[0].Floating, "%s", f.Fact)
	case want["start"] != nil && want["duration_hours"] != nil:
		ws, _ := parseWhen(want["start"].(string))
		we, _ := parseWhen(want["end"].(string))
		found := false
		for _, e := range evs {
			found = found || (ws.match(startOf(e), e.Zone, false, tz.Date{}) && endOf(e).Equal(we.at) && endOf(e).Sub(startOf(e)) == time.Duration(want["duration_hours"].(float64))*time.Hour)
		}
		c.ok(found, "%s", f.Fact)
	case want["embedded_vtimezone"] != nil:
		// The model keeps IANA zones only: US-Eastern is read as the
		// IANA zone its rules match over the years the file covers
		// (1997–1998), so later dates follow that zone's rules.
		es := c.named("master")
		if c.okOne(f, es) {
			at, _ := es[0].Zone.Instant(tz.DateTime{Date: tz.Date{Year: 2009, Month: 3, Day: 13}, Hour: 9})
			w, _ := parseWhen(want["america_new_york"].(string))
			c.ok(w.match(at, es[0].Zone, false, tz.Date{}), "%s: got %s", f.Fact, tz.RFC3339(at, es[0].Zone))
		}
	default:
		c.read++
	}
}

func (c *checker) masterOf(uid string) *Event {
	for i := range c.cal.Events {
		if c.cal.Events[i].UID == uid && c.cal.Events[i].RecurrenceID == nil {
			return &c.cal.Events[i]
		}
	}
	return nil
}

func (c *checker) occurrence(raw json.RawMessage) {
	c.t.Helper()
	var o expectOcc
	if err := json.Unmarshal(raw, &o); err != nil {
		c.t.Fatalf("occurrence entry: %v", err)
	}
	label := o.UID + o.Summary
	var master *Event
	if o.UID != "" {
		master = c.masterOf(o.UID)
	} else {
		name := strings.TrimSuffix(o.Summary, " (VTODO)")
		if es := c.named("'" + name + "'"); len(es) > 0 && strings.TrimSpace(es[0].Summary) == strings.TrimSpace(name) {
			master = es[0]
		} else if tk := c.task(name); tk != nil {
			c.taskOccurrence(label, tk, o)
			return
		}
	}
	if master == nil {
		if !o.Sure {
			c.read++ // "rejecting this one event is also defensible"
			return
		}
		c.ok(false, "occurrence %s: no such series", label)
		return
	}
	start := startOf(master)
	ins := c.cal.Instances(master.UID, start.AddDate(0, 0, -1), start.AddDate(40, 0, 0))
	check := func(i int, s string) {
		c.t.Helper()
		w, ok := parseWhen(s)
		if !ok {
			return
		}
		if i >= len(ins) {
			c.ok(false, "%s: instance %d missing, want %s", label, i, s)
			return
		}
		in := ins[i]
		c.ok(w.match(in.Start, in.Event.Zone, false, tz.Date{}), "%s: instance %d starts %s, want %s", label, i, tz.RFC3339(in.Start, in.Event.Zone), s)
	}
	for i, x := range o.FirstThree {
		var s string
		var obj struct {
			Start, Summary string
		}
		if json.Unmarshal(x, &s) != nil {
			_ = json.Unmarshal(x, &obj)
			s = obj.Start
			if i < len(ins) {
				c.ok(ins[i].Event.Summary == obj.Summary, "%s: instance %d summary %q, want %q", label, i, ins[i].Event.Summary, obj.Summary)
			}
		}
		check(i, s)
	}
	for i, s := range o.FirstThreeByStart {
		check(i, s)
	}
	if len(o.FirstThreeRRule) > 0 {
		// DTSTART is always the first occurrence here (RFC 5545
		// §3.8.5.3), so the rule's own instances follow it.
		c.ok(len(ins) > 0 && ins[0].Start.Equal(start), "%s: DTSTART is the first instance", label)
		for i, s := range o.FirstThreeRRule {
			check(i+1, s)
		}
	}
	for i, s := range o.InstancesUTC {
		check(i, s)
	}
	for _, in := range o.Instances {
		w, _ := parseWhen(in["start"].(string))
		found := false
		for _, x := range ins {
			if w.match(x.Start, x.Event.Zone, false, tz.Date{}) {
				_, isOv := in["override"]
				found = x.Override == isOv
			}
		}
		c.ok(found, "%s: no instance at %v", label, in)
	}
	if o.Instances != nil {
		c.ok(len(ins) >= len(o.Instances), "%s: %d instances, want at least %d", label, len(ins), len(o.Instances))
	}
	for _, s := range append(append([]string{}, o.Excluded...), o.Absent...) {
		w, _ := parseWhen(s)
		hit := false
		for _, x := range ins {
			switch {
			case strings.Contains(s, "(moved)"):
				hit = hit || (x.Original.Date == w.date && !x.Override)
			case w.kind == 'd':
				hit = hit || x.Event.Zone.Today(x.Start) == w.date
			default:
				hit = hit || w.match(x.Start, x.Event.Zone, false, tz.Date{})
			}
		}
		c.ok(!hit, "%s: %s should be absent", label, s)
	}
	if o.Total > 0 {
		c.ok(len(ins) == o.Total, "%s: %d instances, want %d", label, len(ins), o.Total)
	}
	if o.VisibleTotal > 0 {
		c.ok(len(ins) == o.VisibleTotal, "%s: %d visible instances, want %d", label, len(ins), o.VisibleTotal)
	}
	if o.AfterDSTEnd != "" {
		w, _ := parseWhen(o.AfterDSTEnd)
		found := false
		for _, x := range ins {
			found = found || w.match(x.Start, x.Event.Zone, false, tz.Date{})
		}
		c.ok(found, "%s: no instance at %s", label, o.AfterDSTEnd)
	}
	if len(o.Last) > 0 && len(ins) > 0 {
		last := ins[len(ins)-1]
		var s string
		var alts map[string]string
		if json.Unmarshal(o.Last, &s) == nil {
			alts = map[string]string{"": s}
		} else {
			_ = json.Unmarshal(o.Last, &alts) // alternatives (last_sure false)
		}
		var matched []string
		for k, v := range alts {
			w, _ := parseWhen(v)
			if w.match(last.Start, last.Event.Zone, false, tz.Date{}) {
				matched = append(matched, k)
			}
		}
		c.ok(len(matched) > 0, "%s: last instance %s matches none of %v", label, tz.RFC3339(last.Start, last.Event.Zone), alts)
		if len(alts) > 1 {
			c.t.Logf("%s: last instance is %q", label, matched)
		}
	}
}

func (c *checker) taskOccurrence(label string, tk *Task, o expectOcc) {
	c.t.Helper()
	occ := tk.Series().All(3)
	for i, x := range o.FirstThree {
		var s string
		_ = json.Unmarshal(x, &s)
		w, _ := parseWhen(s)
		c.ok(i < len(occ) && w.match(occ[i].Start, tk.Zone, !tk.Start.HasTime, occ[i].Original.Date), "%s: task instance %d, want %s", label, i, s)
	}
	if o.SecondInstanceDueAt != "" && len(occ) > 1 {
		w, _ := parseWhen(o.SecondInstanceDueAt)
		gap := tk.Due.AsUTC().Sub(tk.Start.AsUTC())
		// The due keeps its distance from the start in wall-clock days.
		due := occ[1].Original.DateTime.AddMinutes(int(gap / time.Minute))
		c.ok(w.civil == due, "%s: second due %s, want %s", label, due, o.SecondInstanceDueAt)
	}
}

func (c *checker) alarm(a expectAlarm) {
	c.t.Helper()
	if a.Sure != nil && !*a.Sure {
		c.read++
		return
	}
	// The item: named in "on" before " (", else the only item with alarms.
	name := a.On
	if i := strings.Index(name, " ("); i >= 0 {
		name = name[:i]
	}
	var fires []time.Time
	var zone tz.Zone
	found := false
	if tk := c.task(name); tk != nil {
		due := mustInstant(tk.Zone, tk.Due)
		for _, m := range tk.RemindBefore {
			fires = append(fires, due.Add(-time.Duration(m)*time.Minute))
		}
		fires = append(fires, tk.RemindAt...)
		zone, found = tk.Zone, true
	} else {
		for i := range c.cal.Events {
			e := &c.cal.Events[i]
			if (name != "" && !strings.HasPrefix(a.On, "every") && strings.TrimSpace(e.Summary) != name) || (len(e.RemindBefore) == 0 && len(e.RemindAt) == 0) {
				continue
			}
			found = true
			zone = e.Zone
			for _, in := range c.cal.Instances(e.UID, startOf(e).Add(-time.Hour), startOf(e).AddDate(2, 0, 0)) {
				for _, m := range in.Event.RemindBefore {
					fires = append(fires, in.Start.Add(-time.Duration(m)*time.Minute))
				}
				if in.Event.AllDay {
					zone = personZone
				}
			}
			fires = append(fires, e.RemindAt...)
		}
	}
	if !found {
		c.ok(false, "alarm %q: no item with reminders", a.On)
		return
	}
	want := []string{a.FiresAt}
	for _, v := range a.Examples {
		want = append(want, v)
	}
	for _, s := range want {
		w, ok := parseWhen(s)
		if !ok || s == "" {
			if s != "" {
				c.read++
			}
			continue
		}
		hit := false
		for _, f := range fires {
			hit = hit || w.match(f, zone, false, tz.Date{})
		}
		c.ok(hit, "alarm %q (%s): nothing fires at %s; fires at %v", a.On, a.Trigger, s, fires)
	}
}
