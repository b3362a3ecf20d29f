package alarm

import (
	"slices"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// pastLookback is how far back PastFires looks for the reminders of an
// item that does not repeat (a remind_at may be long before its start).
const pastLookback = 100 * 366 * 24 * time.Hour

// pastRepeatWindow is how far before now PastFires looks for reminders of
// a repeating item's occurrences still to start: the longest
// remind_before (four weeks) and a few days.
const pastRepeatWindow = 31 * 24 * time.Hour

// PastFires are the fires of the item, in the form it has at now, whose
// time was already past at now, sorted by instant: they would never fire,
// since the reminders job only looks for fires after an item changed. For
// a repeating item only the reminders of occurrences still to start count
// (those of past occurrences were never promised), looked for at most a
// little over four weeks back; for one that does not repeat, every
// reminder before now.
func (it *watched) PastFires(now time.Time) []Fire {
	if !it.hasReminders() {
		return nil
	}
	repeats := !it.NoBase && (it.Series.Rule != nil || len(it.Series.RDates) > 0)
	from := now.Add(-pastLookback)
	if repeats {
		lo, _ := offsetRange(it.Triggers)
		for _, ov := range it.Over {
			if l, _ := offsetRange(ov.Triggers); len(ov.Triggers) > 0 && l < lo {
				lo = l
			}
		}
		if lo >= 0 {
			return nil
		}
		// Bounded, so a rule of many occurrences is never expanded over
		// years: a remind_at further before its start is not looked for.
		from = now.Add(max(lo, -pastRepeatWindow))
	}
	var out []Fire
	for _, f := range it.between(from, now) {
		if !f.At.Before(now) || (repeats && f.Start.Before(now)) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// WallClock is at on the wall clock of zone, "2026-10-04T23:00": how a
// delivery records the fire of a date-only start or due (local_fire).
func WallClock(at time.Time, zone tz.Zone) string { return tz.TimeMoment(zone.In(at)).String() }

// SkipPast records as skipped, in tx, every reminder of the task or event
// label ("t12", "e7") that was already past at now when the item took its
// present form ([Item.PastFires]), and returns their instants, sorted and
// without repeats, for the tool's answer to name ([item.PastReminders]).
// Recording them says so in `assistant remind --status` instead of leaving
// no trace. zone is the person's zone (00:00 of a date-only start or due).
// A fire already recorded is left as it is. Tools call it in the write
// that changed the item, after the change.
func SkipPast(tx *store.Tx, label string, zone tz.Zone, now time.Time) ([]time.Time, error) {
	it, found, err := loadItem(tx, label, zone)
	if err != nil || !found {
		return nil, err
	}
	var fires []store.NewDelivery
	for _, f := range it.PastFires(now) {
		nd := store.NewDelivery{Item: label, Occurrence: f.Occurrence, Trigger: f.Trigger, FireAt: f.At}
		if it.AllDay {
			nd.LocalFire = WallClock(f.At, zone)
		}
		fires = append(fires, nd)
	}
	return tx.SkipFires(fires, "its time had already passed when it was set ("+tz.FormatModel(now, zone)+")", now)
}

// MissedLookback is how far back [RecordMissed] looks: past it the
// reminders job would skip a fire anyway, at any --max-late worth having.
const MissedLookback = 7 * 24 * time.Hour

// RecordMissed records as pending, in tx, every reminder of the task or
// event label ("t12", "e7"), in the form it has now, whose instant is in
// [from, now) (at most MissedLookback before now) and that has no
// delivery row: the fires an undo brings back, which passed while the
// change it undid was in place (a deleted task's, a completed one's, a
// moved due's), and which the reminders job, which looks for fires only
// after an item changed, would never record. It treats them as it treats
// those it missed while it was down: sent late, or recorded as skipped
// when more than its --max-late late. It returns the instants added,
// sorted and without repeats. zone is the person's zone.
func RecordMissed(tx *store.Tx, label string, zone tz.Zone, from, now time.Time) ([]time.Time, error) {
	if lo := now.Add(-MissedLookback); from.Before(lo) {
		from = lo
	}
	if !from.Before(now) {
		return nil, nil
	}
	it, found, err := loadItem(tx, label, zone)
	if err != nil || !found || it.Dead {
		return nil, err
	}
	var out []time.Time
	for _, f := range it.between(from, now) {
		if !f.At.Before(now) {
			continue
		}
		nd := store.NewDelivery{Item: label, Occurrence: f.Occurrence, Trigger: f.Trigger, FireAt: f.At.Truncate(time.Second),
			Status: store.DeliveryPending}
		if it.AllDay {
			nd.LocalFire = WallClock(f.At, zone)
		}
		added, err := tx.RecordDelivery(nd, now)
		if err != nil {
			return nil, err
		}
		if added {
			out = append(out, nd.FireAt)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return slices.CompactFunc(out, time.Time.Equal), nil
}
