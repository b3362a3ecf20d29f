package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// OffRule returns a note for the answer when start, the DTSTART of a
// repeating item, is not one of the times its rule produces, or "" when it
// is (or when that cannot be told). RFC 5545 §3.8.5.3 keeps such a DTSTART
// as the first occurrence, an extra one the rule would not give (a Tuesday
// start of FREQ=WEEKLY;BYDAY=MO,WE,FR, an Oct 30 start of
// FREQ=MONTHLY;BYMONTHDAY=-1), which is seldom what was meant; name is the
// argument that sets it (“start”, “due”).
//
// The rule is asked whether it produces start by expanding it from a
// DTSTART a whole number of its periods earlier (the same weekday, day of
// the month, month and clock time, so the parts the rule takes from
// DTSTART stay the same, and the same phase of INTERVAL), without COUNT
// and UNTIL; recur's own expansion answers, so the note agrees with the
// occurrences listed.
//
// Near the calendar's start the question is not asked: the expansion
// library cannot start before the year 1, and reads BYWEEKNO and the first
// weeks of the year 1 from the year before it, so a DTSTART whose earlier
// one falls before the year 2 gets "".
func OffRule(name string, start tz.Moment, zone tz.Zone, rule *recur.Rule) string {
	if rule == nil {
		return ""
	}
	open, err := recur.ParseRule(withoutEnd(rule.String()))
	if err != nil {
		return ""
	}
	civil := start.DateTime.AsUTC()
	iv := max(rule.Interval(), 1)
	var earlier time.Time
	switch rule.Freq() {
	case recur.Yearly, recur.Monthly:
		// Four years keep leap days and any monthly or yearly INTERVAL's
		// phase.
		earlier = civil.AddDate(-4*iv, 0, 0)
	case recur.Weekly:
		earlier = civil.AddDate(0, 0, -7*iv)
	case recur.Daily:
		earlier = civil.AddDate(0, 0, -iv)
	case recur.Hourly:
		earlier = civil.Add(-time.Duration(iv) * time.Hour)
	case recur.Minutely:
		earlier = civil.Add(-time.Duration(iv) * time.Minute)
	default:
		return ""
	}
	if earlier.Day() != civil.Day() && rule.Freq() <= recur.Monthly || earlier.Year() < 2 {
		return ""
	}
	from := tz.Moment{DateTime: tz.FromUTCClock(earlier), HasTime: start.HasTime}
	// The rule gives clock times: a DTSTART kept as the second of two
	// equal readings (Fold) is on the rule when its clock time is.
	at := startInstant(tz.Moment{DateTime: start.Clock(), HasTime: start.HasTime}, zone)
	probe := recur.Series{Start: from, Zone: zone, Rule: open}
	for _, o := range probe.StartsBetween(at, at.Add(time.Minute)) {
		if o.Start.Equal(at) {
			return ""
		}
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

// withoutEnd drops COUNT and UNTIL from an RRULE value.
func withoutEnd(rule string) string {
	parts := strings.Split(rule, ";")
	kept := parts[:0]
	for _, p := range parts {
		if !strings.HasPrefix(p, "COUNT=") && !strings.HasPrefix(p, "UNTIL=") {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ";")
}

func startInstant(m tz.Moment, zone tz.Zone) time.Time {
	if !m.HasTime {
		return zone.StartOfDay(m.Date)
	}
	t, _ := zone.Instant(m.DateTime)
	return t
}
