package alarm

import (
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/task"
	"github.com/assistant-dev/assistant/tz"
)

// WatchTask is task t as the reminders job sees it, for a person in zone:
// its occurrences (a repeating task's next dues), triggers and one-time
// reminders; deleted marks a task that no longer fires.
func WatchTask(t task.Task, deleted bool, zone tz.Zone) (*Item, error) {
	return watchTask(t, deleted, zone)
}

// WatchEvent is the event id, as [store.Tx.EventsForReminders] read it,
// as the reminders job sees it for a person in zone ([LoadEvent] without
// the read).
func WatchEvent(w store.WatchedEvent, id int64, zone tz.Zone) (*Item, error) {
	it, _, err := watchEvent(w, id, zone)
	return it, err
}
