package events

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tz"
)

// daysRefusal words a [calendar.DaysError] of series label, whose rule r
// cannot move by d days, as one sentence naming “start” and a rule to
// write instead; any other error is returned as it is.
func daysRefusal(err error, r *recur.Rule, d int, label string) error {
	var de *calendar.DaysError
	if !errors.As(err, &de) {
		return err
	}
	days := fmt.Sprintf("%d days", d)
	if d == 1 || d == -1 {
		days = fmt.Sprintf("%d day", d)
	}
	if de.FromStart {
		return tools.RefuseArg("start", fmt.Sprintf("“start” moves %s by %s, but its rule (RRULE:%s) repeats on the start's day of the month, and months of other lengths would move by other days; give the new “rrule” in the same call, such as rrule=\"%s\".",
			label, days, r, de.Example))
	}
	return tools.RefuseArg("start", fmt.Sprintf("“start” moves %s by %s, but its rule (RRULE:%s) picks days by parts that cannot move along; give the new “rrule” in the same call, such as rrule=\"%s\".",
		label, days, r, de.Example))
}

// monthEndNote warns that a MONTHLY rule taking its day from a start on
// the 29th to 31st (or a YEARLY one from 29 February) skips the months (or
// years) without that day, as RFC 5545 §3.3.10 asks, and names the rule for
// month ends. "" when it does not apply.
func monthEndNote(r *recur.Rule, start tz.Moment) string {
	if r == nil {
		return ""
	}
	ps := calendar.PartsOf(r)
	for _, k := range []string{"BYMONTHDAY", "BYDAY", "BYYEARDAY", "BYWEEKNO", "BYSETPOS", "BYMONTH"} {
		if k == "BYMONTH" && r.Freq() == recur.Yearly && ps.Value(k) == "2" {
			continue
		}
		if ps.Has(k) {
			return ""
		}
	}
	day := start.Date
	switch {
	case r.Freq() == recur.Monthly && day.Day >= 29:
		return fmt.Sprintf("Note: RFC 5545 skips the months without a %s, so this rule has no occurrence in them; rrule=\"%s\" means the last day of every month instead.",
			ordinalDay(day.Day), ps.Set("BYMONTHDAY", "-1"))
	case r.Freq() == recur.Yearly && day.Month == time.February && day.Day == 29:
		return fmt.Sprintf("Note: RFC 5545 skips the years without a 29 February, so this rule occurs in leap years only; rrule=\"%s\" means the last day of February every year instead.",
			ps.Set("BYMONTH", "2").Set("BYMONTHDAY", "-1"))
	}
	return ""
}

// ordinalDay is "29th", "30th", "31st".
func ordinalDay(n int) string {
	if n == 31 {
		return "31st"
	}
	return strconv.Itoa(n) + "th"
}
