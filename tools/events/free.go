package events

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/args"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// taskBusy is how long an open task with a due time keeps a person busy:
// the half hour before it is due.
const taskBusy = 30 * time.Minute

// maxSlots is how many free slots find_free_time lists.
const maxSlots = 30

var clockPattern = regexp.MustCompile(`^([01]?[0-9]|2[0-4]):([0-5][0-9])$`)

// readClock reads a time of day "HH:MM" (24:00 allowed, as the end of the
// day) and returns minutes after midnight.
func readClock(a *args.Args, name string, def int) int {
	text := a.Text(name)
	if a.Err() != nil || text == "" {
		return def
	}
	m := clockPattern.FindStringSubmatch(text)
	if m == nil {
		a.Fail(name, fmt.Sprintf("“%s” must be a time of day such as 09:00 or 18:30, not %s.", name, args.Quote(text)))
		return def
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	if h == 24 && mi != 0 {
		a.Fail(name, fmt.Sprintf("“%s” must be a time of day from 00:00 to 24:00, not %s.", name, args.Quote(text)))
		return def
	}
	return h*60 + mi
}

type interval struct{ from, to time.Time }

// freeArgs is what find_free_time reads.
type freeArgs struct {
	w                   tools.Window
	need                int
	dayStart, dayEnd    int
	weekends, withTasks bool
}

// readFree reads find_free_time's window, “duration”, “day_start”,
// “day_end”, “weekends” and “tasks”.
func readFree(a *args.Args, c *tools.Env) freeArgs {
	w := tools.ReadWindow(a, c.Zone, c.Now)
	need := a.Minutes("duration", 30, 5, 24*60)
	dayStart := readClock(a, "day_start", 9*60)
	dayEnd := readClock(a, "day_end", 18*60)
	weekends := a.Flag("weekends")
	withTasks := a.Flag("tasks")
	if a.Err() == nil && dayEnd <= dayStart {
		a.Fail("day_end", fmt.Sprintf("“day_end” %02d:%02d must be after “day_start” %02d:%02d: write a later “day_end” (up to 24:00) or an earlier “day_start”, such as 09:00 to 18:00.", dayEnd/60, dayEnd%60, dayStart/60, dayStart%60))
	}
	if a.Err() == nil && dayEnd-dayStart < need {
		a.Fail("duration", fmt.Sprintf("“duration” %d minutes is longer than the working day from “day_start” to “day_end” (%d minutes): ask for at most %d, or widen the day (such as “day_start” 08:00 and “day_end” 20:00).", need, dayEnd-dayStart, dayEnd-dayStart))
	}
	return freeArgs{w, need, dayStart, dayEnd, weekends, withTasks}
}

func findFreeTime(c *tools.Env, in freeArgs) tools.ExecResult {
	w, need, dayStart, dayEnd, weekends, withTasks := in.w, in.need, in.dayStart, in.dayEnd, in.weekends, in.withTasks
	// Free time in the past is of no use: start at now, on a quarter hour.
	from := w.From
	if now := c.Now.Truncate(15 * time.Minute); now.Before(c.Now) {
		if n := now.Add(15 * time.Minute); n.After(from) {
			from = n
		}
	} else if now.After(from) {
		from = now
	}
	// The search starts at the later of from and now and looks at most
	// freeMaxDays ahead of that.
	start := later(w.From, from)
	asked := w.To
	cut := false
	if end := c.Zone.StartOfDay(c.Zone.Today(start).AddDays(freeMaxDays)); end.Before(w.To) {
		w.To, cut = end, true
	}
	var (
		free  []interval
		total int
	)
	err := c.Read(func(tx *store.Tx) error {
		var err error
		free, total, _, err = freeSlots(c.Ctx, tx, c.Zone, tools.Window{From: start, To: w.To}, need, dayStart, dayEnd, weekends, withTasks)
		return err
	})
	if err != nil {
		return tools.Fail(err)
	}
	shown := freeWindow(start, w.To, c.Zone)
	var b strings.Builder
	hours := fmt.Sprintf("%02d:%02d–%02d:%02d", dayStart/60, dayStart%60, dayEnd/60, dayEnd%60)
	days := "weekdays"
	if weekends {
		days = "every day"
	}
	if len(free) == 0 {
		fmt.Fprintf(&b, "No free time of %s from %s within %s, %s (%s).", minutes(time.Duration(need)*time.Minute), shown, hours, days, c.Zone.Name())
	} else {
		fmt.Fprintf(&b, "Free time of at least %s from %s within %s, %s (%s):", minutes(time.Duration(need)*time.Minute), shown, hours, days, c.Zone.Name())
	}
	type slot struct {
		Start   string `json:"start"`
		End     string `json:"end"`
		Minutes int    `json:"minutes"`
	}
	data := make([]slot, 0, len(free))
	for _, f := range free {
		fmt.Fprintf(&b, "\n%s (%s)", timeSpan(f.from, f.to, c.Zone), minutes(f.to.Sub(f.from)))
		data = append(data, slot{tz.RFC3339(f.from, c.Zone), tz.RFC3339(f.to, c.Zone), int(f.to.Sub(f.from) / time.Minute)})
	}
	if total > len(free) {
		fmt.Fprintf(&b, "\n… and %d more; ask for a shorter from/to window to see them.", total-len(free))
	}
	if cut {
		fmt.Fprintf(&b, "\nfind_free_time looks at most %d days ahead, so the search stopped at the end of %s, before the “to” asked (%s); call again with “from” %s for later free time.",
			freeMaxDays, tz.FormatDateModel(c.Zone.Today(w.To).AddDays(-1)), tz.FormatModel(asked, c.Zone), c.Zone.Today(w.To))
	}
	if !withTasks {
		b.WriteString("\n(Tasks were not counted; set “tasks” to count open tasks with a due time as busy.)")
	}
	return tools.SuccessWithData(b.String(), map[string]any{"free": data, "total": total, "time_zone": c.Zone.Name(), "tasks_counted": withTasks})
}

// freeMaxDays is how many days one find_free_time call searches at most,
// from the day of the later of “from” and now (in the person's zone).
const freeMaxDays = 92

// freeSlots returns up to maxSlots free slots of at least need minutes
// within working hours (dayStart to dayEnd, minutes after midnight in
// zone) of w, and how many there are in all. Busy times come in start
// order from [busyTimes] (timed occurrences) and, with withTasks, the half
// hour before each open task's due time. It stops with ctx's error when
// ctx is done; days is how many days it looked at, for the tests of
// bounded work.
func freeSlots(ctx context.Context, tx *store.Tx, zone tz.Zone, w tools.Window, need, dayStart, dayEnd int, weekends, withTasks bool) (free []interval, total, days int, err error) {
	busy, err := busyTimes(ctx, tx, zone, w)
	if err != nil {
		return nil, 0, 0, err
	}
	var dues []time.Time
	if withTasks {
		if dues, err = taskDues(tx, w.From, w.To.Add(taskBusy)); err != nil {
			return nil, 0, 0, err
		}
		slices.SortFunc(dues, time.Time.Compare)
	}
	return walkFree(ctx, zone, w, need, dayStart, dayEnd, weekends, busy, dues)
}

// busySource gives busy intervals in order of their start: next the next
// one (ok false at the end), skip lets it drop those that end at or
// before t (it may keep some).
type busySource interface {
	next() (iv interval, ok bool, err error)
	skip(t time.Time)
}

// walkFree finds the free slots as freeSlots says, from the busy times of
// busy and the task due times dues (sorted).
func walkFree(ctx context.Context, zone tz.Zone, w tools.Window, need, dayStart, dayEnd int, weekends bool, busy busySource, dues []time.Time) (free []interval, total, days int, err error) {
	// next gives the busy intervals in order of their start.
	var (
		head    interval
		hasHead bool
	)
	next := func() (interval, bool, error) {
		if !hasHead {
			var err error
			if head, hasHead, err = busy.next(); err != nil {
				return interval{}, false, err
			}
		}
		if len(dues) > 0 && (!hasHead || dues[0].Add(-taskBusy).Before(head.from)) {
			d := dues[0]
			dues = dues[1:]
			return interval{d.Add(-taskBusy), d}, true, nil
		}
		if !hasHead {
			return interval{}, false, nil
		}
		hasHead = false
		return head, true, nil
	}
	var (
		pending    interval
		hasPending bool
		carry      time.Time // the latest end of the busy times taken so far
	)
	long := time.Duration(need) * time.Minute
	for d := zone.Today(w.From); zone.StartOfDay(d).Before(w.To); d = d.AddDays(1) {
		days++
		if err := ctx.Err(); err != nil {
			return nil, 0, days, err
		}
		if !weekends && (d.Weekday() == time.Saturday || d.Weekday() == time.Sunday) {
			continue
		}
		lo, _ := zone.Instant(d.At(0, 0).AddMinutes(dayStart))
		hi, _ := zone.Instant(d.At(0, 0).AddMinutes(dayEnd))
		lo, hi = later(lo, w.From), earlier(hi, w.To)
		if !lo.Before(hi) {
			continue
		}
		// Busy times that end by lo change nothing from here on (carry
		// counts only past lo): the source may drop them unread.
		if hasPending && !pending.to.After(lo) {
			carry, hasPending = later(carry, pending.to), false
		}
		if !hasPending && !hasHead {
			busy.skip(lo)
		}
		cur := later(lo, carry)
		gap := func(to time.Time) {
			if to.Sub(cur) >= long {
				total++
				if len(free) < maxSlots {
					free = append(free, interval{cur, to})
				}
			}
		}
		for {
			if !hasPending {
				if pending, hasPending, err = next(); err != nil {
					return nil, 0, days, err
				}
				if !hasPending {
					break
				}
			}
			if !pending.from.Before(hi) {
				break // it belongs to a later day
			}
			hasPending = false
			carry = later(carry, pending.to)
			if !pending.to.After(cur) {
				continue
			}
			if pending.from.After(cur) {
				gap(earlier(pending.from, hi))
			}
			cur = later(cur, pending.to)
		}
		if cur.Before(hi) {
			gap(hi)
		}
	}
	return free, total, days, nil
}

// busyTimes gives the timed occurrences of tx's owner's live series that
// overlap w, overrides applied, in order of their start. Within
// busyMaxDays it reads them from the snapshot's busy index of w's days
// (made once, then patched), and streams only the series that have an
// override near w; a longer window streams every series, so memory does
// not grow with it.
func busyTimes(ctx context.Context, tx *store.Tx, zone tz.Zone, w tools.Window) (busySource, error) {
	days, indexed := busyDays(zone, w)
	snap, err := seriesFor(tx, days.From, days.To)
	if err != nil {
		return nil, err
	}
	b := &busyWalk{w: w, snap: snap, from: w.From.Unix(), to: w.To.Unix(), fromNs: w.From.UnixNano(), toNs: w.To.UnixNano(), span: snap.span}
	if indexed {
		var bl busyList
		if bl, indexed, err = snap.busyIndex(ctx, zone, days); err != nil {
			return nil, err
		}
		b.base, b.add, b.gone = busyCursor{list: bl.base}, busyCursor{list: bl.add}, bl.gone
	}
	if !indexed {
		streams, err := windowStreams(tx, snap, zone, w, 0, nil, "")
		if err != nil {
			return nil, err
		}
		b.m, err = newMerger(ctx, streams)
		return b, err
	}
	if b.ovs, err = windowOverrides(tx, w.From, w.To, snap.span); err != nil {
		return nil, err
	}
	var own []*stream
	for id, ovs := range b.ovs {
		r := snap.row(id)
		if r == nil || !r.reaches(b.from, b.to) {
			continue
		}
		first, last := time.Unix(r.first, 0), time.Time{}
		if r.last != math.MaxInt64 {
			last = time.Unix(r.last, 0)
		}
		own = append(own, newStream(r.e, first, last, ovs, zone, w, nil, nil, true))
	}
	b.m, err = newMerger(ctx, own)
	return b, err
}

// busyWalk merges a busy index (base less the series of gone, and add;
// the entries of series with an override near w, of series not reaching
// w and of occurrences outside w passed over) with the streams of m, in
// order of start.
type busyWalk struct {
	w            tools.Window
	snap         *snapshot
	from, to     int64 // w, Unix seconds, as seriesRow.reaches takes it
	fromNs, toNs int64 // w, Unix nanoseconds
	span         time.Duration
	base, add    busyCursor
	gone         []int64
	ovs          map[int64]map[string]*override
	m            *merger
	mo           occ // m's next timed occurrence, when hasM
	hasM         bool
	mDone        bool
}

// busyCursor is a place in a sorted list of busy entries.
type busyCursor struct {
	list []busyEntry
	i    int
}

// counts reports whether en is busy time in w.
func (b *busyWalk) counts(en *busyEntry, base bool) bool {
	if len(b.ovs) > 0 && b.ovs[en.id] != nil {
		return false
	}
	if base && len(b.gone) > 0 {
		if _, found := slices.BinarySearch(b.gone, en.id); found {
			return false
		}
	}
	// A start within w is in w, and its series reaches w (unless odd);
	// an earlier one is weighed in full.
	if !en.odd && en.start >= b.fromNs && en.start < b.toNs {
		return true
	}
	if en.end > en.start {
		if en.start >= b.toNs || en.end <= b.fromNs {
			return false
		}
	} else if en.start < b.fromNs || en.start >= b.toNs {
		return false
	}
	r := b.snap.row(en.id)
	return r != nil && r.reaches(b.from, b.to)
}

// peek moves c to its next entry that counts, if any.
func (b *busyWalk) peek(c *busyCursor, base bool) (*busyEntry, bool) {
	for ; c.i < len(c.list); c.i++ {
		if en := &c.list[c.i]; b.counts(en, base) {
			return en, true
		}
	}
	return nil, false
}

func (b *busyWalk) next() (interval, bool, error) {
	for !b.hasM && !b.mDone {
		o, ok, err := b.m.next()
		if err != nil {
			return interval{}, false, err
		}
		if !ok {
			b.mDone = true
		} else if !o.AllDay {
			b.mo, b.hasM = o, true
		}
	}
	en, ok := b.peek(&b.base, true)
	c := &b.base
	if a, aok := b.peek(&b.add, false); aok && (!ok || a.start < en.start) {
		en, ok, c = a, true, &b.add
	}
	if ok && (!b.hasM || en.start < b.mo.Start.UnixNano()) {
		c.i++
		return interval{time.Unix(0, en.start), time.Unix(0, en.end)}, true, nil
	}
	if b.hasM {
		b.hasM = false
		return interval{b.mo.Start, b.mo.End}, true, nil
	}
	return interval{}, false, nil
}

// skip passes over the index's entries that start before t less the
// longest occurrence of any series: they end by t.
func (b *busyWalk) skip(t time.Time) {
	cut := t.Add(-b.span).UnixNano()
	for _, c := range []*busyCursor{&b.base, &b.add} {
		if c.i < len(c.list) && c.list[c.i].start < cut {
			j, _ := slices.BinarySearchFunc(c.list[c.i:], cut, func(en busyEntry, c int64) int { return cmp.Compare(en.start, c) })
			c.i += j
		}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// taskDues returns the due instants in [from, to) of the owner's open,
// live tasks that have a due time (migrations/00002_tasks.sql: due_at is
// NULL for a date-only due).
func taskDues(tx *store.Tx, from, to time.Time) ([]time.Time, error) {
	return tx.OpenDueTimes(from, to)
}

// freeWindow gives the searched window as list_events does
// (tools.Window.String): a “to” at midnight is the last day it includes,
// also when the search starts later than 00:00 because part of the first
// day is past: "Mon 2026-04-13 11:15 (+02:00) to the end of Mon 2026-04-13".
func freeWindow(from, to time.Time, zone tz.Zone) string {
	w := tools.Window{From: from, To: to}
	f, t := zone.In(from), zone.In(to)
	if t.Hour != 0 || t.Minute != 0 || f.Hour == 0 && f.Minute == 0 {
		return w.String(zone)
	}
	return tz.FormatModel(from, zone) + " to the end of " + tz.FormatDateModel(t.Date.AddDays(-1))
}
