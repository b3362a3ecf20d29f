package remind

import (
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools/fields"
	"github.com/assistant-dev/assistant/tz"
)

func init() { fields.SkipPastReminders = SkipPast }

// SkipPast records as skipped, in tx, every reminder of the task or event
// label ("t12", "e7") that was already past at now when the item took its
// present form ([item.Schedule.PastFires]), and returns their instants,
// sorted, for the tool's answer to name. Such a reminder would never fire,
// so recording it says so in `remind --status` instead of leaving no
// trace. zone is the person's zone (00:00 of a date-only start or due). A
// fire already recorded is left as it is.
func SkipPast(tx *store.Tx, label string, zone tz.Zone, now time.Time) ([]time.Time, error) {
	it, found, err := loadItem(tx, label, zone)
	if err != nil || !found {
		return nil, err
	}
	var fires []store.NewDelivery
	for _, f := range it.PastFires(now) {
		nd := store.NewDelivery{Item: label, Occurrence: f.Occurrence, Trigger: f.Trigger, FireAt: f.At}
		if it.AllDay {
			nd.LocalFire = wallClock(f.At, zone)
		}
		fires = append(fires, nd)
	}
	return tx.SkipFires(fires, "its time had already passed when it was set ("+tz.FormatModel(now, zone)+")", now)
}
