package recur

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Describe returns the rule in plain English for people and models, such
// as "every week on Monday and Wednesday, 10 times" or "every month on the
// last weekday (Monday to Friday), until 2026-12-31". It does not name
// DTSTART's time when the rule does not set one.
func (r *Rule) Describe() string {
	var b strings.Builder
	unit := map[Frequency]string{Yearly: "year", Monthly: "month", Weekly: "week", Daily: "day", Hourly: "hour", Minutely: "minute"}[r.freq]
	if r.interval == 1 {
		b.WriteString("every " + unit)
	} else {
		fmt.Fprintf(&b, "every %d %ss", r.interval, unit)
	}
	if len(r.byWeekNo) > 0 {
		b.WriteString(" in week " + andList(intStrings(r.byWeekNo, strconv.Itoa)))
	}
	if len(r.byYearDay) > 0 {
		b.WriteString(" on day " + andList(intStrings(r.byYearDay, strconv.Itoa)) + " of the year")
	}
	if len(r.byMonthDay) > 0 {
		b.WriteString(" on the " + andList(intStrings(r.byMonthDay, dayOfMonth)))
		if len(r.byDay) > 0 {
			b.WriteString(" when it is")
		}
	}
	if len(r.byDay) > 0 {
		days := make([]string, len(r.byDay))
		for i, d := range r.byDay {
			days[i] = ordinalDay(d)
		}
		if len(r.bySetPos) > 0 {
			b.WriteString(" on " + orList(days) + ", taking the " + andList(intStrings(r.bySetPos, setPos)) + " in each " + unit)
		} else {
			sep := " on "
			if len(r.byMonthDay) > 0 {
				sep = " "
			}
			b.WriteString(sep + andList(days))
		}
	} else if len(r.bySetPos) > 0 {
		b.WriteString(", taking the " + andList(intStrings(r.bySetPos, setPos)) + " in each " + unit)
	}
	if len(r.byMonth) > 0 {
		months := make([]string, len(r.byMonth))
		for i, m := range r.byMonth {
			months[i] = time.Month(m).String()
		}
		b.WriteString(" in " + andList(months))
	}
	switch {
	case len(r.byHour) > 0 && len(r.byMinute) > 0 && len(r.byHour)*len(r.byMinute) <= 6:
		var at []string
		for _, h := range r.byHour {
			for _, m := range r.byMinute {
				at = append(at, fmt.Sprintf("%02d:%02d", h, m))
			}
		}
		b.WriteString(" at " + andList(at))
	case len(r.byHour) > 0:
		b.WriteString(" in hour " + andList(intStrings(r.byHour, strconv.Itoa)))
		if len(r.byMinute) > 0 {
			b.WriteString(" at minute " + andList(intStrings(r.byMinute, strconv.Itoa)))
		}
	case len(r.byMinute) > 0:
		b.WriteString(" at minute " + andList(intStrings(r.byMinute, strconv.Itoa)))
	}
	switch {
	case r.count == 1:
		b.WriteString(", once")
	case r.count > 1:
		fmt.Fprintf(&b, ", %d times", r.count)
	}
	if m, utc, ok := r.Until(); ok {
		b.WriteString(", until " + m.String())
		if utc {
			b.WriteString(" UTC")
		}
	}
	return b.String()
}

func intStrings(v []int, f func(int) string) []string {
	out := make([]string, len(v))
	for i, n := range v {
		out[i] = f(n)
	}
	return out
}

// ordinalDay names d in words: "Wednesday", "the last Friday", "the 2nd
// Wednesday", "the 2nd-to-last Monday".
func ordinalDay(d ByDay) string {
	switch {
	case d.N == 0:
		return d.Day.String()
	case d.N == -1:
		return "the last " + d.Day.String()
	case d.N < 0:
		return "the " + ordinal(-d.N) + "-to-last " + d.Day.String()
	}
	return "the " + ordinal(d.N) + " " + d.Day.String()
}

func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

func dayOfMonth(n int) string {
	switch {
	case n == -1:
		return "last day"
	case n < 0:
		return ordinal(-n) + "-to-last day"
	}
	return ordinal(n)
}

func setPos(n int) string {
	switch {
	case n == -1:
		return "last"
	case n < 0:
		return ordinal(-n) + "-to-last"
	}
	return ordinal(n)
}

func joinList(v []string, word string) string {
	switch len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	}
	return strings.Join(v[:len(v)-1], ", ") + " " + word + " " + v[len(v)-1]
}

func andList(v []string) string { return joinList(v, "and") }
func orList(v []string) string  { return joinList(v, "or") }
