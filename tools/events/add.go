package events

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/alarm"
	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/item"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// overlapHorizon is how far ahead a repeating event is checked for
// overlaps with other events when it is added.
const overlapHorizon = 28 * 24 * time.Hour

// overlapMax is how many occurrences of a new repeating event are checked.
const overlapMax = 20

// addArgs is what add_event reads.
type addArgs struct {
	in   input
	once tools.Once
}

// readAdd reads add_event's fields, “key” and “allow_duplicate”.
func readAdd(a *args.Args, c *tools.Env) addArgs {
	return addArgs{readInput(a, c.Zone, false), tools.ReadOnce(a, "add_event")}
}

func addEvent(c *tools.Env, aa addArgs) tools.ExecResult {
	in, once := aa.in, aa.once
	e := &event{UID: newUID(), Title: in.Title, Location: in.Location, Notes: in.Notes, Zone: in.Zone,
		Start: in.Start, Rule: in.Rule, ExDates: in.ExDates, RDates: in.RDates,
		RemindBefore: in.Reminders.BeforeJSON(), RemindAt: in.Reminders.AtJSON(), CreatedAt: c.Now.UTC().Truncate(time.Second)}
	if err := times(e, in.End, in.HasEnd, time.Duration(in.Duration)*time.Minute, 1); err != nil {
		return tools.Fail(err)
	}
	if err := checkLists(e); err != nil {
		return tools.Fail(err)
	}
	if err := e.Series(e.Zone).WithContext(c.Ctx).CheckOccurs(); err != nil {
		return tools.Fail(err)
	}
	if err := checkExDatesOccur(c.Ctx, e, e.ExDates, nil); err != nil {
		return tools.Fail(err)
	}
	once.Fingerprint = tools.Fingerprint(map[string]any{
		"title": e.Title, "start": e.Start.String(), "end": e.End.String(), "zone": e.Zone.Name(),
		"location": e.Location, "notes": e.Notes, "rrule": ruleText(e), "exdates": tz.MomentsJSON(e.ExDates),
		"rdates": tz.MomentsJSON(e.RDates), "remind_before": e.RemindBefore, "remind_at": e.RemindAt,
	})
	var (
		existing *event // the event a repeated key or the duplicate window gave back
		why      string
		alike    string // a warning about an event much like the new one
		warnings []string
	)
	change, err := c.Write(func(tx *store.Tx) error {
		// The key, then the duplicate window, then the insert (tools.Once).
		same := func(tx *store.Tx) (string, error) {
			dup, similar, differs, err := duplicate(tx, e)
			if err != nil || dup == nil {
				if similar != nil {
					alike = fmt.Sprintf("%s %s, added %s ago, has the same title and start but another %s; if one of the two is a copy, delete it with delete_event.",
						similar.Label(), quote(clip(similar.Title, 60)), minutes(max(time.Minute, e.CreatedAt.Sub(similar.CreatedAt).Truncate(time.Minute))),
						strings.Join(differs, ", "))
				}
				return "", err
			}
			existing = dup
			why = fmt.Sprintf("%s %s with the same title, start, end, place and rule was added %s ago; nothing new was added. Set “allow_duplicate” to add another.",
				dup.Label(), quote(dup.Title), minutes(max(time.Minute, e.CreatedAt.Sub(dup.CreatedAt).Truncate(time.Minute))))
			return dup.Label(), nil
		}
		add := func(tx *store.Tx) (string, error) {
			// The overlap check runs before the insert; the next read
			// patches the snapshot with the new series (see seriesFor).
			var err error
			if warnings, err = overlaps(tx, e, c.Zone, c.Now); err != nil {
				return "", err
			}
			if _, err := tx.InsertEvent(e); err != nil {
				return "", err
			}
			past, err := alarm.SkipPast(tx, e.Label(), c.Zone, c.Now)
			if err != nil {
				return "", err
			}
			if s := item.PastReminders(past, c.Zone); s != "" {
				warnings = append(warnings, s)
			}
			tx.Summarize(fmt.Sprintf("added %s %s", e.Label(), quote(clip(e.Title, 60))))
			return e.Label(), nil
		}
		outcome, ref, err := once.Run(tx, same, add)
		var kc *tools.KeyConflict
		if errors.As(err, &kc) {
			return tools.Refuse(tools.CodeConflict, fmt.Sprintf("The key “%s” was already used for %s with other arguments; use a new “key” for a new event.", kc.Key, kc.Ref))
		}
		if err != nil || outcome != tools.Replayed {
			return err
		}
		id, _ := parseLabel(ref)
		if existing, err = tx.Event(id); err != nil {
			return err
		}
		why = fmt.Sprintf("The key “%s” was already used: %s is the event it added; nothing new was added.", once.Key, existing.Label())
		return nil
	})
	if err != nil {
		return tools.Fail(err)
	}
	if existing != nil {
		lines, data := describe(existing, nil, c.Zone, c.Now)
		return tools.SuccessWithData(why+"\n"+strings.Join(lines, "\n"), map[string]any{"event": data, "added": false})
	}
	tools.InsertResult(c.TC, tools.Changed{Change: change, Items: []string{e.Label()}})
	lines, data := describe(e, nil, c.Zone, c.Now)
	head := fmt.Sprintf("Added %s (change %s).", e.Label(), change)
	out := []string{head}
	var firstID string
	if !e.AllDay && !e.Repeats() {
		// The instant kept, in UTC as occurrence ids write it, so a start
		// in the repeated hour of a fall-back change is never in doubt (a
		// repeating event lists its next occurrence ids).
		first := occ{Event: e, Original: e.Start, OrigStart: e.StartAt}
		firstID = first.id()
		out = append(out, fmt.Sprintf("It starts at %s; its occurrence id is %s.", e.StartAt.UTC().Format("2006-01-02T15:04Z"), firstID))
	}
	if s := gapSentence(e.Start, e.Zone); s != "" && e.Start.HasTime {
		out = append(out, "Note: "+s)
	}
	if s := tools.OffRule("start", e.Start, e.Zone, e.Rule); s != "" {
		out = append(out, s)
	}
	if s := monthEndNote(e.Rule, e.Start); s != "" {
		out = append(out, s)
	}
	out = append(out, lines...)
	if alike != "" {
		warnings = append([]string{alike}, warnings...)
	}
	for _, w := range warnings {
		out = append(out, "Warning: "+w)
	}
	res := map[string]any{"event": data, "added": true, "change": change, "warnings": orEmpty(warnings)}
	if firstID != "" {
		res["occurrence"] = firstID
	}
	return tools.SuccessWithData(strings.Join(out, "\n"), res)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func ruleText(e *event) string {
	if e.Rule == nil {
		return ""
	}
	return e.Rule.String()
}

// parseLabel reads "e7" back to 7.
func parseLabel(s string) (int64, bool) {
	m := idPattern.FindStringSubmatch(s)
	if m == nil || m[2] != "" {
		return 0, false
	}
	var id int64
	_, err := fmt.Sscan(m[1], &id)
	return id, err == nil
}

// duplicate finds live events of the owner made within the duplicate
// window with the same normalised title and the same start.
// same is one that also has the same end, zone, location, rule, EXDATEs
// and RDATEs: a call sent twice, to be answered with it. Failing that,
// similar is the latest with the same title and start only, with what
// differs in it: another request, added with a warning naming it.
func duplicate(tx *store.Tx, e *event) (same, similar *event, differs []string, err error) {
	cands, err := tx.EventsStartingAt(e, e.CreatedAt.Add(-item.DuplicateWindow))
	if err != nil {
		return nil, nil, nil, err
	}
	want := item.NormTitle(e.Title)
	for _, d := range cands {
		if item.NormTitle(d.Title) != want || d.Start != e.Start {
			continue
		}
		diff := eventDiffers(d, e)
		if len(diff) == 0 {
			return d, nil, nil, nil
		}
		if similar == nil {
			similar, differs = d, diff
		}
	}
	return nil, similar, differs, nil
}

// eventDiffers names the fields, beyond title and start, in which b is
// another request than a.
func eventDiffers(a, b *event) []string {
	var out []string
	if a.End != b.End || a.AllDay != b.AllDay {
		out = append(out, "end")
	}
	if a.Zone.Name() != b.Zone.Name() {
		out = append(out, "time_zone")
	}
	if a.Location != b.Location {
		out = append(out, "location")
	}
	if ruleText(a) != ruleText(b) {
		out = append(out, "rrule")
	}
	if tz.MomentsJSON(a.ExDates) != tz.MomentsJSON(b.ExDates) {
		out = append(out, "exdates")
	}
	if tz.MomentsJSON(a.RDates) != tz.MomentsJSON(b.RDates) {
		out = append(out, "rdates")
	}
	return out
}

// overlaps names the timed events that the timed occurrences of e overlap:
// its own time for a single event, its first overlapMax occurrences within
// overlapHorizon for a repeating one. All-day events overlap nothing (they
// do not make a person busy). Only the series whose stored bounds reach
// those occurrences are looked at, each expanded just around them, and
// most without expanding at all (meets).
func overlaps(tx *store.Tx, e *event, person tz.Zone, now time.Time) ([]string, error) {
	if e.AllDay {
		return nil, nil
	}
	w := tools.Window{From: e.StartAt, To: e.EndAt}
	if e.Repeats() {
		if now.After(w.From) {
			w.From = now
		}
		w.To = w.From.Add(overlapHorizon)
	}
	mine := firstOccs(e, nil, person, w, overlapMax)
	if len(mine) == 0 {
		return nil, nil
	}
	hull := tools.Window{From: mine[0].Start, To: mine[len(mine)-1].End}
	snap, err := seriesFor(tx, hull.From, hull.To)
	if err != nil {
		return nil, err
	}
	var (
		cands      []*event
		zone       []int // index of each candidate's zone in zones
		zones      []tz.Zone
		index      = map[string]int{}
		longestOcc time.Duration
	)
	for i := range snap.rows {
		r := snap.rows[i]
		if r.e.AllDay || r.e.ID == e.ID || !r.reaches(hull.From.Unix(), hull.To.Unix()) {
			continue
		}
		zi, ok := index[r.e.Zone.Name()]
		if !ok {
			zi = len(zones)
			index[r.e.Zone.Name()] = zi
			zones = append(zones, r.e.Zone)
		}
		cands = append(cands, r.e)
		zone = append(zone, zi)
		longestOcc = max(longestOcc, longest(r.e))
	}
	ovs, err := windowOverrides(tx, hull.From, hull.To, longestOcc)
	if err != nil {
		return nil, err
	}
	var found []occ
	seen := map[int64]bool{}
	clock := make([]int, len(zones))
	steady := make([]bool, len(zones))
mine:
	for _, m := range mine {
		for zi, z := range zones {
			dt := z.In(m.Start)
			clock[zi] = dt.Hour*60 + dt.Minute
			// No offset change from well before the longest occurrence
			// that can reach m up to m's end: no clock jumps, no gap.
			_, end := m.Start.Add(-longestOcc - 24*time.Hour).In(z.Location()).ZoneBounds()
			steady[zi] = end.IsZero() || !end.Before(m.End)
		}
		var hits []occ
		for i, c := range cands {
			if seen[c.ID] || len(ovs[c.ID]) == 0 && steady[zone[i]] && !meets(c, m.Start, m.End, clock[zone[i]]) {
				continue
			}
			for _, o := range appendOccs(nil, c, ovs[c.ID], person, tools.Window{From: m.Start, To: m.End}) {
				if !o.AllDay && o.Start.Before(m.End) && o.End.After(m.Start) {
					hits = append(hits, o)
				}
			}
		}
		sortOccs(hits)
		for _, o := range hits {
			if seen[o.Event.ID] {
				continue
			}
			seen[o.Event.ID] = true
			found = append(found, o)
			if len(found) == 3 {
				break mine
			}
		}
	}
	if err := fillText(tx, found); err != nil {
		return nil, err
	}
	var out []string
	for i := range found {
		o := &found[i]
		out = append(out, fmt.Sprintf("it overlaps %s %s, %s.", o.id(), quote(clip(o.Title, 60)), span(o, person)))
	}
	return out, nil
}

// meets reports whether timed series c (without overrides) may have an
// occurrence overlapping [from, to); clock is from's minute of the day in
// c's zone, whose offset must not change from a day before from − c's
// length up to to. It answers false only when that is certain without
// expanding: a single event outside the span, or a DAILY or coarser rule
// (all of whose occurrences start at DTSTART's wall-clock time, which no
// gap moves here) whose time of day does not fall in the span.
func meets(c *event, from, to time.Time, clock int) bool {
	if len(c.RDates) > 0 {
		return true
	}
	if c.Rule == nil {
		return c.StartAt.Before(to) && c.EndAt.After(from)
	}
	if !c.Rule.FixedClock() {
		return true
	}
	// An occurrence overlaps when it starts in (from − length, to).
	length := int(c.EndAt.Sub(c.StartAt) / time.Minute)
	lo := clock - length
	hi := clock + int(to.Sub(from)/time.Minute)
	if hi-lo >= 24*60 {
		return true
	}
	t := c.Start.Hour*60 + c.Start.Minute
	for _, k := range []int{-24 * 60, 0, 24 * 60} {
		if lo < t+k && t+k < hi {
			return true
		}
	}
	return false
}
