// Package remind is the reminders front: it turns
// the remind_before and remind_at of every person's tasks and events into
// notifications, each delivered at least once under a stable delivery id,
// on time or saying how late.
//
// What fires: each relative reminder at its exact number of minutes before
// the start (or due) of each occurrence (an RFC 5545 relative trigger),
// each absolute one at its moment, keeping its distance from the start on
// every occurrence of a repeating item, and each one-time reminder
// (remind_once, a calendar file's absolute alarm) once, at its instant. A date-only start or due is 00:00
// of that day in the person's zone. Cancelled occurrences never fire; a
// moved one fires for its new time; a deleted event or a completed or
// deleted task stops firing the moment the change is written.
//
// How each reminder goes out once: every (item, occurrence, trigger, fire
// instant) has one row in reminder_deliveries, with a delivery id derived
// from that key. A pass records the rows that came due, then takes them
// one at a time: it claims a row in a short write transaction of its own
// (a lease on the clock every process shares: the PostgreSQL server's, or
// this machine's real clock on SQLite; renewed while the send runs), sends
// it through every notifier outside any transaction, then marks it sent.
// Two processes never claim one row at once, since the store serialises
// the writes of a person (SQLite all writes, PostgreSQL a per-person lock)
// and the claim is a compare-and-set besides, and never while its holder
// lives; so several processes, on one machine or many, share the due
// sends; a process that dies after claiming leaves the lease to run out,
// and the next pass sends the row again under the same delivery id, which
// receivers use to drop the copy: the promise is at least once with a
// stable id. A process that died is no failed attempt; a failed send is
// retried after 1, 5 and 30 minutes, then marked failed. A reminder more
// than MaxLate late when a pass first sees it, or whose event occurrence
// has ended, is recorded as skipped; nothing is dropped without a row
// saying so.
//
// Why passes are cheap: the next fire instant of each item is kept in
// remind_next, and only items whose instant has come are expanded. The
// change journal (the changes table of package store) says which items
// were written since the last pass; only those are recomputed. The index
// is complete up to a horizon a day ahead (remind_state.horizon): a
// rebuild reads only the items whose stored bounds (remind_from,
// remind_until, kept by every writer of the store) say they can fire by
// then, and passes read the next stretch as it nears.
package remind

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// Defaults of Options.
const (
	// DefaultMaxLate is how late a missed reminder is still sent.
	DefaultMaxLate = 6 * time.Hour
	// DefaultLease is how long a claimed delivery is held by its sender
	// without a renewal; the sender renews it every third of it while the
	// send runs, so it only runs out when the sender stopped (killed, or
	// its machine went off). It is read on the lease clock (the PostgreSQL
	// server's, or this machine's real clock on SQLite).
	DefaultLease = 2 * time.Minute
	// LateAfter is the lateness from which a sent reminder counts as late
	// in --status: a once-a-minute timer sends up to a minute after.
	LateAfter = time.Minute
)

// ClockSkew is how far behind this machine's clock the clock of a machine
// that writes tasks and events (an MCP server on another machine) may
// run without a reminder being missed: a change stamped up to this long
// before the last pass, which that pass did not see yet, still has the
// fires since its stamp recorded, and sent late.
const ClockSkew = 2 * time.Minute

// DefaultRetry is the wait after each failed attempt: after the first
// failure 1 minute, then 5, then 30; the attempt after the last wait is the
// last one, and its failure marks the delivery failed (4 attempts in all).
var DefaultRetry = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute}

// Options configure an Engine. Store and at least one Notifier are needed.
type Options struct {
	Store     *store.Store
	Notifiers []Notifier
	// Now is the clock reminders are due by; nil means time.Now.
	Now func() time.Time
	// LeaseClock is the clock leases are judged by; nil means the store's
	// shared clock ([store.Tx.LeaseNow]: the PostgreSQL server's, or this
	// machine's real clock on SQLite). It must be one every process on the
	// database shares, not Now when a test or another machine sets Now
	// apart: a lease is a promise between processes, not about reminders'
	// times. Tests set it to move leases without waiting.
	LeaseClock func() time.Time
	// MaxLate: a reminder whose fire instant is further in the past when a
	// pass first finds it is recorded as skipped instead of sent. 0 means
	// DefaultMaxLate.
	MaxLate time.Duration
	// Lease is how long a claim holds a delivery unless renewed (its
	// holder renews it every third of it while the send runs); 0 means
	// DefaultLease.
	Lease time.Duration
	// Retry is the wait after each failed attempt; nil means DefaultRetry.
	Retry []time.Duration
	// Digest, when set, sends each person a daily agenda at this wall-clock
	// time in their zone (only Hour and Minute are read).
	Digest *Digest
	// People restricts the job to these person ids; empty means everyone.
	People []int64
	// Log receives one line per delivery and per problem; nil discards.
	Log *slog.Logger
}

// Digest is the time of the daily agenda, "07:30" in each person's zone.
type Digest struct{ Hour, Minute int }

// ParseDigest reads “--digest” as a 24-hour wall-clock time, "07:30" or
// "7:30". The error is one sentence naming the flag.
func ParseDigest(s string) (*Digest, error) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || len(m) != 2 || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return nil, fmt.Errorf("“--digest” must be a time of day such as 07:30, not “%s”", s)
	}
	return &Digest{Hour: hh, Minute: mm}, nil
}

// Engine finds due reminders and delivers them. It is safe to run several
// engines, in one process or many, on one machine or many, over one
// database (a SQLite file, or a PostgreSQL database).
type Engine struct {
	s          *store.Store
	notifiers  []Notifier
	now        func() time.Time
	leaseClock func() time.Time
	maxLate    time.Duration
	lease      time.Duration
	retry      []time.Duration
	digest     *Digest
	people     []int64
	log        *slog.Logger
	// everyItem makes a rebuild read every item with reminders, as it did
	// before the items' bounds were kept: the oracle of the tests.
	everyItem bool
	// perPerson makes a pass take one person at a time, each in
	// transactions of their own, and a rebuild read its items one by
	// one, as it did before passes were batched: the oracle of the tests.
	perPerson bool
	// recordMin, when above 0, is the fewest people a record worker
	// takes on PostgreSQL instead of recordPart0 (tests run two people
	// on two workers).
	recordMin int
}

// New checks opts and returns an Engine.
func New(opts Options) (*Engine, error) {
	if opts.Store == nil {
		return nil, errors.New("remind: Options.Store is nil")
	}
	e := &Engine{s: opts.Store, notifiers: opts.Notifiers, now: opts.Now, leaseClock: opts.LeaseClock, maxLate: opts.MaxLate,
		lease: opts.Lease, retry: opts.Retry, digest: opts.Digest, people: opts.People, log: opts.Log}
	if e.now == nil {
		e.now = time.Now
	}
	if e.maxLate <= 0 {
		e.maxLate = DefaultMaxLate
	}
	if e.lease <= 0 {
		e.lease = DefaultLease
		if leaseOverride > 0 {
			e.lease = leaseOverride
		}
	}
	if e.retry == nil {
		e.retry = DefaultRetry
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	return e, nil
}

// leaseOverride, when set (only by binaries built for tests, crash.go),
// replaces DefaultLease, so a test of a sender that died need not wait
// two minutes of real time.
var leaseOverride time.Duration

// maxAttempts is how many times a delivery is tried before it is failed.
func (e *Engine) maxAttempts() int { return len(e.retry) + 1 }

// Result counts what one pass did.
type Result struct {
	Sent     int // delivered to every notifier
	Late     int // of Sent, those more than LateAfter after their time
	Failed   int // attempts that failed (retried later, or given up)
	GaveUp   int // marked failed for good: retries used up, or more than MaxLate late after attempts
	Skipped  int // recorded as skipped: more than MaxLate late, or its event already over
	TooLate  int // of Skipped, those more than MaxLate late
	Dropped  int // unsent deliveries of items that changed, no longer due
	Pending  int // due but waiting for a retry or another sender's lease
	Problems int // items or rows that could not be read (logged)
}

// OK reports whether every delivery attempted in the pass succeeded and
// none was given up (failed for good, or missed by more than MaxLate).
func (r Result) OK() bool {
	return r.Failed == 0 && r.Problems == 0 && r.GaveUp == 0 && r.TooLate == 0
}

func (r *Result) add(o Result) {
	r.Sent += o.Sent
	r.Late += o.Late
	r.Failed += o.Failed
	r.GaveUp += o.GaveUp
	r.Skipped += o.Skipped
	r.TooLate += o.TooLate
	r.Dropped += o.Dropped
	r.Pending += o.Pending
	r.Problems += o.Problems
}

// person is a person the job serves, with their loaded zone.
type person struct {
	ID   int64
	Name string
	Zone tz.Zone
}

func (e *Engine) persons(ctx context.Context) ([]person, error) {
	all, err := e.s.People(ctx)
	if err != nil {
		return nil, err
	}
	var out []person
	for _, p := range all {
		if len(e.people) > 0 && !contains(e.people, p.ID) {
			continue
		}
		z, err := tz.LoadZone(p.Zone)
		if err != nil {
			e.log.Error("a person's stored zone is not usable; their reminders wait until it is fixed",
				"person", p.Name, "zone", p.Zone, "err", err)
			continue
		}
		out = append(out, person{ID: p.ID, Name: p.Name, Zone: z})
	}
	return out, nil
}

func contains(list []int64, v int64) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Pass records every reminder that came due for every person, then sends
// what is due, one delivery at a time. When ctx is cancelled it finishes
// the delivery in flight, stops, and returns what it did with ctx's error.
func (e *Engine) Pass(ctx context.Context) (Result, error) {
	var total Result
	people, err := e.persons(ctx)
	if err != nil {
		return total, err
	}
	if !e.perPerson {
		return e.passBatched(ctx, people)
	}
	var firstErr error
	for _, p := range people {
		r, err := e.passPerson(ctx, p)
		total.add(r)
		if ctx.Err() != nil {
			return total, ctx.Err()
		}
		if err != nil {
			e.log.Error("reminders pass failed for a person", "person", p.Name, "err", err)
			total.Problems++
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	return total, firstErr
}

func (e *Engine) passPerson(ctx context.Context, p person) (Result, error) {
	var r Result
	due, err := e.recordDue(ctx, p, e.now(), &r)
	if err != nil || !due {
		return r, err
	}
	for ctx.Err() == nil {
		more, err := e.deliverNext(ctx, p, &r)
		if err != nil || !more {
			return r, err
		}
	}
	return r, nil
}

// recordDue brings p's index up to date and records every fire that came
// due by now, without sending anything. due reports whether a delivery
// may be taken now (read in the same transaction), so a pass with
// nothing to send costs no claim transaction.
//
// A pass is one transaction per person: a rebuild of the index (the
// first pass, or after a zone change) is done in it when it reads few
// items (store.RemindCandidates bounds them), else first in batches.
func (e *Engine) recordDue(ctx context.Context, p person, now time.Time, r *Result) (due bool, err error) {
	for range rebuildTries {
		due, err = e.recordDueOnce(ctx, p, now, r)
		if !errors.Is(err, errBigRebuild) {
			return due, err
		}
		// A zone change between the rebuild and the pass asks for another.
		if err := e.rebuild(ctx, p, now, r); err != nil {
			return false, err
		}
	}
	return false, rebuildsRaced(p)
}

// rebuildTries is how many times a pass or a status rebuilds a person's
// index when their zone keeps changing under it, before it gives up.
const rebuildTries = 3

// rebuildsRaced is the error of a pass or a status that gave up after
// rebuildTries rebuilds.
func rebuildsRaced(p person) error {
	return fmt.Errorf("%s's zone changed during each of %d rebuilds of their reminders; run the pass again", p.Name, rebuildTries)
}

func (e *Engine) recordDueOnce(ctx context.Context, p person, now time.Time, r *Result) (due bool, err error) {
	var tr Result // counts of the transaction that commits
	if _, err := e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error {
		tr = Result{}
		due, err = e.recordIn(tx, p, now, &tr)
		return err
	}); err != nil {
		return false, err
	}
	r.add(tr)
	return due, nil
}

// recordIn is recordDueOnce's work in tx, a transaction acting for p.
func (e *Engine) recordIn(tx *store.Tx, p person, now time.Time, r *Result) (due bool, err error) {
	st, err := e.sync(tx, p, now, r)
	if err != nil {
		return false, err
	}
	if err := e.record(tx, p, st, now, r); err != nil {
		return false, err
	}
	st.PassedAt = now.Truncate(time.Second)
	if err := saveState(tx, st); err != nil {
		return false, err
	}
	_, due, err = tx.NextToSend(now, e.leaseGiven())
	return due, err
}

func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// humanDuration gives d to the minute in words: "45 min", "2 h 5 min",
// "3 days 4 h".
func humanDuration(d time.Duration) string {
	if d < time.Minute {
		if d <= 0 {
			return "0 min"
		}
		return strconv.Itoa(int(d/time.Second)) + " s"
	}
	m := int(d / time.Minute)
	days, h, mins := m/1440, m%1440/60, m%60
	var parts []string
	if days == 1 {
		parts = append(parts, "1 day")
	} else if days > 1 {
		parts = append(parts, strconv.Itoa(days)+" days")
	}
	if h > 0 {
		parts = append(parts, strconv.Itoa(h)+" h")
	}
	if mins > 0 && days == 0 {
		parts = append(parts, strconv.Itoa(mins)+" min")
	}
	return strings.Join(parts, " ")
}
