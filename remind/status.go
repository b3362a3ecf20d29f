package remind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// StatusLimit is how many entries each section of a status report lists.
const StatusLimit = 20

// Entry is one reminder in a status report.
type Entry struct {
	DeliveryID string    // the id it has (or will have when recorded); "" for an upcoming one
	Item       string    // "t12", "e7", "digest"
	Title      string    // the item's title as it is now
	Occurrence string    // RECURRENCE-ID form; "" for a task without a due; a digest's day "20261005"
	Trigger    string    // "before:15", "at:…", "digest"
	FireAt     time.Time // when it is (was) due
	SentAt     time.Time // zero unless sent
	Attempts   int
	NextTry    time.Time // a pending retry's time
	Error      string    // the last failure, or why it was (or will be) skipped
	Claimed    bool      // in a sender's hands right now
}

// PersonStatus is one person's reminders at At, classified by that clock
// the way the next pass will treat them. Due and Missed are oldest first
// and newest first; Upcoming is soonest first; the recorded sections are
// newest first. Each list holds at most StatusLimit entries except Due and
// Missed, which hold all (WriteStatus shows the first StatusLimit).
type PersonStatus struct {
	Name, Zone string
	At         time.Time     // the clock the report was made at
	MaxLate    time.Duration // the --max-late the classification used
	// Due: fire time passed no more than MaxLate ago and not sent yet
	// (recorded or not), or a retry whose time came: the next pass sends it.
	Due []Entry
	// Missed: fire time passed more than MaxLate ago and never sent, or
	// its event occurrence already over: the next pass records it as
	// skipped (or failed, after earlier attempts).
	Missed []Entry
	// Upcoming: fire times and retries still in the future.
	Upcoming []Entry
	Sent     []Entry
	Late     []Entry // of the sent, those more than LateAfter after their time
	Skipped  []Entry
	Failed   []Entry
	// Unsynced, when not "", is why the index could not be brought up to
	// date (the database cannot be written: store.Explain's sentence); the
	// report is then as the last pass left it.
	Unsynced string
}

// Status brings the index up to date with the items (it records and sends
// nothing) and reports every person's reminders as of the engine's clock.
// When the database cannot be written (store.TroubleOf: read-only, a full
// disk) the index is read as it is, and PersonStatus.Unsynced says why.
func (e *Engine) Status(ctx context.Context) ([]PersonStatus, error) {
	people, err := e.persons(ctx)
	if err != nil {
		return nil, err
	}
	now := e.now()
	var out []PersonStatus
	for _, p := range people {
		ps := PersonStatus{Name: p.Name, Zone: p.Zone.Name(), At: now, MaxLate: e.maxLate}
		var r Result
		var st state
		err := errBigRebuild
		// A zone change between the rebuild and the sync asks for another.
		for try := 0; errors.Is(err, errBigRebuild); try++ {
			if try == rebuildTries {
				return nil, rebuildsRaced(p)
			}
			if err = e.rebuild(ctx, p, now, &r); err != nil {
				break
			}
			_, err = e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error {
				var err error
				if st, err = e.sync(tx, p, now, &r); err != nil {
					return err
				}
				if err := e.extendForStatus(tx, p, &st, now, &r); err != nil {
					return err
				}
				return saveState(tx, st)
			})
		}
		if err != nil {
			// A database that cannot be written (read-only, a full disk)
			// is still reported: as the last pass left it.
			if store.TroubleOf(err) == store.NoTrouble {
				return nil, err
			}
			ps.Unsynced = e.s.Explain(err)
			if err := e.s.Read(ctx, p.ID, func(tx *store.Tx) error {
				var err error
				st, err = loadState(tx)
				return err
			}); err != nil {
				return nil, err
			}
		}
		err = e.s.Read(ctx, p.ID, func(tx *store.Tx) error {
			titles := map[string]string{}
			title := func(label string) string {
				if label == "digest" {
					return "daily agenda"
				}
				if t, ok := titles[label]; ok {
					return t
				}
				t := label
				if it, ok, err := loadItem(tx, label, p.Zone); err == nil && ok {
					t = it.Title
				}
				titles[label] = t
				return t
			}
			if err := e.unsent(tx, p, st, now, title, &ps); err != nil {
				return err
			}
			sections := []struct {
				into *[]Entry
				view store.DeliveryView
			}{
				{&ps.Sent, store.SentView},
				{&ps.Late, store.SentLateView},
				{&ps.Skipped, store.SkippedView},
				{&ps.Failed, store.FailedView},
			}
			for _, s := range sections {
				list, err := entries(tx, s.view, StatusLimit, title)
				if err != nil {
					return err
				}
				*s.into = list
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, ps)
	}
	return out, nil
}

// entries reads the deliveries of view (late ones: more than LateAfter),
// at most limit of them (-1: all).
func entries(tx *store.Tx, view store.DeliveryView, limit int, title func(string) string) ([]Entry, error) {
	list, err := tx.Deliveries(view, LateAfter, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(list))
	for _, d := range list {
		en := Entry{DeliveryID: d.ID, Item: d.Item, Occurrence: d.Occurrence, Trigger: d.Trigger, FireAt: d.FireAt,
			SentAt: d.SentAt, Attempts: d.Attempts, Error: d.LastError}
		switch d.Status {
		case store.DeliveryPending:
			en.NextTry = d.NextAttempt
		case store.DeliveryClaimed:
			en.Claimed = true
			en.NextTry = d.NextAttempt // the lease's end
		}
		out = append(out, en)
	}
	for i := range out {
		out[i].Title = title(out[i].Item)
	}
	return out, nil
}

// unsent fills Due, Missed and Upcoming: what the next pass will do with
// the recorded deliveries not yet settled, with the fires whose time came
// since the last pass but that no pass has recorded yet (status never
// records: a pass at the same clock would), and with the next fires to
// come. The rules are those of record, insert and claim, so the report
// says what a pass run now would do.
func (e *Engine) unsent(tx *store.Tx, p person, st state, now time.Time, title func(string) string, ps *PersonStatus) error {
	recorded, err := entries(tx, store.Unsettled, -1, title)
	if err != nil {
		return err
	}
	// A reminder of an event occurrence already over is skipped by the
	// next pass (claim), not sent.
	over := func(en Entry) (string, bool) {
		ended, why, err := e.ended(tx, p, en.Item, en.Occurrence, en.Trigger, en.FireAt, now)
		return why, err == nil && ended
	}
	for _, en := range recorded {
		e.classify(en, now, ps, over)
	}

	past, err := tx.NextFiresDue(now)
	if err != nil {
		return err
	}
	future, err := tx.NextFiresAfter(now, StatusLimit)
	if err != nil {
		return err
	}
	after := now.Truncate(time.Second).Add(time.Second)
	for _, n := range past {
		it, ok, err := loadItem(tx, n.Item, p.Zone)
		if err != nil || !ok {
			continue
		}
		for _, f := range it.Between(n.At, now) {
			known, err := tx.IsRecorded(n.Item, f.Occurrence, f.Trigger, f.At)
			if err != nil {
				return err
			}
			if !known && it.AllDay {
				if known, err = recordedForDay(tx, n.Item, f.Occurrence, f.Trigger, wallClock(f.At, p.Zone), f.At); err != nil {
					return err
				}
			}
			if !known {
				e.classify(Entry{DeliveryID: store.DeliveryID(tx.Owner(), n.Item, f.Occurrence, f.Trigger, f.At),
					Item: n.Item, Title: it.Title, Occurrence: f.Occurrence, Trigger: f.Trigger, FireAt: f.At}, now, ps, over)
			}
		}
		// What the pass will move the item's next fire to.
		if at, ok := it.Next(after); ok {
			future = append(future, store.NextFire{Item: n.Item, At: at.Truncate(time.Second)})
		}
	}
	// Snoozes not recorded yet: a pass records them once their time came.
	snoozes, err := tx.SnoozesWaiting(-1)
	if err != nil {
		return err
	}
	for _, s := range snoozes {
		en := Entry{DeliveryID: s.ID, Item: s.Item, Title: title(s.Item), Occurrence: s.Occurrence,
			Trigger: store.SnoozeTrigger(s.ID), FireAt: s.FireAt}
		if s.FireAt.After(now) {
			ps.Upcoming = append(ps.Upcoming, en)
			continue
		}
		e.classify(en, now, ps, over)
	}
	if e.digest != nil {
		if err := e.unsentDigests(tx, p, st, now, ps); err != nil {
			return err
		}
	}
	for _, n := range future {
		if !st.Horizon.IsZero() && n.At.After(st.Horizon) {
			continue // an item not indexed yet may fire before it
		}
		it, ok, err := loadItem(tx, n.Item, p.Zone)
		if err != nil || !ok {
			continue
		}
		for _, f := range it.Between(n.At, n.At) {
			ps.Upcoming = append(ps.Upcoming, Entry{Item: n.Item, Title: it.Title, Occurrence: f.Occurrence,
				Trigger: f.Trigger, FireAt: f.At})
		}
	}
	slices.SortStableFunc(ps.Upcoming, func(a, b Entry) int { return upcomingAt(a).Compare(upcomingAt(b)) })
	slices.SortStableFunc(ps.Due, func(a, b Entry) int { return a.FireAt.Compare(b.FireAt) })
	slices.SortStableFunc(ps.Missed, func(a, b Entry) int { return b.FireAt.Compare(a.FireAt) })
	if len(ps.Upcoming) > StatusLimit {
		ps.Upcoming = ps.Upcoming[:StatusLimit]
	}
	return nil
}

// upcomingAt is when an upcoming entry will next be tried.
func upcomingAt(en Entry) time.Time {
	if !en.NextTry.IsZero() {
		return en.NextTry
	}
	return en.FireAt
}

// classify puts an unsent reminder in the section the next pass at now
// decides: past MaxLate it is skipped (or, after attempts, failed); due
// or a retry whose time came, it is sent, unless over (when not nil) says
// its event occurrence has ended (then skipped, saying why); otherwise it
// waits.
func (e *Engine) classify(en Entry, now time.Time, ps *PersonStatus, over func(Entry) (string, bool)) {
	switch late := now.Sub(en.FireAt); {
	case en.Claimed && en.NextTry.After(now):
		ps.Due = append(ps.Due, en) // being sent right now
	case !en.NextTry.IsZero() && en.NextTry.After(now):
		ps.Upcoming = append(ps.Upcoming, en) // a retry's wait
	case late > e.maxLate:
		if en.Attempts == 0 {
			en.Error = "missed by " + humanDuration(late) + ", more than the " + humanDuration(e.maxLate) +
				" allowed (--max-late)"
		} else {
			last := "last error: " + en.Error
			if en.Error == "" {
				last = "its sender stopped before recording a result"
			}
			en.Error = "gives up after " + attempts(en.Attempts) + ": more than " + humanDuration(e.maxLate) +
				" late (--max-late); " + last
		}
		ps.Missed = append(ps.Missed, en)
	case late < 0:
		ps.Upcoming = append(ps.Upcoming, en)
	default:
		if over != nil {
			if why, ok := over(en); ok {
				en.Error = why
				ps.Missed = append(ps.Missed, en)
				return
			}
		}
		ps.Due = append(ps.Due, en)
	}
}

// unsentDigests classifies the agendas whose time came since the last
// pass and are not recorded (as recordDigests would record them), and adds
// the next one to Upcoming.
func (e *Engine) unsentDigests(tx *store.Tx, p person, st state, now time.Time, ps *PersonStatus) error {
	passed := st.PassedAt
	for day := p.Zone.Today(passed); !day.After(p.Zone.Today(now)); day = day.AddDays(1) {
		at, _ := p.Zone.Instant(day.At(e.digest.Hour, e.digest.Minute))
		if !at.After(passed) || at.After(now) {
			continue
		}
		// One agenda a day whatever its time was, as recordDigests keeps it.
		if done, err := tx.DigestRecorded(day.Basic()); err != nil {
			return err
		} else if done {
			continue
		}
		e.classify(Entry{DeliveryID: store.DeliveryID(tx.Owner(), "digest", day.Basic(), "digest", at),
			Item: "digest", Title: "daily agenda", Occurrence: day.Basic(), Trigger: "digest", FireAt: at}, now, ps, nil)
	}
	at := e.nextDigest(p.Zone, now)
	day := p.Zone.Today(at)
	ps.Upcoming = append(ps.Upcoming, Entry{Item: "digest", Title: "daily agenda", Occurrence: day.Basic(),
		Trigger: "digest", FireAt: at})
	return nil
}

// WriteStatus renders reports as text for a terminal, instants in each
// person's zone as the tools show them ("Mon 2026-10-05 08:45 (+02:00)").
func WriteStatus(w io.Writer, reports []PersonStatus) error {
	var b strings.Builder
	for i, ps := range reports {
		if i > 0 {
			b.WriteString("\n")
		}
		zone, err := tz.LoadZone(ps.Zone)
		if err != nil {
			zone = tz.UTC
		}
		fmt.Fprintf(&b, "%s (%s)\n", ps.Name, ps.Zone)
		if ps.Unsynced != "" {
			fmt.Fprintf(&b, "  (as the last pass left them, since changes since then could not be counted: %s)\n", ps.Unsynced)
		}
		section := func(name string, list []Entry, line func(Entry) string) {
			fmt.Fprintf(&b, "  %s: %d\n", name, len(list))
			for i, en := range list {
				if i == StatusLimit {
					fmt.Fprintf(&b, "    … and %d more\n", len(list)-i)
					break
				}
				fmt.Fprintf(&b, "    %s  %s “%s” %s%s\n", tz.FormatModel(en.FireAt, zone), en.Item, en.Title,
					describeTrigger(en, zone), line(en))
			}
		}
		section("due now", ps.Due, func(en Entry) string {
			var s string
			switch late := ps.At.Sub(en.FireAt); {
			case en.Claimed:
				s = "being sent (" + ordinal(en.Attempts) + " attempt)"
			case en.Attempts > 0:
				s = fmt.Sprintf("retry due after %s: %s", attempts(en.Attempts), en.Error)
			case late < time.Minute:
				s = "now"
			default:
				s = humanDuration(late) + " ago"
			}
			return "  " + s + "  " + en.DeliveryID
		})
		section("will be skipped", ps.Missed, func(en Entry) string { return "  " + en.Error })
		section("upcoming", ps.Upcoming, func(en Entry) string {
			if !en.NextTry.IsZero() {
				return fmt.Sprintf("  retry at %s after %s: %s  %s", tz.FormatModel(en.NextTry, zone),
					attempts(en.Attempts), en.Error, en.DeliveryID)
			}
			return ""
		})
		section("sent", ps.Sent, func(en Entry) string {
			return "  sent " + tz.FormatModel(en.SentAt, zone) + "  " + en.DeliveryID
		})
		section("late", ps.Late, func(en Entry) string {
			return "  sent " + humanDuration(en.SentAt.Sub(en.FireAt)) + " late  " + en.DeliveryID
		})
		section("skipped", ps.Skipped, func(en Entry) string { return "  " + en.Error })
		section("failed", ps.Failed, func(en Entry) string {
			return fmt.Sprintf("  after %s: %s  %s", attempts(en.Attempts), en.Error, en.DeliveryID)
		})
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describeTrigger says what a trigger is in words, times in zone as the
// tools show them: "15 min before (20261005T070000Z)", "at Mon 2026-10-05
// 08:00 (+02:00)", "once at Mon 2026-10-12 08:00 (+02:00)", "for Mon
// 2026-10-05".
func describeTrigger(en Entry, zone tz.Zone) string {
	kind, val, _ := strings.Cut(en.Trigger, ":")
	switch kind {
	case "before":
		var n int
		fmt.Sscan(val, &n)
		return humanDuration(time.Duration(n)*time.Minute) + " before" + occSuffix(en.Occurrence)
	case "at":
		return "at " + momentWords(val, zone) + occSuffix(en.Occurrence)
	case "once":
		return "once at " + tz.FormatModel(en.FireAt, zone)
	case "snooze":
		return "snoozed" + occSuffix(en.Occurrence)
	case "digest":
		if m, _, err := tz.ParseBasic(en.Occurrence); err == nil {
			return "for " + tz.FormatDateModel(m.Date)
		}
		return "for " + en.Occurrence
	}
	return en.Trigger
}

// momentWords renders a stored moment ("2026-10-05T08:00" or
// "2026-10-05", civil in zone, or "2026-10-05T12:30[Europe/Paris]", civil
// in the bracket's zone) as the tools show it in zone; text that is not
// one is given back as it is.
func momentWords(s string, zone tz.Zone) string {
	in := zone // the zone the moment is civil in: its bracket's, else the person's
	if base, name, ok := strings.Cut(s, "["); ok && strings.HasSuffix(name, "]") {
		z, err := tz.LoadZone(strings.TrimSuffix(name, "]"))
		if err != nil {
			return s
		}
		s, in = base, z
	}
	m, err := tz.ParseStored(s)
	if err != nil {
		return s
	}
	if !m.HasTime {
		return tz.FormatDateModel(m.Date)
	}
	at, _ := in.Instant(m.DateTime)
	return tz.FormatModel(at, zone)
}

// ordinal is "1st", "2nd", "3rd", "4th"… for attempt numbers.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

func occSuffix(occ string) string {
	if occ == "" {
		return ""
	}
	return " (" + occ + ")"
}

// attempts is "1 attempt" or "3 attempts".
func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}

// extendForStatus extends the index's horizon until it holds the next
// StatusLimit fires after now, or every item: upcoming lists the soonest
// ones whatever their distance, and only fires up to the horizon are
// known to be the soonest. Each step reads the items whose first fire
// comes in it, twice as long a stretch as the one before, from the next
// item's first fire on, so a sparse future takes a few steps.
func (e *Engine) extendForStatus(tx *store.Tx, p person, st *state, now time.Time, r *Result) error {
	for step := horizonWindow; !st.Horizon.IsZero(); step *= 2 {
		list, err := tx.NextFiresAfter(now, StatusLimit)
		if err != nil {
			return err
		}
		n := 0
		for _, f := range list {
			if !f.At.After(st.Horizon) {
				n++
			}
		}
		if n >= StatusLimit {
			return nil
		}
		next, ok, err := tx.RemindFromAfter(st.Horizon)
		if err != nil {
			return err
		}
		if !ok {
			st.Horizon = time.Time{} // every item is in the index
			return nil
		}
		if err := e.extend(tx, p, st, maxTime(next, st.Horizon.Add(step)), r); err != nil {
			return err
		}
	}
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
