package alarm

import "github.com/assistant-dev/assistant/tz"

// TaskColumns and ScanTask let remind read every open task with reminders
// in one query (its rebuild) until it does so through the store's task
// methods; they go then.
const TaskColumns = taskColumns

// ScanTask decodes one row of [TaskColumns].
func ScanTask(row interface{ Scan(...any) error }, zone tz.Zone) (*Item, error) {
	return scanTask(row, zone)
}
