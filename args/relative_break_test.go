package args

import (
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// On the night clocks go back, a time alone "ahead" of the wall clock may
// name the first pass of the repeated hour, already gone: at 02:30 (+01:00,
// the second pass) "2:45" was taken as 02:45 (+02:00), 45 minutes in the
// past. A time alone must be ahead of now as an instant: the second 02:45.
func TestTimeAloneAfterFallBackIsAhead(t *testing.T) {
	now := time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC) // 02:30 (+01:00) in Paris, the second pass
	a := at(t, now, "2:45")
	m, ok := a.Moment("x", paris)
	if !ok {
		// refusing it as past would be wrong too: 02:45 (+01:00) is ahead
		t.Fatalf("2:45 at 02:30 (+01:00) refused: %v", a.Err())
	}
	got, _ := paris.Instant(m.DateTime)
	if !got.After(now) {
		t.Errorf("2:45 at 02:30 (+01:00) read as %s, which is not ahead of now", got.In(time.UTC))
	}
}

// Relative day words are read at the person's today (issue 19: "read in
// the person's zone at the call's now"), the clock in the zone the moment
// is in: at Wed 2026-12-02 02:00 in Paris, "tomorrow 9am" for an event in
// New York is Thu 2026-12-03 09:00 there, not Wed (New York is still on
// Tuesday evening).
func TestDayWordsAreThePersonsDays(t *testing.T) {
	ny := tz.MustZone("America/New_York")
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC) // 02:00 Wed in Paris, 20:00 Tue in New York
	a := at(t, now, "tomorrow 9am")                     // home is Paris
	m, ok := a.Moment("x", ny)
	if !ok {
		t.Fatal(a.Err())
	}
	if m.String() != "2026-12-03T09:00" {
		t.Errorf("tomorrow 9am (New York event, person in Paris on Wednesday) = %s, want 2026-12-03T09:00", m)
	}
}

// A no-break or other Unicode space between words is a space: a phone's
// keyboard or a model may write one.
func TestRelativeUnicodeSpaces(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, s := range []string{"tomorrow\u00a09am", "tomorrow\u2009 9am", "tomorrow\u30009am"} {
		a := at(t, now, s)
		m, ok := a.Moment("x", paris)
		if !ok || m.String() != "2026-12-02T09:00" {
			t.Errorf("%q read as %v (%v), want 2026-12-02T09:00", s, m, a.Err())
		}
	}
}
