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
// too); the error is ctx's when the pass was stopped, or a part's
// store.Busy.
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
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return slices.Concat(dues...), nil
}

// recordPart is recordAll's work on one part of the people, one shared
// transaction after another; a batch whose transaction failed is done
// again person by person, as a pass of one person does, but for one that
// waited too long for another writer (store.Busy), which ends the part
// with that error. mu guards total.
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
		if store.TroubleOf(err) == store.Busy {
			// Another writer held the database past the wait: each
			// person alone would wait as long again. The next pass
			// takes them all.
			return nil, err
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
// (at least one group read ahead, readAheadPeople). It returns how many it took, and which have a delivery
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
		for n < len(people) {
			// The budget ends the transaction between the groups read
			// ahead, never inside one: a loaded machine would otherwise
			// read a group ahead for each one it then has the time to
			// take.
			if n > 0 && time.Since(start) > recordBudget {
				break
			}
			group := people[n:min(len(people), n+readAheadPeople)]
			d, err := e.recordGroup(tx, group, now, &r)
			if err != nil {
				return err
			}
			due = append(due, d...)
			n += len(group)
		}
		return nil
	})
	if err != nil {
		n = len(people)
	}
	return n, due, r, err
}

// recordGroup is recordIn for each of people in tx, a WriteMany, step by
// step for all of them: their reads read ahead (readAhead), each one's
// index brought up to date (sync), what came due read ahead for all
// (store.Tx.ReadDueAhead), each one's record step and state, then who has
// a delivery to take now, read for all (store.Tx.ToSendAhead). The writes
// of the index and the states are held back and written for all at once
// (store/remind_later.go). One person's steps read and write only their
// own rows, so taking the people step by step instead of one after the
// other changes nothing of what is recorded. It returns, in the order of
// people, which have a delivery to take now.
func (e *Engine) recordGroup(tx *store.Tx, people []person, now time.Time, r *Result) ([]bool, error) {
	if err := e.readAhead(tx, people, now); err != nil {
		return nil, err
	}
	ids := make([]int64, len(people))
	views := make([]*store.Tx, len(people))
	states := make([]state, len(people))
	for i, p := range people {
		ids[i], views[i] = p.ID, tx.As(p.ID)
		st, err := e.sync(views[i], p, now, r)
		if err != nil {
			return nil, err
		}
		states[i] = st
	}
	if err := tx.ReadDueAhead(ids, now); err != nil {
		return nil, err
	}
	for i, p := range people {
		if err := e.record(views[i], p, states[i], now, r); err != nil {
			return nil, err
		}
		states[i].PassedAt = now.Truncate(time.Second)
		if err := saveState(views[i], states[i]); err != nil {
			return nil, err
		}
	}
	toSend, err := tx.ToSendAhead(ids, now, e.leaseGiven())
	if err != nil {
		return nil, err
	}
	due := make([]bool, len(people))
	for i, p := range people {
		due[i] = toSend[p.ID]
	}
	return due, nil
}

// readAheadPeople is how many people of a record transaction have what
// their record step reads read ahead at once (store.Tx.ReadStatesAhead);
// a transaction takes whole groups of them, so it may run past
// recordBudget by the work of so many people.
const readAheadPeople = 16

// readAhead reads for people, in a few statements for all of them, what
// their record step (recordIn) reads first, person by person: their state
// and latest change, and for those whose index is rebuilt in it (sync,
// fullItems) the items the rebuild reads. What it works out of the state
// is sync's own reckoning; a person it reckons otherwise than sync does
// only has their reads made again.
func (e *Engine) readAhead(tx *store.Tx, people []person, now time.Time) error {
	ids := make([]int64, len(people))
	for i, p := range people {
		ids[i] = p.ID
	}
	states, err := tx.ReadStatesAhead(ids)
	if err != nil || e.everyItem {
		return err
	}
	var windows []store.RebuildAhead
	for _, p := range people {
		s := states[p.ID]
		passed := s.State.PassedAt
		if !s.Found {
			passed = e.firstPassedAt(now)
		}
		if s.Found && s.State.Zone == p.Zone.Name() && s.Latest >= s.State.ChangeMark {
			continue // no rebuild (needsFull)
		}
		from, to := passed.Add(time.Second), now.Add(horizonWindow).Truncate(time.Second)
		if k := len(windows) - 1; k >= 0 && windows[k].From.Equal(from) && windows[k].To.Equal(to) {
			windows[k].Owners = append(windows[k].Owners, p.ID)
		} else {
			windows = append(windows, store.RebuildAhead{Owners: []int64{p.ID}, From: from, To: to, MaxItems: rebuildBatch})
		}
	}
	return tx.ReadRebuildAhead(windows)
}

// claimed is a delivery claimed by a batch, and once sent, its outcome.
type claimed struct {
	p        person
	d        *delivery
	failures []string
	at       time.Time // when the attempt ended
}

// sendGather is how long, once one send of those in flight ended, the
// others are waited for before the ended ones are recorded and the next
// deliveries claimed: sends that take about as long are recorded in one
// transaction, and one that hangs (a notifier that never answers, until
// its own timeout) holds the others' records and the next claims back by
// this long, not by its timeout.
const sendGather = time.Second

// deliverMany sends what is due for people, up to sendBatch deliveries at
// a time, side by side: one transaction records the outcomes of the sends
// that ended and claims as many deliveries as there is room for, and each
// is sent in a goroutine of its own, its lease renewed meanwhile. One
// delivery a person is in flight at a time, so a person's notifier that
// hangs (or their webhook, slow) delays their next delivery only; the
// others' go out meanwhile. A process killed in the middle leaves the
// deliveries it sent and had not marked claimed: once their leases run
// out they are sent again, under the same delivery ids, as after a crash
// between one send and its mark. When ctx is cancelled nothing more is
// claimed; the sends in flight finish and are recorded.
func (e *Engine) deliverMany(ctx context.Context, people []person, total *Result, fail func(person, error)) {
	queue := people
	var done []claimed // sent (or failed), not recorded yet
	inFlight := map[int64]bool{}
	ended := make(chan claimed)
	// Leases are renewed from the claim until the mark is written; a
	// renewal of a row marked meanwhile changes nothing (it is no longer
	// claimed under its token).
	leases := e.keepLeases(context.WithoutCancel(ctx))
	defer leases.stop()
	receive := func(c claimed) {
		delete(inFlight, c.p.ID)
		done = append(done, c)
	}
	for {
		stopped := ctx.Err() != nil
		if len(done) == 0 && len(inFlight) == 0 && (len(queue) == 0 || stopped) {
			return
		}
		room := sendBatch - len(inFlight)
		var take []person
		for _, p := range queue {
			if stopped || room <= 0 || len(take) >= claimPeople {
				break
			}
			if !inFlight[p.ID] {
				take = append(take, p)
			}
		}
		if len(take) > 0 || len(done) > 0 {
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
				// One delivery a person at a time, so other processes
				// take the person's next ones meanwhile, as they would
				// from a pass of one person. What each claims first is
				// read for all of them in one statement, after the
				// marks above (held back until it).
				now, lease := e.now(), &leaseReading{}
				if len(take) > 0 {
					ids := make([]int64, len(take))
					for i, p := range take {
						ids[i] = p.ID
					}
					if err := tx.ReadToSendAhead(ids, now, e.leaseGiven()); err != nil {
						return err
					}
				}
				for _, p := range take {
					if len(batch) >= room {
						break
					}
					ptx := tx.As(p.ID)
					for {
						d, more, err := e.claimIn(ptx, p, &tr, now, lease)
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
			if err != nil {
				// Each person alone, as a pass of one person does, once
				// the sends in flight ended.
				for len(inFlight) > 0 {
					receive(<-ended)
				}
				for _, c := range done {
					if err := e.finish(context.WithoutCancel(ctx), c.p, c.d, c.failures, c.at, total); err != nil {
						fail(c.p, err)
					}
				}
				if !stopped {
					e.deliverEachSideBySide(ctx, queue, total, fail)
				}
				return
			}
			for _, c := range done {
				leases.drop(c)
				e.report(c.p, c.d, c.failures, c.at, total)
			}
			total.add(tr)
			done = nil
			if len(exhausted) > 0 {
				rest := queue[:0:0]
				for _, p := range queue {
					if !exhausted[p.ID] {
						rest = append(rest, p)
					}
				}
				queue = rest
			}
			// The send itself is not cut short by a shutdown: each
			// notifier has its own timeout.
			sendCtx := context.WithoutCancel(ctx)
			for _, c := range batch {
				inFlight[c.p.ID] = true
				leases.add(c)
				go func() {
					c.failures = e.send(sendCtx, c.p, c.d)
					afterSend(c.d)
					c.at = e.now()
					ended <- c
				}()
			}
		}
		if len(inFlight) == 0 {
			continue
		}
		receive(<-ended)
		gather := time.NewTimer(sendGather)
	wait:
		for len(inFlight) > 0 {
			select {
			case c := <-ended:
				receive(c)
			case <-gather.C:
				break wait
			}
		}
		gather.Stop()
	}
}

// deliverEachSideBySide is deliverEach for each of people, up to
// sendBatch people at a time, so one whose sends hang holds up no other.
func (e *Engine) deliverEachSideBySide(ctx context.Context, people []person, total *Result, fail func(person, error)) {
	var mu sync.Mutex
	next := make(chan person)
	var wg sync.WaitGroup
	for range min(sendBatch, len(people)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				var r Result
				err := e.deliverEach(ctx, p, &r)
				mu.Lock()
				total.add(r)
				if err != nil {
					fail(p, err)
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range people {
		next <- p
	}
	close(next)
	wg.Wait()
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

// leaseKeeper renews the leases of the deliveries a pass holds (claimed,
// sent or being sent, not marked yet) every third of the lease, as
// keepLease does for one delivery.
type leaseKeeper struct {
	mu    sync.Mutex
	held  map[int64]claimed // by delivery row id
	done  chan struct{}
	ended chan struct{}
}

func (k *leaseKeeper) add(c claimed) {
	k.mu.Lock()
	k.held[c.d.RowID] = c
	k.mu.Unlock()
}

func (k *leaseKeeper) drop(c claimed) {
	k.mu.Lock()
	delete(k.held, c.d.RowID)
	k.mu.Unlock()
}

// stop ends the renewals and returns once none runs.
func (k *leaseKeeper) stop() {
	close(k.done)
	<-k.ended
}

// keepLeases starts a leaseKeeper, holding nothing yet.
func (e *Engine) keepLeases(ctx context.Context) *leaseKeeper {
	k := &leaseKeeper{held: map[int64]claimed{}, done: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(k.ended)
		t := time.NewTicker(e.lease / 3)
		defer t.Stop()
		for {
			select {
			case <-k.done:
				return
			case <-t.C:
			}
			k.mu.Lock()
			batch := make([]claimed, 0, len(k.held))
			for _, c := range k.held {
				batch = append(batch, c)
			}
			k.mu.Unlock()
			if len(batch) == 0 {
				continue
			}
			owners := make([]int64, len(batch))
			for i, c := range batch {
				owners[i] = c.p.ID
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
	return k
}
