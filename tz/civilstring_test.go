package tz

import (
	"fmt"
	"testing"
	"time"
)

// TestCivilStringsMatchFmt: Date.String and DateTime.String write what
// fmt wrote for them ("%04d-%02d-%02d", then "T%02d:%02d"), for every
// day of years at both ends of the range and around, and for values out
// of range (negative, five-digit years, three-digit hours).
func TestCivilStringsMatchFmt(t *testing.T) {
	dates := []Date{{}, {-1, 1, 1}, {10000, 1, 1}, {2026, 100, 5}, {2026, 10, -5}, {12345, 12, 31}, {-2026, 1, 1}}
	for _, y := range []int{0, 1, 9, 10, 99, 100, 999, 1000, 1969, 2026, 9998, 9999} {
		for d := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() == y; d = d.AddDate(0, 0, 1) {
			dates = append(dates, Date{y, d.Month(), d.Day()})
			if len(dates) > 5000 {
				break
			}
		}
	}
	for _, d := range dates {
		if got, want := d.String(), fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day); got != want {
			t.Errorf("%#v.String() = %q, want %q", d, got, want)
		}
		for _, hm := range [][2]int{{0, 0}, {9, 5}, {23, 59}, {24, 0}, {99, 99}, {100, 0}, {-1, 30}, {12, -7}} {
			dt := DateTime{Date: d, Hour: hm[0], Minute: hm[1]}
			want := fmt.Sprintf("%sT%02d:%02d", fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day), hm[0], hm[1])
			if got := dt.String(); got != want {
				t.Errorf("%#v.String() = %q, want %q", dt, got, want)
			}
		}
	}
}
