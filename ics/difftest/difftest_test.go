// Package difftest is the differential test of series edits and their
// export: seeded random series, random edit sequences made through the
// tools as a model makes them, then list_events compared with (a) the
// export read back by two outside engines (python3-icalendar with
// python3-recurring-ical-events, and ical.js), (b) the export re-imported
// into a fresh database, and (c) the set of occurrences a small model of
// each edit's meaning expects.
package difftest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/ics"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/events"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
)

var (
	nCases   = flag.Int("difftest.cases", 300, "how many seeded random cases to run")
	firstArg = flag.Int64("difftest.seed", 1, "the seed of the first case; case i has seed+i")
	verbose  = flag.Bool("difftest.v", false, "log every failing case in full")
	dump     = flag.String("difftest.dump", "", "write the exports and manifests to this folder, to read them again by hand")
	save     = flag.Bool("difftest.save", false, "write each shrunk failure to testdata/cases")
)

// strict makes edit-side failures (list_events against the model) fail
// the test, as they do unless ASSISTANT_DIFFTEST_STRICT=0; export-side
// ones (the export against list_events, in a case whose list agrees with
// the model) always do.
func strict() bool { return os.Getenv("ASSISTANT_DIFFTEST_STRICT") != "0" }

// The window every case lives in and is compared over: occurrences
// starting in [winFrom, winTo).
var (
	winFrom = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	winTo   = time.Date(2027, 12, 30, 0, 0, 0, 0, time.UTC)
)

// now is the clock of every case, before every series.
var now = time.Date(2025, 12, 1, 9, 0, 0, 0, time.UTC)

var zones = []string{"Europe/Paris", "America/New_York", "Europe/London", "Australia/Lord_Howe", "Pacific/Chatham", "America/Sao_Paulo", "Asia/Kolkata", "UTC"}

// Case is one seeded case, and the form of a fixed case file under
// testdata/cases.
type Case struct {
	Seed   int64    `json:"seed"`
	Zone   string   `json:"zone"`
	Add    []string `json:"add"` // add_event arguments as name=value
	AllDay bool     `json:"all_day"`
	Edits  []Edit   `json:"edits"`
	Note   string   `json:"note,omitempty"`
}

// Edit is one edit: its kind, which occurrence of the model's (the n-th
// in time order, modulo their number), a shift in minutes (days for an
// all-day series), a title or a zone.
type Edit struct {
	Kind string `json:"kind"`
	// Start, when set, is the new start of a move_one as written
	// ("2027-10-31T02:30+01:00", an offset naming one reading of a
	// repeated hour), instead of Shift.
	Start string `json:"start,omitempty"`
	Pick  int    `json:"pick"`
	Shift int    `json:"shift,omitempty"`
	Title string `json:"title,omitempty"`
	Zone  string `json:"zone,omitempty"`
}

var kinds = []string{"move_one", "retitle_one", "delete_one", "delete_following", "change_following", "move_series", "change_zone", "undo"}

// occ is one occurrence of the model.
type occ struct {
	series int
	zone   tz.Zone
	wall   tz.DateTime // the rule's clock time (original), in zone
	day    tz.Date     // all-day: the day
	days   int         // all-day: how many days
	dur    time.Duration
	title  string
	moved  bool      // moved by its own edit: keeps its instant
	at     time.Time // moved: its start
	atZone string    // moved: the zone it was moved in
	allDay bool
}

func (o occ) start() time.Time {
	if o.moved {
		return o.at
	}
	t, _ := o.zone.Instant(o.wall)
	return t
}

func (o occ) orig() time.Time { t, _ := o.zone.Instant(o.wall); return t }

// key is the occurrence as every side is compared: start, end (last day
// for all-day ones) and title.
func (o occ) key() string {
	if o.allDay {
		d := o.dayOf()
		return "D:" + d.String() + "|D:" + d.AddDays(o.days-1).String() + "|" + o.title
	}
	s := o.start()
	return utc(s) + "|" + utc(s.Add(o.dur)) + "|" + o.title
}

func utc(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func clone(m []occ) []occ { return slices.Clone(m) }

// gen makes the case of seed.
func gen(seed int64) Case {
	r := rand.New(rand.NewSource(seed))
	c := Case{Seed: seed, Zone: zones[r.Intn(len(zones))]}
	z := tz.MustZone(c.Zone)
	// A start near a change of offset when the zone has one.
	base := time.Date(2026, time.Month(3+r.Intn(12)), 1+r.Intn(28), 0, 0, 0, 0, time.UTC)
	if ch := offsetChanges(z); len(ch) > 0 && r.Intn(3) > 0 {
		base = ch[r.Intn(len(ch))].Add(time.Duration(r.Intn(29)-14) * 24 * time.Hour)
	}
	d := z.Today(base)
	if d.Day > 28 {
		d.Day = 28
	}
	c.AllDay = r.Intn(5) == 0
	hour := []int{0, 1, 2, 2, 3, 9, 12, 18, 23}[r.Intn(9)]
	minute := []int{0, 15, 30, 45}[r.Intn(4)]
	freq := []string{"DAILY", "WEEKLY", "WEEKLY", "MONTHLY"}[r.Intn(4)]
	rule := "FREQ=" + freq
	iv := 1
	if freq != "MONTHLY" {
		iv = 1 + r.Intn(3)
	}
	if iv > 1 {
		rule += fmt.Sprintf(";INTERVAL=%d", iv)
	}
	switch r.Intn(5) {
	case 0, 1:
		rule += fmt.Sprintf(";COUNT=%d", 2+r.Intn(6))
	case 2, 3:
		days := map[string]int{"DAILY": 1, "WEEKLY": 7, "MONTHLY": 31}[freq] * iv * (1 + r.Intn(6))
		u := d.AddDays(days)
		if c.AllDay {
			rule += ";UNTIL=" + u.Basic()
		} else {
			at, _ := z.Instant(u.At(hour, minute))
			rule += ";UNTIL=" + tz.FromUTCClock(at).Basic() + "Z"
		}
	}
	c.Add = []string{"title=S", "rrule=" + rule}
	if c.AllDay {
		c.Add = append(c.Add, "start="+d.String())
	} else {
		c.Add = append(c.Add, "start="+d.At(hour, minute).String(), fmt.Sprintf("duration=%d", []int{30, 45, 60, 90}[r.Intn(4)]))
	}
	step := map[string]int{"DAILY": 1, "WEEKLY": 7, "MONTHLY": 31}[freq]
	if r.Intn(3) == 0 {
		x := d.AddDays(step * (1 + r.Intn(2)))
		if c.AllDay || r.Intn(2) == 0 {
			c.Add = append(c.Add, "exdates="+x.String())
		} else {
			c.Add = append(c.Add, "exdates="+x.At(hour, minute).String())
		}
	}
	if r.Intn(3) == 0 {
		x := d.AddDays(step*(1+r.Intn(3)) + 1 + r.Intn(2))
		if c.AllDay {
			c.Add = append(c.Add, "rdates="+x.String())
		} else {
			c.Add = append(c.Add, "rdates="+x.At((hour+3)%24, minute).String())
		}
	}
	for n := 1 + r.Intn(5); n > 0; n-- {
		e := Edit{Kind: kinds[r.Intn(len(kinds))], Pick: r.Intn(12)}
		if c.AllDay {
			e.Shift = []int{1, -1, 2, 7}[r.Intn(4)]
		} else {
			e.Shift = []int{60, -60, 30, 120, 1440, -1440, 1500, -90}[r.Intn(8)]
		}
		switch e.Kind {
		case "retitle_one":
			e.Title = fmt.Sprintf("R%d", r.Intn(100))
		case "change_zone":
			e.Zone = zones[r.Intn(len(zones))]
		}
		c.Edits = append(c.Edits, e)
	}
	return c
}

// offsetChanges lists the instants z changes offset in 2026 and 2027.
func offsetChanges(z tz.Zone) []time.Time {
	var out []time.Time
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, z.Location())
	for range 16 {
		_, next := t.ZoneBounds()
		if next.IsZero() || next.Year() > 2027 {
			break
		}
		out = append(out, next)
		t = next
	}
	return out
}

// run is what a case gave.
type run struct {
	list     []string // list_events, as keys
	reimport []string
	export   []byte
	fail     string // the first edit-side failure: kind and what differs
	failKind string
	refused  map[string]int
	done     map[string]int
	skip     bool            // add_event refused the series
	zones    map[string]bool // the zones of the listed occurrences
}

var changeID = regexp.MustCompile(`\bc[0-9]+\b`)

// play runs c through the tools and the model.
func play(t testing.TB, c Case) run {
	res := run{refused: map[string]int{}, done: map[string]int{}}
	env := tooltest.Open(t, now, events.Register, changes.Register)
	who := env.Person("p", c.Zone)
	call := func(tool string, kv ...string) (tools.ExecResult, bool) {
		m := map[string]any{}
		for _, a := range kv {
			k, v, _ := strings.Cut(a, "=")
			if k == "duration" {
				var n int
				fmt.Sscan(v, &n)
				m[k] = n
				continue
			}
			if k == "exdates" || k == "rdates" {
				m[k] = []string{v}
				continue
			}
			m[k] = v
		}
		raw, _ := json.Marshal(m)
		r, _ := env.Call(who, tool, string(raw))
		return r, r.Code == tools.CodeOK
	}
	if _, ok := call("add_event", c.Add...); !ok {
		// A series the tools refuse (an UNTIL before its second
		// occurrence) is no case.
		res.refused["add"]++
		res.skip = true
		return res
	}
	model := initial(c)
	var list []listed
	check := func(kind string) bool {
		list = listAll(t, env, who)
		got := keys(list)
		want := modelKeys(model)
		if !slices.Equal(got, want) {
			res.fail, res.failKind = kind+": list_events and the model differ:\n"+diff(want, got, "model", "list"), kind
			return false
		}
		return true
	}
	type undoable struct {
		change string
		model  []occ
	}
	var stack []undoable
	nextSeries := 2
	if check("add") {
		for _, e := range c.Edits {
			prev := clone(model)
			var picked int = -1
			order := sortedModel(model)
			if len(order) > 0 {
				picked = order[e.Pick%len(order)]
			}
			if e.Kind != "undo" && picked < 0 {
				continue
			}
			if e.Kind != "undo" && twins(model, picked) {
				continue // the list cannot tell which of the two is meant
			}
			var id, series string
			if picked >= 0 {
				id, series = find(list, model[picked].key())
				if id == "" {
					res.fail, res.failKind = e.Kind+": the model's occurrence "+model[picked].key()+" is not listed", e.Kind
					break
				}
			}
			var o occ
			if picked >= 0 {
				o = model[picked]
			}
			var r tools.ExecResult
			ok := false
			switch e.Kind {
			case "move_one":
				if e.Start != "" {
					at, err := time.Parse("2006-01-02T15:04Z07:00", e.Start)
					if err != nil || o.allDay {
						t.Fatalf("seed %d: a move_one start must be a timed start with an offset: %q", c.Seed, e.Start)
					}
					r, ok = call("update_event", "id="+id, "scope=this", "start="+e.Start)
					if ok {
						if !o.moved {
							o.atZone = o.zone.Name()
						}
						o.at, o.moved = at, true
						model[picked] = o
					}
					break
				}
				r, ok = call("update_event", "id="+id, "scope=this", "start="+newStart(o, e.Shift))
				if ok {
					n := shifted(o, e.Shift)
					n.at, n.day, n.wall, n.moved = n.start(), n.dayOf(), o.wall, true
					if !o.moved {
						n.atZone = o.zone.Name()
					}
					model[picked] = n
				}
			case "retitle_one":
				r, ok = call("update_event", "id="+id, "scope=this", "title="+e.Title)
				if ok {
					model[picked].title = e.Title
				}
			case "delete_one":
				r, ok = call("delete_event", "id="+id, "scope=this")
				if ok {
					model = slices.Delete(model, picked, picked+1)
				}
			case "delete_following":
				r, ok = call("delete_event", "id="+id, "scope=following")
				if ok {
					model = slices.DeleteFunc(model, func(x occ) bool { return x.series == o.series && !before(x, o) })
				}
			case "change_following", "move_series":
				if o.moved || movedByGap(o) {
					continue // the shift would be read from a time the rule does not give
				}
				scope := "following"
				if e.Kind == "move_series" {
					scope = "all"
				}
				r, ok = call("update_event", "id="+id, "scope="+scope, "start="+newStart(o, e.Shift))
				if ok {
					ns := o.series
					if scope == "following" {
						ns = nextSeries
						nextSeries++
					}
					for i, x := range model {
						if x.series != o.series || (scope == "following" && before(x, o)) {
							continue
						}
						if !x.moved {
							x = shifted(x, e.Shift)
						} else {
							// Its key moves with the rule; it keeps its
							// own time, and is an ordinary occurrence
							// again when that is now the rule's.
							k := x
							k.moved = false
							x.wall = shifted(k, e.Shift).wall
							if x.atZone == x.zone.Name() && ((x.allDay && x.day == x.wall.Date) || (!x.allDay && x.orig().Equal(x.at))) {
								x.moved = false
							}
						}
						x.series = ns
						model[i] = x
					}
				}
			case "change_zone":
				if o.allDay || e.Zone == o.zone.Name() {
					continue
				}
				r, ok = call("update_event", "id="+series, "time_zone="+e.Zone)
				if ok {
					for i, x := range model {
						if x.series == o.series {
							if x.moved {
								x.at = x.start()
							}
							x.zone = tz.MustZone(e.Zone)
							model[i] = x
						}
					}
				}
			case "undo":
				if len(stack) == 0 {
					continue
				}
				top := stack[len(stack)-1]
				r, ok = call("undo", "change="+top.change)
				if ok {
					stack = stack[:len(stack)-1]
					model = top.model
				}
			}
			if !ok {
				if why := r.TextOut(); !expectedRefusal(e.Kind, why) {
					res.fail, res.failKind = e.Kind+": the tools refused an edit they should make: "+why, e.Kind
					break
				}
				res.refused[e.Kind]++
				model = prev
				continue
			}
			res.done[e.Kind]++
			if e.Kind != "undo" {
				if cid := changeID.FindString(r.TextOut()); cid != "" {
					stack = append(stack, undoable{cid, prev})
				}
			}
			if !check(e.Kind) {
				break
			}
		}
	}
	if list == nil {
		list = listAll(t, env, who)
	}
	res.list = keys(list)
	res.zones = map[string]bool{}
	for _, l := range list {
		res.zones[l.TimeZone] = true
	}
	var b bytes.Buffer
	person := store.Person{ID: who.ID, Name: who.Name, Zone: who.Zone.Name()}
	if err := ics.Export(env.Ctx, env.Store, person, &b, time.Time{}, time.Time{}); err != nil {
		t.Fatalf("seed %d: export: %v", c.Seed, err)
	}
	res.export = b.Bytes()
	// A re-import into a fresh database.
	env2 := tooltest.Open(t, now, events.Register, changes.Register)
	who2 := env2.Person("p", c.Zone)
	person2 := store.Person{ID: who2.ID, Name: who2.Name, Zone: who2.Zone.Name()}
	rep, err := ics.Import(env2.Ctx, env2.Store, person2, bytes.NewReader(res.export), ics.ImportOptions{})
	if err != nil {
		res.reimport = []string{"import failed: " + err.Error()}
	} else {
		res.reimport = keys(listAll(t, env2, who2))
		for _, s := range append(rep.Skipped, rep.Repaired...) {
			res.reimport = append(res.reimport, "import says: "+s.Reason)
		}
	}
	return res
}

// expectedRefusal reports whether the tools' refusal why of an edit of
// kind is one the model allows: a day move that the rule's days cannot
// follow (the tools then ask for a new “rrule”). Any other refusal of an
// edit the model makes is a fault.
func expectedRefusal(kind, why string) bool {
	return strings.Contains(why, "cannot move along") || strings.Contains(why, "repeats on the start's day")
}

// before reports whether x comes before o in their series' order, the
// order of the rule's (original) starts.
func before(x, o occ) bool {
	if x.allDay {
		return x.origDay().Before(o.origDay())
	}
	return x.orig().Before(o.orig())
}

func (o occ) origDay() tz.Date { return o.wall.Date }

// dayOf is an all-day occurrence's day: its own when moved, else the
// rule's.
func (o occ) dayOf() tz.Date {
	if o.moved {
		return o.day
	}
	return o.wall.Date
}

// movedByGap reports whether o's rule time falls in a DST gap.
func movedByGap(o occ) bool {
	if o.allDay {
		return false
	}
	_, moved := o.zone.Instant(o.wall)
	return moved
}

// newStart is the start argument that moves o by shift, as wall clock in
// its zone (days for all-day).
func newStart(o occ, shift int) string {
	n := shifted(o, shift)
	if o.allDay {
		return n.dayOf().String()
	}
	if o.moved {
		// A changed occurrence is shown, and read, in its own zone.
		return tz.TimeMoment(tz.MustZone(o.atZone).In(o.at.Add(time.Duration(shift) * time.Minute))).String()
	}
	return n.wall.String()
}

// shifted is o moved by shift minutes of wall clock (days for all-day).
func shifted(o occ, shift int) occ {
	if o.allDay {
		if o.moved {
			o.day = o.day.AddDays(shift)
		} else {
			o.wall.Date = o.wall.Date.AddDays(shift)
		}
		return o
	}
	if o.moved {
		o.at = o.at.Add(time.Duration(shift) * time.Minute)
		return o
	}
	o.wall = o.wall.AddMinutes(shift)
	return o
}

// initial is the model's series as added: its occurrences, expanded by
// package recur (expansion itself is checked elsewhere; this test is about
// edits and the export).
func initial(c Case) []occ {
	z := tz.MustZone(c.Zone)
	kv := map[string][]string{}
	for _, a := range c.Add {
		k, v, _ := strings.Cut(a, "=")
		kv[k] = append(kv[k], v)
	}
	s := recur.Series{Zone: z, Rule: recur.MustRule(kv["rrule"][0])}
	s.Start, _ = tz.ParseMoment(kv["start"][0])
	for _, x := range kv["exdates"] {
		m, _ := tz.ParseMoment(x)
		s.ExDates = append(s.ExDates, m)
	}
	for _, x := range kv["rdates"] {
		m, _ := tz.ParseMoment(x)
		s.RDates = append(s.RDates, m)
	}
	if c.AllDay {
		s.Duration = 24 * time.Hour
	} else {
		var n int
		fmt.Sscan(kv["duration"][0], &n)
		s.Duration = time.Duration(n) * time.Minute
	}
	var out []occ
	// Beyond the window too, by more than edits can shift: an occurrence
	// may be moved into it.
	for _, o := range s.StartsBetween(winFrom.AddDate(0, 0, -60), winTo.AddDate(0, 0, 60)) {
		x := occ{series: 1, zone: z, title: "S", dur: s.Duration, allDay: c.AllDay}
		if c.AllDay {
			x.days, x.wall = 1, o.Original.Date.At(0, 0)
		} else {
			x.wall = o.Original.DateTime
		}
		out = append(out, x)
	}
	return out
}

// twins reports whether another occurrence of m has the key of m[i].
func twins(m []occ, i int) bool {
	for j := range m {
		if j != i && m[j].key() == m[i].key() {
			return true
		}
	}
	return false
}

// sortedModel is the indices of the occurrences of m inside the window,
// in start order: those an edit can pick.
func sortedModel(m []occ) []int {
	var idx []int
	for i := range m {
		if in(m[i].key()) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return m[idx[a]].key() < m[idx[b]].key() })
	return idx
}

func modelKeys(m []occ) []string {
	var out []string
	for _, o := range m {
		if in(o.key()) {
			out = append(out, o.key())
		}
	}
	sort.Strings(out)
	return out
}

// in reports whether the occurrence key starts inside the window.
func in(key string) bool {
	s, _, _ := strings.Cut(key, "|")
	if d, ok := strings.CutPrefix(s, "D:"); ok {
		return d >= winFrom.Format("2006-01-02") && d < winTo.Format("2006-01-02")
	}
	return s >= utc(winFrom) && s < utc(winTo)
}

type listed struct {
	ID, Series, Title, Start, End string
	AllDay                        bool   `json:"all_day"`
	TimeZone                      string `json:"time_zone"`
}

func (l listed) key() string {
	if l.AllDay {
		return "D:" + l.Start + "|D:" + l.End + "|" + l.Title
	}
	s, _ := time.Parse(time.RFC3339, l.Start)
	e, _ := time.Parse(time.RFC3339, l.End)
	return utc(s) + "|" + utc(e) + "|" + l.Title
}

// listAll is every occurrence list_events gives over the window, page
// after page.
func listAll(t testing.TB, env *tooltest.Env, who tools.Person) []listed {
	var out []listed
	cursor := ""
	for page := 0; page < 50; page++ {
		args := map[string]any{"from": "2025-12-25", "to": "2028-01-05", "limit": 40}
		if cursor != "" {
			args["cursor"] = cursor
		}
		raw, _ := json.Marshal(args)
		r, _ := env.Call(who, "list_events", string(raw))
		if r.Code != tools.CodeOK {
			t.Fatalf("list_events: %s", r.TextOut())
		}
		var d struct {
			Events []listed
			Next   string `json:"next_cursor"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d.Events...)
		if d.Next == "" {
			return out
		}
		cursor = d.Next
	}
	t.Fatal("list_events gave more than 50 pages")
	return nil
}

func keys(l []listed) []string {
	var out []string
	for _, x := range l {
		if k := x.key(); in(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func find(l []listed, key string) (id, series string) {
	for _, x := range l {
		if x.key() == key {
			return x.ID, x.Series
		}
	}
	return "", ""
}

// diff says what one sorted list has that the other lacks.
func diff(want, got []string, wn, gn string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			fmt.Fprintf(&b, "  only in %s: %s\n", wn, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			fmt.Fprintf(&b, "  only in %s: %s\n", gn, g)
		}
	}
	if b.Len() == 0 {
		fmt.Fprintf(&b, "  the same items, counted differently: %s %d, %s %d\n", wn, len(want), gn, len(got))
	}
	return b.String()
}
