package args

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// FuzzRelative reads any text at any now in a few zones: no panic, a
// refusal is one sentence naming the argument and echoes nothing, a
// reading is a real day or minute in 0001–9999 echoed once, and the same
// text at the same now reads the same.
func FuzzRelative(f *testing.F) {
	for _, s := range []string{"today", "tomorrow 9am", "Tomorrow, 9 AM", "next monday 14:00", "in 2 hours", "in an hour",
		"3 days ago", "9:30pm", "17:30", "noon", "eod", "end of day", "tonight", "next week", "in 3 days at 9am",
		"12am", "0am", "13pm", "24:00", "9", "in 999999 weeks", "999999 days ago", "next", "in", "at", "a", "1.5",
		"tomorrow at", "monday monday", "in 1.5 hours", "9:5pm", "09:00:00", "now", "2026-10-05", ""} {
		f.Add(s, int64(1764579600), uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, unix int64, zi uint8) {
		// any instant in the calendar's span
		span := tz.LastInstant.Unix() - tz.FirstInstant.Unix()
		if unix < 0 {
			unix = -unix
		}
		now := time.Unix(tz.FirstInstant.Unix()+unix%span, 0).UTC()
		zone := fuzzZones[int(zi)%len(fuzzZones)]
		read := func() (*Args, tz.Moment, bool) {
			raw, err := json.Marshal(map[string]string{"x": s})
			if err != nil {
				t.Skip()
			}
			a, err := New(raw, []string{"x"}, nil)
			if err != nil {
				t.Skip() // not valid Unicode: refused by New, as every front does
			}
			a.SetHome(zone)
			a.SetNow(now)
			m, ok := a.Moment("x", zone)
			return a, m, ok
		}
		a, m, ok := read()
		if !ok {
			if a.Err() == nil {
				if strings.TrimSpace(CleanLine(s)) == "" {
					return
				}
				t.Fatalf("Moment(%q) not ok without an error", s)
			}
			checkSentence(t, a.Err(), "x")
			if len(a.Readings()) != 0 {
				t.Fatalf("Moment(%q) refused but echoed %+v", s, a.Readings())
			}
			return
		}
		if d, ok := tz.NewDate(m.Year, m.Month, m.Day); !ok || d != m.Date || m.Year < 1 || m.Year > 9999 {
			t.Fatalf("Moment(%q) = %+v: not a day of the calendar", s, m)
		}
		if m.HasTime && (m.Hour < 0 || m.Hour > 23 || m.Minute < 0 || m.Minute > 59) || !m.HasTime && (m.Hour != 0 || m.Minute != 0) {
			t.Fatalf("Moment(%q) = %+v: not a valid minute", s, m)
		}
		if _, why, _ := parseMoment(strings.TrimSpace(CleanLine(s))); why == fine {
			if len(a.Readings()) != 0 {
				t.Fatalf("the date %q was echoed as words: %+v", s, a.Readings())
			}
			return
		}
		rs := a.Readings()
		if len(rs) != 1 || rs[0].As == "" || !strings.HasPrefix(rs[0].As, m.Date.Weekday().String()[:3]+" "+m.Date.String()) {
			t.Fatalf("Moment(%q) = %s echoed as %+v", s, m, rs)
		}
		if n := len(strings.TrimSpace(CleanLine(s))); n > maxRelative {
			t.Fatalf("Moment read %d bytes of words, more than the cap", n)
		}
		_, again, ok := read()
		if !ok || again != m {
			t.Fatalf("Moment(%q) = %s, then %s", s, m, again)
		}
	})
}

// FuzzMinutes reads any text or number as a length: no panic, a refusal
// is one sentence, a length is within the bounds asked.
func FuzzMinutes(f *testing.F) {
	for _, s := range []string{`90`, `"90"`, `"1h30m"`, `"1h 30min"`, `"PT1H30M"`, `"90 min"`, `"1.5h"`, `"P1W"`, `"P1DT2H"`,
		`"PT90S"`, `"P"`, `"PT"`, `"1h1h"`, `"an hour"`, `"a.5h"`, `"999999w"`, `"PT999999H999999M"`, `1.5`, `"-1h"`, `[1]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		a, err := New([]byte(`{"x":`+value+`}`), []string{"x"}, nil)
		if err != nil {
			return
		}
		n := a.Minutes("x", -7, 0, 40320)
		if a.Err() != nil {
			checkSentence(t, a.Err(), "x")
			return
		}
		if !a.Has("x") {
			if n != -7 {
				t.Fatalf("Minutes(%s) = %d, want the default", value, n)
			}
			return
		}
		if n < 0 || n > 40320 {
			t.Fatalf("Minutes(%s) = %d, outside the bounds", value, n)
		}
	})
}
