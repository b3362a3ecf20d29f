package remind

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/assistant-dev/assistant/store"
)

// A pass over many people shares its transactions between them: the
// record step of up to recordPeople people (or recordBudget of work) is
// one transaction, and the sends go in batches of sendBatch deliveries,
// claimed together in one transaction and marked together in the next.
// On SQLite every commit is a flush to disk, so a first pass over a
// thousand people costs tens of commits, not thousands. Whatever fails in
// a shared transaction is done again person by person, as a pass of one
// person does (passPerson), which then says whose it was.
const (
	recordPeople = 256
	recordBudget = 100 * time.Millisecond
	sendBatch    = 32
	claimPeople  = 128
)

// passBatched is Pass over people in shared transactions.
func (e *Engine) passBatched(ctx context.Context, people []person) (Result, error) {
	var total Result
	var firstErr error
	var mu sync.Mutex // fail is called by the record workers at once
	fail := func(p person, err error) {
		e.log.Error("reminders pass failed for a person", "person", p.Name, "err", err)
		mu.Lock()
		defer mu.Unlock()
		total.Problems++
		if firstErr == nil {
			firstErr = err
		}
	}
	people, err := e.busy(ctx, people)
	if err != nil {
		return total, err
	}
	if len(people) == 0 {
		// Nothing to write this time; a pass still says at once when it
		// could not write (a read-only file), not only when a reminder
		// comes due.
		return total, e.s.WriteMany(ctx, nil, func(*store.Tx) error { return nil })
	}
	due, err := e.recordAll(ctx, people, &total, &mu, fail)
	if err != nil {
		return total, err
	}
	e.deliverMany(ctx, due, &total, fail)
	return total, firstErr
}

// recordWorkers is how many record transactions a pass runs at once on
// PostgreSQL, each for its own people (so their advisory locks never
// meet): a record step is mostly round trips to the server, which wait in
// parallel. SQLite takes one writer at a time, so there it is one.
const recordWorkers = 4

// recordPart0 is the fewest people worth a worker of their own.
const recordPart0 = 16

// recordAll records what came due for people, in shared transactions
// (recordMany), and returns those with a delivery to take now, in the
// order of people. Results go into total under mu (which fail takes
// too); the error is ctx's when the pass was stopped.
func (e *Engine) recordAll(ctx context.Context, people []person, total *Result, mu *sync.Mutex,
	fail func(person, error)) ([]person, error) {
	workers := 1
	if e.s.Engine() == store.Postgres {
		part := recordPart0
		if e.recordMin > 0 {
			part = e.recordMin
		}
		workers = min(recordWorkers, (len(people)+part-1)/part)
	}
	if workers <= 1 {
		return e.recordPart(ctx, people, total, mu, fail)
	}
	// Contiguous parts, one a worker, so the dues keep people's order.
	var (
		wg    sync.WaitGroup
		dues  = make([][]person, workers)
		part  = (len(people) + workers - 1) / workers
		errOf = make([]error, workers)
	)
	for w := range workers {
		lo, hi := min(w*part, len(people)), min((w+1)*part, len(people))
		wg.Add(1)
		go func() {
			defer wg.Done()
			dues[w], errOf[w] = e.recordPart(ctx, people[lo:hi], total, mu, fail)
		}()
	}
	wg.Wait()
	if err := errors.Join(errOf...); err != nil {
		return nil, ctx.Err()
	}
	return slices.Concat(dues...), nil
}

// recordPart is recordAll's work on one part of the people, one shared
// transaction after another; a batch whose transaction failed is done
// again person by person, as a pass of one person does. mu guards total.
func (e *Engine) recordPart(ctx context.Context, people []person, total *Result, mu *sync.Mutex,
	fail func(person, error)) ([]person, error) {
	add := func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		total.add(r)
	}
	var due []person
	for len(people) > 0 {
		n, dues, r, err := e.recordMany(ctx, people, e.now())
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		batch := people[:n]
		people = people[n:]
		if err == nil {
			add(r)
			for i, p := range batch {
				if dues[i] {
					due = append(due, p)
				}
			}
			continue
		}
		// One of them needs a rebuild in transactions of its own (or
		// failed): each alone, as a pass of one person.
		for _, p := range batch {
			var r Result
			d, err := e.recordDue(ctx, p, e.now(), &r)
			add(r)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err != nil {
				fail(p, err)
			} else if d {
				due = append(due, p)
			}
		}
	}
	return due, nil
}

// busy leaves out of people those a pass has no work for now (see
// store.RemindBusy), so a pass with nothing due costs a statement, not a
// transaction a person. With a daily agenda every person is kept: its
// time is their zone's.
func (e *Engine) busy(ctx context.Context, people []person) ([]person, error) {
	if e.digest != nil {
		return people, nil
	}
	now := e.now()
	busy, err := e.s.RemindBusy(ctx, now, now.Add(horizonWindow/2))
	if err != nil {
		return nil, err
	}
	out := people[:0:0]
	for _, p := range people {
		if busy[p.ID] {
			out = append(out, p)
		}
	}
	return out, nil
}

// recordMany records what came due for the first people, in one
// transaction: as many of them as recordPeople and recordBudget allow
// (at least one). It returns how many it took, and which have a delivery
// to take now.
func (e *Engine) recordMany(ctx context.Context, people []person, now time.Time) (n int, due []bool, r Result, err error) {
	people = people[:min(len(people), recordPeople)]
	ids := make([]int64, len(people))
	for i, p := range people {
		ids[i] = p.ID
	}
	err = e.s.WriteMany(ctx, ids, func(tx *store.Tx) error {
		r, n, due = Result{}, 0, make([]bool, 0, len(people))
		start := time.Now()
		for _, p := range people {
			if n > 0 && time.Since(start) > recordBudget {
				break
			}
			d, err := e.recordIn(tx.As(p.ID), p, now, &r)
			if err != nil {
				return err
			}
			due = append(due, d)
			n++
		}
		return nil
	})
	if err != nil {
		n = len(people)
	}
	return n, due, r, err
}

// claimed is a delivery claimed by a batch, and once sent, its outcome.
type claimed struct {
	p        person
	d        *delivery
	failures []string
	at       time.Time // when the attempt ended
}

// deliverMany sends what is due for people, sendBatch deliveries at a
// time: one transaction records the outcomes of the last batch and claims
// the next (so each costs one commit), then the batch is sent, one
// delivery after another, its leases renewed meanwhile. A process killed
// in the middle of a batch leaves the deliveries it sent and had not
// marked claimed: once their leases run out they are sent again, under
// the same delivery ids, as after a crash between one send and its mark.
// When ctx is cancelled the delivery in flight finishes, the others of
// its batch are handed back unsent, and what was sent is recorded.
func (e *Engine) deliverMany(ctx context.Context, people []person, total *Result, fail func(person, error)) {
	queue := people
	var done []claimed // sent (or failed), not recorded yet
	// The renewals of a batch stop once its marks are written (the next
	// transaction); a renewal of a row marked meanwhile changes nothing
	// (it is no longer claimed under its token).
	stopRenew := func() {}
	defer func() { stopRenew() }()
	for len(queue) > 0 || len(done) > 0 {
		stopped := ctx.Err() != nil
		take := queue[:min(len(queue), claimPeople)]
		if stopped {
			take = nil
		}
		owners := make([]int64, 0, len(take)+len(done))
		for _, p := range take {
			owners = append(owners, p.ID)
		}
		for _, c := range done {
			owners = append(owners, c.p.ID)
		}
		var (
			batch     []claimed
			tr        Result
			exhausted map[int64]bool
		)
		err := e.s.WriteMany(context.WithoutCancel(ctx), owners, func(tx *store.Tx) error {
			batch, tr, exhausted = nil, Result{}, map[int64]bool{}
			for _, c := range done {
				if err := e.markIn(tx.As(c.p.ID), c.d, c.failures, c.at); err != nil {
					return err
				}
			}
			// One delivery a person a batch, so other processes take
			// the person's next ones meanwhile, as they would from a
			// pass of one person.
			for _, p := range take {
				if len(batch) >= sendBatch {
					break
				}
				ptx := tx.As(p.ID)
				for {
					d, more, err := e.claimIn(ptx, p, &tr)
					if err != nil {
						return err
					}
					if d != nil {
						batch = append(batch, claimed{p: p, d: d})
						break
					}
					if !more {
						exhausted[p.ID] = true
						break
					}
				}
			}
			return nil
		})
		stopRenew()
		stopRenew = func() {}
		if err != nil {
			// Each person alone, as a pass of one person does.
			for _, c := range done {
				if err := e.finish(context.WithoutCancel(ctx), c.p, c.d, c.failures, c.at, total); err != nil {
					fail(c.p, err)
				}
			}
			if !stopped {
				for _, p := range queue {
					if err := e.deliverEach(ctx, p, total); err != nil {
						fail(p, err)
					}
				}
			}
			return
		}
		for _, c := range done {
			e.report(c.p, c.d, c.failures, c.at, total)
		}
		total.add(tr)
		done = nil
		if stopped {
			return
		}
		rest := queue[:0:0]
		for _, p := range queue {
			if !exhausted[p.ID] {
				rest = append(rest, p)
			}
		}
		queue = rest
		if len(batch) == 0 {
			continue
		}
		sendCtx := context.WithoutCancel(ctx)
		stopRenew = e.keepLeases(sendCtx, batch)
		for i := range batch {
			c := &batch[i]
			if i > 0 && ctx.Err() != nil {
				e.unclaim(sendCtx, batch[i:])
				break
			}
			c.failures = e.send(sendCtx, c.p, c.d)
			afterSend(c.d)
			c.at = e.now()
			done = append(done, *c)
		}
	}
}

// deliverEach sends p's due deliveries one at a time, as a pass of one
// person does.
func (e *Engine) deliverEach(ctx context.Context, p person, r *Result) error {
	for ctx.Err() == nil {
		more, err := e.deliverNext(ctx, p, r)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// unclaim hands back deliveries claimed and not sent.
func (e *Engine) unclaim(ctx context.Context, list []claimed) {
	owners := make([]int64, len(list))
	for i, c := range list {
		owners[i] = c.p.ID
	}
	err := e.s.WriteMany(ctx, owners, func(tx *store.Tx) error {
		for _, c := range list {
			if err := tx.As(c.p.ID).Unclaim(c.d.RowID, c.d.Token, c.d.Attempt-1, c.d.WasDue); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.log.Warn("cannot hand back the deliveries not sent; they go out once their leases run out", "err", err)
	}
}

// keepLeases renews the leases of batch every third of the lease, as
// keepLease does for one delivery, until the returned stop is called.
func (e *Engine) keepLeases(ctx context.Context, batch []claimed) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	owners := make([]int64, len(batch))
	for i, c := range batch {
		owners[i] = c.p.ID
	}
	go func() {
		defer close(ended)
		t := time.NewTicker(e.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			err := e.s.WriteMany(ctx, owners, func(tx *store.Tx) error {
				real, err := e.leaseNow(tx)
				if err != nil {
					return err
				}
				for _, c := range batch {
					if err := tx.As(c.p.ID).RenewLease(c.d.RowID, c.d.Token, real.Add(e.lease), e.now().Add(e.lease)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				e.log.Warn("cannot renew the leases of the deliveries being sent", "err", err)
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}
