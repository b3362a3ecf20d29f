package calendar

import (
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/recur"
	"github.com/assistant-dev/assistant/tz"
)

// series builds a series for a test: start "2026-10-05T10:00" or
// "2026-10-05", zone, rule text ("" for none), 30 minutes (a day) long.
func series(t *testing.T, start, zone, rule string, exdates, rdates []string) recur.Series {
	t.Helper()
	m := moment(t, start)
	s := recur.Series{Start: m, Zone: tz.MustZone(zone), Duration: 30 * time.Minute}
	if !m.HasTime {
		s.Duration = 24 * time.Hour
	}
	if rule != "" {
		s.Rule = recur.MustRule(rule)
	}
	for _, x := range exdates {
		s.ExDates = append(s.ExDates, moment(t, x))
	}
	for _, x := range rdates {
		s.RDates = append(s.RDates, moment(t, x))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return s
}

func moment(t *testing.T, s string) tz.Moment {
	t.Helper()
	m, err := tz.ParseMoment(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// starts lists the occurrences of s (at most 60) as RFC 3339 times in
// s.Zone, or dates for an all-day series, joined by spaces.
func starts(s recur.Series) string {
	var out []string
	for _, o := range s.All(60) {
		if o.AllDay {
			out = append(out, o.Original.Date.String())
		} else {
			out = append(out, tz.RFC3339(o.Start, s.Zone))
		}
	}
	return strings.Join(out, " ")
}

// occ is the occurrence of s whose original start is m.
func occ(t *testing.T, s recur.Series, m string) recur.Occurrence {
	t.Helper()
	o, ok := Find(s, moment(t, m))
	if !ok {
		t.Fatalf("%s is no occurrence of the series", m)
	}
	return o
}

func ruleText(r *recur.Rule) string {
	if r == nil {
		return ""
	}
	return r.String()
}
