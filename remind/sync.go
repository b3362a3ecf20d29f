package remind

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/alarm"
	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tz"
)

// state is a person's row of remind_state, and whether it is there yet.
type state struct {
	store.ReminderState
	fresh bool // no row yet
	// loaded is the items the pass's rebuild read in its transaction,
	// by label (nil when it read none so): the pass's record step takes
	// them from here instead of reading them again, as nothing changes
	// them meanwhile.
	loaded map[string]*watched
}

func loadState(tx *store.Tx) (state, error) {
	st, found, err := tx.ReminderState()
	return state{ReminderState: st, fresh: !found}, err
}

func saveState(tx *store.Tx, st state) error { return tx.SaveReminderState(st.ReminderState) }

// needsFull reports whether remind_next must be rebuilt for the person:
// on the first pass, after a zone change (date-only bases move), or when
// the journal's numbering went back (purged, then reused). mark is the
// person's latest change.
func needsFull(tx *store.Tx, st state, zone string) (mark int64, full bool, err error) {
	if mark, err = tx.LatestChange(); err != nil {
		return 0, false, err
	}
	return mark, st.fresh || st.Zone != zone || mark < st.ChangeMark, nil
}

// firstPassedAt is where a person's first pass starts: as far back as a
// reminder may still be sent; what fired before the job ever ran was never
// missed by it.
func (e *Engine) firstPassedAt(now time.Time) time.Time {
	return now.Add(-e.maxLate).Truncate(time.Second)
}

// rebuild recomputes every item of the person when needsFull says so, in
// transactions of rebuildBatch items so tools are never kept waiting
// behind one long write. Changes made meanwhile are newer than the mark
// it records, so the next sync picks them up.
func (e *Engine) rebuild(ctx context.Context, p person, now time.Time, r *Result) error {
	var (
		st      state
		mark    int64
		full    bool
		items   = map[string]time.Time{}
		pending map[string]bool
		olds    map[string]time.Time
		tasks   map[string]*watched // read in one query: most items are tasks
	)
	err := e.s.Read(ctx, p.ID, func(tx *store.Tx) error {
		var err error
		if st, err = loadState(tx); err != nil {
			return err
		}
		if mark, full, err = needsFull(tx, st, p.Zone.Name()); err != nil || !full {
			return err
		}
		if st.fresh {
			st.PassedAt = e.firstPassedAt(now)
		}
		if pending, olds, err = e.fullItems(tx, &st, now, items); err != nil {
			return err
		}
		tasks, err = openTasks(tx, p, items)
		return err
	})
	if err != nil || !full || len(items) <= rebuildBatch {
		// Few items: the pass's own transaction recomputes them (sync).
		return err
	}
	labels := make([]string, 0, len(items))
	for l := range items {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	for len(labels) > 0 && ctx.Err() == nil {
		batch := labels[:min(rebuildBatch, len(labels))]
		labels = labels[len(batch):]
		if _, err := e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error {
			var keep []store.NextFire
			for _, l := range batch {
				it, found := tasks[l]
				var err error
				if !found {
					if it, found, err = loadItem(tx, l, p.Zone); err != nil {
						e.log.Error("cannot work out an item's reminders; it is skipped until it changes",
							"person", p.Name, "item", l, "err", err)
						r.Problems++
						continue
					}
				}
				next, live, err := e.refresh(tx, l, it, found, olds[l], items[l], st.PassedAt, pending, r)
				if err != nil {
					return err
				}
				if live {
					keep = append(keep, store.NextFire{Item: l, At: next})
				} else if err := tx.DropNextFire(l); err != nil {
					return err
				}
			}
			return tx.SetNextFires(keep...)
		}); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	st.ChangeMark, st.Zone = mark, p.Zone.Name()
	_, err = e.s.Write(ctx, p.ID, "remind", func(tx *store.Tx) error { return saveState(tx, st) })
	return err
}

// openTasks reads the open tasks among items, a few hundred a query. A
// task whose row cannot be decoded is left out, and read (and reported)
// one by one later.
func openTasks(tx *store.Tx, p person, items map[string]time.Time) (map[string]*watched, error) {
	var ids []int64
	for l := range items {
		if id, err := strconv.ParseInt(strings.TrimPrefix(l, "t"), 10, 64); err == nil && strings.HasPrefix(l, "t") {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ts, err := tx.OpenTasksByID(ids)
	out := make(map[string]*watched, len(ts))
	for _, t := range ts {
		if it, err := watchTask(t, false, p.Zone); err == nil {
			out[it.Label] = it
		}
	}
	return out, err
}

// recomputeAll is recompute for every item of items (each with its change
// instant), whose index rows are olds, in a few statements: the open
// tasks read in one query, the index written in one; an item that
// cannot be worked out is logged and counted, as recomputeLogged does.
//
// It returns the items it read so, by label.
func (e *Engine) recomputeAll(tx *store.Tx, p person, items, olds map[string]time.Time, passedAt time.Time,
	pending map[string]bool, r *Result) (map[string]*watched, error) {
	tasks, err := openTasks(tx, p, items)
	if err != nil {
		return nil, err
	}
	if err := addEvents(tx, p, items, tasks); err != nil {
		return nil, err
	}
	labels := make([]string, 0, len(items))
	for l := range items {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	problem := func(l string, err error) {
		e.log.Error("cannot work out an item's reminders; it is skipped until it changes", "person", p.Name, "item", l, "err", err)
		r.Problems++
	}
	var keep []store.NextFire
	for _, l := range labels {
		it, found := tasks[l]
		if !found {
			if it, found, err = loadItem(tx, l, p.Zone); err != nil {
				problem(l, err)
				continue
			}
		}
		next, live, err := e.refresh(tx, l, it, found, olds[l], items[l], passedAt, pending, r)
		if err != nil {
			problem(l, err)
			continue
		}
		if live {
			keep = append(keep, store.NextFire{Item: l, At: next})
		} else if err := tx.DropNextFire(l); err != nil {
			return nil, err
		}
	}
	return tasks, tx.SetNextFires(keep...)
}

// addEvents adds to out the events among items, read a few hundred a
// query; an event that cannot be read so is left out, and read (and
// reported) one by one later.
func addEvents(tx *store.Tx, p person, items map[string]time.Time, out map[string]*watched) error {
	var ids []int64
	for l := range items {
		if id, err := strconv.ParseInt(strings.TrimPrefix(l, "e"), 10, 64); err == nil && strings.HasPrefix(l, "e") {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	evs, err := tx.EventsForReminders(ids)
	if err != nil {
		return err
	}
	for id, w := range evs {
		if it, err := alarm.WatchEvent(w, id, p.Zone); err == nil {
			out["e"+strconv.FormatInt(id, 10)] = it
		}
	}
	return nil
}

// errBigRebuild is sync's answer when the whole index needs rebuilding
// over more than rebuildBatch items: rebuild does it, in transactions of
// its own, and the pass then syncs again.
var errBigRebuild = errors.New("remind: the index needs a rebuild in batches")

// rebuildBatch is how many items one transaction of a rebuild recomputes
// (a few tens of milliseconds of work).
const rebuildBatch = 500

// sync brings remind_next up to date with the items the journal shows
// changed since the last pass, in tx. When the whole index needs
// rebuilding (see needsFull) and rebuild did not just do it, it is done
// here, in one transaction.
func (e *Engine) sync(tx *store.Tx, p person, now time.Time, r *Result) (state, error) {
	st, err := loadState(tx)
	if err != nil {
		return st, err
	}
	if st.fresh {
		st.PassedAt = e.firstPassedAt(now)
	}
	mark, full, err := needsFull(tx, st, p.Zone.Name())
	if err != nil {
		return st, err
	}
	changed := map[string]time.Time{} // item → when it changed
	var pending map[string]bool
	var index map[string]time.Time
	if full {
		if pending, index, err = e.fullItems(tx, &st, now, changed); err != nil {
			return st, err
		}
		if len(changed) > rebuildBatch {
			return st, errBigRebuild
		}
	} else if mark > st.ChangeMark {
		if changed, err = tx.ItemsChangedSince(st.ChangeMark); err != nil {
			return st, err
		}
	}
	floor := st.PassedAt
	if !full {
		// A change stamped before the last pass that the pass did not see
		// was written on a machine whose clock is behind this one's; its
		// fires since its stamp are searched too, up to ClockSkew back.
		// Those the pass recorded already are kept as they are (one row
		// per fire), and a fire past when it was written was recorded as
		// skipped by the tool that wrote it.
		floor = floor.Add(-ClockSkew)
	}
	if full && !e.perPerson {
		if st.loaded, err = e.recomputeAll(tx, p, changed, index, floor, pending, r); err != nil {
			return st, err
		}
	} else {
		for label, at := range changed {
			e.recomputeLogged(tx, p, label, at, floor, pending, r)
		}
	}
	st.ChangeMark, st.Zone = mark, p.Zone.Name()
	if !full && !st.Horizon.IsZero() && st.Horizon.Before(now.Add(horizonWindow/2)) {
		if err := e.extend(tx, p, &st, now.Add(horizonWindow), r); err != nil {
			return st, err
		}
	}
	return st, nil
}

// horizonWindow is how far ahead of a pass the index is kept complete
// (remind_state.horizon): a rebuild reads the items that can fire by then
// (their stored bounds say which, store.RemindCandidates), and a pass
// that finds less than half of it left reads the items whose first fire
// comes in the next stretch (store.RemindStarting). The first pass on a
// database so costs what can fire within a day, not every item.
const horizonWindow = 24 * time.Hour

// fullItems adds to out every item a whole rebuild recomputes, with its
// updated_at as the change instant: every live item whose reminders can
// fire between the person's last pass and the new horizon (st.Horizon is
// set to it), every item the index names, and every item with a pending
// delivery. It returns the items with pending deliveries and the index.
// With everyItem set (the oracle of the tests) it reads every live item
// with reminders, as the job did before the bounds were kept, and leaves
// no horizon.
func (e *Engine) fullItems(tx *store.Tx, st *state, now time.Time, out map[string]time.Time) (pending map[string]bool, index map[string]time.Time, err error) {
	if e.everyItem {
		st.Horizon = time.Time{}
		return allItems(tx, out)
	}
	st.Horizon = now.Add(horizonWindow).Truncate(time.Second)
	cands, err := tx.RemindCandidates(st.PassedAt.Add(time.Second), st.Horizon)
	if err != nil {
		return nil, nil, err
	}
	live := make(map[string]time.Time, len(cands))
	for _, c := range cands {
		live[c.Label] = c.Updated
	}
	return indexedItems(tx, live, out)
}

// extend brings the index's horizon to `to`: it recomputes the items whose
// first possible fire (remind_from) is after the horizon and at most to,
// unless the index has them already (the journal brought them in).
func (e *Engine) extend(tx *store.Tx, p person, st *state, to time.Time, r *Result) error {
	to = to.Truncate(time.Second)
	if st.Horizon.IsZero() || !st.Horizon.Before(to) {
		return nil
	}
	cands, err := tx.RemindStarting(st.Horizon, to)
	if err != nil {
		return err
	}
	for _, c := range cands {
		if _, found, err := tx.NextFire(c.Label); err != nil {
			return err
		} else if found {
			continue
		}
		e.recomputeLogged(tx, p, c.Label, c.Updated, st.PassedAt, nil, r)
	}
	st.Horizon = to
	return nil
}

func (e *Engine) recomputeLogged(tx *store.Tx, p person, label string, at, passedAt time.Time,
	pending map[string]bool, r *Result) {
	if err := e.recompute(tx, p, label, at, passedAt, pending, r); err != nil {
		e.log.Error("cannot work out an item's reminders; it is skipped until it changes",
			"person", p.Name, "item", label, "err", err)
		r.Problems++
	}
}

// allItems adds to out every live item with reminders, with its
// updated_at as the change instant, and every item the index or an
// unsent delivery still names. It returns the items with pending
// deliveries and the whole index, which a rebuild needs too.
func allItems(tx *store.Tx, out map[string]time.Time) (pending map[string]bool, index map[string]time.Time, err error) {
	live, err := tx.ItemsWithReminders()
	if err != nil {
		return nil, nil, err
	}
	return indexedItems(tx, live, out)
}

// indexedItems adds to out the items of live, with their change instant,
// and every item the index or an unsent delivery still names; it returns
// the items with pending deliveries and the whole index.
func indexedItems(tx *store.Tx, live map[string]time.Time, out map[string]time.Time) (pending map[string]bool, index map[string]time.Time, err error) {
	for l, at := range live {
		out[l] = at
	}
	fires, err := tx.NextFires()
	if err != nil {
		return nil, nil, err
	}
	index = make(map[string]time.Time, len(fires))
	for _, n := range fires {
		index[n.Item] = n.At
		if _, ok := out[n.Item]; !ok {
			out[n.Item] = time.Time{}
		}
	}
	if pending, err = tx.PendingItems(); err != nil {
		return nil, nil, err
	}
	for l := range pending {
		if _, ok := out[l]; !ok && l != "digest" {
			out[l] = time.Time{}
		}
	}
	return pending, index, nil
}

// recompute works out the next fire of one item after it changed at
// changedAt, and drops its unsent deliveries that it no longer produces
// (a moved occurrence, a completed task).
//
// The next fire is searched from changedAt — a reminder whose time had
// passed when the item took its present form was never due in that form —
// but not before the item's previous next fire, so a reminder that was
// due and not yet recorded when an unrelated field changed still goes
// out, and never at or before passedAt, whose fires are recorded already.
//
// pending, when not nil, is the set of items that have unsent deliveries,
// so a rebuild does not look for them item by item.
func (e *Engine) recompute(tx *store.Tx, p person, label string, changedAt, passedAt time.Time,
	pending map[string]bool, r *Result) error {
	old, _, err := tx.NextFire(label)
	if err != nil {
		return err
	}
	it, ok, err := loadItem(tx, label, p.Zone)
	if err != nil {
		return err
	}
	next, live, err := e.refresh(tx, label, it, ok, old.At, changedAt, passedAt, pending, r)
	if err != nil {
		return err
	}
	if !live {
		return tx.DropNextFire(label)
	}
	return tx.SetNextFires(store.NextFire{Item: label, At: next})
}

// refresh is recompute's work once the item (it, found) and its previous
// next fire (old, zero for none) are read: it drops stale deliveries and
// returns the new next fire (zero for none) and whether the item is to
// stay in the index.
func (e *Engine) refresh(tx *store.Tx, label string, it *watched, found bool, old, changedAt time.Time,
	passedAt time.Time, pending map[string]bool, r *Result) (next time.Time, live bool, err error) {
	from := changedAt
	if !old.IsZero() && old.Before(from) {
		from = old
	}
	if floor := passedAt.Add(time.Second); from.Before(floor) {
		from = floor
	}
	live = found && it.HasReminders()
	if pending == nil || pending[label] {
		if err := e.dropStale(tx, label, it, live, r); err != nil {
			return time.Time{}, false, err
		}
	}
	if !live {
		return time.Time{}, false, nil
	}
	if at, ok := it.Next(from); ok {
		next = at.Truncate(time.Second)
	}
	return next, true, nil
}

// dropStale deletes the pending (due, unsent, unclaimed) deliveries of an
// item that it no longer produces. Claimed ones are in a sender's hands
// and are left to finish.
func (e *Engine) dropStale(tx *store.Tx, label string, it *watched, live bool, r *Result) error {
	list, err := tx.PendingDeliveries(label)
	if err != nil {
		return err
	}
	for _, d := range list {
		if store.IsSnoozeTrigger(d.Trigger) {
			continue // a snooze is the person's, not the item's: claim checks it (snooze.go)
		}
		if live && it.Produces(d.Occurrence, d.Trigger, d.FireAt) {
			continue
		}
		if err := tx.DropPending(d.RowID); err != nil {
			return err
		}
		r.Dropped++
	}
	return nil
}

// record adds a delivery row for every fire that came due by now (and
// every snooze, and the day's digest), then moves each such item's next fire past now.
func (e *Engine) record(tx *store.Tx, p person, st state, now time.Time, r *Result) error {
	list, err := tx.NextFiresDue(now)
	if err != nil {
		return err
	}
	after := now.Truncate(time.Second).Add(time.Second)
	for _, d := range list {
		it, ok := st.loaded[d.Item]
		var err error
		if !ok {
			it, ok, err = loadItem(tx, d.Item, p.Zone)
		}
		if err != nil {
			e.log.Error("cannot read an item's reminders", "person", p.Name, "item", d.Item, "err", err)
			r.Problems++
			continue
		}
		if !ok {
			if err := tx.DropNextFire(d.Item); err != nil {
				return err
			}
			continue
		}
		for _, f := range it.Between(d.At, now) {
			local := ""
			if it.AllDay {
				local = wallClock(f.At, p.Zone)
			}
			if err := e.insert(tx, p, d.Item, f.Occurrence, f.Trigger, f.At, local, now, r); err != nil {
				return err
			}
		}
		next := store.NextFire{Item: d.Item}
		if at, ok := it.Next(after); ok {
			next.At = at.Truncate(time.Second)
		}
		if err := tx.MoveNextFire(next); err != nil {
			return err
		}
	}
	if err := e.recordSnoozes(tx, p, now, r); err != nil {
		return err
	}
	if e.digest != nil {
		return e.recordDigests(tx, p, st, now, r)
	}
	return nil
}

// recordedForDay reports whether the fire (label, occ, trig) at local, the
// wall-clock time a date-only base sets, was recorded at another instant:
// for that day, in the person's earlier zone. It is false when local is "".
func recordedForDay(tx *store.Tx, label, occ, trig, local string, at time.Time) (bool, error) {
	if local == "" {
		return false, nil
	}
	return tx.RecordedForDay(label, occ, trig, local, at)
}

// insert records one due fire, as pending, or as skipped when it is more
// than MaxLate late. A fire already recorded is left as it is. local is
// the fire's wall-clock time when a date-only start or due (or the
// digest's time of day) sets it, else "": a fire of the same item,
// occurrence and trigger already recorded at that wall-clock time was
// recorded for that day in the person's earlier zone, and is not recorded
// again at the new zone's instant.
func (e *Engine) insert(tx *store.Tx, p person, label, occ, trig string, at time.Time, local string, now time.Time, r *Result) error {
	if done, err := recordedForDay(tx, label, occ, trig, local, at); err != nil || done {
		return err
	}
	status, why := store.DeliveryPending, ""
	if late := now.Sub(at); late > e.maxLate {
		status = store.DeliverySkipped
		why = "missed by " + humanDuration(late) + ", more than the " + humanDuration(e.maxLate) + " allowed (--max-late)"
	}
	d := store.NewDelivery{Item: label, Occurrence: occ, Trigger: trig, FireAt: at, Status: status, Why: why, LocalFire: local}
	if status == store.DeliveryPending {
		// Whether it was there already changes nothing here: the write
		// may wait for others (store.Tx.RecordDeliveryLater).
		return tx.RecordDeliveryLater(d, now)
	}
	added, err := tx.RecordDelivery(d, now)
	if err != nil {
		return err
	}
	if added && status == store.DeliverySkipped {
		r.Skipped++
		r.TooLate++
		e.log.Warn("reminder skipped: missed by more than --max-late", "person", p.Name, "item", label, "occurrence", occ,
			"trigger", trig, "fire_at", tz.RFC3339(at, p.Zone), "late", humanDuration(now.Sub(at)))
	}
	return nil
}
