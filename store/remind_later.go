package store

import (
	"strings"
	"time"
)

// Writes held back in a WriteMany. A pass of the reminders job writes
// the same few rows for every person it takes (their index,
// [Tx.SetNextFires]; the fires that came due, [Tx.RecordDeliveryLater];
// the items it recorded, [Tx.MoveNextFire]; their row of remind_state,
// [Tx.SaveReminderState]; the deliveries it sent, [Tx.MarkSent]), and
// reads nothing back from them until it moves on to the next step. In a [Store.WriteMany] transaction those
// are held back and written together, one statement a kind for all the
// people of the transaction, just before the first statement that names
// remind_next, remind_state or reminder_deliveries (a read of them, any
// other write to them) and before the commit. So every read still sees every write made before it, and what
// the transaction keeps is the same; an error of a held-back write is
// the error of the statement that sent it (the WriteMany fails, keeping
// nothing). On PostgreSQL that is a round trip and a plan for many
// people instead of one a person.
//
// A person's writes to one table keep their order: an index row
// ([Tx.SetNextFires]) held after a move of theirs ([Tx.MoveNextFire])
// sends what is held first. Writes to different tables, or of different
// people (owner_id is in every key), touch different rows (no trigger
// joins them), so their order between them does not matter.

// later is the writes held back in one WriteMany.
type later struct {
	fires      []laterFire // SetNextFires
	moves      []laterFire // MoveNextFire
	states     []laterState
	deliveries []laterDelivery
	sent       []laterSent
	moved      map[int64]bool // the people with moves held
	err        error          // the first error of a held-back write
}

// The kinds of held-back writes.
const (
	laterFires = iota + 1
	laterMoves
	laterStates
	laterDeliveries
	laterMarks
)

type laterSent struct {
	owner, rowID int64
	at           int64  // sent_at
	to           string // delivered_to
}

type laterDelivery struct {
	owner int64
	NewDelivery
	now time.Time
}

type laterFire struct {
	owner int64
	NextFire
}

type laterState struct {
	owner int64
	ReminderState
}

func (l *later) empty() bool {
	return l == nil || len(l.fires)+len(l.moves)+len(l.states)+len(l.deliveries)+len(l.sent) == 0
}

// hold reports whether tx holds writes of kind back, first sending what
// is held when the person's order needs it.
func (tx *Tx) hold(kind int) (bool, error) {
	l := tx.later
	if l == nil {
		return false, nil
	}
	switch kind {
	case laterFires:
		if l.moved[tx.owner] {
			if err := tx.sendLater(); err != nil {
				return false, err
			}
		}
	case laterMoves:
		l.moved[tx.owner] = true
	}
	return true, nil
}

// namesLater reports whether the statement q reads or writes a table
// whose writes are held back.
func namesLater(q string) bool {
	return strings.Contains(q, "remind_next") || strings.Contains(q, "remind_state") ||
		strings.Contains(q, "reminder_deliveries")
}

// sendLater writes what is held back, one statement a kind, and holds
// nothing more. Its error is kept in the later too.
func (tx *Tx) sendLater() error {
	l := tx.later
	if l.empty() {
		return nil
	}
	err := tx.sendHeld()
	if err != nil && l.err == nil {
		l.err = err
	}
	return err
}

func (tx *Tx) sendHeld() error {
	l := tx.later
	fires, moves, states, deliveries, sent := l.fires, l.moves, l.states, l.deliveries, l.sent
	l.fires, l.moves, l.states, l.deliveries, l.sent = nil, nil, nil, nil, nil
	clear(l.moved)
	if err := tx.writeFires(lastOfEach(fires), `INSERT INTO remind_next (owner_id, item, next_fire) VALUES `,
		` ON CONFLICT (owner_id, item) DO UPDATE SET next_fire = excluded.next_fire`); err != nil {
		return err
	}
	if err := tx.moveFires(lastOfEach(moves)); err != nil {
		return err
	}
	if err := tx.writeDeliveries(deliveries); err != nil {
		return err
	}
	if err := tx.markSent(sent); err != nil {
		return err
	}
	return tx.writeStates(states)
}

// markSent is MarkSent of each of list. A row marked twice keeps the
// first mark (the second finds it sent and leaves it). SQLite runs a
// prepared statement a row, as moveFires.
func (tx *Tx) markSent(list []laterSent) error {
	type key struct{ owner, row int64 }
	seen := make(map[key]bool, len(list))
	first := list[:0:0]
	for _, m := range list {
		if k := (key{m.owner, m.rowID}); !seen[k] {
			seen[k] = true
			first = append(first, m)
		}
	}
	list = first
	if tx.s.engine != Postgres {
		for _, m := range list {
			if _, err := tx.exec(markSentOne, m.at, m.to, m.owner, m.rowID); err != nil {
				return err
			}
		}
		return nil
	}
	const row = `(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT))`
	for len(list) > 0 {
		n := min(len(list), perStatement*3/4)
		args := make([]any, 0, 4*n)
		for _, m := range list[:n] {
			args = append(args, m.owner, m.rowID, m.at, m.to)
		}
		q := `UPDATE reminder_deliveries SET status = 'sent', sent_at = v.column3, lease_until = NULL, claim_token = NULL,
			last_error = '', delivered_to = v.column4 FROM (VALUES ` + row + strings.Repeat(`, `+row, n-1) + `) AS v
			WHERE reminder_deliveries.owner_id = v.column1 AND reminder_deliveries.id = v.column2
			AND reminder_deliveries.status <> 'sent'`
		if _, err := tx.exec(q, args...); err != nil {
			return err
		}
		list = list[n:]
	}
	return nil
}

// writeDeliveries is RecordDelivery of each of list, many rows a
// statement; a fire already recorded (by a row there, or one before it
// in list) is left as it is.
func (tx *Tx) writeDeliveries(list []laterDelivery) error {
	const cols = 11
	for len(list) > 0 {
		n := min(len(list), perStatement*3/cols)
		args := make([]any, 0, cols*n)
		for _, d := range list[:n] {
			args = append(args, d.deliveryRow(d.owner, d.now)...)
		}
		row := `(?` + strings.Repeat(`, ?`, cols-1) + `)`
		if _, err := tx.exec(`INSERT INTO reminder_deliveries (`+deliveryInsertColumns+`) VALUES `+row+
			strings.Repeat(`, `+row, n-1)+` ON CONFLICT (owner_id, item, occurrence, trigger, fire_at) DO NOTHING`, args...); err != nil {
			return err
		}
		list = list[n:]
	}
	return nil
}

// lastOfEach is list with only the last write of each (person, item), in
// the order of those: one statement may not write a row twice.
func lastOfEach(list []laterFire) []laterFire {
	type key struct {
		owner int64
		item  string
	}
	last := make(map[key]int, len(list))
	for i, f := range list {
		last[key{f.owner, f.Item}] = i
	}
	if len(last) == len(list) {
		return list
	}
	out := list[:0:0]
	for i, f := range list {
		if last[key{f.owner, f.Item}] == i {
			out = append(out, f)
		}
	}
	return out
}

// perStatement is how many rows one held-back statement writes at most
// (three arguments a row, far below either engine's bound).
const perStatement = 300

// writeFires writes list in statements of head, a row of values each,
// and tail.
func (tx *Tx) writeFires(list []laterFire, head, tail string) error {
	for len(list) > 0 {
		n := min(len(list), perStatement)
		args := make([]any, 0, 3*n)
		for _, f := range list[:n] {
			args = append(args, f.owner, f.Item, f.column())
		}
		if _, err := tx.exec(head+`(?, ?, ?)`+strings.Repeat(`, (?, ?, ?)`, n-1)+tail, args...); err != nil {
			return err
		}
		list = list[n:]
	}
	return nil
}

// moveFires is MoveNextFire of each of list: an item not in the index is
// left out. SQLite runs a prepared statement a row (no round trip, and
// its planner would scan the table for a join); PostgreSQL one for many.
func (tx *Tx) moveFires(list []laterFire) error {
	if tx.s.engine != Postgres {
		for _, f := range list {
			if _, err := tx.exec(`UPDATE remind_next SET next_fire = ? WHERE owner_id = ? AND item = ?`,
				f.column(), f.owner, f.Item); err != nil {
				return err
			}
		}
		return nil
	}
	const row = `(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BIGINT))`
	for len(list) > 0 {
		n := min(len(list), perStatement)
		args := make([]any, 0, 3*n)
		for _, f := range list[:n] {
			args = append(args, f.owner, f.Item, f.column())
		}
		q := `UPDATE remind_next SET next_fire = v.column3 FROM (VALUES ` + row + strings.Repeat(`, `+row, n-1) +
			`) AS v WHERE remind_next.owner_id = v.column1 AND remind_next.item = v.column2`
		if _, err := tx.exec(q, args...); err != nil {
			return err
		}
		list = list[n:]
	}
	return nil
}

// writeStates is SaveReminderState of each of list, the last of each
// person's.
func (tx *Tx) writeStates(list []laterState) error {
	last := make(map[int64]int, len(list))
	for i, s := range list {
		last[s.owner] = i
	}
	keep := list[:0:0]
	for i, s := range list {
		if last[s.owner] == i {
			keep = append(keep, s)
		}
	}
	for len(keep) > 0 {
		n := min(len(keep), perStatement)
		args := make([]any, 0, 5*n)
		for _, s := range keep[:n] {
			args = append(args, s.owner, s.ChangeMark, s.Zone, s.PassedAt.Unix(), horizonColumn(s.Horizon))
		}
		if _, err := tx.exec(`INSERT INTO remind_state (owner_id, change_mark, zone, passed_at, horizon) VALUES (?, ?, ?, ?, ?)`+
			strings.Repeat(`, (?, ?, ?, ?, ?)`, n-1)+` ON CONFLICT (owner_id) DO UPDATE SET change_mark = excluded.change_mark,
			zone = excluded.zone, passed_at = excluded.passed_at, horizon = excluded.horizon`, args...); err != nil {
			return err
		}
		keep = keep[n:]
	}
	return nil
}

// horizonColumn is remind_state.horizon's value of h: NULL for zero.
func horizonColumn(h time.Time) any {
	if h.IsZero() {
		return nil
	}
	return h.Unix()
}

// beforeLater sends what is held back before the statement q when q
// names a table of theirs. An error is kept too, for WriteMany to
// return it whatever its fn makes of it.
func (tx *Tx) beforeLater(q string) error {
	if tx.later.empty() || !namesLater(q) {
		return nil
	}
	return tx.sendLater()
}
