package remind

import (
	"github.com/assistant-dev/assistant/alarm"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// watched is an item as the reminders see it (package alarm).
type watched = alarm.Item

func loadItem(tx *store.Tx, label string, zone tz.Zone) (*watched, bool, error) {
	return alarm.Load(tx, label, zone)
}

func loadEvent(tx *store.Tx, id int64, zone tz.Zone) (*watched, bool, error) {
	return alarm.LoadEvent(tx, id, zone)
}

// wallClock is at on the wall clock of zone, "2026-10-04T23:00".
var wallClock = alarm.WallClock

// watchTask is a task as the reminders job sees it ([alarm.WatchTask]).
var watchTask = alarm.WatchTask
