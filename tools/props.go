package tools

import "fmt"

// Schema properties the task and event tools share, so both describe
// them in the same words.
var (
	FromProp         = Str("from", "Start of the window: a day (2026-10-05) or a day and time (2026-10-05T09:00) in the person's zone. Default: today 00:00.")
	ToProp           = Str("to", "End of the window: a day (2026-10-11: that whole day is included) or a day and time (2026-10-11T18:00: up to that moment, which is not included). Default: 7 days after from.")
	CursorProp       = Str("cursor", "The next-page cursor a previous answer gave (such as o20). Leave out for the first page.")
	RemindBeforeProp = Ints("remind_before", "Reminders as minutes before the start or due, for example [10, 1440] for 10 minutes and 1 day before.")
	RemindAtProp     = Strs("remind_at", "Reminders at fixed moments, such as [\"2026-10-05T08:00\"], in the item's zone.")
)

// LimitProp describes “limit” with its default and maximum.
func LimitProp(def, most int) Property {
	return Int("limit", fmt.Sprintf("How many to show, 1 to %d (default %d).", most, def)).Range(1, float64(most))
}
