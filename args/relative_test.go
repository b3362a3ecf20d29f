package args

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

var (
	paris = tz.MustZone("Europe/Paris")
	// tuesday is Tue 2026-12-01 10:00 in Paris.
	tuesday = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
)

// at makes the Args of {"x": v} (v marshalled) read at now in Paris.
func at(t *testing.T, now time.Time, v any) *Args {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"x": v})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(raw, []string{"x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.SetHome(paris)
	a.SetNow(now)
	return a
}

// TestRelativeNeedsNow: without a now, words are outside the grammar and
// the sentence offers only dates, as before.
func TestRelativeNeedsNow(t *testing.T) {
	a := stringArgs(t, "tomorrow")
	if _, ok := a.Moment("x", paris); ok {
		t.Fatal("tomorrow was read without a now")
	}
	if s := a.Err().Error(); s != "“x” must be a day (2026-10-05) or a day with a time (2026-10-05T09:00), not “tomorrow”." {
		t.Errorf("sentence without a now: %s", s)
	}
	if _, err := ParseMoment("x", "tomorrow", paris); err == nil {
		t.Error("ParseMoment, which has no now, read tomorrow")
	}
}

func TestRelativeGetters(t *testing.T) {
	// Date takes the day of what it reads
	a := at(t, time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC), "in 2 hours") // 23:00 in Paris
	if d, ok := a.Date("x"); !ok || d.String() != "2026-12-02" {
		t.Errorf("Date(in 2 hours) at 23:00 = %v %v, want 2026-12-02", d, a.Err())
	}
	// MomentZone names no zone for words, and refuses nothing Moment reads
	a = at(t, tuesday, "tomorrow 9am")
	if _, ok := a.MomentZone("x"); ok || a.Err() != nil {
		t.Errorf("MomentZone(tomorrow 9am) = %v, %v", ok, a.Err())
	}
	if m, ok := a.Moment("x", paris); !ok || m.String() != "2026-12-02T09:00" {
		t.Errorf("Moment(tomorrow 9am) = %v %v", m, a.Err())
	}
	// When gives the instant and whether a gap moved it
	a = at(t, time.Date(2026, 3, 28, 8, 0, 0, 0, time.UTC), "tomorrow 2:30am")
	w, ok := a.When("x", paris)
	if !ok || w.Moment.String() != "2026-03-29T02:30" || !w.Moved || !w.At.Equal(time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)) {
		t.Errorf("When(tomorrow 2:30am) before the gap = %+v %v", w, a.Err())
	}
	// an instant in the repeated hour keeps which one it is
	a = at(t, time.Date(2026, 10, 24, 23, 30, 0, 0, time.UTC), "in 2 hours") // 01:30 (+02:00)
	w, ok = a.When("x", paris)
	if !ok || !w.Moment.Fold || !w.At.Equal(time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC)) {
		t.Errorf("When(in 2 hours) into the second 02:30 = %+v %v", w, a.Err())
	}
	// a list reads each item, and each is echoed once
	a = at(t, tuesday, []string{"tomorrow", "monday 9am", "tomorrow", "2026-12-24"})
	ms := a.MomentList("x", paris)
	if len(ms) != 4 || ms[0].String() != "2026-12-02" || ms[1].String() != "2026-12-07T09:00" {
		t.Errorf("MomentList = %v %v", ms, a.Err())
	}
	if rs := a.Readings(); len(rs) != 2 || rs[0].Text != "tomorrow" || rs[1].Text != "monday 9am" {
		t.Errorf("Readings = %+v, want tomorrow and monday 9am once each", rs)
	}
	// a zone not the person's is named in the echo
	a = at(t, tuesday, "tomorrow 9am")
	a.Moment("x", tz.MustZone("Asia/Tokyo"))
	if rs := a.Readings(); len(rs) != 1 || rs[0].Sentence() != "Read “tomorrow 9am” (x) as Wed 2026-12-02 09:00 (+09:00) Asia/Tokyo." {
		t.Errorf("Readings in Tokyo = %+v", rs)
	}
}

func TestRelativeSentences(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"9am", "“x” “9am” is already past today (it is Tue 2026-12-01 10:00 in Europe/Paris); write tomorrow 9am, or a day and time such as 2026-12-02T09:00."},
		{"tonight", ""},
		{"9", "“x” “9” has an hour without am or pm; write 9am or 9pm."},
		{"tomorrow 9", "“x” “tomorrow 9” has an hour without am or pm; write 9am or 9pm."},
		{"14 monday", "“x” “14 monday” has an hour without am or pm; write 14:00."},
		{"25:00", "“x” must have a time of day from 00:00 to 23:59, not “25:00”."},
		{"tomorrow 13pm", "“x” must have a time of day from 00:00 to 23:59, not “tomorrow 13pm”."},
		{"in 999999 weeks", "“x” must fall in the years 0001 to 9999, not “in 999999 weeks”."},
		{"999999 days ago", "“x” must fall in the years 0001 to 9999, not “999999 days ago”."},
		{"in -2 hours", "“x” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “in -2 hours”."},
		{"in 1234567 minutes", "“x” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “in 1234567 minutes”."},
		{"tomorrow tomorrow", "“x” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “tomorrow tomorrow”."},
		{strings.Repeat("tomorrow ", 100), "“x” must be a day (2026-10-05), a day with a time (2026-10-05T09:00) or words such as tomorrow 9am, not “" + strings.Repeat("tomorrow ", 7)[:60] + "…”."},
	} {
		a := at(t, tuesday, c.in)
		m, ok := a.Moment("x", paris)
		if c.want == "" {
			if !ok {
				t.Errorf("%q refused: %v", c.in, a.Err())
			}
			continue
		}
		if ok {
			t.Errorf("%q read as %v", c.in, m)
			continue
		}
		checkSentence(t, a.Err(), "x")
		if got := a.Err().Error(); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
		if len(a.Readings()) != 0 {
			t.Errorf("%q refused but echoed %+v", c.in, a.Readings())
		}
	}
	// tonight past 20:00 asks for tomorrow 20:00
	a := at(t, time.Date(2026, 12, 1, 20, 30, 0, 0, time.UTC), "tonight")
	a.Moment("x", paris)
	if a.Err() == nil || !strings.Contains(a.Err().Error(), "write tomorrow 20:00,") {
		t.Errorf("tonight at 21:30: %v", a.Err())
	}
}

func TestMinutes(t *testing.T) {
	for _, c := range []struct {
		in   any
		want int
		err  string
	}{
		{90, 90, ""},
		{"90", 90, ""},
		{"1H30M", 90, ""},
		{"an hour", 60, ""},
		{"2 hours and 15 min", 135, ""},
		{"PT23H59M", 1439, ""},
		{"P1DT1M", 0, "not “P1DT1M” (1441 minutes)"},
		{"PT", 0, "not “PT”"},
		{"P", 0, "not “P”"},
		{"PT1M1H", 0, "not “PT1M1H”"},
		{"PT1H1H", 0, "not “PT1H1H”"},
		{"-PT1H", 0, "not “-PT1H”"},
		{"1h30", 0, "not “1h30”"},
		{"1h and and 30m", 0, "not “1h and and 30m”"},
		{"and 1h", 0, "not “and 1h”"},
		{"1.333h", 0, "not “1.333h”"},
		{"0", 0, "“x” must be a number of minutes from 1 to 1440 (90) or a length such as 1h30m, 90 min or PT1H30M, not “0”."},
		{"2 days", 0, "“x” must be a number of minutes from 1 to 1440 (90) or a length such as 1h30m, 90 min or PT1H30M, not “2 days” (2880 minutes)."},
		{1.5, 0, "not “1.5”"},
		{true, 0, "not “true”"},
	} {
		a := at(t, tuesday, c.in)
		n := a.Minutes("x", 30, 1, 1440)
		if c.err == "" {
			if a.Err() != nil || n != c.want {
				t.Errorf("Minutes(%v) = %d, %v; want %d", c.in, n, a.Err(), c.want)
			}
			continue
		}
		if a.Err() == nil || !strings.Contains(a.Err().Error(), c.err) {
			t.Errorf("Minutes(%v) = %d, %v; want an error with %q", c.in, n, a.Err(), c.err)
			continue
		}
		checkSentence(t, a.Err(), "x")
	}
	a := at(t, tuesday, []any{"1h", 15, "P1D"})
	if got := a.MinutesList("x", 0, 40320); len(got) != 3 || got[0] != 60 || got[1] != 15 || got[2] != 1440 {
		t.Errorf("MinutesList = %v %v", got, a.Err())
	}
	a = at(t, tuesday, []any{"1h", "soon"})
	if got := a.MinutesList("x", 0, 40320); got != nil || a.Err() == nil || !strings.HasSuffix(a.Err().Error(), "not “soon”.") {
		t.Errorf("MinutesList with soon = %v %v", got, a.Err())
	}
}
