package tools

import "fmt"

// Schema properties the task and event tools share, so both describe
// them in the same words.
var (
	FromProp         = Str("from", "Default today 00:00.")
	ToProp           = Str("to", "Default 7 days after from.")
	CursorProp       = Str("cursor", "next_cursor of the page before.")
	RemindBeforeProp = Ints("remind_before", "Minutes before the start or due, such as [10, 1440].")
	RemindAtProp     = Strs("remind_at", "Moments, such as [\"2026-10-05T08:00\"], in the item's zone.")
)

// LimitProp describes “limit” with its default and maximum.
func LimitProp(def, most int) Property {
	return Int("limit", fmt.Sprintf("Default %d.", def)).Range(1, float64(most))
}
