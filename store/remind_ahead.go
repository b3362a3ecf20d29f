package store

import (
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assistant-dev/assistant/calendar"
	"github.com/assistant-dev/assistant/task"
)

// Reads ahead for many people. A pass of the reminders job reads the same
// few things for every person it takes (their row of remind_state, their
// latest change, and on a rebuild the candidates, the index, the pending
// items, the open tasks and the events), a statement each. On PostgreSQL
// each is a round trip and a plan, so a first pass over a thousand people
// was some twenty thousand of them. In a [Store.WriteMany] transaction
// [Tx.ReadStatesAhead] and [Tx.ReadRebuildAhead] read those for many
// people in one statement a table, and each person's view ([Tx.As]) then
// answers the matching call from what was read instead of asking the
// database again.
//
// What was read ahead answers one call, the first of its kind on the
// person's views (ReminderState, LatestChange, RemindCandidates with the
// same window, NextFires, PendingItems, OpenTasksByID and
// EventsForReminders for ids all read ahead), and then it is forgotten:
// later calls read the database. A write by the person's view forgets
// what it could change (the state, the index, the deliveries) before it
// runs. Nothing else changes those rows meanwhile: the transaction holds
// each person's lock (every writer of their rows takes it) on PostgreSQL,
// and SQLite's one writer.

// ahead is what was read ahead for one person of a WriteMany.
type ahead struct {
	state      *aheadState
	mark       *int64
	cands      *aheadCands
	fires      []NextFire
	haveFires  bool
	pending    map[string]bool
	tasks      map[int64]task.Task // the live open ones among taskIDs
	taskIDs    map[int64]bool      // nil: none read ahead
	events     map[int64]WatchedEvent
	eventIDs   map[int64]bool // nil: none read ahead
	haveEvents bool
	due        *aheadDue     // NextFiresDue (ReadDueAhead)
	snoozes    *aheadSnoozes // SnoozesDue (ReadDueAhead)
	toSend     *aheadToSend  // NextToSend (ReadToSendAhead)
}

type aheadToSend struct {
	now, lease int64
	d          Delivery
	ok         bool
}

type aheadState struct {
	st    ReminderState
	found bool
}

type aheadCands struct {
	from, to int64
	list     []RemindCandidate
}

// aheadOf is the read-ahead of owner in tx's WriteMany, made on first
// use; nil outside a WriteMany.
func (tx *Tx) aheadOf(owner int64) *ahead {
	if tx.many == nil {
		return nil
	}
	if tx.many.ahead == nil {
		tx.many.ahead = map[int64]*ahead{}
	}
	a := tx.many.ahead[owner]
	if a == nil {
		a = &ahead{}
		tx.many.ahead[owner] = a
	}
	return a
}

// forgetWritable drops what a write of the view, op (the method's
// name), may change. The snoozes due are kept for the writes of the
// index, the state and a fire's delivery: none can record a snooze's
// delivery (a fire's delivery id, DeliveryID, is never a snooze's,
// which ends in "-s" and a number).
func (a *ahead) forgetWritable(op string) {
	if a == nil {
		return
	}
	a.state, a.fires, a.haveFires, a.pending, a.due, a.toSend = nil, nil, false, nil, nil, nil
	switch op {
	case "SetNextFires", "MoveNextFire", "DropNextFire", "SaveReminderState", "RecordDelivery":
	default:
		a.snoozes = nil
	}
}

// ownerList is the SQL of a row source of ids, one row a value in its
// column id, and its argument: an array on PostgreSQL, a JSON array on
// SQLite.
func (tx *Tx) ownerList(ids []int64) (string, any) {
	if tx.s.engine == Postgres {
		return `unnest(CAST(? AS bigint[])) AS o(id)`, ids
	}
	b, _ := json.Marshal(ids)
	return `(SELECT value AS id FROM json_each(?)) AS o`, string(b)
}

// inList is the SQL condition "col is one of ids" and its argument.
func (tx *Tx) inList(col string, ids []int64) (string, any) {
	if tx.s.engine == Postgres {
		return col + ` = ANY(CAST(? AS bigint[]))`, ids
	}
	b, _ := json.Marshal(ids)
	return col + ` IN (SELECT value FROM json_each(?))`, string(b)
}

// ReadStatesAhead reads the row of remind_state and the latest change of
// each of owners (people of tx, a WriteMany) in one statement; each
// person's next [Tx.ReminderState] and [Tx.LatestChange] answer from it.
// It returns them by owner, as those two would.
func (tx *Tx) ReadStatesAhead(owners []int64) (map[int64]StateAhead, error) {
	src, arg := tx.ownerList(owners)
	rows, err := tx.query(`SELECT o.id, st.change_mark, st.zone, st.passed_at, st.horizon,
		(SELECT coalesce(max(c.id), 0) FROM changes c WHERE c.owner_id = o.id)
		FROM `+src+` LEFT JOIN remind_state st ON st.owner_id = o.id`, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]StateAhead, len(owners))
	for rows.Next() {
		var (
			id, latest   int64
			mark, passed sql.NullInt64
			zone         sql.NullString
			horizon      sql.NullInt64
			s            StateAhead
		)
		if err := rows.Scan(&id, &mark, &zone, &passed, &horizon, &latest); err != nil {
			return nil, err
		}
		if mark.Valid {
			s.Found = true
			s.State = ReminderState{ChangeMark: mark.Int64, Zone: zone.String, PassedAt: time.Unix(passed.Int64, 0).UTC()}
			if horizon.Valid {
				s.State.Horizon = time.Unix(horizon.Int64, 0).UTC()
			}
		}
		s.Latest = latest
		out[id] = s
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for id, s := range out {
		if _, ok := slices.BinarySearch(tx.many.ids, id); !ok {
			continue
		}
		a := tx.aheadOf(id)
		a.state = &aheadState{st: s.State, found: s.Found}
		latest := s.Latest
		a.mark = &latest
	}
	return out, nil
}

// StateAhead is what [Tx.ReadStatesAhead] read of one person.
type StateAhead struct {
	State  ReminderState
	Found  bool  // the person has a row of remind_state
	Latest int64 // their latest change, 0 for none
}

// RebuildAhead is one window of [Tx.ReadRebuildAhead]: the people whose
// index is rebuilt over [From, To].
type RebuildAhead struct {
	Owners   []int64
	From, To time.Time
	// MaxItems, when above 0, is the most items a person's rebuild
	// reads in the transaction: the open tasks and events of one who
	// has more are not read ahead.
	MaxItems int
}

// ReadRebuildAhead reads, for the people of each window (of tx, a
// WriteMany), what a rebuild of their index reads: their
// [Tx.RemindCandidates] over the window, their [Tx.NextFires] and
// [Tx.PendingItems], then the open tasks ([Tx.OpenTasksByID]) and the
// events ([Tx.EventsForReminders]) those name; each is one statement a
// table for all of them. Each person's next call of each answers from it.
func (tx *Tx) ReadRebuildAhead(windows []RebuildAhead) error {
	var all []int64
	maxItems := map[int64]int{}
	for _, w := range windows {
		if len(w.Owners) == 0 {
			continue
		}
		byOwner, err := tx.remindCandidatesOf(w.Owners, w.From, w.To)
		if err != nil {
			return err
		}
		for _, id := range w.Owners {
			if _, ok := slices.BinarySearch(tx.many.ids, id); !ok {
				continue
			}
			tx.aheadOf(id).cands = &aheadCands{from: w.From.Unix(), to: w.To.Unix(), list: byOwner[id]}
			maxItems[id] = w.MaxItems
			all = append(all, id)
		}
	}
	if len(all) == 0 {
		return nil
	}
	// The index and the pending items.
	in, arg := tx.inList("owner_id", all)
	rows, err := tx.query(`SELECT owner_id, item, next_fire FROM remind_next WHERE `+in+` ORDER BY owner_id, item`, arg)
	if err != nil {
		return err
	}
	fires := map[int64][]NextFire{}
	for rows.Next() {
		var owner int64
		var n NextFire
		var at sql.NullInt64
		if err := rows.Scan(&owner, &n.Item, &at); err != nil {
			rows.Close()
			return err
		}
		if at.Valid {
			n.At = time.Unix(at.Int64, 0).UTC()
		}
		fires[owner] = append(fires[owner], n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = tx.query(`SELECT DISTINCT owner_id, item FROM reminder_deliveries WHERE `+in+` AND status = 'pending'`, arg)
	if err != nil {
		return err
	}
	pending := map[int64]map[string]bool{}
	for rows.Next() {
		var owner int64
		var l string
		if err := rows.Scan(&owner, &l); err != nil {
			rows.Close()
			return err
		}
		if pending[owner] == nil {
			pending[owner] = map[string]bool{}
		}
		pending[owner][l] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// The items those name: the open tasks and the events.
	taskOwner, eventOwner := map[int64]int64{}, map[int64]int64{}
	for _, owner := range all {
		a := tx.aheadOf(owner)
		a.fires, a.haveFires = fires[owner], true
		a.pending = pending[owner]
		if a.pending == nil {
			a.pending = map[string]bool{}
		}
		names := map[string]bool{}
		for _, c := range a.cands.list {
			names[c.Label] = true
		}
		for _, n := range a.fires {
			names[n.Item] = true
		}
		for l := range a.pending {
			if l != "digest" {
				names[l] = true
			}
		}
		if limit := maxItems[owner]; limit > 0 && len(names) > limit {
			continue // read in batches of its own (remind's rebuild)
		}
		a.taskIDs, a.eventIDs = map[int64]bool{}, map[int64]bool{}
		a.tasks, a.events = map[int64]task.Task{}, map[int64]WatchedEvent{}
		for l := range names {
			if len(l) < 2 {
				continue
			}
			id, err := strconv.ParseInt(l[1:], 10, 64)
			if err != nil {
				continue
			}
			switch l[0] {
			case 't':
				taskOwner[id] = owner
			case 'e':
				eventOwner[id] = owner
			}
		}
	}
	var readable []int64 // the people whose items are read ahead
	for _, owner := range all {
		if tx.aheadOf(owner).taskIDs != nil {
			readable = append(readable, owner)
		}
	}
	for id, owner := range taskOwner {
		tx.aheadOf(owner).taskIDs[id] = true
	}
	for id, owner := range eventOwner {
		tx.aheadOf(owner).eventIDs[id] = true
	}
	if err := tx.tasksAhead(taskOwner); err != nil {
		return err
	}
	return tx.eventsAhead(readable, eventOwner)
}

// idsOf is the keys of m.
func idsOf(m map[int64]int64) []int64 {
	out := make([]int64, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	return out
}

// tasksAhead reads the live open tasks among the ids of byID (each
// given to its owner) in one statement.
func (tx *Tx) tasksAhead(byID map[int64]int64) error {
	if len(byID) == 0 {
		return nil
	}
	// By id alone, so the planner probes the primary key for each
	// (with the people's ids too it took an index of all their open
	// tasks); a row of someone else is left out below.
	inIDs, idsArg := tx.inList("id", idsOf(byID))
	rows, err := tx.query(`SELECT `+strings.Join(taskColumns, ", ")+`, owner_id FROM tasks WHERE `+inIDs+`
		AND deleted_at IS NULL AND status = 'open'`, idsArg)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(taskColumns))
	ptrs := make([]any, len(taskColumns)+1)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var owner int64
	ptrs[len(vals)] = &owner
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		r := make(Row, len(taskColumns))
		for i, c := range taskColumns {
			r[c] = vals[i]
		}
		t, err := decodeTask(r)
		if err != nil || byID[t.ID] != owner {
			continue // as OpenTasksByID: left out
		}
		tx.aheadOf(owner).tasks[t.ID] = t
	}
	return rows.Err()
}

// eventsAhead reads the events among the ids of byID (each given to its
// owner), deleted or not, and their live overrides, in two statements. A
// row that cannot be decoded makes it read nothing ahead for the events:
// each person's own read says whose it was.
func (tx *Tx) eventsAhead(owners []int64, byID map[int64]int64) error {
	if len(byID) == 0 {
		for _, o := range owners {
			tx.aheadOf(o).haveEvents = true
		}
		return nil
	}
	inIDs, idsArg := tx.inList("id", idsOf(byID)) // by id alone, as tasksAhead
	rows, err := tx.query(`SELECT `+eventColumns+`, updated_at, deleted_at, owner_id FROM events WHERE `+inIDs, idsArg)
	if err != nil {
		return err
	}
	read := map[int64]WatchedEvent{}
	bad := false
	for rows.Next() {
		var updated, deleted sql.NullString
		var owner int64
		e, err := scanEvent(rows, &updated, &deleted, &owner)
		if err != nil {
			bad = true
			continue
		}
		if byID[e.ID] != owner {
			continue
		}
		read[e.ID] = WatchedEvent{Event: e, Dead: deleted.Valid, Updated: evStamp(updated.String),
			Overrides: map[string]*calendar.Override{}}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	inOwners, ownersArg := tx.inList("owner_id", owners)
	inEvents, eventsArg := tx.inList("event_id", idsOf(byID))
	rows, err = tx.query(`SELECT `+overrideColumns+`, updated_at, owner_id FROM event_overrides
		WHERE `+inOwners+` AND deleted_at IS NULL AND `+inEvents, ownersArg, eventsArg)
	if err != nil {
		return err
	}
	for rows.Next() {
		var upd sql.NullString
		var owner int64
		o, err := scanOverride(rows, &upd, &owner)
		if err != nil {
			bad = true
			continue
		}
		w, ok := read[o.EventID]
		if !ok || byID[o.EventID] != owner {
			continue
		}
		if u := evStamp(upd.String); u.After(w.Updated) {
			w.Updated = u
			read[o.EventID] = w
		}
		w.Overrides[o.Key] = o
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if bad {
		return nil // nothing read ahead: each person's read says why
	}
	for _, o := range owners {
		tx.aheadOf(o).haveEvents = true
	}
	for id, w := range read {
		tx.aheadOf(byID[id]).events[id] = w
	}
	return nil
}

// takeState answers ReminderState from the read-ahead, once.
func (tx *Tx) takeState() (*aheadState, bool) {
	if tx.ahead == nil || tx.ahead.state == nil {
		return nil, false
	}
	s := tx.ahead.state
	tx.ahead.state = nil
	return s, true
}

// takeMark answers LatestChange from the read-ahead, once.
func (tx *Tx) takeMark() (int64, bool) {
	if tx.ahead == nil || tx.ahead.mark == nil {
		return 0, false
	}
	m := *tx.ahead.mark
	tx.ahead.mark = nil
	return m, true
}

// takeCandidates answers RemindCandidates(from, to) from the read-ahead,
// once, when it was read for that window.
func (tx *Tx) takeCandidates(from, to time.Time) ([]RemindCandidate, bool) {
	if tx.ahead == nil || tx.ahead.cands == nil || tx.ahead.cands.from != from.Unix() || tx.ahead.cands.to != to.Unix() {
		return nil, false
	}
	list := tx.ahead.cands.list
	tx.ahead.cands = nil
	return list, true
}

// takeFires answers NextFires from the read-ahead, once.
func (tx *Tx) takeFires() ([]NextFire, bool) {
	if tx.ahead == nil || !tx.ahead.haveFires {
		return nil, false
	}
	list := tx.ahead.fires
	tx.ahead.fires, tx.ahead.haveFires = nil, false
	return list, true
}

// takePending answers PendingItems from the read-ahead, once.
func (tx *Tx) takePending() (map[string]bool, bool) {
	if tx.ahead == nil || tx.ahead.pending == nil {
		return nil, false
	}
	p := tx.ahead.pending
	tx.ahead.pending = nil
	return p, true
}

// takeTasks answers OpenTasksByID(ids) from the read-ahead, once, when
// every id was read ahead.
func (tx *Tx) takeTasks(ids []int64) ([]task.Task, bool) {
	if tx.ahead == nil || tx.ahead.taskIDs == nil {
		return nil, false
	}
	for _, id := range ids {
		if !tx.ahead.taskIDs[id] {
			return nil, false
		}
	}
	var out []task.Task
	for _, id := range ids {
		if t, ok := tx.ahead.tasks[id]; ok {
			out = append(out, t)
		}
	}
	tx.ahead.tasks, tx.ahead.taskIDs = nil, nil
	return out, true
}

// takeEvents answers EventsForReminders(ids) from the read-ahead, once,
// when every id was read ahead.
func (tx *Tx) takeEvents(ids []int64) (map[int64]WatchedEvent, bool) {
	if tx.ahead == nil || tx.ahead.eventIDs == nil || !tx.ahead.haveEvents {
		return nil, false
	}
	for _, id := range ids {
		if !tx.ahead.eventIDs[id] {
			return nil, false
		}
	}
	out := make(map[int64]WatchedEvent, len(ids))
	for _, id := range ids {
		if w, ok := tx.ahead.events[id]; ok {
			out[id] = w
		}
	}
	tx.ahead.events, tx.ahead.eventIDs, tx.ahead.haveEvents = nil, nil, false
	return out, true
}

// AheadHeld names what is read ahead for the view's person and not yet
// answered, in the names of the methods it answers ("ReminderState",
// "LatestChange", "RemindCandidates", "NextFires", "PendingItems",
// "OpenTasksByID", "EventsForReminders", "NextFiresDue", "SnoozesDue", "NextToSend"): for tests that check a call
// was answered from it.
func (tx *Tx) AheadHeld() []string {
	a := tx.ahead
	if a == nil {
		return nil
	}
	var out []string
	for _, h := range []struct {
		name string
		held bool
	}{{"ReminderState", a.state != nil}, {"LatestChange", a.mark != nil}, {"RemindCandidates", a.cands != nil},
		{"NextFires", a.haveFires}, {"PendingItems", a.pending != nil}, {"OpenTasksByID", a.taskIDs != nil},
		{"EventsForReminders", a.eventIDs != nil && a.haveEvents},
		{"NextFiresDue", a.due != nil}, {"SnoozesDue", a.snoozes != nil}, {"NextToSend", a.toSend != nil}} {
		if h.held {
			out = append(out, h.name)
		}
	}
	return out
}

type aheadDue struct {
	at   int64
	list []NextFire
}

type aheadSnoozes struct {
	at   int64
	list []Snooze
}

// ReadDueAhead reads, for each of owners (people of tx, a WriteMany),
// what their record step reads once their index is up to date: their
// [Tx.NextFiresDue] and [Tx.SnoozesDue] at now, one statement each for
// all of them (what is held back is written first). Each person's next
// call of each, with the same now, answers from it.
func (tx *Tx) ReadDueAhead(owners []int64, now time.Time) error {
	in, arg := tx.inList("owner_id", owners)
	rows, err := tx.query(`SELECT owner_id, item, next_fire FROM remind_next WHERE `+in+`
		AND next_fire IS NOT NULL AND next_fire <= ? ORDER BY owner_id, next_fire, item`, arg, now.Unix())
	if err != nil {
		return err
	}
	due := map[int64][]NextFire{}
	for rows.Next() {
		var owner, at int64
		var n NextFire
		if err := rows.Scan(&owner, &n.Item, &at); err != nil {
			rows.Close()
			return err
		}
		n.At = time.Unix(at, 0).UTC()
		due[owner] = append(due[owner], n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	in, arg = tx.inList("s.owner_id", owners)
	rows, err = tx.query(`SELECT s.owner_id, `+snoozeColumns+` FROM reminder_snoozes s WHERE `+in+`
		AND s.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM reminder_deliveries d WHERE d.delivery_id = s.delivery_id)
		AND s.fire_at <= ? ORDER BY s.owner_id, s.fire_at, s.id`, arg, now.Unix())
	if err != nil {
		return err
	}
	snoozes := map[int64][]Snooze{}
	for rows.Next() {
		var owner int64
		s, err := scanSnooze(ownerFirst{rows, &owner})
		if err != nil {
			rows.Close()
			return err
		}
		snoozes[owner] = append(snoozes[owner], s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range owners {
		if _, ok := slices.BinarySearch(tx.many.ids, id); !ok {
			continue
		}
		a := tx.aheadOf(id)
		a.due = &aheadDue{at: now.Unix(), list: due[id]}
		a.snoozes = &aheadSnoozes{at: now.Unix(), list: snoozes[id]}
	}
	return nil
}

// ownerFirst scans a row's first column into owner and the rest as the
// scanner it is given to would.
type ownerFirst struct {
	row   interface{ Scan(...any) error }
	owner *int64
}

func (o ownerFirst) Scan(dest ...any) error { return o.row.Scan(append([]any{o.owner}, dest...)...) }

// ToSendAhead reports, of owners (people of tx, a WriteMany), those who
// have a delivery that may be taken now: those for whom [Tx.NextToSend]
// at now and leaseNow would find one. It is one statement for all of
// them (what is held back is written first).
func (tx *Tx) ToSendAhead(owners []int64, now, leaseNow time.Time) (map[int64]bool, error) {
	src, arg := tx.ownerList(owners)
	clock, clockArgs := tx.leaseClock(leaseNow)
	args := append([]any{arg, now.Unix()}, clockArgs...)
	rows, err := tx.query(`SELECT o.id FROM `+src+` WHERE EXISTS (SELECT 1 FROM reminder_deliveries d WHERE d.owner_id = o.id
		AND ((d.status = 'pending' AND d.next_attempt <= ?) OR (d.status = 'claimed' AND coalesce(d.lease_until, 0) <= `+clock+`)))`, args...)
	if err != nil {
		return nil, err
	}
	return idSet(rows)
}

// takeDue answers NextFiresDue(now) from the read-ahead, once.
func (tx *Tx) takeDue(now time.Time) ([]NextFire, bool) {
	if tx.ahead == nil || tx.ahead.due == nil || tx.ahead.due.at != now.Unix() {
		return nil, false
	}
	list := tx.ahead.due.list
	tx.ahead.due = nil
	return list, true
}

// takeSnoozes answers SnoozesDue(now) from the read-ahead, once.
func (tx *Tx) takeSnoozes(now time.Time) ([]Snooze, bool) {
	if tx.ahead == nil || tx.ahead.snoozes == nil || tx.ahead.snoozes.at != now.Unix() {
		return nil, false
	}
	list := tx.ahead.snoozes.list
	tx.ahead.snoozes = nil
	return list, true
}

// ReadToSendAhead reads, for each of owners (people of tx, a WriteMany),
// the delivery their [Tx.NextToSend] at now and leaseNow finds, in one
// statement for all of them (what is held back is written first); each
// person's next NextToSend with the same now and leaseNow answers from
// it, unless the person wrote meanwhile. With a zero leaseNow the lease
// clock is read once, by this statement, for all of them: a lease that
// ends between this read and a person's own call is left to the next
// pass, as it would be had the call come a moment sooner.
func (tx *Tx) ReadToSendAhead(owners []int64, now, leaseNow time.Time) error {
	src, arg := tx.ownerList(owners)
	clock, clockArgs := tx.leaseClock(leaseNow)
	// The ids first (a probe of each person's rows), then their rows by
	// id: a join on the subquery would have SQLite's planner run it for
	// every row of the table.
	rows, err := tx.query(`SELECT owner_id, `+deliveryColumns+` FROM reminder_deliveries WHERE id IN
		(SELECT (SELECT x.id FROM reminder_deliveries x WHERE x.owner_id = o.id
		AND ((x.status = 'pending' AND x.next_attempt <= ?) OR (x.status = 'claimed' AND coalesce(x.lease_until, 0) <= `+clock+`))
		ORDER BY x.next_attempt, x.id LIMIT 1) FROM `+src+`)`, append([]any{now.Unix()}, append(clockArgs, arg)...)...)
	if err != nil {
		return err
	}
	found := map[int64]Delivery{}
	for rows.Next() {
		var owner int64
		d, err := scanDelivery(ownerFirst{rows, &owner})
		if err != nil {
			rows.Close()
			return err
		}
		found[owner] = d
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range owners {
		if _, ok := slices.BinarySearch(tx.many.ids, id); !ok {
			continue
		}
		d, ok := found[id]
		tx.aheadOf(id).toSend = &aheadToSend{now: now.Unix(), lease: leaseNow.Unix(), d: d, ok: ok}
	}
	return nil
}

// takeToSend answers NextToSend(now, leaseNow) from the read-ahead, once;
// found is false when it holds no answer for them.
func (tx *Tx) takeToSend(now, leaseNow time.Time) (d Delivery, ok, found bool) {
	if tx.ahead == nil || tx.ahead.toSend == nil || tx.ahead.toSend.now != now.Unix() || tx.ahead.toSend.lease != leaseNow.Unix() {
		return Delivery{}, false, false
	}
	a := tx.ahead.toSend
	tx.ahead.toSend = nil
	return a.d, a.ok, true
}
