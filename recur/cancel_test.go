package recur

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/tz"
)

// countingCtx is done after its Err has been asked after times; it
// records how much work the search had spent then.
type countingCtx struct {
	context.Context
	after, asked int
	w            *work
	atCancel     int64
}

func (c *countingCtx) Err() error {
	c.asked++
	if c.asked < c.after {
		return nil
	}
	if c.asked == c.after {
		c.atCancel = c.w.n
	}
	return context.Canceled
}

// A search whose context is done stops within ctxEvery iterations and
// CheckOccurs gives the context's error, not a sentence about the rule.
func TestSearchStopsWhenTheContextIsDone(t *testing.T) {
	// Even minutes only, but BYMINUTE asks for an odd one: a full search
	// would spend MaxSearchWork steps.
	r, err := ParseRule("FREQ=MINUTELY;INTERVAL=2;BYMINUTE=1")
	if err != nil {
		t.Fatal(err)
	}
	s := Series{Start: tz.TimeMoment(tz.Date{Year: 2026, Month: 10, Day: 20}.At(3, 0)), Zone: tz.UTC, Rule: r}
	ctx := &countingCtx{Context: context.Background(), after: 5}
	s = s.WithContext(ctx)
	s.work = s.newWork()
	ctx.w = s.work
	if _, ok := s.After(time.Date(2026, 10, 20, 3, 0, 0, 0, time.UTC)); ok {
		t.Fatal("found an occurrence of a rule that has none")
	}
	if ctx.asked < ctx.after {
		t.Fatalf("the search looked at its context %d times; want it stopped by it", ctx.asked)
	}
	if spent := s.work.n - ctx.atCancel; spent > ctxEvery {
		t.Errorf("the search spent %d iterations after its context was done, want at most %d", spent, ctxEvery)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	err = Series{Start: s.Start, Zone: tz.UTC, Rule: r}.WithContext(done).CheckOccurs()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("CheckOccurs with a done context: %v, want context.Canceled", err)
	}
}

// The rule of numbered weekdays that never fall on its month days, which
// the library searched to the year 9999, is refused when written.
func TestOrdinalsMissingMonthDaysRefused(t *testing.T) {
	for _, c := range []struct {
		rule string
		ok   bool
	}{
		{"FREQ=MONTHLY;BYMONTHDAY=8,9,10,11,12,13,14;BYDAY=1MO,1TU,1WE,1TH,1FR,1SA,1SU", false},
		{"FREQ=MONTHLY;BYMONTHDAY=8,9,10,11,12,13,14;BYDAY=2MO", true},
		{"FREQ=MONTHLY;BYMONTHDAY=1;BYDAY=-1MO", false},
		{"FREQ=MONTHLY;BYMONTHDAY=-1;BYDAY=-1MO", true},
		{"FREQ=MONTHLY;BYMONTHDAY=29;BYDAY=5MO", true},
		{"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=5MO", true},
		{"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28;BYDAY=5MO", false},
		{"FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR", true},
		{"FREQ=YEARLY;BYMONTHDAY=1;BYDAY=20MO", true}, // counted in the year
	} {
		_, err := ParseRule(c.rule)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want accepted %v", c.rule, err, c.ok)
		}
		if err != nil && !c.ok && !strings.Contains(err.Error(), "never") {
			t.Errorf("%s: %v", c.rule, err)
		}
	}
}

// A COUNT rule's full expansion (cached for every caller) stops too when
// the context is done, and what it found by then is not cached.
func TestCountExpansionStopsWhenTheContextIsDone(t *testing.T) {
	// a long walk (09:01 on each 29 February) that meets, so no look
	// tells its times without walking (subDailyNeverMeets)
	r, err := ParseRule("FREQ=MINUTELY;COUNT=50;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=1")
	if err != nil {
		t.Fatal(err)
	}
	start := tz.TimeMoment(tz.Date{Year: 2026, Month: 10, Day: 21}.At(3, 0))
	done, cancel := context.WithCancel(context.Background())
	cancel()
	s := Series{Start: start, Zone: tz.UTC, Rule: r}.WithContext(done)
	s.work = &work{}
	if err := s.CheckOccurs(); !errors.Is(err, context.Canceled) {
		t.Errorf("CheckOccurs with a done context: %v, want context.Canceled", err)
	}
	if s.work.n > ctxEvery {
		t.Errorf("the expansion spent %d iterations after its context was done, want at most %d", s.work.n, ctxEvery)
	}
	if _, cached := countCache.Get(countKey{rule: r, start: start, zone: "UTC"}); cached {
		t.Error("a cut expansion was cached")
	}
}
