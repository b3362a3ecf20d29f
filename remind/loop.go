package remind

import (
	"context"
	"time"

	"github.com/assistant-dev/assistant/store"
)

// MinSleep keeps the loop from spinning when something is due but cannot
// be taken yet (another process holds its lease).
const MinSleep = time.Second

// Run passes until ctx is cancelled, sleeping between passes until the
// next reminder is due, at most every. Items written while it sleeps are
// seen at the next pass, so every is also how late a reminder added at the
// last minute may be. A cancelled ctx lets the delivery in flight finish;
// Run then returns nil. Pass errors are logged, not returned: the next
// pass tries again.
func (e *Engine) Run(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		every = time.Minute
	}
	for {
		if _, err := e.Pass(ctx); err != nil && ctx.Err() == nil {
			e.log.Error("reminders pass failed; trying again at the next one", "err", err)
		}
		if ctx.Err() != nil {
			return nil
		}
		wait := every
		if next, ok, err := e.NextDue(ctx); err == nil && ok {
			if d := next.Sub(e.now()); d < wait {
				wait = max(d, MinSleep)
			}
		}
		e.log.Debug("sleeping until the next reminder", "for", wait.String())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// NextDue is the earliest instant anything is due for the people the
// engine serves, as far as the index knows: an item's next fire, a snooze,
// a retry, a lease running out, or a digest. ok is false when nothing is scheduled.
func (e *Engine) NextDue(ctx context.Context) (time.Time, bool, error) {
	people, err := e.persons(ctx)
	if err != nil {
		return time.Time{}, false, err
	}
	var best time.Time
	found := false
	take := func(t time.Time) {
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	now := e.now()
	for _, p := range people {
		err := e.s.Read(ctx, p.ID, func(tx *store.Tx) error {
			for _, earliest := range []func() (time.Time, bool, error){tx.EarliestNextFire, tx.EarliestAttempt, tx.EarliestSnooze} {
				at, ok, err := earliest()
				if err != nil {
					return err
				}
				if ok {
					take(at)
				}
			}
			// Past the index's horizon an item not indexed yet may fire:
			// the pass then reads the next stretch.
			st, found, err := tx.ReminderState()
			if err == nil && found && !st.Horizon.IsZero() {
				take(st.Horizon)
			}
			return err
		})
		if err != nil {
			return best, found, err
		}
		if e.digest != nil {
			take(e.nextDigest(p.Zone, now))
		}
	}
	return best, found, nil
}
