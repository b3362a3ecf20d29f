// Package icstest makes iCalendar files for tests and benchmarks, so no
// large .ics file is kept in the repository.
package icstest

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Calendar writes to w an iCalendar stream (RFC 5545) of n VEVENTs drawn
// from seed, the same bytes for the same n and seed: 80% one-off and 20%
// repeating (weekly with COUNT, daily with UNTIL, monthly with BYMONTHDAY
// and an EXDATE), half of them with a VALARM, a fifth all-day and the
// others at times in three IANA zones (TZID without VTIMEZONE) or in UTC,
// over 2026 and 2027; about 280 bytes an event (14 MB for 50,000). Each
// event's UID is "gen-<i>@example.com", i from 0 to n-1.
func Calendar(w io.Writer, n int, seed uint64) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	r := rand.New(rand.NewPCG(seed, 0x1c5))
	zones := []string{"Europe/Paris", "America/New_York", "Asia/Tokyo"}
	words := []string{"Planning", "Review", "Call", "Dentist", "Standup", "Lunch", "Workshop", "Interview", "Gym", "Retro", "Budget", "Demo"}
	fmt.Fprint(bw, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//assistant//icstest//EN\r\nCALSCALE:GREGORIAN\r\n")
	base := time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		day := base.AddDate(0, 0, r.IntN(730))
		d := day.Format("20060102")
		fmt.Fprintf(bw, "BEGIN:VEVENT\r\nUID:gen-%d@example.com\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:%d\r\n", i, r.IntN(3))
		fmt.Fprintf(bw, "SUMMARY:%s %s\\, room %d\r\n", words[r.IntN(len(words))], words[r.IntN(len(words))], r.IntN(400))
		if r.IntN(3) == 0 {
			fmt.Fprintf(bw, "DESCRIPTION:Agenda: first point\\nsecond point for item %d\r\nLOCATION:Building %d\\, floor %d\r\n", i, r.IntN(20), r.IntN(9))
		}
		allDay := r.IntN(5) == 0
		hour, mins := 7+r.IntN(11), 15*r.IntN(4)
		switch {
		case allDay:
			fmt.Fprintf(bw, "DTSTART;VALUE=DATE:%s\r\nDTEND;VALUE=DATE:%s\r\n", d, day.AddDate(0, 0, 1+r.IntN(2)).Format("20060102"))
		case r.IntN(6) == 0:
			fmt.Fprintf(bw, "DTSTART:%sT%02d%02d00Z\r\nDTEND:%sT%02d%02d00Z\r\n", d, hour, mins, d, hour+1, mins)
		default:
			z := zones[r.IntN(len(zones))]
			fmt.Fprintf(bw, "DTSTART;TZID=%s:%sT%02d%02d00\r\nDTEND;TZID=%s:%sT%02d%02d00\r\n", z, d, hour, mins, z, d, hour+1, mins)
		}
		if i%5 == 0 { // 20% repeating
			switch r.IntN(3) {
			case 0:
				fmt.Fprintf(bw, "RRULE:FREQ=WEEKLY;COUNT=%d\r\n", 4+r.IntN(20))
			case 1:
				fmt.Fprintf(bw, "RRULE:FREQ=DAILY;UNTIL=%sT235959Z\r\n", day.AddDate(0, 0, 5+r.IntN(60)).Format("20060102"))
			default:
				fmt.Fprintf(bw, "RRULE:FREQ=MONTHLY;BYMONTHDAY=%d;COUNT=12\r\n", day.Day())
				if allDay {
					fmt.Fprintf(bw, "EXDATE;VALUE=DATE:%s\r\n", day.AddDate(0, 1, 0).Format("20060102"))
				}
			}
		}
		if i%2 == 1 { // half with an alarm
			fmt.Fprintf(bw, "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER:-PT%dM\r\nEND:VALARM\r\n", 5*(1+r.IntN(12)))
		}
		fmt.Fprint(bw, "END:VEVENT\r\n")
	}
	fmt.Fprint(bw, "END:VCALENDAR\r\n")
	return bw.Flush()
}
