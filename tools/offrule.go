package tools

import (
	"fmt"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// OffRule returns a note for the answer when start, the DTSTART of a
// repeating item, is not one of the times its rule produces, or "" when it
// is (or when that cannot be told: [recur.Series.StartOnRule]). RFC 5545
// §3.8.5.3 keeps such a DTSTART as the first occurrence, an extra one the
// rule would not give (a Tuesday start of FREQ=WEEKLY;BYDAY=MO,WE,FR, an
// Oct 30 start of FREQ=MONTHLY;BYMONTHDAY=-1), which is seldom what was
// meant; name is the argument that sets it (“start”, “due”).
func OffRule(name string, start tz.Moment, zone tz.Zone, rule *recur.Rule) string {
	if on, known := (recur.Series{Start: start, Zone: zone, Rule: rule}).StartOnRule(); on || !known {
		return ""
	}
	sub := start.HasTime && rule.Freq() > recur.Daily
	unit, what := "days", tz.FormatDateModel(start.Date)
	if sub {
		unit, what = "times", what+fmt.Sprintf(" %02d:%02d", start.Hour, start.Minute)
	}
	note := fmt.Sprintf("Note: %s is not one of the rule's %s, so it is an extra first occurrence (RFC 5545 keeps DTSTART)", what, unit)
	own := recur.Series{Start: start, Zone: zone, Rule: rule}.All(2)
	if len(own) < 2 {
		return note + "; the rule gives no other occurrence."
	}
	next := tz.FormatDateModel(own[1].Original.Date)
	if sub {
		next += fmt.Sprintf(" %02d:%02d", own[1].Original.Hour, own[1].Original.Minute)
	}
	return note + fmt.Sprintf("; the rule's own %s start %s. Set “%s” to that if the extra one is not meant.", unit, next, name)
}
