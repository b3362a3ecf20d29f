package store

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
)

// ErrPersonChanged is the error of a transaction begun with a
// [PersonCheck] that found the person's name or zone no longer the ones
// the check holds, or the person gone: nothing of the transaction ran.
var ErrPersonChanged = errors.New("the person's name or zone changed since the call began")

// PersonCheck is a check, made by the first transaction of the person
// begun with a context from [WithPersonCheck] (Write or Read), that the
// person is still stored with a name and zone read before: a session that
// keeps its person between calls checks it that way instead of reading it
// again before each call. On PostgreSQL the check rides with the
// transaction's BEGIN and first statement (one round trip, see pipeConn);
// on SQLite it is one prepared read in the transaction. Safe for
// concurrent use.
type PersonCheck struct {
	id         int64
	name, zone string
	state      atomic.Int32 // checkPending, checkSame or checkChanged
}

const (
	checkPending int32 = iota
	checkSame
	checkChanged
)

type personCheckKey struct{}

// WithPersonCheck returns ctx carrying a check that person id is still
// stored with name and zone, and the check, which says after the call
// whether a transaction made it and what it found.
func WithPersonCheck(ctx context.Context, id int64, name, zone string) (context.Context, *PersonCheck) {
	c := &PersonCheck{id: id, name: name, zone: zone}
	return context.WithValue(ctx, personCheckKey{}, c), c
}

// Made reports whether a transaction made the check.
func (c *PersonCheck) Made() bool { return c.state.Load() != checkPending }

// Changed reports whether a transaction found the person changed or gone
// (and then failed with [ErrPersonChanged], running nothing).
func (c *PersonCheck) Changed() bool { return c.state.Load() == checkChanged }

// pendingCheck is ctx's check when it is of owner and not made yet.
func pendingCheck(ctx context.Context, owner int64) *PersonCheck {
	c, _ := ctx.Value(personCheckKey{}).(*PersonCheck)
	if c == nil || c.id != owner || owner == 0 || c.Made() {
		return nil
	}
	return c
}

// settle records what the person's row read (found false: no row) and
// returns ErrPersonChanged unless it is the checked name and zone.
func (c *PersonCheck) settle(name, zone string, found bool) error {
	if found && name == c.name && zone == c.zone {
		c.state.Store(checkSame)
		return nil
	}
	c.state.Store(checkChanged)
	return ErrPersonChanged
}

// personCheckSQL reads what a PersonCheck compares; its one argument is
// the person's id.
const personCheckSQL = `SELECT name, zone FROM people WHERE id = ?`

// checkPerson makes c in tx (SQLite: PostgreSQL's rides with BEGIN).
func (tx *Tx) checkPerson(c *PersonCheck) error {
	var name, zone string
	err := tx.queryRow(personCheckSQL, c.id).Scan(&name, &zone)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return c.settle(name, zone, err == nil)
}
