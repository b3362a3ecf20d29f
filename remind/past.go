package remind

import (
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools/fields"
	"github.com/assistant-dev/assistant/tz"
)

func init() { fields.SkipPastReminders = SkipPast }

// pastLookback is how far back SkipPast looks for the reminders of an
// item that does not repeat (a remind_at may be long before its start).
const pastLookback = 100 * 366 * 24 * time.Hour

// pastRepeatWindow is how far before now SkipPast looks for reminders of
// a repeating item's occurrences still to start: the longest
// remind_before (four weeks) and a few days.
const pastRepeatWindow = 31 * 24 * time.Hour

// SkipPast records as skipped, in tx, every reminder of the task or event
// label ("t12", "e7") that was already past at now when the item took its
// present form, and returns their instants, sorted, for the tool's answer
// to name. Such a reminder would never fire (the job only looks for fires
// after an item's change), so recording it says so in `remind --status`
// instead of leaving no trace. For a repeating item only the reminders of
// occurrences still to start count (those of past occurrences were never
// promised); for one that does not repeat, every reminder before now.
// zone is the person's zone (00:00 of a date-only start or due). A fire
// already recorded is left as it is.
func SkipPast(tx *store.Tx, label string, zone tz.Zone, now time.Time) ([]time.Time, error) {
	it, found, err := loadItem(tx, label, zone)
	if err != nil || !found || !it.hasReminders() {
		return nil, err
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
			return nil, nil
		}
		// Bounded, so a rule of many occurrences is never expanded over
		// years: a remind_at further before its start is not looked for.
		from = now.Add(max(lo, -pastRepeatWindow))
	}
	var fires []store.NewDelivery
	for _, f := range it.between(from, now) {
		if !f.At.Before(now) || (repeats && f.Start.Before(now)) {
			continue
		}
		nd := store.NewDelivery{Item: label, Occurrence: f.Occurrence, Trigger: f.Trigger, FireAt: f.At}
		if it.AllDay {
			nd.LocalFire = wallClock(f.At, zone)
		}
		fires = append(fires, nd)
	}
	return tx.SkipFires(fires, "its time had already passed when it was set ("+tz.FormatModel(now, zone)+")", now)
}
